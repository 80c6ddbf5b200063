r"""Derivatives (§2.2.1), gradients and directional derivatives (§2.2.2), Jacobians
and Hessians (§2.2.3) by difference quotients, one coordinate (or a batch of points)
at a time.

Book: §2.2 "Gradients and Jacobians" (lines 572-880).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array, device_of
from alice_lab.calculus._quotients import (
    _POWER,
    _call,
    _check_scheme,
    _default_h,
    _flat_steps,
    _quotient,
    _scalar_out,
)

__all__ = [
    "basis",
    "derivative",
    "directional_derivative",
    "grad_fd",
    "grad_fd_batched",
    "hessian_fd",
    "jacobian_fd",
    "partial",
]


def derivative(
    f: Callable, x: Any, h: float | None = None, scheme: str = "forward"
) -> Any:
    r"""Derivative of a scalar function by a finite difference quotient.

    ``scheme="forward"``: :math:`(f(x+h) - f(x))/h`, the book's definition before the
    limit; ``scheme="central"``: :math:`(f(x+h) - f(x-h))/2h`, one order more accurate.
    x : () or (n) points (``f`` applied element-wise) -> the same shape.
    ``h=None`` picks :math:`\sqrt{\epsilon}` (forward) or :math:`\epsilon^{1/3}`
    (central) for x's dtype, times ``max(1, |x|)``; a given ``h`` is used as is, so the
    V-shaped error-versus-h curve can be reproduced.

    Book: §2.2.1, definition "Derivative" (lines 582-596).

    >>> import numpy as np; round(float(derivative(np.sin, 0.0)), 6)
    1.0
    """
    _check_scheme(scheme)
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if h is None:
        h = _default_h(x, xp, _POWER[scheme])
    return _quotient(f, x, h, h, scheme)


def basis(d: int, i: int, like: Any = None) -> Any:
    r"""The i-th standard basis vector :math:`e_i` (1 at position i, 0 elsewhere).

    -> (d) array: float64 NumPy by default, or ``like``'s array type, floating dtype
    and device. It is the i-th row of the identity matrix.

    Book: §2.2.2, eq. basis_vector (lines 680-690).

    >>> basis(3, 1)
    array([0., 1., 0.])
    """
    if not 0 <= i < d:
        raise ValueError(f"basis index i must satisfy 0 <= i < d={d}, got i={i}")
    if like is None:
        like = np.zeros(0)
    like = as_float_array(like, "like")
    xp = array_namespace(like)
    return xp.astype(xp.arange(d, device=device_of(like)) == i, like.dtype)


def partial(
    f: Callable, x: Any, i: int, h: float | None = None, scheme: str = "central"
) -> Any:
    r"""Partial derivative :math:`\partial_{x_i} f(x)`, along the basis vector e_i.

    f : (d) -> (), x : (d), i : index in [0, d) -> () scalar array.

    Book: §2.2.2, eq. partial_derivative (lines 666-676).

    >>> import numpy as np
    >>> round(float(partial(lambda x: x[0] * x[1], np.array([2.0, 3.0]), 0)), 6)
    3.0
    """
    _check_scheme(scheme)
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1:
        raise ValueError(f"partial needs x : (d), got shape {tuple(x.shape)}")
    e = basis(x.shape[0], i, like=x)
    hi = _flat_steps(x, xp, h, _POWER[scheme])[i]
    return _scalar_out(_quotient(f, x, hi * e, hi, scheme), "partial")


def grad_fd(
    f: Callable, x: Any, h: float | None = None, scheme: str = "central"
) -> Any:
    r"""Gradient :math:`\nabla f(x)` by finite differences, one coordinate at a time.

    f : (d) -> (), x : (d) -> (d). More generally x may have any shape and the gradient
    has the same shape (e.g. with respect to a weight matrix). Costs 2d evaluations of
    f (d + 1 for ``scheme="forward"``).

    Book: §2.2.2, definition "Gradient" (lines 696-708).

    >>> import numpy as np; grad_fd(lambda x: x @ x, np.array([1.0, -2.0])).round(6)
    array([ 2., -4.])
    """
    _check_scheme(scheme)
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    shape, n = tuple(x.shape), int(np.prod(x.shape, dtype=np.int64))
    flat = xp.reshape(x, (n,))
    steps = _flat_steps(flat, xp, h, _POWER[scheme])
    g = lambda z: _scalar_out(_call(f, xp.reshape(z, shape), x), "grad_fd")
    fx = g(flat) if scheme == "forward" else None
    parts = [
        _quotient(g, flat, steps[j] * basis(n, j, like=flat), steps[j], scheme, fx)
        for j in range(n)
    ]
    if not parts:
        return xp.zeros(shape, dtype=x.dtype, device=device_of(x))
    return xp.reshape(xp.stack(parts), shape)


def grad_fd_batched(
    f: Callable, X: Any, h: float | None = None, scheme: str = "central"
) -> Any:
    r"""Gradients at n points at once, for a vectorised f : (n, d) -> (n).

    X : (n, d) -> (n, d), row i being :math:`\nabla f(X_i)`. Each coordinate j costs
    two calls of f on the whole batch, with column j of X shifted; so d batched calls
    replace the n * d single-point ones of :func:`grad_fd`. Needs f to treat rows
    independently (as the lab's vectorised function does).

    Book: §2.2.2 (lines 696-708) and "From theory to practice", line 1148.

    >>> import numpy as np
    >>> grad_fd_batched(lambda X: (X**2).sum(1), np.ones((2, 3))).round(6)
    array([[2., 2., 2.],
           [2., 2., 2.]])
    """
    _check_scheme(scheme)
    X = as_float_array(X, "X")
    xp = array_namespace(X)
    if X.ndim != 2:
        raise ValueError(
            f"grad_fd_batched needs X : (n, d), got shape {tuple(X.shape)}"
        )
    n, d = X.shape

    def fb(Z: Any) -> Any:
        out = _call(f, Z, X)
        if tuple(out.shape) != (n,):
            raise ValueError(
                f"f should map (n, d) -> (n) = ({n},), got shape {tuple(out.shape)}"
            )
        return out

    H = _flat_steps(X, xp, h, _POWER[scheme])  # (n, d)
    fx = fb(X) if scheme == "forward" else None
    cols = []
    for j in range(d):
        hj = H[:, j]  # (n,)
        step = (
            hj[:, None] * basis(d, j, like=X)[None, :]
        )  # (n, d), only column j nonzero
        cols.append(_quotient(fb, X, step, hj, scheme, fx))
    if not cols:
        return xp.zeros((n, d), dtype=X.dtype, device=device_of(X))
    return xp.stack(cols, axis=1)


def directional_derivative(
    f: Callable, x: Any, v: Any, h: float | None = None, scheme: str = "central"
) -> Any:
    r"""Directional derivative :math:`D_v f(x) = \lim_h (f(x + hv) - f(x))/h`.

    f : (d) -> (), x, v : (d) -> (). Two evaluations of f whatever d is; for smooth f it
    equals :math:`\langle \nabla f(x), v\rangle`. The default step is scaled by
    :math:`\max(1, \lVert x\rVert_\infty)/\lVert v\rVert_\infty`.

    Book: §2.2.2, eqs. directional_derivative and directional_derivative_dot_product
    (lines 710-738).

    >>> import numpy as np; x, v = np.array([1.0, 2.0]), np.array([1.0, 0.0])
    >>> round(float(directional_derivative(lambda z: z @ z, x, v)), 6)
    2.0
    """
    _check_scheme(scheme)
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    v = as_float_array(v, "v", like=x)  # a list joins x's library
    if tuple(v.shape) != tuple(x.shape):
        raise ValueError(
            f"v must have the shape of x, got x {tuple(x.shape)} and v {tuple(v.shape)}"
        )
    v = xp.astype(v, x.dtype)
    if h is None:
        vmax = xp.max(xp.abs(v)) if v.ndim else xp.abs(v)
        xmax = xp.max(xp.abs(x)) if x.ndim else xp.abs(x)
        eps = xp.finfo(x.dtype).eps ** _POWER[scheme]
        h = eps * xp.maximum(xmax, 1.0) / xp.where(vmax == 0, xp.ones_like(vmax), vmax)
    return _scalar_out(_quotient(f, x, h * v, h, scheme), "directional_derivative")


def jacobian_fd(
    f: Callable, x: Any, h: float | None = None, scheme: str = "central"
) -> Any:
    r"""Jacobian :math:`\partial f(x)` by finite differences.

    The result has shape ``f(x).shape + x.shape``: for f : (d) -> (o) that is the
    book's (o, d) matrix with :math:`J_{ij} = \partial y_i / \partial x_j`; a scalar f
    gives the gradient (d); a scalar x gives f's derivative (o); matrix inputs give
    higher-order tensors such as the (o, o, d) Jacobian with respect to W.

    Book: §2.2.3, definition "Jacobian" (lines 744-758).

    >>> import numpy as np; W = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> jacobian_fd(lambda x: W @ x, np.ones(2)).round(6)
    array([[1., 2.],
           [3., 4.]])
    """
    _check_scheme(scheme)
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    shape, n = tuple(x.shape), int(np.prod(x.shape, dtype=np.int64))
    flat = xp.reshape(x, (n,))
    steps = _flat_steps(flat, xp, h, _POWER[scheme])
    g = lambda z: _call(f, xp.reshape(z, shape), x)
    fx = g(flat)
    cols = [
        _quotient(g, flat, steps[j] * basis(n, j, like=flat), steps[j], scheme, fx)
        for j in range(n)
    ]
    out_shape = tuple(fx.shape)
    if not cols:
        return xp.zeros(out_shape + shape, dtype=x.dtype, device=device_of(x))
    return xp.reshape(xp.stack(cols, axis=-1), out_shape + shape)


def hessian_fd(f: Callable, x: Any, h: float | None = None) -> Any:
    r"""Hessian (matrix of second derivatives) of a scalar f by central differences.

    f : (d) -> (), x : (d) -> (d, d) (in general ``x.shape + x.shape``), with
    :math:`H_{ij} \approx [f(x + h_i e_i + h_j e_j) - f(x + h_i e_i - h_j e_j)
    - f(x - h_i e_i + h_j e_j) + f(x - h_i e_i - h_j e_j)] / (4 h_i h_j)`.
    Symmetric by construction; the default step is :math:`\epsilon^{1/4}\max(1, |x_i|)`,
    which balances the :math:`O(h^2)` truncation and :math:`O(\epsilon/h^2)` rounding
    errors. Costs about 2 d^2 evaluations of f.

    Book: beyond the text's remark on higher-order derivatives (§2.3.1, line 1048);
    used to classify the stationary points of §2.3.1 (lines 988-1006).

    >>> import numpy as np
    >>> hessian_fd(lambda x: x[0] ** 2 - 3 * x[0] * x[1], np.zeros(2)).round(4)
    array([[ 2., -3.],
           [-3.,  0.]])
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    shape, n = tuple(x.shape), int(np.prod(x.shape, dtype=np.int64))
    flat = xp.reshape(x, (n,))
    steps = _flat_steps(flat, xp, h, 1 / 4)
    g = lambda z: _scalar_out(_call(f, xp.reshape(z, shape), x), "hessian_fd")
    E = [steps[j] * basis(n, j, like=flat) for j in range(n)]
    H: list[list[Any]] = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            pp = g(flat + E[i] + E[j])
            pm = g(flat + E[i] - E[j])
            mp = g(flat - E[i] + E[j])
            mm = g(flat - E[i] - E[j])
            H[i][j] = H[j][i] = (pp - pm - mp + mm) / (4 * steps[i] * steps[j])
    if n == 0:
        return xp.zeros(shape + shape, dtype=x.dtype, device=device_of(x))
    rows = [xp.stack(row) for row in H]
    return xp.reshape(xp.stack(rows), shape + shape)
