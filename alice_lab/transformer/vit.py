r"""Vision Transformer and MLP-Mixer classifiers in PyTorch.

Images are channels-last (b, h, w, c), as everywhere in the companion. ``PatchEmbed``
cuts p×p patches with einops (Box 11.2's pattern) and projects them linearly; the
equivalent strided convolution is ``PatchEmbed.as_conv()``. The ViT adds trainable
positions and a class token (prepended, as in [dosovitskiy2020image]; the book appends
it, which is the same model up to a permutation), optional register tokens, pre-norm
blocks and a linear head on the class token. The Mixer replaces attention by an MLP
over the token axis, so it only accepts the number of patches it was built for.

Book: §11.2.4 (lines 5781-5797), §11.3 (lines 5859-5885), "From theory to practice"
(lines 5931-5937).
"""

from __future__ import annotations

import torch
from einops import rearrange
from torch import nn

from alice_lab.transformer.models import TransformerBlock

__all__ = ["Mixer", "MixerBlock", "PatchEmbed", "ViT"]


class PatchEmbed(nn.Module):
    """(b, h, w, c) images -> (b, (h/p)(w/p), e) tokens; h, w multiples of p."""

    def __init__(self, c: int, e: int, p: int):
        super().__init__()
        self.c, self.p = c, p
        self.proj = nn.Linear(p * p * c, e)

    def forward(self, x):
        if x.ndim != 4 or x.shape[-1] != self.c:
            raise ValueError(
                f"expected images (b, h, w, {self.c}); got {tuple(x.shape)}"
            )
        if x.shape[1] % self.p or x.shape[2] % self.p:
            raise ValueError(
                f"image size {x.shape[1]}×{x.shape[2]} is not divisible by the patch "
                f"size {self.p}"
            )
        t = rearrange(x, "b (h ph) (w pw) c -> b (h w) (ph pw c)", ph=self.p, pw=self.p)
        return self.proj(t)

    def as_conv(self) -> nn.Conv2d:
        """The same map as ``nn.Conv2d(c, e, p, stride=p)`` (input (b, c, h, w))."""
        e = self.proj.out_features
        w = self.proj.weight
        conv = nn.Conv2d(self.c, e, self.p, stride=self.p).to(w.dtype).to(w.device)
        with torch.no_grad():
            W = self.proj.weight.view(e, self.p, self.p, self.c).permute(0, 3, 1, 2)
            conv.weight.copy_(W)
            conv.bias.copy_(self.proj.bias)
        return conv


def _n_patches(image_size, p):
    h, w = (image_size, image_size) if isinstance(image_size, int) else image_size
    if h % p or w % p:
        raise ValueError(f"image size {h}×{w} is not divisible by the patch size {p}")
    return (h // p) * (w // p)


class ViT(nn.Module):
    """``ViT(image_size, patch, channels, classes, e=32, heads=4, depth=2,
    registers=0, pos="learned"|"none")``: (b, h, w, c) -> (b, classes) logits from the
    class token."""

    def __init__(
        self,
        image_size,
        patch,
        channels,
        classes,
        *,
        e=32,
        heads=4,
        depth=2,
        registers=0,
        pos="learned",
        norm="pre",
    ):
        super().__init__()
        self.n = _n_patches(image_size, patch)
        self.embed = PatchEmbed(channels, e, patch)
        self.cls = nn.Parameter(torch.zeros(e))
        self.registers = nn.Parameter(torch.randn(registers, e) * 0.02)
        if pos not in ("learned", "none"):
            raise ValueError(f"pos must be 'learned' or 'none'; got {pos!r}")
        self.pos = (
            nn.Parameter(torch.randn(self.n + 1, e) * 0.02)
            if pos == "learned"
            else None
        )
        self.blocks = nn.ModuleList(
            TransformerBlock(e, heads, norm=norm) for _ in range(depth)
        )
        self.ln = nn.LayerNorm(e)
        self.head = nn.Linear(e, classes)

    def tokens(self, x):
        t = self.embed(x)
        if t.shape[1] != self.n:
            raise ValueError(
                f"expected {self.n} patches; got {t.shape[1]} "
                f"(image {tuple(x.shape[1:3])})"
            )
        t = torch.cat([self.cls.expand(t.shape[0], 1, -1), t], dim=1)
        if self.pos is not None:
            t = t + self.pos
        return torch.cat([t, self.registers.expand(t.shape[0], -1, -1)], dim=1)

    def forward(self, x):
        h = self.tokens(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln(h[:, 0]))  # registers (the last r tokens) are dropped


class MixerBlock(nn.Module):
    """Token MLP across the n tokens and channel MLP across the e channels, each with a
    pre-layer-norm and a residual; (b, n, e) -> (b, n, e), n fixed."""

    def __init__(self, n, e, p_token=None, p_channel=None):
        super().__init__()
        self.n = n
        self.ln1, self.ln2 = nn.LayerNorm(e), nn.LayerNorm(e)
        self.token = nn.Sequential(
            nn.Linear(n, p_token or 2 * n), nn.GELU(), nn.Linear(p_token or 2 * n, n)
        )
        self.channel = nn.Sequential(
            nn.Linear(e, p_channel or 4 * e),
            nn.GELU(),
            nn.Linear(p_channel or 4 * e, e),
        )

    def forward(self, h):
        if h.shape[1] != self.n:
            raise ValueError(
                f"this Mixer block mixes exactly {self.n} tokens; got {h.shape[1]}"
            )
        h = h + self.token(self.ln1(h).transpose(1, 2)).transpose(1, 2)
        return h + self.channel(self.ln2(h))


class Mixer(nn.Module):
    """MLP-Mixer classifier: patches -> Mixer blocks -> mean over tokens -> linear."""

    def __init__(self, image_size, patch, channels, classes, *, e=32, depth=2):
        super().__init__()
        self.n = _n_patches(image_size, patch)
        self.embed = PatchEmbed(channels, e, patch)
        self.blocks = nn.ModuleList(MixerBlock(self.n, e) for _ in range(depth))
        self.ln = nn.LayerNorm(e)
        self.head = nn.Linear(e, classes)

    def forward(self, x):
        h = self.embed(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln(h).mean(dim=1))
