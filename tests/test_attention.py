"""alice_lab.attention: scaled dot-product, multi-head, cross- and multi-query
attention against torch.nn / torch.nn.functional on every backend, with masks and
causal masking; chunked attention against the naive result; the KV cache; shape
errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from alice_lab import attention as A, transformer as T


def _qkv(rng, b=2, n=5, m=7, d=4, dv=3):
    return (
        rng.standard_normal((b, n, d)),
        rng.standard_normal((b, m, d)),
        rng.standard_normal((b, m, dv)),
    )


def _torch_sdpa(Q, K, V, **kw):
    t = [torch.as_tensor(x) for x in (Q, K, V)]
    if "attn_mask" in kw and isinstance(kw["attn_mask"], np.ndarray):
        kw["attn_mask"] = torch.as_tensor(kw["attn_mask"])
    return torch.nn.functional.scaled_dot_product_attention(*t, **kw).numpy()


@pytest.mark.parametrize("n, m", [(5, 7), (6, 6), (1, 3)])
def test_sdpa_matches_torch_on_every_backend(backend, rng, n, m):
    Q, K, V = _qkv(rng, n=n, m=m)
    got = A.scaled_dot_product_attention(*(backend.asarray(x) for x in (Q, K, V)))
    assert (
        type(got).__module__.split(".")[0]
        == type(backend.asarray(Q)).__module__.split(".")[0]
    )
    np.testing.assert_allclose(backend.to_numpy(got), _torch_sdpa(Q, K, V), atol=1e-12)


def test_boolean_and_additive_masks_match_torch(backend, rng):
    Q, K, V = _qkv(rng)
    keep = rng.random((5, 7)) < 0.6
    keep[:, 0] = True  # no fully masked row
    want = _torch_sdpa(Q, K, V, attn_mask=keep)
    args = [backend.asarray(x) for x in (Q, K, V)]
    got_b = A.scaled_dot_product_attention(*args, mask=backend.asarray(keep))
    additive = np.where(keep, 0.0, -np.inf)
    got_a = A.scaled_dot_product_attention(*args, mask=backend.asarray(additive))
    np.testing.assert_allclose(backend.to_numpy(got_b), want, atol=1e-12)
    np.testing.assert_allclose(backend.to_numpy(got_a), want, atol=1e-12)
    np.testing.assert_allclose(
        A.scaled_dot_product_attention(Q, K, V, mask=keep), want, atol=1e-12
    )


def test_causal_matches_torch_is_causal_and_the_additive_mask(backend, rng):
    Q, K, V = _qkv(rng, n=6, m=6)
    want = _torch_sdpa(Q, K, V, is_causal=True)
    args = [backend.asarray(x) for x in (Q, K, V)]
    got = A.scaled_dot_product_attention(*args, causal=True)
    np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)
    M = A.causal_mask(6, like=args[0])
    assert M.shape == (6, 6)
    got_m = A.scaled_dot_product_attention(*args, mask=M)
    np.testing.assert_allclose(backend.to_numpy(got_m), want, atol=1e-12)
    W = backend.to_numpy(A.attention_weights(*args[:2], causal=True))
    assert np.all(np.triu(W, 1) == 0) and np.allclose(W.sum(-1), 1)
    np.testing.assert_array_equal(W[:, 0], np.eye(6)[0][None].repeat(2, 0))


def test_causal_mask_is_additive_minus_inf_above_the_diagonal():
    M = A.causal_mask(4)
    assert np.all(M[np.triu_indices(4, 1)] == -np.inf)
    assert np.all(M[np.tril_indices(4)] == 0.0)
    assert A.boolean_causal_mask(2, 4).tolist() == [
        [True, True, True, False],
        [True, True, True, True],
    ]


def test_the_literal_book_mask_fails_and_the_wrong_post_softmax_mask_leaks(rng):
    Q, K, V = rng.standard_normal((3, 6, 4))
    lit = A.literal_book_causal_attention(Q, K, V)
    assert np.isnan(lit).any()
    # post-softmax masking ("Wrong", line 5621): output 0 depends on the last token
    X = torch.tensor(rng.standard_normal((6, 4)), requires_grad=True)
    M = torch.tril(torch.ones(6, 6, dtype=torch.float64))
    (torch.softmax(X @ X.T / 2, -1) * M @ X)[0].sum().backward()
    assert X.grad[-1].abs().max() > 1e-6
    X.grad = None
    S = X @ X.T / 2 + torch.as_tensor(A.causal_mask(6))
    (torch.softmax(S, -1) @ X)[0].sum().backward()
    assert X.grad[-1].abs().max() == 0


def test_mha_matches_torch_multiheadattention_with_copied_weights(rng):
    e, h, n = 8, 2, 5
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        ref.in_proj_bias.normal_()
        ref.out_proj.bias.normal_()
    ours = A.MultiHeadAttention.from_torch(ref)
    x = torch.as_tensor(rng.standard_normal((3, n, e)))
    keep = torch.as_tensor(rng.random((n, n)) < 0.7) | torch.eye(n, dtype=torch.bool)
    for kw_ref, kw_ours in [
        ({}, {}),
        ({"attn_mask": ~keep}, {"mask": keep}),  # torch: True = masked out
        (
            {
                "attn_mask": torch.nn.Transformer.generate_square_subsequent_mask(
                    n, dtype=torch.float64
                ),
                "is_causal": True,
            },
            {"causal": True},
        ),
    ]:
        want = ref(x, x, x, need_weights=False, **kw_ref)[0]
        got = ours(x, **kw_ours)
        torch.testing.assert_close(got, want, atol=1e-12, rtol=0)
        # the functional version with the same weights
        f = A.multi_head_attention(
            x.numpy(),
            ours.numpy_params(),
            heads=h,
            mask=kw_ours.get("mask", None) if "mask" not in kw_ours else keep.numpy(),
            causal=kw_ours.get("causal", False),
        )
        np.testing.assert_allclose(f, want.detach().numpy(), atol=1e-12)


def test_mha_module_padding_and_kv_cache_match_torch(rng):
    e, h, n = 8, 2, 6
    torch.manual_seed(2)
    ref = torch.nn.MultiheadAttention(e, h, batch_first=True, dtype=torch.float64)
    ours = A.MultiHeadAttention.from_torch(ref)
    x = torch.as_tensor(rng.standard_normal((2, n, e)))
    pad = torch.zeros(2, n, dtype=torch.bool)
    pad[0, 4:], pad[1, 5:] = True, True  # True = padding, as in torch
    want = ref(x, x, x, key_padding_mask=pad, need_weights=False)[0]
    torch.testing.assert_close(ours(x, key_padding_mask=pad), want, atol=1e-12, rtol=0)
    # KV cache: feeding the tokens one at a time equals the causal pass on all of them
    causal = torch.nn.Transformer.generate_square_subsequent_mask(n, dtype=x.dtype)
    want = ref(x, x, x, attn_mask=causal, need_weights=False)[0]
    cache: dict = {}
    steps = [ours(x[:, t : t + 1], causal=True, cache=cache) for t in range(n)]
    torch.testing.assert_close(torch.cat(steps, 1), want, atol=1e-12, rtol=0)
    assert cache["k"].shape == (2, h, n, e // h)


def test_cross_attention_matches_torch_and_is_invariant_to_permuting_z(rng):
    e, h = 6, 3
    torch.manual_seed(1)
    ref = torch.nn.MultiheadAttention(
        e, h, batch_first=True, bias=False, dtype=torch.float64
    )
    ours = A.MultiHeadAttention.from_torch(ref)
    X, Z = rng.standard_normal((2, 4, e)), rng.standard_normal((2, 9, e))
    want = ref(*(torch.as_tensor(t) for t in (X, Z, Z)), need_weights=False)[0]
    got = A.cross_attention(X, Z, ours.numpy_params(), heads=h)
    np.testing.assert_allclose(got, want.detach().numpy(), atol=1e-12)
    perm = rng.permutation(9)
    np.testing.assert_allclose(
        A.cross_attention(X, Z[:, perm], ours.numpy_params(), heads=h), got, atol=1e-12
    )


def test_multi_query_attention_equals_mha_with_tied_kv(backend, rng):
    e, h, k = 6, 3, 2
    p = {
        "Wq": rng.standard_normal((e, h * k)),
        "Wk": rng.standard_normal((e, k)),
        "Wv": rng.standard_normal((e, k)),
        "Wo": rng.standard_normal((h * k, 5)),
    }
    tied = dict(p, Wk=np.tile(p["Wk"], (1, h)), Wv=np.tile(p["Wv"], (1, h)))
    X = rng.standard_normal((2, 7, e))
    bp = {key: backend.asarray(v) for key, v in p.items()}
    got = A.multi_query_attention(backend.asarray(X), bp, heads=h, causal=True)
    want = A.multi_head_attention(X, tied, heads=h, causal=True)
    np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)


def test_self_attention_is_permutation_equivariant_and_mean_pooling_invariant(rng):
    X = rng.standard_normal((7, 8))
    block = T.init_block_params(8, 2, 32, rng=rng, bias=False)
    params = block["attn"]
    P = np.eye(7)[rng.permutation(7)]
    H = T.transformer_block(X, block, heads=2)
    np.testing.assert_allclose(
        T.transformer_block(P @ X, block, heads=2), P @ H, atol=1e-12
    )
    np.testing.assert_allclose(
        T.mean_pool(T.transformer_block(P @ X, block, heads=2)),
        T.mean_pool(H),
        atol=1e-12,
    )
    # positional embeddings break it
    S = A.sinusoidal_positions(7, 8)
    Hp = A.multi_head_attention(A.add_positional(P @ X, S), params, heads=2)
    assert (
        np.abs(
            Hp - P @ A.multi_head_attention(A.add_positional(X, S), params, heads=2)
        ).max()
        > 1e-3
    )


def test_torch_mha_module_is_equivariant_and_block_runs(rng):
    torch.manual_seed(0)
    blk = T.TransformerBlock(8, 2).double()
    x = torch.as_tensor(rng.standard_normal((2, 6, 8)))
    perm = torch.as_tensor(rng.permutation(6))
    torch.testing.assert_close(blk(x[:, perm]), blk(x)[:, perm])


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 16, 64])
@pytest.mark.parametrize("causal", [False, True])
def test_chunked_equals_naive_to_1e_10(rng, chunk, causal):
    Q, K, V = _qkv(rng, b=2, n=13, m=13, d=8, dv=5)
    want = A.scaled_dot_product_attention(Q, K, V, causal=causal)
    got = A.chunked_attention(Q, K, V, chunk_size=chunk, causal=causal)
    assert np.abs(got - want).max() < 1e-10
    got_q = A.chunked_attention(
        Q, K, V, chunk_size=chunk, causal=causal, query_chunk_size=4
    )
    assert np.abs(got_q - want).max() < 1e-10


def test_chunked_on_backends_and_float32_fast_path(backend, rng):
    Q, K, V = _qkv(rng, n=9, m=11)
    args = [backend.asarray(x) for x in (Q, K, V)]
    for causal in (False, True):
        got = A.chunked_attention(*args, chunk_size=4, causal=causal)
        want = A.scaled_dot_product_attention(Q, K, V, causal=causal)
        np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)
    Q32, K32, V32 = (x.astype(np.float32) for x in (Q, K, V))
    got32 = A.chunked_attention(Q32, K32, V32, chunk_size=4)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, _torch_sdpa(Q32, K32, V32), atol=1e-5)


def test_chunked_is_stable_where_the_book_formula_overflows(rng):
    Q, K, V = _qkv(rng, n=6, m=10)
    Q = Q * 1000
    want = _torch_sdpa(Q, K, V)
    np.testing.assert_allclose(
        A.chunked_attention(Q, K, V, chunk_size=3), want, atol=1e-10
    )
    assert np.isnan(A.chunked_attention(Q, K, V, chunk_size=3, stable=False)).any()


def test_kv_cache_decoding_equals_full_causal_attention(rng):
    Q, K, V = _qkv(rng, b=2, n=8, m=8)
    full = A.scaled_dot_product_attention(Q, K, V, causal=True)
    cache = A.KVCache()
    rows = []
    for t in range(8):
        cache.append(K[:, t : t + 1], V[:, t : t + 1])
        rows.append(cache.attend(Q[:, t : t + 1]))
        assert len(cache) == t + 1
    np.testing.assert_allclose(np.concatenate(rows, axis=1), full, atol=1e-12)
    # two tokens at once after a prefix
    c2 = A.KVCache()
    c2.append(K[:, :5], V[:, :5])
    c2.append(K[:, 5:], V[:, 5:])
    np.testing.assert_allclose(c2.attend(Q[:, 5:]), full[:, 5:], atol=1e-12)
    assert A.kv_cache_bytes(10, 2, 4, 8, 8, "float32") == 2 * 4 * 10 * 16 * 4
    with pytest.raises(ValueError, match="max_len=2"):
        A.KVCache(max_len=2).append(K[:, :3], V[:, :3])


def test_bad_inputs_raise_value_errors_that_say_what_was_expected(rng):
    Q, K, V = _qkv(rng)
    with pytest.raises(ValueError, match="same dimension d"):
        A.scaled_dot_product_attention(Q, K[..., :3], V)
    with pytest.raises(ValueError, match=r"mask must have shape \(n, m\) = \(5, 7\)"):
        A.scaled_dot_product_attention(Q, K, V, mask=np.ones((7, 5), bool))
    with pytest.raises(ValueError, match="one row per key"):
        A.scaled_dot_product_attention(Q, K, V[:, :3])
    with pytest.raises(ValueError, match="n <= 4"):
        A.add_positional(np.zeros((6, 8)), A.sinusoidal_positions(4, 8))
    p = A.mha_init(8, 2)
    with pytest.raises(ValueError, match="Wq must have 6 rows"):
        A.multi_head_attention(np.zeros((3, 6)), p, heads=2)
    with pytest.raises(ValueError, match="split into heads=3"):
        A.multi_head_attention(np.zeros((3, 8)), p, heads=3)
    with pytest.raises(ValueError, match="same per-head dimension"):
        A.multi_head_attention(np.zeros((3, 8)), dict(p, Wk=np.zeros((8, 6))), heads=2)
    with pytest.raises(
        ValueError, match=r"chunk_size must be an int >= 1 \(a positive"
    ):
        A.chunked_attention(Q, K, V, chunk_size=0)
    with pytest.raises(ValueError, match="d must be even"):
        A.rope(np.zeros((3, 5)))


def test_hard_and_tempered_attention():
    rng = np.random.default_rng(3)
    K = rng.standard_normal((5, 2))
    V = rng.standard_normal((5, 3))
    q = K[[2]] * 3
    hard = A.hard_attention(q, K, V)
    j = int(np.argmax(K @ q[0]))
    np.testing.assert_array_equal(hard, V[[j]])
    np.testing.assert_allclose(A.tempered_attention(q, K, V, 1e4), hard, atol=1e-8)
    np.testing.assert_allclose(
        A.tempered_attention(q, K, V, 0.0), V.mean(0, keepdims=True), atol=1e-12
    )


def test_memory_profile_chunked_is_linear_and_far_below_naive():
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:  # benchmarks/ is a folder of the repo, not installed
        sys.path.insert(0, root)
    from benchmarks.bench_attention import memory_profile, plot_memory

    p = memory_profile(ns=(256, 512, 1024), d=16, chunk_size=32)
    assert p["n"] == [256, 512, 1024]
    # naive holds (n, n) arrays: ~4x per doubling; chunked one (n, chunk) tile: ~2x
    assert p["naive"][2] / p["naive"][1] > 3.0
    assert p["chunked"][2] / p["chunked"][1] < 2.5
    assert p["ratio"][2] < 1 / 8
    fig = plot_memory(p)
    assert fig.axes[0].get_xlabel() == "sequence length n"
