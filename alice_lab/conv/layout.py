"""Layout helpers between the book's channels-last arrays and PyTorch's channels-first.

The book (and JAX/TensorFlow by default) stores an image batch as ``(b, h, w, c)`` and a
kernel as ``(s, s, c, c')``; PyTorch stores ``(b, c, h, w)`` and ``(c', c, s, s)``
(book Box 7.1, line 3390). The same helpers work for 1-D ``(b, t, c)`` and 3-D
``(b, t, h, w, c)`` data. Book: §7.1.1 (line 3266), §7.1.3 (lines 3362-3390).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace

__all__ = [
    "from_torch_layout",
    "from_torch_weight",
    "to_torch_layout",
    "to_torch_weight",
    "unvect",
    "vect",
]


def _check(X: Any, what: str) -> None:
    if X.ndim < 3:
        raise ValueError(
            f"{what} expects a batched array of rank 3 to 5, (b, ..., c); got shape "
            f"{tuple(X.shape)}"
        )


def to_torch_layout(X: Any) -> Any:
    """``(b, *spatial, c)`` -> ``(b, c, *spatial)`` (channels last to channels first).

    >>> import numpy as np; to_torch_layout(np.zeros((2, 5, 4, 3))).shape
    (2, 3, 5, 4)
    """
    _check(X, "to_torch_layout")
    xp = array_namespace(X)
    return xp.permute_dims(X, (0, X.ndim - 1, *range(1, X.ndim - 1)))


def from_torch_layout(X: Any) -> Any:
    """``(b, c, *spatial)`` -> ``(b, *spatial, c)`` (inverse of
    :func:`to_torch_layout`)."""
    _check(X, "from_torch_layout")
    xp = array_namespace(X)
    return xp.permute_dims(X, (0, *range(2, X.ndim), 1))


def to_torch_weight(W: Any) -> Any:
    """Kernel ``(s_1, …, s_d, c_in, c')`` -> PyTorch's ``(c', c_in, s_1, …, s_d)``."""
    if W.ndim < 3:
        raise ValueError(
            f"to_torch_weight expects (s, ..., c, c'); got shape {tuple(W.shape)}"
        )
    xp = array_namespace(W)
    return xp.permute_dims(W, (W.ndim - 1, W.ndim - 2, *range(W.ndim - 2)))


def from_torch_weight(W: Any) -> Any:
    """PyTorch's ``(c', c_in, s_1, …, s_d)`` -> ``(s_1, …, s_d, c_in, c')``."""
    if W.ndim < 3:
        raise ValueError(
            f"from_torch_weight expects (c', c, s, ...); got shape {tuple(W.shape)}"
        )
    xp = array_namespace(W)
    return xp.permute_dims(W, (*range(2, W.ndim), 1, 0))


def vect(X: Any) -> Any:
    """Flatten in row-major order, the book's vect (line 3272, ``x.reshape(-1)``)."""
    xp = array_namespace(X)
    return xp.reshape(X, (-1,))


def unvect(x: Any, shape: tuple[int, ...]) -> Any:
    """Inverse of :func:`vect` (book eq. E.7.2, line 3276)."""
    xp = array_namespace(x)
    return xp.reshape(x, tuple(shape))
