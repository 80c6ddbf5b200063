"""Checkable claims of Chapter 13, §13.2: recurrent layers, BPTT and gating (book lines
6383-6517). References: torch.nn recurrent modules and autograd, finite differences,
closed forms."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng


def _rnn_setup(seed: int, e: int = 3, c: int = 2, n: int = 6, scale: float = 0.8):
    r = _rng(seed)
    return (
        scale * r.standard_normal((e, e)),
        r.standard_normal((e, c)),
        r.standard_normal((n, c)),
    )


@claim(
    "C13-07",
    section="13.2.1",
    lines=(6399, 6401),
    statement="A recurrent layer starts from s₀ = 0, is causal, and a bidirectional "
    "layer outputs 2o features (torch nn.RNN(bidirectional=True) agrees).",
)
def _c13_07() -> str:
    import torch

    from alice_lab.recurrent import bidirectional, params_from_torch, rnn

    torch.manual_seed(0)
    layer = torch.nn.RNN(2, 4, batch_first=True, bidirectional=True).double()
    pf, pb = params_from_torch(layer), params_from_torch(layer, suffix="_reverse")
    X = _rng(1).standard_normal((1, 7, 2))
    out = bidirectional(
        lambda X, reverse: rnn(X, pf, reverse=reverse),
        lambda X, reverse: rnn(X, pb, reverse=reverse),
        X,
    )
    want = layer(torch.as_tensor(X))[0].detach().numpy()
    err = _maxerr(out, want)
    assert out.shape == (1, 7, 8) and err < 1e-12, (out.shape, err)
    S, _ = rnn(X, pf)
    X2 = X.copy()
    X2[:, 4:] += 1.0
    assert np.array_equal(rnn(X2, pf)[0][:, :4], S[:, :4])
    return f"bidirectional output (1, 7, 8) = torch to {err:.0e}; forward layer causal"


@claim(
    "C13-08",
    section="13.2.1",
    lines=6403,
    statement="The same parameters process sequences of any length (n = 5 and "
    "n = 500).",
)
def _c13_08() -> str:
    import torch

    from alice_lab.recurrent import elman_rnn

    A, B, _ = _rnn_setup(2)
    r = _rng(3)
    X500 = r.standard_normal((500, 2))
    # torch's nn.RNN with the same (A, B) and no biases is the reference at each length
    layer = torch.nn.RNN(2, 3, bias=False, batch_first=True).double()
    with torch.no_grad():
        layer.weight_hh_l0.copy_(torch.from_numpy(A))
        layer.weight_ih_l0.copy_(torch.from_numpy(B))
    shapes, errs = [], []
    for n in (5, 500):
        S = _np(elman_rnn(X500[:n], A, B)[1])
        ref = layer(torch.from_numpy(X500[None, :n]))[0][0].detach().numpy()
        shapes.append(S.shape)
        errs.append(_maxerr(S, ref))
    assert shapes == [(5, 3), (500, 3)] and max(errs) < 1e-12, (shapes, errs)
    return (
        f"state sequences {shapes[0]} and {shapes[1]} with one (A, B), both = torch's "
        f"nn.RNN ({max(errs):.0e})"
    )


@claim(
    "C13-09",
    section="13.2.2",
    lines=(6407, 6413),
    equation="E.13.14–E.13.15",
    statement="The Elman layer has A (e, e), B (e, c), C (o, e), D (o, c), so "
    "e² + ec + oe + oc weights; nn.RNNCell adds two biases (ec + e² + 2e) and, "
    "with copied weights, matches the NumPy cell; a loop of cells is nn.RNN.",
)
def _c13_09() -> str:
    import torch

    from alice_lab.recurrent import params_from_torch, rnn, rnn_cell

    e, c = 5, 3
    torch.manual_seed(1)
    cell = torch.nn.RNNCell(c, e)  # float32, as in the book's box
    count = sum(p.numel() for p in cell.parameters())
    assert count == c * e + e * e + 2 * e, count
    p = params_from_torch(cell)
    r = _rng(4)
    x, s = r.standard_normal((4, c)), r.standard_normal((4, e))
    got = rnn_cell(s, x, p["weight_hh"], p["weight_ih"], p["bias_ih"] + p["bias_hh"])
    want = (
        cell(
            torch.as_tensor(x, dtype=torch.float32),
            torch.as_tensor(s, dtype=torch.float32),
        )
        .detach()
        .numpy()
    )
    err32 = _maxerr(got, want)
    assert err32 < 1e-6, err32
    layer = torch.nn.RNN(c, e, batch_first=True).double()
    X = r.standard_normal((2, 9, c))
    err = _maxerr(
        rnn(X, params_from_torch(layer))[0],
        layer(torch.as_tensor(X))[0].detach().numpy(),
    )
    assert err < 1e-12, err
    shapes = (tuple(p["weight_hh"].shape), tuple(p["weight_ih"].shape))
    assert shapes == ((e, e), (e, c)), shapes  # A and B as torch stores them
    return (
        f"{count} torch parameters; cell vs RNNCell (float32) {err32:.0e}; "
        f"loop vs nn.RNN {err:.0e}"
    )


@claim(
    "C13-10",
    section="13.2.2",
    lines=6413,
    statement="An echo state network trains only its readout: the reservoir (A, B) "
    "is unchanged by fitting, and with spectral radius < 1 two different initial "
    "states converge under the same input.",
)
def _c13_10() -> str:
    from alice_lab.recurrent import esn_fit_readout, esn_reservoir, esn_states

    A, B = esn_reservoir(50, 1, spectral_radius=0.8, seed=0)
    A0, B0 = A.copy(), B.copy()
    t = np.arange(400) * 0.1
    X, Y = np.sin(t)[:, None], np.sin(t + 0.1)[:, None]
    S = esn_states(X, A, B)
    W = esn_fit_readout(S[50:], Y[50:], ridge=1e-8)
    pred = np.hstack([S[50:], np.ones((350, 1))]) @ W
    rmse = float(np.sqrt(np.mean((pred - Y[50:]) ** 2)))
    assert np.array_equal(A, A0) and np.array_equal(B, B0)
    S2 = esn_states(X, A, B, s0=np.ones(50))
    gap = float(np.abs(S2[-1] - S[-1]).max())
    assert gap < 1e-8 and rmse < 1e-2, (gap, rmse)
    return (
        f"reservoir untouched; one-step sine RMSE {rmse:.1e}; initial-state gap "
        f"after 400 steps {gap:.0e}"
    )


@claim(
    "C13-11",
    section="13.2.2",
    lines=6415,
    statement="The state update is a chain: s_i depends on s_{i−1}, so the loop "
    "over time cannot be vectorised (every ∂s_i/∂s_{i−1} is non-zero).",
)
def _c13_11() -> str:
    from alice_lab.recurrent import rnn_forward

    A, B, X = _rnn_setup(5)
    _, dphi = rnn_forward(A, B, X)
    norms = [np.linalg.norm(d[:, None] * A) for d in dphi]
    assert min(norms) > 0
    return f"‖∂s_i/∂s_(i−1)‖ ∈ [{min(norms):.2f}, {max(norms):.2f}] for all i"


@claim(
    "C13-12",
    section="13.2.2",
    lines=6451,
    statement="Unrolled, an RNN is an n-layer network with shared weights: the "
    "gradient for the shared A is the sum of the gradients for untied copies.",
)
def _c13_12() -> str:
    import torch

    A, B, X = _rnn_setup(6, n=7)
    At = torch.tensor(A, requires_grad=True)
    copies = [torch.tensor(A, requires_grad=True) for _ in X]
    s = u = torch.zeros(3, dtype=torch.float64)
    for i, x in enumerate(torch.as_tensor(X)):
        s = torch.tanh(At @ s + torch.as_tensor(B) @ x)
        u = torch.tanh(copies[i] @ u + torch.as_tensor(B) @ x)
    s.sum().backward()
    u.sum().backward()
    err = _maxerr(sum(c.grad for c in copies), At.grad)
    assert err < 1e-14, err
    return f"shared vs Σ untied (torch autograd): {err:.0e}"


@claim(
    "C13-13",
    section="13.2.2",
    lines=(6453, 6461),
    equation="E.13.17",
    statement="BPTT: ∂_A s_n = Σ_i s̃_i ∂_A f(s_{i−1}, x_i) with s̃_i = J_n⋯J_{i+1}; "
    "it matches central finite differences and torch autograd.",
)
def _c13_13() -> str:
    import torch

    from alice_lab.calculus import jacobian_fd
    from alice_lab.recurrent import bptt_weight_jacobian, rnn_forward

    A, B, X = _rnn_setup(7)
    J = bptt_weight_jacobian(A, B, X)
    fd = jacobian_fd(lambda A_: rnn_forward(A_, B, X)[0][-1], A)
    err_fd = _maxerr(J, fd)
    jac = torch.autograd.functional.jacobian(
        lambda A_: _torch_rnn(A_, B, X), torch.as_tensor(A)
    ).numpy()
    err_t = _maxerr(J, jac)
    assert err_fd < 1e-8 and err_t < 1e-12, (err_fd, err_t)
    return f"e=3, c=2, n=6: vs finite differences {err_fd:.0e}, vs torch {err_t:.0e}"


def _torch_rnn(A, B, X):
    import torch

    s = torch.zeros(A.shape[0], dtype=torch.float64)
    for x in torch.as_tensor(X):
        s = torch.tanh(A @ s + torch.as_tensor(B) @ x)
    return s


@claim(
    "C13-14",
    section="13.2.2",
    lines=6485,
    statement="Gradients vanish or explode: for a linear diagonal A, s̃_1 = A^{n−1}, "
    "‖s̃_1‖ < 1e-10 at ρ = 0.5 and > 1e6 at ρ = 1.5 (n = 40); with tanh, "
    "‖s̃_i‖₂ ≤ ‖A‖₂^{n−i}.",
)
def _c13_14() -> str:
    from alice_lab.recurrent import bptt_products

    n = 40
    X = np.zeros((n, 1))
    out = {}
    for rho in (0.5, 1.5):
        A = np.diag([rho, 0.5 * rho])
        P = bptt_products(A, np.ones((2, 1)), X, phi="linear")
        assert _maxerr(P[0], np.linalg.matrix_power(A, n - 1)) <= 1e-12 * rho**n
        out[rho] = np.linalg.norm(P[0], 2)
    assert out[0.5] < 1e-10 and out[1.5] > 1e6, out
    A, B, X = _rnn_setup(8, n=20, scale=1.0)
    P = bptt_products(A, B, X)
    a2 = np.linalg.norm(A, 2)
    ok = all(np.linalg.norm(P[i], 2) <= a2 ** (19 - i) * (1 + 1e-12) for i in range(20))
    assert ok
    return f"‖s̃₁‖: ρ=0.5 → {out[0.5]:.1e}, ρ=1.5 → {out[1.5]:.1e}; tanh bound holds"


@claim(
    "C13-15",
    section="13.2.2",
    lines=6487,
    statement="Truncated BPTT keeps the last K terms (K ≥ n − 1 is the full "
    "gradient); norm clipping leaves ‖g‖ ≤ τ and does not touch small gradients "
    "(as torch.nn.utils.clip_grad_norm_).",
)
def _c13_15() -> str:
    import torch

    from alice_lab.recurrent import bptt_weight_jacobian, clip_grad_norm

    A, B, X = _rnn_setup(9, n=8)
    full = bptt_weight_jacobian(A, B, X)
    assert np.array_equal(bptt_weight_jacobian(A, B, X, truncate=7), full)
    short = bptt_weight_jacobian(A, B, X, truncate=2)
    g = [np.full(4, 5.0), np.full((2, 2), -5.0)]
    clipped = clip_grad_norm(g, 1.0)
    ts = [torch.tensor(x) for x in g]
    for t in ts:
        t.grad = t.clone()
    torch.nn.utils.clip_grad_norm_(ts, 1.0)
    err = max(_maxerr(c, t.grad) for c, t in zip(clipped, ts, strict=True))
    norm = float(np.sqrt(sum((c**2).sum() for c in clipped)))
    assert (
        err < 1e-12 and norm <= 1.0 and clip_grad_norm([g[0] / 100], 1.0)[0][0] == 0.05
    )
    drop = _maxerr(full, short)
    return f"K=2 drops {drop:.2e}; clipped norm {norm:.6f} = torch ({err:.0e})"


@claim(
    "C13-16",
    section="13.2.3",
    lines=(6491, 6509),
    statement="A gate γ ≈ 0 keeps the state: with gate bias −20 the Li-GRU returns s "
    "and its Jacobian ∂f/∂s ≈ I; with bias +20 it is the vanilla cell.",
)
def _c13_16() -> str:
    from alice_lab.calculus import jacobian_fd
    from alice_lab.recurrent import li_gru_cell, rnn_cell

    r = _rng(10)
    A, B, V, U = (r.standard_normal(s) for s in ((3, 3), (3, 2), (3, 3), (3, 2)))
    s, x = r.uniform(-1, 1, 3), r.standard_normal(2)
    J = jacobian_fd(lambda s_: li_gru_cell(s_, x, A, B, V, U, gate_bias=-20.0), s)
    keep = _maxerr(li_gru_cell(s, x, A, B, V, U, gate_bias=-20.0), s)
    vanilla = _maxerr(
        li_gru_cell(s, x, A, B, V, U, gate_bias=20.0), np.tanh(A @ s + B @ x)
    )
    errJ = _maxerr(J, np.eye(3))
    assert keep < 1e-6 and errJ < 1e-6 and vanilla < 1e-6, (keep, errJ, vanilla)
    assert _maxerr(rnn_cell(s, x, A, B), np.tanh(A @ s + B @ x)) < 1e-15
    return (
        f"closed gate: |f − s| {keep:.0e}, |∂f/∂s − I| {errJ:.0e}; open: {vanilla:.0e}"
    )


@claim(
    "E13-02",
    section="13.2.3",
    lines=6503,
    statement="Gating acts feature by feature: if γ_i ≈ 0 the i-th feature of the "
    "state is kept, if γ_i ≈ 1 it takes the new value.",
    erratum="… while if γ_1 ≈ 1 …",
)
def _e13_02() -> str:
    from alice_lab.recurrent import li_gru_cell

    r = _rng(11)
    A, B, V, U = (r.standard_normal(s) for s in ((3, 3), (3, 2), (3, 3), (3, 2)))
    s, x = r.uniform(-1, 1, 3), r.standard_normal(2)
    bias = np.array([20.0, -20.0, 20.0])
    out = li_gru_cell(s, x, A, B, V, U, gate_bias=bias)
    new = np.tanh(A @ s + B @ x)
    assert abs(out[1] - s[1]) < 1e-6 and _maxerr(out[[0, 2]], new[[0, 2]]) < 1e-6
    return "γ = (≈1, ≈0, ≈1): feature 2 kept, features 1 and 3 updated"


@claim(
    "C13-17",
    section="13.2.3",
    lines=(6509, 6515),
    statement="The Li-GRU update is a convex combination of the vanilla update and "
    "the old state: each output lies between them, so with tanh and ‖s₀‖∞ ≤ 1 "
    "states stay in [−1, 1].",
)
def _c13_17() -> str:
    from alice_lab.recurrent import li_gru_cell

    r = _rng(12)
    A, B, V, U = (2 * r.standard_normal(s) for s in ((4, 4), (4, 2), (4, 4), (4, 2)))
    s = r.uniform(-1, 1, 4)
    worst = 0.0
    for x in 3 * r.standard_normal((200, 2)):
        new = li_gru_cell(s, x, A, B, V, U)
        cand = np.tanh(A @ s + B @ x)
        lo, hi = np.minimum(s, cand), np.maximum(s, cand)
        assert ((new >= lo - 1e-15) & (new <= hi + 1e-15)).all()
        s = new
        worst = max(worst, float(np.abs(s).max()))
    assert worst <= 1.0
    return f"200 steps: between old and candidate every time; max |s| = {worst:.3f}"
