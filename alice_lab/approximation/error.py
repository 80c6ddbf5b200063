r"""Measuring the approximation error: the mean squared error on a grid, the slope of
the error against the number of bins on log-log axes, the hidden units a staircase
needs, and the test target :math:`\sin(x)/x`.

Book: Appendix B (lines 7011-7087).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.approximation._checks import _domain
from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    device_of,
    to_numpy,
)

__all__ = ["hidden_units", "loglog_slope", "mse", "mse_on_grid", "sin_over_x"]


def mse(y_hat: Any, y: Any) -> Any:
    r"""Mean squared error :math:`\frac1N\sum_j (\hat y_j - y_j)^2` -> () array.

    y_hat, y : (N,) arrays of the same shape and namespace (no broadcasting).

    >>> float(mse(np.array([1.0, 2.0]), np.array([1.0, 4.0])))
    2.0
    """
    xp = array_namespace(y_hat, y)
    if tuple(y_hat.shape) != tuple(y.shape):
        raise ValueError(
            f"mse needs two arrays of the same shape; got {tuple(y_hat.shape)} "
            f"and {tuple(y.shape)}"
        )
    return xp.mean((y_hat - y) ** 2)


def mse_on_grid(
    f: Callable,
    g: Callable,
    domain: tuple[float, float],
    *,
    n: int = 100_001,
    like: Any = None,
) -> float:
    r"""The average squared error of ``f`` against ``g`` on ``n`` equispaced points of
    ``domain``, ends included (the "average squared error" of Figure F.B.3).

    The grid is NumPy float64, or in the namespace, dtype and device of ``like``.

    Book: Appendix B, Figure F.B.3 (lines 7078-7084).

    >>> mse_on_grid(lambda x: x, lambda x: 0 * x, (0.0, 1.0), n=3)
    0.4166666666666667
    """
    lo, hi = _domain(domain)
    n = check_int(n, "n", low=2)
    if like is None:
        x = np.linspace(lo, hi, n)
    else:
        xp = array_namespace(like)
        x = xp.linspace(lo, hi, n, dtype=like.dtype, device=device_of(like))
    return float(mse(f(x), g(x)))


def loglog_slope(ms: Any, errors: Any) -> float:
    r"""Least-squares slope of log(error) against log(m): the p of error ∝ m^p.

    ms, errors : (k,) positive, k >= 2 -> float.

    >>> round(loglog_slope([10, 20, 40], [1e-2, 2.5e-3, 6.25e-4]), 6)
    -2.0
    """
    m = to_numpy(as_float_array(ms, "ms"))
    e = to_numpy(as_float_array(errors, "errors"))
    if m.ndim != 1 or m.shape != e.shape or m.shape[0] < 2:
        raise ValueError(
            f"ms and errors must both be (k,) with k >= 2; got {m.shape}, {e.shape}"
        )
    if not (np.all(m > 0) and np.all(e > 0)):
        raise ValueError("ms and errors must be positive to take logarithms")
    return float(np.polyfit(np.log(m), np.log(e), 1)[0])


def hidden_units(m: int, d: int = 1) -> int:
    r"""Hidden neurons of the binning construction: m bins per axis gives
    :math:`m^d` bins in d dimensions, two neurons per bin in 1-D, so at least
    :math:`2m^d`: exponential in d.

    Book: Appendix B, outline step 3 (lines 7020-7022).

    >>> [hidden_units(10, d) for d in (1, 2, 3)]
    [20, 200, 2000]
    """
    return 2 * check_int(m, "m") ** check_int(d, "d")


def sin_over_x(x: Any) -> Any:
    r""":math:`g(x) = \sin(x)/x` with its limit :math:`g(0) = 1`, elementwise (the
    target of Figure F.B.3). No division by zero is ever evaluated.

    >>> sin_over_x([0.0, np.pi]).round(12).tolist()
    [1.0, 0.0]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    zero = x == 0
    safe = xp.where(zero, xp.ones_like(x), x)
    return xp.where(zero, xp.ones_like(x), xp.sin(safe) / safe)
