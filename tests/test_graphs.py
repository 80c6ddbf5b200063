"""alice_lab.graphs matrices and diffusion: against networkx, SciPy, closed forms, on
every backend; bad inputs raise ValueError or give the documented, NaN-free result."""

from __future__ import annotations

import importlib

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from alice_lab import graphs as g


def _er(n=15, p=0.25, seed=0):
    return g.erdos_renyi(n, p, seed=seed)


# --- matrices ------------------------------------------------------------------------


def test_karate_matches_networkx():
    A, y = g.karate_club()
    G = nx.karate_club_graph()
    assert A.shape == (34, 34) and A.sum() == 2 * G.number_of_edges() == 156
    np.testing.assert_array_equal(g.degree(A), [d for _, d in G.degree()])
    assert y.sum() == 17 and g.is_undirected(A)


@pytest.mark.parametrize("normalized", [False, True])
def test_laplacian_matches_networkx(backend, normalized):
    A = _er()
    A[3, :] = A[:, 3] = 0  # an isolated node: networkx gives a zero row there
    G = nx.from_numpy_array(A)
    if normalized:
        want = nx.normalized_laplacian_matrix(G, weight=None).toarray()
    else:
        want = nx.laplacian_matrix(G, weight=None).toarray()
    got = backend.to_numpy(g.laplacian(backend.asarray(A), normalized=normalized))
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.isfinite(got).all()


def test_normalized_adjacency_closed_form_and_formats(backend):
    A = _er(20, 0.2, 1)
    At = A + np.eye(20)
    d = At.sum(1)
    want = At / np.sqrt(np.outer(d, d))
    got = backend.to_numpy(g.normalized_adjacency(backend.asarray(A)))
    np.testing.assert_allclose(got, want, atol=1e-12)
    # off the diagonal it is minus networkx's normalised Laplacian of A + I
    L_nx = nx.normalized_laplacian_matrix(nx.from_numpy_array(At), weight="weight")
    off = ~np.eye(20, dtype=bool)
    np.testing.assert_allclose(want[off], -L_nx.toarray()[off], atol=1e-12)
    np.testing.assert_allclose(
        g.normalized_adjacency(sp.csr_matrix(A)).toarray(), want, atol=1e-12
    )
    torch = pytest.importorskip("torch")
    S = g.normalized_adjacency(torch.tensor(A).to_sparse())
    np.testing.assert_allclose(S.to_dense().numpy(), want, atol=1e-12)


def test_row_and_column_normalisation():
    A = _er(12, 0.3, 2)
    R = g.normalized_adjacency(A, mode="row")
    C = g.normalized_adjacency(A, mode="col")
    np.testing.assert_allclose(R.sum(1), 1.0)
    np.testing.assert_allclose(C.sum(0), 1.0)
    np.testing.assert_allclose(
        R, np.diag(1 / (A + np.eye(12)).sum(1)) @ (A + np.eye(12))
    )


def test_isolated_nodes_give_zero_rows_never_nan():
    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = 1
    for mode in ("sym", "row", "col"):
        N = g.normalized_adjacency(A, self_loops=False, mode=mode)
        assert np.isfinite(N).all()
        assert (N[2:] == 0).all() and (N[:, 2:] == 0).all()
    N = g.normalized_adjacency(sp.csr_matrix(A), self_loops=False)
    assert np.isfinite(N.toarray()).all()
    assert np.isfinite(g.laplacian(A, normalized=True)).all()
    assert np.isfinite(g.random_walk_matrix(A)).all()


