"""Checks of lab 12 (chapter 12: graph neural networks in PyTorch).

Exercises: the GCN's normalised adjacency (NumPy), a two-layer GCN forward pass, the
GAT/GATv2 attention matrix, the patch adjacency of an image and a per-graph mean
readout (PyTorch). Every check compares with ``alice_lab.graphs`` on seeded inputs
chosen to expose the classic mistakes: graphs with nodes of different degrees (so that
D⁻¹ and D^{-1/2}·D^{-1/2} differ), non-square patch grids (so row- and column-major
numbering differ), attention scores that are not symmetric (so a softmax over the wrong
axis shows) and random GATv2 weights (whose ranking differs from GAT's).

Book: §12.2 (lines 6075-6229), §12.3.1 (lines 6235-6253), "From theory to practice"
(lines 6319-6329).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register


def _graph(n: int, p: float, seed: int) -> np.ndarray:
    from alice_lab.graphs import erdos_renyi

    A = erdos_renyi(n, p, seed=seed)
    A[0, 1:] = A[1:, 0] = 1.0  # a hub: degrees differ a lot
    return A


# =====================================================================================
# 12.1 The normalised adjacency of a GCN (NumPy)
# =====================================================================================


def _norm_ref():
    """The library's ``normalized_adjacency`` (symmetric, self-loops added)."""
    from alice_lab.graphs import normalized_adjacency

    def normalize_adjacency(A):
        return normalized_adjacency(A)

    return normalize_adjacency


@register("lab12.1", name="normalize_adjacency", exercise="12.1", points=2,
          reference=_norm_ref)  # fmt: skip
def check_normalize(normalize_adjacency: Callable) -> tuple[bool, str]:
    """normalize_adjacency(A) -> D^{-1/2}(A + I)D^{-1/2} for A (n, n) without loops."""
    steps = []
    for n, p, seed in [(7, 0.3, 0), (12, 0.2, 1)]:
        A = _graph(n, p, seed)
        steps.append(lambda A=A, n=n: _compare(
            f"normalised A ({n} nodes)", normalize_adjacency(A.copy()),
            lambda: _norm_ref()(A), rtol=1e-9, atol=1e-12))  # fmt: skip
    return _chain(*steps, ok="D^{-1/2}(A+I)D^{-1/2} matches, symmetric, self-loops in")


def _normalized(A, **options):
    """The library's normalised adjacency with other options (wrong answers)."""
    from alice_lab.graphs import normalized_adjacency

    return normalized_adjacency(A, **options)


@mutant("lab12.1", "self-loops forgotten")
def _norm_no_loops(A):
    return _normalized(A, self_loops=False)


@mutant("lab12.1", "row normalisation D^-1 (A + I) instead of D^-1/2 (A + I) D^-1/2")
def _norm_row(A):
    return _normalized(A, mode="row")


@mutant("lab12.1", "degrees computed before adding the self-loops")
def _norm_degree_before(A):
    # (A + I)_ij / sqrt(d_i d_j), d the degrees of A: the loop-free matrix plus 1 / d_i
    return _normalized(A, self_loops=False) + np.diag(1 / A.sum(1))


# =====================================================================================
# 12.2 A two-layer GCN (PyTorch)
# =====================================================================================


def _gcn_ref():
    """Two of the library's graph convolutions, ReLU after the first."""
    from alice_lab.graphs import gcn_layer

    def gcn_forward(A_hat, X, W1, b1, W2, b2):
        hidden = gcn_layer(A_hat, X, W1, b1, activation="relu")
        return gcn_layer(A_hat, hidden, W2, b2)

    return gcn_forward


def _gcn_case(n, c, h, k, seed):
    import torch

    from alice_lab.graphs import normalized_adjacency

    r = np.random.default_rng(seed)
    A = torch.tensor(normalized_adjacency(_graph(n, 0.3, seed)))
    X = torch.tensor(r.standard_normal((n, c)))
    ps = [torch.tensor(r.standard_normal(s)) for s in ((c, h), (h,), (h, k), (k,))]
    return A, X, ps


