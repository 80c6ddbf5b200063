r"""Graph layers on a dense or sparse adjacency: the graph convolution (GC) and graph
attention (GAT, GATv2), written once for every array backend.

A graph layer maps node features and the graph to new features,
:math:`\mathbf{H} = f(\mathbf{X}, \mathbf{A})` with X (n, c) -> H (n, c′), and is
*permutation equivariant*: renumbering the nodes renumbers the output rows,
:math:`f(\mathbf{P}\mathbf{X}, \mathbf{P}\mathbf{A}\mathbf{P}^\top) =
\mathbf{P}f(\mathbf{X}, \mathbf{A})` (line 6087).

- GC (line 6119): :math:`\phi(\mathbf{A}(\mathbf{X}\mathbf{W} + \mathbf{b}))`, with A
  normally :func:`~alice_lab.graphs.normalized_adjacency` (Kipf and Welling's
  :math:`\mathbf{D}^{-1/2}(\mathbf{A}+\mathbf{I})\mathbf{D}^{-1/2}`).
- GAT (line 6247): :math:`\alpha_{ij} = \mathrm{softmax}_{j\in\mathcal{N}(i)}
  \mathrm{LeakyReLU}(\mathbf{a}^\top[\mathbf{V}\mathbf{x}_i \| \mathbf{V}\mathbf{x}_j])`
  and :math:`\mathbf{h}_i = \phi(\sum_j \alpha_{ij}\mathbf{W}^\top\mathbf{x}_j)`.
- GATv2 (line 6251): :math:`\mathbf{a}^\top\mathrm{LeakyReLU}(\mathbf{V}[\mathbf{x}_i
  \| \mathbf{x}_j])`, the LeakyReLU moved inside, which makes the ranking of the
  neighbours depend on the central node (GAT's ranking is the same for every node,
  line 6249).

Layout is rows-as-nodes (batch first): the book's :math:`\mathbf{V}\mathbf{x}` is
``X @ V`` here, so V is (c, h) for GAT and (2c, h) for GATv2 (the first c rows act on
:math:`\mathbf{x}_i`, the last c on :math:`\mathbf{x}_j`); ``a`` is (2h,) for GAT and
(h,) for GATv2. The attention softmax is taken over each row's neighbours (axis -1);
a node with no neighbour gets a zero row (never NaN). ``self_loops=True`` (default)
lets every node attend to itself, as in the GAT paper.

Book: §12.2.2 (lines 6107-6133) and §12.3.1 (lines 6235-6253).
"""

from __future__ import annotations

from typing import Any

from alice_lab.activations import leaky_relu  # chapter 5's (GAT passes slope 0.2)
from alice_lab.backend import array_namespace
from alice_lab.graphs.matrices import (
    _check_features,
    _is_scipy_sparse,
    _is_torch_sparse,
    add_self_loops,
    to_dense,
)

__all__ = ["gat_attention", "gat_layer", "gat_scores", "gcn_layer"]


def _activation(H: Any, activation: Any) -> Any:
    if activation is None:
        return H
    if activation == "relu":
        xp = array_namespace(H)
        return xp.where(H > 0, H, xp.zeros_like(H))
    if callable(activation):
        return activation(H)
    raise ValueError(
        f"activation must be None, 'relu' or a callable; got {activation!r}"
    )


def _check_weight(X: Any, W: Any, name: str = "W", rows: int | None = None) -> None:
    c = X.shape[1] if rows is None else rows
    if len(getattr(W, "shape", ())) != 2 or W.shape[0] != c:
        raise ValueError(
            f"{name} must have shape ({c}, c_out); got {tuple(getattr(W, 'shape', ()))}"
        )


def gcn_layer(A: Any, X: Any, W: Any, b: Any = None, *, activation: Any = None) -> Any:
    r"""One graph convolution, :math:`\phi(\mathbf{A}(\mathbf{X}\mathbf{W}+\mathbf{b}))`
    (E. at line 6119; the bias sits inside A, as the book writes it).

    Parameters
    ----------
    A : (n, n), dense (any backend), ``scipy.sparse`` (X NumPy) or torch sparse; used as
        given, so normalise it first (:func:`~alice_lab.graphs.normalized_adjacency`).
    X : (n, c); W : (c, c′); b : (c′,) or None; activation : None, ``"relu"`` or a
        callable.

    Returns H (n, c′), X's backend.

    >>> import numpy as np
    >>> gcn_layer(np.eye(2), np.ones((2, 3)), np.ones((3, 1))).tolist()
    [[3.0], [3.0]]
    """
    _check_features(A, X)
    if len(X.shape) != 2:
        raise ValueError(f"X must have shape (n, c); got {tuple(X.shape)}")
    _check_weight(X, W)
    H = X @ W
    if b is not None:
        if tuple(b.shape) != (W.shape[1],):
            raise ValueError(f"b must have shape ({W.shape[1]},); got {tuple(b.shape)}")
        H = H + b[None, :]
    return _activation(A @ H, activation)


