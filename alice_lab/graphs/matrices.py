r"""Adjacency, degree, Laplacian and normalised adjacency matrices of a graph.

A graph with n nodes is stored as its adjacency matrix :math:`\mathbf{A} \sim (n, n)`
(:math:`A_{ij} \neq 0` when there is an edge from i to j) and node features
:math:`\mathbf{X} \sim (n, c)`. Every function here accepts ``A`` as

- a dense array of any array-API backend (NumPy, PyTorch, JAX, array-api-strict): the
  result has the caller's type and device;
- a ``scipy.sparse`` matrix or array: the result is ``scipy.sparse`` (CSR);
- a PyTorch sparse COO tensor (for :func:`degree` and :func:`normalized_adjacency`):
  the result is a sparse COO tensor.

**Isolated nodes.** A node with zero degree has no :math:`d_i^{-1}` or
:math:`d_i^{-1/2}`. We use the convention of PyTorch Geometric and networkx: the inverse
of a zero degree is taken as 0, so the node's row and column of the normalised matrix
are zero (never NaN). **Negative weights** make :math:`d_i^{-1/2}` undefined and are
rejected with ``ValueError`` wherever a normalisation is computed.

Book: §12.1.1-§12.1.3 (lines 5947-6047), eqs. E.12.1 and the definitions around them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, device_of, to_numpy

__all__ = [
    "add_self_loops",
    "adjacency",
    "check_adjacency",
    "coo_to_dense",
    "degree",
    "degree_matrix",
    "dense_to_coo",
    "incidence_matrix",
    "is_sparse",
    "is_undirected",
    "laplacian",
    "normalized_adjacency",
    "permute_graph",
    "random_walk_matrix",
    "to_dense",
]


def _is_scipy_sparse(A: Any) -> bool:
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        return False
    return sp.issparse(A)


def _is_torch_sparse(A: Any) -> bool:
    return type(A).__module__.startswith("torch") and getattr(A, "is_sparse", False)


def is_sparse(A: Any) -> bool:
    """True for a ``scipy.sparse`` matrix/array or a PyTorch sparse tensor."""
    return _is_scipy_sparse(A) or _is_torch_sparse(A)


def to_dense(A: Any) -> Any:
    """A dense copy of ``A``: NumPy for ``scipy.sparse``, a tensor for torch sparse."""
    if _is_scipy_sparse(A):
        return np.asarray(A.toarray())
    if _is_torch_sparse(A):
        return A.to_dense()
    return A


def check_adjacency(A: Any, *, nonnegative: bool = False, name: str = "A") -> int:
    """Check that ``A`` is a square (n, n) matrix (and has no negative, NaN or
    infinite weight when ``nonnegative``); return n. Raises ``ValueError`` naming
    what it received.

    >>> check_adjacency(np.eye(3))
    3
    """
    shape = tuple(getattr(A, "shape", ()))
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(
            f"{name} must be a square (n, n) adjacency matrix; got shape {shape}"
        )
    if nonnegative:
        if _is_scipy_sparse(A):
            w = A.tocsr().data
            low = w.min() if w.size else 0.0
            finite = bool(np.all(np.isfinite(w)))
        elif _is_torch_sparse(A):
            v = A.coalesce().values()
            low = float(v.min()) if v.numel() else 0.0
            finite = bool(v.isfinite().all())
        else:
            xp = array_namespace(A)
            low = float(xp.min(A)) if shape[0] else 0.0
            finite = bool(xp.all(xp.isfinite(A)))
        if not finite:
            raise ValueError(
                f"{name} has a NaN or infinite edge weight; degree normalisation "
                "needs finite weights"
            )
        if low < 0:
            raise ValueError(
                f"{name} has a negative edge weight ({float(low):.3g}); degree "
                "normalisation needs non-negative weights"
            )
    return int(shape[0])


def _check_features(A: Any, X: Any, name: str = "X") -> None:
    n = check_adjacency(A)
    shape = tuple(getattr(X, "shape", ()))
    if len(shape) not in (1, 2) or shape[0] != n:
        raise ValueError(
            f"{name} must have one row per node, shape ({n},) or ({n}, c) for a graph "
            f"of {n} nodes; got shape {shape}"
        )


def adjacency(edges: Any, n: int, *, undirected: bool = True, weights: Any = None):
    r"""The (n, n) NumPy adjacency matrix of an edge list ``edges`` (m, 2).

    :math:`A_{ij} = 1` (or the edge's weight) if :math:`(i, j) \in \mathcal{E}`; with
    ``undirected`` each edge is stored both ways. Book: §12.1.1 (line 5963).

    >>> float(adjacency([[0, 1], [1, 2]], 3).sum())
    4.0
    """
    E = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if E.size and (E.min() < 0 or E.max() >= n):
        raise ValueError(f"edge indices must lie in [0, {n}); got {E.min()}..{E.max()}")
    w = np.ones(len(E)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (len(E),):
        raise ValueError(f"weights must have shape ({len(E)},); got {w.shape}")
    A = np.zeros((n, n))
    A[E[:, 0], E[:, 1]] = w
    if undirected:
        A[E[:, 1], E[:, 0]] = w
    return A


def is_undirected(A: Any, *, atol: float = 0.0) -> bool:
    r"""True when :math:`\mathbf{A}^\top = \mathbf{A}` (line 5965)."""
    check_adjacency(A)
    D = to_numpy(to_dense(A))
    return bool(np.allclose(D, D.T, rtol=0, atol=atol))


def incidence_matrix(edges: Any, n: int) -> np.ndarray:
    r"""The (n, m) incidence matrix of the undirected edges (m, 2): :math:`B_{ie} = 1`
    when node i is an end of edge e. Every column sums to 2 (no self-loops).

    Book: §12.1.1, Figure F.12.2 (line 5965).

    >>> incidence_matrix([[0, 1], [1, 2]], 3).sum(axis=0).tolist()
    [2.0, 2.0]
    """
    E = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if np.any(E[:, 0] == E[:, 1]):
        raise ValueError("an incidence matrix with column sums 2 needs no self-loops")
    B = np.zeros((n, len(E)))
    cols = np.arange(len(E))
    B[E[:, 0], cols] = 1.0
    B[E[:, 1], cols] = 1.0
    return B


def dense_to_coo(A: Any, *, layout: str = "pairs") -> np.ndarray:
    """The non-zero coordinates of ``A``: ``(m, 2)`` pairs (the book's list, line
    6199) or PyG's ``(2, m)`` ``edge_index``, row-major order.

    >>> dense_to_coo(np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]])).tolist()
    [[0, 2], [2, 0]]
    """
    check_adjacency(A)
    if _is_scipy_sparse(A):
        C = A.tocoo()
        idx = np.stack([C.row, C.col], axis=1).astype(np.int64)
        idx = idx[np.lexsort((idx[:, 1], idx[:, 0]))]
    else:
        idx = np.argwhere(np.asarray(to_dense(A)) != 0).astype(np.int64)
    if layout == "pairs":
        return idx
    if layout == "edge_index":
        return idx.T.copy()
    raise ValueError(f"layout must be 'pairs' or 'edge_index'; got {layout!r}")


def coo_to_dense(idx: Any, n: int, *, layout: str = "pairs") -> np.ndarray:
    """Inverse of :func:`dense_to_coo` (binary A, one entry per listed pair)."""
    idx = np.asarray(idx, dtype=np.int64)
    pairs = idx if layout == "pairs" else idx.T
    return adjacency(pairs, n, undirected=False)


def degree(A: Any) -> Any:
    r"""Degrees :math:`d_i = \sum_j A_{ij}` (row sums), shape (n,). Book: line 5987.

    >>> degree(np.array([[0., 1.], [1., 1.]])).tolist()
    [1.0, 2.0]
    """
    check_adjacency(A)
    if _is_scipy_sparse(A):
        return np.asarray(A.sum(axis=1)).ravel().astype(np.float64)
    if _is_torch_sparse(A):
        import torch

        return torch.sparse.sum(A, dim=1).to_dense()
    xp = array_namespace(A)
    return xp.sum(A, axis=1)


def degree_matrix(A: Any) -> Any:
    """The diagonal (n, n) degree matrix D (dense, the caller's backend)."""
    d = degree(A)
    if isinstance(d, np.ndarray):
        return np.diag(d)
    xp = array_namespace(d)
    n = d.shape[0]
    return xp.eye(n, dtype=d.dtype, device=device_of(d)) * d[None, :]


def _inv_power(d: Any, power: float) -> Any:
    """:math:`d^{-power}` with 0 where d == 0 (isolated nodes): never inf or NaN."""
    xp = array_namespace(d)
    pos = d > 0
    safe = xp.where(pos, d, xp.ones_like(d))
    return xp.where(pos, safe ** (-power), xp.zeros_like(d))


def add_self_loops(A: Any) -> Any:
    r""":math:`\mathbf{A} + \mathbf{I}` where the diagonal is zero; an existing
    self-loop is kept as it is (never counted twice). Book: line 5971.

    >>> add_self_loops(np.array([[1., 1.], [1., 0.]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    n = check_adjacency(A)
    if _is_scipy_sparse(A):
        import scipy.sparse as sp

        missing = (A.diagonal() == 0).astype(np.float64)
        return sp.csr_matrix(A + sp.diags(missing))
    if _is_torch_sparse(A):
        import torch

        d = A.to_dense().diagonal() if n else A.to_dense()[:0, 0]
        missing = (d == 0).to(A.dtype)
        eye = torch.sparse_coo_tensor(
            torch.arange(n, device=A.device).repeat(2, 1),
            missing,
            A.shape,
            check_invariants=True,
        )
        return (A + eye).coalesce()
    xp = array_namespace(A)
    eye = xp.eye(n, dtype=A.dtype, device=device_of(A))
    diag = xp.sum(A * eye, axis=1)
    return A + eye * xp.astype(diag == 0, A.dtype)[None, :]


def _scale(A: Any, left: Any, right: Any) -> Any:
    r""":math:`\mathrm{diag}(l)\,\mathbf{A}\,\mathrm{diag}(r)`, by broadcasting."""
    if _is_scipy_sparse(A):
        import scipy.sparse as sp

        return sp.csr_matrix(sp.diags(left) @ A @ sp.diags(right))
    if _is_torch_sparse(A):
        import torch

        C = A.coalesce()
        i, j = C.indices()
        return torch.sparse_coo_tensor(
            C.indices(),
            C.values() * left[i] * right[j],
            C.shape,
            check_invariants=True,
        ).coalesce()
    return left[:, None] * A * right[None, :]


def normalized_adjacency(A: Any, *, self_loops: bool = True, mode: str = "sym") -> Any:
    r"""The normalised adjacency matrix.

    - ``mode="sym"``: :math:`\mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2}`, i.e.
      :math:`A'_{ij} = A_{ij}/\sqrt{d_i d_j}` (line 6009, the GCN's choice);
    - ``mode="row"``: :math:`\mathbf{D}^{-1}\mathbf{A}`, rows sum to 1 (line 5995;
      the book's line 6007 writes :math:`\sum_i`, it is :math:`\sum_j`);
    - ``mode="col"``: :math:`\mathbf{A}\mathbf{D}^{-1}`, columns sum to 1 (line 6007).

    With ``self_loops`` (default) :math:`\mathbf{A}+\mathbf{I}` is normalised, so no
    node is isolated. Without them a zero-degree node gets a zero row and column (see
    the module docstring). Negative, NaN or infinite weights raise ``ValueError``.

    A : (n, n) dense array, ``scipy.sparse`` or torch sparse -> same kind, (n, n).

    >>> normalized_adjacency(np.array([[0., 1.], [1., 0.]])).round(12).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    check_adjacency(A, nonnegative=True)
    if mode not in ("sym", "row", "col"):
        raise ValueError(f"mode must be 'sym', 'row' or 'col'; got {mode!r}")
    if self_loops:
        A = add_self_loops(A)
    d = degree(A)
    if mode == "sym":
        s = _inv_power(d, 0.5)
        return _scale(A, s, s)
    ones = d * 0 + 1
    if mode == "row":
        return _scale(A, _inv_power(d, 1.0), ones)
    return _scale(A, ones, _inv_power(degree(_transpose(A)), 1.0))


def _transpose(A: Any) -> Any:
    if _is_scipy_sparse(A):
        return A.T.tocsr()
    if _is_torch_sparse(A):
        return A.t().coalesce()
    return array_namespace(A).permute_dims(A, (1, 0))


def random_walk_matrix(A: Any) -> Any:
    r""":math:`\mathbf{R} = \mathbf{A}\mathbf{D}^{-1}` (line 6307): column j holds the
    probabilities of stepping from j to each i (columns sum to 1 for a symmetric A).
    The book reads :math:`R_{ij}` as i→j; with this R it is j→i (the diagonals, which
    the positional encoding uses, are the same either way)."""
    check_adjacency(A, nonnegative=True)
    d = degree(A)
    ones = d * 0 + 1
    return _scale(A, ones, _inv_power(d, 1.0))


def laplacian(A: Any, *, normalized: bool = False) -> Any:
    r"""The graph Laplacian :math:`\mathbf{L} = \mathbf{D} - \mathbf{A}` (line 6031),
    with D the row sums of A.

    ``normalized=True`` gives :math:`\mathbf{D}^{-1/2}\mathbf{L}\mathbf{D}^{-1/2}`
    (= :math:`\mathbf{I} - \mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2}` when no node is
    isolated), as ``networkx.normalized_laplacian_matrix``: an isolated node's row and
    column are 0. Self-loops cancel in the unnormalised L.

    >>> laplacian(np.array([[0., 1.], [1., 0.]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    check_adjacency(A, nonnegative=normalized)
    d = degree(A)
    if _is_scipy_sparse(A):
        import scipy.sparse as sp

        L = sp.csr_matrix(sp.diags(d) - A)
    elif _is_torch_sparse(A):
        L = (_torch_diag(d) - A).coalesce()
    else:
        L = degree_matrix(A) - A
    if not normalized:
        return L
    s = _inv_power(d, 0.5)
    return _scale(L, s, s)


def _torch_diag(d):
    import torch

    n = d.shape[0]
    return torch.sparse_coo_tensor(
        torch.arange(n).repeat(2, 1), d, (n, n), check_invariants=True
    )


def permute_graph(X: Any, A: Any, perm: Any) -> tuple[Any, Any]:
    r"""The same graph with its nodes renumbered: :math:`(\mathbf{P}\mathbf{X},
    \mathbf{P}\mathbf{A}\mathbf{P}^\top)` with :math:`P_{k,\,perm[k]} = 1` (line 5981),
    i.e. new node k is old node ``perm[k]``. Dense NumPy / torch / JAX arrays.
    """
    _check_features(A, X)
    p = np.asarray(perm, dtype=np.int64)
    if sorted(p.tolist()) != list(range(A.shape[0])):
        raise ValueError(f"perm must be a permutation of 0..{A.shape[0] - 1}")
    if _is_scipy_sparse(A):
        return X[p], A[p][:, p]
    xp = array_namespace(A)
    idx = xp.asarray(p, device=device_of(A))
    return xp.take(X, idx, axis=0), xp.take(xp.take(A, idx, axis=0), idx, axis=1)
