r"""Bayesian learning: posteriors on a grid (normalised with logsumexp), the
conjugate Beta-Bernoulli and normal-mean posteriors, the MAP estimate, and the
predictive distribution by Monte Carlo over posterior samples.

Book: §3.3, "Bayesian learning" (lines 1284-1312).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array, to_numpy
from alice_lab.functional import logsumexp

__all__ = [
    "beta_bernoulli_posterior",
    "grid_argmax",
    "grid_posterior",
    "map_beta_bernoulli",
    "mc_predictive",
    "normal_mean_posterior",
]


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
    counts the posterior twice (erratum; see claim E3-01).

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
