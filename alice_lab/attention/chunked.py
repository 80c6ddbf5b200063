r"""Chunked attention with the online softmax: exact attention without the
``(n, m)`` score matrix.

Split the keys and values into chunks :math:`\mathbf{K}_1, \dots, \mathbf{K}_c` and
:math:`\mathbf{V}_1, \dots, \mathbf{V}_c`. For one query the output is
:math:`\left(\sum_i \mathbf{h}_i\right) / \sum_i L_i` with
:math:`\mathbf{h}_i = \exp(\mathbf{K}_i\mathbf{q})^\top\mathbf{V}_i` and
:math:`L_i = \sum_j [\exp(\mathbf{K}_i\mathbf{q})]_j` (book, §11.2.2, lines 5695-5741):
accumulate numerator and denominator chunk by chunk and divide at the end.

As printed, the exponentials overflow for large scores. The stable version keeps a
running maximum :math:`\mu` per query and rescales what it has accumulated whenever the
maximum grows: with :math:`\mu' = \max(\mu, \max_j s_j)`,
:math:`L \leftarrow L\,e^{\mu - \mu'} + \sum_j e^{s_j - \mu'}` and
:math:`\mathbf{h} \leftarrow \mathbf{h}\,e^{\mu - \mu'} + e^{\mathbf{s} - \mu'}
\mathbf{V}_i` (the online softmax of FlashAttention). Working memory is one
``(query block, chunk)`` tile plus the accumulators: linear in n for fixed chunks.

Book: §11.2.2 "Online softmax" (lines 5695-5741); used by the chapter-10 notebook's
complexity discussion and benchmarked in ``benchmarks/bench_attention.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.attention.masks import check_causal_sizes
from alice_lab.attention.scoring import _check_kv, _check_qk, _scale
from alice_lab.backend import array_namespace, as_float_array, check_int, device_of

__all__ = ["chunked_attention"]


def chunked_attention(
    Q: Any,
    K: Any,
    V: Any,
    *,
    chunk_size: int = 128,
    causal: bool = False,
    scale: Any = None,
    query_chunk_size: int | None = None,
    stable: bool = True,
) -> Any:
    r"""Exactly :func:`~alice_lab.attention.scaled_dot_product_attention`, computed
    chunk by chunk with the online softmax.

    Parameters
    ----------
    Q : (..., n, d); K : (..., m, d); V : (..., m, dv).
    chunk_size : keys per chunk (any positive integer; the last chunk may be short).
    causal : key j is visible to query i when j <= i + m - n (as in
        :func:`~alice_lab.attention.causal_mask`); chunks entirely in the future are
        skipped. More queries than keys (n > m) raise ``ValueError``.
    scale : default :math:`1/\sqrt{d}`.
    query_chunk_size : queries per block; default all n queries at once (one
        ``(n, chunk)`` tile), or ``chunk_size`` when ``causal``.
    stable : False reproduces the book's formula without the running maximum (it
        overflows to NaN for large scores).

    Returns
    -------
    (..., n, dv). No ``(n, m)`` array is ever allocated: the largest temporary is
    ``(..., query block, chunk)``.

    Which code runs
    ---------------
    NumPy inputs, non-causal and ``stable``: ``_numpy_fast``, the same blocks
    written into preallocated NumPy tiles (what ``benchmarks/bench_attention.py``
    times). Anything else (torch, JAX, causal, ``stable=False``): the array-API loop
    below, the book's online softmax block by block. Both give the same values to
    rounding (``tests/test_attention.py``).

    >>> rng = np.random.default_rng(0)
    >>> Q, K = rng.normal(size=(5, 4)), rng.normal(size=(7, 4))
    >>> V = rng.normal(size=(7, 3))
    >>> from alice_lab.attention import scaled_dot_product_attention as sdpa
    >>> bool(np.allclose(chunked_attention(Q, K, V, chunk_size=3), sdpa(Q, K, V)))
    True
    """
    Q, K, V = as_float_array(Q, "Q"), as_float_array(K, "K"), as_float_array(V, "V")
    _check_qk(Q, K)
    _check_kv(K, V)
    xp = array_namespace(Q, K, V)
    n, m, d = Q.shape[-2], K.shape[-2], Q.shape[-1]
    if causal:
        check_causal_sizes(n, m)
    kc = check_int(chunk_size, "chunk_size")
    if query_chunk_size is None:
        qc = min(kc, n) if causal else n
    else:
        qc = check_int(query_chunk_size, "query_chunk_size")
    s = _scale(scale, d)
    if stable and xp is array_namespace(np.zeros(0)) and not causal:
        return _numpy_fast(np.asarray(Q), np.asarray(K), np.asarray(V), kc, qc, s)
    Kt = xp.matrix_transpose(K)
    offset = m - n  # query i sees keys j <= i + offset when causal
    blocks = []
    for q0 in range(0, n, qc):
        q1 = min(q0 + qc, n)
        Qb = Q[..., q0:q1, :] * s
        last = min(m, q1 + offset) if causal else m  # keys beyond are all masked
        mu = L = acc = None
        for k0 in range(0, max(last, 1), kc):
            k1 = min(k0 + kc, m)
            S = Qb @ Kt[..., :, k0:k1]
            if causal and k1 - 1 > q0 + offset:  # the chunk crosses the diagonal
                dev = device_of(Q)
                i = xp.reshape(xp.arange(q0, q1, device=dev), (q1 - q0, 1))
                j = xp.reshape(xp.arange(k0, k1, device=dev), (1, k1 - k0))
                S = xp.where(j <= i + offset, S, xp.full_like(S, -float("inf")))
            if not stable:
                with np.errstate(over="ignore", invalid="ignore"):
                    P = xp.exp(S)
                    Lb, hb = xp.sum(P, axis=-1, keepdims=True), P @ V[..., k0:k1, :]
                    L, acc = (Lb, hb) if L is None else (L + Lb, acc + hb)
                continue
            mb = xp.max(S, axis=-1, keepdims=True)
            if mu is None:
                mu = mb
                P = xp.exp(S - mu)
                L, acc = xp.sum(P, axis=-1, keepdims=True), P @ V[..., k0:k1, :]
            else:
                new = xp.maximum(mu, mb)
                with np.errstate(invalid="ignore", over="ignore"):
                    # a row that has seen only masked keys so far has mu = -inf
                    alpha = xp.where(new == mu, xp.ones_like(mu), xp.exp(mu - new))
                P = xp.exp(S - new)
                L = L * alpha + xp.sum(P, axis=-1, keepdims=True)
                acc = acc * alpha + P @ V[..., k0:k1, :]
                mu = new
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            blocks.append(acc / L)
    return blocks[0] if len(blocks) == 1 else xp.concat(blocks, axis=-2)


def _numpy_fast(Q, K, V, kc, qc, s):
    """The NumPy non-causal path: matmuls and exponentials into preallocated tiles,
    no Python loop over rows (this is what the benchmark times)."""
    n, m = Q.shape[-2], K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype)
    out = np.empty((*lead, n, V.shape[-1]), dtype=dtype)
    Kt = np.swapaxes(K, -1, -2).astype(dtype, copy=False)
    V = V.astype(dtype, copy=False)
    for q0 in range(0, n, qc):
        q1 = min(q0 + qc, n)
        Qb = (Q[..., q0:q1, :] * dtype.type(s)).astype(dtype, copy=False)
        rows = q1 - q0
        tile = np.empty((*lead, rows, kc), dtype=dtype)
        acc = np.zeros((*lead, rows, V.shape[-1]), dtype=dtype)
        tmp = np.empty_like(acc)
        mu = np.full((*lead, rows, 1), -np.inf, dtype=dtype)
        L = np.zeros((*lead, rows, 1), dtype=dtype)
        mb = np.empty_like(mu)
        for k0 in range(0, m, kc):
            k1 = min(k0 + kc, m)
            S = tile[..., : k1 - k0]
            np.matmul(Qb, Kt[..., :, k0:k1], out=S)
            np.max(S, axis=-1, keepdims=True, out=mb)
            np.maximum(mb, mu, out=mb)  # the new running max
            S -= mb
            np.exp(S, out=S)
            if k0:
                np.subtract(mu, mb, out=mu)
                np.exp(mu, out=mu)  # rescaling factor e^{mu - mu'}
                L *= mu
                acc *= mu
            mu[...] = mb
            L += np.sum(S, axis=-1, keepdims=True)
            np.matmul(S, V[..., k0:k1, :], out=tmp)
            acc += tmp
        np.divide(acc, L, out=out[..., q0:q1, :])
    return out
