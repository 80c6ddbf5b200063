"""The PyTorch multi-head attention module, tested against ``torch.nn`` and the
functional NumPy version.

:class:`MultiHeadAttention` — batch first ``(b, n, e)``; projections ``q_proj``,
``k_proj``, ``v_proj``, ``out_proj`` (``nn.Linear``); ``forward(x, z=None, *,
mask=None, causal=False, key_padding_mask=None, cache=None)``.
:meth:`MultiHeadAttention.from_torch` copies the weights of a
``torch.nn.MultiheadAttention`` (its ``in_proj_weight`` rows are [q; k; v]). The
transformer blocks built on it (``TransformerBlock``, ``DecoderBlock``, ...) live in
:mod:`alice_lab.transformer.models`.

Importing this module imports torch; ``alice_lab.attention`` loads it only when
``MultiHeadAttention`` is used.

Book: §10.1.3 (MHA); masks §11.1.1; KV cache §11.2.3 (lines 5755-5771).
"""

from __future__ import annotations

import torch
from torch import nn

from alice_lab.attention.scoring import attention_weights
from alice_lab.backend import to_numpy

__all__ = ["MultiHeadAttention", "sdpa"]


def _and_mask(mask, keep):
    """A boolean or additive mask combined with a boolean ``keep`` (True = attend)."""
    if mask.dtype == torch.bool:
        return mask & keep
    return mask.masked_fill(~keep, float("-inf"))


def sdpa(q, k, v, *, mask=None, causal=False, scale=None, store=None):
    """Attention on ``(..., n, d)`` tensors with
    :func:`~alice_lab.attention.attention_weights` (no fused kernel). ``store``: an
    object whose ``last_weights`` receives the detached weights."""
    a = attention_weights(q, k, mask=mask, causal=causal, scale=scale)
    if store is not None:
        store.last_weights = a.detach()
    return a @ v


class MultiHeadAttention(nn.Module):
    """Multi-head (self- or cross-) attention, E.10.15, batch first.

    Parameters: ``embed_dim`` e (divisible by ``num_heads``), ``bias``, ``kdim``
    (width of the keys'/values' tokens, default e). After each call ``last_weights``
    holds the detached (b, h, n, m) attention weights.
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        *,
        bias: bool = True,
        kdim: int | None = None,
    ):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(
                f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
            )
        kdim = embed_dim if kdim is None else kdim
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(kdim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(kdim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.last_weights: torch.Tensor | None = None

    def _split(self, x):
        b, n, _ = x.shape
        return x.view(b, n, self.num_heads, -1).transpose(1, 2)  # (b, h, n, k)

    def forward(
        self, x, z=None, *, mask=None, causal=False, key_padding_mask=None, cache=None
    ):
        """``x (b, n, e)``, ``z (b, m, kdim)`` (default x) -> ``(b, n, e)``. ``mask``:
        boolean (True = may attend) or additive float, ``(n, m)`` or
        ``(b, 1, n, m)``. ``key_padding_mask (b, m)``: True = padding (ignored).
        ``cache``: a dict that keeps the keys and values (b, h, t, k) of the tokens
        seen so far; each call appends the new ones (the KV cache, §11.2.3), and
        ``causal`` then aligns the new queries to the last keys."""
        z = x if z is None else z
        if x.ndim != 3 or x.shape[-1] != self.embed_dim:
            raise ValueError(
                f"x must have shape (b, n, e) with e = {self.embed_dim}; got "
                f"{tuple(x.shape)}"
            )
        q, k, v = (
            self._split(p(t))
            for p, t in ((self.q_proj, x), (self.k_proj, z), (self.v_proj, z))
        )
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (x.shape[0], k.shape[2]):
                raise ValueError(
                    f"key_padding_mask must have shape (b, m) = "
                    f"({x.shape[0]}, {k.shape[2]}); got {tuple(key_padding_mask.shape)}"
                )
            pad = (~key_padding_mask[:, None, None, :]).expand(-1, 1, q.shape[2], -1)
            mask = pad if mask is None else _and_mask(mask, pad)
        h = sdpa(q, k, v, mask=mask, causal=causal, store=self)
        b, _, n, _ = h.shape
        return self.out_proj(h.transpose(1, 2).reshape(b, n, self.embed_dim))

    @classmethod
    def from_torch(cls, ref: nn.MultiheadAttention) -> MultiHeadAttention:
        """A copy of ``ref``'s weights (``batch_first`` or not, same kdim as e)."""
        e, h = ref.embed_dim, ref.num_heads
        m = cls(e, h, bias=ref.in_proj_bias is not None)
        m = m.to(dtype=ref.out_proj.weight.dtype)
        with torch.no_grad():
            Wq, Wk, Wv = ref.in_proj_weight.chunk(3, dim=0)
            for lin, W in ((m.q_proj, Wq), (m.k_proj, Wk), (m.v_proj, Wv)):
                lin.weight.copy_(W)
            m.out_proj.weight.copy_(ref.out_proj.weight)
            if ref.in_proj_bias is not None:
                for lin, b in zip(
                    (m.q_proj, m.k_proj, m.v_proj),
                    ref.in_proj_bias.chunk(3),
                    strict=True,
                ):
                    lin.bias.copy_(b)
                m.out_proj.bias.copy_(ref.out_proj.bias)
        return m

    def numpy_params(self) -> dict:
        """The weights in the functional layout of
        :func:`alice_lab.attention.multi_head_attention` (``W (in, out)``)."""
        p = {}
        for name, lin in (
            ("q", self.q_proj),
            ("k", self.k_proj),
            ("v", self.v_proj),
            ("o", self.out_proj),
        ):
            p["W" + name] = to_numpy(lin.weight).T.copy()
            if lin.bias is not None:
                p["b" + name] = to_numpy(lin.bias).copy()
        return p
