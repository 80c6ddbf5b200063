r"""Reverse mode on NumPy arrays: a ``Tensor`` that records how it was computed.

Every operation on a :class:`Tensor` that needs a gradient stores the primitive, its
arguments and its output: together they form the computational graph (a DAG) of the
program. :meth:`Tensor.backward` then runs the book's reverse program:

1. sort the graph topologically, output first (iteratively: no recursion limit);
2. start from the seed :math:`\widetilde{\mathbf{h}} = 1` at the output;
3. visit each node after *all* the nodes that use it, so its adjoint is complete, and
   pass the adjoint to its arguments with the primitive's VJPs, *adding up* what
   arrives along different paths (a value used twice gets two contributions).

Leaves created with ``requires_grad=True`` receive their gradient in ``.grad`` (added
to what is there, as in PyTorch; set it to ``None`` between steps). Inputs that do not
require gradients get none and cost nothing: their VJPs are never called.

Book: §6.3 (reverse mode, lines 2822-2900), §6.4.1 eqs. r_ad_1-r_ad_2 (line 2988),
§6.4.2 (PyTorch's tape and ``backward()``, line 3178), "From theory to practice"
(topological sort, line 3240).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from alice_lab.autodiff.overloads import EngineValue
from alice_lab.autodiff.rules import Primitive, apply_impl

__all__ = [
    "Tensor",
    "backward_pass",
    "is_grad_enabled",
    "no_grad",
    "toposort",
]

_GRAD_ENABLED = [True]


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Inside this block nothing is recorded (evaluation, parameter updates)."""
    _GRAD_ENABLED.append(False)
    try:
        yield
    finally:
        _GRAD_ENABLED.pop()


def is_grad_enabled() -> bool:
    return _GRAD_ENABLED[-1]


def _is_float(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.floating) or np.issubdtype(
        a.dtype, np.complexfloating
    )


class Tensor(EngineValue):
    """A NumPy array that remembers the primitive that produced it.

    Parameters
    ----------
    data : array-like (copied only when it is not already an ``ndarray``).
    requires_grad : collect the gradient of a later ``backward()`` in ``.grad``.
        Only floating arrays can require gradients.
    name : a label for graph drawings.

    Attributes
    ----------
    data : the values. grad : the accumulated gradient (leaves and ``retain_grad``).
    prim, args, params : how a non-leaf was computed (``args`` holds Tensors and
        constants, in the primitive's argument order).

    >>> x = Tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward(); x.grad
    array([2., 4.])
    """

    __slots__ = ("data", "requires_grad", "grad", "prim", "args", "params", "name")
    __slots__ += ("_retain",)

    def __init__(self, data: Any, requires_grad: bool = False, name: str | None = None):
        if isinstance(data, Tensor):
            data = data.data
        self.data = data if isinstance(data, np.ndarray) else np.asarray(data)
        if requires_grad and not _is_float(self.data):
            raise TypeError(
                f"only floating-point tensors can require gradients; got dtype "
                f"{self.data.dtype} (an integer input has no derivative; convert it "
                "with .astype(float) if it is really a continuous quantity)"
            )
        self.requires_grad = bool(requires_grad)
        self.grad: np.ndarray | None = None
        self.prim: Primitive | None = None
        self.args: tuple = ()
        self.params: dict = {}
        self.name = name
        self._retain = False

    @property
    def _value(self) -> np.ndarray:
        return self.data

    @property
    def is_leaf(self) -> bool:
        return self.prim is None

    @property
    def parents(self) -> tuple[Tensor, ...]:
        """The Tensors this one was computed from that need gradients."""
        return tuple(a for a in self.args if isinstance(a, Tensor) and a.requires_grad)

    def __repr__(self) -> str:
        how = f", prim={self.prim.name}" if self.prim else ""
        rg = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor({np.array2string(self.data, precision=4)}{rg}{how})"

    def detach(self) -> Tensor:
        """The same values, cut from the graph."""
        return Tensor(self.data)

    def retain_grad(self) -> Tensor:
        """Keep this intermediate's gradient (its adjoint) in ``.grad`` as well."""
        self._retain = True
        return self

    def zero_grad(self) -> None:
        self.grad = None

    # --- recording --------------------------------------------------------------------

    @staticmethod
    def _bind(prim: Primitive, *args, **params) -> Tensor:
        for a in args:
            if isinstance(a, EngineValue) and not isinstance(a, Tensor):
                raise TypeError(
                    f"{prim.name}: cannot mix a Tensor with a {type(a).__name__}"
                )
        raw = [a.data if isinstance(a, Tensor) else a for a in args]
        out = Tensor(apply_impl(prim, *raw, **params))
        if is_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad for a in args
        ):
            out.requires_grad = True
            out.prim, out.args, out.params = prim, args, params
        return out

    def local_vjp(self, g: np.ndarray) -> tuple[np.ndarray, ...]:
        """The cotangents of :attr:`parents` given this node's cotangent ``g``: one
        VJP call per argument that needs a gradient (the book's eqs. r_ad_1-r_ad_2).
        """
        if self.prim is None:
            return ()
        raw = [a.data if isinstance(a, Tensor) else a for a in self.args]
        return tuple(
            self.prim.vjp_rule(i)(g, self.data, *raw, **self.params)
            for i, a in enumerate(self.args)
            if isinstance(a, Tensor) and a.requires_grad
        )

    # --- the backward pass ------------------------------------------------------------

    def backward(self, seed: Any = None) -> None:
        """Accumulate :math:`\\partial y/\\partial x` into ``x.grad`` for every leaf x.

        ``seed`` is the output's cotangent: 1 for a scalar output (the default); a
        non-scalar output needs one of its own shape (the VJP with that vector).
        """
        if not self.requires_grad:
            raise ValueError(
                "backward(): this tensor does not depend on any tensor with "
                "requires_grad=True, so there is nothing to differentiate"
            )
        seed = _seed(self, seed)
        for node, g in backward_pass(self, seed).items():
            if node.is_leaf or node._retain:
                g = np.array(g)  # own, writable memory (VJPs may return views)
                node.grad = g if node.grad is None else node.grad + g


