"""logsumexp, softmax and log-softmax against SciPy's kernels (Book §4.3.2)."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from alice_lab import functional as F
from benchmarks.harness import Bench, benchmark

SHAPE = (4096, 1024)


def special_rows(dtype: str) -> np.ndarray:
    """Rows with inf, -inf and NaN, and rows that overflow or underflow naive code."""
    inf, nan, big = np.inf, np.nan, np.finfo(dtype).max / 2
    return np.array(
        [
            [-inf, -inf, -inf, -inf],
            [inf, 0.0, 1.0, -inf],
            [inf, inf, 0.0, 2.0],
            [nan, 0.0, 1.0, 2.0],
            [nan, inf, -inf, 0.0],
            [-inf, 0.0, 1.0, 2.0],
            [big, big, -big, 0.0],
            [-big, -big, -big, -big],
        ],
        dtype=dtype,
    )


def _checks(rng: np.random.Generator, dtype: str) -> dict[str, tuple]:
    return {
        "inf/-inf/NaN rows": (special_rows(dtype),),
        "logits ±1e4": ((1e4 * rng.standard_normal((64, 1024))).astype(dtype),),
    }


def _logsumexp_case(dtype: str, rtol: float):
    def factory(rng: np.random.Generator) -> Bench:
        x = rng.standard_normal(SHAPE).astype(dtype)
        return Bench(
            alice=lambda x: F.logsumexp(x, axis=-1),
            reference=lambda x: sp.logsumexp(x, axis=-1),
            args=(x,),
            checks=_checks(rng, dtype),
            rtol=rtol,
        )

    return factory


benchmark(
    "logsumexp", reference="scipy.special.logsumexp", shape=SHAPE, dtype="float64"
)(_logsumexp_case("float64", 1e-12))
benchmark(
    "logsumexp (float32)",
    reference="scipy.special.logsumexp",
    shape=SHAPE,
    dtype="float32",
)(_logsumexp_case("float32", 1e-5))


@benchmark(
    "log_softmax", reference="scipy.special.log_softmax", shape=SHAPE, dtype="float64"
)
def _log_softmax(rng: np.random.Generator) -> Bench:
    x = rng.standard_normal(SHAPE)
    return Bench(
        alice=lambda x: F.log_softmax(x, axis=-1),
        reference=lambda x: sp.log_softmax(x, axis=-1),
        args=(x,),
        checks=_checks(rng, "float64"),
        rtol=1e-12,
        atol=1e-12,
    )


@benchmark("softmax", reference="scipy.special.softmax", shape=SHAPE, dtype="float64")
def _softmax(rng: np.random.Generator) -> Bench:
    x = rng.standard_normal(SHAPE)
    return Bench(
        alice=lambda x: F.softmax(x, axis=-1),
        reference=lambda x: sp.softmax(x, axis=-1),
        args=(x,),
        checks=_checks(rng, "float64"),
        rtol=1e-12,
        atol=1e-300,
    )