def gat_scores(
    X: Any, V: Any, a: Any, *, version: int = 1, negative_slope: float = 0.2
) -> Any:
    r"""The (n, n) unnormalised attention scores :math:`\alpha(\mathbf{x}_i,
    \mathbf{x}_j)` of every pair (row i = the central node), before masking and softmax.

    version 1 (GAT): V (c, h), a (2h,); version 2 (GATv2): V (2c, h), a (h,).
    """
    xp = array_namespace(X)
    n, c = X.shape
    if version == 1:
        _check_weight(X, V, "V (GAT)")
        h = V.shape[1]
        if tuple(a.shape) != (2 * h,):
            raise ValueError(
                f"a must have shape ({2 * h},) for GAT; got {tuple(a.shape)}"
            )
        H = X @ V
        s_i = H @ a[:h]
        s_j = H @ a[h:]
        return leaky_relu(s_i[:, None] + s_j[None, :], alpha=negative_slope)
    if version == 2:
        _check_weight(X, V, "V (GATv2)", rows=2 * c)
        h = V.shape[1]
        if tuple(a.shape) != (h,):
            raise ValueError(
                f"a must have shape ({h},) for GATv2; got {tuple(a.shape)}"
            )
        P = X @ V[:c, :]  # V_1 x_i
        Q = X @ V[c:, :]  # V_2 x_j
        Z = leaky_relu(P[:, None, :] + Q[None, :, :], alpha=negative_slope)  # (n, n, h)
        return xp.sum(Z * a[None, None, :], axis=-1)
    raise ValueError(f"version must be 1 (GAT) or 2 (GATv2); got {version!r}")


def _edge_mask(A: Any, X: Any, self_loops: bool) -> Any:
    if self_loops:
        A = add_self_loops(A)
    if _is_scipy_sparse(A) or _is_torch_sparse(A):
        A = to_dense(A)
    return A != 0


def gat_attention(
    A: Any,
    X: Any,
    V: Any,
    a: Any,
    *,
    version: int = 1,
    negative_slope: float = 0.2,
    self_loops: bool = True,
) -> Any:
    r"""The (n, n) attention matrix: row i is the softmax of the scores over
    :math:`\mathcal{N}(i)` (non-zeros of A's row i) and 0 elsewhere (line 6243).
    Rows sum to 1; a node without neighbours gets a row of zeros."""
    _check_features(A, X)
    xp = array_namespace(X)
    S = gat_scores(X, V, a, version=version, negative_slope=negative_slope)
    mask = _edge_mask(A, X, self_loops)
    if hasattr(mask, "device") and hasattr(S, "device") and hasattr(mask, "to"):
        mask = mask.to(S.device)
    neg = xp.full_like(S, -float("inf"))
    Sm = xp.where(mask, S, neg)
    has = xp.any(mask, axis=1, keepdims=True)
    m = xp.where(has, xp.max(Sm, axis=1, keepdims=True), xp.zeros_like(S[:, :1]))
    E = xp.where(mask, xp.exp(Sm - m), xp.zeros_like(S))
    den = xp.sum(E, axis=1, keepdims=True)
    return E / xp.where(den > 0, den, xp.ones_like(den))


def gat_layer(
    A: Any,
    X: Any,
    W: Any,
    V: Any,
    a: Any,
    *,
    version: int = 1,
    negative_slope: float = 0.2,
    activation: Any = None,
    self_loops: bool = True,
    return_attention: bool = False,
) -> Any:
    r"""A graph attention layer (GAT, ``version=1``, line 6247, or GATv2,
    ``version=2``, line 6251): :math:`\mathbf{H} = \phi(\boldsymbol{\alpha}\mathbf{X}
    \mathbf{W})` with :math:`\boldsymbol{\alpha}` from :func:`gat_attention`.

    A : (n, n) (only its non-zero pattern is used); X : (n, c); W : (c, c′); V, a as in
    :func:`gat_scores`. Returns H (n, c′) (and the attention (n, n) on request).
    Dense O(n²h) scores: fine up to a few thousand nodes; the edge-list version is
    :func:`alice_lab.graphs.gat_layer_edges`.
    """
    _check_features(A, X)
    if len(X.shape) != 2:
        raise ValueError(f"X must have shape (n, c); got {tuple(X.shape)}")
    _check_weight(X, W)
    alpha = gat_attention(
        A,
        X,
        V,
        a,
        version=version,
        negative_slope=negative_slope,
        self_loops=self_loops,
    )
    H = _activation(alpha @ (X @ W), activation)
    return (H, alpha) if return_attention else H
