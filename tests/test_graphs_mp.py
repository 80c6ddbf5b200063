"""Segment sums against np.add.at, torch index_add and jax.ops.segment_sum; message
passing, mini-batching, graph-transformer encodings and the generated datasets."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from alice_lab import graphs as g


def _data(m=40, c=3, k=6, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, k - 1, m)  # the last segment stays empty
    return rng.standard_normal((m, c)), ids, k


def test_segment_sum_every_backend_against_np_add_at(backend):
    data, ids, k = _data()
    want = np.zeros((k, 3))
    np.add.at(want, ids, data)
    got = g.segment_sum(backend.asarray(data), backend.asarray(ids), k)
    np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)


def test_segment_sum_against_framework_kernels():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    data, ids, k = _data(seed=1)
    t = torch.zeros(k, 3, dtype=torch.float64).index_add_(
        0, torch.tensor(ids), torch.tensor(data)
    )
    j = jax.ops.segment_sum(jax.numpy.asarray(data), jax.numpy.asarray(ids), k)
    np.testing.assert_allclose(g.segment_sum(data, ids, k), t.numpy(), atol=1e-12)
    np.testing.assert_allclose(g.segment_sum(data, ids, k), np.asarray(j), atol=1e-6)


def test_segment_mean_max_softmax_and_empty_segments(backend):
    data, ids, k = _data(seed=2)
    xb = backend.asarray
    mean = backend.to_numpy(g.segment_mean(xb(data), xb(ids), k))
    mx = backend.to_numpy(g.segment_max(xb(data), xb(ids), k))
    for s in range(k - 1):
        np.testing.assert_allclose(mean[s], data[ids == s].mean(0), atol=1e-12)
        np.testing.assert_allclose(mx[s], data[ids == s].max(0), atol=1e-12)
    assert (mean[-1] == 0).all() and (mx[-1] == 0).all()  # documented: empty -> 0
    sm = backend.to_numpy(g.segment_softmax(xb(data[:, 0]), xb(ids), k))
    from scipy.special import softmax

    for s in range(k - 1):
        np.testing.assert_allclose(sm[ids == s], softmax(data[ids == s, 0]), atol=1e-12)


def test_segment_ids_out_of_range_raise():
    with pytest.raises(ValueError, match="segment ids must lie"):
        g.segment_sum(np.ones((3, 2)), np.array([0, 1, 5]), 3)
    with pytest.raises(ValueError, match="one per row"):
        g.segment_sum(np.ones((3, 2)), np.array([0, 1]), 3)
    with pytest.raises(ValueError, match="edge_index"):
        g.message_passing(np.ones((3, 2)), np.array([[0, 1], [1, 7]]), lambda *a: a[1])


def test_scatter_sum_of_figure_f12_8():
    batch = np.array([0, 0, 0, 0, 1, 1, 1])
    H = np.ones((7, 5))
    assert g.scatter_sum(H, batch, 2).tolist() == [[4.0] * 5, [3.0] * 5]
    np.testing.assert_array_equal(g.scatter_mean(H, batch, 2), np.ones((2, 5)))


def test_gc_is_a_special_case_of_message_passing(backend):
    A = g.normalized_adjacency(g.erdos_renyi(10, 0.3, seed=1))
    rng = np.random.default_rng(0)
    X, W = rng.standard_normal((10, 4)), rng.standard_normal((4, 2))
    ei = g.dense_to_coo(A, layout="edge_index")
    w = A[ei[1], ei[0]]  # A_ij for the message j -> i
    xb = backend.asarray
    got = g.gcn_message_passing(xb(X), xb(ei), xb(w), xb(W))
    np.testing.assert_allclose(backend.to_numpy(got), A @ X @ W, atol=1e-12)


def test_aggregation_ignores_the_order_of_edges():
    A = g.erdos_renyi(12, 0.3, seed=2)
    X = np.random.default_rng(1).standard_normal((12, 3))
    ei = g.dense_to_coo(A, layout="edge_index")
    shuffled = ei[:, np.random.default_rng(0).permutation(ei.shape[1])]
    for aggr in ("sum", "mean", "max"):
        a = g.message_passing(X, ei, lambda xi, xj, e: xj * xi, aggr=aggr)
        b = g.message_passing(X, shuffled, lambda xi, xj, e: xj * xi, aggr=aggr)
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_block_diagonal_batch_equals_per_graph_runs():
    rng = np.random.default_rng(0)
    graphs = [
        (rng.standard_normal((n, 3)), g.erdos_renyi(n, 0.5, seed=n)) for n in (4, 3, 6)
    ]
    X, A, batch = g.block_diagonal_batch(graphs)
    W = rng.standard_normal((3, 2))
    got = g.gcn_layer(g.normalized_adjacency(A), X, W)
    want = np.vstack(
        [g.gcn_layer(g.normalized_adjacency(Ai), Xi, W) for Xi, Ai in graphs]
    )
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert batch.tolist() == [0] * 4 + [1] * 3 + [2] * 6


def test_random_walk_pe_against_matrix_powers_and_equivariance():
    A = g.erdos_renyi(9, 0.4, seed=3)
    pe = g.random_walk_pe(A, 4)
    R = A / A.sum(0, keepdims=True)
    for t in range(1, 5):
        np.testing.assert_allclose(pe[:, t - 1], np.diag(np.linalg.matrix_power(R, t)))
    perm = np.random.default_rng(0).permutation(9)
    _, Ap = g.permute_graph(np.zeros((9, 1)), A, perm)
    np.testing.assert_allclose(g.random_walk_pe(Ap, 4), pe[perm], atol=1e-14)
    cyc = nx.to_numpy_array(nx.cycle_graph(6))
    assert np.allclose(g.random_walk_pe(cyc, 5), g.random_walk_pe(cyc, 5)[0])


def test_positional_encodings_on_every_backend(backend):
    A = g.erdos_renyi(9, 0.4, seed=3)
    R = A / A.sum(0, keepdims=True)
    pe = g.random_walk_pe(backend.asarray(A), 4)
    assert type(pe) is type(backend.asarray(A)) and tuple(pe.shape) == (9, 4)
    for t in range(1, 5):
        np.testing.assert_allclose(
            backend.to_numpy(pe)[:, t - 1],
            np.diag(np.linalg.matrix_power(R, t)),
            atol=1e-12,
        )
    # eigenvectors: L v = λ v with networkx's Laplacian and NumPy's eigenvalues, and
    # orthonormal columns (the signs are free, so the vectors are not compared).
    L = nx.normalized_laplacian_matrix(nx.from_numpy_array(A)).toarray()
    lam = np.linalg.eigvalsh(L)[1:4]
    V = backend.to_numpy(g.laplacian_pe(backend.asarray(A), 3))
    np.testing.assert_allclose(L @ V, V * lam, atol=1e-10)
    np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-10)


def test_positional_encodings_accept_sparse_and_integer_adjacencies():
    sp = pytest.importorskip("scipy.sparse")
    A = g.erdos_renyi(8, 0.5, seed=1)
    want = g.random_walk_pe(A, 3)
    np.testing.assert_allclose(g.random_walk_pe(sp.csr_matrix(A), 3), want)
    np.testing.assert_allclose(g.random_walk_pe(A.astype(int), 3), want)
    V = g.laplacian_pe(sp.csr_matrix(A), 2)
    assert isinstance(V, np.ndarray) and V.shape == (8, 2)


def test_transformer_without_pe_is_blind_to_edges():
    X = np.random.default_rng(0).standard_normal((6, 4))
    A1 = nx.to_numpy_array(nx.path_graph(6))
    A2 = nx.to_numpy_array(nx.star_graph(5))
    p = g.init_graph_transformer(4, k=3)
    np.testing.assert_allclose(g.graph_transformer(X, A1, p, pe=None),
                               g.graph_transformer(X, A2, p, pe=None))  # fmt: skip
    assert not np.allclose(g.graph_transformer(X, A1, p), g.graph_transformer(X, A2, p))


def test_generators_against_networkx():
    A = g.barabasi_albert(100, 3, seed=0)
    G = nx.barabasi_albert_graph(100, 3, seed=0)
    assert A.sum() / 2 == G.number_of_edges() == 291
    E = g.erdos_renyi(100, 6 / 99, seed=0)
    assert A.sum(1).max() > 2 * E.sum(1).max()
    grid = g.patch_grid_adjacency(4)
    want = nx.to_numpy_array(
        nx.grid_2d_graph(4, 4), nodelist=[(i, j) for i in range(4) for j in range(4)]
    )
    np.testing.assert_array_equal(grid, want)
    assert nx.diameter(nx.from_numpy_array(grid)) == 6


def test_image_patches_and_sbm():
    img = np.arange(64.0).reshape(1, 8, 8)
    P = g.image_to_patches(img, 2)
    assert P.shape == (1, 16, 4)
    assert P[0, 1].tolist() == [2.0, 3.0, 10.0, 11.0]  # second patch, row-major
    with pytest.raises(ValueError, match="divide"):
        g.image_to_patches(img, 3)
    A, X, y = g.stochastic_block_model((40, 40), 0.3, 0.01, seed=0)
    assert g.is_undirected(A) and X.shape == (80, 8)
    assert g.edge_homophily(A, y) > 0.8


def test_bench_scaling_curve_and_plot():
    import sys
    from pathlib import Path

    import matplotlib.pyplot as plt

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:  # benchmarks/ is a folder of the repo, not installed
        sys.path.insert(0, root)
    from benchmarks.bench_graphs import plot_scaling, scaling_curve, sparse_graph

    A = sparse_graph(400, 10)
    np.testing.assert_allclose(A.sum(1), 1.0)
    c = scaling_curve((300, 400), degree=10, steps=2, repeat=1)
    assert c["n"] == [300, 400] and all(r > 0 for r in c["ratio"])
    assert all(d < 0.05 for d in c["density"])
    fig = plot_scaling(c)
    assert len(fig.axes[0].lines) == 2
    plt.close(fig)
