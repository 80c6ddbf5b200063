"""Argument checks shared by the linear models of chapter 4: shapes ``X (n, c)``,
``y (n)``, ``w (c)``, ``W (m, c)``, integer labels, non-negative numbers. Each raises
``ValueError`` saying what it expected and what it got.
"""

from __future__ import annotations

import math
from typing import Any

from alice_lab.backend import array_namespace, check_labels


def _check_X(X: Any, xp: Any, name: str = "X") -> tuple[int, int]:
    if X.ndim != 2:
        raise ValueError(f"{name} must have shape (n, c); got {tuple(X.shape)}")
    if not xp.isdtype(X.dtype, "real floating"):
        raise ValueError(
            f"{name} must be a real floating array; got dtype {X.dtype} "
            "(convert with astype first)"
        )
    return X.shape


def _check_Xy(X: Any, y: Any, *, labels: bool = False) -> tuple[Any, int, int]:
    """X (n, c) floating, y (n,) (floating for regression, integer for labels)."""
    xp = array_namespace(X, y)
    n, c = _check_X(X, xp)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"y must have shape (n,) = ({n},) to match X {tuple(X.shape)}; got "
            f"{tuple(y.shape)}"
        )
    if n == 0:
        raise ValueError(f"X must hold at least one example; got shape {(n, c)}")
    if not labels and not xp.isdtype(y.dtype, "real floating"):
        raise ValueError(f"y must be a real floating array; got dtype {y.dtype}")
    return xp, n, c


def _check_vec(v: Any, size: int, name: str, what: str) -> None:
    if v.ndim != 1 or v.shape[0] != size:
        raise ValueError(
            f"{name} must have shape ({size},) to match {what}; got {tuple(v.shape)}"
        )


def _check_bias(b: Any, shape: tuple, what: str) -> None:
    if hasattr(b, "shape") and tuple(b.shape) not in ((), shape):
        raise ValueError(f"b must have shape {shape} for {what}; got {tuple(b.shape)}")


def _labels(y: Any, m: int, xp: Any) -> None:
    check_labels(y, m)


def _binary_targets(y: Any, like: Any, xp: Any) -> Any:
    yf = xp.astype(y, like.dtype)
    if not bool(xp.all((yf == 0) | (yf == 1))):
        raise ValueError(
            "binary logistic regression needs labels in {0, 1}; got other values "
            "(map -1/+1 labels with (y + 1) // 2)"
        )
    return yf


def _number(value: Any, name: str, *, minimum: float = 0.0) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a number >= {minimum}; got {value!r}"
        ) from None
    if not (math.isfinite(v) and v >= minimum):
        raise ValueError(f"{name} must be a finite number >= {minimum}; got {value!r}")
    return v


def _col(v: Any) -> Any:
    return v[:, None]
