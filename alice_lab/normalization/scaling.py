r"""Scaling a data matrix feature by feature: min-max to [0, 1] and standardisation to
zero mean and unit variance, the preprocessing the normalization layers generalise.

Book: §9.3.2 (lines 4669-4835).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace
from alice_lab.normalization._checks import _moments, _ndim

__all__ = ["minmax_scale", "standard_scale"]


def minmax_scale(X: Any) -> Any:
    """Columns of ``X (n, c)`` squashed to [0, 1] (constant columns map to 0).
    Book: §9.3.2 (line 4671).

    >>> import numpy as np
    >>> minmax_scale(np.array([[1.0], [3.0]])).ravel().tolist()
    [0.0, 1.0]
    """
    xp = array_namespace(X)
    _ndim(X, 2, "X", "(n, c)")
    lo, hi = xp.min(X, axis=0), xp.max(X, axis=0)
    span = hi - lo
    return (X - lo) / xp.where(span > 0, span, xp.ones_like(span))


def standard_scale(X: Any) -> Any:
    """Columns of ``X (n, c)`` to zero mean and unit (biased) variance; constant
    columns map to 0. Book: §9.3.2 (line 4671).

    >>> import numpy as np
    >>> standard_scale(np.array([[1.0], [3.0]])).ravel().tolist()
    [-1.0, 1.0]
    """
    xp = array_namespace(X)
    _ndim(X, 2, "X", "(n, c)")
    mu, var = _moments(X, (0,))
    sd = xp.sqrt(var)
    return (X - mu) / xp.where(sd > 0, sd, xp.ones_like(sd))
