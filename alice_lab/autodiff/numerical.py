r"""Numerical differentiation, and the gradient checks every derivative here must pass.

A finite difference needs no knowledge of ``f``, only evaluations: the central
difference :math:`(f(\mathbf{x} + h\mathbf{e}_i) - f(\mathbf{x} - h\mathbf{e}_i))/2h`
costs **two calls of f per scalar parameter**, which is why the book keeps it for
checking implementations and never for training. Its error has two parts:
truncation, :math:`O(h)` (forward) or :math:`O(h^2)` (central), which shrinks with h,
and rounding, :math:`O(\epsilon/h)`, which grows as h shrinks; plotted against h on
log-log axes the total is a V whose bottom sits near :math:`\epsilon^{1/2}` (forward)
or :math:`\epsilon^{1/3}` (central). In float32 (:math:`\epsilon \approx 1.2\cdot
10^{-7}`) the V is much higher than in float64 (:math:`2.2\cdot 10^{-16}`): always
check gradients in float64.

The quotients themselves are those of :mod:`alice_lab.calculus`; this module counts
calls, draws the error curve, and checks VJPs and JVPs along random directions as
HIPS autograd and ``jax.test_util.check_grads`` do: for random ``u`` and ``v``,
:math:`\langle \mathbf{u}, \partial f\,\mathbf{v}\rangle` from a central difference
must equal both :math:`\langle \mathrm{vjp}(\mathbf{u}), \mathbf{v}\rangle` and
:math:`\langle \mathbf{u}, \mathrm{jvp}(\mathbf{v})\rangle`.

Book: §6.1.2 (lines 2720-2724); §2.2 for the difference quotients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.calculus import derivative, directional_derivative, grad_fd

__all__ = [
    "CountedFunction",
    "FDCurve",
    "check_grads",
    "count_calls",
    "fd_error_curve",
    "numerical_grad",
]


class CountedFunction:
    """``f`` with a counter of how many times it has been called (``.calls``)."""

    def __init__(self, f: Callable):
        self.f = f
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.f(*args, **kwargs)


def count_calls(f: Callable) -> CountedFunction:
    """Wrap ``f`` to count its calls.

    >>> g = count_calls(np.sin); _ = g(0.0), g(1.0); g.calls
    2
    """
    return CountedFunction(f)


def numerical_grad(
    f: Callable, x: Any, h: float | None = None, scheme: str = "central"
) -> tuple[np.ndarray, int]:
    """``(gradient, calls)``: the finite-difference gradient and the number of calls of
    ``f`` it took (2 per parameter for ``"central"``, 1 + 1 per parameter for
    ``"forward"``).

    >>> g, calls = numerical_grad(lambda x: (x ** 2).sum(), np.array([1.0, 2.0, 3.0]))
    >>> np.round(g, 6), calls
    (array([2., 4., 6.]), 6)
    """
    counted = count_calls(f)
    g = grad_fd(
        counted, np.asarray(x, dtype=np.result_type(x, 0.0)), h=h, scheme=scheme
    )
    return np.asarray(g), counted.calls


@dataclass(frozen=True)
class FDCurve:
    """Errors of a difference quotient against the exact derivative, one per step h."""

    h: np.ndarray
    error: np.ndarray
    scheme: str
    dtype: str

    @property
    def best_h(self) -> float:
        """The step with the smallest error (the bottom of the V)."""
        return float(self.h[np.nanargmin(self.error)])

    def slope(self, lo: float, hi: float) -> float:
        """Least-squares slope of log(error) against log(h) for h in [lo, hi]: about
        1 for the forward difference and 2 for the central one in the truncation
        regime, about -1 where rounding dominates."""
        keep = (self.h >= lo) & (self.h <= hi) & (self.error > 0)
        if keep.sum() < 2:
            raise ValueError(f"fewer than two usable steps in [{lo}, {hi}]")
        return float(
            np.polyfit(np.log10(self.h[keep]), np.log10(self.error[keep]), 1)[0]
        )


def fd_error_curve(
    f: Callable,
    df: Callable,
    x: float,
    hs: Any = None,
    *,
    scheme: str = "central",
    dtype: str = "float64",
) -> FDCurve:
    r"""Relative error :math:`|\tilde f'(x) - f'(x)| / \max(1, |f'(x)|)` of the
    difference quotient at every step in ``hs``, computed in ``dtype``.

    ``f`` must compute in the dtype of its input (NumPy functions do); ``df`` is the
    exact derivative, evaluated in float64. The steps are rounded to the dtype first,
    so the float32 curve shows float32's rounding floor.

    >>> c = fd_error_curve(np.sin, np.cos, 1.0, [1e-2, 1e-3], scheme="forward")
    >>> bool(c.error[1] < c.error[0])
    True
    """
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64'; got {dtype!r}")
    hs = np.logspace(-16, -1, 61) if hs is None else np.asarray(hs, dtype=np.float64)
    x_t = np.asarray(x, dtype=dtype)
    exact = float(df(np.float64(x)))
    errs = []
    for h in hs:
        h_t = np.asarray(h, dtype=dtype)
        if h_t == 0 or (x_t + h_t) == x_t:  # the step vanishes below x's last digit
            errs.append(np.inf)
            continue
        with np.errstate(all="ignore"):
            est = float(derivative(f, x_t, h=h_t, scheme=scheme))
        errs.append(abs(est - exact) / max(1.0, abs(exact)))
    return FDCurve(hs, np.asarray(errs), scheme, dtype)


def check_grads(
    f: Callable,
    x: Any,
    *,
    vjp_fn: Callable | None = None,
    jvp_fn: Callable | None = None,
    directions: int = 3,
    seed: int = 0,
    rtol: float = 1e-6,
) -> float:
    r"""Check a VJP and/or JVP of ``f`` at ``x`` against central differences along
    random directions (float64); return the largest relative error, raise
    ``AssertionError`` above ``rtol``.

    ``vjp_fn(u)`` must return :math:`\mathbf{u}^\top\partial f(\mathbf{x})` (x's
    shape) and ``jvp_fn(v)`` :math:`\partial f(\mathbf{x})\mathbf{v}` (f's output
    shape). For random u, v: :math:`\langle \mathbf{u}, \partial f\,\mathbf{v}\rangle`
    is one directional derivative of the scalar :math:`\mathbf{u}^\top f`.
    """
    if vjp_fn is None and jvp_fn is None:
        raise ValueError("check_grads needs vjp_fn, jvp_fn or both")
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(f(x), dtype=np.float64)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(directions):
        u = rng.standard_normal(y.shape)
        v = rng.standard_normal(x.shape)
        numeric = float(
            directional_derivative(lambda z, u=u: np.sum(u * np.asarray(f(z))), x, v)
        )
        for name, fn in (("vjp", vjp_fn), ("jvp", jvp_fn)):
            if fn is None:
                continue
            if name == "vjp":
                analytic = float(np.sum(np.asarray(fn(u)) * v))
            else:
                analytic = float(np.sum(u * np.asarray(fn(v))))
            err = abs(analytic - numeric) / max(1.0, abs(numeric))
            if err > rtol:
                raise AssertionError(
                    f"{name} disagrees with finite differences along a random "
                    f"direction: analytic {analytic!r}, numeric {numeric!r} "
                    f"(relative error {err:.2e} > {rtol:g})"
                )
            worst = max(worst, err)
    return worst
