r"""Transformer models in PyTorch: encoder and decoder blocks (pre- or post-norm),
the encoder-decoder and the decoder-only model, built on
:class:`alice_lab.attention.torch_modules.MultiHeadAttention` (masks, padding, KV
cache).

These are the trainable counterparts of :mod:`alice_lab.transformer.blocks` (tests
copy weights across and compare). Tensors are (b, n, e), batch first.

Book: §10.3 (lines 5470-5532), §11.1 (lines 5607-5667), §11.2.3 KV cache (5755-5771).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from alice_lab.attention.torch_modules import MultiHeadAttention

__all__ = [
    "DecoderBlock",
    "DecoderOnly",
    "EncoderDecoder",
    "TransformerBlock",
]


class _MLP(nn.Module):
    def __init__(self, e: int, p: int, act: str = "gelu", gated: bool = False):
        super().__init__()
        self.gated = gated
        self.fc1 = nn.Linear(e, p)
        self.gate = nn.Linear(e, p) if gated else None
        self.fc2 = nn.Linear(p, e)
        self.act = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu}[act]

    def forward(self, x):
        h = self.act(self.fc1(x))
        if self.gated:  # SwiGLU-style: act(x A) ⊙ (x B)
            h = h * self.gate(x)
        return self.fc2(h)


class TransformerBlock(nn.Module):
    """Encoder block (b, n, e) -> (b, n, e); ``norm="pre"`` (default) or ``"post"``;
    ``causal=True`` for a decoder-only block; ``gated=True`` for a SwiGLU MLP."""

    def __init__(
        self, e, heads, p=None, *, norm="pre", causal=False, act="gelu", gated=False
    ):
        super().__init__()
        if norm not in ("pre", "post"):
            raise ValueError(f"norm must be 'pre' or 'post'; got {norm!r}")
        self.norm, self.causal = norm, causal
        self.attn = MultiHeadAttention(e, heads)
        self.mlp = _MLP(e, 4 * e if p is None else p, act, gated)
        self.ln1, self.ln2 = nn.LayerNorm(e), nn.LayerNorm(e)

    def forward(self, x, *, key_padding_mask=None, cache=None):
        def sa(h):
            return self.attn(
                h, causal=self.causal, key_padding_mask=key_padding_mask, cache=cache
            )

        if self.norm == "pre":
            x = x + sa(self.ln1(x))
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + sa(x))
        return self.ln2(x + self.mlp(x))


class DecoderBlock(nn.Module):
    """Masked self-attention, cross-attention (queries from the decoder, keys and
    values from the encoder output h), MLP. Three sub-layers (§11.1.3)."""

    def __init__(self, e, heads, p=None, *, norm="pre", act="gelu"):
        super().__init__()
        self.norm = norm
        self.self_attn = MultiHeadAttention(e, heads)
        self.cross_attn = MultiHeadAttention(e, heads)
        self.mlp = _MLP(e, 4 * e if p is None else p, act)
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(e), nn.LayerNorm(e), nn.LayerNorm(e)

    def forward(self, y, h, *, memory_padding_mask=None):
        def ca(t):
            return self.cross_attn(t, h, key_padding_mask=memory_padding_mask)

        if self.norm == "pre":
            y = y + self.self_attn(self.ln1(y), causal=True)
            y = y + ca(self.ln2(y))
            return y + self.mlp(self.ln3(y))
        y = self.ln1(y + self.self_attn(y, causal=True))
        y = self.ln2(y + ca(y))
        return self.ln3(y + self.mlp(y))


class _Embed(nn.Module):
    def __init__(self, vocab, e, context):
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab, e)
        self.pos = nn.Parameter(torch.randn(context, e) * 0.02)

    def forward(self, idx, offset=0):
        n = idx.shape[1]
        if offset + n > self.context:
            raise ValueError(
                f"sequence of length {offset + n} is longer than the model's context "
                f"{self.context}: expected at most {self.context} tokens"
            )
        return self.tok(idx) + self.pos[offset : offset + n]


class EncoderDecoder(nn.Module):
    """Seq2seq model: an encoder on the source tokens (b, n), a decoder on the shifted
    target tokens (b, m) with n ≠ m allowed; returns logits (b, m, vocab_out)."""

    def __init__(
        self, vocab_in, vocab_out, e=32, heads=4, depth=2, context=64, norm="pre"
    ):
        super().__init__()
        self.src = _Embed(vocab_in, e, context)
        self.tgt = _Embed(vocab_out, e, context)
        self.encoder = nn.ModuleList(
            TransformerBlock(e, heads, norm=norm) for _ in range(depth)
        )
        self.decoder = nn.ModuleList(
            DecoderBlock(e, heads, norm=norm) for _ in range(depth)
        )
        self.ln = nn.LayerNorm(e)
        self.head = nn.Linear(e, vocab_out)

    def encode(self, src, src_padding_mask=None):
        h = self.src(src)
        for blk in self.encoder:
            h = blk(h, key_padding_mask=src_padding_mask)
        return h

    def forward(self, src, tgt, src_padding_mask=None):
        h = self.encode(src, src_padding_mask)
        y = self.tgt(tgt)
        for blk in self.decoder:
            y = blk(y, h, memory_padding_mask=src_padding_mask)
        return self.head(self.ln(y))


class DecoderOnly(nn.Module):
    """A stack of causal pre-norm blocks over token embeddings + learned positions:
    (b, n) token ids -> (b, n, vocab) logits. ``caches``: one dict per block (KV cache);
    with caches the positions continue from the cached length."""

    def __init__(self, vocab, e=32, heads=4, depth=2, context=64, p=None, gated=False):
        super().__init__()
        self.context = context
        self.embed = _Embed(vocab, e, context)
        self.blocks = nn.ModuleList(
            TransformerBlock(e, heads, p, causal=True, gated=gated)
            for _ in range(depth)
        )
        self.ln = nn.LayerNorm(e)
        self.head = nn.Linear(e, vocab, bias=False)

    def new_caches(self) -> list[dict]:
        return [{} for _ in self.blocks]

    def forward(self, idx, caches=None):
        if idx.ndim != 2:
            raise ValueError(f"expected token ids (b, n); got shape {tuple(idx.shape)}")
        offset = 0 if not caches or "k" not in caches[0] else caches[0]["k"].shape[2]
        x = self.embed(idx, offset)
        for i, blk in enumerate(self.blocks):
            x = blk(x, cache=None if caches is None else caches[i])
        return self.head(self.ln(x))
