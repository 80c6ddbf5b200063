r"""Entropy and the Kullback-Leibler divergence between distributions: discrete,
between two normals in closed form, and by Monte Carlo.

Book: Appendix A.5, "Distance between distributions" (lines 6961-6968).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace, as_float_array
from alice_lab.probability._helpers import _xlogy
from alice_lab.probability.moments import MCEstimate, mc_expectation

__all__ = [
    "entropy",
    "kl_discrete",
    "kl_mc",
    "kl_normal",
]


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
