"""Graph layers: GC against its closed form and networkx, sparse = dense, GAT/GATv2
against a loop written from the book's equations, permutation equivariance of every
layer, the PyTorch models."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from alice_lab import graphs as g


def _graph(n=12, p=0.3, seed=0):
    A = g.erdos_renyi(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    return A, rng.standard_normal((n, 4)), rng


def _gat_params(rng, c=4, c_out=3, h=5, version=1):
    W = rng.standard_normal((c, c_out))
    V = rng.standard_normal((c if version == 1 else 2 * c, h))
    a = rng.standard_normal(2 * h if version == 1 else h)
    return W, V, a


def test_gcn_layer_matches_kipf_welling_closed_form(backend):
    A, X, rng = _graph()
    W, b = rng.standard_normal((4, 3)), rng.standard_normal(3)
    G = nx.from_numpy_array(A + np.eye(12))
    A_hat = np.eye(12) - nx.normalized_laplacian_matrix(G).toarray()  # via networkx
    A_hat[np.diag_indices(12)] = 1 / (A + np.eye(12)).sum(1)
    want = np.maximum(A_hat @ (X @ W + b), 0)
    xb = backend.asarray
    got = g.gcn_layer(
        g.normalized_adjacency(xb(A)), xb(X), xb(W), xb(b), activation="relu"
    )
    np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)


def test_gcn_layer_sparse_equals_dense():
    A, X, rng = _graph(30, 0.1, 1)
    W = rng.standard_normal((4, 2))
    dense = g.gcn_layer(g.normalized_adjacency(A), X, W)
    S = g.normalized_adjacency(sp.csr_matrix(A))
    assert sp.issparse(S)
    np.testing.assert_allclose(g.gcn_layer(S, X, W), dense, atol=1e-12)
    torch = pytest.importorskip("torch")
    T = g.normalized_adjacency(torch.tensor(A).to_sparse())
    got = g.gcn_layer(T, torch.tensor(X), torch.tensor(W))
    np.testing.assert_allclose(got.numpy(), dense, atol=1e-12)


def _gat_loop(A, X, W, V, a, version, slope=0.2):
    """The book's equations, one node and one neighbour at a time (with self-loops)."""
    n = len(X)
    H = np.zeros((n, W.shape[1]))
    lrelu = lambda s: np.where(s > 0, s, slope * s)  # noqa: E731
    for i in range(n):
        nbrs = [j for j in range(n) if A[i, j] != 0 or i == j]
        if version == 1:
            s = [lrelu(a @ np.concatenate([X[i] @ V, X[j] @ V])) for j in nbrs]
        else:
            s = [a @ lrelu(np.concatenate([X[i], X[j]]) @ V) for j in nbrs]
        e = np.exp(np.array(s) - max(s))
        for w, j in zip(e / e.sum(), nbrs, strict=True):
            H[i] += w * (X[j] @ W)
    return H


@pytest.mark.parametrize("version", [1, 2])
def test_gat_matches_a_loop_and_the_edge_list_version(backend, version):
    A, X, rng = _graph()
    W, V, a = _gat_params(rng, version=version)
    want = _gat_loop(A, X, W, V, a, version)
    xb = backend.asarray
    got = g.gat_layer(xb(A), xb(X), xb(W), xb(V), xb(a), version=version)
    np.testing.assert_allclose(backend.to_numpy(got), want, atol=1e-12)
    ei = g.dense_to_coo(g.add_self_loops(A), layout="edge_index")
    got_e = g.gat_layer_edges(xb(X), xb(ei), xb(W), xb(V), xb(a), version=version)
    np.testing.assert_allclose(backend.to_numpy(got_e), want, atol=1e-12)
    np.testing.assert_allclose(
        g.gat_layer(sp.csr_matrix(A), X, W, V, a, version=version), want, atol=1e-12
    )


def test_gat_attention_rows_are_a_softmax_over_neighbours():
    A, X, rng = _graph()
    A[5, :] = A[:, 5] = 0
    W, V, a = _gat_params(rng)
    _, alpha = g.gat_layer(A, X, W, V, a, return_attention=True, self_loops=False)
    assert np.isfinite(alpha).all()
    np.testing.assert_allclose(alpha.sum(1)[A.sum(1) > 0], 1.0)
    assert (alpha[A == 0] == 0).all() and (alpha[5] == 0).all()  # isolated: zero row


def test_gat_ranking_is_static_gatv2_is_not():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8, 4))
    _, V1, a1 = _gat_params(rng, version=1, h=16)
    _, V2, a2 = _gat_params(rng, version=2, h=16)
    r1 = np.argsort(-g.gat_scores(X, V1, a1, version=1), axis=1)
    r2 = np.argsort(-g.gat_scores(X, V2, a2, version=2), axis=1)
    assert (r1 == r1[0]).all()
    assert not (r2 == r2[0]).all()


def _equivariance(layer, A, X, seed=0):
    perm = np.random.default_rng(seed).permutation(len(X))
    Xp, Ap = g.permute_graph(X, A, perm)
    np.testing.assert_allclose(layer(Ap, Xp), layer(A, X)[perm], atol=1e-10)


def test_every_layer_is_permutation_equivariant():
    A, X, rng = _graph(10, 0.35, 3)
    W, V, a = _gat_params(rng, version=1)
    W2, V2, a2 = _gat_params(rng, version=2)
    Wg = rng.standard_normal((4, 3))
    params = g.init_graph_transformer(4, k=3, seed=1)
    layers = {
        "gcn": lambda A, X: g.gcn_layer(g.normalized_adjacency(A), X, Wg, Wg[0]),
        "gat": lambda A, X: g.gat_layer(A, X, W, V, a),
        "gatv2": lambda A, X: g.gat_layer(A, X, W2, V2, a2, version=2),
        "graphconv": lambda A, X: g.graphconv_layer(A, X, Wg, Wg),
        "transformer+rwpe": lambda A, X: g.graph_transformer(X, A, params),
        "mpnn-max": lambda A, X: g.message_passing(
            X,
            g.dense_to_coo(A, layout="edge_index"),
            lambda xi, xj, e: xj - xi,
            aggr="max",
        ),
    }
    for layer in layers.values():
        _equivariance(layer, A, X)


def test_gcn_model_parameters_buffer_and_training():
    torch = pytest.importorskip("torch")
    A, y = g.karate_club()
    m = g.GCN(A, [34, 16, 2])
    assert sum(p.numel() for p in m.parameters()) == 34 * 16 + 16 + 16 * 2 + 2
    assert "A" in dict(m.named_buffers()) and "A" not in dict(m.named_parameters())
    torch.manual_seed(0)
    mask = np.zeros(34, bool)
    mask[[0, 33]] = True
    out = g.train_node_classifier(m, np.eye(34), y, mask, epochs=60)
    assert out["loss"][-1] < out["loss"][0]
    assert g.masked_accuracy(out["logits"], y) > 0.8
    gat = g.GAT(A, [34, 8, 2], version=2)
    assert gat(torch.eye(34)).shape == (34, 2)


def test_gat_gradients_match_finite_differences():
    torch = pytest.importorskip("torch")
    A, X, rng = _graph(6, 0.5, 2)
    W, V, a = (torch.tensor(t, requires_grad=True) for t in _gat_params(rng, version=2))
    Xt = torch.tensor(X)
    assert torch.autograd.gradcheck(
        lambda W, V, a: g.gat_layer(torch.tensor(A), Xt, W, V, a, version=2), (W, V, a)
    )
