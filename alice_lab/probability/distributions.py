r"""Densities and the common distributions, as log-probabilities: a numeric CDF
(A.2); Bernoulli, categorical, normal and multivariate normal (A.3); and the negative
log-likelihoods that turn them into losses for a network's outputs (§3.2.2).

Logs, never products; categorical and Bernoulli log-probabilities use the
:math:`0\log 0 = 0` convention of :func:`scipy.special.xlogy`;
:func:`gaussian_pseudo_loss` puts a floor under the predicted variance.

Book: Appendix A.2, "Real-valued distributions" (lines 6901-6914) and A.3, "Common
distributions" (lines 6915-6940); §3.2.2 (lines 1244-1260).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from alice_lab._compat import renamed
from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    check_labels,
    device_of,
    to_numpy,
)
from alice_lab.losses.regression import _gaussian_nll_terms
from alice_lab.probability._helpers import LOG_2PI, _param, _positive, _xlogy

__all__ = [
    "bernoulli_logpmf",
    "categorical_logpmf",
    "categorical_nll",
    "categorical_pmf",
    "gaussian_pseudo_loss",
    "mvn_logpdf",
    "mvn_sample",
    "normal_logpdf",
    "normal_pdf",
    "numeric_cdf",
]


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
        check_labels(y, k)
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


def gaussian_pseudo_loss(y: Any, f: Any, min_var: float = 1e-6) -> Any:
    r"""The pseudo-loss :math:`-\log p(y \mid f(x))` of the Gaussian model of eq.
    E.3.6, whose two outputs are the mean and the square root of the variance:
    :math:`-\log\mathcal{N}(y \mid f_1, f_2^2) = \tfrac12\log(2\pi v) +
    \frac{(y - f_1)^2}{2v}` with :math:`v = \max(f_2^2, \text{min\_var})`.

    This is :func:`alice_lab.losses.gaussian_nll` (E.4.2) per sample, with the mean
    and the variance read off the model's two outputs. The second output is squared
    so the variance is never negative; the loss is therefore even in :math:`f_2` (its
    sign is not identifiable). The floor keeps it finite as :math:`f_2 \to 0`. A
    softplus or log-variance output are the common alternatives to squaring.

    Parameters
    ----------
    y : (n,) targets; f : (n, 2) model outputs (mean, square root of the variance);
    min_var : float > 0, the variance floor.

    Returns
    -------
    (n,) array.

    Book: §3.2.2, eq. E.3.6 (lines 1256-1260); the "pseudo-loss" of line 1282.

    >>> y, f = np.array([0.3]), np.array([[0.1, -0.7]])
    >>> round(float(gaussian_pseudo_loss(y, f)[0]), 5)
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
    v = xp.maximum(s * s, xp.full_like(s, float(min_var)))  # > 0: no check to run
    return _gaussian_nll_terms(mean, y, v, xp.log(v))


#: the name before ``gaussian_pseudo_loss``, for one release (chapter 3's notebook)
gaussian_nll = renamed(
    "alice_lab.probability.gaussian_nll",
    gaussian_pseudo_loss,
    "alice_lab.probability.gaussian_pseudo_loss",
    "alice_lab.losses.gaussian_nll is E.4.2's, with a given variance",
)


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
