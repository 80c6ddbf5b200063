r"""Convolution through the Fourier transform (book "From theory to practice", line
3678).

A circular cross-correlation becomes a pointwise product in the frequency domain:
:math:`\mathcal{F}(x \star w) = \mathcal{F}(x)\,\overline{\mathcal{F}(w)}` for a real
kernel ``w`` (a true convolution would use :math:`\mathcal{F}(w)` itself, without the
conjugate: the sign change of line 3420). To turn the circular result into the layer's
zero-padded one we pad the input as the layer would and transform at the padded length
``N``: the outputs that do not wrap around are exactly the ``N - span + 1`` valid ones,
which is all the layer keeps. Dilation inserts zeros between the taps; stride keeps
every
``stride``-th output. Cost ``O(N log N)`` per channel pair, independent of the kernel
size, so it wins for long kernels and loses for 3×3 ones.

Works on every backend with the array API's ``fft`` extension (NumPy, torch, JAX,
array-api-strict); torch's FFT is differentiable.
"""

from __future__ import annotations

from typing import Any

from alice_lab.backend import array_namespace, device_of
from alice_lab.conv._args import conv_spec, output_positions, pad_spatial

__all__ = ["dilate_kernel", "fft_conv1d", "fft_conv2d", "fft_convnd"]


def dilate_kernel(W: Any, dilation: tuple[int, ...]) -> Any:
    """Insert ``r - 1`` zeros between consecutive taps along each of the first
    ``len(dilation)`` axes: ``(s, …)`` -> ``((s-1)·r + 1, …)`` (chapter 8's dilated
    kernel)."""
    xp = array_namespace(W)
    for axis, r in enumerate(dilation):
        if r == 1:
            continue
        zeros = xp.zeros(W.shape, dtype=W.dtype, device=device_of(W))
        stacked = xp.stack([W] + [zeros] * (r - 1), axis=axis + 1)
        shape = list(W.shape)
        shape[axis] = W.shape[axis] * r
        W = xp.reshape(stacked, tuple(shape))
        index = [slice(None)] * W.ndim
        index[axis] = slice(0, (shape[axis] // r - 1) * r + 1)
        W = W[tuple(index)]
    return W


def fft_convnd(X, W, b=None, *, d: int, stride=1, padding=0, dilation=1, groups=1):
    """``d``-dimensional convolution (cross-correlation, like the layer) computed with
    FFTs.

    Same shapes and result as :func:`alice_lab.conv.convnd`.
    """
    spec = conv_spec(
        X, W, b, d, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    xp = array_namespace(X, W)
    Xb = X if spec.batched else xp.expand_dims(X, axis=0)
    Xp = pad_spatial(Xb, spec.padding)
    N = tuple(Xp.shape[1 : d + 1])
    Wd = dilate_kernel(W, spec.dilation)
    Xf = xp.fft.rfftn(Xp, s=N, axes=tuple(range(1, d + 1)))  # (B, *F, c)
    Wf = xp.conj(xp.fft.rfftn(Wd, s=N, axes=tuple(range(d))))  # (*F, cg, c')
    F = tuple(Xf.shape[1 : d + 1])
    g, cg, og = groups, spec.c_in // groups, spec.c_out // groups
    Xf = xp.reshape(Xf, (Xf.shape[0], *F, g, cg, 1))
    Wf = xp.reshape(Wf, (*F, cg, g, og))
    Wf = xp.permute_dims(Wf, (*range(d), d + 1, d, d + 2))  # (*F, g, cg, og)
    Yf = xp.sum(Xf * Wf, axis=-2)  # (B, *F, g, og)
    Yf = xp.reshape(Yf, (Yf.shape[0], *F, spec.c_out))
    Y = xp.fft.irfftn(Yf, s=N, axes=tuple(range(1, d + 1)))
    H = xp.astype(Y[(slice(None), *output_positions(spec), slice(None))], X.dtype)
    if b is not None:
        H = H + b
    return H if spec.batched else H[0, ...]


def fft_conv1d(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """:func:`fft_convnd` with ``d = 1``: ``X ~ (b, t, c)``, ``W ~ (s, c//groups,
    c')``."""
    return fft_convnd(
        X, W, b, d=1, stride=stride, padding=padding, dilation=dilation, groups=groups
    )


def fft_conv2d(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """:func:`fft_convnd` with ``d = 2``: ``X ~ (b, h, w, c)``, ``W ~ (s, s,
    c//groups, c')``."""
    return fft_convnd(
        X, W, b, d=2, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
