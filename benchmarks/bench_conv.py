"""conv2d (channels last; stride 1 takes the one-product-per-tap path of
alice_lab.conv.shifted) against torch.nn.functional.conv2d on the CPU, float32 (Book
§7.1.3, eq. E.7.4). The reference receives the same
channels-last arrays, viewed as channels-first with ``permute`` (no copy)."""

from __future__ import annotations

import numpy as np

from alice_lab import conv
from benchmarks.harness import Bench, benchmark

SHAPE = (32, 32, 32, 16)
KERNEL = (3, 3, 16, 32)


@benchmark(
    "conv2d 3x3 same (float32)",
    reference="torch.nn.functional.conv2d (CPU)",
    shape=SHAPE,
    dtype="float32",
)
def _conv2d(rng: np.random.Generator) -> Bench:
    import torch
    import torch.nn.functional as F

    X = rng.standard_normal(SHAPE).astype("float32")
    W = (rng.standard_normal(KERNEL) / 12).astype("float32")
    Wt = torch.from_numpy(W).permute(3, 2, 0, 1).contiguous()

    def reference(X, W):
        out = F.conv2d(torch.from_numpy(X).permute(0, 3, 1, 2), Wt, padding=1)
        return out.permute(0, 2, 3, 1)

    small = rng.standard_normal((2, 7, 6, 16)).astype("float32")
    return Bench(
        alice=lambda X, W: conv.conv2d(X, W, padding="same"),
        reference=reference,
        args=(X, W),
        checks={"odd-sized batch": (small, W)},
        rtol=1e-4,
        atol=1e-4,
    )