def _seed(y: Tensor, seed: Any) -> np.ndarray:
    if seed is None:
        if y.data.size != 1:
            raise ValueError(
                "backward() without a seed needs a scalar output; this one has shape "
                f"{y.shape}: pass a cotangent of that shape, e.g. "
                "backward(np.ones(...)), or reduce the output first (e.g. .sum())"
            )
        return np.ones_like(y.data)
    seed = np.asarray(seed._value if isinstance(seed, EngineValue) else seed)
    if seed.shape != y.shape:
        raise ValueError(
            f"the seed of backward() must have the output's shape {y.shape}; "
            f"got {seed.shape}"
        )
    return seed.astype(y.dtype, copy=False)


def toposort(root: Tensor) -> list[Tensor]:
    """The nodes that need gradients, each listed before the nodes it was computed
    from (output first). Iterative depth-first search: deep graphs are fine.
    """
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:  # all of node's parents are in `order`: node comes after them
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p in node.parents if id(p) not in seen)
    return order[::-1]


def backward_pass(root: Tensor, seed: np.ndarray) -> dict[Tensor, np.ndarray]:
    """Adjoints of every node reached from ``root``, by the reverse program.

    Returns a dict from node to :math:`\\partial (\\text{seed}\\cdot y)/\\partial
    \\text{node}`. Each node's adjoint is complete before it is passed on, because
    the topological order puts every node after all its users.
    """
    adjoint: dict[int, np.ndarray] = {id(root): seed}
    result: dict[Tensor, np.ndarray] = {}
    for node in toposort(root):
        g = adjoint.pop(id(node), None)
        if g is None:  # unreachable in a well-formed graph, kept for safety
            continue
        result[node] = g
        for parent, gp in zip(node.parents, node.local_vjp(g), strict=True):
            k = id(parent)
            adjoint[k] = gp if k not in adjoint else adjoint[k] + gp  # accumulate
    return result
