r"""The primitive: an operation the engine does not look inside, with its VJP and JVP
rules, and how calling one dispatches (:func:`bind`) to the engine value among its
arguments (a reverse-mode :class:`~alice_lab.autodiff.engine.Tensor` or a forward-mode
:class:`~alice_lab.autodiff.dual.Dual`) or runs it on plain arrays (:func:`apply_impl`).
:func:`unbroadcast` is the adjoint of NumPy broadcasting, which every rule of a
broadcasting operation needs. The rules themselves are in
:mod:`alice_lab.autodiff.rules`.

Book: §6.1 (primitives, lines 2670-2684), §6.4.1 (VJPs, lines 2954-3108).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "PRIMITIVES",
    "Primitive",
    "apply_impl",
    "bind",
    "defprimitive",
    "unbroadcast",
]


@dataclass(frozen=True, eq=False)
class Primitive:
    """One operation with its forward code and per-argument VJP and JVP rules.

    ``vjp`` and ``jvp`` hold one rule per positional argument (``None`` where the
    argument is not differentiable, e.g. an exponent given as a constant is fine but
    an index is not), or a function ``i -> rule`` for primitives taking any number of
    arguments (concatenation).
    """

    name: str
    impl: Callable[..., Any]
    vjp: tuple | Callable[[int], Callable]
    jvp: tuple | Callable[[int], Callable]

    def vjp_rule(self, i: int) -> Callable:
        rule = self.vjp(i) if callable(self.vjp) else self.vjp[i]
        if rule is None:
            raise TypeError(f"{self.name}: argument {i} is not differentiable")
        return rule

    def jvp_rule(self, i: int) -> Callable:
        rule = self.jvp(i) if callable(self.jvp) else self.jvp[i]
        if rule is None:
            raise TypeError(f"{self.name}: argument {i} is not differentiable")
        return rule

    def __call__(self, *args, **params):
        return bind(self, *args, **params)

    def __repr__(self) -> str:
        return f"Primitive({self.name!r})"


PRIMITIVES: dict[str, Primitive] = {}


def defprimitive(name: str, impl: Callable, *, vjp, jvp) -> Primitive:
    """Create and register a primitive (the lab uses this for the reader's own VJPs).

    >>> sq = defprimitive("square_demo", lambda x: x * x,
    ...                   vjp=(lambda g, z, x: 2 * x * g,),
    ...                   jvp=(lambda t, z, x: 2 * x * t,))
    >>> float(sq(3.0))
    9.0
    """
    prim = Primitive(name, impl, vjp, jvp)
    PRIMITIVES[name] = prim
    return prim


def bind(prim: Primitive, *args, **params) -> Any:
    """Apply ``prim``: engine values among ``args`` decide how (record it for reverse
    mode, push tangents for forward mode); with plain arrays it is just ``impl``."""
    for a in args:
        binder = getattr(a, "_bind", None)
        if binder is not None:
            return binder(prim, *args, **params)
    return apply_impl(prim, *args, **params)


def apply_impl(prim: Primitive, *args, **params) -> Any:
    """``prim.impl`` on plain values, with NumPy's shape errors restated to name the
    primitive and the shapes it was given. (Evaluating a whole trace of primitives is
    :func:`alice_lab.autodiff.trace.evaluate`.)"""
    try:
        return prim.impl(*args, **params)
    except ValueError as err:
        shapes = " and ".join(str(np.shape(a)) for a in args)
        raise ValueError(
            f"{prim.name}: operands of shapes {shapes} do not fit together: {err}"
        ) from None


def unbroadcast(g: np.ndarray, like: Any) -> np.ndarray:
    """Sum ``g`` down to the shape of ``like``: the adjoint of NumPy broadcasting.

    Broadcasting ``x`` of shape (c,) to (n, c) copies it n times; each copy receives
    part of the gradient, so the gradient of x is the sum over the new axis. Size-1
    axes that were stretched are summed with ``keepdims``.

    >>> unbroadcast(np.ones((4, 3)), np.zeros(3))
    array([4., 4., 4.])
    """
    shape = np.shape(like)
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if stretched:
        g = g.sum(axis=stretched, keepdims=True)
    return g


def _expand(g: np.ndarray, axis, ndim: int) -> np.ndarray:
    """Put back the axes a reduction with ``keepdims=False`` removed."""
    if axis is None:
        return np.reshape(g, (1,) * ndim)
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return np.expand_dims(g, tuple(a % ndim for a in axes))
