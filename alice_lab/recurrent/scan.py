r"""Associative (parallel) scans: all prefixes :math:`x_1, x_1\star x_2, \ldots,
x_1\star\cdots\star x_n` of an associative operator ⋆, and the tree that computes them.

Three schedules, each recording which ⋆ runs at which *level* (ops of one level are
independent and can run in parallel; the level of an op is one more than the latest
level of its inputs):

- ``"sequential"``: n - 1 ops, depth n - 1;
- ``"hillis_steele"``: at distance d = 1, 2, 4, ... combine every element with the one d
  before; depth ⌈log₂ n⌉, about n log₂ n ops;
- ``"blelloch"``: the work-efficient scheme of the book's figure (line 6581): combine
  neighbouring pairs, scan the pairs recursively, then fill in the odd positions; about
  2n ops, depth about 2 log₂ n. On six elements it is exactly the book's example: 7 ops
  in 3 levels (lines 6599-6629).

The operator is always called as ``op(earlier, later)``, the convention of
``jax.lax.associative_scan``. The linear recurrence :math:`h_t = a_t h_{t-1} + b_t` is a
scan over the pairs :math:`(a_t, b_t)` with :math:`(a, b)\star(a', b') = (a'a, a'b +
b')`
(book line 6637): :func:`linear_recurrence` computes it sequentially or with a
vectorised NumPy Hillis-Steele, :func:`jax_linear_recurrence` with ``jax.lax.scan`` or
``jax.lax.associative_scan``.

Book: §13.3.2, "An interlude: associative scans" (lines 6569-6651).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, as_float_array

__all__ = [
    "ALGORITHMS",
    "ScanOp",
    "ScanTrace",
    "associative_scan",
    "is_associative",
    "jax_associative_scan",
    "jax_linear_recurrence",
    "linear_recurrence",
    "linear_recurrence_op",
    "scan_schedule",
    "sequential_scan",
]

ALGORITHMS = ("sequential", "hillis_steele", "blelloch")


@dataclass(frozen=True)
class ScanOp:
    """One application of ⋆: ``out = left ⋆ right``; each is a segment (first, last) of
    the input, 1-based inclusive, so ``(1, 4)`` is :math:`x_1\\star\\cdots\\star
    x_4`."""

    level: int
    left: tuple[int, int]
    right: tuple[int, int]

    @property
    def out(self) -> tuple[int, int]:
        return (self.left[0], self.right[1])


@dataclass
class ScanTrace:
    """The tree of a scan: every op with its level; ``work`` ops in ``depth`` levels."""

    n: int
    algorithm: str
    ops: list[ScanOp] = field(default_factory=list)

    @property
    def work(self) -> int:
        return len(self.ops)

    @property
    def depth(self) -> int:
        return max((o.level for o in self.ops), default=0)

    @property
    def levels(self) -> list[list[ScanOp]]:
        """``levels[k]`` = the ops of level k + 1 (they can run in parallel)."""
        return [[o for o in self.ops if o.level == k] for k in range(1, self.depth + 1)]


@dataclass
class _Node:
    value: Any
    first: int
    last: int
    ready: int


def _combine(op, trace: ScanTrace, a: _Node, b: _Node) -> _Node:
    if a.last + 1 != b.first:  # pragma: no cover - a bug in a schedule, not user input
        raise RuntimeError(
            f"non-adjacent segments {a.first, a.last} and {b.first, b.last}"
        )
    level = max(a.ready, b.ready) + 1
    trace.ops.append(ScanOp(level, (a.first, a.last), (b.first, b.last)))
    value = None if op is None else op(a.value, b.value)
    return _Node(value, a.first, b.last, level)


def _blelloch(op, trace, nodes):
    if len(nodes) == 1:
        return nodes
    pairs = [
        _combine(op, trace, nodes[2 * k], nodes[2 * k + 1])
        for k in range(len(nodes) // 2)
    ]
    pre = _blelloch(op, trace, pairs)  # pre[k] = prefix ending at nodes[2k + 1]
    out = [nodes[0]]
    for i in range(1, len(nodes)):
        out.append(
            pre[i // 2] if i % 2 else _combine(op, trace, pre[i // 2 - 1], nodes[i])
        )
    return out


def _run(op, elems: Sequence[Any] | None, n: int, algorithm: str):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}; got {algorithm!r}")
    if n < 1:
        raise ValueError("expected at least one element to scan; got an empty sequence")
    trace = ScanTrace(n, algorithm)
    nodes = [
        _Node(None if elems is None else elems[i], i + 1, i + 1, 0) for i in range(n)
    ]
    if algorithm == "sequential":
        out = [nodes[0]]
        for node in nodes[1:]:
            out.append(_combine(op, trace, out[-1], node))
    elif algorithm == "hillis_steele":
        out, d = nodes, 1
        while d < n:
            out = [
                out[i] if i < d else _combine(op, trace, out[i - d], out[i])
                for i in range(n)
            ]
            d *= 2
    else:
        out = _blelloch(op, trace, nodes)
    return [node.value for node in out], trace


def scan_schedule(n: int, algorithm: str = "blelloch") -> ScanTrace:
    """The tree of a scan of ``n`` elements, without computing anything.

    >>> t = scan_schedule(6, "blelloch"); (t.work, t.depth)
    (7, 3)
    """
    return _run(None, None, int(n), algorithm)[1]


def _leaves(x: Any) -> list[np.ndarray]:
    if isinstance(x, tuple | list):
        return [leaf for item in x for leaf in _leaves(item)]
    return [np.asarray(x)]


def is_associative(
    op: Callable, a: Any, b: Any, c: Any, *, rtol: float = 1e-9, atol: float = 1e-12
) -> bool:
    """Whether ``op(op(a, b), c)`` equals ``op(a, op(b, c))`` (leaf by leaf)."""
    left, right = _leaves(op(op(a, b), c)), _leaves(op(a, op(b, c)))
    return len(left) == len(right) and all(
        p.shape == q.shape and np.allclose(p, q, rtol=rtol, atol=atol)
        for p, q in zip(left, right, strict=True)
    )


def associative_scan(
    op: Callable[[Any, Any], Any],
    elems: Sequence[Any],
    *,
    algorithm: str = "blelloch",
    check_associative: bool = True,
    return_trace: bool = False,
) -> Any:
    """All prefixes of ``elems`` (a list; each element any value ``op`` accepts) under
    ``op(earlier, later)``, computed on the tree of ``algorithm``.

    With ``check_associative`` (the default) the operator is tried on the first three
    elements and a non-associative one raises ``ValueError``: a parallel scan of such an
    operator silently differs from the loop. ``return_trace=True`` also returns the
    :class:`ScanTrace`.

    >>> import operator
    >>> associative_scan(operator.add, [1, 2, 3, 4])
    [1, 3, 6, 10]
    """
    if not callable(op):
        raise ValueError(f"op must be a callable op(earlier, later); got {op!r}")
    elems = list(elems)
    if check_associative and len(elems) >= 3 and not is_associative(op, *elems[:3]):
        raise ValueError(
            "op is not associative on the first three elements: op(op(x1, x2), x3) != "
            "op(x1, op(x2, x3)); a parallel scan needs an associative operator "
            "(pass check_associative=False to scan anyway)"
        )
    values, trace = _run(op, elems, len(elems), algorithm)
    return (values, trace) if return_trace else values


def sequential_scan(op: Callable[[Any, Any], Any], elems: Sequence[Any]) -> list[Any]:
    """The loop: ``out[0] = x1``, ``out[i] = op(out[i-1], x_{i+1})``."""
    return associative_scan(op, elems, algorithm="sequential", check_associative=False)


def linear_recurrence_op(earlier: tuple, later: tuple) -> tuple:
    """⋆ for :math:`h_t = a_t h_{t-1} + b_t` with elementwise (diagonal) a:
    ``(a, b) ⋆ (a', b') = (a' a, a' b + b')`` (book line 6637, diagonal case)."""
    a1, b1 = earlier
    a2, b2 = later
    return a2 * a1, a2 * b1 + b2


def linear_recurrence(
    a: Any, b: Any, h0: Any = None, *, method: str = "sequential"
) -> Any:
    r""":math:`h_t = a_t\odot h_{t-1} + b_t` for t = 1..n, ``a, b (n, ...)`` (a may
    also be broadcastable to b), :math:`h_0` = ``h0`` or 0. ``method``: "sequential" (a
    loop) or "parallel" (Hillis-Steele, vectorised over each level, ⌈log₂ n⌉ steps).
    Any array-API backend (NumPy, torch, JAX, ...); the result is on b's backend.

    >>> linear_recurrence([0.5, 0.5, 0.5], [1.0, 1.0, 1.0], method="parallel").tolist()
    [1.0, 1.5, 1.75]
    """
    b = as_float_array(b, "b", complex_ok=True)
    a = as_float_array(a, "a", like=b, complex_ok=True)  # a number or list joins b
    xp = array_namespace(a, b)
    if b.ndim == 0 or b.shape[0] == 0:
        raise ValueError(f"expected b of shape (n, ...) with n >= 1; got {b.shape}")
    if a.ndim < b.ndim:
        a = xp.broadcast_to(a, b.shape)
    if a.shape != b.shape:
        raise ValueError(
            f"a and b must have one shape (n, ...); got {a.shape}, {b.shape}"
        )
    if method not in ("sequential", "parallel"):
        raise ValueError(f"method must be 'sequential' or 'parallel'; got {method!r}")
    if h0 is not None:  # fold h0 into the first input
        first = a[0, ...] * h0 + b[0, ...]
        b = xp.concat([xp.expand_dims(first, axis=0), b[1:, ...]], axis=0)
    n = b.shape[0]
    if method == "sequential":
        h = [b[0, ...]]
        for t in range(1, n):
            h.append(a[t, ...] * h[-1] + b[t, ...])
        return xp.stack(h, axis=0)
    A, H, d = a, b, 1
    while d < n:  # level d: every position t >= d absorbs the block ending at t - d
        H = xp.concat([H[:d, ...], A[d:, ...] * H[:-d, ...] + H[d:, ...]], axis=0)
        A = xp.concat([A[:d, ...], A[d:, ...] * A[:-d, ...]], axis=0)
        d *= 2
    return H


def jax_associative_scan(op: Callable, elems: Any, *, reverse: bool = False) -> Any:
    """``jax.lax.associative_scan(op, elems)``: ``elems`` a pytree of arrays with the
    sequence on axis 0, ``op(earlier, later)`` vectorised over that axis."""
    import jax

    return jax.lax.associative_scan(op, elems, reverse=reverse)


def jax_linear_recurrence(a: Any, b: Any, *, method: str = "associative") -> Any:
    r""":math:`h_t = a_t h_{t-1} + b_t` in JAX, ``a, b (n, ...)``: ``method="scan"`` is
    the
    loop (``jax.lax.scan``), ``"associative"`` the parallel scan
    (``jax.lax.associative_scan``)."""
    import jax
    import jax.numpy as jnp

    a, b = jnp.asarray(a), jnp.asarray(b)
    if b.ndim == 0 or b.shape[0] == 0:
        raise ValueError(f"expected b of shape (n, ...) with n >= 1; got {b.shape}")
    if method == "associative":
        return jax.lax.associative_scan(linear_recurrence_op, (a, b))[1]
    if method == "scan":

        def step(h, ab):
            h = ab[0] * h + ab[1]
            return h, h

        return jax.lax.scan(step, jnp.zeros_like(b[0]), (a, b))[1]
    raise ValueError(f"method must be 'associative' or 'scan'; got {method!r}")
