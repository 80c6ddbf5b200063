r"""The chapter's exercise in modular form: a model's parameters travel as a dict,
``{"W": (m, c), "b": (m,)}`` for softmax outputs or ``{"w": (c,), "b": ()}`` for one
output; dropping ``"b"`` drops the bias and its gradient.

:func:`init_params`, :func:`predict`, :func:`predict_proba`, :func:`loss` and
:func:`gradients` dispatch on the keys to the functions of
:mod:`alice_lab.linear.model` and :mod:`alice_lab.linear.logistic`;
:func:`fit_logreg` trains either model with
:func:`alice_lab.optim.gradient_descent` on the flattened parameters.

Book: "From theory to practice", chapter 4 (lines 2176-2192); §4.2.2 (line 1846).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import check_int, device_of
from alice_lab.functional import sigmoid, softmax
from alice_lab.linear._checks import _check_Xy, _labels
from alice_lab.linear.logistic import (
    binary_logreg_gradient,
    binary_logreg_loss,
    logreg_gradient,
    logreg_loss,
)
from alice_lab.linear.model import linear_model, multi_linear

__all__ = [
    "LogRegFit",
    "fit_logreg",
    "gradients",
    "init_params",
    "loss",
    "predict",
    "predict_proba",
]


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
