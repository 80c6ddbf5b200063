"""Checkable claims of Chapter 6, §6.2-6.3: forward-mode and reverse-mode
differentiation, gradient checkpointing (book lines 2746-2950)."""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng
from alice_course.claims.ch06_setup import _x64

# =====================================================================================
# 6.2 Forward-mode differentiation
# =====================================================================================


@claim(
    "C6-09",
    section="6.2",
    lines=(2752, 2764),
    statement="Chain rule of Jacobians: for h = f₁(x), y = f₂(h) with sizes a, b, c, "
    "∂y/∂x = (∂y/∂h)(∂h/∂x), a (c × b) times (b × a) product.",
)
def _c6_09() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import jacobian

    r = _rng(9)
    A1, A2 = r.standard_normal((4, 6)), r.standard_normal((3, 4))  # a=6, b=4, c=3
    f1 = lambda x, xp=np: xp.tanh(A1 @ x)  # noqa: E731
    f2 = lambda h, xp=np: xp.sin(A2 @ h) * h[:3]  # noqa: E731
    x = r.standard_normal(6)
    J1, J2 = jacobian(f1, x), jacobian(f2, f1(x))
    J = jacobian(lambda z: f2(f1(z)), x)
    assert (J2.shape, J1.shape, J.shape) == ((3, 4), (4, 6), (3, 6))
    with _x64():
        Jj = np.asarray(
            jax.jit(jax.jacrev(lambda z: f2(f1(z, jnp), jnp)))(jnp.asarray(x))
        )
    err = max(_maxerr(J, J2 @ J1), _maxerr(J, Jj))
    assert err < 1e-13, f"{err:.1e}"
    return f"(3×4)(4×6) = (3×6), equal to the composite's Jacobian and jax ({err:.0e})"


@claim(
    "C6-10",
    section="6.2",
    lines=(2790, 2806),
    statement="Forward mode updates every stored tangent at each step: i − 1 "
    "Jacobian-matrix products at step i, l(l − 1)/2 for a chain of l primitives.",
)
def _c6_10() -> str:
    from alice_lab.autodiff import trace

    counts = {}
    for l in range(2, 7):
        fs, x, ws = trace.random_trace([3] * l, seed=l)  # l-1 FC layers + the loss
        res = trace.forward_mode(fs, x, ws)
        counts[l] = res.cost.tangent_updates
        assert counts[l] == l * (l - 1) // 2, (l, counts[l])
    return f"tangent updates by l: {counts}"


@claim(
    "C6-11",
    section="6.2",
    lines=(2806, 2808),
    equation="E.6.1",
    statement="Forward mode's output 1ᵀŴ_i is a row vector (1, p_i); transposed it is "
    "the gradient ∇_{w_i} y, a column of p_i entries.",
)
def _c6_11() -> str:
    import torch

    from alice_lab.autodiff import jacobian, trace

    f, p = trace.fc_primitive(4, 3)
    r = _rng(11)
    x, w = r.standard_normal(4), r.standard_normal(p)
    W_hat = jacobian(lambda v: f(x, v), w)  # the tangent after one step, (c', p)
    row = np.ones((1, 3)) @ W_hat
    wt = torch.tensor(w, requires_grad=True)
    torch.tanh(torch.tensor(x) @ wt[:12].reshape(4, 3) + wt[12:]).sum().backward()
    assert row.shape == (1, p) and row.T.shape == (p, 1)
    err = _maxerr(row.T[:, 0], wt.grad.numpy())
    assert err < 1e-14, f"{err:.1e}"
    return f"1ᵀŴ has shape {row.shape}; its transpose equals torch's gradient ({p},)"


