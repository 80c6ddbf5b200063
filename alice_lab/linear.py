r"""Linear models: least squares (closed form, ridge, gradient descent) and logistic
regression (binary and multi-class) with hand-written gradients, for any backend.

Least squares (§4.1) minimises :math:`\frac1n\lVert\mathbf{y}-\mathbf{X}\mathbf{w}
\rVert^2`; its minimiser solves the *normal equations*
:math:`\mathbf{X}^\top\mathbf{X}\mathbf{w} = \mathbf{X}^\top\mathbf{y}`.
:func:`least_squares` solves them four ways (``solve``, ``inv``, ``lstsq`` through the
SVD, and gradient descent ``gd``), with an optional ridge term
:math:`\lambda\mathbf{I}` (§4.1.5). :func:`ls_gd` is the book's Box 4.3 loop, with
the loss at every iterate (Figure F.4.2) and the book's convergence test.

Logistic regression (§4.2-4.3) has no closed form: :func:`fit_logreg` runs gradient
descent (:func:`alice_lab.optim.gradient_descent`) on the mean cross-entropy, with the
gradients written by hand, :math:`\nabla_{\mathbf{W}} = \frac1n(\hat{\mathbf{Y}} -
\mathbf{Y}^{\mathrm{oh}})^\top\mathbf{X}` for softmax outputs and
:math:`\nabla_{\mathbf{w}} = \frac1n\mathbf{X}^\top(\sigma(\mathbf{X}\mathbf{w}+b) -
\mathbf{y})` for the sigmoid; ``tests/test_linear.py`` checks them against finite
differences, ``torch.autograd`` and ``jax.grad``.

Shapes follow the book: ``X (n, c)``, ``y (n)``, ``w (c)``, ``W (m, c)``, ``b (m)``.
A model's parameters can also travel as a dict (``{"W": ..., "b": ...}`` or
``{"w": ..., "b": ...}``) for the chapter's exercise: :func:`init_params`,
:func:`predict`, :func:`predict_proba`, :func:`gradients`; dropping the ``"b"`` key
drops the bias and its gradient.

Book: §4.1 (lines 1316-1586), §4.2 (lines 1588-1846), §4.3.1 (lines 1850-1946),
"From theory to practice" (lines 2176-2192).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    device_of,
    to_numpy,
)
from alice_lab.functional import log_softmax, one_hot, sigmoid, softmax

__all__ = [
    "LSGDResult",
    "LogRegFit",
    "add_bias_column",
    "binary_logreg_forward",
    "binary_logreg_gradient",
    "binary_logreg_loss",
    "binary_predict",
    "condition_number",
    "dual_weights",
    "fit_logreg",
    "gradient_flops",
    "gradients",
    "hat_matrix",
    "init_params",
    "least_squares",
    "linear_model",
    "logreg_forward",
    "logreg_gradient",
    "logreg_loss",
    "loss",
    "ls_gd",
    "ls_gradient",
    "ls_loss",
    "ls_noise_variance",
    "multi_linear",
    "normal_equations",
    "predict",
    "predict_class",
    "predict_proba",
    "pseudoinverse",
    "ridge_loss",
]

METHODS = ("solve", "lstsq", "inv", "gd")


# --- checks ---------------------------------------------------------------------------


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
    if not xp.isdtype(y.dtype, "integral"):
        raise ValueError(f"y must hold integer class labels; got dtype {y.dtype}")
    if bool(xp.any(y < 0)) or bool(xp.any(y >= m)):
        raise ValueError(
            f"labels must lie in 0..{m - 1}; got values from {int(xp.min(y))} to "
            f"{int(xp.max(y))}"
        )


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


# --- the linear model -----------------------------------------------------------------


def linear_model(X: Any, w: Any, b: Any = 0.0) -> Any:
    r"""The linear model :math:`f(\mathbf{x}) = \mathbf{w}^\top\mathbf{x} + b`, batched
    as :math:`f(\mathbf{X}) = \mathbf{X}\mathbf{w} + \mathbf{1}b` (E.4.5, Box 4.1).

    Parameters
    ----------
    X : (n, c) array, or a single input (c,).
    w : (c,) array; b : a number or a 0-d array.

    Returns
    -------
    (n,) array (a 0-d array for a single input).

    Book: §4.1.2, definition "Linear models" (lines 1366-1372), eq. E.4.5 (line 1392).

    >>> linear_model(np.array([[1.0, 2.0]]), np.array([0.5, -1.0]), 3.0).tolist()
    [1.5]
    """
    xp = array_namespace(X, w)
    if X.ndim not in (1, 2):
        raise ValueError(f"X must have shape (n, c) or (c,); got {tuple(X.shape)}")
    _check_vec(w, X.shape[-1], "w", f"X {tuple(X.shape)}")
    _check_bias(b, (), "a single-output model")
    return xp.matmul(X, w) + b  # (n, c) @ (c,) -> (n,)


def add_bias_column(X: Any) -> Any:
    r"""The bias trick: append a column of ones, so that
    :math:`[\mathbf{x}; 1]^\top[\mathbf{w}; b] = \mathbf{w}^\top\mathbf{x} + b`.

    (n, c) -> (n, c + 1).

    Book: §4.1.2 (lines 1374-1378).

    >>> add_bias_column(np.zeros((2, 1))).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    xp = array_namespace(X)
    n, _ = _check_X(X, xp)
    ones = xp.ones((n, 1), dtype=X.dtype, device=device_of(X))
    return xp.concat([X, ones], axis=1)


