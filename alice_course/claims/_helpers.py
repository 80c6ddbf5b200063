"""Small helpers shared by the chapter claim modules."""

from __future__ import annotations

import numpy as np

# the chapters' short name for the one host copy, alice_lab.backend.to_numpy
from alice_lab.backend import to_numpy as _np


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _maxerr(a, b) -> float:
    """Largest absolute difference of two NumPy/torch/JAX arrays (complex-safe)."""
    a, b = np.asarray(_np(a)), np.asarray(_np(b))
    if not (np.iscomplexobj(a) or np.iscomplexobj(b)):
        a, b = a.astype(float), b.astype(float)
    return float(np.max(np.abs(a - b)))
