r"""Probability: Appendix A, and the likelihoods and posteriors of §3.2-3.3.

Everything that takes arrays is written once against the Python array API (NumPy,
PyTorch, JAX); samplers draw on the host with a seeded NumPy generator. Four rules
keep the numbers honest:

- **Logs, never products.** A likelihood is a sum of log-probabilities
  (:func:`log_likelihood`): the product of 1100 probabilities of 0.5 is already 0.0
  in float64.
- **0 log 0 = 0.** Categorical and Bernoulli log-probabilities use the convention of
  :func:`scipy.special.xlogy`, so a zero probability on a class that was *not*
  observed costs nothing, while one on the observed class gives :math:`-\infty`.
- **Normalise with logsumexp.** Grid posteriors are normalised in log space with
  :func:`alice_lab.functional.logsumexp`, so even likelihoods far below the smallest
  float survive.
- **A floor under variances.** :func:`gaussian_nll` clamps the predicted variance
  :math:`f_2^2` from below, otherwise :math:`f_2 \to 0` sends the loss to
  :math:`-\infty`.

Book: Appendix A, lines 6851-7009; §3.2.2 (lines 1244-1260), §3.2.3 (lines 1262-1282)
and §3.3 (lines 1284-1312).
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
from alice_lab.functional import logsumexp

__all__ = [
    "LOTTERY_COUNTS",
    "MCEstimate",
    "bayes",
    "bernoulli_logpmf",
    "beta_bernoulli_posterior",
    "categorical_logpmf",
    "categorical_nll",
    "categorical_pmf",
    "conditional",
    "entropy",
    "expectation",
    "fit_gaussian_gd",
    "gaussian_loglik",
    "gaussian_nll",
    "grid_argmax",
    "grid_posterior",
    "is_independent",
    "joint_from_counts",
    "kl_discrete",
    "kl_mc",
    "kl_normal",
    "log_likelihood",
    "map_beta_bernoulli",
    "marginal",
    "mc_expectation",
    "mc_predictive",
    "mle_bernoulli",
    "mle_gaussian",
    "moment",
    "mvn_logpdf",
    "mvn_sample",
    "normal_logpdf",
    "normal_mean_posterior",
    "normal_pdf",
    "numeric_cdf",
    "running_mean",
]

LOG_2PI = math.log(2.0 * math.pi)

#: Table T.A.1: 100 lottery tickets by outcome w (rows: no win, small win, large win)
#: and ticket r (columns: real, fake).
LOTTERY_COUNTS = np.array([[58, 2], [27, 3], [2, 8]])


# --- helpers --------------------------------------------------------------------------


def _param(v: Any, x: Any, name: str) -> Any:
    """A distribution parameter: a Python or NumPy number (kept a float, so that
    ``math.log`` takes it), or an array of shape () or x's shape (no other
    broadcasting), by :func:`~alice_lab.backend.as_float_array` (a list joins x's
    library)."""
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    v = as_float_array(v, name, like=x)
    if v.ndim != 0 and tuple(v.shape) != tuple(x.shape):
        raise ValueError(
            f"{name} must be a scalar or have the shape of x {tuple(x.shape)}; got "
            f"{tuple(v.shape)}"
        )
    return v


def _positive(v: Any, xp: Any, name: str) -> None:
    ok = v > 0 if isinstance(v, float) else bool(xp.all(v > 0))
    if not ok:
        raise ValueError(f"{name} must be > 0 everywhere; got a value <= 0")


def _xlogy(a: Any, b: Any, xp: Any) -> Any:
    """:math:`a\\log b`, 0 where a == 0 (even if b == 0), -inf where only b is 0."""
    safe = xp.where(a == 0, xp.ones_like(b), b)
    with np.errstate(divide="ignore"):
        return xp.where(a == 0, xp.zeros_like(b), a * xp.log(safe))


# --- A.1 discrete distributions from a table ------------------------------------------


def joint_from_counts(counts: Any) -> Any:
    """A joint distribution from a table of counts: ``counts / counts.sum()``.

    counts : (a, b) non-negative array -> (a, b) array summing to 1.

    Book: §A.1, Table T.A.1 and the joint p(r=2, w=3) = 8/100 (lines 6869-6881).

    >>> joint_from_counts(LOTTERY_COUNTS)[2, 1]
    np.float64(0.08)
    """
    c = as_float_array(counts, "counts")
    xp = array_namespace(c)
    if c.ndim < 1 or bool(xp.any(c < 0)) or not bool(xp.sum(c) > 0):
        raise ValueError(
            "counts must be a non-empty array of non-negative numbers with a positive "
            f"total; got shape {tuple(c.shape)}"
        )
    return c / xp.sum(c)


def marginal(joint: Any, axis: int) -> Any:
    r"""Sum rule (E.A.2): sum the joint over the variable on ``axis``.

    joint : (a, b) -> (b,) for ``axis=0`` or (a,) for ``axis=1``. For the lottery
    table (rows w, columns r), ``marginal(joint, axis=1)`` is :math:`p(w)`.

    Book: §A.1, eq. E.A.2 (line 6893).

    >>> marginal(joint_from_counts(LOTTERY_COUNTS), axis=1).round(6).tolist()
    [0.6, 0.3, 0.1]
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    if j.ndim != 2:
        raise ValueError(f"joint must have shape (a, b); got {tuple(j.shape)}")
    return xp.sum(j, axis=axis)


