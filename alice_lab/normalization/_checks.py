"""Argument checks, the affine map and the moments the normalization layers share."""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace


def _ndim(x: Any, least: int, name: str, expected: str) -> None:
    if getattr(x, "ndim", -1) < least:
        raise ValueError(
            f"{name} must have shape {expected}; got {tuple(getattr(x, 'shape', ()))}"
        )


def _axes(x: Any, axes: Any) -> tuple[int, ...]:
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    out = tuple(sorted(a % x.ndim for a in axes))
    if len(set(out)) != len(out) or not out:
        raise ValueError(
            f"axes must be distinct axes of x with ndim {x.ndim}; got {axes}"
        )
    return out


def _check_affine(gamma: Any, beta: Any, shape: tuple[int, ...], name: str) -> None:
    for value, label in ((gamma, "gamma"), (beta, "beta")):
        if value is not None and tuple(value.shape) != shape:
            raise ValueError(
                f"{name}: {label} must have shape {shape}; got {tuple(value.shape)}"
            )


def _affine(y: Any, gamma: Any, beta: Any, shape: tuple[int, ...], name: str) -> Any:
    _check_affine(gamma, beta, shape, name)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def _moments(x: Any, axes: tuple[int, ...]) -> tuple[Any, Any]:
    xp = array_namespace(x)
    mu = xp.mean(x, axis=axes, keepdims=True)
    var = xp.mean((x - mu) ** 2, axis=axes, keepdims=True)  # biased, two-pass
    return mu, var
