r"""PyTorch models for semi-supervised node classification: a GCN and a GAT/GATv2.

Imported on first use (``alice_lab.graphs.GCN``), so ``import alice_lab`` stays free of
torch. The adjacency is a *buffer*, not a parameter: it is the fixed graph, while the
weights are trained (line 6125, where the book says "the former" for "the latter").

Semi-supervised training (line 6167): the loss is the cross-entropy on the labelled
nodes only, yet every node's features reach it through the diffusion.

Book: §12.2.3 (lines 6135-6189), §12.3.1 (lines 6235-6253).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from alice_lab._compat import renamed
from alice_lab.backend import check_int, to_numpy
from alice_lab.graphs.layers import gat_layer, gcn_layer
from alice_lab.graphs.matrices import normalized_adjacency

__all__ = ["GAT", "GCN", "masked_accuracy", "train_node_classifier"]


def _as_tensor(A: Any, dtype=torch.float32) -> torch.Tensor:
    if hasattr(A, "toarray"):
        A = A.toarray()
    return torch.as_tensor(np.asarray(A), dtype=dtype)


class GCN(nn.Module):
    r"""A stack of GC layers (E.12.5): :math:`\mathbf{H}_{k+1} = \mathrm{ReLU}(\hat{
    \mathbf{A}}(\mathbf{H}_k\mathbf{W}_k + \mathbf{b}_k))`, no ReLU on the last, with
    :math:`\hat{\mathbf{A}} = \mathbf{D}^{-1/2}(\mathbf{A}+\mathbf{I})\mathbf{D}^{-1/2}`
    stored as a buffer. ``sizes = [c, hidden, ..., classes]``; forward(X (n, c)) ->
    logits (n, classes). Parameters: Σ (c_k c_{k+1} + c_{k+1}), independent of n."""

    def __init__(
        self, A: Any, sizes: list[int], *, dropout: float = 0.0, normalize=True
    ):
        super().__init__()
        A_hat = (
            normalized_adjacency(np.asarray(_as_tensor(A, torch.float64)))
            if normalize
            else A
        )
        self.register_buffer("A", _as_tensor(A_hat))
        self.lins = nn.ModuleList(
            nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        H = X
        for k, lin in enumerate(self.lins):
            H = gcn_layer(self.A, self.dropout(H), lin.weight.T, lin.bias)
            if k < len(self.lins) - 1:
                H = torch.relu(H)
        return H


class GAT(nn.Module):
    r"""A stack of single-head graph attention layers (``version=1``: GAT, ``2``:
    GATv2), ELU between layers, self-loops added. ``sizes = [c, hidden, ..., classes]``;
    the attention width h equals each layer's output width."""

    def __init__(self, A: Any, sizes: list[int], *, version: int = 1, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.register_buffer("A", _as_tensor(A))
        self.version = version
        self.W, self.V, self.a = (
            nn.ParameterList(),
            nn.ParameterList(),
            nn.ParameterList(),
        )
        for c, o in zip(sizes[:-1], sizes[1:], strict=True):
            rows = c if version == 1 else 2 * c
            self.W.append(nn.Parameter(torch.randn(c, o, generator=g) / c**0.5))
            self.V.append(nn.Parameter(torch.randn(rows, o, generator=g) / rows**0.5))
            k = 2 * o if version == 1 else o
            self.a.append(nn.Parameter(torch.randn(k, generator=g) / k**0.5))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        H = X
        for k in range(len(self.W)):
            H = gat_layer(
                self.A, H, self.W[k], self.V[k], self.a[k], version=self.version
            )
            if k < len(self.W) - 1:
                H = torch.nn.functional.elu(H)
        return H


def masked_accuracy(logits: torch.Tensor, y: Any, mask: Any = None) -> float:
    """Fraction of the nodes in ``mask`` (all of them when None) whose argmax logit
    equals the label: the score of semi-supervised node classification, on the
    unlabelled nodes."""
    pred = to_numpy(logits.argmax(1))
    y = np.asarray(y)
    m = np.ones(len(y), bool) if mask is None else np.asarray(mask, bool)
    return float(np.mean(pred[m] == y[m]))


#: the name before ``masked_accuracy``, for one release (chapter 12's notebook)
accuracy = renamed(
    "alice_lab.graphs.accuracy",
    masked_accuracy,
    "alice_lab.graphs.masked_accuracy",
    "alice_lab.autodiff.mlp.accuracy is an MLP's, from its parameters",
)


def train_node_classifier(
    model: nn.Module,
    X: Any,
    y: Any,
    train_mask: Any,
    *,
    epochs: int = 200,
    lr: float = 0.01,
    weight_decay: float = 5e-4,
    seed: int = 0,
) -> dict:
    """Full-batch Adam on the masked cross-entropy (line 6167). Returns
    ``{"loss": [...], "logits": final logits (n, k) tensor}``."""
    torch.manual_seed(seed)
    X = _as_tensor(X)
    yt = torch.as_tensor(np.asarray(y), dtype=torch.long)
    m = torch.as_tensor(np.asarray(train_mask, dtype=bool))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    losses = []
    model.train()
    for _ in range(check_int(epochs, "epochs", low=0)):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X)[m], yt[m])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(X)
    return {"loss": losses, "logits": logits}
