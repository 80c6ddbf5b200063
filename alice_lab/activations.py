r"""The activation functions of §5.4, their derivatives, and the gated layers of the
"Design variants" box, for any array backend.

Every function is element-wise unless it says otherwise, written once against the array
API, and safe at the extremes: the sigmoid and the softplus never evaluate
:math:`\exp` of a large positive number (they split on the sign and use
:math:`e^{-|s|}`), the ELU takes ``expm1`` of the negative part only, and NaN goes
in, NaN comes out. Derivatives sit next to each function (``relu_grad``, ...);
``tests/test_activations.py`` checks them against finite differences,
``torch.autograd``, ``jax.grad`` and ``torch.nn.functional``.

At a kink the derivative follows the book's case split: ``s >= 0`` takes the right
branch (LeakyReLU, PReLU, ELU), except for the ReLU, whose derivative at 0 is 0 as in
PyTorch and JAX (book, §6.4.4, line 3232).

The GELU needs the Gaussian CDF :math:`\Phi(s) = \tfrac12\mathrm{erfc}(-s/\sqrt2)`,
which the array API lacks; :func:`erfc` computes it from a 28-term Chebyshev expansion
(Numerical Recipes, 3rd ed., §6.2.2) accurate to a few units in the last place, so one
body of code serves NumPy, torch, JAX and array-api-strict alike.

Trainable activations come in two forms: functions of explicit parameters
(:func:`prelu`, :func:`trainable_swish`, :func:`apl`, :func:`kaf`, :func:`glu`,
:func:`swiglu`) and ``torch.nn.Module`` classes holding them (``PReLU``,
``TrainableSwish``, ``APL``, ``KAF``, ``GLU``, ``SwiGLU``), built on first access so
that importing this module does not import torch.

Book: §5.2, eq. E.5.5 (line 2250); §5.4 (lines 2414-2600); the "Design variants" box
(lines 2602-2630).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from alice_lab import functional
from alice_lab._compat import lazy_getattr
from alice_lab.backend import array_namespace, as_float_array, check_int

__all__ = [
    "ACTIVATIONS",
    "apl",
    "derivative",
    "elu",
    "elu_grad",
    "erfc",
    "gelu",
    "gelu_grad",
    "get",
    "glu",
    "heaviside",
    "heaviside_grad",
    "kaf",
    "leaky_relu",
    "leaky_relu_grad",
    "normal_cdf",
    "polynomial",
    "polynomial_grad",
    "prelu",
    "prelu_grad_alpha",
    "relu",
    "relu_grad",
    "sigmoid",
    "sigmoid_grad",
    "silu",
    "silu_grad",
    "softplus",
    "softplus_grad",
    "swiglu",
    "swish",
    "tanh",
    "tanh_grad",
    "trainable_swish",
    "trainable_swish_grads",
]

#: torch.nn.Module versions, built on first access (``activations.PReLU``)
TORCH_MODULES = ("APL", "GLU", "KAF", "PReLU", "SwiGLU", "TrainableSwish")


def _neg_abs(s: Any, xp: Any) -> Any:
    """:math:`-|s|`, written with ``where`` so that its derivative at 0 is -1 (the
    ``s >= 0`` branch), which keeps autodiff of the stable formulas exact at 0."""
    return xp.where(s >= 0, -s, s)


def _zeros(s: Any, xp: Any) -> Any:
    return xp.zeros_like(s)


def _no_neg_inf(s: Any, xp: Any) -> Any:
    r"""``s`` with -inf replaced by 0, for gates :math:`s\,\beta(s)` whose limit at
    -inf is 0 (the product itself would be -inf * 0 = NaN)."""
    return xp.where((s < 0) & xp.isinf(s), _zeros(s, xp), s)


# --- the ReLU family -----------------------------------------------------------------


def relu(s: Any) -> Any:
    r""":math:`\mathrm{ReLU}(s) = \max(0, s) = s\,\mathbb{I}_{s \ge 0}` (NaN stays NaN).

    Book: §5.2, eq. E.5.5 (line 2250); the gated form (line 2490).

    >>> relu([-1.0, 0.0, 2.0]).tolist()
    [0.0, 0.0, 2.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.where(s > 0, s, xp.where(xp.isnan(s), s, _zeros(s, xp)))


def relu_grad(s: Any) -> Any:
    """:math:`\\mathbb{I}_{s > 0}`: 1 for s > 0, 0 for s <= 0 (0 at the kink).

    >>> relu_grad([-1.0, 0.0, 2.0]).tolist()
    [0.0, 0.0, 1.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.astype(s > 0, s.dtype)


def heaviside(s: Any) -> Any:
    r"""The threshold neuron :math:`\mathbb{I}_{s \ge 0}` (1 at s = 0; NaN stays NaN).

    Book: §5.4, the historical threshold activation (line 2434).

    >>> heaviside([-0.5, 0.0, 3.0]).tolist()
    [0.0, 1.0, 1.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    step = xp.where(s >= 0, xp.ones_like(s), _zeros(s, xp))
    return xp.where(xp.isnan(s), s, step)


def heaviside_grad(s: Any) -> Any:
    """0 everywhere except at 0, where the step has no derivative (we return 0, what
    autodiff reports): gradient descent learns nothing through a step.

    >>> heaviside_grad([-1.0, 1.0]).tolist()
    [0.0, 0.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return _zeros(s, xp)


def leaky_relu(s: Any, alpha: float = 0.01) -> Any:
    r""":math:`s` for :math:`s \ge 0`, :math:`\alpha s` otherwise.

    Book: §5.4, eq. ``leaky_relu`` (lines 2458-2464); Figure F.5.4 draws α = 0.1.

    >>> leaky_relu([-2.0, 3.0], alpha=0.1).tolist()
    [-0.2, 3.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.where(s >= 0, s, alpha * s)


def leaky_relu_grad(s: Any, alpha: float = 0.01) -> Any:
    """1 for s >= 0, α otherwise: never exactly 0, so no unit can die.

    >>> leaky_relu_grad([-2.0, 3.0]).tolist()
    [0.01, 1.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.where(s >= 0, xp.ones_like(s), alpha * xp.ones_like(s))


def _check_alpha(s: Any, alpha: Any) -> None:
    if hasattr(alpha, "shape") and alpha.ndim > 0:
        c = s.shape[-1] if s.ndim else None
        if alpha.ndim != 1 or alpha.shape[0] not in (1, c):
            raise ValueError(
                f"alpha must be a scalar or have shape (c',) = ({c},), one slope per "
                f"unit of the last axis of s {tuple(s.shape)}; got {tuple(alpha.shape)}"
            )


def prelu(s: Any, alpha: Any) -> Any:
    r"""Parametric ReLU: a LeakyReLU whose slope is trained, one per unit.

    Parameters
    ----------
    s : (..., c') array, the pre-activations.
    alpha : scalar, or (c',) array of slopes (broadcast along the last axis).

    Book: §5.4, PReLU (line 2464).

    >>> prelu(np.array([[-1.0, -1.0]]), np.array([0.1, 0.2])).tolist()
    [[-0.1, -0.2]]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    _check_alpha(s, alpha)
    return xp.where(s >= 0, s, alpha * s)


def prelu_grad_alpha(s: Any) -> Any:
    r""":math:`\partial\,\mathrm{PReLU}/\partial\alpha = s\,\mathbb{I}_{s < 0}`,
    element-wise (sum it over the batch for a per-unit slope).

    >>> prelu_grad_alpha([-2.0, 3.0]).tolist()
    [-2.0, 0.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    return xp.where(s < 0, s, _zeros(s, xp))


def elu(s: Any, alpha: float = 1.0) -> Any:
    r""":math:`s` for :math:`s \ge 0`, :math:`\alpha(e^{s} - 1)` otherwise; α = 1 is the
    book's ELU, bounded below by -1 and :math:`C^1` at the origin.

    ``expm1`` is applied to the negative part only: no overflow for large s and full
    precision for small :math:`|s|`.

    Book: §5.4, eq. ``elu`` (lines 2476-2484).

    >>> round(float(elu(-1.0)), 6)
    -0.632121
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    negative = xp.where(s >= 0, _zeros(s, xp), s)
    return xp.where(s >= 0, s, alpha * xp.expm1(negative))


def elu_grad(s: Any, alpha: float = 1.0) -> Any:
    """1 for s >= 0, :math:`\\alpha e^{s}` otherwise.

    >>> elu_grad([0.0, 1.0]).tolist()
    [1.0, 1.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    negative = xp.where(s >= 0, _zeros(s, xp), s)
    return xp.where(s >= 0, xp.ones_like(s), alpha * xp.exp(negative))


def polynomial(s: Any, p: int = 3) -> Any:
    r""":math:`\phi(s) = s^p` for a positive integer p: a valid non-linearity whose
    magnitude compounds across layers (:math:`|s|^{p^l}` after l layers).

    Book: §5.4 (lines 2420-2428).

    >>> polynomial([2.0, -1.0], 3).tolist()
    [8.0, -1.0]
    """
    s = as_float_array(s, "s")
    p = check_int(p, "p")
    return s**p


def polynomial_grad(s: Any, p: int = 3) -> Any:
    """:math:`p\\,s^{p-1}`.

    >>> polynomial_grad([2.0], 3).tolist()
    [12.0]
    """
    s = as_float_array(s, "s")
    xp = array_namespace(s)
    p = check_int(p, "p")
    return p * s ** (p - 1) if p > 1 else xp.ones_like(s)


# --- sigmoid-like --------------------------------------------------------------------


def sigmoid(s: Any, slope: float = 1.0) -> Any:
    r"""The generalised sigmoid :math:`\sigma_a(s) = \sigma(as) = 1/(1 + e^{-as})`.

    Computed from :math:`e^{-|as|}`, which never overflows; as :math:`a \to \infty`
    it tends to the step :math:`\mathbb{I}_{s \ge 0}` for every :math:`s \ne 0`, while
    :math:`\sigma_a(0) = 1/2` for every a.

    Book: §5.4, the generalised sigmoid (lines 2438-2442).

    >>> sigmoid([0.0, 1000.0, -1000.0]).tolist()
    [0.5, 1.0, 0.0]
    """
    s = as_float_array(s, "s")
    return functional.sigmoid(s if slope == 1.0 else slope * s)


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

    Book: §5.4, eq. ``softplus`` (lines 2468-2474).

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


# --- gated identities: GELU, SiLU / Swish ---------------------------------------------

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

    Book: §5.4, eq. ``trainable_swish`` (lines 2566-2572).

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


# --- non-parametric activations: sums of fixed bases ---------------------------------


def _expand(s: Any, alpha: Any, centres: Any, name: str) -> tuple[Any, Any]:
    """``s[..., None] - centres`` (..., c, n) and a check of alpha's shape."""
    xp = array_namespace(s, alpha, centres)
    if centres.ndim != 1:
        raise ValueError(f"{name} must have shape (n,); got {tuple(centres.shape)}")
    n = centres.shape[0]
    c = s.shape[-1] if s.ndim else None
    if alpha.shape not in ((n,), (c, n)):
        raise ValueError(
            f"alpha must have shape (n,) = ({n},) (shared) or (c', n) = ({c}, {n}) "
            f"(one set per unit of the last axis of s {tuple(s.shape)}); "
            f"got {tuple(alpha.shape)}"
        )
    return s[..., None] - centres, xp  # (..., c', n)


def apl(s: Any, alpha: Any, hinges: Any) -> Any:
    r"""An adaptive piecewise-linear activation:
    :math:`\phi(s) = \sum_{i=1}^{n}\alpha_i\,\mathrm{ReLU}(s - h_i)`, linear in the
    trainable :math:`\alpha`, with kinks only at the fixed hinges :math:`h_i`.

    Parameters
    ----------
    s : (..., c') array; alpha : (n,) (shared) or (c', n) (per unit);
    hinges : (n,) array.

    Book: §5.4, eq. ``non_parametric_af`` with ReLU bases (lines 2580-2594).

    >>> apl(np.array([2.0]), np.array([1.0, -1.0]), np.array([0.0, 1.0])).tolist()
    [1.0]
    """
    s = as_float_array(s, "s")
    diff, xp = _expand(s, alpha, hinges, "hinges")
    return xp.sum(alpha * relu(diff), axis=-1)


def kaf(s: Any, alpha: Any, dictionary: Any, gamma: float) -> Any:
    r"""A kernel activation function:
    :math:`\phi(s) = \sum_{i=1}^{n}\alpha_i \exp(-\gamma (s - d_i)^2)`, Gaussian
    kernels on a fixed dictionary :math:`d_i` (usually a grid), linear in α.

    Parameters
    ----------
    s : (..., c') array; alpha : (n,) or (c', n); dictionary : (n,) array;
    gamma : float > 0, the kernel's inverse width.

    Book: §5.4, eq. ``non_parametric_af`` with kernel bases (lines 2586-2594).

    >>> kaf(np.array([0.0]), np.array([2.0]), np.array([0.0]), 1.0).tolist()
    [2.0]
    """
    s = as_float_array(s, "s")
    diff, xp = _expand(s, alpha, dictionary, "dictionary")
    return xp.sum(alpha * xp.exp(-gamma * diff * diff), axis=-1)


# --- gated linear units ---------------------------------------------------------------


def _check_gate(X: Any, W1: Any, W2: Any) -> Any:
    xp = array_namespace(X, W1, W2)
    if (
        X.ndim < 1
        or W1.ndim != 2
        or tuple(W1.shape) != tuple(W2.shape)
        or W1.shape[0] != X.shape[-1]
    ):
        raise ValueError(
            "expected X (..., c), W1 (c, c') and W2 (c, c'); got X "
            f"{tuple(X.shape)}, W1 {tuple(W1.shape)}, W2 {tuple(W2.shape)}"
        )
    return xp


def glu(X: Any, W1: Any, W2: Any) -> Any:
    r"""The gated linear unit :math:`\sigma(\mathbf{X}\mathbf{W}_1)\odot
    (\mathbf{X}\mathbf{W}_2)`: 2cc' parameters, no bias.

    The book writes one vector, :math:`\sigma(\mathbf{W}_1\mathbf{x})\odot
    (\mathbf{W}_2\mathbf{x})`; here rows of X are the vectors and W is (c, c'), as in
    the FC layer E.5.7. ``torch.nn.functional.glu(h)`` gates the *second* half of h:
    ``glu(X, W1, W2) == F.glu(cat([X @ W2, X @ W1], -1))``.

    Parameters
    ----------
    X : (..., c); W1, W2 : (c, c').

    Returns
    -------
    (..., c') array.

    Book: "Design variants" box, eq. ``glu`` (line 2610).

    >>> glu(np.ones((1, 2)), np.zeros((2, 3)), np.ones((2, 3))).tolist()
    [[1.0, 1.0, 1.0]]
    """
    _check_gate(X, W1, W2)
    return sigmoid(X @ W1) * (X @ W2)


def swiglu(X: Any, W1: Any, W2: Any) -> Any:
    r"""SwiGLU: the GLU with the sigmoid gate replaced by a Swish,
    :math:`\mathrm{SiLU}(\mathbf{X}\mathbf{W}_1)\odot(\mathbf{X}\mathbf{W}_2)`.

    Book: "Design variants" box (line 2618).

    >>> swiglu(np.ones((1, 1)), np.zeros((1, 1)), np.ones((1, 1))).tolist()
    [[0.0]]
    """
    _check_gate(X, W1, W2)
    return silu(X @ W1) * (X @ W2)


# --- a registry for plots, widgets and tests ------------------------------------------

#: name -> (function of s, its derivative), every fixed activation of §5.4
ACTIVATIONS: dict[str, tuple[Any, Any]] = {
    "relu": (relu, relu_grad),
    "leaky_relu": (leaky_relu, leaky_relu_grad),
    "softplus": (softplus, softplus_grad),
    "elu": (elu, elu_grad),
    "gelu": (gelu, gelu_grad),
    "silu": (silu, silu_grad),
    "sigmoid": (sigmoid, sigmoid_grad),
    "tanh": (tanh, tanh_grad),
    "heaviside": (heaviside, heaviside_grad),
    "polynomial": (polynomial, polynomial_grad),
}


def get(name: str) -> Any:
    """The activation called ``name`` (see :data:`ACTIVATIONS`), or the identity for
    ``"identity"``/``"linear"``/``None``.

    >>> get("relu") is relu
    True
    """
    if name in (None, "identity", "linear"):
        return lambda s: s
    if callable(name):
        return name
    try:
        return ACTIVATIONS[name][0]
    except KeyError:
        raise ValueError(
            f"unknown activation {name!r}; expected one of "
            f"{sorted(ACTIVATIONS) + ['identity']}"
        ) from None


def derivative(name: str) -> Any:
    """The derivative of the activation called ``name``.

    >>> derivative("softplus") is softplus_grad
    True
    """
    if name in ("identity", "linear"):

        def one(s: Any) -> Any:
            s = as_float_array(s, "s")
            xp = array_namespace(s)
            return xp.ones_like(s)

        return one
    try:
        return ACTIVATIONS[name][1]
    except KeyError:
        raise ValueError(
            f"unknown activation {name!r}; expected one of {sorted(ACTIVATIONS)}"
        ) from None


# --- torch.nn.Module versions --------------------------------------------------------


@functools.cache
def _torch_classes() -> dict[str, type]:
    import torch
    from torch import nn

    def _param(value: float, n: int) -> nn.Parameter:
        return nn.Parameter(
            torch.full((n,), float(value), dtype=torch.get_default_dtype())
        )

    class PReLU(nn.Module):
        """LeakyReLU with a trainable slope per unit (``num_parameters`` of them, or 1
        shared), applied along the last axis; same numbers as ``torch.nn.PReLU`` on
        (n, c') inputs."""

        def __init__(self, num_parameters: int = 1, init: float = 0.25):
            super().__init__()
            self.alpha = _param(init, num_parameters)

        def forward(self, s):
            return prelu(s, self.alpha)

    class TrainableSwish(nn.Module):
        """:math:`\\sigma(as + b)(cs + d)` with trainable a, b, c, d (shared, or one
        each per unit with ``num_parameters = c'``)."""

        def __init__(self, num_parameters: int = 1, a=1.0, b=0.0, c=1.0, d=0.0):
            super().__init__()
            self.a, self.b = _param(a, num_parameters), _param(b, num_parameters)
            self.c, self.d = _param(c, num_parameters), _param(d, num_parameters)

        def forward(self, s):
            return trainable_swish(s, self.a, self.b, self.c, self.d)

    class _Expansion(nn.Module):
        def __init__(self, centres, num_units: int | None, init):
            super().__init__()
            centres = torch.as_tensor(centres, dtype=torch.get_default_dtype())
            self.register_buffer("centres", centres)
            shape = (
                (centres.shape[0],) if num_units is None else (num_units, len(centres))
            )
            self.alpha = nn.Parameter(torch.as_tensor(init(shape), dtype=centres.dtype))

    class APL(_Expansion):
        """:func:`apl` with trainable coefficients (shared, or per unit), drawn small
        (0.01 · N(0, 1), seeded) so that training starts near the zero function."""

        def __init__(self, hinges, num_units: int | None = None, seed: int = 0):
            rng = np.random.default_rng(seed)
            super().__init__(
                hinges, num_units, lambda sh: 0.01 * rng.standard_normal(sh)
            )

        def forward(self, s):
            return apl(s, self.alpha, self.centres)

    class KAF(_Expansion):
        """:func:`kaf` with trainable coefficients on a fixed dictionary; γ defaults
        to 1 / (2 Δ²) for a grid spacing Δ (neighbouring kernels overlap)."""

        def __init__(self, dictionary, gamma=None, num_units=None, seed: int = 0):
            rng = np.random.default_rng(seed)
            super().__init__(
                dictionary, num_units, lambda sh: 0.3 * rng.standard_normal(sh)
            )
            if gamma is None:
                spacing = float(self.centres[1] - self.centres[0])
                gamma = 1.0 / (2.0 * spacing**2)
            self.gamma = float(gamma)

        def forward(self, s):
            return kaf(s, self.alpha, self.centres, self.gamma)

    class GLU(nn.Module):
        """:func:`glu` with two bias-free (c, c') weights (2cc' parameters)."""

        gate = staticmethod(glu)

        def __init__(self, c: int, c_prime: int, seed: int = 0):
            super().__init__()
            rng = np.random.default_rng(seed)
            dtype = torch.get_default_dtype()
            scale = 1.0 / math.sqrt(c)
            self.W1 = nn.Parameter(
                torch.as_tensor(scale * rng.standard_normal((c, c_prime)), dtype=dtype)
            )
            self.W2 = nn.Parameter(
                torch.as_tensor(scale * rng.standard_normal((c, c_prime)), dtype=dtype)
            )

        def forward(self, X):
            return self.gate(X, self.W1, self.W2)

    class SwiGLU(GLU):
        """:func:`swiglu` with two bias-free (c, c') weights."""

        gate = staticmethod(swiglu)

    return {
        "PReLU": PReLU,
        "TrainableSwish": TrainableSwish,
        "APL": APL,
        "KAF": KAF,
        "GLU": GLU,
        "SwiGLU": SwiGLU,
    }


__getattr__ = lazy_getattr(__name__, dict.fromkeys(TORCH_MODULES, _torch_classes))
