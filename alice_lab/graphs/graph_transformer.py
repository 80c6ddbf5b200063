r"""Graph transformers: self-attention over all nodes, plus structural embeddings.

A transformer applied to the node features alone is permutation equivariant but blind
to the edges (line 6299): two different graphs with the same features give the same
output. Adding an embedding of the connectivity fixes this,
:math:`\mathbf{H} = \mathrm{Transformer}(\mathbf{X} + \mathrm{Embedding}(\mathbf{A}))`
(line 6301). The random-walk embedding (line 6315) stacks the return probabilities
:math:`\mathrm{diag}(\mathbf{R}^t)`, t = 1..k, of the random walk
:math:`\mathbf{R} = \mathbf{A}\mathbf{D}^{-1}`: an (n, k) matrix (the book stacks the
k diagonals as rows, a (k, n) matrix, which needs a transpose before ``@ W``).

Book: §12.3.3 (lines 6291-6317).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int
from alice_lab.graphs.matrices import (
    check_adjacency,
    is_sparse,
    laplacian,
    random_walk_matrix,
    to_dense,
)

__all__ = [
    "graph_transformer",
    "init_graph_transformer",
    "laplacian_pe",
    "random_walk_pe",
]


def _dense_float(M: Any) -> Any:
    """``M`` dense (scipy.sparse -> NumPy, torch sparse -> dense tensor) and floating
    (integer NumPy adjacencies become float64)."""
    M = to_dense(M) if is_sparse(M) else M
    xp = array_namespace(M)
    return M if xp.isdtype(M.dtype, "real floating") else xp.astype(M, xp.float64)


def random_walk_pe(A: Any, k: int) -> Any:
    r"""Random-walk positional encoding (n, k): column t-1 is
    :math:`\mathrm{diag}(\mathbf{R}^t)`, the probability that a walk from each node is
    back after t steps. ``A`` (n, n) on any backend (dense, ``scipy.sparse`` or torch
    sparse); the result is dense, on A's backend and device, powers computed
    iteratively.

    >>> random_walk_pe(np.array([[0., 1.], [1., 0.]]), 3).tolist()
    [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    check_adjacency(A, nonnegative=True)
    k = check_int(k, "k")
    R = _dense_float(random_walk_matrix(A))
    xp = array_namespace(R)
    P = R
    cols = [xp.linalg.diagonal(P)]
    for _ in range(k - 1):
        P = P @ R
        cols.append(xp.linalg.diagonal(P))
    return xp.stack(cols, axis=1)


def laplacian_pe(A: Any, k: int) -> Any:
    """The k eigenvectors of the normalised Laplacian after the first (n, k), a
    positional encoding defined up to the sign of each column (line 6317). Any backend
    with ``linalg.eigh``; the result is on A's backend (dense)."""
    n = check_adjacency(A, nonnegative=True)
    k = check_int(k, "k")
    if k >= n:
        raise ValueError(f"k must lie in 1..{n - 1}; got {k}")
    L = _dense_float(laplacian(A, normalized=True))
    _, vecs = array_namespace(L).linalg.eigh(L)
    return vecs[:, 1 : k + 1]


def init_graph_transformer(
    c: int, *, k: int = 8, layers: int = 2, hidden: int = 32, seed: int = 0
) -> dict:
    """Seeded parameters: ``"pe"`` (k, c) and one single-head encoder block per layer
    (:func:`alice_lab.transformer.init_block_params`, no biases; NumPy)."""
    from alice_lab.transformer import init_block_params

    rng = np.random.default_rng(seed)
    pe = rng.standard_normal((k, c)) / np.sqrt(k)
    blocks = [
        init_block_params(c, 1, hidden, rng=rng, bias=False) for _ in range(layers)
    ]
    return {"pe": pe, "blocks": blocks}


def graph_transformer(
    X: Any, A: Any, params: dict, *, pe: str | None = "rw"
) -> np.ndarray:
    r"""A graph transformer (Figure F.12.9): add :math:`\mathrm{RWPE}(\mathbf{A})
    \mathbf{W}_{pe}` (``pe="rw"``, W_pe (k, c)) or nothing (``pe=None``) to X (n, c),
    then the pre-norm, single-head, ReLU blocks of
    :func:`alice_lab.transformer.transformer_block`. Returns (n, c)."""
    from alice_lab.transformer import transformer_block

    n = check_adjacency(A)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != n:
        raise ValueError(f"X must have shape ({n}, c); got {X.shape}")
    if pe == "rw":
        X = X + random_walk_pe(A, params["pe"].shape[0]) @ params["pe"]
    elif pe is not None:
        raise ValueError(f"pe must be 'rw' or None; got {pe!r}")
    for p in params["blocks"]:
        X = transformer_block(X, p, heads=1)
    return X
