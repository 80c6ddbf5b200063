r"""Universal approximation in one dimension: steps, bins and staircases of sigmoids.

Appendix B proves Cybenko's theorem for one input and one output by building the
network by hand. One hidden sigmoid neuron with a huge slope is a step,
:math:`a\,\sigma(w(x - s))` (E.B.1); two opposite steps make a "bin", a function
equal to :math:`a` on :math:`[s - \Delta/2, s + \Delta/2]` and zero elsewhere (E.B.2);
and ``m`` bins whose heights are the averages of a target :math:`g` over each bin give a
staircase that approximates :math:`g` as closely as wanted (E.B.3), with ``2m`` hidden
neurons.

The staircase is written here twice, so that the two can be compared:

- :func:`staircase` is the book's sum of bins, one bin at a time;
- :func:`mlp_weights` writes the same model as a one-hidden-layer network,
  :math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)\mathbf{W}_2`, with explicit
  weights, evaluated by :func:`mlp_forward` (any backend) or loaded into a
  ``torch.nn.Sequential`` by :func:`torch_sequential`.

Parameters of a construction (bin centres, heights) are small host-side NumPy arrays;
everything evaluated on inputs ``x`` is written against the Python array API and
returns the caller's array type on the caller's device.

Book: Appendix B (lines 7011-7087).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from array_api_compat import is_array_api_obj

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    device_of,
    to_numpy,
)

__all__ = [
    "CONVENTIONS",
    "MLPWeights",
    "Staircase",
    "bin_approximation",
    "bin_averages",
    "bin_fn",
    "bins",
    "box",
    "hidden_units",
    "loglog_slope",
    "mlp_forward",
    "mlp_weights",
    "mse",
    "mse_on_grid",
    "neuron",
    "sigmoid",
    "sin_over_x",
    "staircase",
    "step",
    "torch_sequential",
]

#: where the m bin centres go on [lo, hi] (see :func:`bins`)
CONVENTIONS = ("linspace", "mid", "book")


# --- checks ------------------------------------------------------------------------


def _number(value: Any, name: str, *, positive: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number; got {value!r}") from None
    if not math.isfinite(v) or (positive and v <= 0):
        need = "a finite number > 0" if positive else "a finite number"
        raise ValueError(f"{name} must be {need}; got {value!r}")
    return v


def _domain(domain: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in domain)
    except (TypeError, ValueError):
        raise ValueError(f"domain must be a pair (lo, hi); got {domain!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"domain must be finite with lo < hi; got {domain!r}")
    return lo, hi


def _like(v: Any, x: Any, xp: Any, name: str, shape: tuple | None = None) -> Any:
    """Parameter ``v`` in ``x``'s namespace: lists and numbers join ``x``
    (:func:`~alice_lab.backend.as_float_array` with ``like=x``); an array of another
    library (the construction's host NumPy parameters) is copied to ``x``'s library,
    dtype and device; an array of ``x``'s library is kept (a tensor keeps its
    ``requires_grad``)."""
    if is_array_api_obj(v) and array_namespace(v) is not xp:
        v = xp.asarray(to_numpy(v), dtype=x.dtype, device=device_of(x))
    v = as_float_array(v, name, like=x)
    if shape is not None and tuple(v.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}; got {tuple(v.shape)}")
    return v


def _vector(v: Any, name: str) -> np.ndarray:
    """A host (m,) float64 vector of finite numbers."""
    out = np.asarray(to_numpy(v), dtype=np.float64)
    if out.ndim != 1 or out.shape[0] == 0:
        raise ValueError(f"{name} must have shape (m,) with m >= 1; got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} contains NaN or inf")
    return out


# --- one neuron: a step (§B.1) ------------------------------------------------------


def sigmoid(x: Any) -> Any:
    r"""The logistic sigmoid :math:`\sigma(x) = 1 / (1 + e^{-x})`, elementwise.

    x : any shape -> same shape. Computed from :math:`e^{-|x|}` on both branches
    (:math:`1/(1+e^{-|x|})` for x >= 0, :math:`e^{-|x|}/(1+e^{-|x|})` otherwise), so no
    exponential can overflow: with slopes like :math:`w = 10^4` the naive formula
    overflows ``exp`` for every x far left of the step.

    Book: Appendix B, E.B.1 (line 7032); the sigmoid of §5.4.

    >>> import numpy as np; sigmoid(np.array([-1e5, 0.0, 1e5])).tolist()
    [0.0, 0.5, 1.0]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


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


