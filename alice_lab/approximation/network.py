r"""The staircase as a one-hidden-layer network,
:math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)\mathbf{W}_2`, with explicit weights
(:func:`mlp_weights`), evaluated on any backend (:func:`staircase_forward`, which is
chapter 5's :func:`alice_lab.layers.mlp_forward` in the appendix's layout) or loaded
into a ``torch.nn.Sequential`` (:func:`torch_sequential`); :func:`bin_approximation`
builds the whole construction for a target function.

Book: Appendix B (lines 7011-7087).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab._compat import renamed
from alice_lab.approximation._checks import _domain, _like, _number, _vector
from alice_lab.approximation.construction import bin_averages, bins, staircase
from alice_lab.backend import (
    array_namespace,
    as_float_array,
    device_of,
    to_numpy,
)
from alice_lab.layers import mlp_forward as _mlp_forward

__all__ = [
    "MLPWeights",
    "Staircase",
    "bin_approximation",
    "mlp_weights",
    "staircase_forward",
    "torch_sequential",
]


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


def staircase_forward(x: Any, W1: Any, b1: Any, W2: Any) -> Any:
    r"""The staircase network :math:`f(x) = \sigma(x\mathbf{W}_1 + \mathbf{b}_1)
    \mathbf{W}_2`: one input, one hidden layer of sigmoids, one output, no output bias.

    x : (N,) one input per example -> (N,); W1 (1, k), b1 (k,), W2 (k, 1), moved to
    x's namespace if needed. It is chapter 5's :func:`alice_lab.layers.mlp_forward`
    with ``phi="sigmoid"`` on the column ``x[:, None]`` and a zero output bias, in the
    appendix's layout (the weights of :func:`mlp_weights`, no bias to carry).

    Book: Appendix B, the one-hidden-layer model of line 7026 with k neurons.

    >>> p = mlp_weights([0.5], 0.2, [3.0])
    >>> staircase_forward([0.0, 0.5, 1.0], p.W1, p.b1, p.W2).round(6).tolist()
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
    no_bias = xp.zeros((1,), dtype=W2.dtype, device=device_of(x))
    params = [{"W": W1, "b": b1}, {"W": W2, "b": no_bias}]
    out = _mlp_forward(params, xp.reshape(x, (-1, 1)), phi="sigmoid")  # (N, 1)
    return xp.reshape(out, (-1,))


#: the name before ``staircase_forward``, for one release (appendix B's notebook)
mlp_forward = renamed(
    "alice_lab.approximation.mlp_forward",
    staircase_forward,
    "alice_lab.approximation.staircase_forward",
    "alice_lab.layers.mlp_forward is chapter 5's MLP",
)


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
