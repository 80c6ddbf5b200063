"""alice_lab.transformer blocks against torch.nn: the encoder block (pre- and post-norm)
against ``TransformerEncoderLayer`` with copied weights, the decoder block against
``TransformerDecoderLayer``, symmetry properties (permutation equivariance without
positions, causality), the variants (parallel, multi-query, Mixer, gated units, MONet),
and ValueErrors for mismatched shapes."""

from __future__ import annotations

import numpy as np
import pytest

import alice_lab.attention as A
import alice_lab.transformer as T


def _move(params, backend):
    if isinstance(params, dict):
        return {k: _move(v, backend) for k, v in params.items()}
    return backend.asarray(params)


def _torch_encoder(e, heads, p, norm_first, seed=0):
    import torch

    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(
        e, heads, p, dropout=0.0, batch_first=True, norm_first=norm_first
    ).double()
    with torch.no_grad():  # non-trivial layer-norm affine parameters
        for ln in (layer.norm1, layer.norm2):
            ln.weight.uniform_(0.5, 1.5)
            ln.bias.uniform_(-0.5, 0.5)
    return layer.eval()


@pytest.mark.parametrize("norm", ["pre", "post"])
def test_encoder_block_matches_torch_encoder_layer(backend, norm):
    import torch

    layer = _torch_encoder(8, 2, 16, norm_first=(norm == "pre"))
    X = np.random.default_rng(1).standard_normal((3, 5, 8))
    want = layer(torch.as_tensor(X)).detach().numpy()
    params = _move(T.from_torch_encoder_layer(layer), backend)
    got = T.transformer_block(backend.asarray(X), params, heads=2, norm=norm)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-10, atol=1e-12)


def test_pre_and_post_norm_are_different_models():
    layer = _torch_encoder(8, 2, 16, norm_first=True)
    P = T.from_torch_encoder_layer(layer)
    X = np.random.default_rng(2).standard_normal((4, 8))
    pre = T.transformer_block(X, P, heads=2, norm="pre")
    post = T.transformer_block(X, P, heads=2, norm="post")
    assert not np.allclose(pre, post)
    # post-norm ends with a layer norm: every token has mean beta-ish, pre-norm does not
    np.testing.assert_allclose(
        (post - P["ln2"]["beta"]) / P["ln2"]["gamma"] @ np.ones(8), 0, atol=1e-10
    )


