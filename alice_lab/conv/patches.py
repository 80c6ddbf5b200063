r"""Patches and the patches-times-matrix convolution (the default path).

The book defines a convolutional layer (§7.1.3, eq. E.7.4, lines 3354-3360) as

.. math:: H_{ij} = \mathbf{W}\cdot\text{vect}(P_k(i,j)) + \mathbf{b},

one matrix applied to the flattened patch around every pixel. Written for all pixels at
once this is *patches times matrix* ("im2col"): gather every patch into a
``(b·h'·w', s·s·c)`` matrix, multiply by the ``(s·s·c, c')`` kernel matrix, reshape.
:func:`patches` gathers them with ``s·s`` strided slices, so it runs on every array-API
backend and autograd flows through it. On NumPy arrays the convolution uses
``sliding_window_view`` and one BLAS matmul instead (:func:`_numpy_convnd`), or, for
stride 1, one in-place BLAS product per kernel tap with no patch matrix at all
(:mod:`alice_lab.conv.shifted`).

Layouts: ``X ~ (b, n_1, …, n_d, c)`` (batch optional), ``W ~ (s_1, …, s_d, c//groups,
c')``.

Book: §7.1.2-§7.1.3 (lines 3292-3432), §7.2.2* "Notable types of convolution"
(lines 3626-3658); causal and dilated 1-D convolutions are chapter 8's.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace
from alice_lab.conv._args import (
    conv_spec,
    output_positions,
    pad_spatial,
    prod,
    tuple_of,
)
from alice_lab.conv.shifted import shifted_gemm_applies, shifted_gemm_convnd

__all__ = [
    "causal_conv1d",
    "conv1d",
    "conv1x1",
    "conv2d",
    "conv3d",
    "convnd",
    "depthwise_conv2d",
    "depthwise_separable_conv2d",
    "patches",
]


def _gather(Xp: Any, ks, stride, dilation, out) -> Any:
    """``(b, *spatial, c)`` padded input -> ``(b, *out, K, c)`` with ``K =
    prod(ks)``."""
    xp = array_namespace(Xp)
    slices = []
    for offs in itertools.product(*(range(s) for s in ks)):
        index = [slice(None)]
        for o, r, st, n in zip(offs, dilation, stride, out, strict=True):
            start = o * r
            index.append(slice(start, start + st * (n - 1) + 1, st))
        index.append(slice(None))
        slices.append(Xp[tuple(index)])
    return xp.stack(slices, axis=-2)


def patches(
    X: Any, kernel_size: Any, *, stride: Any = 1, padding: Any = 0, dilation: Any = 1
) -> Any:
    """All patches of a channels-last image (or signal, or volume), stacked.

    ``X ~ (b, h, w, c)`` gives ``(b, h', w', s_h, s_w, c)``: entry ``[n, i, j]`` is the
    book's patch :math:`P_k(i,j)` (§7.1.2, line 3300) of image ``n`` (0-based, after
    padding). ``kernel_size`` is an int or one int per spatial axis; the number of
    spatial axes is ``len(kernel_size)`` (2 for an int). Unbatched ``(h, w, c)`` works
    too.

    >>> patches(np.arange(16.0).reshape(1, 4, 4, 1), 3).shape
    (1, 2, 2, 3, 3, 1)
    """
    d = 2 if isinstance(kernel_size, int) else len(tuple(kernel_size))
    ks = tuple_of(kernel_size, d, "kernel_size")
    xp = array_namespace(X)
    dummy = _ShapeOnly((*ks, X.shape[-1], 1))
    spec = conv_spec(
        X, dummy, None, d, stride=stride, padding=padding, dilation=dilation
    )
    Xb = X if spec.batched else xp.expand_dims(X, axis=0)
    Xp = pad_spatial(Xb, spec.padding)
    P = _gather(Xp, ks, spec.stride, spec.dilation, spec.out)
    P = xp.reshape(P, (Xb.shape[0], *spec.out, *ks, X.shape[-1]))
    return P if spec.batched else P[0, ...]


class _ShapeOnly:
    """A stand-in kernel that has only a shape (for checking :func:`patches`
    arguments)."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.ndim = len(shape)


