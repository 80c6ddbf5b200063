"""Checkable claims of Chapter 11, §11.1-11.2.3: causal masking, cross-attention,
memory layers, the encoder-decoder, complexity, the online softmax and the KV cache
(book lines 5604-5771). References: torch's ``scaled_dot_product_attention`` and
``autograd``, NumPy written out by hand."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _sdpa_torch(Q, K, V, causal=False, scale=None):
    import torch
    import torch.nn.functional as F

    t = torch.as_tensor
    return F.scaled_dot_product_attention(
        t(Q), t(K), t(V), is_causal=causal, scale=scale
    ).numpy()


def _qkv(seed, n=6, m=None, d=4, dv=3):
    r = _rng(seed)
    m = n if m is None else m
    return (
        r.standard_normal((n, d)),
        r.standard_normal((m, d)),
        r.standard_normal((m, dv)),
    )


# --- 11.1.1 causal attention ---------------------------------------------------------


@claim(
    "C11-01",
    section="11.1",
    lines=(5609, 5611),
    statement="An encoder-decoder maps a source of length n to a target of another "
    "length m: the logits have one row per target token whatever n is.",
)
def _c11_01() -> str:
    import torch

    from alice_lab.transformer import EncoderDecoder

    torch.manual_seed(0)
    model = EncoderDecoder(7, 9, e=16, heads=2, depth=1, context=16).eval()
    shapes = []
    for n, m in ((11, 5), (3, 8)):
        out = model(
            torch.zeros(2, n, dtype=torch.long), torch.zeros(2, m, dtype=torch.long)
        )
        assert tuple(out.shape) == (2, m, 9), (n, m, tuple(out.shape))
        shapes.append(f"n={n} -> {tuple(out.shape)}")
    return "; ".join(shapes)


@claim(
    "C11-02",
    section="11.1.1",
    lines=(5615, 5615),
    statement="Tokens interact only in the attention, so three blocks with causal "
    "attention form a causal model: ∂h_s/∂x_t = 0 for every t > s (torch autograd).",
)
def _c11_02() -> str:
    import torch

    from alice_lab.transformer import init_block_params, transformer_block

    r = _rng(2)
    blocks = [init_block_params(8, 2, 16, rng=r) for _ in range(3)]
    blocks = [{k: {a: torch.as_tensor(b) for a, b in v.items()} for k, v in p.items()}
              for p in blocks]  # fmt: skip
    x = torch.as_tensor(r.standard_normal((6, 8)))

    def f(X):
        for p in blocks:
            X = transformer_block(X, p, heads=2, causal=True)
        return X

    J = torch.autograd.functional.jacobian(f, x)  # (6, 8, 6, 8)
    Jn = J.abs().sum(dim=(1, 3)).numpy()  # (s, t)
    upper = np.triu(Jn, 1).max()
    assert upper == 0.0 and Jn[np.tril_indices(6)].min() > 0, Jn
    low = Jn[np.tril_indices(6)].min()
    return f"max |∂h_s/∂x_t| over t > s = {upper}; min over t ≤ s = {low:.2e}"


@claim(
    "C11-03",
    section="11.1.1",
    lines=(5619, 5623),
    statement="Masking after the softmax is wrong: the first output still depends on "
    "the "
    "last token through the denominator; masking inside the softmax does not.",
)
def _c11_03() -> str:
    import torch

    X = torch.as_tensor(_rng(3).standard_normal((5, 4)), dtype=torch.float64)
    tri = torch.tril(torch.ones(5, 5, dtype=torch.float64))

    def wrong(X):
        return (torch.softmax(X @ X.T / 2, -1) * tri) @ X

    def right(X):
        S = (X @ X.T / 2).masked_fill(tri == 0, float("-inf"))
        return torch.softmax(S, -1) @ X

    gw = torch.autograd.functional.jacobian(lambda X: wrong(X)[0], X)[:, 4].abs().max()
    gr = torch.autograd.functional.jacobian(lambda X: right(X)[0], X)[:, 4].abs().max()
    assert gw > 1e-6 and gr == 0, (float(gw), float(gr))
    return f"|∂h_0/∂x_4|: post-softmax mask {float(gw):.3f}, additive mask {float(gr)}"


@claim(
    "C11-04",
    section="11.1.1",
    lines=(5623, 5623),
    statement="An additive mask of zeros changes nothing, since exp(0) = 1.",
)
def _c11_04() -> str:
    Q, K, V = _qkv(4)
    from alice_lab.attention import scaled_dot_product_attention as sdpa

    out = sdpa(Q, K, V, mask=np.zeros((6, 6)))
    err = _maxerr(out, _sdpa_torch(Q, K, V))
    assert err < 1e-12, err
    return f"max |masked − unmasked| = {err:.1e}"


@claim(
    "C11-05",
    section="11.1.1",
    lines=(5623, 5625),
    statement="With the additive causal mask (−∞ above the diagonal) the attention "
    "matrix is lower triangular with exact zeros, rows sum to 1 and row 0 is "
    "[1, 0, …, 0]; the output equals torch's is_causal attention.",
)
def _c11_05() -> str:
    from alice_lab.attention import (
        attention_weights,
        causal_mask,
        scaled_dot_product_attention as sdpa,
    )

    Q, K, V = _qkv(5)
    A = np.asarray(attention_weights(Q, K, mask=causal_mask(6)))
    assert np.all(np.triu(A, 1) == 0) and np.allclose(A.sum(1), 1), A
    assert np.array_equal(A[0], np.eye(6)[0])
    err = _maxerr(sdpa(Q, K, V, mask=causal_mask(6)), _sdpa_torch(Q, K, V, causal=True))
    assert err < 1e-12, err
    return f"upper triangle exactly 0, row sums 1, vs torch is_causal {err:.1e}"


@claim(
    "E11-01",
    section="11.1.1",
    lines=(5617, 5625),
    equation="Masked-SA",
    statement="The causal mask is additive: softmax(QKᵀ/√k + M) with M_ij = −∞ for "
    "j > i and 0 otherwise. The printed product QKᵀ ⊙ M, with −∞ for i > j and 1 "
    "elsewhere, masks the wrong triangle and turns negative scores into +∞ (NaN rows).",
    erratum="Masked-SA(X) = softmax((QKᵀ ⊙ M)/√k)V with M_ij = −∞ if i > j, "
    "1 otherwise",
)
def _e11_01() -> str:
    from alice_lab.attention import literal_book_causal_attention

    Q, K, V = _qkv(6, n=4)
    with np.errstate(invalid="ignore", over="ignore"):
        lit = np.asarray(literal_book_causal_attention(Q, K, V))
    nan_rows = int(np.isnan(lit).any(axis=1).sum())
    S = Q @ K.T / 2 + np.triu(np.full((4, 4), -np.inf), 1)
    right = _softmax(S) @ V
    err = _maxerr(right, _sdpa_torch(Q, K, V, causal=True))
    assert nan_rows > 0 and err < 1e-12, (nan_rows, err)
    # the printed mask leaves the upper triangle (the future) unmasked
    M = np.where(np.tri(4, k=-1) > 0, -np.inf, 1.0)
    assert np.all(M[np.triu_indices(4, 1)] == 1.0)
    return f"literal formula: {nan_rows}/4 NaN rows; additive mask = torch to {err:.0e}"


@claim(
    "C11-07",
    section="11.1.1",
    lines=(5627, 5627),
    statement="A mask of −10⁹ gives the −∞ result in float32 and float64; caveats: a "
    "fully masked row becomes uniform instead of NaN, and −10⁹ overflows to −∞ in "
    "float16 (use finfo(dtype).min).",
)
def _c11_07() -> str:
    Q, K, V = _qkv(7)
    S = Q @ K.T / 2
    up = np.triu(np.ones((6, 6), bool), 1)
    for dt in (np.float32, np.float64):
        a = _softmax(np.where(up, -np.inf, S).astype(dt))
        b = _softmax((S + np.where(up, -1e9, 0)).astype(dt))
        assert np.allclose(a, b, atol=1e-7), dt
    full = np.full(6, -1e9)
    assert np.allclose(_softmax(full), 1 / 6)
    with np.errstate(invalid="ignore"):
        assert np.isnan(_softmax(np.full(6, -np.inf))).all()
    with np.errstate(over="ignore"):
        f16 = np.float16(-1e9)
    assert np.isneginf(f16) and np.finfo(np.float16).min == -65504
    return (
        "−1e9 ≡ −∞ (float32/64); all-masked row: uniform vs NaN; float16(−1e9) = −inf"
    )


# --- 11.1.2 cross-attention ----------------------------------------------------------


def _ca_params(seed, e=5, k=3):
    r = _rng(seed)
    return (
        r.standard_normal((e, k)),
        r.standard_normal((e, k)),
        r.standard_normal((e, 4)),
    )


def _sa3(X1, X2, X3, Wq, Wk, Wv):
    return _softmax(X1 @ Wq @ Wk.T @ X2.T / np.sqrt(Wq.shape[1])) @ X3 @ Wv


@claim(
    "C11-08",
    section="11.1.2",
    lines=(5635, 5637),
    statement="The three-input SA(X₁, X₂, X₃) with X₁ = X₂ = X₃ = X is self-attention.",
)
def _c11_08() -> str:
    Wq, Wk, Wv = _ca_params(8)
    X = _rng(80).standard_normal((6, 5))
    want = _sdpa_torch(X @ Wq, X @ Wk, X @ Wv)
    err = _maxerr(_sa3(X, X, X, Wq, Wk, Wv), want)
    assert err < 1e-12, err
    return f"SA(X, X, X) vs torch SDPA: {err:.1e}"


@claim(
    "C11-09",
    section="11.1.2",
    lines=(5639, 5641),
    equation="E.11.1",
    statement="CA(X, Z) = SA(X, Z, Z): queries from X (n, e), keys and values from "
    "Z (m, e); the output is (n, v) for any m.",
)
def _c11_09() -> str:
    from alice_lab.attention import multi_head_attention

    Wq, Wk, Wv = _ca_params(9)
    r = _rng(90)
    X = r.standard_normal((4, 5))
    for m in (1, 3, 17):
        Z = r.standard_normal((m, 5))
        want = _sdpa_torch(X @ Wq, Z @ Wk, Z @ Wv)
        got = multi_head_attention(
            X, {"Wq": Wq, "Wk": Wk, "Wv": Wv, "Wo": np.eye(4)}, heads=1, Z=Z
        )
        err = max(_maxerr(_sa3(X, Z, Z, Wq, Wk, Wv), want), _maxerr(got, want))
        assert err < 1e-12 and got.shape == (4, 4), (m, err)
    return "CA(X, Z) = SA(X, Z, Z) = torch SDPA, shape (4, 4) for m ∈ {1, 3, 17}"


@claim(
    "C11-10",
    section="11.1.2",
    lines=(5641, 5641),
    statement="Cross-attention is self-attention on the concatenation [X; Z] with a "
    "mask "
    "that lets the X rows see only the Z columns: its first n rows equal CA(X, Z).",
)
def _c11_10() -> str:
    Wq, Wk, Wv = _ca_params(10)
    r = _rng(100)
    X, Z = r.standard_normal((4, 5)), r.standard_normal((7, 5))
    XZ = np.concatenate([X, Z])
    S = XZ @ Wq @ Wk.T @ XZ.T / np.sqrt(3)
    M = np.zeros((11, 11))
    M[:4, :4] = -np.inf  # X rows: only Z columns
    out = (_softmax(S + M) @ XZ @ Wv)[:4]
    err = _maxerr(out, _sdpa_torch(X @ Wq, Z @ Wk, Z @ Wv))
    assert err < 1e-12, err
    return f"masked SA on [X; Z], rows :n vs CA: {err:.1e}"


@claim(
    "C11-11",
    section="11.1.2",
    lines=(5641, 5641),
    statement="CA(X, Z) is permutation equivariant in X and invariant to permutations "
    "of the rows of Z.",
)
def _c11_11() -> str:
    Wq, Wk, Wv = _ca_params(11)
    r = _rng(110)
    X, Z = r.standard_normal((4, 5)), r.standard_normal((7, 5))
    out = _sdpa_torch(X @ Wq, Z @ Wk, Z @ Wv)
    p, q = r.permutation(4), r.permutation(7)
    e1 = _maxerr(_sa3(X[p], Z, Z, Wq, Wk, Wv), out[p])
    e2 = _maxerr(_sa3(X, Z[q], Z[q], Wq, Wk, Wv), out)
    assert max(e1, e2) < 1e-12, (e1, e2)
    return f"CA(PX, Z) − P·CA: {e1:.1e}; CA(X, P′Z) − CA: {e2:.1e}"


@claim(
    "C11-12",
    section="11.1.2",
    lines=(5645, 5653),
    equation="E.11.2-E.11.3",
    statement="NeuralMemory with W_q = I, no √k and φ = softmax is the 'MLP' φ(XK)V; "
    "with φ = ReLU it is the bias-free two-layer MLP with W₁ = Kᵀ, W₂ = Vᵀ.",
)
def _c11_12() -> str:
    import torch

    from alice_lab.transformer import mlp_block

    r = _rng(12)
    X, K, V = (
        r.standard_normal((5, 4)),
        r.standard_normal((4, 9)),
        r.standard_normal((9, 3)),
    )
    mem = _sdpa_torch(X @ np.eye(4), K.T, V, scale=1.0)
    e1 = _maxerr(mem, _softmax(X @ K) @ V)
    lin1, lin2 = (
        torch.nn.Linear(4, 9, bias=False).double(),
        torch.nn.Linear(9, 3, bias=False).double(),
    )
    with torch.no_grad():
        lin1.weight.copy_(torch.as_tensor(K.T))
        lin2.weight.copy_(torch.as_tensor(V.T))
    mlp = lin2(torch.relu(lin1(torch.as_tensor(X)))).detach().numpy()
    e2 = _maxerr(mlp_block(X, K, V, phi="relu"), mlp)
    assert max(e1, e2) < 1e-12, (e1, e2)
    return f"memory vs softmax(XK)V {e1:.1e}; relu(XK)V vs torch MLP {e2:.1e}"


@claim(
    "C11-13",
    section="11.1.3",
    lines=(5659, 5667),
    statement="A decoder block has three sub-layers (masked SA, cross-attention, MLP), "
    "a decoder-only block two: the difference is one attention layer and one layer "
    "norm, 4e² + 4e + 2e parameters (matches torch's decoder vs encoder layer).",
)
def _c11_13() -> str:
    import torch

    from alice_lab.transformer import block_param_count, init_block_params

    e, p = 16, 64
    enc = torch.nn.TransformerEncoderLayer(e, 4, p, batch_first=True)
    dec = torch.nn.TransformerDecoderLayer(e, 4, p, batch_first=True)
    n_enc = sum(t.numel() for t in enc.parameters())
    n_dec = sum(t.numel() for t in dec.parameters())
    ours = block_param_count(e, 4, p, bias=True, cross=True)
    assert n_dec == ours and n_dec - n_enc == 4 * e * e + 4 * e + 2 * e, (n_dec, ours)
    subl = [k for k in init_block_params(e, 4, p, cross=True) if not k.startswith("ln")]
    assert subl == ["attn", "cross", "mlp"], subl
    return f"decoder layer {n_dec} = ours, encoder layer {n_enc}; sub-layers {subl}"


@claim(
    "E11-02",
    section="11.1.3",
    lines=(5663, 5663),
    statement="In the decoder's cross-attention the queries come from the decoder "
    "stream and the keys and values from the encoder output H (as in E.11.1 and "
    "torch.nn.TransformerDecoderLayer); the output has one row per decoder token.",
    erratum="a cross-attention layer where the queries are given by the input "
    "sequence embedding H",
)
def _e11_02() -> str:
    import torch

    from alice_lab.transformer import decoder_block, from_torch_decoder_layer

    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    layer = layer.double().eval()
    r = _rng(21)
    Y, H = r.standard_normal((1, 3, 8)), r.standard_normal((1, 7, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    want = layer(torch.as_tensor(Y), torch.as_tensor(H), tgt_mask=mask).detach().numpy()
    got = decoder_block(Y, H, from_torch_decoder_layer(layer), heads=2, norm="post")
    err = _maxerr(got, want)
    assert got.shape == (1, 3, 8) and err < 1e-10, err
    return f"output (1, 3, 8) for 3 decoder and 7 encoder tokens; vs torch {err:.1e}"


# --- 11.2 complexity, online softmax, KV cache ----------------------------------------


@claim(
    "C11-15",
    section="11.2.1",
    lines=(5689, 5689),
    statement="QKᵀ takes n² dot products of length k and the product with V n²v "
    "multiply-adds: n²(k + v) in all, quadratic in n; a 1-D convolution is linear.",
)
def _c11_15() -> str:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    def flops(n, k=8, v=8):
        Q, K, V = torch.randn(n, k), torch.randn(n, k), torch.randn(n, v)
        with FlopCounterMode(display=False) as fc:
            torch.softmax(Q @ K.T, -1) @ V
        return fc.get_total_flops() // 2  # multiply-adds

    def conv_flops(n, e=8, s=3):
        x, w = torch.randn(1, e, n), torch.randn(e, e, s)
        with FlopCounterMode(display=False) as fc:
            torch.nn.functional.conv1d(x, w, padding=1)
        return fc.get_total_flops() // 2

    for n in (16, 64):
        assert flops(n) == n * n * 16, (n, flops(n))
    ratio, conv_ratio = flops(128) / flops(64), conv_flops(128) / conv_flops(64)
    assert ratio == 4 and conv_ratio == 2, (ratio, conv_ratio)
    return (
        f"torch FLOP counter: n²(k+v) exactly; doubling n: attention ×{ratio:g}, "
        f"conv ×{conv_ratio:g}"
    )


@claim(
    "C11-16",
    section="11.2.1",
    lines=(5691, 5691),
    statement="Cross-attending from r trainable latents to n tokens costs n·r·(k + v) "
    "multiply-adds, linear in n.",
)
def _c11_16() -> str:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    def flops(n, r=4, k=8):
        L, X = torch.randn(r, k), torch.randn(n, k)
        with FlopCounterMode(display=False) as fc:
            out = torch.softmax(L @ X.T, -1) @ X
        assert tuple(out.shape) == (r, k)
        return fc.get_total_flops() // 2

    a, b = flops(100), flops(200)
    assert a == 100 * 4 * 16 and b == 2 * a, (a, b)
    return f"n=100: {a} multiply-adds = n·r·(k+v); n=200: {b} (×2)"


@claim(
    "C11-39",
    section="11.2.1",
    equation="Box 11.1",
    lines=(5675, 5685),
    statement=(
        "Box 11.1's naive self_attention, kept simple for counting time and "
        "memory, leaves out the 1/√k of scaled dot-product attention: it equals"
        " torch's SDPA with scale = 1, not the default 1/√k."
    ),
)
def _c11_39() -> str:
    from alice_lab.attention import naive_attention

    Q, K, V = _qkv(13, d=16)
    box = np.asarray(naive_attention(Q, K, V))
    e1 = _maxerr(box, _sdpa_torch(Q, K, V, scale=1.0))
    e2 = _maxerr(box, _sdpa_torch(Q, K, V))
    assert e1 < 1e-12 and e2 > 1e-3, (e1, e2)
    return f"Box 11.1 vs SDPA(scale=1): {e1:.1e}; vs SDPA(1/√k): {e2:.2f}"


@claim(
    "C11-38",
    section="11.2.1",
    lines=(5691, 5691),
    statement="The r trainable tokens of a linear-cost cross-attention can take either "
    "role, with n·r scores in both: as keys and values (Z in CA(X, Z), E.11.1) the "
    "layer keeps the n rows of X, like the SA layer it replaces; as queries (the "
    "Perceiver's latent bottleneck) it returns r rows.",
)
def _c11_38() -> str:
    from alice_lab.attention import scaled_dot_product_attention as sdpa

    r_tokens, e = 3, 4
    Z = _rng(14).standard_normal((r_tokens, e))  # the trainable tokens
    sizes = {}
    for n in (50, 100, 200):
        X = _rng(n).standard_normal((n, e))
        as_kv, as_q = sdpa(X, Z, Z), sdpa(Z, X, X)
        err = max(
            _maxerr(as_kv, _softmax(X @ Z.T / np.sqrt(e)) @ Z),
            _maxerr(as_q, _softmax(Z @ X.T / np.sqrt(e)) @ X),
            _maxerr(as_kv, _sdpa_torch(X, Z, Z)),
            _maxerr(as_q, _sdpa_torch(Z, X, X)),
        )
        assert err < 1e-12, err
        assert as_kv.shape == (n, e) and as_q.shape == (r_tokens, e)
        sizes[n] = (X @ Z.T).size
    assert all(sizes[n] == n * r_tokens for n in sizes), sizes
    return (
        f"scores for n = 50, 100, 200: {list(sizes.values())} (n·r, r = {r_tokens}); "
        f"output rows: n as keys/values, {r_tokens} as queries"
    )


@claim(
    "C11-17",
    section="11.2.2",
    lines=(5697, 5697),
    statement="Naive attention materialises the n×n matrix (peak memory ∝ n²); the "
    "chunked version's extra memory grows only linearly with n.",
)
def _c11_17() -> str:
    import tracemalloc

    from alice_lab.attention import chunked_attention

    def peak(fn, n):
        r = _rng(17)
        Q, K, V = (
            r.standard_normal((n, 8)),
            r.standard_normal((n, 8)),
            r.standard_normal((n, 8)),
        )
        tracemalloc.start()
        fn(Q, K, V)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p

    def naive(Q, K, V):
        return _softmax(Q @ K.T) @ V

    def chunked(Q, K, V):
        return chunked_attention(Q, K, V, chunk_size=64, query_chunk_size=64)

    rn = peak(naive, 1024) / peak(naive, 512)
    rc = peak(chunked, 1024) / peak(chunked, 512)
    assert rn > 3.0 and rc < 2.6, (rn, rc)
    return f"peak memory, n 512 → 1024: naive ×{rn:.2f}, chunked ×{rc:.2f}"


@claim(
    "C11-18",
    section="11.2.2",
    lines=(5699, 5735),
    equation="E.11.5, E.11.8",
    statement="Summing the per-chunk numerators h_i and denominators L_i reproduces SA "
    "exactly for any number of chunks; normalising each chunk separately does not.",
)
def _c11_18() -> str:
    r = _rng(18)
    q, K, V = r.standard_normal(4), r.standard_normal((9, 4)), r.standard_normal((9, 3))
    want = _sdpa_torch(q[None], K, V, scale=1.0)[0]
    errs = []
    for m in (1, 2, 3, 9):
        parts = np.array_split(np.arange(9), m)
        h = sum(np.exp(K[c] @ q) @ V[c] for c in parts)
        L = sum(np.exp(K[c] @ q).sum() for c in parts)
        errs.append(_maxerr(h / L, want))
        per_chunk = sum(
            (np.exp(K[c] @ q) / np.exp(K[c] @ q).sum()) @ V[c] for c in parts
        )
        if m > 1:
            assert not np.allclose(per_chunk / m, want)
    assert max(errs) < 1e-12, errs
    return (
        f"chunks 1, 2, 3, 9: max error {max(errs):.1e}; per-chunk normalisation differs"
    )


@claim(
    "C11-19",
    section="11.2.2",
    lines=(5731, 5741),
    statement="With a running maximum (rescale L and h by e^(m−m′) at each chunk) the "
    "online softmax equals torch's attention at any logit scale, including ×1000.",
)
def _c11_19() -> str:
    from alice_lab.attention import chunked_attention

    Q, K, V = _qkv(19, n=8, d=4)
    errs = []
    for s in (1.0, 1000.0):
        got = chunked_attention(s * Q, K, V, chunk_size=3)
        errs.append(_maxerr(got, _sdpa_torch(s * Q, K, V)))
    assert max(errs) < 1e-10, errs
    return f"scale 1: {errs[0]:.1e}; scale 1000: {errs[1]:.1e}"


@claim(
    "C11-20",
    section="11.2.2",
    lines=(5741, 5741),
    statement="The online softmax gives torch's attention for any block size, with and "
    "without the causal mask.",
)
def _c11_20() -> str:
    from alice_lab.attention import chunked_attention

    Q, K, V = _qkv(21, n=16, d=4)
    worst = 0.0
    for B in (1, 3, 16):
        for causal in (False, True):
            got = chunked_attention(Q, K, V, chunk_size=B, causal=causal)
            worst = max(worst, _maxerr(got, _sdpa_torch(Q, K, V, causal=causal)))
    assert worst < 1e-12, worst
    return f"block sizes 1, 3, 16 × causal on/off: max error {worst:.1e}"


def _ring_attention(Q, K, V, devices, rotate="kv"):
    """Simulated RingAttention: device i keeps query block i; blocks travel the ring."""
    qb = np.array_split(Q, devices)
    kb, vb = np.array_split(K, devices), np.array_split(V, devices)
    outs = []
    for i in range(devices):
        m, L, h = -np.inf, 0.0, 0.0
        q = qb[i]
        for step in range(devices):
            j = (i + step) % devices
            k, v = kb[j], (vb[j] if rotate == "kv" else vb[i])
            if rotate == "kq":
                q = qb[j]
            S = q @ k.T / np.sqrt(Q.shape[1])
            new = np.maximum(m, S.max(1, keepdims=True))
            P = np.exp(S - new)
            L = L * np.exp(m - new) + P.sum(1, keepdims=True)
            h = h * np.exp(m - new) + P @ v
            m = new
        outs.append(h / L)
    return np.concatenate(outs)


@claim(
    "E11-06",
    section="11.2.2",
    lines=(5741, 5741),
    statement="RingAttention keeps each device's queries and rotates the chunks of "
    "keys "
    "and values around the ring; rotating keys and queries (values left in place) "
    "does not compute attention.",
    erratum="rotating chunks of keys and queries",
)
def _e11_06() -> str:
    Q, K, V = _qkv(22, n=12)
    want = _sdpa_torch(Q, K, V)
    e_kv = _maxerr(_ring_attention(Q, K, V, 4, "kv"), want)
    e_kq = _maxerr(_ring_attention(Q, K, V, 4, "kq"), want)
    assert e_kv < 1e-12 and e_kq > 1e-3, (e_kv, e_kq)
    return (
        f"4 simulated devices: rotating K, V error {e_kv:.1e}; rotating K, Q {e_kq:.2f}"
    )


@claim(
    "C11-22",
    section="11.2.3",
    lines=(5757, 5757),
    statement="With a KV cache each step computes one new attention row against the "
    "cached keys and values; incremental decoding equals full causal recomputation.",
)
def _c11_22() -> str:
    from alice_lab.attention import KVCache

    r = _rng(23)
    X = r.standard_normal((10, 4))
    Wq, Wk, Wv = (r.standard_normal((4, 4)) for _ in range(3))
    full = _sdpa_torch(X @ Wq, X @ Wk, X @ Wv, causal=True)
    cache, rows = KVCache(), []
    for t in range(10):
        x = X[t : t + 1]
        cache.append(x @ Wk, x @ Wv)
        rows.append(np.asarray(cache.attend(x @ Wq)))
    err = _maxerr(np.concatenate(rows), full)
    assert err < 1e-12 and len(cache) == 10, err
    return f"10 cached steps vs torch causal SDPA: {err:.1e}; cache length {len(cache)}"


@claim(
    "C11-23",
    section="11.2.3",
    lines=(5759, 5759),
    statement="The KV cache grows linearly with the sequence: layers·heads·n·(k+v)·"
    "itemsize bytes; a causal convolution keeps only its receptive field.",
)
def _c11_23() -> str:
    from alice_lab.attention import KVCache, kv_cache_bytes

    cache = KVCache()
    sizes = []
    for _ in range(8):
        cache.append(np.zeros((2, 1, 16), np.float32), np.zeros((2, 1, 16), np.float32))
        sizes.append(cache.nbytes())
    assert np.all(np.diff(sizes) == sizes[0]) and sizes[0] == 2 * 32 * 4, sizes
    assert kv_cache_bytes(1024, 12, 12, 64, 64, "float16") == 12 * 12 * 1024 * 128 * 2
    conv_buffer = (3 - 1) * 16  # kernel 3: the last two inputs, whatever n
    return (
        f"cache bytes after 1..8 tokens: {sizes[:3]}… (+{sizes[0]} each); conv "
        f"buffer {conv_buffer} floats"
    )
