"""PyTorch modules of the chapter's layers, tested against ``torch.nn`` and the
functional NumPy versions.

* :class:`MultiHeadAttention` — batch first ``(b, n, e)``; projections ``q_proj``,
  ``k_proj``, ``v_proj``, ``out_proj`` (``nn.Linear``); ``forward(x, z=None, *,
  mask=None, causal=False)``. :meth:`MultiHeadAttention.from_torch` copies the weights
  of a ``torch.nn.MultiheadAttention`` (its ``in_proj_weight`` rows are [q; k; v]).
* :class:`TransformerBlock` — pre-norm (or post-norm) MHA + MLP block.

Importing this module imports torch; ``alice_lab.attention`` loads it only when one of
these names is used.

Book: §10.1.3 (MHA), §10.3.1 (the block); masks §11.1.1.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from alice_lab.attention.masks import boolean_causal_mask

__all__ = ["MultiHeadAttention", "TransformerBlock", "sdpa"]


def sdpa(q, k, v, *, mask=None, causal=False, scale=None):
    """Attention on ``(..., n, d)`` tensors, written out (no fused kernel)."""
    s = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    S = (q @ k.transpose(-1, -2)) * s
    if mask is not None:
        if mask.shape[-2:] != S.shape[-2:]:
            raise ValueError(
                f"mask must have shape (n, m) = {tuple(S.shape[-2:])}; got "
                f"{tuple(mask.shape)}"
            )
        S = (
            S.masked_fill(~mask, float("-inf"))
            if mask.dtype == torch.bool
            else S + mask
        )
    if causal:
        allowed = boolean_causal_mask(S.shape[-2], S.shape[-1], like=S)
        S = S.masked_fill(~allowed, float("-inf"))
    return torch.softmax(S, dim=-1) @ v


class MultiHeadAttention(nn.Module):
    """Multi-head (self- or cross-) attention, E.10.15, batch first.

    Parameters: ``embed_dim`` e (divisible by ``num_heads``), ``bias``, ``kdim``
    (width of the keys'/values' tokens, default e).
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

    def _split(self, x):
        b, n, _ = x.shape
        return x.view(b, n, self.num_heads, -1).transpose(1, 2)  # (b, h, n, k)

    def forward(self, x, z=None, *, mask=None, causal=False):
        """``x (b, n, e)``, ``z (b, m, kdim)`` (default x) -> ``(b, n, e)``. ``mask``:
        boolean (True = may attend) or additive float, ``(n, m)`` or
        ``(b, 1, n, m)``."""
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
        h = sdpa(q, k, v, mask=mask, causal=causal)
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
            p["W" + name] = lin.weight.detach().cpu().numpy().T.copy()
            if lin.bias is not None:
                p["b" + name] = lin.bias.detach().cpu().numpy().copy()
        return p


class TransformerBlock(nn.Module):
    """``H + MHA(LN(H))`` then ``+ MLP(LN(·))`` (pre-norm) or the post-norm order;
    MLP ``Linear(e, p) -> GELU -> Linear(p, e)``, p = 4e by default."""

    def __init__(self, e: int, heads: int, *, p: int | None = None, norm: str = "pre"):
        super().__init__()
        if norm not in ("pre", "post"):
            raise ValueError(f"norm must be 'pre' or 'post'; got {norm!r}")
        self.norm = norm
        self.attn = MultiHeadAttention(e, heads)
        self.ln1, self.ln2 = nn.LayerNorm(e), nn.LayerNorm(e)
        p = 4 * e if p is None else p
        self.mlp = nn.Sequential(nn.Linear(e, p), nn.GELU(), nn.Linear(p, e))

    def forward(self, x, *, mask=None, causal=False):
        if self.norm == "pre":
            x = x + self.attn(self.ln1(x), mask=mask, causal=causal)
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attn(x, mask=mask, causal=causal))
        return self.ln2(x + self.mlp(x))
