# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12. Graph models
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch12_graph_models.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 12 ("Graph models") of* Alice's Adventures in a differentiable
# wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this notebook is derived
# from the book and shared under the same licence; the code is MIT.*
#
# Sets, sequences and images are special graphs. This chapter handles the general case:
# nodes with features, joined by edges that carry structure. We build everything in
# `alice_lab.graphs` and check it against networkx, SciPy and PyTorch:
#
# * adjacency, degree and Laplacian matrices, diffusion and the Laplacian's quadratic
#   form, used to regularise a model with unlabelled data (§12.1);
# * the graph convolution, its locality and receptive field, node/edge/graph heads and
#   the sparse and batched formats used in practice (§12.2);
# * graph attention (GAT and GATv2), general message passing and graph transformers
#   (§12.3), then a GCN on the karate club and images as graphs of patches.
#
# Every checkable statement is computed in the open and then checked by
# `alice_course.claims.verify`, which shows a `✓` block with the place in the book. Boxes
# marked **Erratum** correct slips in the text.

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
import scipy.sparse as sp
import torch

from alice_course.claims import verify
from alice_course.widgets import (
    ch12_gat_ranking as gat_ranking,
    ch12_graph_diffusion as graph_diffusion,
    ch12_graph_receptive_field as receptive_field,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import graphs as g

describe_figures()  # each figure's output also says in words what it shows

FAST = alice_lab.backend.is_fast()  # ALICE_FAST=1 (set by the tests) shrinks the runs
rng = np.random.default_rng(0)
torch.manual_seed(0)
torch.set_num_threads(1)

# %% [markdown]
# ## 12.1 Learning on graph-based data
#
# ### 12.1.1 Graphs and features on graphs
#
# A graph is a set of nodes $\mathcal{V} = \{1, \dots, n\}$ and a set of edges, pairs of
# nodes. We store the edges as an adjacency matrix $\mathbf{A} \sim (n, n)$ with
# $A_{ij} = 1$ when $(i, j)$ is an edge. Familiar data fit in: a set is a graph with only
# self-loops ($\mathbf{A} = \mathbf{I}$), a sequence is a path, an image a grid. The
# figure (the book's F.12.1) draws each one above its adjacency matrix.

# %%
examples = {
    "set (self-loops)": np.eye(6),
    "sequence (path)": nx.to_numpy_array(nx.path_graph(6)),
    "image (4×4 grid)": g.patch_grid_adjacency(4),
    "general graph": g.erdos_renyi(8, 0.35, seed=2),
}
fig, axes = plt.subplots(2, 4, figsize=(11, 5.2))
for (name, A), top, bottom in zip(examples.items(), axes[0], axes[1], strict=True):
    G = nx.from_numpy_array(A)
    pos = (
        {i: (i % 4, -(i // 4)) for i in range(16)}
        if "grid" in name
        else nx.spring_layout(G, seed=1)
    )
    nx.draw_networkx(
        G, pos, ax=top, node_size=120, with_labels=False, node_color="tab:blue"
    )
    top.set_title(name)
    top.axis("off")
    bottom.imshow(A, cmap="Greys")
    bottom.set(title=f"A {A.shape}", xticks=[], yticks=[])
fig.suptitle("F.12.1: sets, sequences and images are graphs; their adjacency matrices")
plt.show()

# %% [markdown]
# The same graph can be written as an edge list, an adjacency matrix or an
# $(n, |\mathcal{E}|)$ *incidence* matrix with a 1 at both ends of every edge. A graph
# is undirected when every edge comes with its reverse, i.e. $\mathbf{A}^\top =
# \mathbf{A}$. With the incidence matrix $\mathbf{B}$ one also has
# $\mathbf{B}\mathbf{B}^\top = \mathbf{D} + \mathbf{A}$ (degrees on the diagonal).

# %%
edges = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 4)]
A5 = g.adjacency(edges, 5)
B5 = g.incidence_matrix(edges, 5)
print("A =\n", A5.astype(int))
print("B =\n", B5.astype(int))
print("column sums of B:", B5.sum(0), "| row sums (degrees):", B5.sum(1))
print("A symmetric:", g.is_undirected(A5))
verify("C12-01", "C12-02", "C12-03", "C12-04")

# %% [markdown]
# ```{admonition} Erratum (E12-01, line 5955)
# :class: warning
# The edge set is printed as pairs with $i, j \in \mathcal{N}$; the nodes come from
# $\mathcal{V}$, so $\mathcal{E} \subseteq \mathcal{V} \times \mathcal{V}$.
# ```
#
# ```{admonition} Erratum (E12-02, line 5965)
# :class: warning
# The book writes $\mathbf{B}\mathbf{1}^\top = 2$. What holds is that every *column*
# of $\mathbf{B}$ sums to 2, $\mathbf{1}^\top\mathbf{B} = 2\cdot\mathbf{1}^\top$ (each edge
# has two ends, for a graph without self-loops); the row sums are the degrees, as
# printed above.
# ```

# %%
verify("E12-01", "E12-02")

# %% [markdown]
# We usually add self-loops, $\mathbf{A} \leftarrow \mathbf{A} + \mathbf{I}$, so that a
# node keeps its own features when it aggregates. `add_self_loops` only fills zeros on the
# diagonal, so it never counts a loop twice.

# %%
print("degrees before:", g.degree(A5), "after:", g.degree(g.add_self_loops(A5)))
verify("C12-05")

# %% [markdown]
# ### 12.1.2 Graph features
#
# Numbering the nodes differently does not change the graph: with a permutation matrix
# $\mathbf{P}$, $(\mathbf{P}\mathbf{X}, \mathbf{P}\mathbf{A}\mathbf{P}^\top)$ is the
# same graph as $(\mathbf{X}, \mathbf{A})$. The degree $d_i = \sum_j A_{ij}$ counts
# neighbours; normalising by it gives the row-normalised $\mathbf{D}^{-1}\mathbf{A}$,
# the column-normalised $\mathbf{A}\mathbf{D}^{-1}$ and the symmetric
# $\mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2}$. All of them (and the Laplacian, below)
# are zero wherever $\mathbf{A}$ is: they are *graph-shift* matrices.
#
# Isolated nodes ($d_i = 0$) have no $d_i^{-1/2}$: `alice_lab` follows networkx and
# PyTorch Geometric and uses 0 there, so the node's row and column are zero, never NaN.

# %%
A_iso = np.zeros((4, 4))
A_iso[0, 1] = A_iso[1, 0] = 1
print(g.normalized_adjacency(A_iso, self_loops=False))
try:
    g.normalized_adjacency(np.array([[0.0, -1.0], [-1.0, 0.0]]))
except ValueError as err:
    print("ValueError:", err)
verify("C12-06", "C12-07", "C12-08", "C12-09")

# %% [markdown]
# ```{admonition} Erratum (E12-03, lines 5995 and 6007)
# :class: warning
# The row normalisation is written $\mathbf{D}^{-1}\mathbf{A}_{ij}$ (a matrix times an
# entry) and said to satisfy $\sum_i A'_{ij} = 1$. It is $\mathbf{A}' =
# \mathbf{D}^{-1}\mathbf{A}$, $A'_{ij} = A_{ij}/d_i$, and its **rows** sum to one:
# $\sum_j A'_{ij} = 1$. Columns sum to one for $\mathbf{A}\mathbf{D}^{-1}$.
# ```

# %%
verify("E12-03")

# %% [markdown]
# Random graphs show how different degree distributions can be (F.12.3): in an
# Erdős–Rényi graph every edge is an independent coin flip, so degrees are binomial and
# bunch around the mean; in a Barabási–Albert graph new nodes prefer well-connected ones,
# which grows hubs.

# %%
n_rand = 300
A_ba = g.barabasi_albert(n_rand, 3, seed=0)
A_er = g.erdos_renyi(n_rand, A_ba.sum() / (n_rand * (n_rand - 1)), seed=0)
fig, axes = plt.subplots(2, 2, figsize=(9, 7))
for row, (name, A) in enumerate(
    [("Erdős–Rényi", A_er), ("Barabási–Albert (m = 3)", A_ba)]
):
    G = nx.from_numpy_array(A)
    deg = A.sum(1)
    nx.draw_networkx(G, nx.spring_layout(G, seed=0), ax=axes[row, 0], node_size=6 + deg,
                     with_labels=False, width=0.2, node_color="tab:blue")  # fmt: skip
    axes[row, 0].set_title(f"{name}: {int(A.sum() / 2)} edges")
    axes[row, 0].axis("off")
    axes[row, 1].hist(deg, bins=np.arange(deg.max() + 2) - 0.5, color="tab:orange")
    axes[row, 1].set(
        title=f"degrees (max {deg.max():.0f})", xlabel="degree", ylabel="nodes"
    )
fig.suptitle("F.12.3: same mean degree, different distributions")
plt.show()
verify("C12-42")

# %% [markdown]
# ### 12.1.3 Diffusion operations over graphs
#
# Multiplying a signal by $\mathbf{A}$ mixes every node with its neighbours,
# $x'_i = \sum_{j \in \mathcal{N}(i)} A_{ij} x_j$; with the row-normalised matrix this
# is a weighted average. The Laplacian $\mathbf{L} = \mathbf{D} - \mathbf{A}$ measures
# instead how much a node differs from its neighbours, $[\mathbf{L}\mathbf{x}]_i =
# \sum_j A_{ij}(x_i - x_j)$ (E.12.1). Every row of $\mathbf{L}$ sums to zero, so
# $\mathbf{L}\mathbf{1} = \mathbf{0}$.
#
# `diffusion(A, X, steps)` accepts dense arrays (NumPy, torch, JAX), `scipy.sparse` and
# torch sparse; on a large, sparse NumPy matrix it switches to CSR by itself.

# %%
A15 = g.erdos_renyi(15, 0.25, seed=0)
x15 = np.random.default_rng(0).random(15)
R15 = g.normalized_adjacency(A15, mode="row")
print("dense:", np.round(g.diffusion(R15, x15, 3)[:5], 4))
print("CSR:  ", np.round(g.diffusion(sp.csr_matrix(R15), x15, 3)[:5], 4))
print(
    "torch:",
    np.round(g.diffusion(torch.tensor(R15), torch.tensor(x15), 3)[:5].numpy(), 4),
)
verify("C12-10", "C12-11", "C12-12", "C12-13")

# %% [markdown]
# The book's F.12.4 runs "diffusion with the Laplacian" without writing the update. The
# stable version is the heat step $\mathbf{x} \leftarrow \mathbf{x} -
# \varepsilon\mathbf{L}\mathbf{x}$: it keeps the mean, shrinks the differences, and
# converges to the constant signal when $0 < \varepsilon < 2/\lambda_{\max}(\mathbf{L})$.

# %%
traj = g.heat_diffusion(A15, x15, 30, eps=0.1, return_all=True)
pos15 = nx.spring_layout(nx.from_numpy_array(A15), seed=0)
fig, axes = plt.subplots(1, 4, figsize=(12, 3.2))
for ax, t in zip(axes, (0, 10, 20, 30), strict=True):
    nx.draw_networkx(nx.from_numpy_array(A15), pos15, ax=ax, node_color=traj[t],
                     cmap="viridis", vmin=x15.min(), vmax=x15.max(), node_size=140,
                     with_labels=False)  # fmt: skip
    ax.set_title(f"step {t}: std {traj[t].std():.3f}")
    ax.axis("off")
fig.suptitle("F.12.4: x ← x − 0.1·Lx on a 15-node graph (shared colour scale)")
plt.show()
verify("C12-14")

# %% [markdown]
# On a connected graph with self-loops, the random walk $\mathbf{p} \leftarrow
# \mathbf{A}\mathbf{D}^{-1}\mathbf{p}$ forgets where it started and settles at the
# stationary distribution $\pi_i = d_i/\sum_j d_j$:

# %%
A_sl = g.add_self_loops(A15)
p = np.zeros(15)
p[0] = 1.0
p_inf = g.diffusion(g.random_walk_matrix(A_sl), p, 300)
print("after 300 steps:", np.round(p_inf[:6], 4))
print("d / sum(d):     ", np.round(g.stationary_distribution(A_sl)[:6], 4))

# %% [markdown]
# The widget runs the three operators step by step; raise ε past $2/\lambda_{\max}$ to
# watch the heat step diverge.

# %% tags=["remove-output"]
# NBVAL_SKIP
graph_diffusion.live_view()

# %%
graph_diffusion.static_view(steps=30, frames=12 if FAST else 24)

# %% [markdown]
# ### 12.1.4 Manifold regularization
#
# The quadratic form of the Laplacian is small for signals that vary little along
# edges:
#
# $$\mathbf{x}^\top\mathbf{L}\mathbf{x} = \tfrac12 \sum_{i,j} A_{ij}(x_i - x_j)^2 =
# \sum_{\{i,j\} \in \mathcal{E}} A_{ij}(x_i - x_j)^2 ,$$
#
# the last sum taking each undirected edge $\{i, j\}$ once.
#
# Build a graph from the data themselves (E.12.3: $A_{ij} = e^{-\lVert \mathbf{x}_i -
# \mathbf{x}_j\rVert^2}$ for close points) and add $\lambda\,\mathbf{f}^\top\mathbf{L}
# \mathbf{f}$ to the loss: the model is pushed to give close points close outputs,
# which uses the unlabelled points too.

# %%
x_demo = rng.standard_normal(15)
double = sum(
    A15[i, j] * (x_demo[i] - x_demo[j]) ** 2 for i in range(15) for j in range(15)
)
E15 = list(zip(*np.nonzero(A15), strict=True))  # (i, j) and (j, i) for every edge
over_E = sum(A15[i, j] * (x_demo[i] - x_demo[j]) ** 2 for i, j in E15)
once = sum(A15[i, j] * (x_demo[i] - x_demo[j]) ** 2 for i, j in E15 if i < j)
print(
    f"xᵀLx = {x_demo @ g.laplacian(A15) @ x_demo:.3f};  "
    f"Σ_ij A_ij (x_i − x_j)² = {double:.3f};  "
    f"Σ over (i, j) ∈ E = {over_E:.3f};  each edge once = {once:.3f}"
)

# %% [markdown]
# ```{admonition} Erratum (E12-04, lines 6053 and 6065)
# :class: warning
# E.12.2 writes $\mathbf{x}^\top\mathbf{L}\mathbf{x} = \sum_{(i,j)\in\mathcal{E}}
# A_{ij}(x_i - x_j)^2$ and E.12.4 writes $\mathbf{f}^\top\mathbf{L}\mathbf{f}$ as the
# same sum over all pairs $i, j$, both without a factor ½. In the book an undirected
# graph lists every edge in both directions, $(i, j)$ and $(j, i)$ (§12.1.1), so both
# sums count each edge twice and equal $2\,\mathbf{x}^\top\mathbf{L}\mathbf{x}$. The
# right forms are $\mathbf{x}^\top\mathbf{L}\mathbf{x} = \tfrac12
# \sum_{(i,j)\in\mathcal{E}} A_{ij}(x_i - x_j)^2 = \tfrac12\sum_{i,j} A_{ij}(x_i -
# x_j)^2$, or a sum over unordered edges $\{i, j\}$ with no ½, as the numbers above
# show. The factor only rescales λ in the objective below.
# ```
#
# ```{admonition} Erratum (E12-05, line 6069)
# :class: warning
# The objective is printed with $L(y_i, f(\mathbf{x}))$ summed over all $n$ points. Each
# term uses its own input, $L(y_i, f(\mathbf{x}_i))$, and the sum runs over the
# *labelled* points only; the regulariser covers all of them.
# ```

# %%
verify("C12-15", "C12-16", "E12-04", "E12-05")

# %% [markdown]
# On two moons with two labelled points per class, the regulariser carries the labels
# along each moon (the graph is used only for training):

# %%
verify("C12-17")

# %% [markdown]
# ## 12.2 Graph convolutional layers
#
# ### 12.2.1 Properties of a graph layer
#
# A graph layer maps $(\mathbf{X}, \mathbf{A})$ to new node features $\mathbf{H} \sim
# (n, c')$. Since the numbering of nodes is arbitrary, the layer must be *permutation
# equivariant*: renumbering the input renumbers the output in the same way. We also want
# it *local*: $\mathbf{H}_i$ should depend only on $i$'s neighbourhood, even though
# neighbourhoods differ in size from node to node.
#
# ```{admonition} Erratum (E12-06, lines 6089 and 6145)
# :class: warning
# A subgraph's nodes and a receptive field are written $\mathcal{T} \in \mathcal{V}$ and
# $\mathcal{V}(i) \in \mathcal{V}$; both are subsets, $\subseteq$.
# ```

# %%
verify("C12-19", "C12-20", "E12-06")

# %% [markdown]
# ### 12.2.2 The graph convolutional layer
#
# The graph convolution (GC) first mixes channels node by node, then mixes nodes along
# the edges: $\mathbf{H} = \phi(\mathbf{A}(\mathbf{X}\mathbf{W} + \mathbf{b}))$. Its
# $cc' + c'$ parameters do not depend on the graph's size, and it is equivariant because
# $\mathbf{P}\mathbf{A}\mathbf{P}^\top\mathbf{P}\mathbf{X} = \mathbf{P}\mathbf{A}
# \mathbf{X}$. With Kipf and Welling's $\hat{\mathbf{A}} = \mathbf{D}^{-1/2}(\mathbf{A}
# + \mathbf{I})\mathbf{D}^{-1/2}$ it is the standard GCN layer; below, against networkx's
# normalised Laplacian and on three input formats.

# %%
Ak, yk = g.karate_club()
Xk = rng.standard_normal((34, 5))
Wk = rng.standard_normal((5, 3))
A_hat = g.normalized_adjacency(Ak)
L_nx = nx.normalized_laplacian_matrix(nx.from_numpy_array(Ak + np.eye(34))).toarray()
off = ~np.eye(34, dtype=bool)
print("Â off the diagonal = −(networkx normalised Laplacian of A + I):",
      np.allclose(A_hat[off], -L_nx[off]))  # fmt: skip
H_dense = g.gcn_layer(A_hat, Xk, Wk)
H_csr = g.gcn_layer(g.normalized_adjacency(sp.csr_matrix(Ak)), Xk, Wk)
H_torch = g.gcn_layer(g.normalized_adjacency(torch.tensor(Ak).to_sparse()),
                      torch.tensor(Xk), torch.tensor(Wk))  # fmt: skip
print("dense = CSR:", np.allclose(H_dense, H_csr), "| dense = torch sparse:",
      np.allclose(H_dense, H_torch.numpy()))  # fmt: skip
verify("C12-18", "C12-23")

# %% [markdown]
# ```{admonition} Erratum (E12-07, line 6125)
# :class: warning
# Comparing $\mathbf{W}$ (channel mixing) with $\mathbf{A}$ (node mixing), the book says
# "the former is untrainable". It is the latter: $\mathbf{A}$ is fixed by the graph and
# $\mathbf{W}$ is learned. In `alice_lab.graphs.GCN`, $\mathbf{A}$ is a buffer.
# ```

# %%
verify("E12-07")

# %% [markdown]
# ### 12.2.3 Building a graph convolutional network
#
# Stacking GC layers widens the receptive field: after $k$ layers node $i$ sees its
# $k$-hop neighbourhood, the non-zero pattern of row $i$ of $(\mathbf{A} +
# \mathbf{I})^k$, and the graph's diameter is the depth at which every node sees every
# other one. Normalisation, residual connections and dropout keep the stack equivariant.

# %% tags=["remove-output"]
# NBVAL_SKIP
receptive_field.live_view()

# %%
receptive_field.static_view("karate", 16)

# %%
verify("C12-21", "C12-22", "C12-24", "C12-25")

# %% [markdown]
# A head on top turns node embeddings into predictions: per node (softmax of an MLP),
# per edge ($\sigma(\mathbf{H}_i^\top\mathbf{H}_j)$ or an MLP on $[\mathbf{H}_i \|
# \mathbf{H}_j]$), or per graph (an MLP on the mean of the nodes). In *semi-supervised*
# node classification only some nodes have labels and the loss averages over those; the
# others still matter, since their features flow into the labelled nodes' embeddings.
#
# Here a two-layer GCN learns the karate club split (who followed Mr. Hi, who the
# officer) from one labelled member per club and one-hot node features.

# %%
mask_k = np.zeros(34, bool)
mask_k[[0, 33]] = True
torch.manual_seed(0)
gcn = g.GCN(Ak, [34, 16, 2])
run_k = g.train_node_classifier(gcn, np.eye(34), yk, mask_k, epochs=100)
pred_k = run_k["logits"].argmax(1).numpy()
acc_k = g.accuracy(run_k["logits"], yk, ~mask_k)
print(f"GCN on the karate club: accuracy {acc_k:.3f} on the 32 unlabelled members")

Gk = nx.karate_club_graph()
pos_k = nx.spring_layout(Gk, seed=3)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
for ax, colours, title in (
    (axes[0], yk, "true clubs"),
    (axes[1], pred_k, "GCN predictions"),
):
    nx.draw_networkx(Gk, pos_k, ax=ax, node_color=colours, cmap="coolwarm",
                     node_size=180, font_size=7,
                     edgecolors=["k" if m else "none" for m in mask_k],
                     linewidths=2.5)  # fmt: skip
    ax.set_title(title + " (outlined: the two labelled nodes)")
    ax.axis("off")
plt.show()
verify("C12-26", "C12-27")

# %% [markdown]
# ### 12.2.4 On the implementation of graph neural networks
#
# Real graphs are sparse, so libraries store edges as coordinates (COO): the book's
# three-node example is the list `[[0, 2], [2, 0]]`, and PyTorch Geometric keeps the
# transpose, a $(2, m)$ `edge_index`. A mini-batch of graphs becomes one graph with
# several components: features stacked, $\mathbf{A}$ block-diagonal, plus a *batch
# vector* saying which graph each node belongs to (F.12.7). Pooling per graph is then a
# scatter (segment) sum, which every framework provides: `np.add.at`, torch `index_add`,
# `jax.ops.segment_sum`.

# %%
graphs3 = [(rng.standard_normal((n, 2)), g.erdos_renyi(n, 0.6, seed=n)) for n in (4, 3)]
Xb, Ab, batch = g.block_diagonal_batch(graphs3)
print("batch vector:", batch)
print("scatter_sum of ones:", g.scatter_sum(np.ones((7, 2)), batch, 2).tolist())
fig, ax = plt.subplots(figsize=(3.2, 3.2))
ax.imshow(Ab.toarray(), cmap="Greys")
ax.set(title="F.12.7: a batch of two graphs", xticks=range(7), yticks=range(7))
plt.show()
verify("C12-28", "C12-29", "C12-30")

# %% [markdown]
# ## 12.3 Beyond graph convolutional layers
#
# ### 12.3.1 Graph attention layers
#
# A GC layer weighs neighbours by the fixed entries of $\mathbf{A}$, which suits graphs
# where linked nodes tend to share labels (*homophily*). Graph attention learns the
# weights instead: a score $\alpha(\mathbf{x}_i, \mathbf{x}_j)$ per edge, a softmax over
# each neighbourhood, and a weighted sum of $\mathbf{W}^\top\mathbf{x}_j$. GAT scores with
# $\mathrm{LeakyReLU}(\mathbf{a}^\top[\mathbf{V}\mathbf{x}_i \| \mathbf{V}\mathbf{x}_j])$;
# GATv2 moves the non-linearity inside, $\mathbf{a}^\top\mathrm{LeakyReLU}(\mathbf{V}
# [\mathbf{x}_i \| \mathbf{x}_j])$. Below, `gat_layer` against a plain loop over the
# book's equations, and the edge-list version with a segment softmax.

# %%
A12 = g.erdos_renyi(12, 0.3, seed=0)
X12 = rng.standard_normal((12, 4))
W12, V12, a12 = (
    rng.standard_normal((4, 3)),
    rng.standard_normal((8, 6)),
    rng.standard_normal(6),
)


def gatv2_loop(A, X, W, V, a, slope=0.2):
    H = np.zeros((len(X), W.shape[1]))
    for i in range(len(X)):
        nbrs = [j for j in range(len(X)) if A[i, j] or i == j]
        z = [np.concatenate([X[i], X[j]]) @ V for j in nbrs]
        s = np.array([a @ np.where(v > 0, v, slope * v) for v in z])
        w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        H[i] = sum(wk * (X[j] @ W) for wk, j in zip(w, nbrs, strict=True))
    return H


H_v2 = g.gat_layer(A12, X12, W12, V12, a12, version=2)
ei12 = g.dense_to_coo(g.add_self_loops(A12), layout="edge_index")
print("dense GATv2 = loop:", np.allclose(H_v2, gatv2_loop(A12, X12, W12, V12, a12)))
H_edges = g.gat_layer_edges(X12, ei12, W12, V12, a12, version=2)
print("dense GATv2 = edge list:", np.allclose(H_v2, H_edges))
verify("C12-31", "C12-32", "C12-33")

# %% [markdown]
# GAT's attention is *static*: LeakyReLU is monotone and its argument splits into a term
# in $\mathbf{x}_i$ plus a term in $\mathbf{x}_j$, so every node ranks its neighbours in
# the same order. GATv2 does not have this restriction. The widget shows the rank of each
# neighbour (column) for each central node (row) on a complete graph.

# %% tags=["remove-output"]
# NBVAL_SKIP
gat_ranking.live_view()

# %%
gat_ranking.static_view(seeds=6 if FAST else 12)

# %%
verify("C12-34")

# %% [markdown]
# ### 12.3.2 Message-passing neural networks
#
# Message passing (E.12.11) generalises both: a message $M(\mathbf{x}_i, \mathbf{x}_j,
# \mathbf{e}_{ij})$ per edge, a permutation-invariant aggregation (sum, mean, max) per
# node, and an update $\psi$ that may also look at $\mathbf{x}_i$ itself. GC is the case
# $M = A_{ij}\mathbf{W}^\top\mathbf{x}_j$, sum, $\psi = \phi$; GraphConv's
# $\psi(\mathbf{x}, \mathbf{m}) = \phi(\mathbf{V}\mathbf{x} + \mathbf{m})$ can tell apart
# two nodes that have the same neighbours.

# %%
ei_k = g.dense_to_coo(Ak, layout="edge_index")
H_mp = g.message_passing(Xk, ei_k, lambda xi, xj, e: np.concatenate([xj, xj - xi], 1),
                         aggr="mean", update_fn=lambda X, M: np.tanh(M))  # fmt: skip
print("message passing on the karate club:", H_mp.shape)
verify("C12-35", "C12-36", "C12-37")

# %% [markdown]
# ```{admonition} Erratum (E12-08, line 6281)
# :class: warning
# The spatio-temporal layer is printed as $h_i = \sum_{j \in \mathcal{N}(i)}A_{ij}
# \,\mathrm{Conv1d}(x_i)$, which only rescales node $i$'s own signal. The neighbours'
# signals must enter: $\mathrm{Conv1d}(x_j)$.
# ```

# %%
verify("E12-08")

# %% [markdown]
# ### 12.3.3 Graph transformers
#
# A transformer over the nodes treats them as a set: equivariant, but blind to the
# edges. A structural embedding added to the features fixes this; the random-walk one
# stacks $\mathrm{diag}(\mathbf{R}^t)$ for $t = 1..k$, the probability of being back at
# the start after $t$ steps of the walk $\mathbf{R} = \mathbf{A}\mathbf{D}^{-1}$.

# %%
pe_k = g.random_walk_pe(Ak, 8)
fig, ax = plt.subplots(figsize=(8, 2.6))
im = ax.imshow(pe_k.T, aspect="auto", cmap="magma")
ax.set(xlabel="karate club member", ylabel="walk length t",
       title="random-walk PE (F.12.9)",
       yticks=range(8), yticklabels=range(1, 9))  # fmt: skip
fig.colorbar(im, ax=ax, label="return probability")
plt.show()
verify("C12-38", "C12-39", "C12-40")

# %% [markdown]
# ```{admonition} Erratum (E12-09, line 6309)
# :class: warning
# With $\mathbf{R} = \mathbf{A}\mathbf{D}^{-1}$ the columns sum to one, so $R_{ij}$ is
# the probability of stepping from $j$ **to** $i$ (the book says from $i$ to $j$, which
# is $\mathbf{D}^{-1}\mathbf{A}$). The diagonals of the powers, which the encoding uses,
# are the same for both.
# ```
#
# ```{admonition} Erratum (E12-10, line 6315)
# :class: warning
# Stacking the $k$ diagonals as rows gives a $(k, n)$ matrix, which cannot multiply
# $\mathbf{W} \sim (k, c)$. Transpose first: $[\mathrm{diag}(\mathbf{R}), \dots,
# \mathrm{diag}(\mathbf{R}^k)] \sim (n, k)$, times $\mathbf{W}$, gives $(n, c)$.
# ```

# %%
verify("E12-09", "E12-10")

# %% [markdown]
# ## From theory to practice
#
# The book suggests PyTorch Geometric or Jraph tutorials on citation networks; offline we
# use the karate club above and the chapter's exercise: treat an image as a graph whose
# nodes are patches, linked when they share a border (E.12.12). An 8×8 digit cut into
# 2×2 patches gives a 4×4 grid: 16 nodes, 24 edges, diameter 6.

# %%
Xp, Ap, yp = g.digits_patch_graphs(patch=2)
fig, axes = plt.subplots(1, 2, figsize=(8, 4))
img = Xp[0].reshape(4, 4, 2, 2).transpose(0, 2, 1, 3).reshape(8, 8)
axes[0].imshow(img, cmap="gray_r", extent=(-0.5, 3.5, 3.5, -0.5))
Gp = nx.from_numpy_array(Ap)
grid_pos = {i: (i % 4, i // 4) for i in range(16)}
nx.draw_networkx(Gp, grid_pos, ax=axes[0], node_size=60, node_color="tab:red",
                 with_labels=False, edge_color="tab:red")  # fmt: skip
axes[0].set_title(f"digit {yp[0]}: 16 patches, {Gp.number_of_edges()} edges")
axes[1].imshow(Ap, cmap="Greys")
axes[1].set_title("patch adjacency (16×16)")
plt.show()
verify("C12-41")

# %% [markdown]
# A small graph classifier: three GraphConv layers on every image's patch graph (all
# images share the topology, so one $\hat{\mathbf{A}}$ serves the whole batch), a mean
# readout and a linear head. The full exercise, with GAT and SBMs, is lab 12.
#
# Do not expect much: as the book asks, there is no positional embedding, and graph
# layers followed by a mean cannot tell a digit from its mirror image or its quarter-turn
# rotations (they give the same graph), so the accuracy stays well below that of an MLP
# on the pixels, though far above the 10% of chance.

# %%
A_pn = torch.tensor(g.normalized_adjacency(Ap), dtype=torch.float32)
Xt, yt = torch.tensor(Xp, dtype=torch.float32), torch.tensor(yp)
torch.manual_seed(0)
sizes = [(4, 64), (64, 64), (64, 64)]
lin_self = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in sizes)
lin_nbr = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in sizes)
head = torch.nn.Linear(64, 10)
params = [*lin_self.parameters(), *lin_nbr.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=0.005)


def patch_gnn(X):  # X (b, 16, 4): the same A for every image, applied by broadcasting
    H = X
    for ls, ln in zip(lin_self, lin_nbr, strict=True):  # GraphConv: φ(HV + ÂHW)
        H = torch.relu(ls(H) + A_pn @ ln(H))
    return head(H.mean(dim=1))  # mean readout, then a linear head


for _epoch in range(4 if FAST else 15):
    for k in range(0, 1376, 32):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(
            patch_gnn(Xt[k : k + 32]), yt[k : k + 32]
        )
        loss.backward()
        opt.step()
with torch.no_grad():
    acc_p = (patch_gnn(Xt[1400:]).argmax(1) == yt[1400:]).float().mean().item()
print(
    f"patch-graph GNN: test accuracy {acc_p:.3f} "
    f"on {len(yt) - 1400} digits (chance 0.1)"
)

# %% [markdown]
# ## Summary
#
# * A graph is a feature matrix and an adjacency matrix; degrees, normalised adjacencies
#   and the Laplacian are the shift operators everything else is built on.
# * Diffusion smooths a signal along the edges; the Laplacian's quadratic form measures
#   smoothness (with a ½ for the double sum) and regularises models with unlabelled data.
# * GC layers are equivariant, local, size-independent; depth widens the receptive field
#   up to the diameter. Sparse formats and block-diagonal batches make them fast.
# * Attention learns the edge weights (GATv2 fixes GAT's static ranking); message passing
#   covers them all; graph transformers need structural encodings to see the edges.
#
# **Claims left out.** Every checkable claim of the digest's list is registered (42
# claims, 10 errata), except the book's missing section references (lines 5979 and
# 7034), which have nothing to compute.