@register("lab12.2", name="gcn_forward", exercise="12.2", points=2, reference=_gcn_ref)
def check_gcn(gcn_forward: Callable) -> tuple[bool, str]:
    """gcn_forward(A_hat, X, W1, b1, W2, b2) -> logits Â(ReLU(Â(XW1+b1))W2 + b2)."""
    steps = []
    for n, c, h, k, seed in [(8, 3, 5, 2, 0), (11, 4, 6, 3, 1)]:
        A, X, ps = _gcn_case(n, c, h, k, seed)
        steps.append(lambda A=A, X=X, ps=ps, n=n: _compare(
            f"GCN logits ({n} nodes)",
            gcn_forward(A.clone(), X.clone(), *(p.clone() for p in ps)),
            lambda: _gcn_ref()(A, X, *ps), rtol=1e-9, atol=1e-11))  # fmt: skip
    return _chain(*steps, ok="two GC layers, ReLU between, logits out")


def _gcn_variant(A, X, W1, b1, W2, b2, *, relu_out=False, second_A=True,
                 bias_inside=True):  # fmt: skip
    """The two-layer GCN written out, with knobs for common mistakes: a ReLU on the
    logits, no aggregation in the second layer, the bias added after Â."""
    import torch

    def layer(Z, W, b, aggregate=True):
        Z = torch.matmul(Z, W)
        Z = Z + b if bias_inside else Z
        Z = torch.matmul(A, Z) if aggregate else Z
        return Z if bias_inside else Z + b

    logits = layer(torch.relu(layer(X, W1, b1)), W2, b2, aggregate=second_A)
    return torch.relu(logits) if relu_out else logits


@mutant("lab12.2", "ReLU on the output layer too")
def _gcn_relu_out(A, X, W1, b1, W2, b2):
    return _gcn_variant(A, X, W1, b1, W2, b2, relu_out=True)


@mutant("lab12.2", "second layer forgets the adjacency")
def _gcn_no_second_A(A, X, W1, b1, W2, b2):
    return _gcn_variant(A, X, W1, b1, W2, b2, second_A=False)


@mutant("lab12.2", "bias added after the aggregation")
def _gcn_bias_outside(A, X, W1, b1, W2, b2):
    return _gcn_variant(A, X, W1, b1, W2, b2, bias_inside=False)


# =====================================================================================
# 12.3 GAT and GATv2 attention (PyTorch)
# =====================================================================================


def _gat_ref():
    """The library's ``gat_attention``."""
    from alice_lab.graphs import gat_attention as library_gat_attention

    def gat_attention(A, X, V, a, version):
        return library_gat_attention(A, X, V, a, version=version)

    return gat_attention


@register(
    "lab12.3", name="gat_attention", exercise="12.3", points=3, reference=_gat_ref
)
def check_gat(gat_attention: Callable) -> tuple[bool, str]:
    """gat_attention(A, X, V, a, version) -> (n, n) softmax over each row's neighbours
    (self-loops included), GAT (version 1) or GATv2 (version 2) scores."""
    import torch

    steps = []
    for version, seed in [(1, 0), (2, 1), (2, 2)]:
        r = np.random.default_rng(seed)
        n, c, h = 9, 3, 4
        A = torch.tensor(_graph(n, 0.3, seed))
        X = torch.tensor(r.standard_normal((n, c)))
        V = torch.tensor(r.standard_normal((c * version, h)))
        a = torch.tensor(r.standard_normal(2 * h if version == 1 else h))
        steps.append(lambda A=A, X=X, V=V, a=a, v=version: _compare(
            f"attention (version {v})",
            gat_attention(A.clone(), X.clone(), V.clone(), a.clone(), v),
            lambda: _gat_ref()(A, X, V, a, v), rtol=1e-9, atol=1e-12))  # fmt: skip
    return _chain(*steps, ok="GAT and GATv2 attention match; rows sum to 1 over N(i)")


def _scores(A, X, V, a, version):
    from alice_lab.graphs import gat_scores

    return gat_scores(X, V, a, version=version)


@mutant("lab12.3", "softmax over the wrong axis (columns)")
def _gat_axis(A, X, V, a, version):
    import torch

    S = _scores(A, X, V, a, version)
    mask = (A + torch.eye(len(A), dtype=A.dtype)) > 0
    return torch.softmax(S.masked_fill(~mask, -torch.inf), dim=0)


@mutant("lab12.3", "no mask: softmax over every node")
def _gat_nomask(A, X, V, a, version):
    import torch

    return torch.softmax(_scores(A, X, V, a, version), dim=1)


