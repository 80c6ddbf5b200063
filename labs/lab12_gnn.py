# %% [markdown]
# # Lab 12 — Graph neural networks: GCN, GAT and images as graphs
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab12_gnn.ipynb)
#
# *Accompanies Chapter 12 ("Graph models") of* Alice's Adventures in a differentiable
# wonderland *by Simone Scardapane, with its "From theory to practice" (book lines
# 6319–6329). The exercises are the companion's; text CC BY-SA 4.0, code MIT.*
#
# You will write the pieces of two graph neural networks and train them, in PyTorch, on
# two graphs: Zachary's karate club (34 members who split into two clubs) and a
# stochastic block model generated in code. Then you will turn the 8×8 digits of
# scikit-learn into graphs of patches and classify them.
#
# | Exercise | What you write | Framework |
# |---|---|---|
# | 12.1 | `normalize_adjacency(A)`: $\mathbf{D}^{-1/2}(\mathbf{A}+\mathbf{I})\mathbf{D}^{-1/2}$ | NumPy |
# | 12.2 | `gcn_forward(...)`: a two-layer GCN | PyTorch |
# | 12.3 | `gat_attention(...)`: GAT and GATv2 attention | PyTorch |
# | 12.4 | `patch_adjacency(rows, cols)`: patches sharing a border | NumPy |
# | 12.5 | `mean_readout(H, batch, num_graphs)`: one vector per graph | PyTorch |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned. The cells that use
# your function say "(skipped until Exercise 12.k is done)" until it is written, so that
# *Run all* still reaches your score at the end.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab[torch] @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import torch

from alice_course import grading
from alice_course.grading import (
    attempted,  # False (and a note) while fn is still a stub
)
from alice_lab import graphs as g
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
EPOCHS = 60 if FAST else 200
torch.manual_seed(0)
torch.set_num_threads(1)

A_karate, y_karate = g.karate_club()  # (34, 34) adjacency, (34,) club after the split
A_sbm, X_sbm, y_sbm = g.stochastic_block_model((60, 60), 0.15, 0.01, features=8, seed=0)
print(
    "karate:",
    int(A_karate.sum() / 2),
    "edges | SBM:",
    int(A_sbm.sum() / 2),
    "edges,",
    f"edge homophily {g.edge_homophily(A_sbm, y_sbm):.2f}",
)

# %% [markdown]
# ## Exercise 12.1 — The GCN's normalised adjacency
#
# Kipf and Welling's graph convolution mixes each node with its neighbours through
# $\hat{\mathbf{A}} = \mathbf{D}^{-1/2}(\mathbf{A}+\mathbf{I})\mathbf{D}^{-1/2}$, where
# $\mathbf{D}$ holds the degrees **of $\mathbf{A}+\mathbf{I}$**. Write
# `normalize_adjacency(A)` for a NumPy `A` of shape `(n, n)` without self-loops. Use
# broadcasting (no need to build $\mathbf{D}$).


# %%
def normalize_adjacency(A):
    """A: (n, n) symmetric, no self-loops -> D^{-1/2} (A + I) D^{-1/2}, (n, n)."""
    ### BEGIN SOLUTION
    S = A + np.eye(len(A))
    d = S.sum(axis=1)
    return S / np.sqrt(np.outer(d, d))
    ### END SOLUTION


# %%
grading.check("lab12.1", normalize_adjacency)

# %%
if attempted(normalize_adjacency, A_karate):
    A_hat_karate = normalize_adjacency(A_karate)
    print(
        "symmetric:",
        np.allclose(A_hat_karate, A_hat_karate.T),
        "| largest eigenvalue:",
        round(float(np.linalg.eigvalsh(A_hat_karate).max()), 6),
    )

