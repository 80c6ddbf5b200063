r"""Gated linear units: :func:`glu` (a sigmoid gate) and :func:`swiglu` (a SiLU
gate), layers of two weight matrices in place of an activation.

Book: the "Design variants" box of §5.4 (lines 2602-2630).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.activations.self_gated import silu
from alice_lab.activations.sigmoids import sigmoid
from alice_lab.backend import array_namespace

__all__ = [
    "glu",
    "swiglu",
]


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

    Book: §5.4, "Design variants" box, E.5.14 (line 2610).

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
