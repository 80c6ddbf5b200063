r"""Stochastic optimisation (chapter 5): mini-batch SGD over epochs (:func:`sgd`,
:func:`sgd_step`), the number of iterations an epoch makes, tree helpers for
parameters held in nests of dicts and lists, and data parallelism
(:func:`average_gradients`, :func:`data_parallel_grad`).

Book: §5.3, eq. E.5.8 and Figures F.5.2-F.5.3 (lines 2342-2412).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import (
    check_int,
    check_positive,
    to_numpy,
)
from alice_lab.optim.descent import DivergenceError, _check_hyper

__all__ = [
    "SGDResult",
    "average_gradients",
    "data_parallel_grad",
    "iterations",
    "sgd",
    "sgd_step",
    "tree_leaves",
    "tree_map",
]


def tree_map(fn: Callable, tree: Any, *rest: Any) -> Any:
    """Apply ``fn`` leaf by leaf to nests of dicts, lists and tuples of arrays (the
    parameters of a model), with ``rest`` holding nests of the same structure.

    >>> tree_map(lambda p, g: p - g, {"W": 3.0, "b": [1.0]}, {"W": 1.0, "b": [1.0]})
    {'W': 2.0, 'b': [0.0]}
    """
    if isinstance(tree, dict):
        for r in rest:
            if not isinstance(r, dict) or set(r) != set(tree):
                raise ValueError(
                    f"trees differ: keys {sorted(tree)} vs "
                    f"{sorted(r) if isinstance(r, dict) else type(r).__name__}"
                )
        return {k: tree_map(fn, tree[k], *(r[k] for r in rest)) for k in tree}
    if isinstance(tree, (list, tuple)):
        for r in rest:
            if not isinstance(r, (list, tuple)) or len(r) != len(tree):
                raise ValueError(
                    f"trees differ: a sequence of {len(tree)} vs "
                    f"{len(r) if isinstance(r, (list, tuple)) else type(r).__name__}"
                )
        return type(tree)(
            tree_map(fn, *items) for items in zip(tree, *rest, strict=True)
        )
    return fn(tree, *rest)


def tree_leaves(tree: Any) -> list:
    """The arrays of a nest of dicts, lists and tuples, in a fixed order.

    >>> tree_leaves([{"W": 1, "b": 2}, {"W": 3, "b": 4}])
    [1, 2, 3, 4]
    """
    if isinstance(tree, dict):
        return [leaf for k in tree for leaf in tree_leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in tree_leaves(item)]
    return [tree]


def iterations(n: int, batch_size: int, epochs: int, *, drop_last: bool = False) -> int:
    """The number of SGD steps of ``epochs`` passes over ``n`` examples: ``b = n / r``
    mini-batches per epoch (rounded up, or down with ``drop_last``).

    Book: §5.3, 1000 elements in mini-batches of 20 for 5 epochs: 250 iterations
    (line 2396).

    >>> iterations(1000, 20, 5)
    250
    """
    n, r = check_int(n, "n", low=0), check_int(batch_size, "batch_size")
    e = check_int(epochs, "epochs", low=0)
    return e * (n // r if drop_last else -(-n // r))


def sgd_step(params: Any, grads: Any, *, lr: float) -> Any:
    r"""One plain update :math:`\theta \leftarrow \theta - \eta\,\mathbf{g}`, leaf by
    leaf (new arrays, nothing updated in place).

    >>> sgd_step({"w": np.array([1.0])}, {"w": np.array([2.0])}, lr=0.5)["w"].tolist()
    [0.0]
    """
    lr = check_positive(lr, "lr")
    return tree_map(lambda p, g: p - lr * g, params, grads)


@dataclass(frozen=True)
class SGDResult:
    """What :func:`sgd` returns.

    Attributes
    ----------
    params : the final parameters (same structure and array library as the start).
    losses : (T,) NumPy array, the mini-batch loss :math:`\\widetilde{L}_t` of every
        iteration (computed before that iteration's update).
    epoch_losses : (epochs,) NumPy array, the mean mini-batch loss of each epoch.
    steps : int, T, the number of updates.
    """

    params: Any
    losses: np.ndarray
    epoch_losses: np.ndarray
    steps: int


def sgd(
    value_and_grad: Callable[[Any, Any, Any], tuple[Any, Any]],
    params: Any,
    X: Any,
    y: Any,
    *,
    lr: float,
    batch_size: int,
    epochs: int,
    seed: int | None,
    drop_last: bool = False,
    momentum: float = 0.0,
    progress: bool = False,
    callback: Callable[[int, Any, float], None] | None = None,
) -> SGDResult:
    r"""Mini-batch stochastic gradient descent, the book's way: shuffle, slice the data
    into consecutive mini-batches of r examples, take one gradient step per
    mini-batch, and start again with a new shuffle at every epoch.

    The loss of a mini-batch :math:`\mathcal{B}_t` (eq. E.5.8) is
    :math:`\widetilde{L}_t = \frac{1}{r}\sum_{i \in \mathcal{B}_t} l(y_i, f(x_i))`, an
    unbiased estimate of the full loss; ``value_and_grad`` computes it and its
    gradient. Epoch ``e`` (0-based) is shuffled by
    ``alice_lab.data.batches(X, y, batch_size, seed=seed + e, drop_last=drop_last)``
    (``seed=None``: no shuffling).

    Parameters
    ----------
    value_and_grad : ``(params, X_b, y_b) -> (loss, grads)``, ``grads`` shaped like
        ``params`` (e.g. :func:`alice_lab.layers.mlp_value_and_grad`, or
        ``jax.value_and_grad(loss)``).
    params : a nest of dicts/lists of arrays (NumPy, torch or JAX).
    X : (n, c) array; y : (n,) array, same library as ``params``.
    lr : float > 0, :math:`\eta`. momentum : float in [0, 1), the book's momentum.
    batch_size : int, r. epochs : int >= 0. seed : int or None.
    drop_last : skip the last, smaller mini-batch of each epoch.
    callback : called as ``callback(step, params, loss)`` after every update.

    Returns
    -------
    SGDResult with ``params``, ``losses (T,)``, ``epoch_losses (epochs,)``, ``steps``.

    Book: §5.3, eq. E.5.8 and the three-step recipe (lines 2342-2362).

    >>> from alice_lab.layers import mlp_init, mlp_value_and_grad
    >>> X, y = np.eye(4), np.array([0, 1, 0, 1])
    >>> res = sgd(mlp_value_and_grad, mlp_init([4, 2], seed=0), X, y, lr=0.1,
    ...           batch_size=2, epochs=3, seed=0)
    >>> res.steps, res.losses.shape
    (6, (6,))
    """
    from alice_lab.data import batches

    lr, lam, _, _ = _check_hyper(lr, momentum, 0, None)
    epochs = check_int(epochs, "epochs", low=0)
    velocity = None
    losses, epoch_losses, step = [], [], 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, desc="SGD epochs", leave=False)
    for epoch in range(epochs):
        epoch_seed = None if seed is None else seed + epoch
        first = len(losses)
        for Xb, yb in batches(X, y, batch_size, seed=epoch_seed, drop_last=drop_last):
            value, grads = value_and_grad(params, Xb, yb)
            if lam == 0.0:
                params = tree_map(lambda p, g: p - lr * g, params, grads)
            else:
                velocity = (
                    tree_map(lambda g: -lr * g, grads)
                    if velocity is None
                    else tree_map(lambda v, g: -lr * g + lam * v, velocity, grads)
                )
                params = tree_map(lambda p, v: p + v, params, velocity)
            value = float(to_numpy(value))
            if not math.isfinite(value):
                raise DivergenceError(
                    f"SGD diverged at step {step + 1} (epoch {epoch + 1}): the "
                    f"mini-batch loss is {value}. Lower lr={lr:g}.",
                    step=step + 1,
                    last_x=np.asarray([]),
                )
            losses.append(value)
            step += 1
            if callback is not None:
                callback(step, params, value)
        epoch_losses.append(
            float(np.mean(losses[first:])) if losses[first:] else np.nan
        )
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return SGDResult(params, np.asarray(losses), np.asarray(epoch_losses), step)


def average_gradients(grads: list[Any], weights: list[float] | None = None):
    r"""The weighted average :math:`\sum_k w_k\,\mathbf{g}_k / \sum_k w_k` of several
    gradients of the same structure (equal weights by default): what the devices of a
    data-parallel run agree on before they all take the same step.

    >>> g1, g2 = {"w": np.array([1.0])}, {"w": np.array([3.0])}
    >>> average_gradients([g1, g2])["w"].tolist()
    [2.0]
    """
    grads = list(grads)
    if not grads:
        raise ValueError("average_gradients needs at least one gradient")
    w = [1.0] * len(grads) if weights is None else [float(v) for v in weights]
    if len(w) != len(grads) or any(v < 0 for v in w) or sum(w) <= 0:
        raise ValueError(
            f"weights must be {len(grads)} non-negative numbers with a positive sum; "
            f"got {weights!r}"
        )
    total = sum(w)
    return tree_map(
        lambda *gs: sum((wk / total) * g for wk, g in zip(w, gs, strict=True)), *grads
    )


def data_parallel_grad(
    value_and_grad: Callable[[Any, Any, Any], tuple[Any, Any]],
    params: Any,
    shards: list[tuple[Any, Any]],
) -> tuple[Any, Any]:
    r"""Data parallelism simulated on one device: every "device" k holds a copy of the
    parameters and one shard :math:`(\mathbf{X}_k, \mathbf{y}_k)` of the mini-batch,
    computes its mean loss and gradient, and the gradients are averaged with weights
    :math:`r_k / r` (the shard sizes). Because the gradient is linear, this equals the
    gradient of the mean loss on the concatenated mini-batch, for shards of any size.

    Parameters
    ----------
    value_and_grad : ``(params, X_k, y_k) -> (loss, grads)`` with a mean-reduced loss.
    shards : a list of ``(X_k (r_k, c), y_k (r_k,))``.

    Returns
    -------
    ``(loss, grads)`` of the whole mini-batch.

    Book: §5.3, Figure F.5.3 and data parallelism (lines 2398-2412).

    >>> def vg(w, X, y):  # mean squared error of a linear model and its gradient
    ...     return float(np.mean((X @ w - y) ** 2)), 2 * X.T @ (X @ w - y) / len(y)
    >>> X, y = np.arange(6.0).reshape(3, 2), np.ones(3)
    >>> _, g = data_parallel_grad(vg, np.zeros(2), [(X[:1], y[:1]), (X[1:], y[1:])])
    >>> np.allclose(g, vg(np.zeros(2), X, y)[1])
    True
    """
    shards = list(shards)
    if not shards:
        raise ValueError("data_parallel_grad needs at least one shard")
    sizes = [int(Xk.shape[0]) for Xk, _ in shards]
    if min(sizes) < 1:
        raise ValueError(f"every shard needs at least one example; sizes {sizes}")
    out = [value_and_grad(params, Xk, yk) for Xk, yk in shards]
    values, grads = [v for v, _ in out], [g for _, g in out]
    loss = sum(r * float(to_numpy(v)) for r, v in zip(sizes, values, strict=True))
    loss = loss / sum(sizes)
    return loss, average_gradients(grads, sizes)
