"""Argument checking shared by every convolution in :mod:`alice_lab.conv`.

Shapes follow the book (§7.1): channels last, batch first. A ``d``-dimensional
convolution takes ``X ~ (b, n_1, ..., n_d, c)`` (or the same without ``b``) and a kernel
``W ~ (s_1, ..., s_d, c // groups, c')`` (the JAX/TensorFlow "HWIO" layout, which is the
book's ``(s, s, c, c')`` of line 3390).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from alice_lab.backend import array_namespace, check_int, device_of

__all__ = ["ConvSpec", "conv_spec", "pad_spatial", "tuple_of"]


def tuple_of(value: Any, d: int, name: str) -> tuple[int, ...]:
    """``value`` as a tuple of ``d`` positive ints (an int is repeated)."""
    if not isinstance(value, (tuple, list)):
        return (check_int(value, name),) * d
    if len(value) != d:
        raise ValueError(f"{name} must be a positive int or {d} of them; got {value!r}")
    return tuple(check_int(v, name) for v in value)


def _padding(
    padding: Any, ks: tuple[int, ...], dil: tuple[int, ...]
) -> tuple[tuple[int, int], ...]:
    d = len(ks)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * d
        if padding == "same":
            even = [s for s in ks if s % 2 == 0]
            if even:
                raise ValueError(
                    f"padding='same' needs odd kernel sizes s = 2k+1 (book line 3334: "
                    f"k zero "
                    f"rows/columns on each side); got kernel size {ks}"
                )
            return tuple(
                (((s - 1) // 2) * r, ((s - 1) // 2) * r)
                for s, r in zip(ks, dil, strict=True)
            )
        raise ValueError(
            f"padding must be an int, a tuple, 'same' or 'valid'; got {padding!r}"
        )
    items = padding if isinstance(padding, (tuple, list)) else (padding,) * d
    if len(items) != d:
        raise ValueError(
            f"padding must have one entry per spatial axis ({d}); got {padding!r}"
        )
    pairs = tuple(p if isinstance(p, (tuple, list)) else (p, p) for p in items)
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"padding must give 1 or 2 sizes per axis; got {padding!r}")
    return tuple(tuple(check_int(q, "padding", low=0) for q in p) for p in pairs)


@dataclass(frozen=True)
class ConvSpec:
    """Everything a convolution needs to know, checked once.

    ``batched`` says whether ``X`` had a batch axis; ``out`` is the output's spatial
    size, ``(n + p_lo + p_hi - ((s-1)·r + 1)) // stride + 1`` per axis.
    """

    d: int
    batched: bool
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    groups: int
    c_in: int
    c_out: int
    out: tuple[int, ...]


def conv_spec(
    X: Any,
    W: Any,
    b: Any,
    d: int,
    *,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> ConvSpec:
    """Check the shapes of a ``d``-dimensional convolution and return its
    :class:`ConvSpec`.

    Raises ``ValueError`` naming what was expected and what was received.
    """
    names = "t" if d == 1 else ("h, w" if d == 2 else "t, h, w")
    if X.ndim not in (d + 1, d + 2):
        raise ValueError(
            f"conv{d}d expects X of shape (b, {names}, c) or ({names}, c); got shape "
            f"{tuple(X.shape)}"
        )
    if W.ndim != d + 2:
        raise ValueError(
            f"conv{d}d expects a kernel W of shape ({', '.join(['s'] * d)}, c // "
            f"groups, c'); "
            f"got shape {tuple(W.shape)}"
        )
    if any(n == 0 for n in X.shape):
        raise ValueError(
            f"conv{d}d got an empty input X of shape {tuple(X.shape)}; every axis "
            f"must be non-empty"
        )
    if any(n == 0 for n in W.shape):
        raise ValueError(f"conv{d}d got an empty kernel W of shape {tuple(W.shape)}")
    groups = check_int(groups, "groups")
    c_in, c_out = X.shape[-1], W.shape[-1]
    if c_in != W.shape[-2] * groups:
        raise ValueError(
            f"channel mismatch: X has c = {c_in} channels (last axis) but the kernel "
            f"expects "
            f"W.shape[-2] × groups = {W.shape[-2]} × {groups} = {W.shape[-2] * groups}"
        )
    if c_out % groups:
        raise ValueError(
            f"the {c_out} output channels are not divisible by groups = {groups}"
        )
    ks = tuple(int(s) for s in W.shape[:d])
    st = tuple_of(stride, d, "stride")
    dil = tuple_of(dilation, d, "dilation")
    pads = _padding(padding, ks, dil)
    spatial = tuple(X.shape[-d - 1 : -1])
    out = []
    for n, s, r, (lo, hi), step in zip(spatial, ks, dil, pads, st, strict=True):
        span = (s - 1) * r + 1
        if span > n + lo + hi:
            raise ValueError(
                f"kernel larger than the padded input: kernel size {ks} with dilation "
                f"{dil} spans "
                f"{span} pixels, but the padded input has only {n + lo + hi} along an "
                f"axis "
                f"(input {spatial}, padding {pads})"
            )
        out.append((n + lo + hi - span) // step + 1)
    if b is not None and tuple(b.shape) != (c_out,):
        raise ValueError(
            f"bias must have shape (c',) = ({c_out},); got {tuple(b.shape)}"
        )
    return ConvSpec(
        d, X.ndim == d + 2, ks, st, dil, pads, groups, c_in, c_out, tuple(out)
    )


def pad_spatial(X: Any, pads: tuple[tuple[int, int], ...], value: float = 0.0) -> Any:
    """Pad the ``d`` spatial axes of a batched ``(b, *spatial, c)`` array with
    ``value``.

    Uses only ``concat`` and ``full``, so it runs on every array-API backend.
    """
    xp = array_namespace(X)
    d = len(pads)
    for axis, (lo, hi) in zip(range(1, d + 1), pads, strict=True):
        if lo == 0 and hi == 0:
            continue
        parts = []
        for width in (lo, hi):
            shape = list(X.shape)
            shape[axis] = width
            parts.append(
                xp.full(tuple(shape), value, dtype=X.dtype, device=device_of(X))
            )
        X = xp.concat([parts[0], X, parts[1]], axis=axis)
    return X


def prod(values) -> int:
    return math.prod(values)


def output_positions(spec) -> tuple[slice, ...]:
    """The slices that keep, along each spatial axis, the positions a stride-1 result
    shares with the strided one: every ``stride``-th of the first ``out`` (what a
    strided convolution computed at stride 1, then subsampled, keeps)."""
    return tuple(
        slice(0, st * (n - 1) + 1, st)
        for st, n in zip(spec.stride, spec.out, strict=True)
    )
