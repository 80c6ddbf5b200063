r"""A fully-connected network trained with the engine: the book's MLP of chapter 5.

The model is :math:`\mathbf{H}_1 = \phi(\mathbf{X}\mathbf{W}_1 + \mathbf{b}_1)`, ...,
logits :math:`\mathbf{H}_{l-1}\mathbf{W}_l + \mathbf{b}_l`, with the mean
cross-entropy :math:`\frac1n\sum_i \big(\mathrm{logsumexp}(\mathbf{p}_i) - p_{i,y_i}
\big)` as loss. Everything is written with NumPy operators and the engine's functions,
so the same :func:`mlp_forward` runs on plain arrays (inference), on
:class:`~alice_lab.autodiff.engine.Tensor` parameters (training by reverse mode) and on
:class:`~alice_lab.autodiff.dual.Dual` values (forward mode).

:func:`init_mlp` draws weights like ``torch.nn.Linear`` does by default (uniform in
:math:`\pm 1/\sqrt{c}`), from a seeded NumPy generator, so PyTorch can start from the
very same numbers.

Book: §5.1-5.3 (fully-connected models, lines 2194-2400), §6.4.2 and "From theory to
practice" (line 3238).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from alice_lab import optim
from alice_lab.autodiff import ops
from alice_lab.autodiff.engine import Tensor, no_grad
from alice_lab.backend import check_int

__all__ = [
    "TrainingRun",
    "accuracy",
    "cross_entropy",
    "init_mlp",
    "backprop_step",
    "mlp_forward",
    "mlp_loss",
    "train_mlp",
]

Params = list[tuple[Any, Any]]


def init_mlp(widths: Sequence[int], *, seed: int = 0, dtype=np.float64) -> Params:
    """``[(W_1, b_1), ..., (W_l, b_l)]`` with ``W_k : (c_{k-1}, c_k)``, ``b_k : (c_k)``.

    >>> [(W.shape, b.shape) for W, b in init_mlp([4, 3, 2])]
    [((4, 3), (3,)), ((3, 2), (2,))]
    """
    widths = [int(w) for w in widths]
    if len(widths) < 2 or min(widths) < 1:
        raise ValueError(f"widths must list at least two sizes >= 1; got {widths}")
    rng = np.random.default_rng(seed)
    params = []
    for c_in, c_out in zip(widths[:-1], widths[1:], strict=True):
        bound = 1.0 / np.sqrt(c_in)
        W = rng.uniform(-bound, bound, size=(c_in, c_out)).astype(dtype)
        b = rng.uniform(-bound, bound, size=(c_out,)).astype(dtype)
        params.append((W, b))
    return params


def mlp_forward(params: Params, X: Any, activation: Callable = ops.relu) -> Any:
    """Logits ``(n, c_l)`` for inputs ``X : (n, c_0)``, ``activation`` in between."""
    h = X
    for k, (W, b) in enumerate(params):
        h = h @ W + b  # (n, c_{k-1}) @ (c_{k-1}, c_k) + (c_k) -> (n, c_k)
        if k < len(params) - 1:
            h = activation(h)
    return h


def cross_entropy(logits: Any, labels: np.ndarray) -> Any:
    r"""Mean cross-entropy of integer ``labels : (n)`` under softmax(``logits (n, m)``).

    :math:`\mathrm{logsumexp}(\mathbf{p}_i) - p_{i, y_i}`, averaged: the stable form
    (book §4.3.2), differentiable through the engine's logsumexp and indexing.

    >>> round(float(cross_entropy(np.zeros((2, 4)), np.array([0, 3]))), 6)  # log 4
    1.386294
    """
    labels = np.asarray(labels)
    shape = tuple(logits.shape)
    if len(shape) != 2 or labels.shape != (shape[0],):
        raise ValueError(
            f"cross_entropy needs logits (n, m) and labels (n,); got {shape} and "
            f"{labels.shape}"
        )
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"labels must be integer classes; got dtype {labels.dtype}")
    picked = logits[np.arange(shape[0]), labels]  # (n,): the logit of the true class
    return (ops.logsumexp(logits, axis=-1) - picked).mean()


def mlp_loss(params: Params, X: Any, y: np.ndarray, activation=ops.relu) -> Any:
    return cross_entropy(mlp_forward(params, X, activation), y)


def accuracy(
    params: Params, X: np.ndarray, y: np.ndarray, activation=ops.relu
) -> float:
    """Fraction of rows whose largest logit is the label."""
    logits = mlp_forward(
        [(np.asarray(W), np.asarray(b)) for W, b in params], X, activation
    )
    return float(np.mean(np.argmax(logits, axis=1) == y))


def backprop_step(
    params: Params, X: Any, y: np.ndarray, lr: float, activation=ops.relu
):
    """One step of gradient descent, the gradients by the engine's back-propagation;
    returns ``(new_params, loss)``.

    The parameters become leaves with ``requires_grad=True``, the loss is computed
    and ``backward()`` fills their ``.grad``; the update, outside the graph, is
    :func:`alice_lab.optim.sgd_step`.
    """
    leaves = [
        (Tensor(W, requires_grad=True), Tensor(b, requires_grad=True))
        for W, b in params
    ]
    loss = mlp_loss(leaves, X, y, activation)
    loss.backward()
    with no_grad():
        values = [(W.data, b.data) for W, b in leaves]
        new = optim.sgd_step(values, [(W.grad, b.grad) for W, b in leaves], lr=lr)
    return new, float(loss.data)


@dataclass
class TrainingRun:
    """Parameters after training and the loss of every step."""

    params: Params
    losses: list[float] = field(default_factory=list)


def train_mlp(
    params: Params,
    X: np.ndarray,
    y: np.ndarray,
    *,
    lr: float,
    steps: int,
    batch_size: int | None = None,
    seed: int = 0,
    activation=ops.relu,
) -> TrainingRun:
    """Mini-batch SGD with the engine (full batch when ``batch_size`` is None).

    Batches are drawn from a seeded permutation per epoch, so another framework fed
    :func:`batch_indices` sees the same batches.
    """
    run = TrainingRun([(np.array(W), np.array(b)) for W, b in params])
    for idx in batch_indices(len(X), steps, batch_size, seed):
        run.params, loss = backprop_step(run.params, X[idx], y[idx], lr, activation)
        run.losses.append(loss)
    return run


def batch_indices(n: int, steps: int, batch_size: int | None, seed: int = 0):
    """``steps`` index arrays: consecutive slices of seeded permutations of range(n)."""
    steps = check_int(steps, "steps", low=0)
    if batch_size is None or batch_size >= n:
        return [np.arange(n)] * steps
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    while len(out) < steps:
        perm = rng.permutation(n)
        out += [
            perm[i : i + batch_size] for i in range(0, n - batch_size + 1, batch_size)
        ]
    return out[:steps]
