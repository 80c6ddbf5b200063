r"""Numerical differentiation: derivatives, gradients, Jacobians, Hessians.

Everything here evaluates ``f`` at a few nearby points and divides, exactly as the
book defines the derivative as a limit of difference quotients. It is the independent
reference against which every hand-written or automatic derivative in the companion is
tested. Points are NumPy float64 arrays by default (Python scalars are converted);
PyTorch and JAX arrays work too and keep their type and device.

Choosing the step ``h``: the forward quotient :math:`(f(x+h)-f(x))/h` has a truncation
error of order :math:`h` and a rounding error of order :math:`\epsilon/h`, so the total
is smallest near :math:`h = \sqrt{\epsilon}` (about 1e-8 in float64); the central
quotient :math:`(f(x+h)-f(x-h))/2h` has truncation error of order :math:`h^2` and is
best near :math:`h = \epsilon^{1/3}` (about 6e-6). Plotted against ``h`` the error is a
V. The defaults use those steps, scaled by ``max(1, |x|)``.

Book: §2.2 "Gradients and Jacobians" (lines 572-880) and §2.3.1 (lines 966-1058).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array, check_int, device_of

__all__ = [
    "basis",
    "check_convexity",
    "classify_stationary_point",
    "derivative",
    "directional_derivative",
    "grad_fd",
    "grad_fd_batched",
    "hessian_fd",
    "jacobian_fd",
    "jacobian_linear_wrt_W",
    "linearize",
    "partial",
    "vjp_linear_wrt_W",
]

_POWER = {"forward": 1 / 2, "central": 1 / 3}


def _check_scheme(scheme: str) -> None:
    if scheme not in _POWER:
        raise ValueError(f"scheme must be 'forward' or 'central', got {scheme!r}")


def _call(f: Callable, z: Any, like: Any) -> Any:
    """``f(z)`` as an array of ``like``'s kind (f may return a Python float; a
    complex value is let through: differences of complex values are defined)."""
    return as_float_array(f(z), "the value of f", like=like, complex_ok=True)


def _default_h(x: Any, xp: Any, power: float) -> Any:
    """Per-element step ``eps**power * max(1, |x|)``, rounded so that x + h is exact."""
    h = xp.finfo(x.dtype).eps ** power * xp.maximum(xp.abs(x), 1.0)
    return (x + h) - x


def _quotient(f: Callable, x: Any, step: Any, h: Any, scheme: str, fx=None) -> Any:
    """Difference quotient of f at x along the displacement ``step`` (h * direction)."""
    if scheme == "forward":
        fx = _call(f, x, x) if fx is None else fx
        return (_call(f, x + step, x) - fx) / h
    return (_call(f, x + step, x) - _call(f, x - step, x)) / (2 * h)


def _scalar_out(val: Any, what: str) -> Any:
    if val.ndim != 0:
        raise ValueError(
            f"{what} needs f to return a scalar (shape ()), got shape "
            f"{tuple(val.shape)}; use jacobian_fd for vector outputs"
        )
    return val


# --- derivatives (§2.2.1) -----------------------------------------------------------


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


# --- gradients and directional derivatives (§2.2.2) ---------------------------------


def _flat_steps(x: Any, xp: Any, h: float | None, power: float) -> Any:
    """Per-coordinate steps, shaped like x."""
    if h is None:
        return _default_h(x, xp, power)
    return xp.full(x.shape, h, dtype=x.dtype, device=device_of(x))


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


# --- Jacobians and Taylor (§2.2.3) --------------------------------------------------


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


# --- convexity and stationary points (§2.3.1) ---------------------------------------


def check_convexity(
    f: Callable,
    x1s: Sequence[Any],
    x2s: Sequence[Any],
    alphas: Sequence[float],
    *,
    atol: float = 1e-12,
    rtol: float = 1e-9,
) -> tuple[Any, Any, float] | None:
    r"""Search for a violation of the convexity inequality on given points.

    Convexity means
    :math:`f(\alpha x_1 + (1-\alpha) x_2) \le \alpha f(x_1) + (1-\alpha) f(x_2)`.

    x1s, x2s : paired points, shape (k,) for a scalar f or (k, d) for f : (d) -> ()
    (``x1s[t]`` is paired with ``x2s[t]``); alphas : (m,) values in [0, 1], each tried
    on every pair. Returns the first violating ``(x1, x2, alpha)`` or ``None``. A
    violation must exceed ``atol + rtol * (|alpha f(x1)| + |(1 - alpha) f(x2)|)`` so
    that rounding on linear pieces is not reported. ``None`` is evidence of convexity,
    not a proof; a returned triple is a proof of non-convexity.

    Book: §2.3.1, definition "Convex function", eq. convex_function (lines 1018-1040).

    >>> import numpy as np
    >>> check_convexity(lambda x: x * np.sin(2 * x), [0.0], [2.0], [0.5])
    (0.0, 2.0, 0.5)
    """
    if len(x1s) != len(x2s):
        raise ValueError(
            f"x1s and x2s must pair up, got {len(x1s)} and {len(x2s)} points"
        )
    alphas = [float(a) for a in alphas]
    if any(not 0.0 <= a <= 1.0 for a in alphas):
        raise ValueError(f"alphas must lie in [0, 1], got {alphas}")
    for t in range(len(x1s)):
        x1, x2 = x1s[t], x2s[t]
        f1, f2 = float(f(x1)), float(f(x2))
        for a in alphas:
            lhs = float(f(a * x1 + (1 - a) * x2))
            chord = a * f1 + (1 - a) * f2
            if lhs > chord + atol + rtol * (abs(a * f1) + abs((1 - a) * f2)):
                return (x1, x2, a)
    return None


def classify_stationary_point(hess: Any, tol: float = 1e-6) -> str:
    r"""Classify a stationary point from the eigenvalues of its Hessian.

    hess : (d, d) (or a scalar second derivative) -> ``"minimum"`` (all eigenvalues
    positive), ``"maximum"`` (all negative), ``"saddle"`` (both signs) or
    ``"degenerate"`` (some eigenvalue is zero and the second-order test cannot decide,
    e.g. :math:`x^3` or :math:`x^4` at 0). Eigenvalues within
    ``tol * max(1, max |lambda|)`` of zero count as zero, so finite-difference noise
    does not decide. The matrix is symmetrised first.

    Book: §2.3.1, definition "Stationary points" and Fig. 2.3 (lines 988-1006); the
    second-order test is beyond the text (line 1048).

    >>> import numpy as np; classify_stationary_point(np.diag([2.0, -2.0]))
    'saddle'
    """
    hess = as_float_array(hess, "hess")
    xp = array_namespace(hess)
    if hess.ndim == 0:
        hess = xp.reshape(hess, (1, 1))
    if hess.ndim != 2 or hess.shape[0] != hess.shape[1] or hess.shape[0] == 0:
        raise ValueError(
            f"hess must be a square (d, d) matrix, got shape {tuple(hess.shape)}"
        )
    lam = xp.linalg.eigvalsh((hess + hess.T) / 2)
    lo, hi = float(xp.min(lam)), float(xp.max(lam))
    thr = tol * max(1.0, abs(lo), abs(hi))
    pos, neg = hi > thr, lo < -thr
    if pos and neg:
        return "saddle"
    if float(xp.min(xp.abs(lam))) <= thr:
        return "degenerate"
    return "minimum" if pos else "maximum"