@claim(
    "C6-12",
    section="6.2",
    lines=(2816, 2818),
    statement="A forward-mode update multiplies an (nd × nd) input Jacobian by an (nd "
    "× p_j) tangent: (nd)² p_j multiply-adds, quadratic in the batch n and the width "
    "d (doubling n quadruples it).",
)
def _c6_12() -> str:
    from alice_lab.autodiff import trace

    d, cost = 3, {}
    for n in (2, 4, 8):
        (f1, p1), (f2, p2) = (
            trace.fc_primitive(d, d, n=n),
            trace.fc_primitive(d, d, n=n),
        )
        r = _rng(n)
        res = trace.forward_mode(
            [f1, f2],
            r.standard_normal(n * d),
            [r.standard_normal(p1), r.standard_normal(p2)],
        )
        update = res.cost.multiply_adds - n * d * (p1 + p2)  # minus the final 1ᵀŴ sums
        assert update == (n * d) ** 2 * p1, (n, update)
        cost[n] = update
    assert cost[4] == 4 * cost[2] and cost[8] == 4 * cost[4]
    return f"update multiply-adds by n (d = 3, p = 12): {cost}"


# =====================================================================================
# 6.3 Reverse-mode differentiation
# =====================================================================================


@claim(
    "C6-13",
    section="6.3",
    lines=(2830, 2866),
    equation="E.6.2",
    statement="∇_{w_i} y = 1ᵀ [∂h_l/∂h_{l−1}] ⋯ [∂h_{i+1}/∂h_i] [∂h_i/∂w_i] is a "
    "chain of matrix products: evaluated left to right (vector first, reverse mode) "
    "or right to left (matrices first, forward mode) it gives the same gradient, at "
    "very different costs.",
)
def _c6_13() -> str:
    from alice_lab.autodiff import jacobian, trace
    from alice_lab.calculus import grad_fd

    fs, x, ws = trace.random_trace([6, 6, 6, 6, 6], seed=13)
    hs = trace.evaluate(fs, x, ws)
    i = 1  # the gradient of the first weights
    Jx = [
        jacobian(lambda z, f=f, w=w: f(z, w), h)
        for f, w, h in zip(fs, ws, hs[:-1], strict=True)
    ]
    Jw = jacobian(lambda v: fs[0](hs[0], v), ws[0])
    chain = [*Jx[i:][::-1], Jw]  # [dh_l/dh_{l-1}, ..., dh_2/dh_1, dh_1/dw_1]
    ones = np.ones(hs[-1].size)
    left, f_left = trace.chain_product(ones, chain, "left")
    right, f_right = trace.chain_product(ones, chain, "right")
    rev = trace.reverse_mode(fs, x, ws).grads[0]
    err = max(_maxerr(left, right), _maxerr(left, rev))
    assert err < 1e-12, f"{err:.1e}"
    # and the gradient itself, by central differences of y = 1ᵀh_l in w_1
    fd = grad_fd(
        lambda v: float(np.sum(trace.evaluate(fs, x, [v, *ws[1:]])[-1])), ws[0]
    )
    err_fd = _maxerr(left, fd)
    assert err_fd < 1e-8, f"finite differences: {err_fd:.1e}"
    assert f_left * 5 < f_right, (f_left, f_right)
    return (
        f"equal gradients ({err:.0e}); multiply-adds left→right {f_left}, "
        f"right→left {f_right}"
    )


@claim(
    "C6-14",
    section="6.3",
    lines=(2892, 2896),
    statement="The adjoints h̃_i of reverse mode are the gradients of the output with "
    "respect to the intermediate values h_i (what PyTorch's retain_grad() keeps).",
)
def _c6_14() -> str:
    import torch

    from alice_lab.autodiff import trace

    widths = (4, 5, 3)
    fs, x, ws = trace.random_trace(widths, seed=14)
    rev = trace.reverse_mode(fs, x, ws)
    hs = [torch.tensor(x, requires_grad=True)]
    for (ci, co), w in zip(
        zip(widths[:-1], widths[1:], strict=False), ws[:-1], strict=True
    ):
        wt = torch.tensor(w)
        h = torch.tanh(hs[-1] @ wt[: ci * co].reshape(ci, co) + wt[ci * co :])
        h.retain_grad()
        hs.append(h)
    out = hs[-1] ** 2
    out.retain_grad()
    hs.append(out)
    out.sum().backward()
    err = max(_maxerr(a, h.grad.numpy()) for a, h in zip(rev.adjoints, hs, strict=True))
    assert err < 1e-13, f"{err:.1e}"
    return f"{len(hs)} adjoints = torch .grad after retain_grad() ({err:.0e})"