@mutant("lab12.3", "GAT's ordering used for GATv2 (LeakyReLU outside)")
def _gat_v1_always(A, X, V, a, version):
    import torch

    from alice_lab.graphs import gat_attention

    if version < 2:
        return gat_attention(A, X, V, a, version=1)
    source, target = (X @ half for half in V.chunk(2))  # V (2c, h): two projections
    S = torch.nn.functional.leaky_relu((source @ a)[:, None] + (target @ a)[None], 0.2)
    mask = (A + torch.eye(len(A), dtype=A.dtype)) > 0
    return torch.softmax(S.masked_fill(~mask, -torch.inf), dim=1)


@mutant("lab12.3", "self-loops forgotten")
def _gat_noloops(A, X, V, a, version):
    from alice_lab.graphs import gat_attention

    return gat_attention(A, X, V, a, version=version, self_loops=False)


# =====================================================================================
# 12.4 The patch adjacency of an image (NumPy)
# =====================================================================================


def _patch_ref():
    """The library's ``patch_grid_adjacency``."""
    from alice_lab.graphs import patch_grid_adjacency

    def patch_adjacency(rows, cols):
        return patch_grid_adjacency(rows, cols)

    return patch_adjacency


@register("lab12.4", name="patch_adjacency", exercise="12.4", points=2,
          reference=_patch_ref)  # fmt: skip
def check_patch(patch_adjacency: Callable) -> tuple[bool, str]:
    """patch_adjacency(rows, cols) -> (p, p), p = rows·cols, row-major, 4-connected."""
    steps = [
        lambda r=r, c=c: _compare(
            f"patch adjacency {r}×{c}",
            patch_adjacency(r, c),
            lambda: _patch_ref()(r, c),
            rtol=0,
            atol=0,
        )  # fmt: skip
        for r, c in [(4, 4), (2, 3), (3, 5)]
    ]
    return _chain(*steps, ok="4-connected grid, row-major, no self-loops")


@mutant("lab12.4", "8-connectivity (patches touching at a corner linked)")
def _patch_8(rows, cols):
    A = _patch_ref()(rows, cols)
    idx = np.arange(rows * cols).reshape(rows, cols)
    for a, b in ((idx[:-1, :-1], idx[1:, 1:]), (idx[:-1, 1:], idx[1:, :-1])):
        A[a.ravel(), b.ravel()] = A[b.ravel(), a.ravel()] = 1
    return A


@mutant("lab12.4", "column-major numbering of the patches")
def _patch_colmajor(rows, cols):
    A = _patch_ref()(cols, rows)
    return A


@mutant("lab12.4", "self-loops included")
def _patch_loops(rows, cols):
    return _patch_ref()(rows, cols) + np.eye(rows * cols)


# =====================================================================================
# 12.5 Mean readout per graph with index_add (PyTorch)
# =====================================================================================


def _readout_ref():
    """The library's ``segment_mean``."""
    from alice_lab.graphs import segment_mean

    def mean_readout(H, batch, num_graphs):
        return segment_mean(H, batch, num_graphs)

    return mean_readout


@register("lab12.5", name="mean_readout", exercise="12.5", points=2,
          reference=_readout_ref)  # fmt: skip
def check_readout(mean_readout: Callable) -> tuple[bool, str]:
    """mean_readout(H (N, c), batch (N,), num_graphs) -> (num_graphs, c) means."""
    import torch

    steps = []
    for sizes, seed in [((4, 3), 0), ((2, 5, 1, 6), 1)]:
        r = np.random.default_rng(seed)
        batch = torch.tensor(np.repeat(np.arange(len(sizes)), sizes))
        H = torch.tensor(r.standard_normal((sum(sizes), 3)))
        k = len(sizes)
        steps.append(lambda H=H, b=batch, k=k: _compare(
            f"readout of {k} graphs", mean_readout(H.clone(), b.clone(), k),
            lambda: _readout_ref()(H, b, k), rtol=1e-9, atol=1e-12))  # fmt: skip
    return _chain(*steps, ok="per-graph means, any graph sizes")


@mutant("lab12.5", "sum instead of mean")
def _readout_sum(H, batch, num_graphs):
    import torch

    return torch.zeros(num_graphs, H.shape[1], dtype=H.dtype).index_add(0, batch, H)


@mutant("lab12.5", "divides by the total number of nodes")
def _readout_total(H, batch, num_graphs):
    return _readout_sum(H, batch, num_graphs) / H.shape[0]


@mutant("lab12.5", "divides by the average graph size")
def _readout_avg(H, batch, num_graphs):
    return _readout_sum(H, batch, num_graphs) / (H.shape[0] / num_graphs)
