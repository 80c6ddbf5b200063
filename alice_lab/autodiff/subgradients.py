r"""Subgradients: derivatives for functions with kinks, such as ReLU at 0.

For a convex f, a *subgradient* at x is a slope z whose line through
:math:`(x, f(x))` stays below f everywhere: :math:`f(y) \ge f(x) + z(y - x)` for all
y. Where f is differentiable the derivative is the only one; at a kink there is a
whole interval of them, the *subdifferential*: :math:`[-1, 1]` for :math:`|x|` at 0,
:math:`[0, 1]` for ReLU at 0. Frameworks pick one value (ReLU'(0) = 0); the value an
AD system returns at a kink depends on how the function is written, since
:math:`\mathrm{relu}(x) - \mathrm{relu}(-x) = x` everywhere but its AD derivative at
0 is 0.

Book: §6.4.4, "Subdifferentiability and AD" (lines 3212-3234; printed as 6.1.4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.autodiff import ops
from alice_lab.autodiff.functional import grad
from alice_lab.backend import check_int

__all__ = [
    "RELU_VARIANTS",
    "ad_derivative_at",
    "is_subgradient",
    "subdifferential",
    "subgradient_descent",
]


def is_subgradient(
    f: Callable, x0: float, z: float, grid: Any = None, tol: float = 1e-12
) -> bool:
    """Whether ``f(y) >= f(x0) + z (y - x0)`` for every y of ``grid`` (default: 2001
    points on [x0 - 5, x0 + 5]).

    >>> is_subgradient(np.abs, 0.0, 0.5), is_subgradient(np.abs, 0.0, 1.01)
    (True, False)
    """
    y = np.linspace(x0 - 5, x0 + 5, 2001) if grid is None else np.asarray(grid)
    return bool(np.all(f(y) >= f(np.asarray(x0)) + z * (y - x0) - tol))


def subdifferential(
    f: Callable, x0: float, zs: Any = None, grid: Any = None
) -> tuple[float, float]:
    """The smallest and largest slopes of ``zs`` (default: a 0.001 grid on [-3, 3])
    that pass :func:`is_subgradient`: the subdifferential, up to the grids.

    >>> subdifferential(lambda x: np.maximum(x, 0.0), 0.0)
    (0.0, 1.0)
    """
    zs = np.round(np.linspace(-3, 3, 6001), 6) if zs is None else np.asarray(zs)
    y = np.linspace(x0 - 5, x0 + 5, 2001) if grid is None else np.asarray(grid)
    gap = f(y) - f(np.asarray(x0)) + 1e-12  # z (y - x0) <= gap for every y:
    dy = y - x0  # to the right z <= gap / dy, to the left z >= gap / dy
    right, left = dy > 0, dy < 0
    hi = np.min(gap[right] / dy[right]) if right.any() else np.inf
    lo = np.max(gap[left] / dy[left]) if left.any() else -np.inf
    ok = zs[(zs >= lo) & (zs <= hi)]
    if ok.size == 0:
        raise ValueError(f"no subgradient found at x0={x0}: is f convex there?")
    return float(ok.min()), float(ok.max())


def subgradient_descent(
    subgrad: Callable, x0: float, steps: int, lr: float | Callable[[int], float]
) -> np.ndarray:
    r"""Iterates :math:`x_t = x_{t-1} - \eta_t z_t` with :math:`z_t` a subgradient at
    :math:`x_{t-1}`; ``lr`` is a constant or a schedule ``t -> eta_t`` (t from 0).
    Returns the path ``(steps + 1,)``."""
    eta = lr if callable(lr) else (lambda t: lr)
    path = [float(x0)]
    for t in range(check_int(steps, "steps", low=0)):
        path.append(path[-1] - eta(t) * float(subgrad(path[-1])))
    return np.asarray(path)


#: four ways to write ReLU, equal as functions, different at the kink under AD
RELU_VARIANTS: dict[str, Callable] = {
    "relu(x)": ops.relu,
    "maximum(x, 0)": lambda x: np.maximum(x, 0.0),
    "(x + |x|) / 2": lambda x: (x + abs(x)) / 2,
    "relu(x) - relu(-x)  (= x)": lambda x: ops.relu(x) - ops.relu(-x),
}


def ad_derivative_at(f: Callable, x0: float = 0.0) -> float:
    """What the engine's reverse mode returns as f'(x0).

    >>> {k: ad_derivative_at(f) for k, f in RELU_VARIANTS.items()}["maximum(x, 0)"]
    0.5
    """
    return float(grad(f)(np.asarray(x0, dtype=np.float64)))
