r"""Gradient checkpointing: store fewer activations, recompute them when needed.

A network of n blocks :math:`\mathbf{h}_k = f_k(\mathbf{h}_{k-1}, \mathbf{w}_k)`,
:math:`y = \sum\mathbf{h}_n`. Reverse mode needs, for each block, its *activations*
(the block's local graph: its input and internal values) to run its VJPs. Storing all
of them costs memory proportional to the depth. With checkpointing only the blocks in
``stored`` keep their activations during the forward pass; the others run without
recording and pass on their output only. When the backward pass reaches a block
whose activations are missing it runs the forward pass again from the closest stored
block below it (or from the input) and then continues backwards.

Every block that was not stored is therefore evaluated twice: the cost is
:math:`n + (n - |\text{stored}|)` block evaluations instead of n; the book's example,
4 blocks with blocks 1, 2 and 4 stored, takes 5 evaluations, 1.25 times the plain
pass. The gradients are bit-for-bit those of the plain backward pass, since the same
operations run on the same numbers.

Book: §6.3, gradient checkpointing and its figure (lines 2898-2950).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_lab.autodiff.engine import Tensor, no_grad

__all__ = ["CheckpointRun", "checkpointed_gradients", "recompute_factor"]

Block = Callable[[Any, Any], Any]  # f_k(h, w) written with engine operations


@dataclass
class CheckpointRun:
    """The result of :func:`checkpointed_gradients`.

    y : the output. grads : ``grads[k]`` = gradient for block k+1's weights;
    grad_x : the input's gradient. evaluations : block forward evaluations (n plus
    recomputations). recomputed : the blocks evaluated twice. peak_stored : the most
    blocks holding activations at once. events : ``("forward" | "recompute" |
    "backward", block)`` in the order they happened (blocks numbered from 1).
    """

    y: float
    grads: list[np.ndarray]
    grad_x: np.ndarray
    evaluations: int
    recomputed: list[int]
    peak_stored: int
    events: list[tuple[str, int]] = field(default_factory=list)


def _record(block: Block, h: np.ndarray, w: np.ndarray):
    """Run one block with the engine recording: its activations (local graph)."""
    h_in = Tensor(h, requires_grad=True)
    w_in = Tensor(w, requires_grad=True)
    return h_in, w_in, block(h_in, w_in)


def checkpointed_gradients(
    blocks: Sequence[Block],
    x: Any,
    ws: Sequence[Any],
    stored: Iterable[int] | None = None,
) -> CheckpointRun:
    """Gradients of :math:`y = \\sum f_n(\\cdots f_1(x, w_1) \\cdots, w_n)` with only
    the blocks in ``stored`` (numbered 1..n) keeping their activations; ``None``
    stores every block (plain reverse mode)."""
    n = len(blocks)
    if len(ws) != n or n == 0:
        raise ValueError(
            f"need one weight per block and n >= 1; got {n} blocks, {len(ws)} weights"
        )
    keep = set(range(1, n + 1)) if stored is None else {int(k) for k in stored}
    if not keep <= set(range(1, n + 1)):
        raise ValueError(f"stored blocks must be numbered 1..{n}; got {sorted(keep)}")
    ws = [np.asarray(w) for w in ws]
    graphs: dict[
        int, tuple
    ] = {}  # block -> (h_in, w_in, out) while its activations live
    outputs: dict[int, np.ndarray] = {0: np.asarray(x)}  # outputs available as inputs
    events: list[tuple[str, int]] = []
    evaluations, peak = 0, 0

    h = np.asarray(x)
    for k in range(1, n + 1):  # forward pass
        if k in keep:
            graphs[k] = _record(blocks[k - 1], h, ws[k - 1])
            h = graphs[k][2].data
            outputs[k] = h
        else:
            with no_grad():
                h = blocks[k - 1](Tensor(h), Tensor(ws[k - 1])).data
        evaluations += 1
        events.append(("forward", k))
        peak = max(peak, len(graphs))
    y = float(np.sum(h))

    g = np.ones_like(h)  # adjoint of h_n from y = sum(h_n)
    grads: list[np.ndarray] = [np.zeros(0)] * n
    recomputed: list[int] = []
    for k in range(n, 0, -1):  # backward pass
        if k not in graphs:  # activations missing: recompute from the closest store
            start = max(j for j in outputs if j < k)
            h_re = outputs[start]
            for j in range(start + 1, k + 1):
                graphs[j] = _record(blocks[j - 1], h_re, ws[j - 1])
                h_re = graphs[j][2].data
                evaluations += 1
                recomputed.append(j)
                events.append(("recompute", j))
                peak = max(peak, len(graphs))
        h_in, w_in, out = graphs.pop(k)
        out.backward(g)
        grads[k - 1], g = w_in.grad, h_in.grad
        events.append(("backward", k))
    return CheckpointRun(y, grads, g, evaluations, recomputed, peak, events)


def recompute_factor(n: int, stored: Iterable[int]) -> float:
    """Block evaluations with checkpointing divided by those of the plain pass:
    :math:`(2n - |\\text{stored}|)/n`; 1.25 for the book's 4 blocks storing {1, 2, 4}.

    >>> recompute_factor(4, [1, 2, 4])
    1.25
    """
    keep = set(stored)
    return (2 * n - len(keep)) / n
