r"""Self-gated activations :math:`s\,\beta(s)`: the GELU (gate
:math:`\Phi(s)`), the SiLU and Swish (gate :math:`\sigma(\beta s)`) and a trainable
Swish, with derivatives.

The GELU needs the Gaussian CDF :math:`\Phi(s) = \tfrac12\mathrm{erfc}(-s/\sqrt2)`,
which the array API lacks; :func:`erfc` computes it from a 28-term Chebyshev expansion
(Numerical Recipes, 3rd ed., §6.2.2) accurate to a few units in the last place, so one
body of code serves NumPy, torch, JAX and array-api-strict alike.

Book: §5.4 (lines 2414-2600).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.activations._helpers import _check_alpha, _neg_abs, _no_neg_inf, _zeros
from alice_lab.activations.sigmoids import sigmoid
from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "erfc",
    "gelu",
    "gelu_grad",
    "normal_cdf",
    "silu",
    "silu_grad",
    "swish",
    "trainable_swish",
    "trainable_swish_grads",
]


# Numerical Recipes (3rd ed., §6.2.2): erfc(z) = t exp(-z^2 + P(t)), t = 2 / (2 + z)
_ERFC_COF = (
    -1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2,
    -9.561514786808631e-3, -9.46595344482036e-4, 3.66839497852761e-4,
    4.2523324806907e-5, -2.0278578112534e-5, -1.624290004647e-6,
    1.303655835580e-6, 1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9,
    5.059343495e-9, -9.91364156e-10, -2.27365122e-10, 9.6467911e-11,
    2.394038e-12, -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13,
    3.81e-16, 7.106e-15, -1.523e-15, -9.4e-17, 1.21e-16, -2.8e-17,
)  # fmt: skip


def erfc(x: Any) -> Any:
    r"""The complementary error function :math:`1 - \mathrm{erf}(x)`, from a Chebyshev
    expansion in :math:`t = 2/(2 + |x|)` (absolute error below 1e-15 in float64).

    >>> round(float(erfc(0.5)), 12)
    0.479500122187
    """
    x = as_float_array(x, "x")
    xp = array_namespace(x)
    z = -_neg_abs(x, xp)  # |x|
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d, dd = _zeros(x, xp), _zeros(x, xp)
    for c in _ERFC_COF[:0:-1]:  # Clenshaw recurrence
        d, dd = ty * d - dd + c, d
    tail = t * xp.exp(-z * z + 0.5 * (_ERFC_COF[0] + ty * d) - dd)
    return xp.where(x >= 0, tail, 2.0 - tail)


def normal_cdf(s: Any) -> Any:
    r"""The standard Gaussian CDF :math:`\Phi(s) = \tfrac12\mathrm{erfc}(-s/\sqrt2)`
    (no cancellation in either tail).

    >>> round(float(normal_cdf(0.0)), 12)
    0.5
    """
    s = as_float_array(s, "s")
    return 0.5 * erfc(-s / math.sqrt(2.0))


def gelu(s: Any, approximate: bool = False) -> Any:
    r"""The Gaussian error linear unit :math:`s\,\Phi(s)`, or with
    ``approximate=True`` its tanh approximation
    :math:`\tfrac{s}{2}\big(1 + \tanh(\sqrt{2/\pi}(s + 0.044715 s^3))\big)` (PyTorch's
    ``approximate="tanh"``).

    Book: §5.4, the generalised ReLU :math:`s\,\beta(s)` with β the Gaussian CDF
    (lines 2494-2502).

    >>> round(float(gelu(1.0)), 6)
    0.841345
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    if approximate:
        inner = math.sqrt(2.0 / math.pi) * (s + 0.044715 * s**3)
        return 0.5 * _no_neg_inf(s, xp) * (1.0 + xp.tanh(inner))
    return _no_neg_inf(s, xp) * normal_cdf(s)


def gelu_grad(s: Any) -> Any:
    r""":math:`\Phi(s) + s\,\varphi(s)`, with φ the Gaussian density.

    >>> round(float(gelu_grad(0.0)), 6)
    0.5
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    finite = xp.where(xp.isinf(s), _zeros(s, xp), s)  # s φ(s) -> 0 at ±inf
    density = xp.exp(-0.5 * finite * finite) / math.sqrt(2.0 * math.pi)
    return normal_cdf(s) + finite * density


def swish(s: Any, beta: float = 1.0) -> Any:
    r""":math:`s\,\sigma(\beta s)`; β = 1 is the SiLU.

    Book: §5.4 (line 2502).

    >>> round(float(swish(1.0, beta=2.0)), 6)
    0.880797
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return _no_neg_inf(s, xp) * sigmoid(s, beta)


def silu(s: Any) -> Any:
    r"""The sigmoid linear unit (Swish) :math:`s\,\sigma(s)`.

    Book: §5.4, :math:`\beta(s) = \sigma(s)` (line 2502).

    >>> round(float(silu(1.0)), 6)
    0.731059
    """
    return swish(s, 1.0)


def silu_grad(s: Any) -> Any:
    r""":math:`\sigma(s)\big(1 + s(1 - \sigma(s))\big)`.

    >>> silu_grad([0.0]).tolist()
    [0.5]
    """
    s = as_float_array(s, "s")
    sig = sigmoid(s)
    return sig * (1.0 + s * (1.0 - sig))


def trainable_swish(s: Any, a: Any = 1.0, b: Any = 0.0, c: Any = 1.0, d: Any = 0.0):
    r""":math:`\sigma(as + b)(cs + d)`, four trainable numbers (scalars, or ``(c',)``
    arrays, one per unit). (1, 0, 1, 0) is the SiLU, (β, 0, 1, 0) the Swish-β, and
    a → ∞ with (b, c, d) = (0, 1, 0) tends to the ReLU.

    Book: §5.4, E.5.12 (lines 2566-2572).

    >>> round(float(trainable_swish(1.0)), 6)
    0.731059
    """
    s = as_float_array(s, "s")
    for p in (a, b, c, d):
        _check_alpha(s, p)
    return sigmoid(a * s + b) * (c * s + d)


def trainable_swish_grads(s: Any, a=1.0, b=0.0, c=1.0, d=0.0) -> dict[str, Any]:
    r"""Element-wise partial derivatives of :func:`trainable_swish`, as a dict with
    keys ``"s"``, ``"a"``, ``"b"``, ``"c"``, ``"d"``. With
    :math:`g = \sigma(as + b)` and :math:`l = cs + d`:
    :math:`\partial_s = a g(1-g) l + c g`, :math:`\partial_a = s g(1-g) l`,
    :math:`\partial_b = g(1-g) l`, :math:`\partial_c = s g`, :math:`\partial_d = g`.

    >>> trainable_swish_grads(np.array([0.0]))["d"].tolist()
    [0.5]
    """
    s = as_float_array(s, "s")
    g = sigmoid(a * s + b)
    lin = c * s + d
    gate = g * (1.0 - g) * lin
    return {"s": a * gate + c * g, "a": s * gate, "b": gate, "c": s * g, "d": g}
