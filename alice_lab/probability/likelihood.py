r"""Maximum likelihood: the log-likelihood of a data set (a sum of
log-probabilities, never a product), the closed-form estimates for the Bernoulli and
the Gaussian, and the Gaussian fitted by gradient descent.

Book: Appendix A.6, "Maximum likelihood estimation" (lines 6969-7009); §3.2.3
(lines 1262-1282).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace, as_float_array, device_of
from alice_lab.probability._helpers import LOG_2PI, _param, _positive

__all__ = [
    "fit_gaussian_gd",
    "gaussian_loglik",
    "log_likelihood",
    "mle_bernoulli",
    "mle_gaussian",
]


def log_likelihood(logpdf: Callable[..., Any], data: Any, *params: Any) -> Any:
    r""":math:`L(s) = \sum_i \log f(x_i; s)`: always a sum of logs, never the log of a
    product (which underflows to :math:`\log 0 = -\infty` for large n).

    logpdf : ``logpdf(data, *params)`` -> (n,); data : (n, ...) -> ().

    Book: §A.6 (lines 6973-6977); §3.2.3, eq. E.3.7 (lines 1276-1280).

    >>> from alice_lab.probability import bernoulli_logpmf
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
