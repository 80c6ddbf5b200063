"""Small helpers shared by the chapter claim modules."""

from __future__ import annotations

import numpy as np


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _maxerr(a, b) -> float:
    """Largest absolute difference of two NumPy/torch/JAX arrays (complex-safe)."""
    a, b = np.asarray(_np(a)), np.asarray(_np(b))
    if not (np.iscomplexobj(a) or np.iscomplexobj(b)):
        a, b = a.astype(float), b.astype(float)
    return float(np.max(np.abs(a - b)))


def _np(x) -> np.ndarray:
    """A host NumPy copy of a NumPy, torch or JAX array."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)
