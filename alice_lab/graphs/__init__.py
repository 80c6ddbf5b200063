r"""Graph models (Chapter 12): graph matrices, diffusion, graph convolutions, graph
attention, message passing and graph transformers.

Everything takes the adjacency ``A`` first and node features ``X`` (n, c) second, as
dense arrays of any backend (NumPy, PyTorch, JAX, array-api-strict) or ``scipy.sparse``
/ torch sparse matrices where noted. The PyTorch models :class:`GCN` and :class:`GAT`
load torch on first use.

- :mod:`~alice_lab.graphs.matrices`: adjacency, degree, Laplacian, normalisations;
- :mod:`~alice_lab.graphs.diffusion`: diffusion, Dirichlet energy, manifold regulariser;
- :mod:`~alice_lab.graphs.layers`: GC, GAT and GATv2 layers;
- :mod:`~alice_lab.graphs.message_passing`: segment sums, MPNN, edge-list GAT;
- :mod:`~alice_lab.graphs.graph_transformer`: random-walk encodings, graph transformer;
- :mod:`~alice_lab.graphs.datasets`: karate club, SBM, ER/BA, image patches as nodes;
- :mod:`~alice_lab.graphs.models` (torch): ``GCN``, ``GAT``, ``train_node_classifier``.

Book: Chapter 12 (lines 5943-6329).
"""

from __future__ import annotations

from alice_lab._compat import lazy_getattr
from alice_lab.graphs.datasets import (
    barabasi_albert,
    block_diagonal_batch,
    digits_patch_graphs,
    edge_homophily,
    erdos_renyi,
    image_to_patches,
    karate_club,
    patch_grid_adjacency,
    stochastic_block_model,
)
from alice_lab.graphs.diffusion import (
    DENSITY_THRESHOLD,
    density,
    diffusion,
    dirichlet_energy,
    epsilon_graph,
    heat_diffusion,
    manifold_reg_loss,
    stationary_distribution,
)
from alice_lab.graphs.graph_transformer import (
    graph_transformer,
    init_graph_transformer,
    laplacian_pe,
    random_walk_pe,
)
from alice_lab.graphs.layers import (
    gat_attention,
    gat_layer,
    gat_scores,
    gcn_layer,
)
from alice_lab.graphs.matrices import (
    add_self_loops,
    adjacency,
    check_adjacency,
    coo_to_dense,
    degree,
    degree_matrix,
    dense_to_coo,
    incidence_matrix,
    is_sparse,
    is_undirected,
    laplacian,
    normalized_adjacency,
    permute_graph,
    random_walk_matrix,
    to_dense,
)
from alice_lab.graphs.message_passing import (
    gat_layer_edges,
    gcn_message_passing,
    graphconv_layer,
    message_passing,
    scatter_mean,
    scatter_sum,
    segment_max,
    segment_mean,
    segment_softmax,
    segment_sum,
)

_TORCH = ("GAT", "GCN", "masked_accuracy", "train_node_classifier")
#: ``accuracy``, masked_accuracy's old name: warns for one release (not in ``__all__``)
_OLD_NAMES = ("accuracy",)

__all__ = [
    "DENSITY_THRESHOLD", "add_self_loops", "adjacency", "barabasi_albert",
    "block_diagonal_batch", "check_adjacency", "coo_to_dense", "degree",
    "degree_matrix", "dense_to_coo", "density", "diffusion", "digits_patch_graphs",
    "dirichlet_energy", "edge_homophily", "epsilon_graph", "erdos_renyi",
    "gat_attention", "gat_layer", "gat_layer_edges", "gat_scores", "gcn_layer",
    "gcn_message_passing", "graph_transformer", "graphconv_layer", "heat_diffusion",
    "image_to_patches", "incidence_matrix", "init_graph_transformer", "is_sparse",
    "is_undirected", "karate_club", "laplacian", "laplacian_pe",
    "manifold_reg_loss", "message_passing",
    "normalized_adjacency", "patch_grid_adjacency", "permute_graph",
    "random_walk_matrix", "random_walk_pe", "scatter_mean", "scatter_sum",
    "segment_max", "segment_mean", "segment_softmax", "segment_sum",
    "stationary_distribution", "stochastic_block_model", "to_dense",
    *_TORCH,
]  # fmt: skip


__getattr__ = lazy_getattr(__name__, dict.fromkeys(_TORCH + _OLD_NAMES, ".models"))
