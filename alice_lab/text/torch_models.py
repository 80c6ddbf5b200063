r"""PyTorch modules for Chapter 8: the book's text CNN (Box 8.2) and a causal 1-D
convolution made by left padding.

Importing this module imports torch (``alice_lab.text`` itself does not).

- :class:`TextCNN`: embedding ``(b, m) -> (b, m, e)``, channels-first transpose,
  conv (kernel 5, "same") + ReLU to 32 channels, max-pool by 2 (``m // 2``), conv +
  ReLU to 64 channels, mean over the length, linear head. With ``mask`` (b, m) the
  padded positions are zeroed after every layer and the final mean is a masked mean,
  so a padded batch gives the same logits as each sequence alone (for even lengths:
  alone, max-pooling by 2 drops the last element of an odd-length sequence).
- :class:`CausalConv1d`: ``torch.nn.Conv1d`` after padding ``(s - 1)·d`` zeros on the
  left, so output ``i`` sees inputs ``<= i`` (the book says PyTorch has no quick way,
  line 4324; this is the usual one).

Book: §8.2.2, Box 8.2 (lines 3878-3914); §8.3.2 (lines 4016-4052).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.functional import max_pool1d, pad, relu

__all__ = ["CausalConv1d", "TextCNN"]


class TextCNN(nn.Module):
    """Box 8.2: ``n`` = vocabulary size, ``e`` = embedding size.

    forward(x (b, m) int64, mask (b, m) or None) -> logits (b, num_classes).
    Parameters: ``n·e + (5e·32 + 32) + (5·32·64 + 64) + (64·k + k)``; 12394 for
    ``n = 16, e = 8, k = 10``.
    """

    def __init__(
        self, n: int, e: int, *, channels=(32, 64), kernel_size=5, num_classes: int = 10
    ):
        super().__init__()
        c1, c2 = channels
        self.emb = nn.Embedding(n, e)
        self.conv1 = nn.Conv1d(e, c1, kernel_size, padding="same")
        self.conv2 = nn.Conv1d(c1, c2, kernel_size, padding="same")
        self.head = nn.Linear(c2, num_classes)

    def features(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        """The pooled ``(b, 64)`` representation (before the head)."""
        if x.ndim != 2:
            raise ValueError(
                f"x must have shape (b, m) (one batch axis); got {tuple(x.shape)}"
            )
        h = self.emb(x).transpose(1, 2)  # (b, m, e) -> (b, e, m)
        if mask is not None:
            m = mask.to(h.dtype)[:, None, :]  # (b, 1, m)
            h = h * m
        h = relu(self.conv1(h))  # (b, 32, m)
        if mask is not None:
            h = h * m
        h = max_pool1d(h, 2)  # (b, 32, m // 2)
        if mask is not None:
            m = max_pool1d(m, 2)
            h = h * m
        h = relu(self.conv2(h))  # (b, 64, m // 2)
        if mask is None:
            return h.mean(2)  # (b, 64)
        h = h * m
        return h.sum(2) / m.sum(2).clamp_min(1.0)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        return self.head(self.features(x, mask))


class CausalConv1d(nn.Module):
    """A causal ``Conv1d``: input ``(b, c, t)`` (torch layout), output ``(b, c', t)``,
    ``y_i`` depends on ``x_{<= i}`` only."""

    def __init__(self, c_in: int, c_out: int, kernel_size: int, *, dilation: int = 1):
        super().__init__()
        self.left = (kernel_size - 1) * dilation
        self.conv = nn.Conv1d(c_in, c_out, kernel_size, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(pad(x, (self.left, 0)))
