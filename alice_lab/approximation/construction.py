r"""From one neuron to a staircase (§B.1-B.3): a sigmoid with a huge slope is a step
(E.B.1), two opposite steps make a bin (E.B.2), and ``m`` bins whose heights are the
averages of a target over each bin make a staircase (E.B.3). The sigmoid is
:func:`alice_lab.functional.sigmoid`, exported here as the same function: computed from
:math:`e^{-|x|}`, it never overflows, even with slopes like :math:`w = 10^4`.

Book: Appendix B (lines 7011-7087).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.approximation._checks import _domain, _like, _number
from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    device_of,
)
from alice_lab.functional import sigmoid  # the library's one sigmoid, from e^{-|x|}

__all__ = [
    "CONVENTIONS",
    "bin_averages",
    "bin_fn",
    "bins",
    "box",
    "neuron",
    "sigmoid",
    "staircase",
    "step",
]


#: where the m bin centres go on [lo, hi] (see :func:`bins`)
CONVENTIONS = ("linspace", "mid", "book")


def neuron(x: Any, a: float, w: float, s: float) -> Any:
    r"""One hidden neuron of E.B.1, :math:`f(x) = a\,\sigma(w(x - s))`.

    x : any shape -> same shape. ``a`` is the amplitude, ``w`` the slope, ``s`` the
    centre; the book's first form :math:`a\sigma(wx + b)` is the same neuron with bias
    :math:`b = -ws`. As ``w`` grows it tends to :func:`step`.

    Book: Appendix B §B.1, E.B.1 (lines 7026-7034).

    >>> float(neuron(0.3, a=2.0, w=1e4, s=0.3))
    1.0
    """
    x = as_float_array(x, "x")
    a, w, s = _number(a, "a"), _number(w, "w"), _number(s, "s")
    return a * sigmoid(w * (x - s))


def step(x: Any, a: float = 1.0, s: float = 0.0) -> Any:
    r"""The step that :func:`neuron` tends to as :math:`w \to \infty`: 0 for x < s,
    ``a`` for x > s and ``a/2`` at x = s (where every sigmoid neuron equals a/2).

    x : any shape -> same shape.

    Book: Appendix B §B.1 (line 7038); the indicator :math:`\mathbb{I}_{s\ge0}` of §5.4.

    >>> step([0.0, 0.3, 1.0], a=2.0, s=0.3).tolist()
    [0.0, 1.0, 2.0]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    a, s = _number(a, "a"), _number(s, "s")
    up = xp.astype(x > s, x.dtype) + 0.5 * xp.astype(x == s, x.dtype)
    return a * up


def _bin(x: Any, a: Any, lo: Any, hi: Any, w: float) -> Any:
    """a σ(w(x - lo)) - a σ(w(x - hi)), unchecked (``a``, ``lo``, ``hi`` may be 0-d)."""
    return a * (sigmoid(w * (x - lo)) - sigmoid(w * (x - hi)))


def bin_fn(x: Any, a: float, s: float, delta: float, w: float = 1e4) -> Any:
    r"""The "bin" of E.B.2: two neurons of opposite amplitude,

    .. math::
        f(x; a, s, \Delta) = a\,\sigma(w(x - s + \Delta/2))
                           - a\,\sigma(w(x - s - \Delta/2)),

    about ``a`` on :math:`[s - \Delta/2, s + \Delta/2]`, ``a/2`` at its edges and
    about 0 elsewhere. x : any shape -> same shape.

    Book: Appendix B §B.2, E.B.2 (lines 7050-7056).

    >>> round(float(bin_fn(0.5, a=3.0, s=0.5, delta=0.2)), 6)
    3.0
    """
    x = as_float_array(x, "x")
    a, s = _number(a, "a"), _number(s, "s")
    delta = _number(delta, "delta", positive=True)
    w = _number(w, "w", positive=True)
    return _bin(x, a, s - delta / 2, s + delta / 2, w)


