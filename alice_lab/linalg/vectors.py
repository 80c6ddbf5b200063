r"""Vectors (§2.1.1): linear combinations, inner products, norms, cosine similarity
and angles, the best-matching template, and (pairwise) squared distances.

Book: §2.1.1.
"""

from __future__ import annotations

import math
from typing import Any

from alice_lab.backend import (
    array_namespace,
    as_float_array,
)
from alice_lab.tensors import check_shape

__all__ = [
    "angle",
    "best_template",
    "cosine_similarity",
    "inner",
    "lincomb",
    "norm",
    "pairwise_sq_dists",
    "sq_dist",
    "sq_norm",
]


def _same_shape(x: Any, y: Any, what: str) -> None:
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(
            f"{what} needs two arrays of the same shape (no broadcasting), got "
            f"{tuple(x.shape)} and {tuple(y.shape)}"
        )


def lincomb(a: Any, x: Any, b: Any, y: Any) -> Any:
    r"""Linear combination :math:`z = a x + b y` of two same-shaped tensors.

    x, y : (d) arrays (or any shape, but the same one: nothing is broadcast);
    a, b : scalars. Returns z : (d).

    Book: §2.1.1, lines 224-230.

    >>> import numpy as np
    >>> lincomb(2.0, np.array([1.0, 0.0]), 3.0, np.array([0.0, 1.0]))
    array([2., 3.])
    """
    array_namespace(x, y)
    _same_shape(x, y, "lincomb")
    return a * x + b * y


def inner(x: Any, y: Any) -> Any:
    r"""Inner (dot) product :math:`\langle x, y \rangle = \sum_i x_i y_i`.

    x, y : (d) arrays -> () scalar array. Raises ``ValueError`` for other shapes.

    Book: §2.1.1, definition "Inner product" (lines 250-268).

    >>> import numpy as np
    >>> float(inner(np.array([0.1, 0, -0.3]), np.array([-4.0, 0.05, 0.1])))
    -0.43000000000000005
    """
    xp = array_namespace(x, y)
    bound = check_shape(x, ("d",), "x")
    check_shape(y, ("d",), "y", bound=bound)
    return xp.sum(x * y)


def sq_norm(x: Any, axis: int | None = None) -> Any:
    r"""Squared Euclidean norm :math:`\lVert x \rVert^2 = \sum_i x_i^2`.

    x : (d) array -> (). With ``axis`` given, reduces that axis only ((n, d) -> (n) for
    ``axis=-1``); ``axis=None`` reduces every element (the Frobenius norm for matrices).

    Book: §2.1.1, lines 236-248 and 306-308.

    >>> import numpy as np; float(sq_norm(np.array([3.0, 4.0])))
    25.0
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    return xp.sum(x * x, axis=axis)


def norm(x: Any, safe: bool = True, axis: int | None = None) -> Any:
    r"""Euclidean norm :math:`\lVert x \rVert = \sqrt{\sum_i x_i^2}`.

    x : (d) array -> () (``axis`` as in :func:`sq_norm`).

    The textbook formula squares the entries first, so it overflows to ``inf`` once
    they exceed about 1e154 in float64 (and underflows to 0 below 1e-154). With
    ``safe=True`` the vector is first divided by its largest absolute entry ``m``:
    :math:`\lVert x\rVert = m \sqrt{\sum_i (x_i/m)^2}`, which is exact in exact
    arithmetic and keeps every square in [0, 1]. ``safe=False`` is the naive formula.

    Book: §2.1.1, lines 236-248.

    >>> import numpy as np; float(norm(np.array([1e200, 1e200])))
    1.414213562373095e+200
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if not safe:
        return xp.sqrt(xp.sum(x * x, axis=axis))
    if math.prod(x.shape) == 0:  # empty: no maximum to scale by; the norm is 0
        return xp.sqrt(xp.sum(x * x, axis=axis))
    a = xp.abs(x)
    m = xp.max(a, axis=axis, keepdims=True)
    scaled = xp.where((m == 0) | xp.isinf(m), xp.ones_like(m), m)
    r = xp.sqrt(xp.sum((a / scaled) ** 2, axis=axis, keepdims=True))
    out = xp.where(xp.isinf(m), m, m * r)  # an infinite entry gives inf, not nan
    if axis is None:
        return xp.reshape(out, ())
    return xp.squeeze(out, axis=axis)


