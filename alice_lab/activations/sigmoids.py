r"""Sigmoid-like activations: the sigmoid (with a slope), tanh and the softplus,
with their derivatives. The sigmoid and the softplus never evaluate :math:`\exp` of a
large positive number: they split on the sign and use :math:`e^{-|s|}`. The sigmoid
itself is :func:`alice_lab.functional.sigmoid` (chapter 4 defines it, chapter 5 adds
the slope), exported here as the same function.

Book: §5.4 (lines 2414-2600).
"""

from __future__ import annotations

from typing import Any

from alice_lab.activations._helpers import _neg_abs
from alice_lab.backend import array_namespace, as_float_array
from alice_lab.functional import sigmoid  # the one sigmoid, σ(as) with its slope

__all__ = [
    "sigmoid",
    "sigmoid_grad",
    "softplus",
    "softplus_grad",
    "tanh",
    "tanh_grad",
]


def sigmoid_grad(s: Any, slope: float = 1.0) -> Any:
    r""":math:`a\,\sigma(as)(1 - \sigma(as))`.

    >>> sigmoid_grad([0.0]).tolist()
    [0.25]
    """
    sig = sigmoid(s, slope)
    return slope * sig * (1.0 - sig)


def tanh(s: Any) -> Any:
    r""":math:`\tanh(s) = 2\sigma(2s) - 1`, in (-1, 1). The book prints
    :math:`2\sigma(s) - 1` (line 2450), which is :math:`\tanh(s/2)`.

    Book: §5.4 (lines 2446-2450).

    >>> round(float(tanh(1.0)), 6)
    0.761594
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.tanh(s)


def tanh_grad(s: Any) -> Any:
    """:math:`1 - \\tanh^2(s)`.

    >>> tanh_grad([0.0]).tolist()
    [1.0]
    """
    t = tanh(s)
    return 1.0 - t * t


def softplus(s: Any) -> Any:
    r""":math:`\log(1 + e^{s})`, as :math:`\max(s, 0) + \log(1 + e^{-|s|})`.

    Written as printed it overflows for s > 709 (float64) or 88.7 (float32). Always
    positive, :math:`\mathrm{softplus}(0) = \log 2`, and its derivative is
    :math:`\sigma(s)`.

    Book: §5.4, E.5.10 (lines 2468-2474).

    >>> softplus([0.0, 1000.0]).round(6).tolist()
    [0.693147, 1000.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    tail = xp.log1p(xp.exp(_neg_abs(s, xp)))
    return xp.where(s >= 0, s + tail, tail)


def softplus_grad(s: Any) -> Any:
    """:math:`\\sigma(s)`.

    >>> softplus_grad([0.0]).tolist()
    [0.5]
    """
    return sigmoid(s)