# --- two neurons: a bin (§B.2) ------------------------------------------------------


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


# --- m bins: the staircase (§B.3) --------------------------------------------------


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
    network form :func:`mlp_forward` computes the same numbers through an (N, 2m)
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


# --- the same staircase as a one-hidden-layer network ------------------------------


@dataclass(frozen=True, eq=False)
class MLPWeights:
    r"""Weights of :math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)\mathbf{W}_2`
    (one input, 2m hidden sigmoids, one output, no output bias), book layout.

    Attributes
    ----------
    W1 : (1, 2m) array, every entry the slope w.
    b1 : (2m,) array, :math:`-w(c_i \mp \Delta/2)`: neuron 2i rises at the left edge
        of bin i, neuron 2i+1 at its right edge.
    W2 : (2m, 1) array, :math:`+g_i` and :math:`-g_i`.

    ``torch.nn.Linear`` stores the transposes (``weight`` is (out, in)).
    """

    W1: Any
    b1: Any
    W2: Any

    @property
    def hidden_units(self) -> int:
        return int(self.b1.shape[0])

    @property
    def n_params(self) -> int:
        """2m + 2m + 2m = 6m (no output bias)."""
        return sum(math.prod(a.shape) for a in (self.W1, self.b1, self.W2))


def mlp_weights(centers: Any, delta: float, heights: Any, w: float = 1e4) -> MLPWeights:
    r"""The staircase E.B.3 written as the weights of a one-hidden-layer network.

    centers, heights : (m,) -> :class:`MLPWeights` in the namespace of ``heights``
    (W1 (1, 2m), b1 (2m,), W2 (2m, 1)). Bin i becomes two neurons,
    :math:`+g_i\sigma(w x - w(c_i - \Delta/2))` and
    :math:`-g_i\sigma(w x - w(c_i + \Delta/2))`.

    Book: Appendix B §B.3, "a network with 2m neurons in the hidden layer" (line 7072).

    >>> mlp_weights([0.5], 1.0, [2.0], w=10.0).b1.tolist()
    [-0.0, -10.0]
    """
    heights = as_float_array(heights, "heights")
    xp = array_namespace(heights)
    if heights.ndim != 1 or heights.shape[0] == 0:
        raise ValueError(f"heights must have shape (m,); got {tuple(heights.shape)}")
    m = heights.shape[0]
    c = _like(centers, heights, xp, "centers", shape=(m,))
    delta = _number(delta, "delta", positive=True)
    w = _number(w, "w", positive=True)
    edges = xp.stack([c - delta / 2, c + delta / 2], axis=1)  # (m, 2)
    W1 = xp.full((1, 2 * m), w, dtype=heights.dtype, device=device_of(heights))
    b1 = -w * xp.reshape(edges, (2 * m,))
    W2 = xp.reshape(xp.stack([heights, -heights], axis=1), (2 * m, 1))
    return MLPWeights(W1, b1, W2)


