"""Batch norm, layer norm and RMSNorm (channels last, generic array-API code on torch
tensors) against torch.nn.functional's kernels on the CPU (Book §9.3.2)."""

from __future__ import annotations

import numpy as np

from alice_lab import normalization as nz
from benchmarks.harness import Bench, benchmark

IMAGES = (64, 16, 16, 32)  # (b, h, w, c)
TOKENS = (64, 128, 256)  # (b, n, c)


def _host(y):
    return y.detach().cpu().numpy() if hasattr(y, "detach") else np.asarray(y)


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

    def reference(X):
        out = F.batch_norm(X.permute(0, 3, 1, 2), None, None, g, b, training=True)
        return _host(out.permute(0, 2, 3, 1))

    return Bench(
        alice=lambda X: _host(nz.batch_norm(X, g, b)),
        reference=reference,
        args=(X,),
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
        alice=lambda X: _host(nz.layer_norm(X, g, b)),
        reference=lambda X: _host(F.layer_norm(X, (256,), g, b)),
        args=(X,),
        rtol=1e-10,
        atol=1e-12,
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
        alice=lambda X: _host(nz.rms_norm(X, g)),
        reference=lambda X: _host(F.rms_norm(X, (256,), g, eps=1e-6)),
        args=(X,),
        rtol=1e-10,
        atol=1e-12,
    )
