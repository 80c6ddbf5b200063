r"""Non-parametric activations: sums of fixed bases with trainable coefficients,
the adaptive piecewise-linear unit (:func:`apl`, hinges) and the kernel activation
function (:func:`kaf`, Gaussian kernels on a dictionary).

Book: the "Design variants" box of §5.4 (lines 2602-2630).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.activations.relu_family import relu
from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "apl",
    "kaf",
]


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

    Book: §5.4, E.5.13 with ReLU bases (lines 2580-2594).

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

    Book: §5.4, E.5.13 with kernel bases (lines 2586-2594).

    >>> kaf(np.array([0.0]), np.array([2.0]), np.array([0.0]), 1.0).tolist()
    [2.0]
    """
    s = as_float_array(s, "s")
    diff, xp = _expand(s, alpha, dictionary, "dictionary")
    return xp.sum(alpha * xp.exp(-gamma * diff * diff), axis=-1)
