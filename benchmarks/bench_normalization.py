"""Batch norm, layer norm and RMSNorm (channels last, on torch tensors) against
torch.nn.functional's kernels on the CPU (Book §9.3.2).

Every tensor is an input of the case (not captured by the lambdas), so that
``--device cuda`` moves all of them; the results stay tensors (the harness compares
them on the host, outside the timed blocks)."""

from __future__ import annotations

import dataclasses

import numpy as np

from alice_lab import normalization as nz
from benchmarks.harness import Bench, benchmark

IMAGES = (64, 16, 16, 32)  # (b, h, w, c)
TOKENS = (64, 128, 256)  # (b, n, c)


@benchmark(
    "batch_norm (training)",
    reference="torch.nn.functional.batch_norm (CPU)",
    shape=IMAGES,
    dtype="float64",
)
def _batch_norm(rng: np.random.Generator) -> Bench:
    import torch
    import torch.nn.functional as F

    X = torch.from_numpy(rng.normal(2.0, 3.0, IMAGES))
    g, b = (
        torch.from_numpy(rng.uniform(0.5, 2, 32)),
        torch.from_numpy(rng.normal(size=32)),
    )

    def reference(X, g, b):
        out = F.batch_norm(X.permute(0, 3, 1, 2), None, None, g, b, training=True)
        return out.permute(0, 2, 3, 1)

    return Bench(
        alice=nz.batch_norm,
        reference=reference,
        args=(X, g, b),
        rtol=1e-10,
        atol=1e-12,
    )


@benchmark(
    "layer_norm",
    reference="torch.nn.functional.layer_norm (CPU)",
    shape=TOKENS,
    dtype="float64",
)
def _layer_norm(rng: np.random.Generator) -> Bench:
    import torch
    import torch.nn.functional as F

    X = torch.from_numpy(rng.normal(size=TOKENS))
    g, b = (
        torch.from_numpy(rng.uniform(0.5, 2, 256)),
        torch.from_numpy(rng.normal(size=256)),
    )
    return Bench(
        alice=nz.layer_norm,
        reference=lambda X, g, b: F.layer_norm(X, (256,), g, b),
        args=(X, g, b),
        rtol=1e-10,
        atol=1e-12,
    )


@benchmark(
    "layer_norm (book's array-API path)",
    reference="torch.nn.functional.layer_norm (CPU)",
    shape=TOKENS,
    dtype="float64",
)
def _layer_norm_generic(rng: np.random.Generator) -> Bench:
    """The teaching path that ``layer_norm`` takes on every input but torch tensors
    (mean and variance over the last axis of ``(b, n, c)``, then the affine map)."""
    bench = _layer_norm(rng)
    return dataclasses.replace(
        bench, alice=lambda X, g, b: nz._layer_norm_generic(X, g, b, 1e-5, (2,))
    )


@benchmark(
    "rms_norm",
    reference="torch.nn.functional.rms_norm (CPU)",
    shape=TOKENS,
    dtype="float64",
)
def _rms_norm(rng: np.random.Generator) -> Bench:
    import torch
    import torch.nn.functional as F

    X = torch.from_numpy(rng.normal(size=TOKENS))
    g = torch.from_numpy(rng.uniform(0.5, 2, 256))
    return Bench(
        alice=nz.rms_norm,
        reference=lambda X, g: F.rms_norm(X, (256,), g, eps=1e-6),
        args=(X, g),
        rtol=1e-10,
        atol=1e-12,
    )
