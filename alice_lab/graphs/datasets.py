r"""Small graphs that ship with the code: Zachary's karate club (networkx), stochastic
block models, Erdős–Rényi and Barabási–Albert graphs generated from a seed, and images
cut into patches that become the nodes of a grid graph (the chapter's exercise).

Book: §12.1.2 (Figure F.12.3), "From theory to practice" (lines 6319-6329).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "barabasi_albert",
    "block_diagonal_batch",
    "digits_patch_graphs",
    "edge_homophily",
    "erdos_renyi",
    "image_to_patches",
    "karate_club",
    "patch_grid_adjacency",
    "stochastic_block_model",
]


def karate_club() -> tuple[np.ndarray, np.ndarray]:
    """Zachary's karate club: A (34, 34) binary symmetric, no self-loops, 78 edges, and
    the club each member joined after the split, y (34,) (0 = Mr. Hi, 1 = Officer)."""
    import networkx as nx

    G = nx.karate_club_graph()
    A = nx.to_numpy_array(G, nodelist=range(34), weight=None)
    y = np.array([G.nodes[i]["club"] != "Mr. Hi" for i in range(34)], dtype=np.int64)
    return A, y


def erdos_renyi(n: int, p: float, *, seed: int = 0) -> np.ndarray:
    """G(n, p): each of the n(n-1)/2 undirected edges present with probability p."""
    rng = np.random.default_rng(seed)
    U = np.triu(rng.random((n, n)) < p, k=1)
    return (U | U.T).astype(np.float64)


def barabasi_albert(n: int, m: int = 3, *, seed: int = 0) -> np.ndarray:
    """Preferential attachment (as networkx): a star on m + 1 nodes, then each new node
    links to m distinct existing nodes drawn with probability proportional to degree.
    m(n - m) edges."""
    if not 1 <= m < n:
        raise ValueError(f"need 1 <= m < n; got m={m}, n={n}")
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    A[0, 1 : m + 1] = A[1 : m + 1, 0] = 1
    ends = [0] * m + list(range(1, m + 1))  # each node once per incident edge
    for v in range(m + 1, n):
        targets: set[int] = set()
        while len(targets) < m:
            targets.add(ends[rng.integers(len(ends))])
        for t in targets:
            A[v, t] = A[t, v] = 1
            ends += [v, t]
    return A


def stochastic_block_model(
    sizes: tuple[int, ...] = (50, 50),
    p_in: float = 0.2,
    p_out: float = 0.02,
    *,
    features: int = 8,
    signal: float = 1.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""A stochastic block model: nodes in blocks of ``sizes``; an edge joins two nodes
    of the same block with probability ``p_in``, of different blocks with ``p_out``.
    Node features are Gaussian, (n, features), with a class mean of norm ``signal``.
    Returns A (n, n), X (n, features), y (n,)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    n = len(y)
    P = np.where(y[:, None] == y[None, :], p_in, p_out)
    U = np.triu(rng.random((n, n)) < P, k=1)
    A = (U | U.T).astype(np.float64)
    means = rng.standard_normal((len(sizes), features))
    means *= signal / np.linalg.norm(means, axis=1, keepdims=True)
    X = means[y] + rng.standard_normal((n, features))
    return A, X, y


def edge_homophily(A: Any, y: Any) -> float:
    """Fraction of edges (i ≠ j) whose two ends share a label."""
    A = np.asarray(A)
    i, j = np.nonzero(np.triu(A, k=1))
    y = np.asarray(y)
    return float(np.mean(y[i] == y[j])) if len(i) else float("nan")


def patch_grid_adjacency(rows: int, cols: int | None = None) -> np.ndarray:
    r"""E.12.12: the (p, p) adjacency of an rows × cols grid of patches, p = rows·cols
    in row-major order; :math:`A_{ij} = 1` when patches i and j share a border (4-
    connectivity: sharing a corner does not count). 2·r·(r-1) edges for an r × r grid.

    >>> int(patch_grid_adjacency(4).sum()) // 2
    24
    """
    cols = rows if cols is None else cols
    idx = np.arange(rows * cols).reshape(rows, cols)
    A = np.zeros((rows * cols, rows * cols))
    for a, b in ((idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :])):
        A[a.ravel(), b.ravel()] = A[b.ravel(), a.ravel()] = 1
    return A


def image_to_patches(images: Any, patch: int) -> np.ndarray:
    """Cut images (b, h, w) or (b, h, w, c) into non-overlapping patch × patch tiles,
    row-major: (b, p, patch·patch·c) node features with p = (h/patch)(w/patch)."""
    X = np.asarray(images, dtype=np.float64)
    if X.ndim == 3:
        X = X[..., None]
    if X.ndim != 4:
        raise ValueError(f"images must be (b, h, w) or (b, h, w, c); got {X.shape}")
    b, h, w, c = X.shape
    if h % patch or w % patch:
        raise ValueError(f"patch {patch} must divide the image size {h}x{w}")
    X = X.reshape(b, h // patch, patch, w // patch, patch, c).transpose(
        0, 1, 3, 2, 4, 5
    )
    return X.reshape(b, (h // patch) * (w // patch), patch * patch * c)


def digits_patch_graphs(patch: int = 2):
    """The 1,797 ``load_digits`` images as graphs: node features (1797, p, patch²) in
    [0, 1], the shared patch-grid adjacency (p, p) and labels (1797,)."""
    from alice_lab.data import load_digits

    X, y = load_digits()
    imgs = np.asarray(X, dtype=np.float64).reshape(-1, 8, 8) / 16.0
    return (
        image_to_patches(imgs, patch),
        patch_grid_adjacency(8 // patch),
        np.asarray(y),
    )


def block_diagonal_batch(graphs: list[tuple[Any, Any]]):
    r"""Merge graphs [(X_i (n_i, c), A_i (n_i, n_i)), ...] into one graph with
    components (E.12.8-E.12.9): X (Σn_i, c), A block-diagonal (``scipy.sparse`` CSR)
    and the batch vector (Σn_i,) of graph indices."""
    import scipy.sparse as sp

    Xs = [np.asarray(X) for X, _ in graphs]
    A = sp.block_diag([sp.csr_matrix(np.asarray(Ai)) for _, Ai in graphs], format="csr")
    batch = np.concatenate([np.full(len(X), k) for k, X in enumerate(Xs)])
    return np.concatenate(Xs), A, batch
