r"""The ReLU family and its relatives, with their derivatives: the ReLU and the
Heaviside step (its derivative), LeakyReLU, PReLU (a trainable slope), ELU, and the
polynomial activation that the universal-approximation argument rules out.

At a kink the derivative follows the book's case split: ``s >= 0`` takes the right
branch (LeakyReLU, PReLU, ELU), except for the ReLU, whose derivative at 0 is 0 as in
PyTorch and JAX (book, §6.4.4, line 3232).

Book: §5.4 (lines 2414-2600); §5.2, eq. E.5.5 (line 2250).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.activations._helpers import _check_alpha, _zeros
from alice_lab.backend import array_namespace, as_float_array, check_int

__all__ = [
    "elu",
    "elu_grad",
    "heaviside",
    "heaviside_grad",
    "leaky_relu",
    "leaky_relu_grad",
    "polynomial",
    "polynomial_grad",
    "prelu",
    "prelu_grad_alpha",
    "relu",
    "relu_grad",
]


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

    Book: §5.4, E.5.9 (lines 2458-2464); Figure F.5.4 draws α = 0.1.

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

    Book: §5.4, E.5.11 (lines 2476-2484).

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
