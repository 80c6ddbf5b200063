"""The difference quotient and its step, shared by the numerical derivatives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alice_lab.backend import as_float_array, device_of

_POWER = {"forward": 1 / 2, "central": 1 / 3}


def _check_scheme(scheme: str) -> None:
    if scheme not in _POWER:
        raise ValueError(f"scheme must be 'forward' or 'central', got {scheme!r}")


def _call(f: Callable, z: Any, like: Any) -> Any:
    """``f(z)`` as an array of ``like``'s kind (f may return a Python float; a
    complex value is let through: differences of complex values are defined)."""
    return as_float_array(f(z), "the value of f", like=like, complex_ok=True)


def _default_h(x: Any, xp: Any, power: float) -> Any:
    """Per-element step ``eps**power * max(1, |x|)``, rounded so that x + h is exact."""
    h = xp.finfo(x.dtype).eps ** power * xp.maximum(xp.abs(x), 1.0)
    return (x + h) - x


def _quotient(f: Callable, x: Any, step: Any, h: Any, scheme: str, fx=None) -> Any:
    """Difference quotient of f at x along the displacement ``step`` (h * direction)."""
    if scheme == "forward":
        fx = _call(f, x, x) if fx is None else fx
        return (_call(f, x + step, x) - fx) / h
    return (_call(f, x + step, x) - _call(f, x - step, x)) / (2 * h)


def _scalar_out(val: Any, what: str) -> Any:
    if val.ndim != 0:
        raise ValueError(
            f"{what} needs f to return a scalar (shape ()), got shape "
            f"{tuple(val.shape)}; use jacobian_fd for vector outputs"
        )
    return val


def _flat_steps(x: Any, xp: Any, h: float | None, power: float) -> Any:
    """Per-coordinate steps, shaped like x."""
    if h is None:
        return _default_h(x, xp, power)
    return xp.full(x.shape, h, dtype=x.dtype, device=device_of(x))
