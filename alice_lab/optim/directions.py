r"""The rest of §2.3 in closed form: the unrolled momentum sum, descent directions
and the steepest one, and the exact line search on a quadratic (under which
consecutive gradients are orthogonal).

Book: §2.3 (lines 882-1100).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import (
    array_namespace,
    device_of,
)

__all__ = [
    "exact_line_search_quadratic",
    "is_descent_direction",
    "momentum_unrolled",
    "steepest_direction",
]


def momentum_unrolled(grads: Any, lr: float, momentum: float) -> Any:
    r"""The momentum steps in closed form, from the gradients along a path.

    Unrolling the recursion with :math:`\mathbf{g}_0 = \mathbf{0}` and a constant step
    size gives :math:`\mathbf{g}_t = -\eta\sum_{n=1}^{t}\lambda^{n-1}
    \nabla f(\mathbf{x}_{t-n})`: the gradient from n steps back is damped by
    :math:`\lambda^{n-1}`.

    Parameters
    ----------
    grads : (T, ...) array, ``grads[s]`` = :math:`\nabla f(\mathbf{x}_s)`, s = 0..T-1.
    lr : float, :math:`\eta`.
    momentum : float, :math:`\lambda`.

    Returns
    -------
    (T, ...) array whose row t-1 is :math:`\mathbf{g}_t`, t = 1..T.

    Book: §2.3.2, unrolling (lines 1080-1098).

    >>> import numpy as np
    >>> momentum_unrolled(np.ones((3, 1)), lr=1.0, momentum=0.5)[:, 0].tolist()
    [-1.0, -1.5, -1.75]
    """
    xp = array_namespace(grads)
    if grads.ndim < 1:
        raise ValueError("grads must have a leading time axis (T, ...); got 0-d")
    T = grads.shape[0]
    idx = xp.arange(T, device=device_of(grads))
    lag = idx[:, None] - idx[None, :]  # (T, T): t - s, the age of gradient s at step t
    causal = lag >= 0
    lag = xp.astype(xp.where(causal, lag, xp.zeros_like(lag)), grads.dtype)
    weights = xp.where(causal, float(momentum) ** lag, xp.zeros_like(lag))  # λ^(n-1)
    flat = xp.reshape(grads, (T, -1))
    return -float(lr) * xp.reshape(weights @ flat, grads.shape)  # (T, T) @ (T, m)


def exact_line_search_quadratic(A: Any, b: Any, x: Any) -> Any:
    r"""The best step size along :math:`-\nabla f` for
    :math:`f(\mathbf{x}) = \tfrac12\mathbf{x}^\top\mathbf{A}\mathbf{x}
    - \mathbf{b}^\top\mathbf{x}` with a symmetric positive definite :math:`\mathbf{A}`.

    With :math:`\mathbf{g} = \mathbf{A}\mathbf{x} - \mathbf{b}`, minimising
    :math:`f(\mathbf{x} - \eta\mathbf{g})` over :math:`\eta` gives
    :math:`\eta^* = \mathbf{g}^\top\mathbf{g} / \mathbf{g}^\top\mathbf{A}\mathbf{g}`;
    with this "perfect" step, consecutive gradients are orthogonal (book line 1064).
    Returns 0 where the gradient is already zero.

    Parameters
    ----------
    A : (d, d) array, b : (d,) array, x : (d,) or (k, d) array.

    Returns
    -------
    () or (k,) array, :math:`\eta^*` per point.

    Book: §2.3.2, the remark on orthogonal gradients (line 1064).

    >>> import numpy as np
    >>> float(exact_line_search_quadratic(np.diag([1.0, 3.0]), np.zeros(2), np.ones(2)))
    0.35714285714285715
    """
    xp = array_namespace(A, b, x)
    d = b.shape[-1] if b.ndim == 1 else None
    if A.ndim != 2 or A.shape[0] != A.shape[1] or d != A.shape[0] or x.shape[-1] != d:
        raise ValueError(
            "expected A (d, d), b (d,) and x (d,) or (k, d); got A "
            f"{tuple(A.shape)}, b {tuple(b.shape)}, x {tuple(x.shape)}"
        )
    g = x @ A.T - b  # (k, d): rows are A x - b
    gg = xp.sum(g * g, axis=-1)
    gAg = xp.sum((g @ A.T) * g, axis=-1)
    safe = xp.where(gAg > 0, gAg, xp.ones_like(gAg))
    return xp.where(gAg > 0, gg / safe, xp.zeros_like(gg))


def is_descent_direction(g: Any, p: Any) -> Any:
    r"""Whether moving along ``p`` decreases f for a small enough step, given the
    gradient ``g``: the directional derivative
    :math:`\langle\mathbf{g},\mathbf{p}\rangle` is negative (the angle between them
    lies strictly between π/2 and 3π/2).

    The book writes the condition as :math:`\le 0` (line 926), which every descent
    direction satisfies; a zero directional derivative does not guarantee a decrease,
    so this test is strict.

    Parameters
    ----------
    g, p : (d,) or (k, d) arrays.

    Returns
    -------
    () or (k,) boolean array.

    Book: §2.3, descent directions (lines 918-944).

    >>> import numpy as np
    >>> bool(is_descent_direction(np.array([1.0, 0.0]), np.array([-1.0, 5.0])))
    True
    """
    xp = array_namespace(g, p)
    if tuple(g.shape) != tuple(p.shape) or g.ndim == 0:
        raise ValueError(
            f"g and p must have the same shape (d,) or (k, d); got "
            f"{tuple(g.shape)} and {tuple(p.shape)}"
        )
    return xp.sum(g * p, axis=-1) < 0


def steepest_direction(g: Any) -> Any:
    r"""The unit steepest-descent direction :math:`-\mathbf{g}/\lVert\mathbf{g}\rVert`
    (zero where the gradient is zero: there is no descent direction there).

    Parameters
    ----------
    g : (d,) or (k, d) array.

    Returns
    -------
    array shaped like ``g``.

    Book: §2.3, the steepest descent direction (line 944).

    >>> import numpy as np
    >>> steepest_direction(np.array([3.0, 4.0])).tolist()
    [-0.6, -0.8]
    """
    xp = array_namespace(g)
    if g.ndim == 0:
        raise ValueError("g must have shape (d,) or (k, d); got a 0-d array")
    norm = xp.linalg.vector_norm(g, axis=-1, keepdims=True)
    safe = xp.where(norm > 0, norm, xp.ones_like(norm))
    return xp.where(norm > 0, -g / safe, xp.zeros_like(g))
