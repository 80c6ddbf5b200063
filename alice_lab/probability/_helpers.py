r"""Helpers shared by the probability modules: distribution parameters, positivity
checks and :math:`a\log b` with the 0 log 0 = 0 convention."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from alice_lab.backend import as_float_array

LOG_2PI = math.log(2.0 * math.pi)


def _param(v: Any, x: Any, name: str) -> Any:
    """A distribution parameter: a Python or NumPy number (kept a float, so that
    ``math.log`` takes it), or an array of shape () or x's shape (no other
    broadcasting), by :func:`~alice_lab.backend.as_float_array` (a list joins x's
    library)."""
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    v = as_float_array(v, name, like=x)
    if v.ndim != 0 and tuple(v.shape) != tuple(x.shape):
        raise ValueError(
            f"{name} must be a scalar or have the shape of x {tuple(x.shape)}; got "
            f"{tuple(v.shape)}"
        )
    return v


def _positive(v: Any, xp: Any, name: str) -> None:
    ok = v > 0 if isinstance(v, float) else bool(xp.all(v > 0))
    if not ok:
        raise ValueError(f"{name} must be > 0 everywhere; got a value <= 0")


def _xlogy(a: Any, b: Any, xp: Any) -> Any:
    """:math:`a\\log b`, 0 where a == 0 (even if b == 0), -inf where only b is 0."""
    safe = xp.where(a == 0, xp.ones_like(b), b)
    with np.errstate(divide="ignore"):
        return xp.where(a == 0, xp.zeros_like(b), a * xp.log(safe))
