r"""What the closed-form solution of least squares is made of, and what it costs.

The pseudoinverse :math:`\mathbf{X}^\dagger` in the closed form
:math:`\mathbf{w}_* = \mathbf{X}^\dagger\mathbf{y}`, the hat matrix that projects the
targets onto the predictions, the "dual" view of a prediction as a weighted sum of
training targets (§4.1.3, "Tidbits of information"); the condition number that
decides how accurate the closed form is, and the flop counts of the two orders in
which the gradient can be computed (§4.1.4, computational considerations).

Book: §4.1.3 (line 1488), §4.1.4 (lines 1546-1556).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int
from alice_lab.linear._checks import _check_X

__all__ = [
    "condition_number",
    "dual_weights",
    "gradient_flops",
    "hat_matrix",
    "pseudoinverse",
]


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
