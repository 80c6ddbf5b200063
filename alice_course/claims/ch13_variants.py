"""Checkable claims of Chapter 13, §13.4: attention-free transformers, RWKV and
selective SSMs (book lines 6715-6837), with the erratum on AFT's per-channel form
(line 6749).
References: hand-written sums, softmax from scipy, closed forms."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _qkv(seed: int, n: int = 7, e: int = 3):
    r = _rng(seed)
    return tuple(r.standard_normal((n, e)) for _ in range(3))


@claim(
    "C13-30",
    section="13.4.1",
    lines=(6727, 6735),
    statement="Without position biases AFT costs O(ne): the context Σⱼ softmaxⱼ(k)⊙vⱼ "
    "is the same for every i, so H / σ(Q) has identical rows.",
    equation="E.13.24",
)
def _c13_30() -> str:
    from alice_lab.recurrent import aft

    Q, K, V = _qkv(0)
    ctx = aft(Q, K, V) / expit(Q)
    spread = _maxerr(ctx, np.broadcast_to(ctx[0], ctx.shape))
    assert spread < 1e-12, spread
    return f"rows of H/σ(Q) differ by {spread:.0e}"


@claim(
    "C13-40",
    section="13.4.1",
    lines=(6755, 6759),
    statement="With relative embeddings W ~ (m, m) the layer is h_i = σ(q_i) ⊙ Σⱼ "
    "softmaxⱼ(k_j + W_ij) ⊙ v_j: each token gets its own weights over the sequence "
    "(n² e work), unlike the plain layer, whose single shared context makes it linear "
    "in n and e (C13-30).",
    equation="E.13.25",
)
def _c13_40() -> str:
    from alice_lab.recurrent import aft

    Q, K, V = _qkv(1, n=6)
    W = _rng(2).standard_normal((6, 6))
    got = aft(Q, K, V, W)
    want = np.array(
        [
            expit(Q[i]) * (softmax(K + W[i][:, None], axis=0) * V).sum(0)
            for i in range(6)
        ]
    )
    err = _maxerr(got, want)
    ctx = got / expit(Q)
    spread = _maxerr(ctx, np.broadcast_to(ctx[0], ctx.shape))
    assert err < 1e-12 and spread > 1e-3, (err, spread)
    return f"= per-token loop ({err:.0e}); contexts differ by {spread:.2f}"


@claim(
    "C13-31",
    section="13.4.1",
    lines=(6745, 6753),
    statement="Channel by channel AFT is attention over the sequence with weights "
    "softmaxⱼ(k_{·z}).",
)
def _c13_31() -> str:
    from alice_lab.recurrent import aft

    Q, K, V = _qkv(3)
    want = np.stack(
        [expit(Q[:, z]) * (softmax(K[:, z]) @ V[:, z]) for z in range(3)], 1
    )
    err = _maxerr(aft(Q, K, V), want)
    assert err < 1e-12, err
    return f"per-channel softmax attention: {err:.0e}"


@claim(
    "E13-06",
    section="13.4.1",
    lines=6749,
    statement="Per channel, h_iz = σ(q_iz) Σⱼ exp(k_jz) v_jz / Σⱼ exp(k_jz): the "
    "value belongs inside the sum.",
    erratum="h_iz = σ(q_iz) Σⱼexp(k_jz) / Σⱼexp(k_jz) · v_jz (v outside the sum)",
)
def _e13_06() -> str:
    from alice_lab.recurrent import aft

    Q, K, V = _qkv(4)
    inside = expit(Q) * (np.exp(K) * V).sum(0) / np.exp(K).sum(0)
    outside = expit(Q) * V  # the printed ratio is 1, leaving σ(q)·v (read with j = i)
    got = aft(Q, K, V)
    assert _maxerr(got, inside) < 1e-12 and _maxerr(got, outside) > 0.1
    a, b = _maxerr(got, inside), _maxerr(got, outside)
    return f"inside: {a:.0e}; printed reading: {b:.2f}"


@claim(
    "C13-32",
    section="13.4.1",
    lines=(6757, 6761),
    statement="W has shape (m, m) for sequences up to m; W = 0 gives plain AFT and "
    "W_ij = −∞ for j > i gives the causal variant.",
    equation="E.13.25",
)
def _c13_32() -> str:
    from alice_lab.recurrent import aft

    Q, K, V = _qkv(5)
    m = 10
    zero = _maxerr(aft(Q, K, V, np.zeros((m, m))), aft(Q, K, V))
    mask = np.where(np.tril(np.ones((m, m))) > 0, 0.0, -np.inf)
    causal_ref = np.array(
        [
            expit(Q[i]) * (softmax(K[: i + 1], axis=0) * V[: i + 1]).sum(0)
            for i in range(7)
        ]
    )
    err = max(
        _maxerr(aft(Q, K, V, mask), causal_ref),
        _maxerr(aft(Q, K, V, causal=True), causal_ref),
    )
    assert zero < 1e-12 and err < 1e-12, (zero, err)
    return f"W = 0: {zero:.0e}; masked W = causal: {err:.0e}"


def _rwkv_ref(R, K, V, w, u):
    n = len(K)
    out = []
    for i in range(n):
        num = (
            sum(np.exp(K[j] - (i - j) * w) * V[j] for j in range(i))
            + np.exp(K[i] + u) * V[i]
        )
        den = sum(np.exp(K[j] - (i - j) * w) for j in range(i)) + np.exp(K[i] + u)
        out.append(expit(R[i]) * num / den)
    return np.array(out)


@claim(
    "C13-33",
    section="13.4.2",
    lines=(6771, 6781),
    equation="unnumbered display between E.13.25 and E.13.26",
    statement="RWKV's time mixing has a parallel form and a recurrent one with two "
    "running sums per channel; they agree, and a running-maximum version stays "
    "finite where the naive recurrence overflows.",
)
def _c13_33() -> str:
    from alice_lab.recurrent import rwkv_time_mix

    R, K, V = _qkv(6, n=9, e=4)
    r = _rng(7)
    w, u = r.uniform(0, 1, 4), r.standard_normal(4)
    ref = _rwkv_ref(R, K, V, w, u)
    errs = [
        _maxerr(rwkv_time_mix(R, K, V, w, u, form=f), ref)
        for f in ("parallel", "recurrent", "stable")
    ]
    K32 = (K + 100.0).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        naive32 = np.exp(K32)  # what the naive recurrence exponentiates
    stable = rwkv_time_mix(R, K + 100.0, V, w, u, form="stable")
    assert max(errs) < 1e-12 and not np.isfinite(naive32).all()
    assert _maxerr(stable, ref) < 1e-10
    return f"parallel/recurrent/stable vs sums: {max(errs):.0e}; k + 100 stays finite"


@claim(
    "C13-34",
    section="13.4.2",
    lines=6791,
    statement="The channel mix σ(W₁x) ⊙ W₂ max(0, W₃x)² is a squared-ReLU MLP with "
    "a gate: with the gate at 1 it is W₂ relu(W₃x)², and it is ≥ 0 when W₂ ≥ 0.",
    equation="E.13.26",
)
def _c13_34() -> str:
    from alice_lab.recurrent import rwkv_channel_mix

    r = _rng(8)
    X = r.standard_normal((5, 4))
    W1, W2, W3 = (r.standard_normal((4, 4)) for _ in range(3))
    big = 1e3 * np.eye(4)
    Xp = np.abs(X)  # gate σ(1000 x) = 1 for x > 0
    err = _maxerr(
        rwkv_channel_mix(Xp, big, W2, W3), np.maximum(Xp @ W3.T, 0) ** 2 @ W2.T
    )
    assert err < 1e-10 and (rwkv_channel_mix(X, W1, np.abs(W2), W3) >= 0).all()
    return f"gate 1: {err:.0e}; W₂ ≥ 0 ⇒ output ≥ 0"


@claim(
    "C13-35",
    section="13.4.2",
    lines=6793,
    statement="Token shift mixes x_i and x_{i−1}: μ = 1 is the identity, μ = 0 a "
    "shift by one (x₀ = 0).",
)
def _c13_35() -> str:
    from alice_lab.recurrent import token_shift

    X = _rng(9).standard_normal((6, 3))
    assert np.array_equal(token_shift(X, np.ones(3)), X)
    sh = token_shift(X, np.zeros(3))
    assert np.array_equal(sh[1:], X[:-1]) and not sh[0].any()
    half = token_shift(X, np.full(3, 0.5))
    assert _maxerr(half[1:], (X[1:] + X[:-1]) / 2) < 1e-15
    return "μ = 1 identity, μ = 0 shift, μ = 0.5 average"


@claim(
    "C13-36",
    section="13.4.3",
    lines=(6797, 6809),
    statement="Linear attention without the denominator is an SSM with A = I and "
    "input-dependent B and C; unlike an LTI SSM it is not a fixed convolution "
    "(not linear in its input).",
    equation="E.13.27, E.13.28",
)
def _c13_36() -> str:
    from alice_lab.recurrent import unnormalized_linear_attention

    Q, K, V = _qkv(10)
    phi = lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))  # noqa: E731
    S, ref = np.zeros((3, 3)), []
    for q, k, v in zip(phi(Q), phi(K), V, strict=True):
        S = np.eye(3) @ S + np.outer(k, v)  # A = I, B_i = φ(k_i)
        ref.append(q @ S)  # C_i = φ(q_i)ᵀ
    errs = [
        _maxerr(unnormalized_linear_attention(Q, K, V, form=f), ref)
        for f in ("parallel", "recurrent")
    ]
    f = lambda X: unnormalized_linear_attention(X, X, X)  # noqa: E731
    nonlin = _maxerr(f(2 * Q), 2 * f(Q))
    assert max(errs) < 1e-12 and nonlin > 1e-3
    return f"both forms = SSM loop ({max(errs):.0e}); f(2X) − 2f(X) = {nonlin:.1f}"


@claim(
    "C13-37",
    section="13.4.3",
    lines=6823,
    statement="A = exp(ΔĀ) with Ā < 0 and Δ = softplus(·) > 0 lies in (0, 1); and "
    "exp(−softplus(z)) = 1 − σ(z), so a scalar selective SSM is a gated RNN "
    "s_i = (1 − σ(z_i)) s_{i−1} + σ(z_i) x_i.",
)
def _c13_37() -> str:
    z = np.linspace(-20, 20, 401)
    sp = np.logaddexp(0, z)
    err = _maxerr(np.exp(-sp), 1 - expit(z))
    A = np.exp(np.outer(sp, -np.exp(np.linspace(-3, 3, 7))))
    assert err < 1e-12 and ((A > 0) & (A < 1)).all()
    r = _rng(11)
    zs, xs = r.standard_normal(20), r.standard_normal(20)
    s = g = 0.0
    for zi, xi in zip(zs, xs, strict=True):
        s = np.exp(-np.logaddexp(0, zi)) * s + (1 - np.exp(-np.logaddexp(0, zi))) * xi
        g = (1 - expit(zi)) * g + expit(zi) * xi
    assert abs(s - g) < 1e-12
    return f"exp(−softplus) vs 1 − σ: {err:.0e}; decays in (0, 1); gated RNN equal"


@claim(
    "C13-38",
    section="13.4.3",
    lines=6835,
    statement="A selective SSM still runs as a scan over (a_i, b_i) with time-varying "
    "a_i; what it loses is the fixed convolution kernel.",
)
def _c13_38() -> str:
    from alice_lab.recurrent import selective_ssm

    r = _rng(12)
    n, c, e = 12, 2, 3
    X = r.standard_normal((n, c))
    args = (
        -np.exp(r.standard_normal((c, e))),
        r.standard_normal((e, c)),
        r.standard_normal((e, c)),
        r.standard_normal((c, c)),
        r.standard_normal(c),
    )
    A_bar, W_B, W_C, W_d, b_d = args
    s, loop = np.zeros((c, e)), []
    for x in X:  # the per-channel recurrence of lines 6823-6835, written out
        dlt = np.log1p(np.exp(W_d @ x + b_d))
        s = np.exp(dlt[:, None] * A_bar) * s + (dlt * x)[:, None] * (W_B @ x)[None]
        loop.append(s @ (W_C @ x))
    H = selective_ssm(X, *args)
    err = max(_maxerr(selective_ssm(X, *args, method="scan"), loop), _maxerr(H, loop))
    _, decay = selective_ssm(X, *args, return_decay=True)
    varies = float(np.ptp(decay, axis=0).max())
    assert err < 1e-12 and varies > 1e-3
    return f"scan = loop ({err:.0e}); decays vary over time by up to {varies:.2f}"


@claim(
    "C13-39",
    section="13.4.3",
    lines=6835,
    statement="Per channel, every SSM matrix of the selective layer is a vector: the "
    "state of channel z is (e,), the decay (e,).",
)
def _c13_39() -> str:
    from alice_lab.recurrent import selective_ssm

    r = _rng(13)
    n, c, e = 5, 4, 6
    X = r.standard_normal((n, c))
    _, decay = selective_ssm(
        X,
        -np.ones((c, e)),
        r.standard_normal((e, c)),
        r.standard_normal((e, c)),
        np.eye(c),
        np.zeros(c),
        return_decay=True,
    )
    assert decay.shape == (n, c, e)
    return f"decay per (token, channel): vector of size e = {decay.shape[-1]}"