# %% [markdown]
# ## Exercise 12.2 — A two-layer GCN
#
# A GC layer is $\hat{\mathbf{A}}(\mathbf{X}\mathbf{W} + \mathbf{b})$ (book §12.2.2).
# Stack two, with a ReLU between them and none at the end (the outputs are logits):
#
# $$\text{logits} = \hat{\mathbf{A}}\big(\mathrm{ReLU}(\hat{\mathbf{A}}(\mathbf{X}
# \mathbf{W}_1 + \mathbf{b}_1))\mathbf{W}_2 + \mathbf{b}_2\big).$$
#
# All arguments are torch tensors: `A_hat (n, n)`, `X (n, c)`, `W1 (c, h)`, `b1 (h,)`,
# `W2 (h, k)`, `b2 (k,)`.


# %%
def gcn_forward(A_hat, X, W1, b1, W2, b2):
    """Two GC layers, ReLU between; returns logits (n, k)."""
    ### BEGIN SOLUTION
    H = torch.relu(A_hat @ (X @ W1 + b1))
    return A_hat @ (H @ W2 + b2)
    ### END SOLUTION


# %%
grading.check("lab12.2", gcn_forward)

# %% [markdown]
# Now train it, semi-supervised: on the karate club only the two leaders (nodes 0 and
# 33) are labelled and the features are one-hot node ids; on the SBM 30% of the nodes
# are labelled. The loss is the cross-entropy on the labelled nodes only.


# %%
def train(forward, params, X, y, mask, epochs=EPOCHS, lr=0.05):
    opt = torch.optim.Adam(params, lr=lr, weight_decay=5e-4)
    yt, m = torch.tensor(y), torch.tensor(mask)
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(X)[m], yt[m])
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = forward(X).argmax(1).numpy()
    return float(np.mean(pred[~mask] == y[~mask])), pred


def gcn_params(c, h, k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(c, h), (h,), (h, k), (k,)]
    return [(torch.randn(s, generator=gen) * (0.3 if len(s) == 2 else 0.0)).requires_grad_()
            for s in shapes]  # fmt: skip


mask_karate = np.zeros(34, bool)
mask_karate[[0, 33]] = True
mask_sbm = np.random.default_rng(0).random(120) < 0.3
datasets = {
    "karate": (A_karate, np.eye(34), y_karate, mask_karate),
    "SBM": (A_sbm, X_sbm, y_sbm, mask_sbm),
}
results = {}
if attempted(gcn_forward, torch.eye(3), torch.eye(3), *gcn_params(3, 16, 2)):
    for name, (A, X, y, mask) in datasets.items():
        # the same matrix as your normalize_adjacency (Exercise 12.1)
        A_hat = torch.tensor(g.normalized_adjacency(A), dtype=torch.float32)
        Xt = torch.tensor(X, dtype=torch.float32)
        ps = gcn_params(X.shape[1], 16, 2)
        acc, pred = train(
            lambda X, A_hat=A_hat, ps=ps: gcn_forward(A_hat, X, *ps), ps, Xt, y, mask
        )
        results[("GCN", name)] = (acc, pred)
        print(f"GCN on {name}: test accuracy {acc:.3f}")

# %%
if ("GCN", "karate") in results:  # the cell above ran with your gcn_forward
    G = nx.karate_club_graph()
    pos = nx.spring_layout(G, seed=3)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    pred = results[("GCN", "karate")][1]
    for ax, colours, title in ((axes[0], y_karate, "true clubs"),
                               (axes[1], pred, "GCN predictions")):  # fmt: skip
        nx.draw_networkx(G, pos, ax=ax, node_color=colours, cmap="coolwarm",
                         node_size=160, font_size=7)  # fmt: skip
        ax.set_title(title)
        ax.axis("off")
    plt.show()

# %% [markdown]
# ## Exercise 12.3 — GAT and GATv2 attention
#
# Graph attention replaces the fixed weights of $\hat{\mathbf{A}}$ by learned ones. For
# each edge $(i, j)$, including the self-loop $(i, i)$, compute a score, then take a
# softmax **over the neighbours $j$ of each node $i$** (each row), with zeros outside the
# neighbourhood:
#
# * GAT (`version=1`, `V (c, h)`, `a (2h,)`): $s_{ij} = \mathrm{LeakyReLU}(\mathbf{a}^\top
#   [\mathbf{x}_i\mathbf{V} \,\|\, \mathbf{x}_j\mathbf{V}])$;
# * GATv2 (`version=2`, `V (2c, h)`, `a (h,)`): $s_{ij} = \mathbf{a}^\top
#   \mathrm{LeakyReLU}([\mathbf{x}_i \,\|\, \mathbf{x}_j]\mathbf{V})$,
#
# with LeakyReLU's negative slope 0.2. Return the `(n, n)` attention matrix (torch). Hint:
# $[\mathbf{x}_i \| \mathbf{x}_j]\mathbf{V} = \mathbf{x}_i\mathbf{V}_{:c} +
# \mathbf{x}_j\mathbf{V}_{c:}$, and broadcasting builds all pairs at once; mask with
# `-inf` before `torch.softmax`.


