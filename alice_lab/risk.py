r"""Empirical and expected risk, ERM by gradient descent, and a memoriser (chapter 3).

Given a dataset :math:`\mathcal{S}_n = \{(x_i, y_i)\}` and a per-sample loss
:math:`l(y, \hat{y})`, the *empirical risk* of a model f is the average loss
:math:`\frac1n\sum_i l(y_i, f(x_i))` (E.3.1); the *expected risk* is the same average
over the whole distribution, :math:`\mathbb{E}_{p(x,y)}[l(y, f(x))]` (E.3.5), of which
the empirical risk is a Monte Carlo estimate. Their difference is the generalisation
gap, which a held-out test set estimates.

A loss here is a function ``loss(y_hat, y)`` of predictions and targets, prediction
first. The losses of :mod:`alice_lab.losses` (``squared_loss``, ``hinge``, ...) are
passed as they are: every function below asks a loss with a ``reduction`` keyword for
``reduction="none"``, the per-sample values it averages; any other function must
return per-sample values itself. Models are functions of a batch, ``f(X) -> (n,)``:
the linear model of the examples is ``lambda X: linear.linear_model(X, w)``.

The :class:`LookupTable` of eq. E.3.4 drives the empirical risk to its minimum by
memorising the training pairs, and predicts a constant anywhere else: the cleanest
example of a model that optimises without learning.

The generators at the end make synthetic :math:`p(x, y)` with a known answer, and two
ways of breaking the i.i.d. assumption: a distribution that drifts with time and a
biased collection (the car-model and car-dealership examples of §3.1).

Book: §3.1 (lines 1164-1176) and §3.2-3.2.1 (lines 1194-1242).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab import linear, losses
from alice_lab._compat import renamed
from alice_lab.backend import array_namespace, check_int, device_of, to_numpy
from alice_lab.probability import MCEstimate, mc_expectation

__all__ = [
    "LookupTable",
    "empirical_risk",
    "erm_gd",
    "expected_risk_mc",
    "generalization_gap",
    "sample_biased",
    "sample_drifting",
    "sample_linear",
    "squared_loss_grad",
]

Loss = Callable[[Any, Any], Any]


# --- losses used by the chapter's examples -------------------------------------------


def _same_shape(y: Any, y_hat: Any, what: str) -> Any:
    xp = array_namespace(y, y_hat)
    if tuple(y.shape) != tuple(y_hat.shape):
        raise ValueError(
            f"{what} needs y and y_hat of the same shape (nothing is broadcast); got "
            f"{tuple(y.shape)} and {tuple(y_hat.shape)}"
        )
    return xp


def _per_sample(loss: Loss, y_hat: Any, y: Any) -> Any:
    """``loss`` on every sample, (n,): a loss with a ``reduction`` keyword (those of
    :mod:`alice_lab.losses`) is asked for ``reduction="none"``."""
    try:
        takes_reduction = "reduction" in inspect.signature(loss).parameters
    except (TypeError, ValueError):  # no signature to read: a per-sample function
        takes_reduction = False
    return loss(y_hat, y, reduction="none") if takes_reduction else loss(y_hat, y)


def squared_loss_grad(y_hat: Any, y: Any) -> Any:
    r""":math:`\partial l / \partial\hat{y} = 2(\hat{y} - y)` of the squared loss
    :func:`alice_lab.losses.squared_loss`: (n,), (n,) -> (n,).

    >>> squared_loss_grad(np.array([0.0]), np.array([1.0])).tolist()
    [-2.0]
    """
    _same_shape(y, y_hat, "squared_loss_grad")
    return 2 * (y_hat - y)


#: the names before the losses and models of the library, for one release (chapter
#: 3's notebook): each warns, then does what it did
squared_loss = renamed(
    "alice_lab.risk.squared_loss",
    lambda y_hat, y: losses.squared_loss(y_hat, y, reduction="none"),
    "alice_lab.losses.squared_loss",
    "the functions of alice_lab.risk take it as it is",
)
linear_model = renamed(
    "alice_lab.risk.linear_model",
    lambda w: lambda X: linear.linear_model(X, w),
    "alice_lab.linear.linear_model",
    "risk.linear_model(w)(X) is linear.linear_model(X, w)",
)


# --- empirical risk and ERM -----------------------------------------------------------


def _check_Xy(X: Any, y: Any) -> int:
    if X.ndim < 1 or y.ndim != 1 or X.shape[0] != y.shape[0] or y.shape[0] == 0:
        raise ValueError(
            "expected X (n, ...) and y (n,) with the same n >= 1; got "
            f"{tuple(X.shape)} and {tuple(y.shape)}"
        )
    return y.shape[0]


def empirical_risk(loss: Loss, f: Callable[[Any], Any], X: Any, y: Any) -> Any:
    r"""E.3.1: :math:`\frac1n\sum_{i=1}^n l(y_i, f(x_i))`.

    Parameters
    ----------
    loss : ``loss(y_hat, y)`` (prediction first): a loss of :mod:`alice_lab.losses`
        (asked for ``reduction="none"``) or a per-sample function (n,), (n,) -> (n,).
    f : the model on a batch, ``f(X)`` -> (n,).
    X : (n, ...) inputs; y : (n,) targets.

    Returns
    -------
    () array, the average loss.

    Book: §3.2, eq. E.3.1 (lines 1204-1208).

    >>> X, y = np.array([[1.0], [2.0]]), np.array([1.0, 1.0])
    >>> f = lambda X: linear.linear_model(X, np.array([1.0]))
    >>> float(empirical_risk(losses.squared_loss, f, X, y))
    0.5
    """
    _check_Xy(X, y)
    y_hat = f(X)
    if tuple(y_hat.shape) != tuple(y.shape):
        raise ValueError(
            f"f(X) must have the shape of y {tuple(y.shape)}; got {tuple(y_hat.shape)}"
        )
    per_sample = _per_sample(loss, y_hat, y)
    xp = array_namespace(per_sample)
    return xp.mean(per_sample)


def erm_gd(
    loss_grad: Loss, X: Any, y: Any, w0: Any, *, lr: float, steps: int, tol=None
):
    r"""ERM over a linear model by gradient descent, eq. E.3.2 with
    :math:`f(\mathbf{x}, \mathbf{w}) = \mathbf{w}^\top\mathbf{x}`.

    The gradient of the empirical risk is
    :math:`\frac1n\sum_i l'(y_i, \hat{y}_i)\,\mathbf{x}_i =
    \frac1n\mathbf{X}^\top l'(\mathbf{y}, \mathbf{X}\mathbf{w})`, where
    :math:`l' = \partial l/\partial\hat{y}` (e.g. :func:`squared_loss_grad`,
    :func:`alice_lab.losses.hinge_grad`); the loop is
    :func:`alice_lab.optim.gradient_descent`.

    Parameters
    ----------
    loss_grad : ``loss_grad(y_hat, y)`` (n,), (n,) -> (n,) (prediction first).
    X : (n, c); y : (n,); w0 : (c,) starting weights.
    lr, steps, tol : as in :func:`alice_lab.optim.gradient_descent`.

    Returns
    -------
    :class:`alice_lab.optim.GDResult`; ``.x`` holds :math:`\mathbf{w}` (c,).

    Book: §3.2, eq. E.3.2 (lines 1210-1214).

    >>> X = np.array([[1.0], [2.0]]); y = np.array([2.0, 4.0])
    >>> res = erm_gd(squared_loss_grad, X, y, np.zeros(1), lr=0.2, steps=50)
    >>> round(float(res.x[0]), 6)
    2.0
    """
    from alice_lab.optim import gradient_descent

    n = _check_Xy(X, y)
    if X.ndim != 2 or w0.ndim != 1 or w0.shape[0] != X.shape[1]:
        raise ValueError(
            f"expected X (n, c) and w0 (c,); got {tuple(X.shape)} and {tuple(w0.shape)}"
        )

    def grad(w):
        return (X.T @ loss_grad(X @ w, y)) / n  # (c, n) @ (n,) -> (c,)

    return gradient_descent(grad, w0, lr=lr, steps=steps, tol=tol)


# --- the memoriser (E.3.4) ------------------------------------------------------------


class LookupTable:
    r"""The look-up table of eq. E.3.4: :math:`f(x) = y` when :math:`(x, y)` is in the
    training set, a constant :math:`\bar{y}` otherwise.

    Inputs are matched *exactly*, byte for byte, so a test input that differs from a
    training input in the last bit is "unseen". With continuous inputs that is every
    test input: the table's training risk is the minimum possible and its test risk is
    that of the constant :math:`\bar{y}`. When a training input repeats with different
    targets, the last one wins.

    Works with NumPy, torch and JAX arrays (keys are made on the host; predictions come
    back in the namespace, dtype and device of ``y``).

    Book: §3.2.1, eq. E.3.4 (lines 1226-1230).

    >>> table = LookupTable(0.0).fit(np.array([[1.0], [2.0]]), np.array([5.0, 7.0]))
    >>> table.predict(np.array([[2.0], [2.5]])).tolist()
    [7.0, 0.0]
    """

    def __init__(self, default: float = 0.0):
        self.default = float(default)
        self._table: dict[bytes, Any] = {}
        self._like: Any = None

    @staticmethod
    def _keys(X: Any) -> list[bytes]:
        host = np.ascontiguousarray(to_numpy(X), dtype=np.float64)
        host = host + 0.0  # -0.0 and 0.0 become the same key
        return [row.tobytes() for row in host.reshape(host.shape[0], -1)]

    def fit(self, X: Any, y: Any) -> LookupTable:
        """Memorise the pairs: X (n, ...), y (n,). Returns ``self``."""
        _check_Xy(X, y)
        values = to_numpy(y)
        self._table = dict(zip(self._keys(X), values.tolist(), strict=True))
        self._like = y
        return self

    def seen(self, X: Any) -> np.ndarray:
        """(m,) bool NumPy array: which rows of X are in the table."""
        return np.array([k in self._table for k in self._keys(X)], dtype=bool)

    def predict(self, X: Any) -> Any:
        """(m,) predictions for X (m, ...), in the namespace and dtype of fitted y."""
        if self._like is None:
            raise ValueError("LookupTable.predict called before fit")
        xp = array_namespace(self._like)
        out = [self._table.get(k, self.default) for k in self._keys(X)]
        return xp.asarray(out, dtype=self._like.dtype, device=device_of(self._like))


# --- expected risk and the generalisation gap -----------------------------------------


def expected_risk_mc(
    loss: Loss,
    f: Callable[[Any], Any],
    sampler: Callable[[int, np.random.Generator], tuple[Any, Any]],
    n: int,
    rng: np.random.Generator,
) -> MCEstimate:
    r"""E.3.5 by Monte Carlo: draw n fresh pairs from :math:`p(x, y)` and average the
    loss, :math:`\mathrm{ER}[f] \approx \frac1n\sum_i l(y_i, f(x_i))` (E.A.7).

    loss, f : as in :func:`empirical_risk`; sampler : ``sampler(n, rng)`` ->
    ``(X (n, ...), y (n,))``. Returns an :class:`alice_lab.probability.MCEstimate`
    (mean, standard error, n).

    Book: §3.2.1, eq. E.3.5 and "a Monte Carlo approximation" (lines 1234-1240).

    >>> est = expected_risk_mc(losses.squared_loss, lambda X: X[:, 0],
    ...                        sample_linear, 20_000, np.random.default_rng(0))
    >>> abs(est.mean - 0.25) < 5 * est.stderr
    True
    """
    X, y = sampler(check_int(n, "n"), rng)
    _check_Xy(X, y)
    per_sample = _per_sample(loss, f(X), y)
    return mc_expectation(lambda v: v, per_sample)


def generalization_gap(
    loss: Loss, f: Callable[[Any], Any], train: tuple[Any, Any], test: tuple[Any, Any]
) -> float:
    r"""Test risk minus training risk, the estimate of the generalisation gap on a
    test set :math:`\mathcal{T}_m` disjoint from :math:`\mathcal{S}_n`.

    train, test : ``(X, y)`` pairs. Returns a float (positive: the model does worse on
    unseen data).

    Book: §3.2.1 (line 1242).

    >>> f = lambda X: linear.linear_model(X, np.array([1.0]))
    >>> generalization_gap(losses.squared_loss, f, (np.ones((2, 1)), np.ones(2)),
    ...                    (np.ones((2, 1)), np.zeros(2)))
    1.0
    """
    train_risk = float(empirical_risk(loss, f, *train))
    test_risk = float(empirical_risk(loss, f, *test))
    return test_risk - train_risk


# --- synthetic distributions with a known answer --------------------------------------


def sample_linear(
    n: int, rng: np.random.Generator, *, w: float = 1.0, sigma: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    r"""i.i.d. pairs :math:`x \sim \mathcal{U}(-1, 1)`,
    :math:`y = wx + \varepsilon`, :math:`\varepsilon \sim \mathcal{N}(0, \sigma^2)`.

    For :math:`f(x) = wx` and the squared loss the expected risk is exactly
    :math:`\sigma^2`. Returns ``X (n, 1), y (n,)`` as NumPy float64.

    Book: §3.1, the dataset as i.i.d. draws from p(x, y) (line 1170).

    >>> [a.shape for a in sample_linear(4, np.random.default_rng(0))]
    [(4, 1), (4,)]
    """
    n = check_int(n, "n")
    if not sigma >= 0:
        raise ValueError(f"need sigma >= 0; got sigma={sigma}")
    x = rng.uniform(-1.0, 1.0, size=(n, 1))
    return x, w * x[:, 0] + sigma * rng.standard_normal(n)


def sample_drifting(
    n: int, t: float, rng: np.random.Generator, *, sigma: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    r"""A distribution that changes with time t (concept drift, the car models that
    change over the decades): :math:`\mathbf{x} \sim \mathcal{N}(0, I_2)` and
    :math:`y = \cos(\theta_t)x_1 + \sin(\theta_t)x_2 + \varepsilon` with
    :math:`\theta_t = t\pi/2`; at t = 0 only :math:`x_1` matters, at t = 1 only
    :math:`x_2`.

    Returns ``X (n, 2), y (n,)`` (NumPy float64).

    Book: §3.1, identically distributed samples (line 1172).

    >>> X, y = sample_drifting(3, 0.0, np.random.default_rng(0), sigma=0.0)
    >>> bool(np.allclose(y, X[:, 0]))
    True
    """
    n = check_int(n, "n")
    if not sigma >= 0:
        raise ValueError(f"need sigma >= 0; got sigma={sigma}")
    theta = float(t) * math.pi / 2
    X = rng.standard_normal((n, 2))
    y = math.cos(theta) * X[:, 0] + math.sin(theta) * X[:, 1]
    return X, y + sigma * rng.standard_normal(n)


def sample_biased(
    n: int, share: float, rng: np.random.Generator, *, sigma: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    r"""A population of two groups, collected with a share ``share`` of group 1 (the
    photos taken next to one car dealership). Group g has inputs
    :math:`x \sim \mathcal{N}(\pm 1, 1)` (+1 for group 1) and its own slope,
    :math:`y = a_g x + \varepsilon` with :math:`a_0 = -1, a_1 = 2`. The population is
    ``share=0.5``; a biased collection over-represents one group.

    Returns ``X (n, 1), y (n,)`` (NumPy float64).

    Book: §3.1, independently distributed samples and collection bias (line 1174).

    >>> X, y = sample_biased(5, 1.0, np.random.default_rng(0), sigma=0.0)
    >>> bool(np.allclose(y, 2 * X[:, 0]))
    True
    """
    n = check_int(n, "n")
    if not 0.0 <= float(share) <= 1.0 or not sigma >= 0:
        raise ValueError(f"need share in [0, 1], sigma >= 0; got {share}, {sigma}")
    g = rng.random(n) < float(share)  # group 1 with probability `share`
    x = np.where(g, 1.0, -1.0) + rng.standard_normal(n)
    slope = np.where(g, 2.0, -1.0)
    return x[:, None], slope * x + sigma * rng.standard_normal(n)