def multi_linear(X: Any, W: Any, b: Any = None) -> Any:
    r"""m linear models side by side, :math:`\mathbf{y} = \mathbf{W}\mathbf{x} +
    \mathbf{b}` with :math:`\mathbf{W} \sim (m, c)`; batched, :math:`\mathbf{X}
    \mathbf{W}^\top + \mathbf{b}`. These are the logits of logistic regression.

    Parameters
    ----------
    X : (n, c); W : (m, c); b : (m,) or None (no bias).

    Returns
    -------
    (n, m) array.

    Book: §4.2.1, eq. ``multi_valued_linear_model`` (lines 1656-1668).

    >>> multi_linear(np.ones((1, 2)), np.array([[1.0, 2.0], [0.0, -1.0]])).tolist()
    [[3.0, -1.0]]
    """
    xp = array_namespace(X, W)
    n, c = _check_X(X, xp)
    if W.ndim != 2 or W.shape[1] != c:
        raise ValueError(
            f"W must have shape (m, c) = (m, {c}) to match X {tuple(X.shape)}; got "
            f"{tuple(W.shape)} (is it transposed?)"
        )
    H = xp.matmul(X, xp.matrix_transpose(W))  # (n, c) @ (c, m) -> (n, m)
    if b is None:
        return H
    _check_vec(b, W.shape[0], "b", f"W {tuple(W.shape)}")
    return H + b[None, :]


# --- least squares --------------------------------------------------------------------