# %%
def gat_attention(A, X, V, a, version):
    """A (n, n), X (n, c) -> attention (n, n), rows = softmax over N(i) ∪ {i}."""
    ### BEGIN SOLUTION
    lrelu = torch.nn.functional.leaky_relu
    c = X.shape[1]
    if version == 1:
        h = V.shape[1]
        Z = X @ V
        S = lrelu((Z @ a[:h])[:, None] + (Z @ a[h:])[None, :], 0.2)
    else:
        P, Q = X @ V[:c], X @ V[c:]
        S = lrelu(P[:, None, :] + Q[None, :, :], 0.2) @ a
    mask = (A + torch.eye(len(A), dtype=A.dtype)) != 0
    return torch.softmax(S.masked_fill(~mask, -torch.inf), dim=1)
    ### END SOLUTION


# %%
grading.check("lab12.3", gat_attention)

# %% [markdown]
# A GAT layer is then $\mathrm{attention} \cdot \mathbf{X}\mathbf{W}$. Train a two-layer
# GATv2 (ELU between the layers) on both graphs:


# %%
def gat_params(c, h, k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(c, h), (2 * c, h), (h,), (h, k), (2 * h, k), (k,)]
    return [
        (torch.randn(s, generator=gen) / s[0] ** 0.5).requires_grad_() for s in shapes
    ]


def gat_forward(A, X, W1, V1, a1, W2, V2, a2):
    H = torch.nn.functional.elu(gat_attention(A, X, V1, a1, 2) @ (X @ W1))
    return gat_attention(A, H, V2, a2, 2) @ (H @ W2)


if attempted(gat_forward, torch.eye(3), torch.eye(3), *gat_params(3, 8, 2)):
    for name, (A, X, y, mask) in datasets.items():
        At = torch.tensor(A, dtype=torch.float32)
        Xt = torch.tensor(X, dtype=torch.float32)
        ps = gat_params(X.shape[1], 8, 2)
        acc, pred = train(
            lambda X, At=At, ps=ps: gat_forward(At, X, *ps), ps, Xt, y, mask
        )
        results[("GATv2", name)] = (acc, pred)
        print(f"GATv2 on {name}: test accuracy {acc:.3f}")

# %% [markdown]
# ## Exercise 12.4 — Images as graphs of patches
#
# The chapter's exercise: cut an image into patches, make every patch a node, and link
# two patches when they **share a border** (not just a corner; E.12.12). Number the
# patches row by row. Write `patch_adjacency(rows, cols)` returning the `(p, p)`
# adjacency, `p = rows * cols`, without self-loops.


# %%
def patch_adjacency(rows, cols):
    """(rows*cols, rows*cols) 0/1 matrix of a 4-connected grid, row-major numbering."""
    ### BEGIN SOLUTION
    A = np.zeros((rows * cols, rows * cols))
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if c + 1 < cols:
                A[i, i + 1] = A[i + 1, i] = 1
            if r + 1 < rows:
                A[i, i + cols] = A[i + cols, i] = 1
    return A
    ### END SOLUTION


# %%
grading.check("lab12.4", patch_adjacency)

# %%
if attempted(patch_adjacency, 4, 4):
    A_grid = patch_adjacency(4, 4)
    G_grid = nx.from_numpy_array(A_grid)
    print(
        f"4×4 patches: {G_grid.number_of_edges()} edges, diameter {nx.diameter(G_grid)}"
    )