def cosine_similarity(x: Any, y: Any, eps: float = 1e-8) -> Any:
    r"""Cosine similarity :math:`\langle x, y\rangle / (\lVert x\rVert \lVert y\rVert)`.

    x, y : (..., d) arrays of the same shape -> (...). Computed as the dot product of
    the normalised vectors, each norm clamped below at ``eps`` (so a zero vector gives
    0, not ``nan``, and huge vectors do not overflow the product of norms); the result
    is clipped to [-1, 1] so that :func:`angle` never sees ``1.0000000000000002``.

    Book: §2.1.1, eq. dot_product_cosine (lines 270-280).

    >>> import numpy as np
    >>> float(cosine_similarity(np.array([1.0, 0.0]), np.array([3.0, 0.0])))
    1.0
    """
    x, y = as_float_array(x, "x"), as_float_array(y, "y")
    xp = array_namespace(x, y)
    _same_shape(x, y, "cosine_similarity")
    if x.ndim == 0:
        raise ValueError("cosine_similarity needs vectors (..., d), got scalars")
    nx = xp.maximum(norm(x, axis=-1), eps)[..., None]
    ny = xp.maximum(norm(y, axis=-1), eps)[..., None]
    c = xp.sum((x / nx) * (y / ny), axis=-1)
    return xp.clip(c, -1.0, 1.0)


def angle(x: Any, y: Any) -> Any:
    r"""Angle :math:`\alpha \in [0, \pi]` between x and y, in radians.

    x, y : (..., d) -> (...). ``arccos`` of the clipped :func:`cosine_similarity`.

    Book: §2.1.1, lines 270-280.

    >>> import numpy as np
    >>> round(float(angle(np.array([1.0, 0.0]), np.array([0.0, 2.0]))), 4)
    1.5708
    """
    xp = array_namespace(x, y)
    return xp.acos(cosine_similarity(x, y))


def best_template(x: Any, candidates: Any) -> int:
    r"""Index of the candidate with the largest dot product with x (template matching).

    x : (d), candidates : (m, d) -> int in [0, m). For unit-norm vectors the best
    template is ``x`` itself, since
    :math:`\langle x, y\rangle \le 1 = \langle x, x\rangle`.
    Ties go to the first index.

    Book: §2.1.1, eq. maximize_dot_product (lines 282-290).

    >>> import numpy as np; best_template(np.array([0.0, 1.0]), np.eye(2))
    1
    """
    xp = array_namespace(x, candidates)
    bound = check_shape(x, ("d",), "x")
    check_shape(candidates, ("m", "d"), "candidates", bound=bound)
    if candidates.shape[0] == 0:
        raise ValueError("best_template needs at least one candidate, got shape (0, d)")
    return int(xp.argmax(candidates @ x))


def sq_dist(x: Any, y: Any, method: str = "direct") -> Any:
    r"""Squared distance :math:`\lVert x - y\rVert^2` between two vectors.

    x, y : (d) -> (). ``method="direct"`` sums :math:`(x_i - y_i)^2`;
    ``method="dots"`` uses
    :math:`\langle x,x\rangle + \langle y,y\rangle - 2\langle x,y\rangle`
    exactly as the book writes it, *without* clamping, so it can show catastrophic
    cancellation: for nearby large vectors it may return 0 or even a negative number.
    Use :func:`pairwise_sq_dists` (clamped) for batches.

    Book: §2.1.1, lines 300-308.

    >>> import numpy as np; float(sq_dist(np.array([1.0, 2.0]), np.array([4.0, 6.0])))
    25.0
    """
    array_namespace(x, y)
    bound = check_shape(x, ("d",), "x")
    check_shape(y, ("d",), "y", bound=bound)
    if method == "direct":
        return sq_norm(x - y)
    if method == "dots":
        return inner(x, x) + inner(y, y) - 2 * inner(x, y)
    raise ValueError(f"method must be 'direct' or 'dots', got {method!r}")


def pairwise_sq_dists(X: Any, Y: Any, clamp: bool = True) -> Any:
    r"""All squared distances between the rows of X and of Y, via dot products.

    X : (n, d), Y : (m, d) -> D : (n, m), with
    :math:`D_{ij} = \lVert X_i\rVert^2 + \lVert Y_j\rVert^2 - 2\langle X_i, Y_j\rangle`:
    one matrix product instead of n*m loops. The expansion cancels catastrophically for
    nearby points and can come out slightly negative; ``clamp=True`` (the default)
    replaces those values with 0, so taking a square root is always safe.

    Book: §2.1.1, lines 300-308 (distance through dot products) and §2.1.2, line 360.

    >>> import numpy as np
    >>> pairwise_sq_dists(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]))
    array([[25.]])
    """
    X, Y = as_float_array(X, "X"), as_float_array(Y, "Y")
    xp = array_namespace(X, Y)
    bound = check_shape(X, ("n", "d"), "X")
    check_shape(Y, ("m", "d"), "Y", bound=bound)
    sx = xp.sum(X * X, axis=1)  # (n,)
    sy = xp.sum(Y * Y, axis=1)  # (m,)
    D = sx[:, None] + sy[None, :] - 2 * (X @ Y.T)  # (n, m)
    return xp.maximum(D, 0.0) if clamp else D
