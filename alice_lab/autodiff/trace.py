r"""The book's two algorithms on an evaluation trace, with Jacobians in the open.

An evaluation trace is a chain of primitives :math:`\mathbf{h}_i =
f_i(\mathbf{h}_{i-1}, \mathbf{w}_i)`, :math:`\mathbf{h}_0 = \mathbf{x}`, closed by
:math:`y = \sum \mathbf{h}_l`; every vector is flat (the book's convention: "the input
size" is the product of all its dimensions, batch included). The task is all weight
gradients :math:`\{\partial_{\mathbf{w}_i} y\}`.

- :func:`forward_mode` (F-AD, §6.2) keeps one *tangent* matrix
  :math:`\widehat{\mathbf{W}}_j = \partial_{\mathbf{w}_j}\mathbf{h}_i` per weight,
  updated at every step with the new input Jacobian: matrix-matrix products costing
  :math:`c'_i\,c_i\,p_j` multiply-adds each, :math:`i-1` of them at step i.
- :func:`reverse_mode` (R-AD, §6.3) stores the whole forward pass, then walks back
  with one *adjoint* vector and two VJPs per primitive (eqs. r_ad_1-r_ad_2): only
  vector-matrix work, and no Jacobian is ever built (``jacobians_built == 0``).

Both return the gradients and an :class:`ADCost` with counters and a log of events
(what is alive after each step), which the forward-versus-reverse widget draws.

Book: §6.1.1 (lines 2698-2718), §6.2 (lines 2746-2820), §6.3 (lines 2822-2900), §6.4.1
(lines 2986-2992).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_lab.autodiff import ops
from alice_lab.autodiff.functional import jacobian_from_vjps, vjp

__all__ = [
    "ADCost",
    "ADResult",
    "chain_product",
    "evaluate",
    "fc_primitive",
    "forward_mode",
    "random_trace",
    "reverse_mode",
    "square_primitive",
]

Primitive = Callable[[Any, Any], Any]  # f(h, w) -> h', flat vectors in and out


def fc_primitive(
    c_in: int, c_out: int, activation: Callable | None = ops.tanh, n: int = 1
):
    r"""A fully-connected primitive on flat vectors: :math:`\phi(\mathbf{H}\mathbf{W} +
    \mathbf{b})` for ``H = h.reshape(n, c_in)``, with ``w = [vect(W); b]`` of size
    ``p = c_in * c_out + c_out``. Returns ``(f, p)``."""
    p = c_in * c_out + c_out

    def f(h, w):
        W = w[: c_in * c_out].reshape(c_in, c_out)
        b = w[c_in * c_out :]
        z = h.reshape(n, c_in) @ W + b  # (n, c_in) @ (c_in, c_out) + (c_out)
        z = z if activation is None else activation(z)
        return z.reshape(n * c_out)

    f.__name__ = f"fc_{c_in}x{c_out}"
    return f, p


def square_primitive():
    """A weightless per-element loss h -> h**2 (p = 0). Returns ``(f, 0)``."""

    def f(h, w):
        return h * h

    f.__name__ = "square"
    return f, 0


def random_trace(widths: Sequence[int], *, seed: int = 0, activation=ops.tanh):
    """A chain of FC primitives with the given widths, then a squared per-element
    loss; returns ``(fs, x, ws)`` with seeded float64 values."""
    rng = np.random.default_rng(seed)
    fs, ws = [], []
    for c_in, c_out in zip(widths[:-1], widths[1:], strict=True):
        f, p = fc_primitive(c_in, c_out, activation)
        fs.append(f)
        ws.append(rng.standard_normal(p) / np.sqrt(c_in))
    f, _ = square_primitive()
    fs.append(f)
    ws.append(np.zeros(0))
    return fs, rng.standard_normal(widths[0]), ws


def evaluate(fs: Sequence[Primitive], x: Any, ws: Sequence[Any]) -> list[np.ndarray]:
    """The trace ``[h_0 = x, h_1, ..., h_l]`` (plain NumPy)."""
    if len(fs) != len(ws):
        raise ValueError(f"one weight vector per primitive: {len(fs)} vs {len(ws)}")
    hs = [np.asarray(x, dtype=np.float64)]
    for f, w in zip(fs, ws, strict=True):
        hs.append(np.asarray(f(hs[-1], np.asarray(w, dtype=np.float64))))
    return hs


@dataclass
class ADCost:
    """What an algorithm did.

    Attributes
    ----------
    tangent_updates : F-AD products :math:`[\\partial_{h}h_i]\\widehat{W}_j`.
    multiply_adds : scalar multiply-adds, counted as dense products of the shapes.
    jacobians_built : input/weight Jacobians materialised. vjp_calls : VJP calls.
    peak_floats : most floats alive at once (tangents or stored activations).
    events : one dict per step: ``phase``, ``step``, ``live`` (name -> shape),
        ``multiply_adds`` so far, ``floats`` alive.
    """

    tangent_updates: int = 0
    multiply_adds: int = 0
    jacobians_built: int = 0
    vjp_calls: int = 0
    peak_floats: int = 0
    events: list[dict] = field(default_factory=list)

    def log(self, phase: str, step: int, live: dict[str, tuple]) -> None:
        floats = int(sum(np.prod(s, dtype=np.int64) for s in live.values()))
        self.peak_floats = max(self.peak_floats, floats)
        self.events.append(
            {
                "phase": phase,
                "step": step,
                "live": dict(live),
                "multiply_adds": self.multiply_adds,
                "floats": floats,
            }
        )


@dataclass
class ADResult:
    """``grads[i]`` is :math:`\\nabla_{\\mathbf{w}_i} y` with shape ``(p_i,)``;
    reverse mode also returns ``adjoints[i]`` :math:`= \\partial y/\\partial
    \\mathbf{h}_i` for i = 0..l (the book's :math:`\\widetilde{\\mathbf{h}}_i`)."""

    y: float
    grads: list[np.ndarray]
    cost: ADCost
    adjoints: list[np.ndarray] | None = None


def _jacobians(f: Primitive, h: np.ndarray, w: np.ndarray, c_out: int, cost: ADCost):
    Jx = jacobian_from_vjps(lambda z: f(z, w), h).matrix  # (c', c)
    Jw = jacobian_from_vjps(lambda v: f(h, v), w).matrix  # (c', p)
    cost.jacobians_built += 2
    return Jx.reshape(c_out, h.size), Jw.reshape(c_out, w.size)


def forward_mode(fs: Sequence[Primitive], x: Any, ws: Sequence[Any]) -> ADResult:
    r"""F-AD: tangents :math:`\widehat{\mathbf{W}}_j` updated as the program runs."""
    hs = evaluate(fs, x, ws)
    cost = ADCost()
    tangents: list[np.ndarray] = []
    for i, (f, w) in enumerate(zip(fs, ws, strict=True), start=1):
        h_prev, w = hs[i - 1], np.asarray(w, dtype=np.float64)
        Jx, Jw = _jacobians(f, h_prev, w, hs[i].size, cost)
        for j, T in enumerate(
            tangents
        ):  # W_j <- [d h_i / d h_{i-1}] W_j, for all j < i
            tangents[j] = Jx @ T  # (c'_i, c_i) @ (c_i, p_j)
            cost.tangent_updates += 1
            cost.multiply_adds += Jx.shape[0] * Jx.shape[1] * T.shape[1]
        tangents.append(Jw)  # W_i = d h_i / d w_i
        live = {f"W̃{j + 1}": T.shape for j, T in enumerate(tangents)}
        live[f"h{i}"] = hs[i].shape
        cost.log("forward", i, live)
    grads = []
    for T in tangents:  # grad_{w_i} y = 1^T W_i  (a row vector; we return it flat)
        grads.append(np.ones(T.shape[0]) @ T)
        cost.multiply_adds += T.size
    return ADResult(float(hs[-1].sum()), grads, cost)


def reverse_mode(fs: Sequence[Primitive], x: Any, ws: Sequence[Any]) -> ADResult:
    r"""R-AD: store the trace, then one adjoint :math:`\widetilde{\mathbf{h}}` and two
    VJPs per primitive, from the last to the first. Builds no Jacobian."""
    hs = evaluate(fs, x, ws)
    cost = ADCost()
    stored = {f"h{i}": h.shape for i, h in enumerate(hs)}
    for i in range(1, len(hs)):
        cost.log("forward", i, {k: s for k, s in stored.items() if int(k[1:]) <= i})
    adjoint = np.ones_like(hs[-1])  # h~ = 1^T, from y = sum(h_l)
    grads: list[np.ndarray] = [np.zeros(0)] * len(fs)
    adjoints: list[np.ndarray] = [np.zeros(0)] * len(hs)
    adjoints[-1] = adjoint
    for i in range(len(fs), 0, -1):
        f, w = fs[i - 1], np.asarray(ws[i - 1], dtype=np.float64)
        _, vjp_fn = vjp(f, hs[i - 1], w)
        adj_h, grads[i - 1] = vjp_fn(adjoint)  # eq. r_ad_2 and eq. r_ad_1
        cost.vjp_calls += 2
        cost.multiply_adds += adjoint.size * (hs[i - 1].size + w.size)
        adjoint = adjoints[i - 1] = adj_h
        live = {k: s for k, s in stored.items() if int(k[1:]) < i}
        live[f"h̃{i - 1}"] = adjoint.shape
        cost.log("backward", i, live)
    return ADResult(float(hs[-1].sum()), grads, cost, adjoints)


def chain_product(
    row: np.ndarray, matrices: Sequence[np.ndarray], order: str = "left"
) -> tuple[np.ndarray, int]:
    r""":math:`\mathbf{r}^\top M_1 M_2 \cdots M_k` evaluated ``"left"`` to right (a
    vector times each matrix: reverse mode) or ``"right"`` to left (matrix-matrix
    products first: forward mode). Returns ``(result, multiply_adds)``: equal results,
    different costs (book eq. backward_pass and line 2854)."""
    if order not in ("left", "right"):
        raise ValueError(f"order must be 'left' or 'right'; got {order!r}")
    flops = 0
    if order == "left":
        acc = np.asarray(row)
        for M in matrices:
            flops += acc.size * M.shape[1]
            acc = acc @ M
        return acc, flops
    acc = matrices[-1]
    for M in reversed(matrices[:-1]):
        flops += M.shape[0] * M.shape[1] * acc.shape[1]
        acc = M @ acc
    flops += acc.size
    return np.asarray(row) @ acc, flops
