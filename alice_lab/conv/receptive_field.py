r"""Receptive-field arithmetic (book §7.2.1, lines 3440-3452).

The receptive field of an output pixel is the set of input pixels it depends on. One
``s×s`` convolution sees ``s = 2k+1`` pixels per side, two see ``4k+1``, ``L`` see
``2Lk + 1 = L(s-1) + 1``: it grows linearly with depth (line 3452). With strides and
dilations (chapter 8) the side of layer ``l``'s field is

.. math:: r_L = 1 + \sum_{l=1}^{L} (s_l - 1)\, d_l \prod_{m<l} \text{stride}_m,

and :func:`empirical_receptive_field` measures it as the support of the gradient of one
output pixel with respect to the input (all-ones weights, so nothing cancels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["empirical_receptive_field", "receptive_field", "receptive_field_table"]


def _lists(kernel_sizes, strides, dilations):
    ks = [int(s) for s in kernel_sizes]
    L = len(ks)
    st = [1] * L if strides is None else [int(s) for s in strides]
    dl = [1] * L if dilations is None else [int(r) for r in dilations]
    if len(st) != L or len(dl) != L:
        raise ValueError(
            f"strides and dilations need one entry per layer ({L}); got {len(st)} and "
            f"{len(dl)}"
        )
    if any(v < 1 for v in ks + st + dl):
        raise ValueError("kernel sizes, strides and dilations must be positive")
    return ks, st, dl


def receptive_field_table(
    kernel_sizes: Sequence[int], strides=None, dilations=None
) -> list[dict]:
    """Per layer: its receptive-field side ``rf`` and ``jump`` (input pixels between two
    neighbouring outputs of that layer)."""
    ks, st, dl = _lists(kernel_sizes, strides, dilations)
    rf, jump, rows = 1, 1, []
    for s, stride, r in zip(ks, st, dl, strict=True):
        rf += (s - 1) * r * jump
        jump *= stride
        rows.append(
            {"kernel": s, "stride": stride, "dilation": r, "rf": rf, "jump": jump}
        )
    return rows


def receptive_field(kernel_sizes: Sequence[int], strides=None, dilations=None) -> int:
    """Side of the receptive field of a stack of convolutions (or poolings).

    >>> receptive_field([3, 3, 3])
    7
    >>> receptive_field([3, 3], dilations=[1, 2])
    7
    """
    rows = receptive_field_table(kernel_sizes, strides, dilations)
    return rows[-1]["rf"] if rows else 1


def empirical_receptive_field(
    forward: Callable[[Any], Any],
    input_shape: tuple[int, ...],
    *,
    position: tuple[int, ...] | None = None,
) -> np.ndarray:
    """Boolean ``(*spatial)`` mask of the input pixels that affect one output pixel.

    ``forward`` maps a torch tensor ``(1, *spatial, c)`` (channels last) to
    ``(1, *spatial', c')``; ``position`` picks the output pixel (default: the centre).
    Uses torch autograd: the mask is where ``|∂ sum_c H[position] / ∂X|`` is non-zero.
    """
    import torch

    X = torch.ones((1, *input_shape), dtype=torch.float64, requires_grad=True)
    H = forward(X)
    spatial = H.shape[1:-1]
    pos = tuple(n // 2 for n in spatial) if position is None else tuple(position)
    H[(0, *pos)].sum().backward()
    return (X.grad[0].abs().sum(-1) > 0).numpy()
