r"""Diffusion over a graph, the Laplacian's quadratic form and manifold regularisation.

One diffusion step replaces every node's features by a weighted sum of its
neighbours', :math:`\mathbf{X} \leftarrow \mathbf{A}\mathbf{X}` (line 6017). With a
sparse graph (m edges, m much smaller than n²) the product costs O(mc) instead of
O(n²c): :func:`diffusion` switches a dense NumPy adjacency to ``scipy.sparse`` CSR by
itself when fewer than ``density_threshold`` of its entries are non-zero.

The Laplacian's quadratic form measures how smooth a signal is on the graph:

.. math:: \mathbf{x}^\top\mathbf{L}\mathbf{x}
          = \tfrac12\sum_{i,j} A_{ij}(x_i - x_j)^2
          = \sum_{\{i,j\}} A_{ij}(x_i - x_j)^2 \quad (\text{unordered edges}).

The book prints both E.12.2, a sum over :math:`(i,j)\in\mathcal{E}`, and E.12.4, a sum
over all pairs i, j, without the ½. Its edge set of an undirected graph lists every
edge as both (i, j) and (j, i) (line 5965), so both sums count each edge twice and
equal :math:`2\,\mathbf{x}^\top\mathbf{L}\mathbf{x}` for a symmetric A (erratum E12-04
of the companion).

Book: §12.1.3 (lines 6013-6047) and §12.1.4 (lines 6049-6073).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int
from alice_lab.graphs.matrices import (
    _check_features,
    _is_scipy_sparse,
    check_adjacency,
    degree,
    laplacian,
    to_dense,
)

__all__ = [
    "DENSITY_THRESHOLD",
    "density",
    "diffusion",
    "dirichlet_energy",
    "epsilon_graph",
    "heat_diffusion",
    "manifold_reg_loss",
    "stationary_distribution",
]

#: below this fraction of non-zero entries :func:`diffusion` goes sparse by itself
DENSITY_THRESHOLD = 0.05
#: ... but only for graphs at least this large (tiny dense products are faster)
MIN_SPARSE_NODES = 256


def density(A: Any) -> float:
    """Fraction of non-zero entries of A (nnz / n²)."""
    n = check_adjacency(A)
    if n == 0:
        return 0.0
    if _is_scipy_sparse(A):
        return A.count_nonzero() / n**2
    if getattr(A, "is_sparse", False):
        return A.coalesce().values().ne(0).sum().item() / n**2
    if isinstance(A, np.ndarray):
        return np.count_nonzero(A) / n**2
    xp = array_namespace(A)
    return float(xp.sum(xp.astype(A != 0, xp.float64))) / n**2


def diffusion(
    A: Any,
    X: Any,
    steps: int = 1,
    *,
    sparse: bool | str = "auto",
    density_threshold: float = DENSITY_THRESHOLD,
    return_all: bool = False,
) -> Any:
    r"""``steps`` diffusion steps :math:`\mathbf{X} \leftarrow \mathbf{A}\mathbf{X}`
    (eq. at line 6017; node-wise :math:`x'_i = \sum_{j\in\mathcal{N}(i)}A_{ij}x_j`).

    A is used as given: pass :func:`~alice_lab.graphs.normalized_adjacency` (row mode:
    weighted averages, line 6027) or a random-walk matrix to keep values bounded.

    Parameters
    ----------
    A : (n, n) dense (any backend), ``scipy.sparse`` or torch sparse.
    X : (n,) or (n, c), the same backend as A (NumPy when A is ``scipy.sparse``).
    sparse : ``"auto"`` converts a dense NumPy A to CSR when its density is below
        ``density_threshold`` and n >= 256; ``True`` always converts a NumPy A,
        ``False`` never does.
    return_all : also return every iterate, shape (steps + 1, *X.shape) (NumPy).

    >>> diffusion(np.array([[0., 1.], [1., 0.]]), np.array([1., 2.]), 3).tolist()
    [2.0, 1.0]
    """
    _check_features(A, X)
    steps = check_int(steps, "steps", low=0)
    if isinstance(A, np.ndarray) and sparse is not False and A.ndim == 2:
        if sparse is True or A.shape[0] >= MIN_SPARSE_NODES:
            mask = A != 0
            nnz = int(np.count_nonzero(mask))
            if sparse is True or nnz < density_threshold * A.shape[0] ** 2:
                A = _dense_to_csr(A, mask)
    out = [X] if return_all else None
    for _ in range(steps):
        X = A @ X
        if out is not None:
            out.append(X)
    if _is_scipy_sparse(X):  # pragma: no cover - X is dense by contract
        X = X.toarray()
    if return_all:
        return np.stack([np.asarray(x) for x in out])
    return X


def _dense_to_csr(A: np.ndarray, mask: np.ndarray):
    """CSR from a dense array in one pass over its non-zero mask (several times faster
    than ``scipy.sparse.csr_array(A)`` on a large, very sparse matrix)."""
    import scipy.sparse as sp

    n, m = A.shape
    idx = np.flatnonzero(mask)
    rows, cols = np.divmod(idx, m)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return sp.csr_array((A.ravel()[idx], cols, indptr), shape=(n, m))


def heat_diffusion(
    A: Any, x: Any, steps: int = 1, *, eps: float | None = None, return_all=False
):
    r"""Laplacian smoothing :math:`\mathbf{x} \leftarrow \mathbf{x} - \varepsilon
    \mathbf{L}\mathbf{x}` (the "diffusion with the Laplacian" of Figure F.12.4; the
    book draws it but does not write the update).

    For a symmetric non-negative A it conserves the mean of x and, on a connected graph,
    converges to the constant signal at that mean when
    :math:`0 < \varepsilon < 2/\lambda_{\max}(\mathbf{L})`; the default
    :math:`\varepsilon = 1/(2 d_{\max})` is always safe since
    :math:`\lambda_{\max} \le 2 d_{\max}`. x : (n,) or (n, c), NumPy.
    """
    _check_features(A, x)
    check_adjacency(A, nonnegative=True)
    steps = check_int(steps, "steps", low=0)
    L = laplacian(A)
    if eps is None:
        dmax = float(np.max(np.asarray(degree(A)))) if A.shape[0] else 0.0
        eps = 1.0 / (2.0 * dmax) if dmax > 0 else 0.0
    out = [x]
    for _ in range(steps):
        x = x - eps * (L @ x)
        out.append(x)
    return np.stack([np.asarray(v) for v in out]) if return_all else x


def stationary_distribution(A: Any) -> np.ndarray:
    r"""The stationary distribution of the random walk on a symmetric, non-negative A:
    :math:`\pi_i = d_i / \sum_j d_j`. It is the fixed point of
    :math:`\mathbf{p} \leftarrow \mathbf{A}\mathbf{D}^{-1}\mathbf{p}`, which
    :func:`diffusion` with :func:`~alice_lab.graphs.random_walk_matrix` converges
    to on a connected graph that is not bipartite (e.g. with self-loops)."""
    check_adjacency(A, nonnegative=True)
    if not np.allclose(np.asarray(to_dense(A)), np.asarray(to_dense(A)).T):
        raise ValueError("stationary_distribution expects a symmetric adjacency")
    d = np.asarray(degree(A), dtype=np.float64)
    if d.sum() == 0:
        raise ValueError("a graph without edges has no random walk")
    return d / d.sum()


def dirichlet_energy(A: Any, X: Any) -> Any:
    r""":math:`\mathrm{tr}(\mathbf{X}^\top\mathbf{L}\mathbf{X})
    = \tfrac12\sum_{i,j}A_{ij}\lVert\mathbf{x}_i-\mathbf{x}_j\rVert^2` for a symmetric A
    (E.12.2 with each undirected edge counted once). X : (n,) or (n, c); returns a
    scalar (0-d array of X's backend; a float for NumPy).

    >>> float(dirichlet_energy(np.array([[0., 1.], [1., 0.]]), np.array([0., 3.])))
    9.0
    """
    _check_features(A, X)
    L = laplacian(A)
    LX = L @ X
    if _is_scipy_sparse(A):
        return float(np.sum(np.asarray(X) * np.asarray(LX)))
    xp = array_namespace(X)
    return xp.sum(X * LX)


def manifold_reg_loss(logits: Any, y: Any, labeled: Any, A: Any, lam: float) -> Any:
    r"""The semi-supervised objective of line 6069, corrected to
    :math:`\frac{1}{|\mathcal{T}|}\sum_{i\in\mathcal{T}} \mathrm{CE}(y_i,
    f(\mathbf{x}_i)) + \lambda\,\mathrm{tr}(\mathbf{F}^\top\mathbf{L}\mathbf{F})`:
    the loss sees the labelled nodes only (boolean ``labeled`` (n,)), the regulariser
    every node. F is the softmax of ``logits`` (n, k) (NumPy or torch); y (n,) ints.
    """
    _check_features(A, logits, "logits")
    mask = np.asarray(labeled, dtype=bool)
    y = np.asarray(y, dtype=np.int64)
    if mask.shape != (A.shape[0],) or y.shape != (A.shape[0],) or not mask.any():
        raise ValueError(
            f"y and labeled must have shape ({A.shape[0]},) with >= 1 labelled node; "
            f"got {y.shape} and {mask.shape}"
        )
    Ld = laplacian(np.asarray(to_dense(A), dtype=np.float64))
    if hasattr(logits, "detach"):
        import torch

        logp = torch.log_softmax(logits, dim=1)
        idx = torch.as_tensor(np.flatnonzero(mask), device=logits.device)
        yy = torch.as_tensor(y[mask], device=logits.device)
        ce = -logp[idx, yy].mean()
        P = logp.exp()
        L = torch.as_tensor(Ld, dtype=logits.dtype, device=logits.device)
        return ce + lam * (P * (L @ P)).sum()
    from scipy.special import log_softmax

    logp = log_softmax(np.asarray(logits, dtype=np.float64), axis=1)
    ce = -logp[np.flatnonzero(mask), y[mask]].mean()
    P = np.exp(logp)
    return float(ce + lam * np.sum(P * (Ld @ P)))


def epsilon_graph(X: Any, tau: float) -> np.ndarray:
    r"""The similarity graph of E.12.3 over a dataset X (n, c) (NumPy):
    :math:`A_{ij} = \exp(-\lVert\mathbf{x}_i-\mathbf{x}_j\rVert^2)` when the squared
    distance is below ``tau``, else 0. Symmetric, :math:`A_{ii} = 1`."""
    from scipy.spatial.distance import cdist

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, c); got {X.shape}")
    D2 = cdist(X, X, "sqeuclidean")
    return np.where(D2 < tau, np.exp(-D2), 0.0)
