"""Least squares (every method) against numpy.linalg.lstsq, and the cross-entropy
against torch.nn.functional.cross_entropy on the CPU (Book §4.1.3-4.1.4, §4.3.2)."""

from __future__ import annotations

import numpy as np

from alice_lab import linear, losses
from benchmarks.harness import Bench, benchmark

LS_SHAPE = (1000, 32)
CE_SHAPE = (4096, 1000)


def _lstsq(X, y):
    return np.linalg.lstsq(X, y, rcond=None)[0]


def _ls_problem(rng: np.random.Generator, n: int, c: int):
    X = rng.standard_normal((n, c))
    return X, X @ rng.standard_normal(c) + 0.1 * rng.standard_normal(n)


def _ls_case(method: str, rtol: float):
    def factory(rng: np.random.Generator) -> Bench:
        X, y = _ls_problem(rng, *LS_SHAPE)
        Xs, ys = _ls_problem(rng, 50, 8)  # a small one, and a worse-conditioned one
        Xc = Xs.copy()
        Xc[:, -1] = Xc[:, 0] + 1e-2 * rng.standard_normal(50)  # κ(X) ≈ 300
        checks = {"n=50, c=8": (Xs, ys)}
        if method != "gd":  # gradient descent needs ~κ² steps there
            checks["nearly collinear column"] = (Xc, ys)
        return Bench(
            alice=lambda X, y: linear.least_squares(X, y, method=method),
            reference=_lstsq,
            args=(X, y),
            checks=checks,
            rtol=rtol,
            atol=1e-9 if method != "gd" else 1e-6,
        )

    return factory


for _method, _rtol in (("solve", 1e-8), ("inv", 1e-8), ("lstsq", 1e-10), ("gd", 1e-6)):
    benchmark(
        f"least_squares ({_method})",
        reference="numpy.linalg.lstsq",
        shape=LS_SHAPE,
        dtype="float64",
    )(_ls_case(_method, _rtol))


def _ce_generic(z, y):
    """The book's array-API cross-entropy (log-softmax, one-hot pick), which
    ``losses.cross_entropy`` runs on every input but torch tensors."""
    from alice_lab.backend import array_namespace
    from alice_lab.losses.categorical import _cross_entropy_generic

    return _cross_entropy_generic(z, y, array_namespace(z))


def _ce_case(dtype: str, rtol: float, generic: bool = False):
    def factory(rng: np.random.Generator) -> Bench:
        import torch

        def t(a):
            return torch.as_tensor(a, device="cpu")

        z = rng.standard_normal(CE_SHAPE).astype(dtype)
        y = rng.integers(0, CE_SHAPE[1], size=CE_SHAPE[0])
        big = (1e4 * rng.uniform(-1, 1, size=(256, 100))).astype(dtype)
        y_big = rng.integers(0, 100, size=256)
        return Bench(
            alice=_ce_generic
            if generic
            else (lambda z, y: losses.cross_entropy(z, y, reduction="none")),
            reference=lambda z, y: torch.nn.functional.cross_entropy(
                z, y, reduction="none"
            ),
            args=(t(z), t(y)),
            checks={"logits ±1e4": (t(big), t(y_big))},
            rtol=rtol,
            atol=0.0,
        )

    return factory


benchmark(
    "cross_entropy (torch CPU)",
    reference="torch.nn.functional.cross_entropy",
    shape=CE_SHAPE,
    dtype="float64",
)(_ce_case("float64", 1e-12))
benchmark(
    "cross_entropy (torch CPU, float32)",
    reference="torch.nn.functional.cross_entropy",
    shape=CE_SHAPE,
    dtype="float32",
)(_ce_case("float32", 1e-5))
benchmark(
    "cross_entropy (torch CPU, book's array-API path)",
    reference="torch.nn.functional.cross_entropy",
    shape=CE_SHAPE,
    dtype="float64",
)(_ce_case("float64", 1e-12, generic=True))