def _saved_bytes(depth: int, grad: bool) -> tuple[int, int]:
    import torch

    count, size = [0], [0]

    def pack(t):
        count[0] += 1
        size[0] += t.numel() * t.element_size()
        return t

    x = torch.randn(16, 32, requires_grad=True)
    Ws = [torch.randn(32, 32) / 6 for _ in range(depth)]
    ctx = torch.enable_grad() if grad else torch.no_grad()
    with ctx, torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        h = x
        for W in Ws:
            h = torch.tanh(h @ W)
    return count[0], size[0]


@claim(
    "C6-15",
    section="6.3",
    lines=(2866, 2900),
    statement="Reverse mode must keep the intermediate values of the forward pass: "
    "the memory saved for the backward pass grows linearly with depth (and nothing is "
    "saved when no gradient is wanted).",
)
def _c6_15() -> str:
    from alice_lab.autodiff import Tensor, no_grad, toposort

    saved = {d: _saved_bytes(d, True) for d in (2, 4, 8)}
    assert saved[4][1] == 2 * saved[2][1] and saved[8][1] == 4 * saved[2][1], saved
    assert _saved_bytes(8, False) == (0, 0)

    def engine_nodes(depth, record=True):
        r = _rng(15)
        x = Tensor(r.standard_normal((16, 32)), requires_grad=True)
        h = x
        if record:
            for _ in range(depth):
                h = np.tanh(h @ (r.standard_normal((32, 32)) / 6))
        else:
            with no_grad():
                for _ in range(depth):
                    h = np.tanh(h @ (r.standard_normal((32, 32)) / 6))
        return len(toposort(h)) if h.requires_grad else 0

    nodes = {d: engine_nodes(d) for d in (2, 4, 8)}
    assert nodes == {d: 2 * d + 1 for d in (2, 4, 8)}, nodes
    assert engine_nodes(8, record=False) == 0
    return (
        f"torch saved bytes by depth { ({d: b for d, (_, b) in saved.items()}) }; "
        f"engine graph nodes {nodes}; none under no_grad"
    )


@claim(
    "E6-01",
    section="6.3",
    lines=(2900, 2900),
    erratum="intermediate values 'must be stored on disk'",
    statement=(
        "Reverse mode keeps the intermediate values in (device) memory: PyTorch"
        " saves them as ordinary tensors on the compute device and opens no "
        "file during the forward or the backward pass; offloading to disk is an"
        " option, not the rule."
    ),
)
def _e6_01() -> str:
    import torch

    devices, kinds = set(), set()

    def pack(t):
        devices.add(t.device.type)
        kinds.add(type(t).__name__)
        return t

    x = torch.randn(8, 8, requires_grad=True)
    torch.tanh(torch.tanh(x) @ x).sum().backward()  # lazy imports happen here, once
    with (
        _file_opens() as opened,
        torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t),
    ):
        torch.tanh(torch.tanh(x) @ x).sum().backward()
    assert devices <= {"cpu", "cuda"} and kinds <= {"Tensor", "Parameter"}, (
        devices,
        kinds,
    )
    assert devices, "nothing was saved"
    assert not opened, f"files opened during forward and backward: {opened}"
    return (
        f"saved for backward: {sorted(kinds)} on {sorted(devices)} memory; "
        "no file opened during forward and backward"
    )