# %% [markdown]
# ## Exercise 12.5 — One vector per graph
#
# To classify whole graphs we stack a batch of them into one big graph and keep a
# *batch vector* saying which graph each node belongs to (book §12.2.4). A readout then
# averages the node embeddings of each graph. Write `mean_readout(H, batch,
# num_graphs)` with `Tensor.index_add` (a scatter-sum) and a count per graph: `H (N, c)`,
# `batch (N,)` integers in `[0, num_graphs)`, returning `(num_graphs, c)`.


# %%
def mean_readout(H, batch, num_graphs):
    """Per-graph mean of the rows of H."""
    ### BEGIN SOLUTION
    sums = torch.zeros(num_graphs, H.shape[1], dtype=H.dtype).index_add(0, batch, H)
    counts = torch.zeros(num_graphs, dtype=H.dtype).index_add(
        0, batch, torch.ones(len(batch), dtype=H.dtype)
    )
    return sums / counts.clamp(min=1)[:, None]
    ### END SOLUTION


# %%
grading.check("lab12.5", mean_readout)

# %% [markdown]
# Now the digits: 2×2 patches of an 8×8 image give 16 nodes with 4 features each, on a
# 4×4 grid. We batch 32 images block-diagonally (the batch adjacency is
# $\mathbf{I}_{32} \otimes \hat{\mathbf{A}}$, a sparse matrix), run three GraphConv
# layers ($\mathrm{ReLU}(\mathbf{H}\mathbf{V} + \hat{\mathbf{A}}\mathbf{H}\mathbf{W})$,
# book §12.3.2: a node keeps its own features apart from its neighbours'), your readout
# and a linear head.
#
# Expect a modest accuracy (well above the 10% of chance, far below an MLP on the
# pixels): as the book's exercise asks, there is no positional embedding, and a graph
# layer followed by a mean cannot tell a digit from its mirror image or its rotation by a
# multiple of 90°, which give the same graph. Try adding the patch's (row, column) to its
# features and see what changes.

# %%
Xd, _, yd = g.digits_patch_graphs(patch=2)  # (1797, 16, 4), labels
A_patch = torch.tensor(
    g.normalized_adjacency(g.patch_grid_adjacency(4)), dtype=torch.float32
)
B = 32
A_batch = torch.kron(torch.eye(B), A_patch).to_sparse()  # (512, 512) block-diagonal
batch_vec = torch.arange(B).repeat_interleave(16)
torch.manual_seed(0)
sizes = [(4, 64), (64, 64), (64, 64)]
self_lins = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in sizes)
nbr_lins = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in sizes)
head = torch.nn.Linear(64, 10)
params = [*self_lins.parameters(), *nbr_lins.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=0.005)
n_train = 1376  # 43 batches of 32


def classify(Xb):  # Xb: (B, 16, 4)
    H = Xb.reshape(-1, 4)
    for lin_self, lin_nbr in zip(self_lins, nbr_lins, strict=True):
        H = torch.relu(lin_self(H) + torch.sparse.mm(A_batch, lin_nbr(H)))
    return head(mean_readout(H, batch_vec, B))


if attempted(mean_readout, torch.ones(2, 3), torch.tensor([0, 1]), 2):
    Xd_t, yd_t = torch.tensor(Xd, dtype=torch.float32), torch.tensor(yd)
    for _epoch in range(4 if FAST else 15):
        order = torch.randperm(n_train)
        for k in range(0, n_train, B):
            idx = order[k : k + B]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(classify(Xd_t[idx]), yd_t[idx])
            loss.backward()
            opt.step()
    with torch.no_grad():
        test = torch.arange(n_train, n_train + 416)
        preds = torch.cat(
            [classify(Xd_t[test[k : k + B]]).argmax(1) for k in range(0, 416, B)]
        )
        acc_digits = (preds == yd_t[test]).float().mean().item()
    print(f"patch-graph GNN on the digits: test accuracy {acc_digits:.3f}")

# %% [markdown]
# ## Your score
#
# The cell below runs every check of this lab again and adds up the points.

# %%
results_lab = grading.report("lab12", globals())
