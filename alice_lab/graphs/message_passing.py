r"""Message passing on an edge list, with segment (scatter) aggregation.

Stored as an edge list, a graph with m edges is ``edge_index`` (2, m): row 0 the
*source* j, row 1 the *target* i of each message (PyTorch Geometric's
``source_to_target`` flow). A message-passing layer (E.12.11)

.. math:: \mathbf{h}_i = \psi\Big(\mathbf{x}_i, \mathrm{Aggr}\big(\{M(\mathbf{x}_i,
          \mathbf{x}_j, \mathbf{e}_{ij})\}_{j\in\mathcal{N}(i)}\big)\Big)

computes one message per edge, (m, c′), then sums (or averages, or maxes) the messages
that arrive at each node: a *segment sum* over the target index. The same reduction
pools node embeddings into one vector per graph of a mini-batch, with the batch vector
as index (``scatter_sum`` of E.12.10).

:func:`segment_sum` dispatches to each framework's kernel: ``np.add.at`` for NumPy,
``Tensor.index_add`` for PyTorch, ``jax.ops.segment_sum`` for JAX, and a one-hot
product for any other array-API library.

Book: §12.2.4 (lines 6191-6229) and §12.3.2 (lines 6255-6289).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    check_int,
    device_of,
    is_jax_array,
    is_torch_array,
)

__all__ = [
    "gat_layer_edges",
    "gcn_message_passing",
    "graphconv_layer",
    "message_passing",
    "scatter_mean",
    "scatter_sum",
    "segment_max",
    "segment_mean",
    "segment_softmax",
    "segment_sum",
]


def _check_segments(data: Any, ids: Any, num_segments: Any) -> int:
    """Check ids (m,) against data (m, ...); return num_segments as an int."""
    if len(ids.shape) != 1 or ids.shape[0] != data.shape[0]:
        raise ValueError(
            f"segment ids must have shape ({data.shape[0]},) (one per row of data); "
            f"got {tuple(ids.shape)}"
        )
    num_segments = check_int(num_segments, "num_segments", low=0)
    lo, hi = _range(ids)
    if ids.shape[0] and (lo < 0 or hi >= num_segments):
        raise ValueError(f"segment ids must lie in [0, {num_segments}); got {lo}..{hi}")
    return num_segments


def _range(ids: Any) -> tuple[int, int]:
    if ids.shape[0] == 0:
        return 0, -1
    xp = array_namespace(ids)
    return int(xp.min(ids)), int(xp.max(ids))


def segment_sum(data: Any, segment_ids: Any, num_segments: int) -> Any:
    r""":math:`\mathbf{Y}_s = \sum_{k: \text{ids}_k = s}\mathbf{data}_k`.

    data : (m, ...) ; segment_ids : (m,) ints in [0, num_segments) -> (num_segments,
    ...). Empty segments are 0.

    >>> segment_sum(np.ones((7, 2)), np.array([0, 0, 0, 0, 1, 1, 1]), 2).tolist()
    [[4.0, 4.0], [3.0, 3.0]]
    """
    num_segments = _check_segments(data, segment_ids, num_segments)
    shape = (num_segments, *data.shape[1:])
    if isinstance(data, np.ndarray):
        out = np.zeros(shape, dtype=data.dtype)
        np.add.at(out, np.asarray(segment_ids), data)
        return out
    if is_torch_array(data):
        import torch

        out = torch.zeros(shape, dtype=data.dtype, device=data.device)
        return out.index_add(0, segment_ids.to(data.device).long(), data)
    if is_jax_array(data):
        import jax

        return jax.ops.segment_sum(data, segment_ids, num_segments=num_segments)
    xp = array_namespace(data)
    seg = xp.arange(num_segments, device=device_of(data))
    onehot = xp.astype(seg[:, None] == segment_ids[None, :], data.dtype)
    flat = xp.reshape(data, (data.shape[0], -1))
    return xp.reshape(onehot @ flat, shape)


def _counts(segment_ids: Any, num_segments: int, like: Any) -> Any:
    xp = array_namespace(like)
    ones = xp.ones((like.shape[0],), dtype=like.dtype, device=device_of(like))
    return segment_sum(ones, segment_ids, num_segments)


def segment_mean(data: Any, segment_ids: Any, num_segments: int) -> Any:
    """Mean per segment; an empty segment gives 0 (divides by max(count, 1))."""
    xp = array_namespace(data)
    s = segment_sum(data, segment_ids, num_segments)
    c = _counts(segment_ids, num_segments, data)
    c = xp.where(c > 0, c, xp.ones_like(c))
    return s / xp.reshape(c, (-1,) + (1,) * (len(data.shape) - 1))


def _segment_max_onehot(data: Any, segment_ids: Any, shape: tuple) -> Any:
    xp = array_namespace(data)
    dev = device_of(data)
    if data.shape[0] == 0:
        return xp.full(shape, -xp.inf, dtype=data.dtype, device=dev)
    seg = xp.arange(shape[0], device=dev)
    hit = (seg[:, None] == segment_ids[None, :])[:, :, None]  # (k, m, 1)
    flat = xp.reshape(data, (data.shape[0], -1))[None, :, :]  # (1, m, c)
    neg = xp.full((1, 1, 1), -xp.inf, dtype=data.dtype, device=dev)
    return xp.reshape(xp.max(xp.where(hit, flat, neg), axis=1), shape)


def segment_max(data: Any, segment_ids: Any, num_segments: int) -> Any:
    """Max per segment; an empty segment gives 0 (not -inf). Dispatches to
    ``np.maximum.at``, ``Tensor.scatter_reduce`` or ``jax.ops.segment_max``; any other
    array-API library masks a (num_segments, m, ...) copy (O(num_segments m) memory)."""
    num_segments = _check_segments(data, segment_ids, num_segments)
    shape = (num_segments, *data.shape[1:])
    if is_torch_array(data):
        import torch

        idx = segment_ids.to(data.device).long()
        idx = idx.reshape(-1, *([1] * (data.dim() - 1))).expand_as(data)
        out = torch.full(shape, -torch.inf, dtype=data.dtype, device=data.device)
        out = out.scatter_reduce(0, idx, data, reduce="amax", include_self=True)
    elif is_jax_array(data):
        import jax

        out = jax.ops.segment_max(data, segment_ids, num_segments=num_segments)
    elif isinstance(data, np.ndarray):
        out = np.full(shape, -np.inf, dtype=data.dtype)
        np.maximum.at(out, np.asarray(segment_ids), data)
    else:
        out = _segment_max_onehot(data, segment_ids, shape)
    xp = array_namespace(out)
    return xp.where(xp.isfinite(out) | (out > 0), out, xp.zeros_like(out))


def segment_softmax(scores: Any, segment_ids: Any, num_segments: int) -> Any:
    r"""Softmax of ``scores`` (m,) within each segment (the GAT softmax over
    :math:`\mathcal{N}(i)` on an edge list), shifted by the segment max first."""
    xp = array_namespace(scores)
    m = segment_max(scores, segment_ids, num_segments)
    e = xp.exp(scores - xp.take(m, segment_ids, axis=0))
    den = segment_sum(e, segment_ids, num_segments)
    return e / xp.take(den, segment_ids, axis=0)


scatter_sum = segment_sum
scatter_mean = segment_mean


def _check_edge_index(X: Any, edge_index: Any) -> None:
    if len(edge_index.shape) != 2 or edge_index.shape[0] != 2:
        raise ValueError(
            f"edge_index must have shape (2, m); got {tuple(edge_index.shape)}"
        )
    n = X.shape[0]
    lo, hi = _range(edge_index[0, :])
    lo2, hi2 = _range(edge_index[1, :])
    if edge_index.shape[1] and (min(lo, lo2) < 0 or max(hi, hi2) >= n):
        raise ValueError(f"edge_index refers to node {max(hi, hi2)}; X has {n} rows")


def message_passing(
    X: Any,
    edge_index: Any,
    message_fn: Callable,
    *,
    aggr: str = "sum",
    update_fn: Callable | None = None,
    edge_attr: Any = None,
) -> Any:
    r"""The general layer E.12.11 on an edge list.

    X : (n, c); edge_index : (2, m) with sources j in row 0 and targets i in row 1.
    ``message_fn(x_i, x_j, e_ij)`` gets (m, c), (m, c) and (m, d_e) or None and returns
    (m, c′) messages; ``aggr`` is "sum", "mean" or "max" (all permutation invariant);
    ``update_fn(X, M)`` (the book's ψ) gets X and the aggregated (n, c′) messages;
    the default returns the messages.
    """
    _check_edge_index(X, edge_index)
    xp = array_namespace(X)
    src, dst = edge_index[0, :], edge_index[1, :]
    x_j = xp.take(X, src, axis=0)
    x_i = xp.take(X, dst, axis=0)
    msg = message_fn(x_i, x_j, edge_attr)
    reduce = {"sum": segment_sum, "mean": segment_mean, "max": segment_max}
    if aggr not in reduce:
        raise ValueError(f"aggr must be one of {sorted(reduce)}; got {aggr!r}")
    M = reduce[aggr](msg, dst, X.shape[0])
    return M if update_fn is None else update_fn(X, M)


def gcn_message_passing(X: Any, edge_index: Any, weights: Any, W: Any) -> Any:
    r"""The GC layer as message passing (line 6273): :math:`M = A_{ij}\mathbf{W}^\top
    \mathbf{x}_j`, sum aggregation, identity ψ.
    ``weights`` (m,) holds :math:`A_{ij}`."""
    return message_passing(
        X, edge_index, lambda xi, xj, e: weights[:, None] * (xj @ W), aggr="sum"
    )


def graphconv_layer(A: Any, X: Any, W: Any, V: Any, *, activation: Any = None) -> Any:
    r"""GraphConv (line 6277): :math:`\phi(\mathbf{X}\mathbf{V} + \mathbf{A}\mathbf{X}
    \mathbf{W})`: the node's own features enter apart from its neighbours'.
    A (n, n) dense or sparse; X (n, c); W, V (c, c′)."""
    from alice_lab.graphs.layers import _activation, gcn_layer

    return _activation(X @ V + gcn_layer(A, X, W), activation)


def gat_layer_edges(
    X: Any,
    edge_index: Any,
    W: Any,
    V: Any,
    a: Any,
    *,
    version: int = 1,
    negative_slope: float = 0.2,
) -> Any:
    r"""GAT / GATv2 on an edge list (no self-loops added: include (i, i) edges in
    ``edge_index`` to get them): per-edge scores, :func:`segment_softmax` over each
    target's incoming edges, then a segment sum of :math:`\alpha_{ij}\mathbf{W}^\top
    \mathbf{x}_j`. Same shapes as :func:`~alice_lab.graphs.gat_layer`; O(m h) memory."""
    from alice_lab.activations import leaky_relu

    _check_edge_index(X, edge_index)
    xp = array_namespace(X)
    src, dst = edge_index[0, :], edge_index[1, :]
    c = X.shape[1]
    if version == 1:
        h = V.shape[1]
        H = X @ V
        s = xp.take(H @ a[:h], dst, axis=0) + xp.take(H @ a[h:], src, axis=0)
        s = leaky_relu(s, alpha=negative_slope)
    elif version == 2:
        Z = xp.take(X @ V[:c, :], dst, axis=0) + xp.take(X @ V[c:, :], src, axis=0)
        s = leaky_relu(Z, alpha=negative_slope) @ a
    else:
        raise ValueError(f"version must be 1 or 2; got {version!r}")
    alpha = segment_softmax(s, dst, X.shape[0])
    return segment_sum(alpha[:, None] * xp.take(X @ W, src, axis=0), dst, X.shape[0])