def mlp_forward(x: Any, W1: Any, b1: Any, W2: Any) -> Any:
    r"""The network :math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)\mathbf{W}_2`.

    x : (N,) one input per example -> (N,); W1 (1, k), b1 (k,), W2 (k, 1), moved to
    x's namespace if needed. The hidden layer is an (N, k) array.

    Book: Appendix B, the one-hidden-layer model of line 7026 with k neurons.

    >>> p = mlp_weights([0.5], 0.2, [3.0])
    >>> mlp_forward([0.0, 0.5, 1.0], p.W1, p.b1, p.W2).round(6).tolist()
    [0.0, 3.0, 0.0]
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    if x.ndim != 1:
        raise ValueError(f"x must have shape (N,), one input per row; got {x.shape}")
    b1 = _like(b1, x, xp, "b1")
    if b1.ndim != 1:
        raise ValueError(f"b1 must have shape (k,); got {tuple(b1.shape)}")
    k = b1.shape[0]
    W1 = _like(W1, x, xp, "W1", shape=(1, k))
    W2 = _like(W2, x, xp, "W2", shape=(k, 1))
    H = sigmoid(xp.reshape(x, (-1, 1)) @ W1 + b1)  # (N, 1) @ (1, k) + (k) -> (N, k)
    return xp.reshape(H @ W2, (-1,))  # (N, k) @ (k, 1) -> (N,)


def torch_sequential(weights: MLPWeights, dtype: Any = None) -> Any:
    r"""A ``torch.nn.Sequential(Linear(1, 2m), Sigmoid(), Linear(2m, 1, bias=False))``
    carrying ``weights``: the staircase as an ordinary PyTorch model.

    Takes (N, 1) inputs and returns (N, 1). ``dtype`` defaults to float64.

    Book: Appendix B §B.3 (line 7072).
    """
    import torch

    dtype = torch.float64 if dtype is None else dtype
    W1, b1, W2 = (
        torch.as_tensor(to_numpy(a), dtype=dtype)
        for a in (weights.W1, weights.b1, weights.W2)
    )
    k = b1.shape[0]
    model = torch.nn.Sequential(
        torch.nn.Linear(1, k, dtype=dtype),
        torch.nn.Sigmoid(),
        torch.nn.Linear(k, 1, bias=False, dtype=dtype),
    )
    with torch.no_grad():
        model[0].weight.copy_(W1.T)  # (1, k) -> (k, 1) = (out, in)
        model[0].bias.copy_(b1)
        model[2].weight.copy_(W2.T)  # (k, 1) -> (1, k)
    return model


@dataclass(frozen=True, eq=False)
class Staircase:
    """A binned approximation of a target on ``domain``; call it on x like a function.

    Attributes: ``centers`` (m,) and ``heights`` (m,) NumPy arrays, the bin width
    ``delta``, the slope ``w``, the ``domain`` and the centre ``convention``.
    """

    centers: np.ndarray
    delta: float
    heights: np.ndarray
    w: float
    domain: tuple[float, float]
    convention: str

    @property
    def m(self) -> int:
        return int(self.centers.shape[0])

    @property
    def hidden_units(self) -> int:
        """Two neurons per bin."""
        return 2 * self.m

    def __call__(self, x: Any) -> Any:
        return staircase(x, self.centers, self.delta, self.heights, self.w)

    def weights(self) -> MLPWeights:
        """The same model as explicit network weights (NumPy)."""
        return mlp_weights(self.centers, self.delta, self.heights, self.w)


def bin_approximation(
    g: Callable,
    m: int,
    *,
    domain: tuple[float, float] = (0.0, 1.0),
    convention: str = "linspace",
    heights: str = "average",
    w: float = 1e4,
) -> Staircase:
    r"""Bin ``g`` into m bins on ``domain`` and return the staircase E.B.3.

    ``heights="average"`` uses the bin averages :math:`g_i` of line 7070 (over the
    whole bin, so ``g`` must be defined half a bin beyond the domain with the
    ``"linspace"`` convention); ``"center"`` uses :math:`g(c_i)`. ``g`` takes NumPy
    arrays. See :func:`bins` for the conventions.

    Book: Appendix B §B.3, E.B.3 (lines 7064-7074).

    >>> bin_approximation(np.cos, 5, domain=(0.0, 3.0)).hidden_units
    10
    """
    centers, delta = bins(m, domain, convention)
    if heights == "average":
        h = np.asarray(bin_averages(g, centers, delta), dtype=np.float64)
    elif heights == "center":
        h = np.asarray(g(centers), dtype=np.float64)
    else:
        raise ValueError(f"heights must be 'average' or 'center'; got {heights!r}")
    h = _vector(h, "the heights g_i (is g finite on every bin?)")
    w = _number(w, "w", positive=True)
    return Staircase(centers, delta, h, w, _domain(domain), convention)


# --- measuring the error -----------------------------------------------------------


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
