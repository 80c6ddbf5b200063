"""Checkable claims of Chapter 12, §12.1: graphs, their matrices, diffusion and manifold
regularisation (book lines 5945-6073), and the errata of that part.

Every check computes with ``alice_lab.graphs`` and compares with networkx, NumPy/SciPy
closed forms or PyTorch.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _er(n=15, p=0.25, seed=0):
    from alice_lab.graphs import erdos_renyi

    return erdos_renyi(n, p, seed=seed)


# =====================================================================================
# 12.1.1 Graphs and features on graphs
# =====================================================================================


@claim(
    "C12-01",
    section="12.1.1",
    lines=(5959, 5965),
    statement="A set is the graph A = I (a GC layer is then a node-wise dense layer), a "  # noqa: E501
    "sequence with self-loops has a tridiagonal Toeplitz A (A x is a length-3 "
    "convolution), and the all-ones A/n averages every node.",
)
def _c12_01() -> str:
    import networkx as nx

    from alice_lab.graphs import add_self_loops, gcn_layer

    r = _rng(1)
    X, W, b = r.standard_normal((7, 3)), r.standard_normal((3, 2)), r.standard_normal(2)
    e1 = _maxerr(gcn_layer(np.eye(7), X, W, b), X @ W + b)
    A = add_self_loops(nx.to_numpy_array(nx.path_graph(7)))
    x = r.standard_normal(7)
    e2 = _maxerr(A @ x, np.convolve(x, [1, 1, 1], "same"))
    e3 = _maxerr(gcn_layer(np.ones((7, 7)) / 7, X, W), np.tile((X @ W).mean(0), (7, 1)))
    assert max(e1, e2, e3) < 1e-12, (e1, e2, e3)
    return (
        f"set = dense layer ({e1:.0e}); path = np.convolve ({e2:.0e}); mean ({e3:.0e})"
    )


@claim(
    "C12-02",
    section="12.1.1",
    lines=(5959, 5959),
    statement="Attention restricted to the edges of a graph (softmax of q_i·k_j over "
    "N(i)) is masked self-attention; on the complete graph it is plain self-attention.",
)
def _c12_02() -> str:
    import torch

    from alice_lab.graphs import dense_to_coo, segment_softmax, segment_sum

    r = _rng(2)
    n, d = 9, 4
    Q, K, V = (r.standard_normal((n, d)) for _ in range(3))
    errs = []
    for A in (_er(n, 0.4, 3) + np.eye(n), np.ones((n, n))):
        ei = dense_to_coo(A, layout="edge_index")
        s = np.sum(Q[ei[1]] * K[ei[0]], axis=1) / np.sqrt(d)
        alpha = segment_softmax(s, ei[1], n)
        H = segment_sum(alpha[:, None] * V[ei[0]], ei[1], n)
        T = torch.nn.functional.scaled_dot_product_attention(
            *(torch.tensor(M)[None] for M in (Q, K, V)), attn_mask=torch.tensor(A > 0)
        )[0]
        errs.append(_maxerr(H, T.numpy()))
    assert max(errs) < 1e-12, errs
    return f"edge-list attention = torch SDPA with mask ({errs[0]:.0e}), complete ({errs[1]:.0e})"  # noqa: E501


@claim(
    "C12-03",
    section="12.1.1",
    lines=(5965, 5965),
    statement="A graph is undirected exactly when its adjacency matrix is symmetric.",
)
def _c12_03() -> str:
    import networkx as nx

    from alice_lab.graphs import adjacency, is_undirected

    E = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 3)]
    A = adjacency(E, 4)
    B = adjacency(E, 4, undirected=False)
    want = nx.to_numpy_array(nx.Graph(E), nodelist=range(4))
    assert is_undirected(A) and not is_undirected(B) and np.array_equal(A, want)
    return "edges stored both ways: A = Aᵀ = networkx's; one way: A ≠ Aᵀ"


@claim(
    "C12-04",
    section="12.1.1",
    lines=(5965, 5967),
    statement="The (n, |E|) incidence matrix has a 1 for each end of each edge; "
    "with it BBᵀ = D + A.",
    equation="F.12.2",
)
def _c12_04() -> str:
    import networkx as nx

    from alice_lab.graphs import incidence_matrix, karate_club

    G = nx.karate_club_graph()
    E = list(G.edges())
    B = incidence_matrix(E, 34)
    want = nx.incidence_matrix(G, edgelist=E).toarray()
    A, _ = karate_club()
    err = _maxerr(B @ B.T, np.diag(A.sum(1)) + A)
    assert np.array_equal(B, want) and err == 0, err
    return f"karate: B (34, {len(E)}) = networkx's; BBᵀ = D + A exactly"


@claim(
    "C12-05",
    section="12.1.1",
    lines=(5969, 5971),
    statement="Adding self-loops sets A_ii = 1 and raises every degree by one (an "
    "existing self-loop is not counted twice).",
)
def _c12_05() -> str:
    import networkx as nx

    from alice_lab.graphs import add_self_loops, degree

    A = _er(12, 0.3, 1)
    S = add_self_loops(A)
    G = nx.from_numpy_array(A)
    deg = np.array([G.degree(i) for i in range(12)])
    assert np.all(np.diag(S) == 1) and np.array_equal(degree(S), deg + 1)
    assert np.array_equal(add_self_loops(S), S)
    return "diag = 1; degrees = networkx's + 1; idempotent"


@claim(
    "C12-06",
    section="12.1.2",
    lines=(5979, 5983),
    statement="(PX, PAPᵀ) is the same graph as (X, A): P permutes the rows of X and "
    "both the rows and the columns of A.",
)
def _c12_06() -> str:
    import networkx as nx

    from alice_lab.graphs import permute_graph

    A = _er(10, 0.3, 2)
    X = np.arange(10.0)[:, None]
    p = _rng(0).permutation(10)
    Xp, Ap = permute_graph(X, A, p)
    P = np.eye(10)[p]
    iso = nx.is_isomorphic(nx.from_numpy_array(A), nx.from_numpy_array(Ap))
    assert iso and np.array_equal(Ap, P @ A @ P.T) and np.array_equal(Xp, P @ X)
    return "isomorphic (networkx); equals P A Pᵀ, P X"


@claim(
    "C12-07",
    section="12.1.2",
    lines=(5985, 5991),
    statement="The degree d_i = Σ_j A_ij counts the neighbours of node i.",
)
def _c12_07() -> str:
    import networkx as nx

    from alice_lab.graphs import degree, karate_club

    A, _ = karate_club()
    want = [d for _, d in nx.karate_club_graph().degree()]
    assert np.array_equal(degree(A), want)
    return f"karate: degrees = networkx's (max {max(want)})"


@claim(
    "C12-08",
    section="12.1.2",
    lines=(6009, 6011),
    statement="The symmetric normalisation D^{-1/2} A D^{-1/2} has entries "
    "A_ij/√(d_i d_j), stays symmetric and has its eigenvalues in [-1, 1].",
)
def _c12_08() -> str:
    from alice_lab.graphs import normalized_adjacency

    A = _er(20, 0.2, 3)
    N = normalized_adjacency(A, self_loops=False)
    d = A.sum(1)
    err = _maxerr(N, A / np.sqrt(np.outer(d, d)))
    ev = np.linalg.eigvalsh(N)
    assert err < 1e-14 and np.allclose(N, N.T) and ev.min() >= -1 - 1e-12
    assert ev.max() <= 1 + 1e-12
    return f"entries ({err:.0e}); eigenvalues in [{ev.min():.3f}, {ev.max():.3f}]"


@claim(
    "C12-09",
    section="12.1.2",
    lines=(6011, 6011),
    statement="A, its normalisations and (off the diagonal) L are graph-shift matrices:"
    " zero wherever there is no edge.",
)
def _c12_09() -> str:
    from alice_lab.graphs import laplacian, normalized_adjacency, random_walk_matrix

    A = _er(15, 0.3, 4)
    off = ~np.eye(15, dtype=bool)
    mats = [
        normalized_adjacency(A, self_loops=False, mode=m) for m in ("sym", "row", "col")
    ]
    mats += [random_walk_matrix(A), laplacian(A), laplacian(A, normalized=True)]
    for M in mats:
        assert np.array_equal((M != 0)[off], (A != 0)[off])
    return f"{len(mats)} matrices keep A's sparsity pattern"


# =====================================================================================
# 12.1.3 Diffusion operations over graphs
# =====================================================================================


@claim(
    "C12-10",
    section="12.1.3",
    lines=(6015, 6021),
    statement="One diffusion step x' = A x is, node by node, x'_i = Σ_{j∈N(i)} A_ij x_j.",  # noqa: E501
)
def _c12_10() -> str:
    import networkx as nx

    from alice_lab.graphs import diffusion

    A = _er(15, 0.3, 5)
    x = _rng(5).standard_normal(15)
    G = nx.from_numpy_array(A)
    loop = np.array([sum(A[i, j] * x[j] for j in G.neighbors(i)) for i in range(15)])
    err = _maxerr(diffusion(A, x), loop)
    assert err < 1e-13, err
    return f"matrix product = neighbour loop over networkx's neighbours ({err:.0e})"


@claim(
    "C12-11",
    section="12.1.3",
    lines=(6027, 6027),
    statement="With the row-normalised A, a diffusion step is a weighted average of the "  # noqa: E501
    "neighbours: the result stays within their range and constants do not move.",
)
def _c12_11() -> str:
    from alice_lab.graphs import diffusion, normalized_adjacency

    A = _er(15, 0.3, 6)
    R = normalized_adjacency(A, mode="row")
    x = _rng(6).standard_normal(15)
    y = diffusion(R, x)
    S = A + np.eye(15)
    lo = np.array([x[S[i] > 0].min() for i in range(15)])
    hi = np.array([x[S[i] > 0].max() for i in range(15)])
    const = _maxerr(diffusion(R, np.full(15, 3.0)), 3.0)
    assert np.all(y >= lo - 1e-12) and np.all(y <= hi + 1e-12) and const < 1e-14
    return "every x'_i in [min, max] of its neighbourhood; constants fixed"


@claim(
    "C12-12",
    section="12.1.3",
    lines=(6029, 6035),
    statement="[Lx]_i = Σ_j A_ij (x_i − x_j) with L = D − A (E.12.1); self-loops cancel "  # noqa: E501
    "in L.",
    equation="E.12.1",
)
def _c12_12() -> str:
    import networkx as nx

    from alice_lab.graphs import add_self_loops, laplacian

    A = _er(15, 0.3, 7)
    x = _rng(7).standard_normal(15)
    loop = np.array(
        [sum(A[i, j] * (x[i] - x[j]) for j in range(15)) for i in range(15)]
    )
    e1 = _maxerr(laplacian(A) @ x, loop)
    e2 = _maxerr(laplacian(add_self_loops(A)), laplacian(A))
    e3 = _maxerr(laplacian(A), nx.laplacian_matrix(nx.from_numpy_array(A)).toarray())
    assert max(e1, e2, e3) < 1e-13
    return f"loop ({e1:.0e}); L(A + I) = L(A); = networkx's L ({e3:.0e})"


@claim(
    "C12-13",
    section="12.1.3",
    lines=(6047, 6047),
    statement="The constant vector is an eigenvector of L with eigenvalue 0, its "
    "smallest: L is positive semi-definite, with as many zero eigenvalues as the graph "
    "has connected components.",
)
def _c12_13() -> str:
    import networkx as nx

    from alice_lab.graphs import laplacian

    A = _er(20, 0.08, 8)
    L = laplacian(A)
    ev = np.linalg.eigvalsh(L)
    comps = nx.number_connected_components(nx.from_numpy_array(A))
    zeros = int(np.sum(np.abs(ev) < 1e-10))
    assert _maxerr(L @ np.ones(20), 0) < 1e-14 and ev.min() > -1e-12 and zeros == comps
    return f"L1 = 0; min eigenvalue {ev.min():.1e}; {zeros} zero eigenvalues = {comps} components"  # noqa: E501


@claim(
    "C12-14",
    section="12.1.3",
    lines=(6037, 6045),
    statement="Laplacian diffusion x ← x − εLx on a connected graph (Figure F.12.4, 15 "
    "nodes) converges to a stable state: the mean is conserved and the spread shrinks "
    "to 0 (for 0 < ε < 2/λ_max).",
    equation="F.12.4",
)
def _c12_14() -> str:
    import networkx as nx

    from alice_lab.graphs import heat_diffusion, laplacian

    A = _er(15, 0.25, 0)
    assert nx.is_connected(nx.from_numpy_array(A))
    x = _rng(0).random(15)
    traj = heat_diffusion(A, x, 200, eps=0.1, return_all=True)
    lam, U = np.linalg.eigh(laplacian(A))
    closed = U @ np.diag((1 - 0.1 * lam) ** 30) @ U.T @ x
    err = _maxerr(traj[30], closed)
    s = traj.std(1)
    assert err < 1e-12 and np.all(np.diff(s) < 1e-15) and s[-1] < 1e-4
    assert _maxerr(traj.mean(1), x.mean()) < 1e-14
    return (
        f"std {s[0]:.3f} → {s[10]:.3f} / {s[20]:.3f} / {s[30]:.3f} after 10/20/30 "
        f"steps, {s[-1]:.0e} after 200; = eigendecomposition ({err:.0e})"
    )


# =====================================================================================
# 12.1.4 Manifold regularization
# =====================================================================================


@claim(
    "C12-15",
    section="12.1.4",
    lines=(6051, 6055),
    statement="xᵀLx ≥ 0, and it is 0 exactly for signals constant on each connected "
    "component; smooth signals on a similarity graph have a lower energy than shuffled "
    "ones.",
)
def _c12_15() -> str:
    from alice_lab.graphs import dirichlet_energy, epsilon_graph

    r = _rng(9)
    P = r.uniform(0, 3, (80, 2))
    A = epsilon_graph(P, 0.5)
    smooth = np.sin(P[:, 0]) + P[:, 1]
    e_s = float(dirichlet_energy(A, smooth))
    e_r = float(dirichlet_energy(A, r.permutation(smooth)))
    B = np.zeros((6, 6))
    B[:3, :3] = B[3:, 3:] = 1
    pc = np.array([2.0, 2, 2, -1, -1, -1])
    zero = float(dirichlet_energy(B, pc))
    assert 0 <= e_s < e_r and zero == 0.0
    return f"smooth {e_s:.2f} < shuffled {e_r:.2f}; piecewise-constant 0"


@claim(
    "C12-16",
    section="12.1.4",
    lines=(6055, 6059),
    statement="The similarity graph of E.12.3 is symmetric, has A_ii = 1, entries in "
    "(0, 1] and zeros where the squared distance reaches τ.",
    equation="E.12.3",
)
def _c12_16() -> str:
    from scipy.spatial.distance import cdist

    from alice_lab.graphs import epsilon_graph

    X = _rng(10).standard_normal((30, 3))
    A = epsilon_graph(X, 2.0)
    D2 = cdist(X, X, "sqeuclidean")
    assert np.allclose(A, A.T) and np.all(np.diag(A) == 1)
    assert np.all((A[D2 < 2] > 0) & (A[D2 < 2] <= 1)) and np.all(A[D2 >= 2] == 0)
    err = _maxerr(A[D2 < 2], np.exp(-D2[D2 < 2]))
    return f"{int((A > 0).sum())} non-zeros, = exp(−cdist²) ({err:.0e})"


@claim(
    "C12-17",
    section="12.1.4",
    lines=(6071, 6073),
    statement="Manifold regularisation needs no labels for its second term: on two "
    "moons with 4 labelled points, adding λ fᵀLf over all points raises the test "
    "accuracy of a small MLP; the graph is not needed at test time.",
)
def _c12_17() -> str:
    import torch
    from sklearn.datasets import make_moons

    from alice_lab.graphs import epsilon_graph, manifold_reg_loss

    X, y = make_moons(300, noise=0.08, random_state=0)
    Xt, yt = make_moons(500, noise=0.08, random_state=1)
    lab = np.zeros(300, bool)
    lab[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 0)[1]]] = True
    lab[[np.flatnonzero(y == 1)[0], np.flatnonzero(y == 1)[1]]] = True
    A = epsilon_graph(X / 0.15, 2.0)
    accs = []
    for lam in (0.0, 1.0):
        torch.manual_seed(0)
        f = torch.nn.Sequential(
            torch.nn.Linear(2, 32), torch.nn.Tanh(), torch.nn.Linear(32, 2)
        ).double()
        opt = torch.optim.Adam(f.parameters(), lr=0.02)
        for _ in range(300):
            opt.zero_grad()
            loss = manifold_reg_loss(f(torch.tensor(X)), y, lab, A, lam)
            loss.backward()
            opt.step()
        with torch.no_grad():
            accs.append(float((f(torch.tensor(Xt)).argmax(1).numpy() == yt).mean()))
    assert accs[1] > accs[0] + 0.05, accs
    return f"test accuracy λ=0: {accs[0]:.3f}, λ=1: {accs[1]:.3f} (4 labels)"


# =====================================================================================
# Errata of §12.1
# =====================================================================================


@claim(
    "E12-01",
    section="12.1.1",
    lines=(5955, 5955),
    statement="The edge set is E = {(i, j) | i, j ∈ V}: a subset of V × V.",
    erratum="i, j ∈ N (the neighbourhood symbol) instead of V",
)
def _e12_01() -> str:
    import networkx as nx

    from alice_lab.graphs import dense_to_coo, karate_club

    A, _ = karate_club()
    E = dense_to_coo(A)
    assert E.min() >= 0 and E.max() < 34 and len(E) == 2 * nx.karate_club_graph().size()
    return "karate: every edge joins two of the 34 nodes"


@claim(
    "E12-02",
    section="12.1.1",
    lines=(5965, 5965),
    statement="Each column of the incidence matrix sums to 2: 1ᵀB = 2·1ᵀ (for a graph "
    "without self-loops).",
    erratum="B1ᵀ = 2",
)
def _e12_02() -> str:
    import networkx as nx

    from alice_lab.graphs import incidence_matrix

    G = nx.karate_club_graph()
    B = incidence_matrix(list(G.edges()), 34)
    rows = B.sum(1)
    assert np.all(B.sum(0) == 2) and not np.all(rows == 2)
    return f"column sums all 2; row sums are the degrees ({rows.min():.0f}..{rows.max():.0f})"  # noqa: E501


@claim(
    "E12-03",
    section="12.1.2",
    lines=(5995, 6007),
    statement="The row-normalised matrix is A′ = D⁻¹A, A′_ij = A_ij/d_i, whose rows sum "  # noqa: E501
    "to one: Σ_j A′_ij = 1 (AD⁻¹ has unit column sums).",
    erratum="D⁻¹A_ij and Σ_i A′_ij = 1",
)
def _e12_03() -> str:
    from alice_lab.graphs import normalized_adjacency

    A = _er(12, 0.3, 11)
    R = normalized_adjacency(A, mode="row", self_loops=False)
    C = normalized_adjacency(A, mode="col", self_loops=False)
    assert _maxerr(R.sum(1), 1) < 1e-14 and _maxerr(C.sum(0), 1) < 1e-14
    assert _maxerr(R.sum(0), 1) > 0.1
    err = _maxerr(R, A / A.sum(1, keepdims=True))
    return f"rows of D⁻¹A sum to 1, its columns do not; = A_ij/d_i ({err:.0e})"


@claim(
    "E12-04",
    section="12.1.4",
    lines=(6053, 6065),
    statement="xᵀLx = ½ Σ_{(i,j)∈E} A_ij (x_i − x_j)² = ½ Σ_{i,j} A_ij (x_i − x_j)²: "
    "the book's edge set of an undirected graph holds both (i, j) and (j, i) (line "
    "5965), so the sum over E.12.2's edges, like E.12.4's sum over all pairs, counts "
    "every edge twice; each needs the ½ (or a sum over unordered edges {i, j}).",
    equation="E.12.2, E.12.4",
    erratum="xᵀLx = Σ_{(i,j)∈E} A_ij (x_i − x_j)² (E.12.2) and fᵀLf = Σ_{i,j} A_ij "
    "(f(x_i) − f(x_j))² (E.12.4), both without ½",
)
def _e12_04() -> str:
    import networkx as nx
    from scipy.sparse.csgraph import laplacian as scipy_laplacian

    from alice_lab.graphs import laplacian

    A = _er(15, 0.25, 0) + np.eye(15)  # undirected, with the book's self-loops
    x = _rng(3).standard_normal(15)
    L = scipy_laplacian(A)  # D - A, as the book's L (self-loops cancel)
    assert _maxerr(L, laplacian(A)) < 1e-12
    quad = x @ L @ x
    E = list(zip(*np.nonzero(A), strict=True))  # the book's E: (i, j) and (j, i)
    over_E = sum(A[i, j] * (x[i] - x[j]) ** 2 for i, j in E)
    pairs = sum(A[i, j] * (x[i] - x[j]) ** 2 for i in range(15) for j in range(15))
    once = sum((x[i] - x[j]) ** 2 for i, j in nx.from_numpy_array(A).edges())
    assert abs(over_E - 2 * quad) < 1e-10 and abs(pairs - 2 * quad) < 1e-10
    assert abs(once - quad) < 1e-10 and quad > 1
    return (
        f"xᵀLx = {quad:.2f}; sum over E = {over_E:.2f}, over all pairs = {pairs:.2f} "
        f"(2×); over unordered edges = {once:.2f}"
    )


@claim(
    "E12-05",
    section="12.1.4",
    lines=(6069, 6073),
    statement=(
        "The objective is Σ_i L(y_i, f(x_i)) + λ fᵀLf: each loss term uses its "
        "own input x_i (in the semi-supervised use, the loss runs over the "
        "labelled points and the regulariser over all of them)."
    ),
    erratum="L(y_i, f(x)) summed over i = 1..n",
)
def _e12_05() -> str:
    import torch

    from alice_lab.graphs import manifold_reg_loss

    A = _er(10, 0.4, 4)
    logits = _rng(4).standard_normal((10, 3))
    y = np.arange(10) % 3
    lab = np.arange(10) < 3
    got = manifold_reg_loss(logits, y, lab, A, 0.0)
    want = float(torch.nn.functional.cross_entropy(torch.tensor(logits[:3]),
                                                   torch.tensor(y[:3])))  # fmt: skip
    assert abs(got - want) < 1e-12
    # the printed L(y_i, f(x)) scores every label against one output
    one_output = float(
        torch.nn.functional.cross_entropy(
            torch.tensor(np.repeat(logits[:1], 3, axis=0)), torch.tensor(y[:3])
        )
    )
    assert abs(got - one_output) > 0.1, (got, one_output)
    return (
        f"λ = 0 loss = torch cross-entropy of each labelled node's own output "
        f"({got:.4f}); one output f(x) for all: {one_output:.4f}"
    )
