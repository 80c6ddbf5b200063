"""The PyTorch models: attention against the NumPy block and torch's SDPA, the KV cache
path against full recomputation (identical tokens, greedy and seeded sampling), the
context limit, the encoder-decoder with n != m, and a short training run that beats
the unigram entropy."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import alice_lab.attention as A  # noqa: E402
import alice_lab.transformer as T  # noqa: E402
from alice_lab.transformer.gpt import gpt_generate  # noqa: E402


def _gpt(seed=0, context=24, vocab=11):
    torch.manual_seed(seed)
    return T.GPT(vocab, e=16, heads=4, depth=2, context=context).double().eval()


def test_torch_cross_attention_matches_torch_nn():
    # m != n: queries from x, keys and values from z (the decoder's cross-attention)
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        ref.in_proj_bias.normal_()
    mha = A.MultiHeadAttention.from_torch(ref)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    z = torch.randn(2, 7, 8, dtype=torch.float64)
    want = ref(x, z, z, need_weights=False)[0]
    torch.testing.assert_close(mha(x, z), want, rtol=1e-10, atol=1e-12)
    assert mha.last_weights.shape == (2, 2, 5, 7)


def test_cached_forward_equals_full_forward():
    model = _gpt()
    ids = torch.randint(0, 11, (1, 10), generator=torch.Generator().manual_seed(1))
    full = model(ids)
    caches = model.new_caches()
    steps = [model(ids[:, :4], caches)] + [
        model(ids[:, t : t + 1], caches) for t in range(4, 10)
    ]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, rtol=1e-12, atol=1e-12)
    assert caches[0]["k"].shape == (1, 4, 10, 4)  # (b, h, t, d): grows with t


@pytest.mark.parametrize(
    "kw", [dict(temperature=0.0), dict(temperature=1.0, rng=7), dict(top_k=3, rng=3)]
)
def test_kv_cache_generation_gives_the_tokens_of_recomputation(kw):
    model = _gpt()
    a, la = gpt_generate(model, [1, 2, 3], 15, use_cache=True, return_logits=True, **kw)
    b, lb = gpt_generate(
        model, [1, 2, 3], 15, use_cache=False, return_logits=True, **kw
    )
    assert a == b and len(a) == 18
    np.testing.assert_allclose(la, lb, rtol=1e-10, atol=1e-10)


def test_generation_past_the_context_slides_the_window_identically():
    model = _gpt(context=8)
    a = gpt_generate(model, [1, 2], 12, temperature=0.0, use_cache=True)
    b = gpt_generate(model, [1, 2], 12, temperature=0.0, use_cache=False)
    assert a == b and len(a) == 14


def test_sequences_longer_than_the_context_raise():
    model = _gpt(context=8)
    with pytest.raises(ValueError, match="longer than the model's context 8"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match=r"expected token ids \(b, n\)"):
        model(torch.zeros(9, dtype=torch.long))
    with pytest.raises(ValueError, match="at least one token"):
        gpt_generate(model, [], 3)


def test_gpt_is_causal():
    model = _gpt()
    ids = torch.randint(0, 11, (1, 12), generator=torch.Generator().manual_seed(2))
    ids2 = ids.clone()
    ids2[0, 8] = (ids[0, 8] + 1) % 11
    a, b = model(ids), model(ids2)
    torch.testing.assert_close(a[:, :8], b[:, :8], rtol=0, atol=0)
    assert (a[:, 8:] - b[:, 8:]).abs().max() > 1e-6


def test_encoder_decoder_takes_different_lengths_and_its_decoder_is_causal():
    torch.manual_seed(0)
    model = T.EncoderDecoder(7, 9, e=16, heads=2, depth=1, context=16).double().eval()
    src = torch.randint(0, 7, (2, 11))
    tgt = torch.randint(0, 9, (2, 5))
    out = model(src, tgt)
    assert tuple(out.shape) == (2, 5, 9)
    tgt2 = tgt.clone()
    tgt2[:, 3] = (tgt[:, 3] + 1) % 9
    torch.testing.assert_close(model(src, tgt2)[:, :3], out[:, :3], rtol=0, atol=0)
    src2 = src.clone()
    src2[:, 10] = (src[:, 10] + 1) % 7  # every decoder position sees the whole source
    assert (model(src2, tgt)[:, 0] - out[:, 0]).abs().max() > 1e-8
    n_dec = sum(p.numel() for p in model.decoder[0].parameters())
    n_enc = sum(p.numel() for p in model.encoder[0].parameters())
    assert n_dec - n_enc == 4 * 16 * 16 + 4 * 16 + 2 * 16  # a CA layer and a third LN


def test_short_training_beats_the_unigram_entropy():
    text = "the cat sat on the mat. " * 40
    chars = sorted(set(text))
    ids = [chars.index(c) for c in text]
    res = T.train_gpt(ids, len(chars), steps=40, batch=16, context=16, e=32, depth=1)
    assert res.losses[-1] < res.losses[0]
    assert res.val_loss < res.unigram_entropy, (res.val_loss, res.unigram_entropy)


def test_padded_source_tokens_are_ignored():
    torch.manual_seed(1)
    model = T.EncoderDecoder(7, 9, e=16, heads=2, depth=1, context=16).double().eval()
    src = torch.randint(0, 7, (1, 8))
    tgt = torch.randint(0, 9, (1, 4))
    pad = torch.zeros(1, 8, dtype=torch.bool)
    pad[0, 6:] = True  # the last two source tokens are padding
    out = model(src, tgt, src_padding_mask=pad)
    src2 = src.clone()
    src2[0, 6:] = (src[0, 6:] + 3) % 7
    torch.testing.assert_close(model(src2, tgt, src_padding_mask=pad), out)
    assert (model(src2, tgt) - model(src, tgt)).abs().max() > 1e-8
