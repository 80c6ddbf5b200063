r"""Transformer models in PyTorch: attention with a KV cache, encoder and decoder
blocks (pre- or post-norm), the encoder-decoder and the decoder-only model.

These are the trainable counterparts of :mod:`alice_lab.transformer.blocks` (tests
copy weights across and compare). Tensors are (b, n, e), batch first.

Book: §10.3 (lines 5470-5532), §11.1 (lines 5607-5667), §11.2.3 KV cache (5755-5771).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

__all__ = [
    "DecoderBlock",
    "DecoderOnly",
    "EncoderDecoder",
    "MultiHeadAttention",
    "TransformerBlock",
    "causal_bool_mask",
]


def causal_bool_mask(n: int, m: int | None = None, *, device=None) -> torch.Tensor:
    """(n, m) boolean, True where query i may see key j (j ≤ i + m − n)."""
    m = n if m is None else m
    i = torch.arange(n, device=device)[:, None]
    j = torch.arange(m, device=device)[None, :]
    return j <= i + (m - n)


class MultiHeadAttention(nn.Module):
    """MHA with queries from x (b, n, e) and keys/values from z (b, m, e)
    (self-attention when z is None). ``cache``: a dict that keeps the keys and values
    (b, h, t, d) of the tokens seen so far; each call appends the new ones (the KV
    cache, §11.2.3)."""

    def __init__(self, e: int, heads: int, *, bias: bool = True):
        super().__init__()
        if e % heads:
            raise ValueError(f"e={e} must be divisible by heads={heads}")
        self.e, self.heads = e, heads
        self.q = nn.Linear(e, e, bias=bias)
        self.k = nn.Linear(e, e, bias=bias)
        self.v = nn.Linear(e, e, bias=bias)
        self.o = nn.Linear(e, e, bias=bias)
        self.last_weights: torch.Tensor | None = None

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        b, n, _ = t.shape
        return t.view(b, n, self.heads, self.e // self.heads).transpose(1, 2)

    def forward(self, x, z=None, *, causal=False, key_padding_mask=None, cache=None):
        if x.shape[-1] != self.e:
            raise ValueError(f"expected x (b, n, {self.e}); got {tuple(x.shape)}")
        z = x if z is None else z
        q = self._split(self.q(x))
        k, v = self._split(self.k(z)), self._split(self.v(z))
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        n, m = q.shape[2], k.shape[2]
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            s = s.masked_fill(~causal_bool_mask(n, m, device=x.device), float("-inf"))
        if key_padding_mask is not None:  # (b, m), True = padding
            s = s.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        a = torch.softmax(s, dim=-1)
        self.last_weights = a.detach()
        out = (a @ v).transpose(1, 2).reshape(x.shape[0], n, self.e)
        return self.o(out)


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