def ls_loss(X: Any, y: Any, w: Any, b: Any = 0.0) -> Any:
    r"""The least-squares objective (E.4.4),
    :math:`\frac1n\lVert\mathbf{y} - \mathbf{X}\mathbf{w} - \mathbf{1}b\rVert^2`.

    Book: §4.1.2, eq. E.4.4 and eq. ``ls_vectorized`` (lines 1380-1422).

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

    Book: §4.1.3, eq. ``ls_sigma`` (lines 1528-1536).

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

    Book: §4.1.3, eq. ``ls_closed_form_solution`` (line 1478), Boxes 4.2 and 4.3;
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


# --- pseudoinverse, hat matrix, conditioning ------------------------------------------


def pseudoinverse(X: Any, *, method: str = "normal") -> Any:
    r"""The pseudoinverse :math:`\mathbf{X}^\dagger`, (n, c) -> (c, n), with
    :math:`\mathbf{X}^\dagger\mathbf{X} = \mathbf{I}` when X has full column rank.

    ``method="normal"`` is the book's :math:`(\mathbf{X}^\top\mathbf{X})^{-1}
    \mathbf{X}^\top` (through a solver); ``"svd"`` is
    :math:`\mathbf{V}\mathbf{S}^{-1}\mathbf{U}^\top`, which also handles a
    rank-deficient X (collinear features) like ``numpy.linalg.pinv``.

    Book: §4.1.3, "Tidbits of information" (line 1488).

    >>> pseudoinverse(np.array([[2.0], [0.0]])).tolist()
    [[0.5, 0.0]]
    """
    xp = array_namespace(X)
    n, c = _check_X(X, xp)
    if method == "normal":
        Xt = xp.matrix_transpose(X)
        return xp.linalg.solve(xp.matmul(Xt, X), Xt)  # (c, c) \ (c, n)
    if method == "svd":
        U, s, Vt = xp.linalg.svd(X, full_matrices=False)
        cut = float(xp.finfo(X.dtype).eps) * max(n, c) * xp.max(s)
        inv_s = xp.where(s > cut, 1.0 / xp.where(s > cut, s, xp.ones_like(s)), s * 0)
        return xp.matmul(
            xp.matrix_transpose(Vt) * inv_s[None, :], xp.matrix_transpose(U)
        )
    raise ValueError(f"method must be 'normal' or 'svd'; got {method!r}")


def hat_matrix(X: Any) -> Any:
    r"""The hat matrix :math:`\mathbf{M} = \mathbf{X}\mathbf{X}^\dagger` (n, n), which
    maps the targets to the least-squares predictions, :math:`\hat{\mathbf{y}} =
    \mathbf{M}\mathbf{y}`: a symmetric, idempotent projection of trace c.

    Book: §4.1.3, "Tidbits of information" (line 1488).

    >>> hat_matrix(np.array([[1.0], [1.0]])).round(12).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    xp = array_namespace(X)
    return xp.matmul(X, pseudoinverse(X, method="svd"))


def dual_weights(X: Any, X_new: Any) -> Any:
    r"""The "dual" view of least squares: the prediction at a new input is a weighted
    sum of the *training targets*,
    :math:`\hat{y}(\mathbf{x}) = \sum_i \alpha_i(\mathbf{x}) y_i`
    with :math:`\boldsymbol{\alpha} = (\mathbf{X}^\dagger)^\top\mathbf{x}`.

    Parameters
    ----------
    X : (n, c) training inputs; X_new : (n', c) new inputs.

    Returns
    -------
    (n', n) array A with predictions ``A @ y``.

    Book: §4.1.3, "Tidbits of information" (line 1488).
    """
    xp = array_namespace(X, X_new)
    n, c = _check_X(X, xp)
    if X_new.ndim != 2 or X_new.shape[1] != c:
        raise ValueError(f"X_new must have shape (n', {c}); got {tuple(X_new.shape)}")
    return xp.matmul(X_new, pseudoinverse(X, method="svd"))  # (n', c) @ (c, n)


def condition_number(A: Any) -> Any:
    r"""The 2-norm condition number :math:`\kappa(\mathbf{A}) = \lVert\mathbf{A}\rVert
    \lVert\mathbf{A}^{-1}\rVert = s_{\max}/s_{\min}` (ratio of the extreme singular
    values; ``inf`` for a singular matrix). Works for rectangular A too, where
    :math:`\kappa(\mathbf{X}^\top\mathbf{X}) = \kappa(\mathbf{X})^2`.

    Book: §4.1.4, footnote (line 1554).

    >>> float(condition_number(np.diag([1.0, 1e-3])))
    1000.0
    """
    xp = array_namespace(A)
    if A.ndim != 2:
        raise ValueError(f"A must be a matrix; got shape {tuple(A.shape)}")
    s = xp.linalg.svdvals(A)
    with np.errstate(divide="ignore"):
        return xp.max(s) / xp.min(s)


def gradient_flops(n: int, c: int, *, order: str = "Xw first") -> int:
    r"""Multiply-adds counted as 2 flops for the gradient
    :math:`\mathbf{X}^\top(\mathbf{X}\mathbf{w} - \mathbf{y})`.

    ``"Xw first"``: :math:`\mathbf{X}\mathbf{w}` (2nc), the residual (n), then
    :math:`\mathbf{X}^\top\mathbf{r}` (2nc): linear in n and c. ``"XtX first"``:
    :math:`\mathbf{X}^\top\mathbf{X}` (2nc²), times w (2c²), minus
    :math:`\mathbf{X}^\top\mathbf{y}` (2nc + c): quadratic in c.

    Book: §4.1.4 (lines 1554-1556).

    >>> gradient_flops(10, 3), gradient_flops(10, 3, order="XtX first")
    (130, 261)
    """
    n, c = check_int(n, "n"), check_int(c, "c")
    if order == "Xw first":
        return 2 * n * c + n + 2 * n * c
    if order == "XtX first":
        return 2 * n * c * c + 2 * c * c + 2 * n * c + c
    raise ValueError(f"order must be 'Xw first' or 'XtX first'; got {order!r}")


# --- logistic regression --------------------------------------------------------------


def logreg_forward(X: Any, W: Any, b: Any = None) -> Any:
    r"""Logistic regression, :math:`\hat{\mathbf{y}} = \mathrm{softmax}(\mathbf{W}
    \mathbf{x} + \mathbf{b})`, batched: (n, c) -> (n, m) rows in the simplex.

    Book: §4.2.2 (lines 1782-1790).

    >>> logreg_forward(np.zeros((1, 2)), np.zeros((4, 2))).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    return softmax(multi_linear(X, W, b), axis=-1)


def logreg_loss(X: Any, y: Any, W: Any, b: Any = None, *, ridge: float = 0.0) -> Any:
    r"""The logistic-regression objective :math:`\frac1n\sum_i\mathrm{CE}(
    \mathbf{y}_i^{\mathrm{oh}}, \mathrm{softmax}(\mathbf{W}\mathbf{x}_i+\mathbf{b}))
    + \frac\lambda2\lVert\mathbf{W}\rVert^2`, from the logits (stable).

    Parameters
    ----------
    X : (n, c); y : (n,) integer labels in 0..m-1; W : (m, c); b : (m,) or None.

    Book: §4.2.2 (line 1842).

    >>> X, W = np.zeros((2, 3)), np.zeros((2, 3))
    >>> round(float(logreg_loss(X, np.array([0, 1]), W)), 6)  # log 2
    0.693147
    """
    xp, n, c = _check_Xy(X, y, labels=True)
    H = multi_linear(X, W, b)  # (n, m)
    _labels(y, W.shape[0], xp)
    Y = one_hot(y, W.shape[0], dtype=X.dtype)
    ce = -xp.mean(xp.sum(Y * log_softmax(H, axis=-1), axis=-1))
    lam = _number(ridge, "ridge")
    return ce + 0.5 * lam * xp.sum(W * W) if lam > 0 else ce


def logreg_gradient(
    X: Any, y: Any, W: Any, b: Any = None, *, ridge: float = 0.0
) -> tuple[Any, Any]:
    r"""Hand-written gradient of :func:`logreg_loss`:
    :math:`\nabla_{\mathbf{W}} = \frac1n(\hat{\mathbf{Y}} -
    \mathbf{Y}^{\mathrm{oh}})^\top \mathbf{X} + \lambda\mathbf{W}` and
    :math:`\nabla_{\mathbf{b}} = \frac1n\sum_i
    (\hat{\mathbf{y}}_i - \mathbf{y}_i^{\mathrm{oh}})`, the multi-class analogue of
    :math:`(f(\mathbf{x}) - y)\mathbf{x}`.

    Returns
    -------
    ``(dW (m, c), db (m,))``; ``db`` is None when ``b`` is None (no bias, no gradient).

    Book: §4.3.1 (line 1932, "a similar gradient can also be written for the
    standard multi-class case").
    """
    xp, n, c = _check_Xy(X, y, labels=True)
    P = logreg_forward(X, W, b)  # (n, m)
    _labels(y, W.shape[0], xp)
    G = (P - one_hot(y, W.shape[0], dtype=X.dtype)) / n  # (n, m)
    dW = xp.matmul(xp.matrix_transpose(G), X)  # (m, n) @ (n, c) -> (m, c)
    lam = _number(ridge, "ridge")
    if lam > 0:
        dW = dW + lam * W
    return dW, (None if b is None else xp.sum(G, axis=0))


def binary_logreg_forward(X: Any, w: Any, b: Any = 0.0) -> Any:
    r"""Binary logistic regression :math:`f(\mathbf{x}) = \sigma(\mathbf{w}^\top
    \mathbf{x} + b)`: (n, c) -> (n,) probabilities of class 1.

    Book: §4.3.1 (lines 1900-1906).

    >>> binary_logreg_forward(np.zeros((1, 2)), np.ones(2)).tolist()
    [0.5]
    """
    return sigmoid(linear_model(X, w, b))


def binary_logreg_loss(
    X: Any, y: Any, w: Any, b: Any = 0.0, *, ridge: float = 0.0
) -> Any:
    r"""Mean binary cross-entropy of labels y in {0, 1} under
    :math:`\sigma(\mathbf{X}\mathbf{w} + b)`, from the logits (exact for any logit),
    plus :math:`\frac\lambda2\lVert\mathbf{w}\rVert^2`.

    Book: §4.3.1 (lines 1914-1918).
    """
    from alice_lab.losses import binary_cross_entropy_with_logits

    xp, n, c = _check_Xy(X, y, labels=True)
    z = linear_model(X, w, b)
    ce = binary_cross_entropy_with_logits(z, _binary_targets(y, X, xp))
    lam = _number(ridge, "ridge")
    return ce + 0.5 * lam * xp.sum(w * w) if lam > 0 else ce


def binary_logreg_gradient(
    X: Any, y: Any, w: Any, b: Any = 0.0, *, ridge: float = 0.0
) -> tuple[Any, Any]:
    r"""Hand-written gradient of :func:`binary_logreg_loss`:
    :math:`\nabla_{\mathbf{w}} = \frac1n\sum_i (f(\mathbf{x}_i) - y_i)\mathbf{x}_i +
    \lambda\mathbf{w}` (the book's :math:`(f(\mathbf{x})-y)\mathbf{x}`, averaged) and
    :math:`\partial_b = \frac1n\sum_i (f(\mathbf{x}_i) - y_i)`.

    Returns
    -------
    ``(dw (c,), db ())``; ``db`` is None when ``b`` is None.

    Book: §4.3.1 (lines 1928-1932).
    """
    xp, n, c = _check_Xy(X, y, labels=True)
    r = binary_logreg_forward(X, w, 0.0 if b is None else b) - _binary_targets(y, X, xp)
    dw = xp.matmul(xp.matrix_transpose(X), r) / n  # (c, n) @ (n,) -> (c,)
    lam = _number(ridge, "ridge")
    if lam > 0:
        dw = dw + lam * w
    return dw, (None if b is None else xp.mean(r))


def predict_class(probs: Any) -> Any:
    r"""The predicted class: the closest vertex of the simplex,
    :math:`\arg\max_i \hat{y}_i` (n, m) -> (n,).

    Book: §4.2.1 (lines 1642-1648).

    >>> predict_class(np.array([[0.2, 0.05, 0.75]])).tolist()
    [2]
    """
    xp = array_namespace(probs)
    return xp.argmax(probs, axis=-1)


def binary_predict(p: Any, threshold: float = 0.5) -> Any:
    r"""Class 1 where :math:`f(\mathbf{x}) > 0.5` (the threshold), class 0 otherwise:
    exactly 0.5 gives class 0, as the book's "round" at line 1864.

    >>> binary_predict(np.array([0.2, 0.5, 0.51])).tolist()
    [0, 0, 1]
    """
    xp = array_namespace(p)
    return xp.astype(p > threshold, xp.int64)


# --- the exercise's modular form: parameters as a dict --------------------------------


def init_params(
    c: int,
    m: int | None = None,
    *,
    seed: int = 0,
    scale: float = 0.01,
    bias: bool = True,
    dtype: Any = np.float64,
) -> dict[str, np.ndarray]:
    r"""Small random weights, zero bias, as NumPy arrays (move them with
    :func:`alice_lab.backend.to_backend`).

    ``m=None`` gives one output, ``{"w": (c,), "b": ()}`` (regression or binary
    classification); an int m gives ``{"W": (m, c), "b": (m,)}``. The weights are
    ``scale * rng.standard_normal(shape)`` from ``numpy.random.default_rng(seed)``;
    ``bias=False`` leaves out ``"b"``.

    Book: "From theory to practice", chapter 4 (line 2182).

    >>> {k: v.shape for k, v in init_params(3, 2).items()}
    {'W': (2, 3), 'b': (2,)}
    """
    c = check_int(c, "c")
    rng = np.random.default_rng(seed)
    if m is None:
        params = {"w": (scale * rng.standard_normal(c)).astype(dtype)}
        if bias:
            params["b"] = np.zeros((), dtype=dtype)
        return params
    m = check_int(m, "m")
    params = {"W": (scale * rng.standard_normal((m, c))).astype(dtype)}
    if bias:
        params["b"] = np.zeros(m, dtype=dtype)
    return params


def _check_params(params: Any) -> str:
    if not isinstance(params, dict) or ("W" in params) == ("w" in params):
        raise ValueError(
            "params must be a dict with either 'W' (m, c) or 'w' (c,) and optionally "
            f"'b'; got {type(params).__name__} with keys {sorted(params)}"
            if isinstance(params, dict)
            else f"params must be a dict; got {type(params).__name__}"
        )
    extra = set(params) - {"W", "w", "b"}
    if extra:
        raise ValueError(f"unexpected parameter names {sorted(extra)}")
    return "W" if "W" in params else "w"


def predict(params: dict, X: Any) -> Any:
    r"""The linear part of the model: logits :math:`\mathbf{X}\mathbf{W}^\top +
    \mathbf{b}` (n, m) for ``{"W", "b"}``, or :math:`\mathbf{X}\mathbf{w} + b` (n,) for
    ``{"w", "b"}``; without ``"b"``, no bias.

    >>> predict({"w": np.array([1.0, 1.0]), "b": 0.5}, np.ones((1, 2))).tolist()
    [2.5]
    """
    key = _check_params(params)
    if key == "W":
        return multi_linear(X, params["W"], params.get("b"))
    return linear_model(X, params["w"], params.get("b", 0.0))


def predict_proba(params: dict, X: Any) -> Any:
    r"""Class probabilities: the softmax of :func:`predict` for ``{"W", ...}`` (n, m),
    the sigmoid for ``{"w", ...}`` (n,), the probability of class 1."""
    h = predict(params, X)
    return softmax(h, axis=-1) if "W" in params else sigmoid(h)


def loss(params: dict, X: Any, y: Any, *, ridge: float = 0.0) -> Any:
    """Mean cross-entropy of the model in ``params`` (softmax for "W", sigmoid for
    "w") on labels y, plus the ridge penalty on the weights."""
    if _check_params(params) == "W":
        return logreg_loss(X, y, params["W"], params.get("b"), ridge=ridge)
    return binary_logreg_loss(X, y, params["w"], params.get("b", 0.0), ridge=ridge)


def gradients(params: dict, X: Any, y: Any, *, ridge: float = 0.0) -> dict:
    """Hand-written gradients of :func:`loss`, keyed like ``params``: a model without
    ``"b"`` gets no ``"b"`` gradient (the bias is added or removed dynamically).

    Book: "From theory to practice", chapter 4 (line 2188).
    """
    if _check_params(params) == "W":
        dW, db = logreg_gradient(X, y, params["W"], params.get("b"), ridge=ridge)
        grads = {"W": dW}
    else:
        dW, db = binary_logreg_gradient(X, y, params["w"], params.get("b"), ridge=ridge)
        grads = {"w": dW}
    if "b" in params:
        grads["b"] = db
    return grads


@dataclass(frozen=True)
class LogRegFit:
    """What :func:`fit_logreg` returns: ``params`` (dict of arrays in X's namespace),
    ``losses`` (T + 1,) the training objective at every iterate (NumPy), and
    ``steps_taken``."""

    params: dict
    losses: np.ndarray
    steps_taken: int


def fit_logreg(
    X: Any,
    y: Any,
    *,
    m: int | None = None,
    binary: bool = False,
    bias: bool = True,
    ridge: float = 0.0,
    lr: float = 0.5,
    steps: int = 500,
    momentum: float = 0.0,
    tol: float | None = None,
    params: dict | None = None,
) -> LogRegFit:
    r"""Logistic regression by gradient descent with the hand-written gradients.

    The parameters are flattened into one vector and handed to
    :func:`alice_lab.optim.gradient_descent` (plain, or with the book's momentum).
    The start is all zeros unless ``params`` is given (the objective is convex, so
    the start only changes the path).

    Parameters
    ----------
    X : (n, c) floating; y : (n,) integer labels.
    m : number of classes (default ``max(y) + 1``); ignored when ``binary``.
    binary : one output and a sigmoid (labels in {0, 1}) instead of m softmax outputs.
    bias : fit a bias (``"b"``).
    ridge : :math:`\lambda`, the penalty :math:`\frac\lambda2\lVert\mathbf{W}\rVert^2`
        (the bias is not penalised, as in scikit-learn, whose ``C`` is
        :math:`1/(n\lambda)`).

    Book: §4.2.2 (line 1846: "we can still proceed with gradient descent").
    """
    from alice_lab.optim import gradient_descent

    xp, n, c = _check_Xy(X, y, labels=True)
    if binary:
        shapes = {"w": (c,), **({"b": ()} if bias else {})}
    else:
        if m is None:
            m = int(xp.max(y)) + 1
        _labels(y, m, xp)
        shapes = {"W": (m, c), **({"b": (m,)} if bias else {})}
    sizes = {k: math.prod(s) for k, s in shapes.items()}

    def unpack(theta):
        out, start = {}, 0
        for k, s in shapes.items():
            out[k] = xp.reshape(theta[start : start + sizes[k]], s)
            start += sizes[k]
        return out

    def pack(p):
        return xp.concat([xp.reshape(p[k], (-1,)) for k in shapes])

    if params is None:
        theta0 = xp.zeros(sum(sizes.values()), dtype=X.dtype, device=device_of(X))
    else:
        theta0 = pack(params)
    res = gradient_descent(
        lambda th: pack(gradients(unpack(th), X, y, ridge=ridge)),
        theta0,
        lr=lr,
        momentum=momentum,
        steps=steps,
        tol=tol,
    )
    losses = np.array(
        [
            float(loss(unpack(res.path[t]), X, y, ridge=ridge))
            for t in range(res.path.shape[0])
        ]
    )
    return LogRegFit(unpack(res.x), losses, res.steps_taken)