def test_bad_inputs_raise_value_error():
    with pytest.raises(ValueError, match="square"):
        g.normalized_adjacency(np.ones((3, 4)))
    with pytest.raises(ValueError, match="square"):
        g.degree(np.ones(3))
    A = _er(6, 0.5, 3)
    A[0, 1] = A[1, 0] = -1.0
    for fn in (g.normalized_adjacency, g.random_walk_matrix,
               lambda M: g.laplacian(M, normalized=True)):  # fmt: skip
        with pytest.raises(ValueError, match="negative"):
            fn(A)
        with pytest.raises(ValueError, match="negative"):
            fn(sp.csr_matrix(A))
    with pytest.raises(ValueError, match="one row per node"):
        g.gcn_layer(np.eye(5), np.ones((4, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="one row per node"):
        g.diffusion(np.eye(5), np.ones((6, 2)))
    with pytest.raises(ValueError, match="W must have shape"):
        g.gcn_layer(np.eye(4), np.ones((4, 2)), np.ones((3, 3)))


def test_self_loops_not_added_twice(backend):
    A = np.array([[1.0, 1, 0], [1, 0, 1], [0, 1, 0]])
    want = np.array([[1.0, 1, 0], [1, 1, 1], [0, 1, 1]])
    np.testing.assert_array_equal(
        backend.to_numpy(g.add_self_loops(backend.asarray(A))), want
    )
    np.testing.assert_array_equal(g.add_self_loops(sp.csr_matrix(A)).toarray(), want)


def test_coo_and_incidence():
    A = np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    assert g.dense_to_coo(A).tolist() == [[0, 2], [2, 0]]
    B = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert g.dense_to_coo(B, layout="edge_index").tolist() == [[0, 1], [1, 2]]
    np.testing.assert_array_equal(g.coo_to_dense(g.dense_to_coo(A), 3), A)
    edges = np.array(list(nx.karate_club_graph().edges()))
    Bi = g.incidence_matrix(edges, 34)
    want = nx.incidence_matrix(
        nx.karate_club_graph(), edgelist=[tuple(e) for e in edges]
    )
    np.testing.assert_array_equal(Bi, want.toarray())
    Ak, _ = g.karate_club()
    np.testing.assert_allclose(Bi @ Bi.T, np.diag(Ak.sum(1)) + Ak)


def test_permutation_is_an_isomorphism():
    A = _er(10, 0.3, 4)
    X = np.arange(30.0).reshape(10, 3)
    perm = np.random.default_rng(0).permutation(10)
    Xp, Ap = g.permute_graph(X, A, perm)
    P = np.eye(10)[perm]
    np.testing.assert_array_equal(Ap, P @ A @ P.T)
    np.testing.assert_array_equal(Xp, P @ X)
    assert nx.is_isomorphic(nx.from_numpy_array(A), nx.from_numpy_array(Ap))


# --- diffusion ------------------------------------------------------------------------


def test_diffusion_dense_sparse_and_backends_agree(backend):
    A = g.normalized_adjacency(_er(30, 0.1, 5), mode="row")
    X = np.random.default_rng(0).standard_normal((30, 3))
    want = np.linalg.matrix_power(A, 4) @ X
    got = backend.to_numpy(g.diffusion(backend.asarray(A), backend.asarray(X), 4))
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(g.diffusion(sp.csr_matrix(A), X, 4), want, atol=1e-12)
    np.testing.assert_allclose(g.diffusion(A, X, 4, sparse=True), want, atol=1e-12)
    torch = pytest.importorskip("torch")
    T = torch.tensor(A).to_sparse()
    got_t = g.diffusion(T, torch.tensor(X), 4)
    np.testing.assert_allclose(got_t.numpy(), want, atol=1e-12)


def test_diffusion_goes_sparse_by_itself_on_a_sparse_graph(monkeypatch):
    mod = importlib.import_module("alice_lab.graphs.diffusion")

    A = g.erdos_renyi(400, 0.01, seed=0)
    calls = []
    real = mod._dense_to_csr

    def spy(M, mask):
        calls.append(1)
        S = real(M, mask)
        np.testing.assert_array_equal(S.toarray(), M)  # the CSR copy is exact
        return S

    monkeypatch.setattr(mod, "_dense_to_csr", spy)
    x = np.ones(400)
    np.testing.assert_allclose(g.diffusion(A, x, 2), A @ (A @ x))
    assert calls == [1]
    g.diffusion(np.ones((400, 400)), x, 1)  # dense: stays dense
    assert calls == [1]


def test_random_walk_converges_to_the_stationary_distribution():
    A = g.add_self_loops(_er(15, 0.3, 6))  # self-loops: aperiodic
    assert nx.is_connected(nx.from_numpy_array(A))
    R = g.random_walk_matrix(A)
    p0 = np.zeros(15)
    p0[0] = 1.0
    p = g.diffusion(R, p0, 500)
    vals, vecs = np.linalg.eig(R)  # independent: the eigenvector for eigenvalue 1
    v = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    np.testing.assert_allclose(p, v / v.sum(), atol=1e-10)
    np.testing.assert_allclose(g.stationary_distribution(A), v / v.sum(), atol=1e-10)


def test_heat_diffusion_conserves_the_mean_and_flattens():
    A = _er(15, 0.25, 0)
    x = np.random.default_rng(1).random(15)
    traj = g.heat_diffusion(A, x, 300, eps=0.1, return_all=True)
    np.testing.assert_allclose(traj.mean(1), x.mean(), atol=1e-13)
    stds = traj.std(1)
    assert np.all(np.diff(stds) <= 1e-15) and stds[-1] < 1e-6
    lam = np.linalg.eigvalsh(g.laplacian(A)).max()
    bad = g.heat_diffusion(A, x, 60, eps=2.2 / lam)
    assert np.abs(bad - x.mean()).max() > 1.0  # past 2/λ_max it diverges


def test_dirichlet_energy_is_half_the_double_sum(backend):
    A = _er(15, 0.25, 0)
    x = np.random.default_rng(2).standard_normal(15)
    double = sum(A[i, j] * (x[i] - x[j]) ** 2 for i in range(15) for j in range(15))
    got = float(
        backend.to_numpy(g.dirichlet_energy(backend.asarray(A), backend.asarray(x)))
    )
    assert got == pytest.approx(double / 2, rel=1e-12)
    assert g.dirichlet_energy(sp.csr_matrix(A), x) == pytest.approx(double / 2)


def test_manifold_loss_numpy_and_torch_agree():
    torch = pytest.importorskip("torch")
    A = _er(12, 0.3, 1)
    logits = np.random.default_rng(0).standard_normal((12, 3))
    y = np.arange(12) % 3
    mask = np.arange(12) < 4
    a = g.manifold_reg_loss(logits, y, mask, A, 0.5)
    b = g.manifold_reg_loss(torch.tensor(logits), y, mask, A, 0.5)
    ce = torch.nn.functional.cross_entropy(
        torch.tensor(logits[:4]), torch.tensor(y[:4])
    )
    P = torch.softmax(torch.tensor(logits), 1).numpy()
    want = float(ce) + 0.5 * np.trace(P.T @ g.laplacian(A) @ P)
    assert a == pytest.approx(want, rel=1e-12) and float(b) == pytest.approx(
        want, rel=1e-12
    )


def test_epsilon_graph():
    X = np.random.default_rng(0).standard_normal((20, 2))
    A = g.epsilon_graph(X, 1.0)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(A, np.where(D2 < 1.0, np.exp(-D2), 0.0))
    assert np.all(np.diag(A) == 1) and np.allclose(A, A.T)