_OPENS: list[list[str]] | None = None


@contextlib.contextmanager
def _file_opens():
    """Record every file the interpreter opens inside the block (Python's ``open``
    audit event, which also sees ``os.open`` and C extensions that go through it)."""
    global _OPENS
    if _OPENS is None:
        _OPENS = []

        def hook(event: str, args: tuple) -> None:
            if event == "open" and _OPENS:
                _OPENS[-1].append(str(args[0]))

        sys.addaudithook(hook)  # an audit hook cannot be removed: install it once
    _OPENS.append([])
    try:
        yield _OPENS[-1]
    finally:
        _OPENS.pop()


@claim(
    "C6-16",
    section="6.3",
    lines=(2900, 2950),
    equation="Figure F.6.1",
    statement="Gradient checkpointing: with 4 blocks and checkpoints at blocks 1, 2, "
    "4, block 3 is recomputed once: 5 block evaluations instead of 4 (1.25×), with "
    "the same gradients; fewer checkpoints mean more recomputation.",
)
def _c6_16() -> str:
    import itertools

    import torch
    from torch.utils.checkpoint import checkpoint

    from alice_lab.autodiff.checkpoint import checkpointed_gradients

    r = _rng(16)
    blocks = [lambda h, W: np.tanh(h @ W)] * 4
    x, ws = r.standard_normal((3, 5)), [r.standard_normal((5, 5)) / 2 for _ in range(4)]
    plain = checkpointed_gradients(blocks, x, ws)
    book = checkpointed_gradients(blocks, x, ws, stored=[1, 2, 4])
    assert (plain.evaluations, book.evaluations, book.recomputed) == (4, 5, [3])
    for a, b in zip(plain.grads, book.grads, strict=True):
        assert np.array_equal(a, b), "checkpointed gradients differ"
    evals = {}
    for k in range(5):
        for stored in itertools.combinations(range(1, 5), k):
            evals.setdefault(k, set()).add(
                checkpointed_gradients(blocks, x, ws, stored=stored).evaluations
            )
    assert evals == {k: {8 - k} for k in range(5)}, evals
    calls = [0]

    def block3(h, W):
        calls[0] += 1
        return torch.tanh(h @ W)

    tw = [torch.tensor(w, requires_grad=True) for w in ws]
    h = torch.tensor(x)
    for k, W in enumerate(tw, start=1):
        h = (
            checkpoint(block3, h, W, use_reentrant=False)
            if k == 3
            else torch.tanh(h @ W)
        )
    h.sum().backward()
    assert calls[0] == 2, calls
    err = max(_maxerr(a, W.grad.numpy()) for a, W in zip(plain.grads, tw, strict=True))
    assert err < 1e-13, f"{err:.1e}"
    return (
        f"evaluations 4 → 5 (1.25×), gradients identical; by number stored "
        f"{ {k: min(v) for k, v in evals.items()} }; torch.checkpoint ran block 3 twice"
    )


@claim(
    "C6-47",
    section="6.3",
    lines=(2946, 2946),
    equation="Figure F.6.1",
    statement=(
        "After block 3 is recomputed (panel (c) of Figure F.6.1) only backward "
        "steps remain: what panel (d) completes is the backward pass."
    ),
)
def _c6_47() -> str:
    from alice_lab.autodiff.checkpoint import checkpointed_gradients

    r = _rng(17)
    blocks = [lambda h, W: np.tanh(h @ W)] * 4
    run = checkpointed_gradients(
        blocks,
        r.standard_normal((2, 4)),
        [r.standard_normal((4, 4))] * 4,
        stored=[1, 2, 4],
    )
    i = run.events.index(("recompute", 3))
    after = run.events[i + 1 :]
    assert after == [("backward", 3), ("backward", 2), ("backward", 1)], after
    return "events after recomputing block 3: " + ", ".join(
        f"{k} {b}" for k, b in after
    )