def conditional(joint: Any, given_axis: int) -> Any:
    r"""Product rule (E.A.1) solved for the conditional: divide the joint by the
    marginal of the variable on ``given_axis``.

    joint : (a, b). ``given_axis=0`` gives :math:`p(\text{col} \mid \text{row})`
    (each row sums to 1); ``given_axis=1`` gives :math:`p(\text{row} \mid
    \text{col})` (each column sums to 1). Conditioning on an event of probability 0
    is undefined and raises.

    Book: §A.1, :math:`p(r=1 \mid w=3) = 0.2` and eq. E.A.1 (lines 6883-6889).

    >>> conditional(joint_from_counts(LOTTERY_COUNTS), 0)[2].round(6).tolist()
    [0.2, 0.8]
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    if j.ndim != 2 or given_axis not in (0, 1, -1, -2):
        raise ValueError(
            f"expected joint (a, b) and given_axis 0 or 1; got {tuple(j.shape)}, "
            f"{given_axis!r}"
        )
    given = given_axis % 2
    m = xp.sum(j, axis=1 - given, keepdims=True)  # p(given)
    if bool(xp.any(m == 0)):
        raise ValueError("cannot condition on an event of probability 0")
    return j / m


def bayes(likelihood: Any, prior: Any) -> Any:
    r"""Bayes' rule (E.A.3): :math:`p(h \mid o) = p(o \mid h)p(h) / \sum_{h'}
    p(o \mid h')p(h')` for hypotheses h on the last axis.

    likelihood : (..., k) array, :math:`p(o \mid h)` for each hypothesis h;
    prior : (k,) array on the simplex -> (..., k) posterior, summing to 1 on the last
    axis.

    Book: §A.1, eq. E.A.3 and "try it" (lines 6895-6899).

    >>> bayes(np.array([2 / 87, 8 / 13]), np.array([0.87, 0.13])).round(6).tolist()
    [0.2, 0.8]
    """
    lik = as_float_array(likelihood, "likelihood")
    xp = array_namespace(lik)
    pr = as_float_array(prior, "prior")
    if pr.ndim != 1 or lik.ndim < 1 or lik.shape[-1] != pr.shape[0]:
        raise ValueError(
            f"expected likelihood (..., k) and prior (k,); got {tuple(lik.shape)} and "
            f"{tuple(pr.shape)}"
        )
    num = lik * pr
    den = xp.sum(num, axis=-1, keepdims=True)  # the evidence p(o)
    if bool(xp.any(den == 0)):
        raise ValueError(
            "the evidence sum_h p(o|h)p(h) is 0: the observation is impossible"
        )
    return num / den


def is_independent(joint: Any, atol: float = 1e-12) -> bool:
    r"""True when :math:`p(a, b) = p(a)p(b)` for every cell (up to ``atol``).

    Book: §A.1, independence (line 6891).

    >>> is_independent(joint_from_counts(LOTTERY_COUNTS))
    False
    """
    j = as_float_array(joint, "joint")
    xp = array_namespace(j)
    outer = xp.sum(j, axis=1)[:, None] * xp.sum(j, axis=0)[None, :]
    return bool(xp.all(xp.abs(j - outer) <= atol))


# --- A.2 densities and CDFs -----------------------------------------------------------


def numeric_cdf(pdf_values: Any, x: Any) -> Any:
    r"""The CDF :math:`P(x) = \int_{-\infty}^{x} p(t)\,dt` by the trapezoid rule on a
    grid whose left end is far enough out that the mass below it is negligible.

    pdf_values, x : (m,) arrays, x increasing -> (m,), starting at 0.

    The book writes the lower limit as 0, which is right only for non-negative
    variables (erratum, line 6905).

    Book: §A.2 (lines 6903-6907).

    >>> t = np.linspace(0.0, 1.0, 5)
    >>> numeric_cdf(np.ones(5), t).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    p = as_float_array(pdf_values, "pdf_values")
    xp = array_namespace(p)
    t = as_float_array(x, "x")
    if p.ndim != 1 or tuple(p.shape) != tuple(t.shape) or p.shape[0] < 2:
        raise ValueError(
            f"pdf_values and x must both have shape (m,), m >= 2; got "
            f"{tuple(p.shape)} and {tuple(t.shape)}"
        )
    dx = t[1:] - t[:-1]
    if bool(xp.any(dx <= 0)):
        raise ValueError("x must be strictly increasing")
    pieces = 0.5 * (p[1:] + p[:-1]) * dx  # (m-1,) trapezoids
    zero = xp.zeros((1,), dtype=p.dtype, device=device_of(p))
    return xp.concat([zero, xp.cumulative_sum(pieces)])


# --- A.3 common distributions ---------------------------------------------------------


def bernoulli_logpmf(x: Any, p: Any) -> Any:
    r""":math:`\log\mathrm{Bern}(x; p) = x\log p + (1-x)\log(1-p)`, with 0 log 0 = 0.

    x : (n,) array of 0s and 1s; p : a number in [0, 1] or an (n,) array -> (n,).

    Book: §A.3, the Bernoulli distribution (lines 6921-6923).

    >>> np.exp(bernoulli_logpmf(np.array([1, 0]), 0.3)).tolist()
    [0.3, 0.7]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if not bool(xp.all((x == 0) | (x == 1))):
        raise ValueError("x must hold only 0s and 1s")
    p = _param(p, x, "p")
    if isinstance(p, float):
        p = xp.full(x.shape, p, dtype=x.dtype, device=device_of(x))
    if not bool(xp.all((p >= 0) & (p <= 1))):
        raise ValueError("p must lie in [0, 1]")
    return _xlogy(x, p, xp) + _xlogy(1 - x, 1 - p, xp)


def categorical_logpmf(x: Any, p: Any) -> Any:
    r""":math:`\log\mathrm{Cat}(\mathbf{x}; \mathbf{p}) = \sum_i x_i\log p_i` for
    one-hot :math:`\mathbf{x}`, with 0 log 0 = 0 (never the NaN of a naive
    ``sum(x * log(p))``).

    x : (n, k) one-hot array; p : (k,) (one distribution for every row) or (n, k)
    (one per row), rows on the simplex -> (n,).

    Book: §A.3, eq. of Cat (line 6919); §3.2.2, the categorical model (lines 1252-1256).

    >>> categorical_logpmf(np.array([[0, 1, 0]]), np.array([0.2, 0.5, 0.3])).round(6)
    array([-0.693147])
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    p = as_float_array(p, "p")
    if (
        x.ndim != 2
        or p.shape[-1:] != x.shape[-1:]
        or p.ndim not in (1, 2)
        or (p.ndim == 2 and tuple(p.shape) != tuple(x.shape))
    ):
        raise ValueError(
            f"expected one-hot x (n, k) and p (k,) or (n, k); got {tuple(x.shape)} and "
            f"{tuple(p.shape)}"
        )
    if not bool(xp.all((x == 0) | (x == 1))) or not bool(
        xp.all(xp.sum(x, axis=1) == 1)
    ):
        raise ValueError("x must be one-hot: 0s and 1s with exactly one 1 per row")
    if p.ndim == 1:
        p = xp.broadcast_to(p[None, :], x.shape)  # one distribution, n draws
    if bool(xp.any(p < 0)):
        raise ValueError("probabilities must be >= 0")
    return xp.sum(_xlogy(x, p, xp), axis=1)


def categorical_pmf(x: Any, p: Any) -> Any:
    r""":math:`\prod_i p_i^{x_i}`, which for one-hot :math:`\mathbf{x}` picks the
    probability of the observed class; computed as ``exp(categorical_logpmf)``.

    x : (n, k) one-hot; p : (k,) or (n, k) -> (n,).

    Book: §3.2.2 (line 1254); §A.3 (line 6919).

    >>> categorical_pmf(np.array([[0, 0, 1]]), np.array([0.2, 0.5, 0.3])).tolist()
    [0.3]
    """
    xp = array_namespace(categorical_logpmf(x, p))
    return xp.exp(categorical_logpmf(x, p))


def categorical_nll(y: Any, probs: Any) -> Any:
    r"""The categorical pseudo-loss :math:`-\log f_{y}(x)` of every example.

    A gather, not a product of powers: the probability of the observed class is picked
    with a mask, then its log taken. A zero probability on the observed class gives
    :math:`+\infty` (the model said it was impossible); zeros elsewhere cost nothing.

    Parameters
    ----------
    y : (n,) integer labels in ``0..k-1``, or (n, k) one-hot rows.
    probs : (n, k) predicted probabilities (rows on the simplex).

    Returns
    -------
    (n,) array in ``probs``' dtype.

    Book: §3.2.2-3.2.3, eqs. of the categorical model and E.3.7 (lines 1254, 1280).

    >>> categorical_nll(np.array([1]), np.array([[0.5, 0.25, 0.25]])).round(6).tolist()
    [1.386294]
    """
    probs = as_float_array(probs, "probs")
    xp = array_namespace(probs)
    if probs.ndim != 2:
        raise ValueError(f"probs must have shape (n, k); got {tuple(probs.shape)}")
    n, k = probs.shape
    if y.ndim == 2:
        if tuple(y.shape) != (n, k):
            raise ValueError(
                f"one-hot y must have shape {(n, k)}; got {tuple(y.shape)}"
            )
        if not bool(xp.all(xp.sum(xp.astype(y == 1, xp.int64), axis=1) == 1)):
            raise ValueError("one-hot y must hold exactly one 1 per row")
        picked = y == 1
    elif y.ndim == 1 and y.shape[0] == n and xp.isdtype(y.dtype, "integral"):
        if bool(xp.any((y < 0) | (y >= k))):
            raise ValueError(f"labels must lie in 0..{k - 1}")
        picked = y[:, None] == xp.arange(k, device=device_of(probs))[None, :]
    else:
        raise ValueError(
            f"y must be (n,) = ({n},) integer labels or (n, k) one-hot; got shape "
            f"{tuple(y.shape)} and dtype {y.dtype}"
        )
    p_true = xp.sum(xp.where(picked, probs, xp.zeros_like(probs)), axis=1)  # gather
    with np.errstate(divide="ignore"):
        return -xp.log(p_true)


def normal_logpdf(x: Any, mu: Any = 0.0, var: Any = 1.0) -> Any:
    r""":math:`\log\mathcal{N}(x; \mu, \sigma^2) = -\tfrac12\log(2\pi\sigma^2) -
    \frac{(x-\mu)^2}{2\sigma^2}`, elementwise.

    x : (...) array; mu, var (the *variance* :math:`\sigma^2`): numbers or arrays of
    x's shape -> (...).

    Book: §A.3, the Gaussian density (line 6927).

    >>> float(normal_logpdf(np.array(0.0), 0.0, 1.0))  # -log sqrt(2 pi)
    -0.9189385332046727
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    mu = _param(mu, x, "mu")
    var = _param(var, x, "var")
    _positive(var, xp, "var")
    log_var = math.log(var) if isinstance(var, float) else xp.log(var)
    return -0.5 * (LOG_2PI + log_var) - (x - mu) ** 2 / (2 * var)


def normal_pdf(x: Any, mu: Any = 0.0, var: Any = 1.0) -> Any:
    r""":math:`\mathcal{N}(x; \mu, \sigma^2)`; above 1 when :math:`\sigma` is small.

    Book: §A.3 (line 6927) and §A.2, "densities are not constrained to be less than
    one" (line 6913).

    >>> round(float(normal_pdf(np.array(0.0), 0.0, 0.01)), 4)
    3.9894
    """
    xp = array_namespace(normal_logpdf(x, mu, var))
    return xp.exp(normal_logpdf(x, mu, var))


def gaussian_nll(y: Any, f: Any, min_var: float = 1e-6) -> Any:
    r"""The Gaussian pseudo-loss of eq. E.3.6: :math:`-\log\mathcal{N}(y \mid f_1,
    f_2^2) = \tfrac12\log(2\pi v) + \frac{(y - f_1)^2}{2v}` with
    :math:`v = \max(f_2^2, \text{min\_var})`.

    The model's second output is squared so the variance is never negative; the loss is
    therefore even in :math:`f_2` (its sign is not identifiable). The floor keeps it
    finite as :math:`f_2 \to 0`. A softplus or log-variance output are the common
    alternatives to squaring.

    Parameters
    ----------
    y : (n,) targets; f : (n, 2) model outputs (mean, square root of the variance);
    min_var : float > 0, the variance floor.

    Returns
    -------
    (n,) array.

    Book: §3.2.2, eq. E.3.6 (lines 1256-1260).

    >>> round(float(gaussian_nll(np.array([0.3]), np.array([[0.1, -0.7]]))[0]), 5)
    0.60308
    """
    y = as_float_array(y, "y")
    xp = array_namespace(y)
    f = as_float_array(f, "f")
    if y.ndim != 1 or tuple(f.shape) != (y.shape[0], 2):
        raise ValueError(
            f"expected y (n,) and f (n, 2); got {tuple(y.shape)} and {tuple(f.shape)}"
        )
    if not (float(min_var) > 0):
        raise ValueError(f"min_var must be > 0; got {min_var!r}")
    mean, s = f[:, 0], f[:, 1]
    v = xp.maximum(s * s, xp.full_like(s, float(min_var)))
    return 0.5 * (LOG_2PI + xp.log(v)) + (y - mean) ** 2 / (2 * v)


def mvn_logpdf(x: Any, mu: Any, Sigma: Any) -> Any:
    r"""Log-density of the multivariate Gaussian,
    :math:`-\tfrac{k}{2}\log 2\pi - \tfrac12\log\det\Sigma -
    \tfrac12(\mathbf{x}-\mu)^\top\Sigma^{-1}(\mathbf{x}-\mu)`.

    Through the Cholesky factor :math:`\Sigma = LL^\top`: one triangular solve gives the
    Mahalanobis term, :math:`\log\det\Sigma = 2\sum_i\log L_{ii}`; no inverse, no
    determinant that could overflow. The book's formula lacks the :math:`-\tfrac12` in
    the exponent (erratum, line 6933).

    Parameters
    ----------
    x : (k,) or (n, k); mu : (k,); Sigma : (k, k) symmetric positive definite.

    Returns
    -------
    () or (n,) array.

    Book: §A.3, the multivariate Gaussian (lines 6929-6933).

    >>> round(float(mvn_logpdf(np.zeros(2), np.zeros(2), np.eye(2))), 6)
    -1.837877
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    mu = as_float_array(mu, "mu")
    S = as_float_array(Sigma, "Sigma")
    k = mu.shape[0] if mu.ndim == 1 else -1
    if k < 1 or tuple(S.shape) != (k, k) or x.ndim not in (1, 2) or x.shape[-1] != k:
        raise ValueError(
            f"expected x (k,) or (n, k), mu (k,), Sigma (k, k); got {tuple(x.shape)}, "
            f"{tuple(mu.shape)}, {tuple(S.shape)}"
        )
    if not bool(xp.all(xp.abs(S - S.T) <= 1e-10 * (1 + xp.max(xp.abs(S))))):
        raise ValueError("Sigma must be symmetric")
    try:
        L = xp.linalg.cholesky(S)
    except (np.linalg.LinAlgError, RuntimeError):
        L = None
    if L is None or not bool(xp.all(xp.isfinite(L))):
        raise ValueError("Sigma must be positive definite (its Cholesky factor failed)")
    diff = x - mu  # (n, k) or (k,)
    z = xp.linalg.solve(L, diff.T if diff.ndim == 2 else diff[:, None])  # (k, n)
    maha = xp.sum(z * z, axis=0)  # (n,)
    logdet = 2 * xp.sum(xp.log(xp.linalg.diagonal(L)))
    out = -0.5 * (k * LOG_2PI + logdet + maha)
    return out if x.ndim == 2 else out[0]


def mvn_sample(mu: Any, Sigma: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    r"""n draws :math:`\mu + L\mathbf{z}`, :math:`\mathbf{z} \sim \mathcal{N}(0, I)`,
    on the host: mu (k,), Sigma (k, k) -> (n, k) NumPy array.

    Book: §A.3 (lines 6929-6939).

    >>> mvn_sample([0.0, 0.0], np.eye(2), 3, np.random.default_rng(0)).shape
    (3, 2)
    """
    mu = to_numpy(as_float_array(mu, "mu"))
    L = np.linalg.cholesky(to_numpy(as_float_array(Sigma, "Sigma")))
    return mu + rng.standard_normal((check_int(n, "n", low=0), mu.shape[0])) @ L.T


# --- A.4 moments and Monte Carlo ------------------------------------------------------


def expectation(fx: Any, p: Any) -> Any:
    r"""E.A.6: :math:`\mathbb{E}_{p(x)}[f(x)] = \sum_x f(x)p(x)`.

    fx : (k,) values of f at the k outcomes; p : (k,) their probabilities -> ().

    Book: §A.4, eq. E.A.6 (line 6947).

    >>> float(expectation(np.array([1.0, 2.0, 3.0]), np.array([0.6, 0.3, 0.1])))
    1.5
    """
    fx = as_float_array(fx, "fx")
    xp = array_namespace(fx)
    p = as_float_array(p, "p")
    if fx.ndim != 1 or tuple(p.shape) != tuple(fx.shape):
        raise ValueError(
            f"fx and p must both have shape (k,); got {tuple(fx.shape)} and "
            f"{tuple(p.shape)}"
        )
    return xp.sum(fx * p)


def moment(values: Any, p: Any, order: int) -> Any:
    r"""The moment of order p, :math:`\mathbb{E}[x^p] = \sum_x x^p p(x)`
    (order 1 is the mean).

    Book: §A.4 (lines 6949-6951).

    >>> round(float(moment(np.array([1.0, 2.0, 3.0]), np.array([0.6, 0.3, 0.1]), 2)), 6)
    2.7
    """
    v = as_float_array(values, "values")
    return expectation(v ** int(order), p)


@dataclass(frozen=True)
class MCEstimate:
    """A Monte Carlo average: ``mean``, its standard error ``stderr`` (sample std /
    sqrt(n), 0 when n == 1) and the number of samples ``n``."""

    mean: float
    stderr: float
    n: int


def mc_expectation(f: Callable[[Any], Any], samples: Any) -> MCEstimate:
    r"""E.A.7: :math:`\mathbb{E}_{p(x)}[f(x)] \approx \frac1n\sum_i f(x_i)` with
    :math:`x_i \sim p(x)`, plus the standard error that shrinks like :math:`1/\sqrt n`.

    f : function mapping the (n, ...) samples to (n,) values; samples : (n, ...) draws.

    Book: §A.4, eq. E.A.7 (lines 6955-6959).

    >>> mc_expectation(lambda x: x, np.array([1.0, 2.0, 3.0])).mean
    2.0
    """
    s = as_float_array(samples, "samples")
    xp = array_namespace(s)
    if s.ndim < 1 or s.shape[0] == 0:
        raise ValueError(
            f"samples must have shape (n, ...) with n >= 1; got {tuple(s.shape)}"
        )
    v = f(s)
    if tuple(v.shape) != (s.shape[0],):
        raise ValueError(
            f"f must map the samples to shape ({s.shape[0]},); got {tuple(v.shape)}"
        )
    n = s.shape[0]
    mean = float(xp.mean(v))
    sd = float(xp.std(v, correction=1)) if n > 1 else 0.0
    return MCEstimate(mean, sd / math.sqrt(n), n)


def running_mean(values: Any) -> Any:
    r"""The Monte Carlo estimate after each sample: :math:`\frac1t\sum_{i\le t}v_i`,
    t = 1..n. values : (n,) -> (n,).

    >>> running_mean(np.array([1.0, 3.0, 2.0])).tolist()
    [1.0, 2.0, 2.0]
    """
    v = as_float_array(values, "values")
    xp = array_namespace(v)
    if v.ndim != 1:
        raise ValueError(f"values must have shape (n,); got {tuple(v.shape)}")
    t = xp.arange(1, v.shape[0] + 1, dtype=v.dtype, device=device_of(v))
    return xp.cumulative_sum(v) / t


# --- A.5 entropy and KL divergence ----------------------------------------------------


def _simplex_pair(p: Any, q: Any) -> tuple[Any, Any, Any]:
    p = as_float_array(p, "p")
    xp = array_namespace(p)
    q = as_float_array(q, "q")
    if p.ndim != 1 or tuple(p.shape) != tuple(q.shape):
        raise ValueError(
            f"p and q must both have shape (k,); got {tuple(p.shape)} and "
            f"{tuple(q.shape)}"
        )
    for name, v in (("p", p), ("q", q)):
        if bool(xp.any(v < 0)) or not bool(xp.abs(xp.sum(v) - 1) <= 1e-9):
            raise ValueError(f"{name} must lie on the simplex (>= 0, summing to 1)")
    return xp, p, q


def entropy(p: Any) -> Any:
    r"""Shannon entropy :math:`-\sum_i p_i\log p_i` in nats, with 0 log 0 = 0.

    p : (k,) on the simplex -> ().

    >>> round(float(entropy(np.array([0.5, 0.5, 0.0]))), 6)
    0.693147
    """
    xp, p, _ = _simplex_pair(p, p)
    return -xp.sum(_xlogy(p, p, xp))


def kl_discrete(p: Any, q: Any) -> Any:
    r""":math:`\mathrm{KL}(p \,\Vert\, q) = \sum_i p_i\log\frac{p_i}{q_i}`, with
    :math:`0\log\frac{0}{q} = 0` and :math:`+\infty` when some :math:`q_i = 0 < p_i`
    (the support of p is not inside that of q).

    p, q : (k,) on the simplex -> ().

    Book: §A.5 (lines 6963-6967).

    >>> float(kl_discrete(np.array([0.5, 0.5]), np.array([1.0, 0.0])))
    inf
    """
    xp, p, q = _simplex_pair(p, q)
    return xp.sum(_xlogy(p, p, xp) - _xlogy(p, q, xp))


def kl_normal(mu1: float, var1: float, mu2: float, var2: float) -> float:
    r"""Closed form :math:`\mathrm{KL}(\mathcal{N}(\mu_1, \sigma_1^2) \,\Vert\,
    \mathcal{N}(\mu_2, \sigma_2^2)) = \log\frac{\sigma_2}{\sigma_1} +
    \frac{\sigma_1^2 + (\mu_1-\mu_2)^2}{2\sigma_2^2} - \frac12` (not in the book;
    used to test :func:`kl_mc`).

    >>> round(kl_normal(0.0, 1.0, 1.0, 4.0), 6)
    0.443147
    """
    if not (var1 > 0 and var2 > 0):
        raise ValueError(f"variances must be > 0; got {var1!r} and {var2!r}")
    return 0.5 * math.log(var2 / var1) + (var1 + (mu1 - mu2) ** 2) / (2 * var2) - 0.5


def kl_mc(
    logp: Callable[[Any], Any], logq: Callable[[Any], Any], samples: Any
) -> MCEstimate:
    r"""KL as an expectation, estimated by Monte Carlo (E.A.7):
    :math:`\mathrm{KL}(p\Vert q) \approx \frac1n\sum_i \log p(x_i) - \log q(x_i)` with
    :math:`x_i \sim p`. Works with log-densities throughout.

    logp, logq : functions (n, ...) -> (n,); samples : (n, ...) draws from p.

    Book: §A.5, "it can be estimated via Monte Carlo sampling" (line 6967).
    """
    return mc_expectation(lambda s: logp(s) - logq(s), samples)


# --- A.6 and §3.2.3 maximum likelihood ------------------------------------------------


def log_likelihood(logpdf: Callable[..., Any], data: Any, *params: Any) -> Any:
    r""":math:`L(s) = \sum_i \log f(x_i; s)`: always a sum of logs, never the log of a
    product (which underflows to :math:`\log 0 = -\infty` for large n).

    logpdf : ``logpdf(data, *params)`` -> (n,); data : (n, ...) -> ().

    Book: §A.6 (lines 6973-6977); §3.2.3, eq. E.3.7 (lines 1276-1280).

    >>> float(log_likelihood(bernoulli_logpmf, np.array([1, 1, 0]), 0.5)).__round__(6)
    -2.079442
    """
    lp = logpdf(data, *params)
    xp = array_namespace(lp)
    return xp.sum(lp)


def gaussian_loglik(x: Any, mu: Any, var: Any) -> Any:
    r"""The Gaussian log-likelihood as the book writes it,
    :math:`L(\mu, \sigma^2) = -\frac n2\log(2\pi\sigma^2) - \frac{1}{2\sigma^2}
    \sum_i (x_i - \mu)^2`.

    x : (n,); mu, var : numbers or () arrays -> ().

    Book: §A.6, "Maximum likelihood for the Gaussian distribution" (line 7001).

    >>> round(float(gaussian_loglik(np.array([0.0, 0.0]), 0.0, 1.0)), 6)
    -1.837877
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1:
        raise ValueError(f"x must have shape (n,); got {tuple(x.shape)}")
    mu, var = _param(mu, x[0], "mu"), _param(var, x[0], "var")
    _positive(var, xp, "var")
    n = x.shape[0]
    log_var = math.log(var) if isinstance(var, float) else xp.log(var)
    return -0.5 * n * (LOG_2PI + log_var) - xp.sum((x - mu) ** 2) / (2 * var)


def mle_bernoulli(x: Any) -> Any:
    r"""The Bernoulli ML estimate :math:`p^* = \frac1n\sum_i x_i`, the fraction of ones.

    x : (n,) 0s and 1s -> ().

    Book: §A.6 (line 6993).

    >>> float(mle_bernoulli(np.array([1, 0, 1, 1])))
    0.75
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1 or x.shape[0] == 0 or not bool(xp.all((x == 0) | (x == 1))):
        raise ValueError("x must be a non-empty (n,) array of 0s and 1s")
    return xp.mean(x)


def mle_gaussian(x: Any, ddof: int = 0) -> tuple[Any, Any]:
    r"""ML estimates E.A.8-E.A.9, :math:`\mu^* = \frac1n\sum_i x_i` and
    :math:`\sigma^{2*} = \frac{1}{n - \text{ddof}}\sum_i(x_i-\mu^*)^2`; ``ddof=0`` is
    the ML (biased) variance, ``ddof=1`` Bessel's correction.

    x : (n,) -> ``(mu, var)``, two () arrays.

    Book: §A.6, eqs. E.A.8-E.A.9 and Bessel's correction (lines 7003-7009).

    >>> [float(v) for v in mle_gaussian(np.array([1.0, 3.0]))]
    [2.0, 1.0]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1 or x.shape[0] <= int(ddof):
        raise ValueError(
            f"x must have shape (n,) with n > ddof={ddof}; got {tuple(x.shape)}"
        )
    mu = xp.mean(x)
    return mu, xp.sum((x - mu) ** 2) / (x.shape[0] - int(ddof))


def fit_gaussian_gd(x: Any, *, lr: float = 0.5, steps: int = 200, init=(0.0, 0.0)):
    r"""Maximum likelihood for a Gaussian by gradient descent on the negative mean
    log-likelihood, in the parameters :math:`(\mu, s = \log\sigma^2)` (so the variance
    stays positive whatever the step).

    With :math:`r_i = x_i - \mu`, the gradient of
    :math:`J = \tfrac12\log 2\pi + \tfrac s2 + \frac{1}{2n e^s}\sum_i r_i^2` is
    :math:`\partial_\mu J = -\bar r / e^s` and
    :math:`\partial_s J = \tfrac12 - \overline{r^2} / (2e^s)`.

    x : (n,) data; init : starting :math:`(\mu, s)`. Returns ``(mu, var, result)``
    with the :class:`alice_lab.optim.GDResult` of the run.

    Book: §A.6, "we can maximize the objective through gradient descent" (line 6987).

    >>> mu, var, _ = fit_gaussian_gd(np.array([1.0, 3.0]), steps=300)
    >>> round(float(mu), 4), round(float(var), 4)
    (2.0, 1.0)
    """
    from alice_lab.optim import gradient_descent

    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1 or x.shape[0] == 0:
        raise ValueError(f"x must have shape (n,) with n >= 1; got {tuple(x.shape)}")

    def grad(theta):
        mu, s = theta[0], theta[1]
        r = x - mu
        inv_var = xp.exp(-s)
        return xp.stack([-xp.mean(r) * inv_var, 0.5 - 0.5 * xp.mean(r * r) * inv_var])

    theta0 = xp.asarray(
        [float(init[0]), float(init[1])], dtype=x.dtype, device=device_of(x)
    )
    res = gradient_descent(grad, theta0, lr=lr, steps=steps)
    return res.x[0], xp.exp(res.x[1]), res


# --- §3.3 Bayesian learning -----------------------------------------------------------


def grid_argmax(objective: Any, grid: Any) -> Any:
    r"""The grid point with the largest objective: ML with a log-likelihood (E.3.7),
    MAP with log-likelihood + log-prior (E.3.12).

    objective, grid : (G,) -> ().

    Book: §3.2.3 (line 1274) and §3.3, eqs. E.3.11-E.3.12 (lines 1304-1308).

    >>> float(grid_argmax(np.array([0.0, 2.0, 1.0]), np.array([0.1, 0.2, 0.3])))
    0.2
    """
    o = as_float_array(objective, "objective")
    xp = array_namespace(o)
    g = as_float_array(grid, "grid")
    if o.ndim != 1 or tuple(g.shape) != tuple(o.shape) or o.shape[0] == 0:
        raise ValueError(
            f"objective and grid must both have shape (G,), G >= 1; got "
            f"{tuple(o.shape)} and {tuple(g.shape)}"
        )
    return g[xp.argmax(o)]


def grid_posterior(log_lik: Any, log_prior: Any) -> Any:
    r"""Bayes on a grid of G models, in log space:
    :math:`\log p(f_g \mid S) = \ell_g + \log p(f_g) - \mathrm{logsumexp}_h(\ell_h +
    \log p(f_h))`. The logsumexp is the log-evidence :math:`\log p(S)` restricted to
    the grid; the result's exponentials sum to 1.

    log_lik, log_prior : (G,) (unnormalised is fine; -inf allowed) -> (G,).

    For sequential updating pass the previous log-posterior as ``log_prior``.

    Book: §3.3, eq. E.3.8 and the evidence (lines 1292-1296); sequential updating
    (line 1312).

    >>> np.exp(grid_posterior(np.array([-1e3, -1e3]), np.zeros(2))).round(6).tolist()
    [0.5, 0.5]
    """
    ll = as_float_array(log_lik, "log_lik")
    xp = array_namespace(ll)
    lp = as_float_array(log_prior, "log_prior")
    if ll.ndim != 1 or tuple(lp.shape) != tuple(ll.shape) or ll.shape[0] == 0:
        raise ValueError(
            f"log_lik and log_prior must both have shape (G,), G >= 1; got "
            f"{tuple(ll.shape)} and {tuple(lp.shape)}"
        )
    s = ll + lp
    log_evidence = logsumexp(s, axis=0)
    if not bool(xp.isfinite(log_evidence)):
        raise ValueError(
            "the unnormalised posterior is 0 (or inf/NaN) at every grid point; "
            "widen the grid or check the likelihood"
        )
    return s - log_evidence


def _counts(data: Any) -> tuple[int, int]:
    x = to_numpy(data)
    if x.ndim != 1 or not np.all((x == 0) | (x == 1)):
        raise ValueError(f"data must be a (n,) array of 0s and 1s; got shape {x.shape}")
    return int(x.sum()), int(x.shape[0])


def beta_bernoulli_posterior(a: float, b: float, data: Any) -> tuple[float, float]:
    r"""Conjugate update: a Beta(a, b) prior and h ones in n Bernoulli draws give the
    posterior Beta(a + h, b + n - h). Integers in, integers out.

    Book: §3.3, closed-form posteriors for special prior/likelihood pairs (line 1302).

    >>> beta_bernoulli_posterior(1, 1, np.array([1, 1, 0]))
    (3, 2)
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"Beta parameters must be > 0; got a={a!r}, b={b!r}")
    h, n = _counts(data)
    return a + h, b + n - h


def map_beta_bernoulli(a: float, b: float, heads: int, n: int) -> float:
    r"""MAP of a Bernoulli parameter under a Beta(a, b) prior, the mode of
    Beta(a + h, b + n - h): :math:`\frac{h + a - 1}{n + a + b - 2}`. With a = b = 1
    (uniform prior) it is the ML estimate h/n.

    Book: §3.3, eqs. E.3.11-E.3.12 and "uniform prior gives ML" (lines 1304-1310).

    >>> map_beta_bernoulli(1, 1, 3, 4)
    0.75
    """
    if not (a >= 1 and b >= 1 and 0 <= heads <= n and n + a + b - 2 > 0):
        raise ValueError(
            "need a, b >= 1, 0 <= heads <= n and n + a + b > 2 for an interior mode; "
            f"got a={a}, b={b}, heads={heads}, n={n}"
        )
    return (heads + a - 1) / (n + a + b - 2)


def normal_mean_posterior(
    mu0: float, var0: float, var: float, data: Any
) -> tuple[float, float]:
    r"""Conjugate update for the mean of a Gaussian with known variance
    :math:`\sigma^2`: a prior :math:`\mathcal{N}(\mu_0, \tau_0^2)` and n draws give
    :math:`\mathcal{N}(\mu_n, \tau_n^2)` with
    :math:`1/\tau_n^2 = 1/\tau_0^2 + n/\sigma^2` and
    :math:`\mu_n = \tau_n^2(\mu_0/\tau_0^2 + \sum_i x_i/\sigma^2)`.

    Returns ``(mu_n, var_n)`` as floats.

    Book: §3.3, closed-form posteriors (line 1302).

    >>> normal_mean_posterior(0.0, 1.0, 1.0, np.array([2.0]))
    (1.0, 0.5)
    """
    if not (var0 > 0 and var > 0):
        raise ValueError(f"variances must be > 0; got var0={var0!r}, var={var!r}")
    x = to_numpy(data).astype(np.float64)
    if x.ndim != 1:
        raise ValueError(f"data must have shape (n,); got {x.shape}")
    prec = 1.0 / var0 + x.shape[0] / var
    var_n = 1.0 / prec
    return float(var_n * (mu0 / var0 + x.sum() / var)), float(var_n)


def mc_predictive(lik_fn: Callable[[Any], Any], posterior_samples: Any) -> Any:
    r"""The Bayesian predictive by Monte Carlo,
    :math:`p(y \mid x) \approx \frac1k\sum_{i=1}^k p(y \mid f_i(x))` with
    :math:`f_i \sim p(f \mid S_n)`: a plain average, since the posterior weighting is
    already in how the samples were drawn.

    The book's E.3.10 multiplies each term by :math:`p(f_i \mid S_n)` as well, which
    counts the posterior twice (erratum; see claim E3-02).

    lik_fn : maps the (k, ...) samples to (k, ...) likelihoods :math:`p(y \mid f_i(x))`;
    posterior_samples : (k, ...) -> (...).

    Book: §3.3, eqs. E.3.9-E.3.10 (lines 1296-1302).

    >>> float(mc_predictive(lambda t: t, np.array([0.2, 0.4, 0.9])))
    0.5
    """
    lik = lik_fn(posterior_samples)
    xp = array_namespace(lik)
    if lik.ndim < 1 or lik.shape[0] != posterior_samples.shape[0]:
        raise ValueError(
            "lik_fn must return one likelihood per sample, shape "
            f"({posterior_samples.shape[0]}, ...); got {tuple(lik.shape)}"
        )
    return xp.mean(lik, axis=0)