def test_causal_encoder_block_matches_torch_with_a_causal_mask():
    import torch

    layer = _torch_encoder(8, 4, 16, norm_first=True, seed=3)
    X = np.random.default_rng(3).standard_normal((2, 6, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    want = layer(torch.as_tensor(X), src_mask=mask, is_causal=True).detach().numpy()
    got = T.transformer_block(
        X, T.from_torch_encoder_layer(layer), heads=4, causal=True
    )
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm", ["pre", "post"])
def test_decoder_block_matches_torch_decoder_layer(norm):
    import torch

    torch.manual_seed(4)
    layer = (
        torch.nn.TransformerDecoderLayer(
            8, 2, 16, dropout=0.0, batch_first=True, norm_first=(norm == "pre")
        )
        .double()
        .eval()
    )
    r = np.random.default_rng(4)
    Y, H = r.standard_normal((2, 5, 8)), r.standard_normal((2, 7, 8))  # n != m
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    want = (
        layer(torch.as_tensor(Y), torch.as_tensor(H), tgt_mask=mask, tgt_is_causal=True)
        .detach()
        .numpy()
    )
    got = T.decoder_block(Y, H, T.from_torch_decoder_layer(layer), heads=2, norm=norm)
    assert got.shape == (2, 5, 8)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_cross_attention_keys_and_values_come_from_the_encoder():
    r = np.random.default_rng(5)
    P = T.init_attention_params(6, rng=r)
    X, Z = r.standard_normal((4, 6)), r.standard_normal((9, 6))
    out = A.multi_head_attention(X, P, heads=2, Z=Z)
    assert out.shape == (4, 6)  # one row per query (decoder token)
    perm = r.permutation(9)
    np.testing.assert_allclose(
        A.multi_head_attention(X, P, heads=2, Z=Z[perm]), out, atol=1e-12
    )
    p4 = r.permutation(4)
    np.testing.assert_allclose(
        A.multi_head_attention(X[p4], P, heads=2, Z=Z), out[p4], atol=1e-12
    )


def test_block_without_positions_is_permutation_equivariant(rng):
    P = T.init_block_params(8, 2, 32, rng=rng)
    X = rng.standard_normal((7, 8))
    perm = rng.permutation(7)
    for norm in ("pre", "post"):
        out = T.transformer_block(X, P, heads=2, norm=norm)
        np.testing.assert_allclose(
            T.transformer_block(X[perm], P, heads=2, norm=norm), out[perm], atol=1e-12
        )


def test_causal_stack_never_reads_the_future(rng):
    blocks = [T.init_block_params(8, 2, 16, rng=rng) for _ in range(3)]
    X = rng.standard_normal((6, 8))
    X2 = X.copy()
    X2[4] += 10.0

    def run(A):
        for p in blocks:
            A = T.transformer_block(A, p, heads=2, causal=True)
        return A

    a, b = run(X), run(X2)
    np.testing.assert_array_equal(a[:4], b[:4])
    assert np.abs(a[4:] - b[4:]).max() > 1e-3


def test_block_param_count_matches_torch():
    layer = _torch_encoder(16, 4, 64, norm_first=True)
    n_torch = sum(p.numel() for p in layer.parameters())
    assert T.block_param_count(16, 4, 64, bias=True) == n_torch
    assert T.block_param_count(16, 4, 64) == 4 * 16 * 16 + 2 * 64 * 16 + 4 * 16


def test_parallel_block_fused_equals_unfused_and_differs_from_sequential(rng):
    P = T.init_block_params(8, 2, 16, rng=rng)
    for p in (P["attn"], P["mlp"]):
        for k in p:
            if k.startswith("b"):
                p[k] = rng.standard_normal(p[k].shape)
    X = rng.standard_normal((5, 8))
    a = T.parallel_block(X, P, heads=2)
    b = T.parallel_block(X, P, heads=2, fused=True)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    seq = X + A.multi_head_attention(X, P["attn"], heads=2)
    seq = seq + T.mlp_block(seq, P["mlp"]["W1"], P["mlp"]["W2"], P["mlp"]["b1"],
                            P["mlp"]["b2"], phi="relu")  # fmt: skip
    assert not np.allclose(a, seq)


def test_mlp_block_matches_the_book_column_form(rng):
    e, p = 4, 12
    W1b, W2b = rng.standard_normal((p, e)), rng.standard_normal((e, p))  # book shapes
    x = rng.standard_normal(e)
    book = W2b @ np.maximum(W1b @ x, 0)
    got = T.mlp_block(x[None], W1b.T, W2b.T, phi="relu")[0]
    np.testing.assert_allclose(got, book, rtol=1e-12)


def test_gated_units_against_torch(rng):
    import torch
    import torch.nn.functional as F

    X, A, B = (
        rng.standard_normal((4, 3)),
        rng.standard_normal((3, 5)),
        rng.standard_normal((3, 5)),
    )
    W = rng.standard_normal((5, 3))
    glu = T.glu(X, A, B)
    t = torch.as_tensor
    np.testing.assert_allclose(glu, F.glu(torch.cat([t(X @ B), t(X @ A)], -1)).numpy())
    np.testing.assert_allclose(T.glu(X, 0 * A, B), 0.5 * X @ B)
    sw = (F.silu(t(X) @ t(A)) * (t(X) @ t(B))) @ t(W)
    np.testing.assert_allclose(T.swiglu_mlp(X, A, B, W), sw.numpy(), rtol=1e-12)
    g = T.gated_unit(X, lambda Z: 1 / (1 + np.exp(-Z @ A)), lambda Z: Z @ B)
    np.testing.assert_allclose(g, glu, rtol=1e-12)


def _mixer_params(rng, n, e, pt=6, pc=10):
    tok = {"W1": rng.standard_normal((n, pt)), "W2": rng.standard_normal((pt, n))}
    ch = {"W1": rng.standard_normal((e, pc)), "W2": rng.standard_normal((pc, e))}
    return tok, ch


def test_mixer_block_against_an_einsum_reference(rng):
    import torch

    n, e = 5, 4
    tok, ch = _mixer_params(rng, n, e)
    H = rng.standard_normal((2, n, e))
    g = torch.nn.functional.gelu
    t = torch.as_tensor
    A = g(torch.einsum("bne,ep->bnp", t(H), t(ch["W1"])))
    H1 = torch.einsum("bnp,pe->bne", A, t(ch["W2"])) + t(H)
    B = g(torch.einsum("bne,nq->beq", H1, t(tok["W1"])))
    H2 = torch.einsum("beq,qn->bne", B, t(tok["W2"])) + H1
    got = T.mixer_block(H, tok, ch)
    np.testing.assert_allclose(got, H2.numpy(), rtol=1e-10, atol=1e-12)
    perm = rng.permutation(n)
    assert not np.allclose(T.mixer_block(H[:, perm], tok, ch), got[:, perm])
    with pytest.raises(ValueError, match="built for sequences of length n=5"):
        T.mixer_block(rng.standard_normal((6, e)), tok, ch)
    assert T.mixer_param_count(n, e, 6, 10) == sum(
        v.size for v in (*tok.values(), *ch.values())
    )


def test_shift_channel_groups_is_a_zero_filled_shift(rng):
    H = rng.standard_normal((5, 4))
    S = T.shift_channel_groups(H, (1, -1))
    np.testing.assert_array_equal(S[1:, :2], H[:-1, :2])
    np.testing.assert_array_equal(S[0, :2], 0)
    np.testing.assert_array_equal(S[:-1, 2:], H[1:, 2:])
    with pytest.raises(ValueError, match="cannot be split"):
        T.shift_channel_groups(H, (1, 0, 0))


def test_monet_block_is_a_degree_two_polynomial(rng):
    e, m, r = 6, 8, 2
    X = rng.standard_normal((5, e))
    A, D = rng.standard_normal((e, m)), rng.standard_normal((e, m))
    B1, B2, E = (
        rng.standard_normal((e, r)),
        rng.standard_normal((r, m)),
        rng.standard_normal((m, e)),
    )

    def Hf(Z):
        return T.monet_block(Z, A, B1, B2, D, E)

    quad = ((X @ A) * (X @ B1 @ B2)) @ E
    np.testing.assert_allclose(Hf(2 * X) - 2 * Hf(X), 2 * quad, rtol=1e-10, atol=1e-10)
    assert np.linalg.matrix_rank(B1 @ B2) <= r


def test_bad_shapes_raise_value_errors(rng):
    P = T.init_block_params(8, 2, 16, rng=rng)
    with pytest.raises(ValueError, match=r"expected X \(\.\.\., n, 8\)"):
        T.transformer_block(rng.standard_normal((4, 6)), P, heads=2)
    with pytest.raises(ValueError, match="norm must be 'pre' or 'post'"):
        T.transformer_block(rng.standard_normal((4, 8)), P, heads=2, norm="middle")
    with pytest.raises(ValueError, match="divisible by heads"):
        T.init_block_params(8, 3, 16)
    with pytest.raises(ValueError, match=r"expected X \(\.\.\., e\), W1 \(e, p\)"):
        T.mlp_block(np.ones((2, 3)), np.ones((4, 5)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="mask must have shape"):
        A.multi_head_attention(
            np.ones((3, 8)), P["attn"], heads=2, mask=np.ones((2, 2)) > 0
        )
    Pd = T.init_block_params(8, 2, 16, cross=True, rng=rng)
    with pytest.raises(ValueError, match="expected Y"):
        T.decoder_block(np.ones((3, 8)), np.ones((4, 6)), Pd, heads=2)
