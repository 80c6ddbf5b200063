r"""Least-squares regression: the loss, its gradient, the normal equations and
their solution four ways, ridge regression, and the book's gradient-descent loop.

Least squares minimises :math:`\frac1n\lVert\mathbf{y}-\mathbf{X}\mathbf{w}
\rVert^2`; its minimiser solves the *normal equations*
:math:`\mathbf{X}^\top\mathbf{X}\mathbf{w} = \mathbf{X}^\top\mathbf{y}`.
:func:`least_squares` solves them with ``solve``, ``inv``, ``lstsq`` (through the SVD)
or gradient descent ``gd``, with an optional ridge term :math:`\lambda\mathbf{I}`.
:func:`ls_gd` is Box 4.3's loop, with the loss at every iterate (Figure F.4.2) and
the book's convergence test.

Book: §4.1.2-4.1.3 (lines 1380-1536), Boxes 4.2 and 4.3; §4.1.5, regularized least
squares (lines 1564-1586).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import as_float_array, device_of, to_numpy
from alice_lab.linear._checks import _check_vec, _check_Xy, _col, _number
from alice_lab.linear.model import linear_model

__all__ = [
    "LSGDResult",
    "least_squares",
    "ls_gd",
    "ls_gradient",
    "ls_loss",
    "ls_noise_variance",
    "normal_equations",
    "ridge_loss",
]

METHODS = ("solve", "lstsq", "inv", "gd")


def ls_loss(X: Any, y: Any, w: Any, b: Any = 0.0) -> Any:
    r"""The least-squares objective (E.4.4),
    :math:`\frac1n\lVert\mathbf{y} - \mathbf{X}\mathbf{w} - \mathbf{1}b\rVert^2`.

    Book: §4.1.2, E.4.4 and E.4.6 (lines 1380-1422).

    >>> float(ls_loss(np.eye(2), np.array([1.0, 0.0]), np.zeros(2)))
    0.5
    """
    xp, n, c = _check_Xy(X, y)
    _check_vec(w, c, "w", f"X {tuple(X.shape)}")
    r = y - linear_model(X, w, b)
    return xp.mean(r * r)


def ls_noise_variance(X: Any, y: Any, w: Any, b: Any = 0.0) -> Any:
    r"""The maximum-likelihood noise variance once the weights are fixed,
    :math:`\sigma_*^2 = \frac1n\sum_i (y_i - \mathbf{w}^\top\mathbf{x}_i - b)^2`:
    the mean squared residual.

    Book: §4.1.3, E.4.9 (lines 1528-1536).

    >>> float(ls_noise_variance(np.eye(2), np.array([1.0, 0.0]), np.zeros(2)))
    0.5
    """
    return ls_loss(X, y, w, b)


def ls_gradient(X: Any, y: Any, w: Any, *, scale: str = "book") -> Any:
    r"""The gradient of least squares in w, computed as
    :math:`\mathbf{X}^\top(\mathbf{X}\mathbf{w} - \mathbf{y})` with the product
    :math:`\mathbf{X}\mathbf{w}` first: O(nc), never forming the (c, c) matrix
    :math:`\mathbf{X}^\top\mathbf{X}`.

    Parameters
    ----------
    scale : ``"book"`` gives :math:`\mathbf{X}^\top(\mathbf{X}\mathbf{w}-\mathbf{y})`,
        as printed at line 1432, where the book drops the constant; ``"exact"`` gives
        :math:`\frac2n\mathbf{X}^\top(\mathbf{X}\mathbf{w}-\mathbf{y})`, the gradient of
        the mean in E.4.4.

    Returns
    -------
    (c,) array.

    Book: §4.1.3 (lines 1426-1432) and §4.1.4 (line 1556).

    >>> ls_gradient(np.eye(2), np.array([1.0, 0.0]), np.zeros(2)).tolist()
    [-1.0, 0.0]
    """
    xp, n, c = _check_Xy(X, y)
    _check_vec(w, c, "w", f"X {tuple(X.shape)}")
    if scale not in ("book", "exact"):
        raise ValueError(f"scale must be 'book' or 'exact'; got {scale!r}")
    g = xp.matmul(xp.matrix_transpose(X), xp.matmul(X, w) - y)  # (c, n) @ (n,)
    return g if scale == "book" else (2.0 / n) * g


def normal_equations(X: Any, y: Any, *, ridge: float = 0.0) -> tuple[Any, Any]:
    r"""The normal equations :math:`\mathbf{A}\mathbf{w} = \mathbf{b}` with
    :math:`\mathbf{A} = \mathbf{X}^\top\mathbf{X} + \lambda\mathbf{I}` (c, c) and
    :math:`\mathbf{b} = \mathbf{X}^\top\mathbf{y}` (c,).

    Book: §4.1.3 (lines 1440-1446, 1472); §4.1.5 (line 1568) for the ridge term.

    >>> [a.tolist() for a in normal_equations(np.eye(2), np.array([1.0, 2.0]))]
    [[[1.0, 0.0], [0.0, 1.0]], [1.0, 2.0]]
    """
    xp, n, c = _check_Xy(X, y)
    lam = _number(ridge, "ridge")
    Xt = xp.matrix_transpose(X)
    A = xp.matmul(Xt, X)  # (c, n) @ (n, c) -> (c, c)
    if lam > 0:
        A = A + lam * xp.eye(c, dtype=X.dtype, device=device_of(X))
    return A, xp.matmul(Xt, y)


def _check_finite(v: Any, name: str, xp: Any) -> None:
    if not bool(xp.all(xp.isfinite(v))):
        raise ValueError(
            f"{name} contains NaN or inf; least squares needs finite data (drop or "
            "impute those entries first)"
        )


def _check_full_rank(X: Any, A: Any, method: str, xp: Any) -> None:
    r"""Raise when X is rank-deficient (fewer rows than columns, or collinear columns,
    as ``numpy.linalg.matrix_rank`` counts it): :math:`\mathbf{X}^\top\mathbf{X}` is
    then singular and a solver returns garbage instead of failing.

    The SVD of X is taken only when the smallest eigenvalue of
    :math:`\mathbf{A} = \mathbf{X}^\top\mathbf{X}` is within the rounding error of
    forming it, ``max(n, c) * eps * λ_max``; a well-conditioned X costs one small
    ``eigvalsh``. An ill-conditioned X of full rank is solved (inaccurately in low
    precision, which is the point of §4.1.4), not refused."""
    n, c = X.shape
    if n >= c:
        lam = xp.linalg.eigvalsh(A)  # ascending, (c,)
        lo, hi = float(lam[0]), float(lam[-1])
        if lo > max(n, c) * float(xp.finfo(A.dtype).eps) * hi:
            return
        rank = int(xp.linalg.matrix_rank(X))
        if rank == c:
            return
    else:
        rank = n
    raise ValueError(
        f'least_squares(method="{method}") needs X with full column rank, but X '
        f"{(n, c)} has rank {rank} < {c} (collinear columns, or fewer rows than "
        'columns), so XᵀX is singular; use method="lstsq" for the minimum-norm '
        "solution, or a ridge > 0"
    )


def _solve(A: Any, b: Any, xp: Any) -> Any:
    """Solve A w = b for a vector b (the array API's solve wants a matrix rhs)."""
    return xp.linalg.solve(A, _col(b))[:, 0]


def _lstsq_svd(X: Any, y: Any, lam: float, xp: Any) -> Any:
    r"""Least squares through the thin SVD :math:`\mathbf{X} = \mathbf{U}\mathbf{S}
    \mathbf{V}^\top`: :math:`\mathbf{w} = \mathbf{V}\,\mathrm{diag}(s_i/(s_i^2 +
    \lambda))\,\mathbf{U}^\top\mathbf{y}`, dropping singular values below
    NumPy's ``lstsq`` cut-off when :math:`\lambda = 0` (the minimum-norm solution)."""
    U, s, Vt = xp.linalg.svd(X, full_matrices=False)  # (n, k), (k,), (k, c)
    if lam > 0:
        f = s / (s * s + lam)
    else:
        cut = float(xp.finfo(X.dtype).eps) * max(X.shape) * xp.max(s)
        f = xp.where(s > cut, 1.0 / xp.where(s > cut, s, xp.ones_like(s)), s * 0)
    Uty = xp.matmul(xp.matrix_transpose(U), y)  # (k,)
    return xp.matmul(xp.matrix_transpose(Vt), f * Uty)  # (c, k) @ (k,) -> (c,)


def least_squares(
    X: Any,
    y: Any,
    *,
    method: str = "solve",
    ridge: float = 0.0,
    lr: float | None = None,
    steps: int = 10_000,
    tol: float = 1e-10,
) -> Any:
    r"""The least-squares (or ridge) weights
    :math:`\mathbf{w}_* = (\mathbf{X}^\top\mathbf{X} + \lambda\mathbf{I})^{-1}
    \mathbf{X}^\top\mathbf{y}`, four ways.

    Methods
    -------
    ``"solve"``: a linear solver on the normal equations (Box 4.2, the stable variant).
    ``"inv"``: the explicit inverse times :math:`\mathbf{X}^\top\mathbf{y}` (Box 4.2,
    the unstable variant; kept to show why not).
    ``"lstsq"``: the SVD of X itself, which never squares the condition number (what
    ``numpy.linalg.lstsq`` does; the minimum-norm solution when X is rank-deficient).
    ``"gd"``: gradient descent on :math:`\frac12\lVert\mathbf{y}-\mathbf{X}\mathbf{w}
    \rVert^2 + \frac\lambda2\lVert\mathbf{w}\rVert^2` from :math:`\mathbf{w}=\mathbf{0}`
    with step ``lr`` (default :math:`1/\lambda_{\max}`, below the divergence limit
    :math:`2/\lambda_{\max}`), stopping after ``steps`` updates or when the gradient
    norm falls below ``tol`` times :math:`\lVert\mathbf{X}^\top\mathbf{y}\rVert`.

    Add a bias with :func:`add_bias_column` (the ridge term then shrinks it too).

    Parameters
    ----------
    X : (n, c) array; y : (n,) array (lists and integer arrays become floating, see
        :func:`alice_lab.backend.as_float_array`).
    ridge : :math:`\lambda \ge 0`.

    Raises ``ValueError`` when X or y holds NaN or inf, and for ``"solve"`` and
    ``"inv"`` without a ridge when X is rank-deficient (:math:`\mathbf{X}^\top
    \mathbf{X}` singular): ``"lstsq"`` handles that case.

    Returns
    -------
    (c,) array: the weights, in the namespace, dtype and device of X.

    Book: §4.1.3, E.4.7 (line 1478), Boxes 4.2 and 4.3;
    §4.1.5 (line 1568).

    >>> X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> least_squares(X, X @ np.array([1.0, -1.0])).round(12).tolist()
    [1.0, -1.0]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    X = as_float_array(X, "X")
    y = as_float_array(y, "y", like=X)  # a list y joins X's library
    xp, n, c = _check_Xy(X, y)
    _check_finite(X, "X", xp)
    _check_finite(y, "y", xp)
    lam = _number(ridge, "ridge")
    if method == "lstsq":
        return _lstsq_svd(X, y, lam, xp)
    A, rhs = normal_equations(X, y, ridge=lam)
    if method in ("solve", "inv") and lam == 0:
        _check_full_rank(X, A, method, xp)
    if method == "solve":
        return _solve(A, rhs, xp)
    if method == "inv":
        return xp.matmul(xp.linalg.inv(A), rhs)
    from alice_lab.optim import gradient_descent

    if lr is None:
        lr = 1.0 / float(xp.max(xp.linalg.eigvalsh(A)))
    scale = max(float(xp.linalg.vector_norm(rhs)), float(np.finfo(np.float64).tiny))
    w0 = xp.zeros(c, dtype=X.dtype, device=device_of(X))
    res = gradient_descent(
        lambda w: xp.matmul(A, w) - rhs, w0, lr=lr, steps=steps, tol=tol * scale
    )
    return res.x


def ridge_loss(X: Any, y: Any, w: Any, lam: float) -> Any:
    r"""The objective whose minimiser is the ridge solution of line 1568,
    :math:`\frac12\lVert\mathbf{y}-\mathbf{X}\mathbf{w}\rVert^2 +
    \frac\lambda2\lVert\mathbf{w}\rVert^2` (its gradient is
    :math:`(\mathbf{X}^\top\mathbf{X}+\lambda\mathbf{I})\mathbf{w}-\mathbf{X}^\top
    \mathbf{y}`). The book prints :math:`\frac2n` in front of the first term, which
    belongs to a different :math:`\lambda` (erratum E4-05).

    Book: §4.1.5 (lines 1564-1586).

    >>> float(ridge_loss(np.eye(2), np.array([1.0, 0.0]), np.zeros(2), 1.0))
    0.5
    """
    xp, n, c = _check_Xy(X, y)
    _check_vec(w, c, "w", f"X {tuple(X.shape)}")
    lam = _number(lam, "lam")
    r = y - xp.matmul(X, w)
    return 0.5 * xp.sum(r * r) + 0.5 * lam * xp.sum(w * w)


@dataclass(frozen=True)
class LSGDResult:
    """What :func:`ls_gd` returns (arrays in the namespace of X).

    w : (c,) the last iterate; path : (T + 1, c) every iterate, w_0 first;
    losses : (T + 1,) the mean squared error at each iterate (Figure F.4.2);
    converged_at : the first t with
    :math:`\\lVert w_{t+1} - w_t\\rVert^2 < \\varepsilon`, or None (never, or no
    ``eps`` given).
    """

    w: Any
    path: Any
    losses: Any
    converged_at: int | None


def ls_gd(
    X: Any,
    y: Any,
    *,
    lr: float = 1e-3,
    steps: int = 15_000,
    w0: Any = None,
    seed: int = 0,
    eps: float | None = None,
    stop: bool = False,
) -> LSGDResult:
    r"""Box 4.3: least squares by gradient descent with a fixed step,
    :math:`\mathbf{w} \leftarrow \mathbf{w} + \eta\,\mathbf{X}^\top(\mathbf{y} -
    \mathbf{X}\mathbf{w})` (the "+" is the minus of the book-scaled gradient), from a
    random start, for a fixed number of steps (15000 at :math:`\eta = 10^{-3}` as in the
    book).

    The update is :func:`alice_lab.optim.gradient_descent` with
    :func:`ls_gradient`; the losses are evaluated on the stored path. It diverges
    (``DivergenceError``) when
    :math:`\eta > 2/\lambda_{\max}(\mathbf{X}^\top\mathbf{X})`.

    Parameters
    ----------
    X : (n, c); y : (n,).
    w0 : (c,) start; default a seeded standard normal draw (the book's ``torch.randn``).
        With ``seed=0`` this is the very draw that ``data.make_linear_regression(...,
        seed=0)`` uses for the true weights: pass another seed on that data.
    eps : the book's convergence threshold on :math:`\lVert\mathbf{w}_{t+1} -
        \mathbf{w}_t\rVert^2`, reported as ``converged_at``.
    stop : stop at ``converged_at`` instead of running all ``steps`` (the next step
        would be :math:`-\eta\nabla`, so this is a gradient-norm test
        :math:`\lVert\nabla\rVert < \sqrt{\varepsilon}/\eta`).

    Book: §4.1.3, Box 4.3 (lines 1492-1526), Figure F.4.2.

    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> ls_gd(X, np.array([1.0, 2.0]), lr=0.5, steps=1, w0=np.zeros(2)).w.tolist()
    [0.5, 1.0]
    """
    from alice_lab.optim import gradient_descent

    xp, n, c = _check_Xy(X, y)
    if w0 is None:
        draw = np.random.default_rng(seed).standard_normal(c)
        w0 = xp.asarray(draw, dtype=X.dtype, device=device_of(X))
    _check_vec(w0, c, "w0", f"X {tuple(X.shape)}")
    if stop and eps is None:
        raise ValueError("stop=True needs a threshold eps")
    tol = math.sqrt(float(eps)) / float(lr) if stop else None
    res = gradient_descent(
        lambda w: ls_gradient(X, y, w), w0, lr=lr, steps=steps, tol=tol
    )
    path = res.path  # (T + 1, c)
    chunks = []
    for start in range(0, path.shape[0], 2048):  # (chunk, c) @ (c, n): bounded memory
        R = xp.matmul(path[start : start + 2048], xp.matrix_transpose(X)) - y[None, :]
        chunks.append(xp.mean(R * R, axis=1))
    losses = xp.concat(chunks)
    converged_at = None
    if stop and res.converged:
        converged_at = res.steps_taken
    elif eps is not None:
        d = path[1:] - path[:-1]
        below = to_numpy(xp.sum(d * d, axis=1)) < float(eps)
        if below.any():
            converged_at = int(np.argmax(below))
    return LSGDResult(res.x, path, losses, converged_at)
