r"""Vanishing and exploding gradients: what the backward pass does to adjoints.

Through an element-wise activation the adjoint is multiplied by
:math:`\phi'(\mathbf{x})` (book eq. backward_pass_activation_function). Stack l of
them and the factors multiply: with the sigmoid, :math:`\sigma' \le 1/4`, so the
gradient of l stacked sigmoids is at most :math:`4^{-l}` and it *vanishes*; with a
slope above 1 it *explodes*; ReLU's derivative is exactly 0 or 1, so along active
paths nothing shrinks or grows. Floating point turns "tiny" into "zero":
:math:`4^{-l} = 2^{-2l}` leaves float32's normal range (smallest :math:`2^{-126}`) at
l = 64 and rounds to 0 at l = 75 (float64: at l = 538).

Book: §6.4.3, "Choosing an activation function" (lines 3182-3210; printed as 6.1.3),
Figure F.6.2.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_lab.autodiff import ops
from alice_lab.autodiff.engine import Tensor
from alice_lab.autodiff.functional import grad
from alice_lab.backend import check_int

__all__ = [
    "ENGINE_ACTIVATIONS",
    "adjoint_norms",
    "chain_derivative",
    "underflow_depth",
]

#: activations by name, as engine functions (chapter 5's by name, as array functions
#: with their derivatives: :data:`alice_lab.activations.ACTIVATIONS`)
ENGINE_ACTIVATIONS: dict[str, Callable] = {
    "sigmoid": ops.sigmoid,
    "tanh": ops.tanh,
    "relu": ops.relu,
    "linear x1.5": lambda x: 1.5 * x,
}


def chain_derivative(
    phi: Callable | str, depth: int, x0: float = 0.0, dtype: str = "float64"
) -> float:
    r""":math:`\frac{d}{dx}\,\phi(\phi(\cdots\phi(x)))` at ``x0`` for ``depth`` copies,
    by the engine's reverse mode in ``dtype``.

    >>> chain_derivative("sigmoid", 1)   # sigma'(0) = 1/4
    0.25
    """
    phi = ENGINE_ACTIVATIONS[phi] if isinstance(phi, str) else phi
    depth = check_int(depth, "depth", low=0)

    def stack(x):
        for _ in range(depth):
            x = phi(x)
        return x

    return float(grad(stack)(np.asarray(x0, dtype=dtype)))


def underflow_depth(factor: float = 0.25, dtype: str = "float32") -> tuple[int, int]:
    """``(first_subnormal, first_zero)``: the depths l at which ``factor**l``, computed
    by repeated multiplication in ``dtype``, first drops below the smallest normal
    number and first becomes exactly 0.

    >>> underflow_depth(0.25, "float32")
    (64, 75)
    """
    if not 0 < factor < 1:
        raise ValueError(f"factor must lie in (0, 1); got {factor}")
    dt = np.dtype(dtype)
    tiny = np.finfo(dt).smallest_normal
    value, l, first_sub = dt.type(1), 0, None
    while value != 0:
        value = dt.type(value * dt.type(factor))
        l += 1
        if first_sub is None and value < tiny:
            first_sub = l
    return int(first_sub), l


def adjoint_norms(
    depth: int,
    width: int = 32,
    *,
    activation: str = "sigmoid",
    weight_scale: float = 1.0,
    orthogonal: bool = False,
    dtype: str = "float64",
    seed: int = 0,
) -> np.ndarray:
    r"""Norms of the adjoints :math:`\lVert\partial y/\partial\mathbf{h}_k\rVert`,
    k = 0..depth, of a deep network :math:`\mathbf{h}_k = \phi(\mathbf{h}_{k-1}
    \mathbf{W}_k)` with :math:`y = \sum \mathbf{h}_{\text{depth}}`.

    Weights are Gaussian with standard deviation ``weight_scale / sqrt(width)``, or
    ``weight_scale`` times a random orthogonal matrix. Index 0 is the input's
    gradient; the last entry is the seed's norm, :math:`\sqrt{\text{width}}`.
    """
    depth, width = check_int(depth, "depth"), check_int(width, "width")
    phi = ENGINE_ACTIVATIONS[activation]
    rng = np.random.default_rng(seed)
    h = Tensor(rng.standard_normal((1, width)).astype(dtype), requires_grad=True)
    hidden = [h]
    for _ in range(depth):
        if orthogonal:
            q, r = np.linalg.qr(rng.standard_normal((width, width)))
            W = weight_scale * q * np.sign(np.diag(r))
        else:
            W = rng.standard_normal((width, width)) * weight_scale / np.sqrt(width)
        h = phi(h @ W.astype(dtype)).retain_grad()
        hidden.append(h)
    h.sum().backward()
    return np.array([np.linalg.norm(t.grad.astype(np.float64)) for t in hidden])
