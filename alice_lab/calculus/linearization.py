r"""First-order Taylor expansion (:func:`linearize`) and the Jacobian of a linear map
with respect to its weights, with the VJP that never builds it (§2.2.3).

Book: §2.2.3.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alice_lab.backend import array_namespace, as_float_array, check_int, device_of
from alice_lab.calculus._quotients import _call, _scalar_out
from alice_lab.calculus.finite_differences import grad_fd

__all__ = ["jacobian_linear_wrt_W", "linearize", "vjp_linear_wrt_W"]


def linearize(f: Callable, x0: Any, grad: Any = None) -> Callable[[Any], Any]:
    r"""First-order Taylor approximation of a scalar f around x0, as a function.

    Returns :math:`\tilde f(x) = f(x_0) + \langle \partial f(x_0), x - x_0\rangle`.
    x0 : () or (d); ``grad`` : the gradient at x0 (same shape as x0), computed with
    :func:`grad_fd` when omitted. The returned function takes
    ``x : (..., *x0.shape)`` and returns (...), so it can be evaluated on a whole grid
    at once. The error :math:`f(x) - \tilde f(x)` vanishes faster than
    :math:`\lVert x - x_0 \rVert`.

    Book: §2.2.3, Taylor's theorem (lines 776-788) and Box 2.6 (lines 790-812).

    >>> f_lin = linearize(lambda x: x**2 - 1.5 * x, 0.5, grad=-0.5)
    >>> round(float(f_lin(0.51)), 6)
    -0.505
    """
    x0 = as_float_array(x0, "x0")
    xp = array_namespace(x0)
    f0 = _scalar_out(_call(f, x0, x0), "linearize")
    if grad is None:
        grad = grad_fd(f, x0)
    else:
        grad = as_float_array(grad, "grad", like=x0)
    if tuple(grad.shape) != tuple(x0.shape):
        raise ValueError(
            f"grad must have the shape of x0 {tuple(x0.shape)}, got {tuple(grad.shape)}"
        )
    k = x0.ndim

    def f_tilde(x: Any) -> Any:
        x = as_float_array(x, "x", like=x0)
        if k and tuple(x.shape[x.ndim - k :]) != tuple(x0.shape):
            raise ValueError(
                f"x must end with x0's shape {tuple(x0.shape)}, got {tuple(x.shape)}"
            )
        prod = grad * (x - x0)
        return f0 + (xp.sum(prod, axis=tuple(range(-k, 0))) if k else prod)

    return f_tilde


def jacobian_linear_wrt_W(x: Any, o: int) -> Any:
    r"""Explicit Jacobian of :math:`y = W x` w.r.t. W: :math:`J_{ikj}=\delta_{ik}x_j`.

    x : (d), o : number of outputs -> J : (o, o, d), with
    :math:`\partial y_i / \partial W_{kj} = x_j` if i = k and 0 otherwise. Only o*d of
    its o*o*d entries are nonzero and they repeat x o times: this is why nobody
    materialises it, and autodiff multiplies by it instead (:func:`vjp_linear_wrt_W`).

    Book: §2.2.3 "On the dimensionality of the Jacobians" (lines 814-880),
    eq. partial_yi_wij (line 866).

    >>> import numpy as np; jacobian_linear_wrt_W(np.array([1.0, 2.0]), 3).shape
    (3, 3, 2)
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1:
        raise ValueError(f"x must be a vector (d), got shape {tuple(x.shape)}")
    o = check_int(o, "o")
    eye = xp.eye(o, dtype=x.dtype, device=device_of(x))
    return eye[:, :, None] * x[None, None, :]  # (o, o, 1) * (1, 1, d) -> (o, o, d)


def vjp_linear_wrt_W(v: Any, x: Any) -> Any:
    r"""Vector-Jacobian product :math:`v^\top \partial_W [W x]`, no Jacobian built.

    v : (o) (an upstream gradient), x : (d) -> (o, d), the outer product
    :math:`v x^\top`. Equal to contracting v with :func:`jacobian_linear_wrt_W` over its
    first axis, at o*d instead of o*o*d cost.

    Book: §2.2.3, lines 874-880 (only Jacobian products are needed).

    >>> import numpy as np
    >>> vjp_linear_wrt_W(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]))
    array([[ 3.,  4.,  5.],
           [ 6.,  8., 10.]])
    """
    array_namespace(v, x)
    if v.ndim != 1 or x.ndim != 1:
        raise ValueError(
            f"v and x must be vectors (o) and (d), got {tuple(v.shape)} and "
            f"{tuple(x.shape)}"
        )
    return v[:, None] * x[None, :]