def _grouped_matmul(P: Any, W: Any, groups: int) -> Any:
    """``P ~ (N, K, c)`` times ``W ~ (K, c//g, c')`` -> ``(N, c')`` (torch's group
    order)."""
    xp = array_namespace(P)
    N, K, c = P.shape
    c_out = W.shape[-1]
    if groups == 1:
        return xp.reshape(P, (N, K * c)) @ xp.reshape(W, (K * c, c_out))
    cg, og = c // groups, c_out // groups
    Pg = xp.permute_dims(xp.reshape(P, (N, K, groups, cg)), (2, 0, 1, 3))
    Pg = xp.reshape(Pg, (groups, N, K * cg))
    Wg = xp.permute_dims(xp.reshape(W, (K, cg, groups, og)), (2, 0, 1, 3))
    Wg = xp.reshape(Wg, (groups, K * cg, og))
    Hg = Pg @ Wg  # (g, N, og)
    return xp.reshape(xp.permute_dims(Hg, (1, 0, 2)), (N, c_out))


def _numpy_convnd(X: np.ndarray, W: np.ndarray, spec) -> np.ndarray:
    """NumPy fast path: ``sliding_window_view`` on the padded input, then one matmul.

    The window view is a zero-copy ``as_strided`` array; reordering it to
    ``(b, *out, *ks, c)`` and making it contiguous is the one copy (the patch matrix),
    after which a single BLAS call does all the arithmetic.
    """
    from numpy.lib.stride_tricks import sliding_window_view

    d = spec.d
    pads = ((0, 0), *spec.padding, (0, 0))
    Xp = np.pad(X, pads) if any(p != (0, 0) for p in pads) else X
    spans = [(s - 1) * r + 1 for s, r in zip(spec.kernel, spec.dilation, strict=True)]
    V = sliding_window_view(
        Xp, spans, axis=tuple(range(1, d + 1))
    )  # (b, *full, c, *spans)
    dilated = tuple(slice(None, None, r) for r in spec.dilation)
    index = (slice(None), *output_positions(spec), slice(None), *dilated)
    V = V[index]  # (b, *out, c, *ks)
    order = (0, *range(1, d + 1), *range(d + 2, 2 * d + 2), d + 1)
    B = X.shape[0]
    N, K = B * prod(spec.out), prod(spec.kernel)
    P = np.ascontiguousarray(V.transpose(order)).reshape(N, K, spec.c_in)
    H = _grouped_matmul(
        P, W.reshape(K, spec.c_in // spec.groups, spec.c_out), spec.groups
    )
    return H.reshape(B, *spec.out, spec.c_out)


def convnd(
    X: Any,
    W: Any,
    b: Any = None,
    *,
    d: int,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """A ``d``-dimensional convolution (book E.7.4), channels last, any backend.

    ``X ~ (b, n_1..n_d, c)`` or ``(n_1..n_d, c)``; ``W ~ (s_1..s_d, c//groups, c')``;
    ``b ~ (c')``. Returns ``(b, n'_1..n'_d, c')`` with
    ``n' = (n + 2p - (s-1)·dilation - 1) // stride + 1``. Like every deep-learning
    library it computes a cross-correlation (no kernel flip; book line 3420).

    Which code runs: for NumPy input and kernel, ``shifted.shifted_gemm_convnd`` when
    ``shifted_gemm_applies`` (stride 1, one group, moderate channel counts), else
    ``_numpy_convnd`` (a zero-copy window view, then one matmul): these are what
    ``benchmarks/bench_conv.py`` times. Torch and JAX arrays take the array-API path
    (gathered patches, then a grouped matmul), the book's patch-matrix formulation;
    all three agree to rounding (``tests/test_conv.py``,
    ``tests/test_conv_shifted.py``).
    """
    spec = conv_spec(
        X, W, b, d, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    xp = array_namespace(X, W)
    Xb = X if spec.batched else xp.expand_dims(X, axis=0)
    if isinstance(Xb, np.ndarray) and isinstance(W, np.ndarray):
        if shifted_gemm_applies(Xb, W, spec):
            H = shifted_gemm_convnd(Xb, W, spec)
        else:
            H = _numpy_convnd(Xb, W, spec)
    else:
        P = _gather(
            pad_spatial(Xb, spec.padding),
            spec.kernel,
            spec.stride,
            spec.dilation,
            spec.out,
        )
        N, K = Xb.shape[0] * prod(spec.out), prod(spec.kernel)
        P = xp.reshape(P, (N, K, spec.c_in))
        Wm = xp.reshape(W, (K, spec.c_in // groups, spec.c_out))
        H = xp.reshape(
            _grouped_matmul(P, Wm, groups), (Xb.shape[0], *spec.out, spec.c_out)
        )
    if b is not None:
        H = H + b
    return H if spec.batched else H[0, ...]


def conv2d(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (book §7.1.3, eq. E.7.4, lines 3354-3360), channels last.

    ``X ~ (b, h, w, c)`` or ``(h, w, c)``; ``W ~ (s_h, s_w, c//groups, c')``; ``b ~
    (c')``.
    ``padding``: int, ``(p_h, p_w)``, ``"same"`` (odd kernels: ``k = (s-1)/2`` zeros per
    side, line 3334) or ``"valid"``. Returns ``(b, h', w', c')``.

    >>> conv2d(np.ones((5, 5, 1)), np.ones((3, 3, 1, 2)), padding="same")[2, 2]
    array([9., 9.])
    """
    return convnd(
        X, W, b, d=2, stride=stride, padding=padding, dilation=dilation, groups=groups
    )


def conv1d(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (book §8.1, the 1-D case of E.7.4): ``X ~ (b, t, c)`` or ``(t,
    c)``,
    ``W ~ (s, c//groups, c')``; returns ``(b, t', c')``."""
    return convnd(
        X, W, b, d=1, stride=stride, padding=padding, dilation=dilation, groups=groups
    )


def conv3d(X, W, b=None, *, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (videos and volumes, book §8.1): ``X ~ (b, t, h, w, c)``,
    ``W ~ (s_t, s_h, s_w, c//groups, c')``; returns ``(b, t', h', w', c')``."""
    return convnd(
        X, W, b, d=3, stride=stride, padding=padding, dilation=dilation, groups=groups
    )


def causal_conv1d(X, W, b=None, *, dilation=1):
    """Causal 1-D convolution (book §8.3): left-pad by ``(s-1)·dilation`` zeros so that
    the output has the input's length and ``y_t`` depends only on ``x_{≤t}``.

    ``X ~ (b, t, c)`` or ``(t, c)``; ``W ~ (s, c, c')``; the last kernel tap multiplies
    ``x_t`` itself, tap ``i`` multiplies ``x_{t-(s-1-i)·dilation}``.
    """
    if getattr(W, "ndim", 0) != 3:
        raise ValueError(
            f"causal_conv1d expects W of shape (s, c, c'); got "
            f"{tuple(getattr(W, 'shape', ()))}"
        )
    r = tuple_of(dilation, 1, "dilation")[0]
    return convnd(X, W, b, d=1, padding=(((W.shape[0] - 1) * r, 0),), dilation=r)


def conv1x1(X, W, b=None):
    """1×1 convolution (book lines 3630-3642): a fully-connected layer on every pixel.

    ``X ~ (..., c)``, ``W ~ (c, c')`` (the book writes ``W ~ (c', c)`` and
    :math:`H_{ijz}=\\sum_t W_{zt}X_{ijt}`; we keep the input axis first, as in every
    kernel of this package). Returns ``(..., c')``.
    """
    if W.ndim != 2 or X.shape[-1] != W.shape[0]:
        raise ValueError(
            f"conv1x1 expects W of shape (c, c') with c = {X.shape[-1]}; got "
            f"{tuple(W.shape)}"
        )
    H = X @ W
    return H if b is None else H + b


def depthwise_conv2d(X, W, b=None, *, stride=1, padding="same", dilation=1):
    """Depthwise convolution (book lines 3644-3656): channel ``c`` of the output sees
    only
    channel ``c`` of the input. ``W ~ (s_h, s_w, c)``; this is ``conv2d`` with
    ``groups = c`` and kernel ``W[:, :, None, :]``."""
    xp = array_namespace(X, W)
    if W.ndim != 3 or W.shape[-1] != X.shape[-1]:
        raise ValueError(
            f"depthwise_conv2d expects W of shape (s_h, s_w, c) with c = "
            f"{X.shape[-1]}; got {tuple(W.shape)}"
        )
    Wg = xp.expand_dims(W, axis=2)
    return conv2d(
        X, Wg, b, stride=stride, padding=padding, dilation=dilation, groups=X.shape[-1]
    )


def depthwise_separable_conv2d(
    X, W_depth, W_point, b=None, *, stride=1, padding="same", dilation=1
):
    """Depthwise-separable convolution (book line 3658, MobileNets): a depthwise
    ``(s, s, c)`` convolution followed by a 1×1 ``(c, c')`` one; ``s·s·c + c·c'``
    weights instead of ``s·s·c·c'``."""
    H = depthwise_conv2d(X, W_depth, stride=stride, padding=padding, dilation=dilation)
    return conv1x1(H, W_point, b)
