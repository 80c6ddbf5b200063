"""Argument checks shared by the approximation modules."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from array_api_compat import is_array_api_obj

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    device_of,
    to_numpy,
)


def _number(value: Any, name: str, *, positive: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number; got {value!r}") from None
    if not math.isfinite(v) or (positive and v <= 0):
        need = "a finite number > 0" if positive else "a finite number"
        raise ValueError(f"{name} must be {need}; got {value!r}")
    return v


def _domain(domain: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in domain)
    except (TypeError, ValueError):
        raise ValueError(f"domain must be a pair (lo, hi); got {domain!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"domain must be finite with lo < hi; got {domain!r}")
    return lo, hi


def _like(v: Any, x: Any, xp: Any, name: str, shape: tuple | None = None) -> Any:
    """Parameter ``v`` in ``x``'s namespace: lists and numbers join ``x``
    (:func:`~alice_lab.backend.as_float_array` with ``like=x``); an array of another
    library (the construction's host NumPy parameters) is copied to ``x``'s library,
    dtype and device; an array of ``x``'s library is kept (a tensor keeps its
    ``requires_grad``)."""
    if is_array_api_obj(v) and array_namespace(v) is not xp:
        v = xp.asarray(to_numpy(v), dtype=x.dtype, device=device_of(x))
    v = as_float_array(v, name, like=x)
    if shape is not None and tuple(v.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}; got {tuple(v.shape)}")
    return v


def _vector(v: Any, name: str) -> np.ndarray:
    """A host (m,) float64 vector of finite numbers."""
    out = np.asarray(to_numpy(v), dtype=np.float64)
    if out.ndim != 1 or out.shape[0] == 0:
        raise ValueError(f"{name} must have shape (m,) with m >= 1; got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} contains NaN or inf")
    return out
