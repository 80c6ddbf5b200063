"""Checkable claims of Chapter 12, §12.2-§12.3 and "From theory to practice": graph
convolutions, heads, batching, attention, message passing, graph transformers and the
patch graph of images (book lines 6075-6329), and the errata of that part.

Checks compare ``alice_lab.graphs`` with PyTorch autograd, networkx, SciPy and NumPy
closed forms.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng


def _er(n=12, p=0.3, seed=0):
    from alice_lab.graphs import erdos_renyi

    return erdos_renyi(n, p, seed=seed)


def _normals(r, *shapes):
    """One seeded standard-normal draw per shape, in order."""
    return tuple(r.standard_normal(s) for s in shapes)


def _torch_gcn(A, W_list):
    """A k-layer GCN (tanh) as a function of X, for torch autograd Jacobians."""
    import torch

    from alice_lab.graphs import gcn_layer, normalized_adjacency

    At = torch.tensor(normalized_adjacency(A))

    def f(X):
        for W in W_list:
            X = gcn_layer(At, X, torch.tensor(W), activation=torch.tanh)
        return X

    return f


def _jac_pattern(A, k, seed=0):
    import torch

    n = len(A)
    Ws = [_rng(seed + i).standard_normal((2, 2)) for i in range(k)]
    X = torch.tensor(_rng(seed).standard_normal((n, 2)))
    J = torch.autograd.functional.jacobian(_torch_gcn(A, Ws), X).numpy()
    return np.abs(J).sum(axis=(1, 3)) > 1e-12  # (n, n): does H_i depend on X_j?


# =====================================================================================
# 12.2 Graph convolutional layers
# =====================================================================================


@claim(
    "C12-18",
    section="12.2.2",
    lines=(6085, 6133),
    statement="GC (with or without bias), GAT, GATv2, GraphConv and MPNN layers (sum, "
    "mean and max aggregation) are permutation equivariant: f(PX, PAPᵀ) = P f(X, A).",
)
def _c12_18() -> str:
    from alice_lab import graphs as g

    A = _er(10, 0.35, 1)
    r = _rng(1)
    X, W, b, V1, a1, V2, a2, M = _normals(
        r, (10, 4), (4, 3), 3, (4, 5), 10, (8, 5), 5, (8, 3)
    )

    def edges(A):  # (2, m): sources j in row 0, targets i in row 1, NumPy's order
        i, j = np.nonzero(A)
        return np.stack([j, i])

    def mpnn(A, X, aggr):
        msg = lambda xi, xj, e: np.concatenate([xj, xj - xi], 1) @ M  # noqa: E731
        return g.message_passing(X, edges(A), msg, aggr=aggr)

    layers = {
        "GC + bias": lambda A, X: g.gcn_layer(
            g.normalized_adjacency(A), X, W, b, activation="relu"
        ),
        "GC": lambda A, X: g.gcn_layer(g.normalized_adjacency(A), X, W),
        "GAT": lambda A, X: g.gat_layer(A, X, W, V1, a1),
        "GATv2": lambda A, X: g.gat_layer(A, X, W, V2, a2, version=2),
        "GraphConv": lambda A, X: g.graphconv_layer(A, X, W, W),
        **{
            f"MPNN {a}": (lambda A, X, a=a: mpnn(A, X, a))
            for a in ("sum", "mean", "max")
        },  # noqa: E501
    }
    # the GC layer against its closed form ReLU(D̃^-1/2 (A + I) D̃^-1/2 (X W + b))
    At = A + np.eye(10)
    d = At.sum(1) ** -0.5
    ref = np.maximum((d[:, None] * At * d[None, :]) @ (X @ W + b), 0)
    err_gc = _maxerr(layers["GC + bias"](A, X), ref)
    assert err_gc < 1e-12, err_gc
    # the sum-MPNN against a loop over each node's neighbours
    ref = np.stack(
        [
            sum(
                (np.concatenate([X[j], X[j] - X[i]]) @ M for j in np.flatnonzero(A[i])),
                np.zeros(3),
            )
            for i in range(10)
        ]
    )
    err_mp = _maxerr(layers["MPNN sum"](A, X), ref)
    assert err_mp < 1e-12, err_mp
    perm = r.permutation(10)
    P = np.eye(10)[perm]
    errs = {k: _maxerr(f(P @ A @ P.T, P @ X), P @ f(A, X)) for k, f in layers.items()}
    assert max(errs.values()) < 1e-12, errs
    return (
        f"{len(layers)} layers (GC with/without bias, GAT, GATv2, GraphConv, MPNN "
        f"sum/mean/max), explicit P: max error {max(errs.values()):.0e}; GC = closed "
        f"form ({err_gc:.0e}), MPNN = neighbour loop ({err_mp:.0e})"
    )


@claim(
    "C12-19",
    section="12.2.1",
    lines=(6093, 6099),
    statement="A single GC layer is local: ∂H_i/∂X_j is non-zero only for j in N(i) "
    "(self-loops included).",
)
def _c12_19() -> str:
    A = _er(12, 0.25, 2)
    pat = _jac_pattern(A, 1)
    want = (A + np.eye(12)) > 0
    assert np.array_equal(pat, want)
    return f"torch Jacobian pattern = A + I pattern ({int(want.sum())} non-zeros)"


@claim(
    "C12-20",
    section="12.2.1",
    lines=(6099, 6099),
    statement="Neighbourhoods have different sizes, so no fixed-size kernel can cover "
    "them (unlike pixels in an image).",
)
def _c12_20() -> str:
    import networkx as nx

    from alice_lab.graphs import degree, karate_club

    A, _ = karate_club()
    d = degree(A)
    assert len(set(d.tolist())) > 5 and sorted(set(d.tolist())) == sorted(
        {v for _, v in nx.karate_club_graph().degree()}
    )
    return f"karate: {len(set(d.tolist()))} distinct degrees from {d.min():.0f} to {d.max():.0f}"  # noqa: E501


@claim(
    "C12-21",
    section="12.2.3",
    lines=(6103, 6147),
    statement="The receptive field of k GC layers is the k-hop neighbourhood N^k(i): the "  # noqa: E501
    "non-zero pattern of (A + I)^k.",
)
def _c12_21() -> str:
    A = _er(14, 0.15, 3)
    out = []
    for k in (2, 3):
        pat = _jac_pattern(A, k, seed=k)
        want = np.linalg.matrix_power(A + np.eye(14), k) > 0
        assert np.array_equal(pat, want), k
        out.append(int(want.sum()))
    return f"torch Jacobian pattern = (A+I)^k pattern for k = 2, 3 ({out} non-zeros)"


@claim(
    "C12-22",
    section="12.2.3",
    lines=(6147, 6147),
    statement="The diameter is the smallest depth whose receptive field is the whole "
    "graph: 6 for the 4×4 grid, 5 for the karate club.",
)
def _c12_22() -> str:
    import networkx as nx

    from alice_lab.graphs import karate_club, patch_grid_adjacency

    out = []
    for A in (patch_grid_adjacency(4), karate_club()[0]):
        D = nx.diameter(nx.from_numpy_array(A))
        S = A + np.eye(len(A))
        full = [bool(np.all(np.linalg.matrix_power(S, k) > 0)) for k in (D - 1, D)]
        assert full == [False, True], (D, full)
        out.append(D)
    return (
        f"grid: diameter {out[0]}; karate: {out[1]} (networkx); (A+I)^(D-1) has zeros"
    )


@claim(
    "C12-23",
    section="12.2.2",
    lines=(6119, 6121),
    statement="A GC layer has cc′ + c′ parameters, whatever the number of nodes.",
)
def _c12_23() -> str:
    from alice_lab.graphs import GCN

    counts = [
        sum(p.numel() for p in GCN(_er(n, 0.2, n), [5, 3]).parameters())
        for n in (10, 50)
    ]
    assert counts == [5 * 3 + 3] * 2, counts
    return f"torch GCN on 10 and 50 nodes: {counts[0]} parameters both"


@claim(
    "C12-24",
    section="12.2.3",
    lines=(6137, 6141),
    statement="Stacking GC layers (E.12.5) loses locality: after two layers a node "
    "depends on a 2-hop node that is not its neighbour.",
    equation="E.12.5",
)
def _c12_24() -> str:
    import networkx as nx

    A = nx.to_numpy_array(nx.path_graph(5))
    p1, p2 = _jac_pattern(A, 1), _jac_pattern(A, 2)
    assert not p1[0, 2] and p2[0, 2] and not p2[0, 3]
    return "path 0-1-2-3-4: H_0 ignores X_2 after 1 layer, depends on it after 2"


@claim(
    "C12-25",
    section="12.2.3",
    lines=(6149, 6149),
    statement="Normalisation, residual connections and dropout (in evaluation mode) "
    "keep a GC backbone permutation equivariant.",
)
def _c12_25() -> str:
    import torch

    from alice_lab.graphs import gcn_layer, normalized_adjacency

    torch.manual_seed(0)
    norm, drop = torch.nn.LayerNorm(4).double(), torch.nn.Dropout(0.5).eval()
    W = torch.randn(4, 4, dtype=torch.float64)

    def f(A, X):
        At = torch.tensor(normalized_adjacency(A))
        return X + drop(torch.relu(gcn_layer(At, norm(X), W)))

    A, X = _er(10, 0.3, 5), torch.randn(10, 4, dtype=torch.float64)
    p = _rng(5).permutation(10)
    err = _maxerr(f(A[p][:, p], X[p]).detach(), f(A, X).detach()[p])
    assert err < 1e-12, err
    return f"LayerNorm + residual + eval dropout: equivariant ({err:.0e})"


@claim(
    "C12-26",
    section="12.2.3",
    lines=(6159, 6169),
    statement="In semi-supervised node classification the loss sees only labelled nodes, "  # noqa: E501
    "yet unlabelled nodes' features reach it through the graph.",
)
def _c12_26() -> str:
    import torch

    from alice_lab.graphs import gcn_layer, normalized_adjacency

    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = A[2, 3] = A[3, 2] = 1
    At = torch.tensor(normalized_adjacency(A))
    X = torch.tensor(_rng(6).standard_normal((4, 3)), requires_grad=True)
    W = torch.tensor(_rng(7).standard_normal((3, 2)))
    logits = gcn_layer(At, X, W)
    loss = torch.nn.functional.cross_entropy(logits[[0]], torch.tensor([1]))
    (gx,) = torch.autograd.grad(loss, X)
    norms = gx.norm(dim=1).numpy()
    assert norms[1] > 0 and norms[2] == 0 and norms[3] == 0
    return f"only node 0 labelled: ‖∂loss/∂X_1‖ = {norms[1]:.3f} (its unlabelled neighbour)"  # noqa: E501


@claim(
    "C12-27",
    section="12.2.3",
    lines=(6171, 6189),
    statement="Heads: the dot-product edge score σ(H_iᵀH_j) is in (0, 1) and symmetric; "  # noqa: E501
    "the mean readout is permutation invariant.",
)
def _c12_27() -> str:
    from scipy.special import expit

    from alice_lab.functional import sigmoid
    from alice_lab.graphs import gcn_layer, normalized_adjacency

    A = _er(10, 0.3, 8)
    r = _rng(8)
    X, W = _normals(r, (10, 3), (3, 4))
    H = gcn_layer(normalized_adjacency(A), X, W)
    # the embeddings against the closed form D̃^-1/2 (A + I) D̃^-1/2 X W
    At = A + np.eye(10)
    d = At.sum(1) ** -0.5
    err_h = _maxerr(H, (d[:, None] * At * d[None, :]) @ X @ W)
    # the edge head σ(H_i ᵀH_j) with the library's sigmoid, against SciPy's
    S = _np(sigmoid(H @ H.T))
    err_s = _maxerr(S, expit(H @ H.T))
    assert err_h < 1e-12 and err_s < 1e-15, (err_h, err_s)
    assert np.all((S > 0) & (S < 1)) and _maxerr(S, S.T) == 0
    # the mean readout of the permuted graph, through the whole layer
    p = r.permutation(10)
    Hp = gcn_layer(normalized_adjacency(A[p][:, p]), X[p], W)
    err = _maxerr(Hp.mean(0), H.mean(0))
    assert err < 1e-14, err
    return (
        f"GC embeddings = closed form ({err_h:.0e}); edge scores = SciPy's expit, in "
        f"({S.min():.3f}, {S.max():.3f}), symmetric; readout invariant ({err:.0e})"
    )


# =====================================================================================
# 12.2.4 Implementation: sparse formats and mini-batches
# =====================================================================================


@claim(
    "C12-28",
    section="12.2.4",
    lines=(6193, 6203),
    statement="The COO list of the 3-node example is [[0, 2], [2, 0]]; PyG's edge_index "  # noqa: E501
    "is its transpose, and a sparse format stores far less than n² entries.",
)
def _c12_28() -> str:
    import scipy.sparse as sp

    from alice_lab.graphs import dense_to_coo, erdos_renyi

    A = np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    assert dense_to_coo(A).tolist() == [[0, 2], [2, 0]]
    B = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    C = sp.coo_matrix(B)
    assert dense_to_coo(B, layout="edge_index").tolist() == [
        C.row.tolist(),
        C.col.tolist(),
    ]
    G = erdos_renyi(1000, 0.005, seed=0)
    S = sp.csr_matrix(G)
    sparse_bytes = S.data.nbytes + S.indices.nbytes + S.indptr.nbytes
    assert sparse_bytes < G.nbytes / 50
    return f"1000 nodes, {S.nnz} entries: CSR {sparse_bytes / 1e3:.0f} kB vs dense {G.nbytes / 1e6:.0f} MB"  # noqa: E501


@claim(
    "C12-29",
    section="12.2.4",
    lines=(6205, 6219),
    statement="A mini-batch of graphs is one graph with a block-diagonal A (E.12.8-9): "
    "a GCN on it equals the per-graph outputs stacked, nodes of different graphs never "
    "interact, and the merged A is sparser than any of its blocks.",
    equation="E.12.8, E.12.9",
)
def _c12_29() -> str:
    import scipy.sparse as sp

    from alice_lab.graphs import (
        block_diagonal_batch,
        density,
        gcn_layer,
        normalized_adjacency,
    )

    r = _rng(9)
    graphs = [(r.standard_normal((n, 3)), _er(n, 0.5, n)) for n in (4, 7, 5)]
    X, A, batch = block_diagonal_batch(graphs)
    ref = sp.block_diag([Ai for _, Ai in graphs]).toarray()
    W = r.standard_normal((3, 2))
    got = gcn_layer(normalized_adjacency(A), X, W)
    want = np.vstack([gcn_layer(normalized_adjacency(Ai), Xi, W) for Xi, Ai in graphs])
    err = _maxerr(got, want)
    pat = _jac_pattern(ref, 3)
    same = batch[:, None] == batch[None, :]
    dens = [density(Ai) for _, Ai in graphs]
    assert np.array_equal(A.toarray(), ref) and err < 1e-12 and not pat[~same].any()
    assert density(A) < min(dens)
    return (
        f"= stacked per-graph GCN ({err:.0e}); no cross-graph Jacobian; density "
        f"{density(A):.3f} < {min(dens):.3f}"
    )


@claim(
    "C12-30",
    section="12.2.4",
    lines=(6221, 6229),
    statement="scatter_sum of Figure F.12.8 (batch [0,0,0,0,1,1,1]) sums the rows of "
    "each graph: the same as np.add.at, torch index_add and jax.ops.segment_sum.",
    equation="E.12.10",
)
def _c12_30() -> str:
    import jax
    import torch

    from alice_lab.graphs import scatter_mean, scatter_sum

    b = np.array([0, 0, 0, 0, 1, 1, 1])
    ones = np.ones((7, 3))
    assert scatter_sum(ones, b, 2).tolist() == [[4.0] * 3, [3.0] * 3]
    assert np.array_equal(scatter_mean(ones, b, 2), np.ones((2, 3)))
    H = _rng(10).standard_normal((7, 3))
    ref = np.zeros((2, 3))
    np.add.at(ref, b, H)
    t = torch.zeros(2, 3, dtype=torch.float64).index_add_(
        0, torch.tensor(b), torch.tensor(H)
    )
    j = np.asarray(jax.ops.segment_sum(H.astype(np.float32), b, 2))
    e = [_maxerr(scatter_sum(H, b, 2), ref), _maxerr(scatter_sum(torch.tensor(H),
         torch.tensor(b), 2), t), _maxerr(ref, j)]  # fmt: skip
    assert e[0] < 1e-14 and e[1] < 1e-14 and e[2] < 1e-5, e
    return "ones → [[4], [3]]; = np.add.at, torch index_add, jax segment_sum"


# =====================================================================================
# 12.3 Beyond graph convolutional layers
# =====================================================================================


@claim(
    "C12-31",
    section="12.3.1",
    lines=(6237, 6237),
    statement="GC works best on homophilous graphs: on a stochastic block model a GCN "
    "beats an MLP on the node features when most edges join nodes of the same class, "
    "and loses to it when edges ignore the classes (homophily ≈ 0.5).",
)
def _c12_31() -> str:
    import torch

    from alice_lab.graphs import (
        GCN,
        edge_homophily,
        masked_accuracy,
        stochastic_block_model,
        train_node_classifier as train,
    )

    out = []
    for p_in, p_out in ((0.15, 0.01), (0.08, 0.08)):
        A, X, y = stochastic_block_model((60, 60), p_in, p_out, features=8,
                                         signal=1.0, seed=0)  # fmt: skip
        mask = _rng(0).random(120) < 0.3
        torch.manual_seed(0)
        g = train(GCN(A, [8, 16, 2]), X, y, mask, epochs=60)
        torch.manual_seed(0)
        m = train(GCN(np.eye(120), [8, 16, 2], normalize=False), X, y, mask, epochs=60)
        out.append((edge_homophily(A, y), masked_accuracy(g["logits"], y, ~mask),
                    masked_accuracy(m["logits"], y, ~mask)))  # fmt: skip
    (h1, g1, m1), (h2, g2, m2) = out
    assert g1 > m1 + 0.05 and g2 < m2, out
    return (
        f"homophily {h1:.2f}: GCN {g1:.2f} vs MLP {m1:.2f}; homophily {h2:.2f}: GCN "
        f"{g2:.2f} vs MLP {m2:.2f}"
    )


@claim(
    "C12-32",
    section="12.3.1",
    lines=(6239, 6239),
    statement="Learning every entry of A directly would need one parameter per edge: "
    "up to n² of them.",
)
def _c12_32() -> str:
    import networkx as nx
    import torch

    from alice_lab.graphs import karate_club

    A, _ = karate_club()
    free = torch.nn.Parameter(torch.tensor(A[A != 0]))
    m = nx.karate_club_graph().number_of_edges()
    assert free.numel() == 2 * m and 34**2 > free.numel()
    return f"karate: {free.numel()} edge weights (n² = {34**2}); GAT uses V and a only"


@claim(
    "C12-33",
    section="12.3.1",
    lines=(6241, 6247),
    statement="GAT's attention is a softmax over each node's neighbourhood: rows sum to "  # noqa: E501
    "1 and are 0 outside N(i).",
)
def _c12_33() -> str:
    from scipy.special import softmax

    from alice_lab.graphs import add_self_loops, gat_attention, gat_scores

    A = add_self_loops(_er(10, 0.3, 11))
    X, V, a = _normals(_rng(11), (10, 3), (3, 4), 8)
    alpha = gat_attention(A, X, V, a)
    S = gat_scores(X, V, a)
    err = max(_maxerr(alpha[i, A[i] > 0], softmax(S[i, A[i] > 0])) for i in range(10))
    assert err < 1e-14 and np.all(alpha[A == 0] == 0)
    return f"rows = scipy softmax over neighbours ({err:.0e}), 0 elsewhere"


@claim(
    "C12-34",
    section="12.3.1",
    lines=(6247, 6251),
    statement="GAT is static: the ranking of the neighbours is the same for every "
    "central node (LeakyReLU is monotone and the score splits into a term in x_i and one "  # noqa: E501
    "in x_j); GATv2's ranking depends on the central node.",
)
def _c12_34() -> str:
    from alice_lab.graphs import gat_scores

    same1 = same2 = 0
    for seed in range(20):
        r = _rng(seed)
        X = r.standard_normal((8, 4))
        S1 = gat_scores(X, r.standard_normal((4, 16)), r.standard_normal(32))
        S2 = gat_scores(X, r.standard_normal((8, 16)), r.standard_normal(16), version=2)
        same1 += bool(np.all(np.argsort(-S1, 1) == np.argsort(-S1[0])))
        same2 += bool(np.all(np.argsort(-S2, 1) == np.argsort(-S2[0])))
    assert same1 == 20 and same2 == 0
    return f"complete graph, 8 nodes, 20 seeds: GAT one ranking in {same1}/20, GATv2 in {same2}/20"  # noqa: E501


@claim(
    "C12-35",
    section="12.3.2",
    lines=(6261, 6269),
    statement="Message passing (E.12.11) with vector messages and a sum, mean or max "
    "aggregation does not depend on the order of the edges.",
    equation="E.12.11",
)
def _c12_35() -> str:
    import torch

    from alice_lab.graphs import dense_to_coo, message_passing

    A = _er(12, 0.3, 12)
    X = _rng(12).standard_normal((12, 3))
    ei = dense_to_coo(A, layout="edge_index")
    sh = ei[:, _rng(0).permutation(ei.shape[1])]
    msg = lambda xi, xj, e: np.concatenate([xj - xi, xi * xj], 1)  # noqa: E731
    errs = [
        _maxerr(
            message_passing(X, ei, msg, aggr=a), message_passing(X, sh, msg, aggr=a)
        )
        for a in ("sum", "mean", "max")
    ]
    # the sum against torch's scatter_add on the same messages
    M = torch.tensor(msg(X[ei[1]], X[ei[0]], None))
    ref = torch.zeros(12, 6, dtype=torch.float64).scatter_add_(
        0, torch.tensor(ei[1])[:, None].expand(-1, 6), M)  # fmt: skip
    e2 = _maxerr(message_passing(X, ei, msg), ref)
    assert max(errs) < 1e-12 and e2 < 1e-12
    return f"(m, 6) messages; shuffled edges: sum/mean/max unchanged; = torch scatter_add ({e2:.0e})"  # noqa: E501


@claim(
    "C12-36",
    section="12.3.2",
    lines=(6271, 6277),
    statement="An update ψ that sees x_i separates two nodes with the same neighbours "
    "but different features; a plain sum of neighbour messages cannot.",
)
def _c12_36() -> str:
    from alice_lab.graphs import gcn_layer, graphconv_layer

    A = np.zeros((4, 4))
    for u in (0, 1):
        for v in (2, 3):
            A[u, v] = A[v, u] = 1
    X, W, V = _normals(_rng(13), (4, 3), (3, 2), (3, 2))
    H1, H2 = gcn_layer(A, X, W), graphconv_layer(A, X, W, V)
    assert _maxerr(H1[0], H1[1]) < 1e-14 and _maxerr(H2[0], H2[1]) > 1e-3
    return f"nodes 0, 1 (same neighbours): GC identical, GraphConv differs by {_maxerr(H2[0], H2[1]):.2f}"  # noqa: E501


@claim(
    "C12-37",
    section="12.3.2",
    lines=(6273, 6273),
    statement="GC is message passing with M = A_ij Wᵀx_j, a sum, and ψ = φ.",
)
def _c12_37() -> str:
    from alice_lab.graphs import dense_to_coo, gcn_message_passing, normalized_adjacency

    A = normalized_adjacency(_er(12, 0.3, 14))
    X, W = _normals(_rng(14), (12, 4), (4, 2))
    ei = dense_to_coo(A, layout="edge_index")
    err = _maxerr(gcn_message_passing(X, ei, A[ei[1], ei[0]], W), A @ X @ W)
    assert err < 1e-13, err
    return f"edge-list messages = A X W ({err:.0e})"


@claim(
    "C12-38",
    section="12.3.3",
    lines=(6297, 6299),
    statement="A transformer on the node features alone is permutation equivariant but "
    "blind to the edges: two different graphs with the same features give the same "
    "output; the random-walk encoding tells them apart.",
)
def _c12_38() -> str:
    import networkx as nx

    from alice_lab.graphs import (
        graph_transformer,
        init_graph_transformer,
        random_walk_pe,
    )

    X = _rng(15).standard_normal((6, 4))
    A1, A2 = (nx.to_numpy_array(G) for G in (nx.path_graph(6), nx.star_graph(5)))
    p = init_graph_transformer(4, k=3)
    # equivariance, the property that makes it a graph layer: f(PX, PAPᵀ) = P f(X, A)
    P = np.eye(6)[_rng(38).permutation(6)]
    eq = max(
        _maxerr(
            graph_transformer(P @ X, P @ A @ P.T, p, pe=pe),
            P @ graph_transformer(X, A, p, pe=pe),
        )
        for A in (A1, A2)
        for pe in (None, "rw")
    )
    assert eq < 1e-12, eq
    # the random-walk encoding against diag((D⁻¹A)ᵗ), t = 1..3, from networkx's graphs
    for A in (A1, A2):
        R = A / A.sum(1, keepdims=True)
        ref = np.stack([np.diag(np.linalg.matrix_power(R, t)) for t in (1, 2, 3)], 1)
        assert _maxerr(random_walk_pe(A, 3), ref) < 1e-12
    same = _maxerr(
        graph_transformer(X, A1, p, pe=None), graph_transformer(X, A2, p, pe=None)
    )
    diff = _maxerr(graph_transformer(X, A1, p), graph_transformer(X, A2, p))
    assert same == 0 and diff > 1e-3, (same, diff)
    return (
        f"equivariant with and without PE ({eq:.0e}); path vs star: no PE identical, "
        f"with RW-PE (= diag of (D⁻¹A)ᵗ) they differ by {diff:.2f}"
    )


@claim(
    "C12-39",
    section="12.3.3",
    lines=(6311, 6317),
    statement="The random-walk encoding diag(R^t), t = 1..k, is permutation equivariant, "  # noqa: E501
    "and not unique: every node of a cycle gets the same encoding.",
)
def _c12_39() -> str:
    import networkx as nx

    from alice_lab.graphs import random_walk_pe

    A = _er(9, 0.4, 16)
    p = _rng(16).permutation(9)
    err = _maxerr(random_walk_pe(A[p][:, p], 5), random_walk_pe(A, 5)[p])
    C = random_walk_pe(nx.to_numpy_array(nx.cycle_graph(7)), 5)
    assert err < 1e-14 and _maxerr(C, C[0]) == 0
    return f"permuted graph → permuted rows ({err:.0e}); cycle: all rows {np.round(C[0], 3).tolist()}"  # noqa: E501


@claim(
    "C12-40",
    section="12.3.3",
    lines=(6307, 6311),
    statement="diag((AD⁻¹)^k) = diag((D⁻¹A)^k) (the two are similar through D), so both "  # noqa: E501
    "random-walk conventions give the same encoding.",
)
def _c12_40() -> str:
    A = _er(10, 0.4, 17)
    d = A.sum(1)
    R1, R2 = A / d[None, :], A / d[:, None]
    err = max(_maxerr(np.diag(np.linalg.matrix_power(R1, k)),
                      np.diag(np.linalg.matrix_power(R2, k))) for k in range(1, 6))  # fmt: skip  # noqa: E501
    assert err < 1e-14, err
    return f"k = 1..5 ({err:.0e})"


@claim(
    "C12-41",
    section="12.3",
    lines=(6325, 6329),
    statement="Image patches that share a border form a 4-connected grid (E.12.12): an "
    "r×r grid has 2r(r−1) edges; 4×4 patches give 24 edges and diameter 6, so a GCN "
    "needs 6 layers for every patch to see the whole image.",
    equation="E.12.12",
)
def _c12_41() -> str:
    import networkx as nx

    from alice_lab.graphs import patch_grid_adjacency

    for r in (2, 3, 4, 5):
        A = patch_grid_adjacency(r)
        G = nx.grid_2d_graph(r, r)
        want = nx.to_numpy_array(
            G, nodelist=[(i, j) for i in range(r) for j in range(r)]
        )
        assert np.array_equal(A, want) and A.sum() / 2 == 2 * r * (r - 1)
    return f"= networkx grid_2d_graph for r = 2..5; r = 4: 24 edges, diameter {nx.diameter(nx.from_numpy_array(patch_grid_adjacency(4)))}"  # noqa: E501


@claim(
    "C12-42",
    section="12.1.2",
    lines=(5997, 6005),
    statement="Erdős–Rényi degrees are binomial (concentrated); Barabási–Albert graphs "
    "(3 edges per new node) have hubs with many times the typical degree.",
    equation="F.12.3",
)
def _c12_42() -> str:
    import networkx as nx

    from alice_lab.graphs import barabasi_albert, erdos_renyi

    n = 300
    B = barabasi_albert(n, 3, seed=0)
    E = erdos_renyi(n, B.sum() / (n * (n - 1)), seed=0)
    dB, dE = B.sum(1), E.sum(1)
    assert B.sum() / 2 == nx.barabasi_albert_graph(n, 3, seed=0).number_of_edges()
    p = E.sum() / (n * (n - 1))
    assert abs(dE.var() / ((n - 1) * p * (1 - p)) - 1) < 0.3
    assert dB.max() > 2 * dE.max()
    return f"n = {n}, mean degree {dB.mean():.1f}: max degree BA {dB.max():.0f} vs ER {dE.max():.0f}"  # noqa: E501


# =====================================================================================
# Errata of §12.2-§12.3
# =====================================================================================


@claim(
    "E12-06",
    section="12.2.1",
    lines=(6089, 6145),
    statement="A subgraph's node set and a receptive field are subsets of V: T ⊆ V and "
    "V(i) ⊆ V.",
    erratum="T ∈ V and V(i) ∈ V",
)
def _e12_06() -> str:
    import networkx as nx

    from alice_lab.graphs import karate_club

    A, _ = karate_club()
    G = nx.from_numpy_array(A)
    field = set(nx.single_source_shortest_path_length(G, 0, cutoff=2))
    assert field <= set(G.nodes) and len(field) > 1
    assert frozenset(field) not in set(G.nodes)  # the printed T ∈ V: not an element
    return (
        f"karate: the 2-hop field of node 0 is a subset of {len(field)} of the 34 "
        "nodes, not one of them"
    )


@claim(
    "E12-07",
    section="12.2.2",
    lines=(6125, 6125),
    statement="In a GC layer W is trained and A is fixed: A is a buffer of the module, "
    "not a parameter, and gets no gradient.",
    erratum="'the former is untrainable' (W), where the latter (A) is meant",
)
def _e12_07() -> str:
    import torch

    from alice_lab.graphs import GCN, karate_club

    A, _ = karate_club()
    m = GCN(A, [34, 4, 2])
    m(torch.eye(34)).sum().backward()
    names = [n for n, _ in m.named_parameters()]
    assert "A" not in names and "A" in dict(m.named_buffers()) and m.A.grad is None
    assert all(p.grad is not None for p in m.parameters())
    return f"buffers: ['A']; trained: {names}"


@claim(
    "E12-08",
    section="12.3.2",
    lines=(6279, 6283),
    statement="A spatio-temporal GC sums the neighbours' filtered signals, "
    "h_i = Σ_j A_ij Conv1d(x_j); as printed (Conv1d(x_i)) the neighbours' signals never "  # noqa: E501
    "enter.",
    erratum="Conv1d(x_i) inside the sum over j",
)
def _e12_08() -> str:
    import torch

    A = _er(6, 0.5, 18)
    X = torch.tensor(_rng(18).standard_normal((6, 1, 10)))
    k = torch.tensor(_rng(19).standard_normal((1, 1, 3)))
    conv = torch.nn.functional.conv1d(X, k)[:, 0]  # (n, T')
    right = torch.tensor(A) @ conv
    printed = torch.tensor(A.sum(1))[:, None] * conv
    X2 = X.clone()
    X2[1] += 1.0
    conv2 = torch.nn.functional.conv1d(X2, k)[:, 0]
    nb = [i for i in range(6) if A[i, 1] and i != 1]
    changed_right = _maxerr((torch.tensor(A) @ conv2)[nb], right[nb]) > 0
    changed_printed = (
        _maxerr((torch.tensor(A.sum(1))[:, None] * conv2)[nb], printed[nb]) > 0
    )
    assert nb and changed_right and not changed_printed
    return "changing x_1 moves its neighbours' outputs with Conv1d(x_j), not with Conv1d(x_i)"  # noqa: E501


@claim(
    "E12-09",
    section="12.3.3",
    lines=(6307, 6309),
    statement="With R = AD⁻¹, R_ij is the probability of stepping from j to i (columns "
    "sum to 1); i → j is D⁻¹A.",
    erratum="R_ij is the probability of moving from node i to node j",
)
def _e12_09() -> str:
    from alice_lab.graphs import random_walk_matrix

    A = _er(10, 0.3, 20) + np.eye(10)
    A[0, 1:] = A[1:, 0] = 1  # node 0 is a hub: R is far from symmetric
    R = random_walk_matrix(A)
    assert _maxerr(R.sum(0), 1) < 1e-14 and _maxerr(R.sum(1), 1) > 0.1
    # simulate walkers: from j, the empirical next-node distribution is column j
    rng = _rng(0)
    j, steps = 0, rng.choice(10, size=20000, p=R[:, 0])
    emp = np.bincount(steps, minlength=10) / 20000
    assert _maxerr(emp, R[:, j]) < 0.02
    return f"columns of AD⁻¹ sum to 1; walkers leaving node 0 match column 0 ({_maxerr(emp, R[:, j]):.3f})"  # noqa: E501


@claim(
    "E12-10",
    section="12.3.3",
    lines=(6315, 6315),
    statement=(
        "Embedding(A) is added to X, so it needs n rows: the k diagonals "
        "diag(R^t) stacked as rows, (k, n), must be transposed to (n, k) before"
        " multiplying by W ~ (k, c)."
    ),
    erratum="the diagonals stacked as rows, (k, n), multiplied by W directly",
)
def _e12_10() -> str:
    from alice_lab.graphs import random_walk_pe

    A = _er(9, 0.4, 21)
    k, c = 4, 5
    W = _rng(21).standard_normal((k, c))
    rows = np.stack(
        [np.diag(np.linalg.matrix_power(A / A.sum(0), t)) for t in range(1, k + 1)]
    )
    pe = random_walk_pe(A, k)
    assert rows.shape == (k, 9) and (pe @ W).shape == (9, c)
    assert _maxerr(rows.T @ W, pe @ W) < 1e-14
    try:
        rows @ W
    except ValueError:
        return "(k, n) @ (k, c) fails; (n, k) @ (k, c) = (n, c)"
    raise AssertionError("the untransposed product should not be defined")
