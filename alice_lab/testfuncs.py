r"""The small functions chapter 2 optimises, each with its hand-derived gradient.

Every function takes an array of any backend (NumPy, torch, JAX, ...) and returns one
of the same kind; none of them uses autodiff, so they double as references for the
gradient checks of later chapters.

- :func:`quad_1d` :math:`x^2 - 1.5x`, minimum at 0.75 (Figures F.2.1, F.2.2);
- :func:`xsin2x` :math:`x\sin(2x)`, non-convex (Figure F.2.4, momentum);
- :func:`saddle_1d` :math:`x^3` and :func:`saddle_2d` :math:`x_1^2 - x_2^2`, stationary
  points that are not extrema (Figure F.2.3);
- :func:`alice2d` :math:`\sin x_1\cos x_2+\sin\frac{x_1}{2}\cos\frac{x_2}{2}`, the
  exercise at the end of chapter 2;
- :func:`convex_quadratic` :math:`\tfrac12 x^\top A x - b^\top x`, convex for a positive
  semi-definite :math:`A` (§2.3.1).

Book: §2.2 (derivatives, lines 600-840), §2.3 (gradient descent, lines 882-1100) and
"From theory to practice" (lines 1104-1160).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alice_lab.backend import array_namespace

__all__ = [
    "alice2d",
    "alice2d_grad",
    "convex_quadratic",
    "dquad_1d",
    "dsaddle_1d",
    "dxsin2x",
    "quad_1d",
    "saddle_1d",
    "saddle_2d",
    "saddle_2d_grad",
    "xsin2x",
]


# --- one-dimensional functions (element-wise) ---------------------------------------


def quad_1d(x: Any) -> Any:
    r"""The parabola :math:`f(x) = x^2 - 1.5x`, element-wise; its minimum is at 0.75.

    Book: §2.2.1, Figure F.2.1 and Box 2.6 (lines 614-624, 790-812).

    >>> import numpy as np
    >>> float(quad_1d(np.asarray(0.5)))
    -0.5
    """
    return x**2 - 1.5 * x


def dquad_1d(x: Any) -> Any:
    r"""Derivative of :func:`quad_1d`: :math:`f'(x) = 2x - 1.5`.

    >>> import numpy as np
    >>> float(dquad_1d(np.asarray(0.75)))
    0.0
    """
    return 2 * x - 1.5


def xsin2x(x: Any) -> Any:
    r""":math:`f(x) = x\sin(2x)`, element-wise: the non-convex curve of Figure F.2.4.

    Book: §2.3.2, Figure F.2.4 (lines 1086-1096).

    >>> import numpy as np
    >>> round(float(xsin2x(np.asarray(1.0))), 6)
    0.909297
    """
    xp = array_namespace(x)
    return x * xp.sin(2 * x)


def dxsin2x(x: Any) -> Any:
    r"""Derivative of :func:`xsin2x`: :math:`f'(x) = \sin(2x) + 2x\cos(2x)`.

    >>> import numpy as np
    >>> float(dxsin2x(np.asarray(0.0)))
    0.0
    """
    xp = array_namespace(x)
    return xp.sin(2 * x) + 2 * x * xp.cos(2 * x)


def saddle_1d(x: Any) -> Any:
    r""":math:`f(x) = x^3`: at 0 the derivative vanishes, yet 0 is neither a minimum
    nor a maximum (an inflexion point, the 1-D picture of a saddle).

    Book: §2.3.1, Figure F.2.3 (lines 994-1006).

    >>> import numpy as np
    >>> float(saddle_1d(np.asarray(-2.0)))
    -8.0
    """
    return x**3


def dsaddle_1d(x: Any) -> Any:
    r"""Derivative of :func:`saddle_1d`: :math:`3x^2`.

    >>> import numpy as np
    >>> float(dsaddle_1d(np.asarray(0.0)))
    0.0
    """
    return 3 * x**2


# --- two-dimensional functions ------------------------------------------------------


def _check_last_axis_2(X: Any, name: str) -> None:
    shape = tuple(X.shape)
    if len(shape) == 0 or shape[-1] != 2:
        raise ValueError(
            f"{name} expects points in the plane, X of shape (2,) or (n, 2) "
            f"(last axis 2); got shape {shape}"
        )


def saddle_2d(X: Any) -> Any:
    r""":math:`f(\mathbf{x}) = x_1^2 - x_2^2`: up along :math:`x_1`, down along
    :math:`x_2`.

    The origin is a stationary point that is not an extremum (a saddle point).

    Parameters
    ----------
    X : (..., 2) array

    Returns
    -------
    (...) array

    Book: §2.3.1, stationary points and Figure F.2.3 (lines 988-1006).

    >>> import numpy as np
    >>> saddle_2d(np.array([[1.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, -1.0]
    """
    _check_last_axis_2(X, "saddle_2d")
    return X[..., 0] ** 2 - X[..., 1] ** 2


def saddle_2d_grad(X: Any) -> Any:
    r"""Gradient of :func:`saddle_2d`: :math:`(2x_1, -2x_2)`, same shape as ``X``.

    >>> import numpy as np
    >>> saddle_2d_grad(np.array([1.0, 1.0])).tolist()
    [2.0, -2.0]
    """
    _check_last_axis_2(X, "saddle_2d_grad")
    xp = array_namespace(X)
    return xp.stack([2 * X[..., 0], -2 * X[..., 1]], axis=-1)


def alice2d(X: Any) -> Any:
    r"""The chapter-2 exercise function, vectorised over points.

    .. math:: f(\mathbf{x}) = \sin(x_1)\cos(x_2) + \sin(0.5x_1)\cos(0.5x_2)

    It has several minima and maxima on :math:`[0, 10]^2` (the lowest, about -1.7602,
    near :math:`(4.41, 2\pi)`).

    Parameters
    ----------
    X : (n, 2) or (2,) array (any leading batch axes work)

    Returns
    -------
    (n,) array, or a 0-d array for a single point: ``f(X)[i] = f(X[i])``.

    Book: "From theory to practice", Implementing a gradient descent algorithm
    (lines 1128-1148).

    >>> import numpy as np
    >>> float(alice2d(np.array([0.0, 0.0])))
    0.0
    """
    _check_last_axis_2(X, "alice2d")
    xp = array_namespace(X)
    x1, x2 = X[..., 0], X[..., 1]
    return xp.sin(x1) * xp.cos(x2) + xp.sin(0.5 * x1) * xp.cos(0.5 * x2)


def alice2d_grad(X: Any) -> Any:
    r"""Hand-derived gradient of :func:`alice2d`, same shape as ``X``.

    .. math::
        \partial_{x_1} f = \cos x_1\cos x_2
            + \tfrac12\cos\tfrac{x_1}{2}\cos\tfrac{x_2}{2},
        \qquad
        \partial_{x_2} f = -\sin x_1\sin x_2
            - \tfrac12\sin\tfrac{x_1}{2}\sin\tfrac{x_2}{2}

    Parameters
    ----------
    X : (n, 2) or (2,) array

    Returns
    -------
    (n, 2) or (2,) array

    Book: "From theory to practice", step 2 (line 1150: the gradient written by hand).

    >>> import numpy as np
    >>> alice2d_grad(np.array([0.0, 0.0])).tolist()
    [1.5, -0.0]
    """
    _check_last_axis_2(X, "alice2d_grad")
    xp = array_namespace(X)
    x1, x2 = X[..., 0], X[..., 1]
    h1, h2 = 0.5 * x1, 0.5 * x2
    d1 = xp.cos(x1) * xp.cos(x2) + 0.5 * xp.cos(h1) * xp.cos(h2)
    d2 = -xp.sin(x1) * xp.sin(x2) - 0.5 * xp.sin(h1) * xp.sin(h2)
    return xp.stack([d1, d2], axis=-1)


# --- the convex quadratic -----------------------------------------------------------


def convex_quadratic(A: Any, b: Any) -> tuple[Callable, Callable]:
    r"""The quadratic :math:`f(\mathbf{x}) = \tfrac12\mathbf{x}^\top\mathbf{A}\mathbf{x}
    - \mathbf{b}^\top\mathbf{x}` and its gradient, as a pair of callables.

    With :math:`\mathbf{A}` symmetric positive definite the function is strictly convex
    and its unique minimiser solves :math:`\mathbf{A}\mathbf{x} = \mathbf{b}`. The
    gradient is :math:`\tfrac12(\mathbf{A}+\mathbf{A}^\top)\mathbf{x} - \mathbf{b}`
    (:math:`\mathbf{A}\mathbf{x}-\mathbf{b}` for a symmetric :math:`\mathbf{A}`).

    Parameters
    ----------
    A : (d, d) array
    b : (d,) array

    Returns
    -------
    f : callable, ``x (d,) or (k, d) -> () or (k,)``
    grad : callable, ``x (d,) or (k, d) -> same shape as x``

    Book: §2.3.1, convexity and its consequences (lines 1016-1056).

    >>> import numpy as np
    >>> f, grad = convex_quadratic(np.eye(2), np.array([1.0, 0.0]))
    >>> float(f(np.array([1.0, 0.0]))), grad(np.array([1.0, 0.0])).tolist()
    (-0.5, [0.0, 0.0])
    """
    xp = array_namespace(A, b)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(
            f"A must be a square (d, d) matrix; got shape {tuple(A.shape)}"
        )
    d = A.shape[0]
    if tuple(b.shape) != (d,):
        raise ValueError(
            f"b must have shape ({d},) to match A {tuple(A.shape)}; "
            f"got shape {tuple(b.shape)}"
        )
    A_sym = 0.5 * (A + A.T)

    def _check(x: Any) -> None:
        if x.ndim not in (1, 2) or x.shape[-1] != d:
            raise ValueError(
                f"x must have shape ({d},) or (k, {d}); got {tuple(x.shape)}"
            )

    def f(x: Any) -> Any:
        _check(x)
        return 0.5 * xp.sum((x @ A) * x, axis=-1) - xp.sum(x * b, axis=-1)

    def grad(x: Any) -> Any:
        _check(x)
        return x @ A_sym - b  # (k, d) @ (d, d) -> (k, d); x @ A_sym = (A_sym x)^T

    return f, grad
