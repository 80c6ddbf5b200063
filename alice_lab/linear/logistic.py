r"""Logistic regression, multi-class (softmax) and binary (sigmoid), with the
gradients written by hand.

:func:`logreg_forward` is :math:`\mathrm{softmax}(\mathbf{W}\mathbf{x} +
\mathbf{b})`; its loss is the mean cross-entropy from the logits, and its gradient
:math:`\nabla_{\mathbf{W}} = \frac1n(\hat{\mathbf{Y}} -
\mathbf{Y}^{\mathrm{oh}})^\top\mathbf{X}`. The binary model is
:math:`\sigma(\mathbf{w}^\top\mathbf{x} + b)` with gradient
:math:`\frac1n\mathbf{X}^\top(\sigma(\mathbf{X}\mathbf{w}+b) - \mathbf{y})`.
``tests/test_linear.py`` checks both gradients against finite differences,
``torch.autograd`` and ``jax.grad``. :func:`alice_lab.linear.fit_logreg` trains
either model by gradient descent.

Book: §4.2 (lines 1588-1846), §4.3.1 (lines 1850-1946).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace
from alice_lab.functional import log_softmax, one_hot, sigmoid, softmax
from alice_lab.linear._checks import _binary_targets, _check_Xy, _labels, _number
from alice_lab.linear.model import linear_model, multi_linear

__all__ = [
    "binary_logreg_forward",
    "binary_logreg_gradient",
    "binary_logreg_loss",
    "binary_predict",
    "logreg_forward",
    "logreg_gradient",
    "logreg_loss",
    "predict_class",
]


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
