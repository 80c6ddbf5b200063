r"""The NumPy fast path for stride-1 convolutions: one BLAS product per kernel tap.

Equation E.7.4 (§7.1.3, lines 3354-3360) sums, for every output pixel, the kernel
matrix of each tap times the input pixel under that tap. Summed over taps instead of
gathered into patches:

.. math:: H = \sum_{k} \operatorname{shift}_k(X)\, W_k ,

one ``(positions, c) @ (c, c')`` product per tap ``k``. On the padded input flattened
to rows (one row per pixel, channels along the row), the pixel under tap ``k`` of
output position ``p`` is row ``p + offset_k`` for a fixed ``offset_k``, so every
shifted input is a *contiguous slice* of the same array: no patch matrix is built,
and BLAS ``gemm`` with ``beta = 1`` accumulates the ``s·s`` products in place.

The price is that outputs are computed on the padded grid (a border of ``(s-1)·r``
rows and columns per image that is thrown away) and that each product has only ``c``
as its inner dimension. So this path is taken only where it was measured to win
(``benchmarks/``, 2 cores, OpenBLAS): stride 1, one group, float inputs,
``MIN_CHANNELS <= c <= MAX_CHANNELS`` and a padded grid at most :data:`MAX_WASTE`
times the output grid. Everything else goes through the patch matrix
(:mod:`alice_lab.conv.patches`), whose single product has inner dimension ``s·s·c``.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "MAX_CHANNELS",
    "MAX_WASTE",
    "MIN_CHANNELS",
    "shifted_gemm_applies",
    "shifted_gemm_convnd",
]

MIN_CHANNELS = 8
"""Below this many input channels each per-tap product has a tiny inner dimension
and the single patches-times-matrix product is faster."""

MAX_CHANNELS = 64
"""Above this, the patch matrix's long inner dimension ``s·s·c`` makes its one
product efficient enough that building it pays off."""

MAX_WASTE = 1.5
"""Largest ratio (padded grid size) / (output grid size) worth computing."""

_GEMM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def shifted_gemm_applies(X: np.ndarray, W: np.ndarray, spec) -> bool:
    """Whether :func:`shifted_gemm_convnd` is the faster path for this convolution:
    stride 1, one group, ``float32``/``float64`` input and kernel of the same dtype,
    ``MIN_CHANNELS <= c <= MAX_CHANNELS`` and little border waste (``MAX_WASTE``)."""
    if not (
        all(s == 1 for s in spec.stride)
        and spec.groups == 1
        and MIN_CHANNELS <= spec.c_in <= MAX_CHANNELS
        and X.dtype == W.dtype
        and X.dtype in _GEMM_DTYPES
    ):
        return False
    grid = [
        n + lo + hi for n, (lo, hi) in zip(X.shape[1:-1], spec.padding, strict=True)
    ]
    return float(np.prod(grid)) <= MAX_WASTE * float(np.prod(spec.out))


def shifted_gemm_convnd(X: np.ndarray, W: np.ndarray, spec) -> np.ndarray:
    """``X ~ (b, n_1..n_d, c)`` (batched), ``W ~ (s_1..s_d, c, c')`` -> ``(b,
    n'_1..n'_d, c')`` for a stride-1, single-group ``spec`` (see
    :func:`shifted_gemm_applies`).

    The result is a view into an output computed on the padded grid.
    """
    from scipy.linalg.blas import get_blas_funcs

    pads = ((0, 0), *spec.padding, (0, 0))
    Xp = np.pad(X, pads) if any(p != (0, 0) for p in pads) else X
    Xp = np.ascontiguousarray(Xp)
    grid = Xp.shape[1:-1]
    c, c_out = spec.c_in, spec.c_out
    rows = Xp.reshape(-1, c)  # one row per padded pixel
    row_step = [int(np.prod(grid[i + 1 :])) for i in range(spec.d)]
    offsets = [
        sum(
            k * r * step
            for k, r, step in zip(tap, spec.dilation, row_step, strict=True)
        )
        for tap in itertools.product(*(range(s) for s in spec.kernel))
    ]
    n_rows = rows.shape[0] - offsets[-1]  # every kept output lies below this row
    Wk = np.ascontiguousarray(W.reshape(len(offsets), c, c_out))
    H = np.empty((rows.shape[0], c_out), dtype=X.dtype)
    gemm = get_blas_funcs("gemm", dtype=X.dtype)
    # Fortran view of the C-ordered arrays: H^T (c', M) += W_k^T (c', c) @ rows^T (c, M)
    target = H[:n_rows].T
    for k, offset in enumerate(offsets):
        result = gemm(
            1.0,
            Wk[k].T,
            rows[offset : offset + n_rows].T,
            beta=0.0 if k == 0 else 1.0,
            c=target,
            overwrite_c=True,
        )
        if result.ctypes.data != target.ctypes.data:  # BLAS wrapper had to copy
            target[...] = result
    H = H.reshape(*Xp.shape[:-1], c_out)
    return H[(slice(None), *(slice(0, n) for n in spec.out))]
