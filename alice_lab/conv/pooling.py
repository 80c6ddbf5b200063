r"""Pooling: max and average over windows, and global pooling over all positions.

Max-pooling (book §7.2.1, lines 3498-3514) takes the largest value in each
non-overlapping ``2×2`` window of every channel on its own,

.. math:: \text{MaxPool}(X)_{ijc} = \max(X_{2i-1:2i,\,2j-1:2j,\,c}),

so ``(h, w, c)`` becomes ``(h/2, w/2, c)`` (odd sizes are floored, as in every library).
Global pooling (lines 3484-3496) sums, averages or maximises over every position and
leaves one value per channel ``(c)``; it is invariant to (circular) translations and
forgets where things were. Channels last; a batch axis is optional for windowed pooling
and, for global pooling, says how many leading axes are not spatial (``spatial_dims``).
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace
from alice_lab.conv._args import ConvSpec, conv_spec, pad_spatial, tuple_of

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "global_avg_pool",
    "global_max_pool",
    "global_sum_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "pool",
]


class _Kernel:
    def __init__(self, shape):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)


def pool(
    X: Any,
    size: Any = 2,
    stride: Any = None,
    *,
    d: int = 2,
    padding: Any = 0,
    op: str = "max",
) -> Any:
    """Windowed pooling over the ``d`` spatial axes of ``(b, *spatial, c)`` or
    ``(*spatial, c)``.

    ``stride`` defaults to ``size`` (non-overlapping windows). Max pads with ``-inf``;
    the average counts padded zeros, like PyTorch's default ``count_include_pad=True``.
    """
    from alice_lab.conv.patches import _gather

    if op not in ("max", "avg"):
        raise ValueError(f"op must be 'max' or 'avg'; got {op!r}")
    ks = tuple_of(size, d, "size")
    st = ks if stride is None else tuple_of(stride, d, "stride")
    xp = array_namespace(X)
    spec: ConvSpec = conv_spec(
        X, _Kernel((*ks, X.shape[-1], 1)), None, d, stride=st, padding=padding
    )
    Xb = X if spec.batched else xp.expand_dims(X, axis=0)
    fill = -float("inf") if op == "max" else 0.0
    P = _gather(
        pad_spatial(Xb, spec.padding, fill), ks, st, (1,) * d, spec.out
    )  # (B, *out, K, c)
    H = xp.max(P, axis=-2) if op == "max" else xp.mean(P, axis=-2)
    return H if spec.batched else H[0, ...]


def max_pool2d(X, size=2, stride=None, *, padding=0):
    """Max-pooling (book lines 3498-3514): ``(b, h, w, c)`` -> ``(b, h', w', c)``,
    ``h' = (h + 2p - size) // stride + 1``; each channel on its own."""
    return pool(X, size, stride, d=2, padding=padding, op="max")


def avg_pool2d(X, size=2, stride=None, *, padding=0):
    """Average pooling over ``size×size`` windows, channels last."""
    return pool(X, size, stride, d=2, padding=padding, op="avg")


def max_pool1d(X, size=2, stride=None, *, padding=0):
    """Max-pooling of a sequence ``(b, t, c)`` (book §8.1)."""
    return pool(X, size, stride, d=1, padding=padding, op="max")


def avg_pool1d(X, size=2, stride=None, *, padding=0):
    """Average pooling of a sequence ``(b, t, c)``."""
    return pool(X, size, stride, d=1, padding=padding, op="avg")


def max_pool3d(X, size=2, stride=None, *, padding=0):
    """Max-pooling of a volume ``(b, t, h, w, c)``."""
    return pool(X, size, stride, d=3, padding=padding, op="max")


def _spatial_axes(X: Any, spatial_dims: int) -> tuple[int, ...]:
    if X.ndim not in (spatial_dims + 1, spatial_dims + 2):
        raise ValueError(
            f"global pooling with spatial_dims={spatial_dims} expects shape (b, "
            f"*spatial, c) or "
            f"(*spatial, c); got {tuple(X.shape)}"
        )
    if any(n == 0 for n in X.shape):
        raise ValueError(f"global pooling got an empty input of shape {tuple(X.shape)}")
    first = X.ndim - 1 - spatial_dims
    return tuple(range(first, X.ndim - 1))


def global_sum_pool(X: Any, *, spatial_dims: int = 2) -> Any:
    """:math:`\\sum_{i,j} H_{ij}` (book line 3488): ``(b, h, w, c)`` -> ``(b, c)``."""
    return array_namespace(X).sum(X, axis=_spatial_axes(X, spatial_dims))


def global_avg_pool(X: Any, *, spatial_dims: int = 2) -> Any:
    """Global average pooling, :math:`\\frac{1}{h'w'}\\sum_{i,j} H_{ij}` (book eq.
    E.7.11,
    line 3592): ``(b, h, w, c)`` -> ``(b, c)``."""
    return array_namespace(X).mean(X, axis=_spatial_axes(X, spatial_dims))


def global_max_pool(X: Any, *, spatial_dims: int = 2) -> Any:
    """:math:`\\max_{i,j} H_{ij}` (book line 3488): ``(b, h, w, c)`` -> ``(b, c)``."""
    return array_namespace(X).max(X, axis=_spatial_axes(X, spatial_dims))
