r"""Adaptive optimisers: Adam, with weight decay as an ℓ2 gradient term (Adam) or
decoupled from the gradient (AdamW).

Adam keeps running averages of the gradient and of its square and divides the first by
the square root of the second, adapting the step size of every parameter (§2.3, line
1098). Weight decay is where it differs from plain gradient descent (§9.2.1): the
gradient of an ℓ2 penalty added to the loss is rescaled with the rest of the gradient,
while decoupled weight decay shrinks the weights directly,
:math:`w_t = w_{t-1} - g(\nabla L) - \lambda w_{t-1}` (lines 4365-4369, [LH19]).

Book: §2.3, Adam (line 1098); §9.2.1, weight decay and AdamW (lines 4365-4369).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace

__all__ = ["adam"]


def adam(
    grad_fn: Callable[[Any], Any],
    w0: Any,
    *,
    lr: float,
    steps: int,
    weight_decay: float = 0.0,
    decoupled: bool = False,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> Any:
    r"""Adam from ``w0`` for ``steps`` steps, returning the path ``(steps + 1,
    *w.shape)`` as a list of arrays. ``weight_decay`` acts as ``torch.optim.Adam``
    (added to the gradient, ``decoupled=False``) or as ``torch.optim.AdamW`` (``w ← w(1
    - lr·wd)`` before the Adam step, ``decoupled=True``).

    Book: line 1098 (Adam); lines 4365-4369 (AdamW, [LH19]).

    >>> path = adam(lambda w: 2 * w, np.array([1.0]), lr=0.1, steps=3)
    >>> [round(float(w[0]), 6) for w in path]  # a first step of lr, whatever the scale
    [1.0, 0.9, 0.800412, 0.701586]
    """
    b1, b2 = betas
    w, m, v = w0, 0.0 * w0, 0.0 * w0
    path = [w0]
    for t in range(1, steps + 1):
        g = grad_fn(w)
        if decoupled:
            w = w * (1.0 - lr * weight_decay)
        else:
            g = g + weight_decay * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        w = w - lr * m_hat / (array_namespace(w).sqrt(v_hat) + eps)
        path.append(w)
    return path