def box(x: Any, a: float, s: float, delta: float) -> Any:
    r"""The limit of :func:`bin_fn` as :math:`w \to \infty`: ``a`` inside
    :math:`(s - \Delta/2, s + \Delta/2)`, ``a/2`` on its two edges, 0 outside.

    x : any shape -> same shape.

    Book: Appendix B §B.2 (line 7054).

    >>> box([0.0, 0.4, 0.5, 0.6], a=1.0, s=0.5, delta=0.2).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    delta = _number(delta, "delta", positive=True)
    s = _number(s, "s")
    return step(x, a, s - delta / 2) - step(x, a, s + delta / 2)


def bins(
    m: int, domain: tuple[float, float] = (0.0, 1.0), convention: str = "linspace"
) -> tuple[np.ndarray, float]:
    r"""Centres ``(m,)`` and common width :math:`\Delta` of m equal bins on ``domain``.

    - ``"linspace"``: centres ``linspace(lo, hi, m)``, :math:`\Delta = (hi-lo)/(m-1)`;
      the end bins stick out by half a bin. This is the grid that reproduces the
      numbers of Figure F.B.3 (needs m >= 2).
    - ``"mid"``: centres :math:`lo + (i - \tfrac12)\Delta`, :math:`\Delta = (hi-lo)/m`,
      i = 1..m: the bins tile the domain exactly.
    - ``"book"``: centres :math:`lo + i\Delta`, i = 1..m, as printed at line 7066; the
      bins cover :math:`[lo + \Delta/2, hi + \Delta/2]`, leaving the first half bin of
      the domain uncovered (an erratum).

    Book: Appendix B §B.3, bins :math:`B_i` (lines 7064-7068).

    >>> bins(4, (0.0, 1.0), "mid")[0].tolist()
    [0.125, 0.375, 0.625, 0.875]
    """
    m = check_int(m, "m")
    lo, hi = _domain(domain)
    if convention == "linspace":
        if m < 2:
            raise ValueError(f"the 'linspace' convention needs m >= 2 bins; got m={m}")
        return np.linspace(lo, hi, m), (hi - lo) / (m - 1)
    if convention == "mid":
        delta = (hi - lo) / m
        return lo + (np.arange(1, m + 1) - 0.5) * delta, delta
    if convention == "book":
        delta = (hi - lo) / m
        return lo + np.arange(1, m + 1) * delta, delta
    raise ValueError(f"convention must be one of {CONVENTIONS}; got {convention!r}")


def bin_averages(g: Callable, centers: Any, delta: float, *, nodes: int = 16) -> Any:
    r"""The heights of E.B.3, :math:`g_i = \frac{1}{\Delta}\int_{B_i} g(x)\,dx`.

    centers : (m,) array -> (m,) in the same namespace. ``g`` must accept an (m, q)
    array of that namespace. Each integral is a ``nodes``-point Gauss-Legendre rule on
    the whole bin (exact for polynomials of degree 2·nodes - 1), all bins in one call.

    Book: Appendix B §B.3, bin averages (line 7070).

    >>> import numpy as np
    >>> bin_averages(lambda x: x**2, np.array([0.5]), 1.0).round(6).tolist()
    [0.333333]
    """
    centers = as_float_array(centers, "centers")
    xp = array_namespace(centers)
    if centers.ndim != 1 or centers.shape[0] == 0:
        raise ValueError(f"centers must have shape (m,); got {tuple(centers.shape)}")
    delta = _number(delta, "delta", positive=True)
    q = check_int(nodes, "nodes")
    t, wts = np.polynomial.legendre.leggauss(q)  # nodes and weights on [-1, 1]
    dev = device_of(centers)
    t = xp.asarray(t, dtype=centers.dtype, device=dev)
    wts = xp.asarray(wts, dtype=centers.dtype, device=dev)
    X = xp.reshape(centers, (-1, 1)) + (delta / 2) * xp.reshape(t, (1, -1))  # (m, q)
    G = g(X)
    if tuple(G.shape) != tuple(X.shape):
        raise ValueError(
            f"g must map an (m, q) array to the same shape; got {tuple(G.shape)} "
            f"for {tuple(X.shape)}"
        )
    return xp.sum(G * wts, axis=1) / 2  # (1/Δ)·(Δ/2)·Σ_k w_k g(x_k)


def staircase(x: Any, centers: Any, delta: float, heights: Any, w: float = 1e4) -> Any:
    r"""E.B.3 as the book writes it: the sum of m bins,
    :math:`f(x) = \sum_{i=1}^m f(x; g_i, c_i, \Delta)`.

    x : any shape -> same shape; centers, heights : (m,) (NumPy, lists, or x's
    namespace). One bin at a time, so memory stays O(size of x) whatever m is; the
    network form :func:`staircase_forward` computes the same numbers through an (N, 2m)
    hidden layer.

    Book: Appendix B §B.3, E.B.3 (lines 7070-7074).

    >>> round(float(staircase(0.25, [0.25, 0.75], 0.5, [2.0, -1.0])), 6)
    2.0
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    delta = _number(delta, "delta", positive=True)
    w = _number(w, "w", positive=True)
    c = _like(centers, x, xp, "centers")
    if c.ndim != 1 or c.shape[0] == 0:
        raise ValueError(f"centers must have shape (m,) with m >= 1; got {c.shape}")
    h = _like(heights, x, xp, "heights", shape=tuple(c.shape))
    out = xp.zeros_like(x)
    for i in range(c.shape[0]):
        out = out + _bin(x, h[i], c[i] - delta / 2, c[i] + delta / 2, w)
    return out
