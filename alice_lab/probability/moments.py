r"""Moments and expected values, exact for a discrete distribution and by Monte
Carlo from samples, with the standard error of the estimate.

Book: Appendix A.4, "Moments and expected values" (lines 6941-6960).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace, as_float_array, device_of

__all__ = [
    "MCEstimate",
    "expectation",
    "mc_expectation",
    "moment",
    "running_mean",
]


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
