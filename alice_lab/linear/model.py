r"""The linear model and its multi-output form.

:func:`linear_model` is :math:`f(\mathbf{x}) = \mathbf{w}^\top\mathbf{x} + b`,
batched over the rows of ``X (n, c)``; :func:`add_bias_column` is the bias trick
that folds ``b`` into ``w``; :func:`multi_linear` puts m models side by side, the
logits of logistic regression.

Book: §4.1.2, definition "Linear models" and eq. E.4.5 (lines 1366-1392);
§4.2.1 (lines 1656-1668).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace, device_of
from alice_lab.linear._checks import _check_bias, _check_vec, _check_X

__all__ = ["add_bias_column", "linear_model", "multi_linear"]


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

    Book: §4.2.1, E.4.10 (lines 1656-1668).

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
