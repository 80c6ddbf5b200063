r"""Gradient descent and momentum, as chapter 2 writes them, for any array backend.

:func:`gradient_descent` runs steepest descent,
:math:`\mathbf{x}_t = \mathbf{x}_{t-1} - \eta\nabla f(\mathbf{x}_{t-1})`, or with
``momentum=λ > 0`` the book's momentum update

.. math::
    \mathbf{g}_t = -\eta\nabla f(\mathbf{x}_{t-1}) + \lambda\mathbf{g}_{t-1},\qquad
    \mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t,\qquad \mathbf{g}_0 = \mathbf{0}.

It keeps the whole path and the gradient norm at every iterate (the exercise at the end
of the chapter asks to plot both), runs many starting points at once when the gradient
function is vectorised, and stops with a :class:`DivergenceError` instead of filling
the path with ``inf``.

The helpers spell out the rest of §2.3: the closed form of the momentum sum
(:func:`momentum_unrolled`), descent directions (:func:`is_descent_direction`,
:func:`steepest_direction`) and the exact line search on a quadratic
(:func:`exact_line_search_quadratic`), under which consecutive gradients are orthogonal.

Book: §2.3 (lines 882-1100).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_lab.backend import (
    array_namespace,
    as_float_array,
    check_int,
    check_positive,
    device_of,
    to_numpy,
)

__all__ = [
    "DivergenceError",
    "GDResult",
    "exact_line_search_quadratic",
    "gradient_descent",
    "is_descent_direction",
    "momentum_unrolled",
    "steepest_direction",
]

#: an iterate larger than this (in absolute value) counts as diverged
DIVERGENCE_LIMIT = 1e100


class DivergenceError(RuntimeError):
    """Gradient descent produced a non-finite (or astronomically large) iterate or
    gradient, almost always because the step size is too large for the function.

    Attributes: ``step`` (the iteration that failed) and ``last_x`` (the last iterate
    whose value and gradient were finite, as a NumPy array).
    """

    def __init__(self, message: str, *, step: int, last_x: np.ndarray):
        super().__init__(message)
        self.step = step
        self.last_x = last_x


@dataclass(frozen=True)
class GDResult:
    """What :func:`gradient_descent` returns; arrays are in the namespace of ``x0``.

    Attributes
    ----------
    x : array, shape of ``x0``
        The final iterate :math:`\\mathbf{x}_T`.
    path : (T + 1, *x0.shape) array
        :math:`\\mathbf{x}_0, \\dots, \\mathbf{x}_T`.
    grad_norms : (T + 1, *x0.shape[:-1]) array
        :math:`\\lVert\\nabla f(\\mathbf{x}_t)\\rVert` over the last axis, for t = 0..T
        (the absolute value of the derivative when ``x0`` is a scalar).
    steps_taken : int
        T, the number of updates made (fewer than ``steps`` when ``tol`` was reached).
    converged : bool
        True when ``tol`` was given and every gradient norm fell below it.
    """

    x: Any
    path: Any
    grad_norms: Any
    steps_taken: int
    converged: bool


# --- checks --------------------------------------------------------------------------


def _check_hyper(lr: Any, momentum: Any, steps: Any, tol: Any) -> tuple:
    lr = check_positive(lr, "lr")
    try:
        lam = float(momentum)
    except (TypeError, ValueError):
        raise ValueError(
            f"momentum must be a number in [0, 1); got {momentum!r}"
        ) from None
    if not 0.0 <= lam < 1.0:
        raise ValueError(f"momentum must lie in [0, 1); got {momentum!r}")
    steps = check_int(steps, "steps", low=0)
    if tol is not None:
        tol = check_positive(tol, "tol")
    return lr, lam, steps, tol


def _norms(g: Any, xp: Any) -> Any:
    """Gradient norms over the last axis (absolute value for a 0-d gradient)."""
    if g.ndim == 0:
        return xp.abs(g)
    return xp.linalg.vector_norm(g, axis=-1)


def _first_grad(grad_fn: Callable, x: Any, xp: Any) -> Any:
    g = grad_fn(x)
    if not hasattr(g, "shape"):
        raise ValueError(
            f"grad_fn must return an array shaped like x {tuple(x.shape)}; "
            f"got {type(g)}"
        )
    if tuple(g.shape) != tuple(x.shape):
        raise ValueError(
            f"grad_fn returned shape {tuple(g.shape)} for x of shape {tuple(x.shape)}; "
            "the gradient must have the shape of x"
        )
    if array_namespace(g) is not xp:
        raise ValueError(
            "grad_fn must return an array of the same library as x0; got "
            f"{type(g).__module__}.{type(g).__name__} for {type(x).__module__}."
            f"{type(x).__name__}"
        )
    if not bool(xp.all(xp.isfinite(g))):
        raise ValueError("grad_fn returned NaN or inf at the starting point x0")
    return g


def _divergence(bad: Any, what: str, x_last: Any, step: int, lr: float, xp: Any):
    """A DivergenceError when the boolean array ``bad`` has a True entry, else None."""
    if not bool(xp.any(bad)):
        return None
    last = to_numpy(x_last)
    shown = np.array2string(last, precision=6, threshold=12)
    return DivergenceError(
        f"gradient descent diverged at step {step}: {what}. Last finite iterate "
        f"x_{step - 1} = {shown}. The step size lr={lr:g} is probably too large for "
        "this function: lower lr (and/or momentum).",
        step=step,
        last_x=last,
    )


# --- the optimiser -------------------------------------------------------------------


def gradient_descent(
    grad_fn: Callable[[Any], Any],
    x0: Any,
    *,
    lr: float,
    momentum: float = 0.0,
    steps: int,
    tol: float | None = None,
    progress: bool = False,
) -> GDResult:
    r"""Steepest gradient descent, with the book's momentum when ``momentum > 0``.

    With ``momentum = 0`` this is exactly
    :math:`\mathbf{x}_t = \mathbf{x}_{t-1} - \eta\nabla f(\mathbf{x}_{t-1})`;
    otherwise :math:`\mathbf{g}_t = -\eta\nabla f(\mathbf{x}_{t-1}) + \lambda
    \mathbf{g}_{t-1}`, :math:`\mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t`,
    :math:`\mathbf{g}_0 = \mathbf{0}`. The step size is constant.

    Parameters
    ----------
    grad_fn : callable, ``x -> ∇f(x)`` of the same shape and array library as ``x``.
        For several starting points it must be vectorised over the leading axis.
    x0 : (d,) array, or (k, d) for k independent starts (a 0-d array for a scalar
        function of one variable). NumPy, torch or JAX; lists become NumPy float64.
    lr : float > 0, the step size :math:`\eta`.
    momentum : float in [0, 1), :math:`\lambda`.
    steps : int >= 0, the maximum number of updates.
    tol : float > 0, optional. Stop as soon as every start has
        :math:`\lVert\nabla f(\mathbf{x}_t)\rVert < \mathrm{tol}`.
    progress : bool, show a ``tqdm`` progress bar.

    Returns
    -------
    GDResult with ``x``, ``path (T+1, *x0.shape)``,
    ``grad_norms (T+1, *x0.shape[:-1])``, ``steps_taken`` (T) and ``converged``.

    Raises
    ------
    ValueError for bad hyper-parameters, a non-finite ``x0`` or a ``grad_fn`` whose
    output does not match ``x0`` (checked on the first call); DivergenceError when an
    iterate or gradient stops being finite.

    Book: §2.3, eq. ``gradient_descent`` (lines 948-962); §2.3.2, momentum
    (lines 1066-1078).

    >>> import numpy as np
    >>> from alice_lab.testfuncs import dquad_1d
    >>> res = gradient_descent(dquad_1d, np.array([2.0]), lr=0.25, steps=3)
    >>> res.path[:, 0].tolist(), res.steps_taken
    ([2.0, 1.375, 1.0625, 0.90625], 3)
    """
    lr, lam, steps, tol = _check_hyper(lr, momentum, steps, tol)
    x = as_float_array(x0, "x0")
    xp = array_namespace(x)
    if not bool(xp.all(xp.isfinite(x))):
        raise ValueError("x0 contains NaN or inf; every starting point must be finite")
    grad = _first_grad(grad_fn, x, xp)
    g = None  # the momentum buffer g_t; g_0 = 0 is implicit
    path, norms = [x], [_norms(grad, xp)]

    iterator = range(1, steps + 1)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="gradient descent", leave=False)
    converged = tol is not None and bool(xp.all(norms[-1] < tol))
    taken = 0
    for t in iterator:
        if converged:
            break
        if lam == 0.0:
            x_new = x - lr * grad  # steepest descent, eq. gradient_descent
        else:
            g = -(lr * grad) if g is None else -(lr * grad) + lam * g
            x_new = x + g
        bad = ~xp.isfinite(x_new) | (xp.abs(x_new) > DIVERGENCE_LIMIT)
        error = _divergence(
            bad,
            f"the iterate became non-finite or exceeded "
            f"{DIVERGENCE_LIMIT:g} in absolute value",
            x,
            t,
            lr,
            xp,
        )
        if error is None:
            grad = grad_fn(x_new)
            error = _divergence(
                ~xp.isfinite(grad), "the gradient became non-finite", x, t, lr, xp
            )
        if error is not None:
            if progress:
                iterator.close()
            raise error
        x, taken = x_new, t
        path.append(x)
        norms.append(_norms(grad, xp))
        if tol is not None:
            converged = bool(xp.all(norms[-1] < tol))
    if progress:
        iterator.close()
    return GDResult(
        x=x,
        path=xp.stack(path, axis=0),
        grad_norms=xp.stack(norms, axis=0),
        steps_taken=taken,
        converged=converged,
    )


# --- closed forms and directions -----------------------------------------------------


def momentum_unrolled(grads: Any, lr: float, momentum: float) -> Any:
    r"""The momentum steps in closed form, from the gradients along a path.

    Unrolling the recursion with :math:`\mathbf{g}_0 = \mathbf{0}` and a constant step
    size gives :math:`\mathbf{g}_t = -\eta\sum_{n=1}^{t}\lambda^{n-1}
    \nabla f(\mathbf{x}_{t-n})`: the gradient from n steps back is damped by
    :math:`\lambda^{n-1}`.

    Parameters
    ----------
    grads : (T, ...) array, ``grads[s]`` = :math:`\nabla f(\mathbf{x}_s)`, s = 0..T-1.
    lr : float, :math:`\eta`.
    momentum : float, :math:`\lambda`.

    Returns
    -------
    (T, ...) array whose row t-1 is :math:`\mathbf{g}_t`, t = 1..T.

    Book: §2.3.2, unrolling (lines 1080-1098).

    >>> import numpy as np
    >>> momentum_unrolled(np.ones((3, 1)), lr=1.0, momentum=0.5)[:, 0].tolist()
    [-1.0, -1.5, -1.75]
    """
    xp = array_namespace(grads)
    if grads.ndim < 1:
        raise ValueError("grads must have a leading time axis (T, ...); got 0-d")
    T = grads.shape[0]
    idx = xp.arange(T, device=device_of(grads))
    lag = idx[:, None] - idx[None, :]  # (T, T): t - s, the age of gradient s at step t
    causal = lag >= 0
    lag = xp.astype(xp.where(causal, lag, xp.zeros_like(lag)), grads.dtype)
    weights = xp.where(causal, float(momentum) ** lag, xp.zeros_like(lag))  # λ^(n-1)
    flat = xp.reshape(grads, (T, -1))
    return -float(lr) * xp.reshape(weights @ flat, grads.shape)  # (T, T) @ (T, m)


def exact_line_search_quadratic(A: Any, b: Any, x: Any) -> Any:
    r"""The best step size along :math:`-\nabla f` for
    :math:`f(\mathbf{x}) = \tfrac12\mathbf{x}^\top\mathbf{A}\mathbf{x}
    - \mathbf{b}^\top\mathbf{x}` with a symmetric positive definite :math:`\mathbf{A}`.

    With :math:`\mathbf{g} = \mathbf{A}\mathbf{x} - \mathbf{b}`, minimising
    :math:`f(\mathbf{x} - \eta\mathbf{g})` over :math:`\eta` gives
    :math:`\eta^* = \mathbf{g}^\top\mathbf{g} / \mathbf{g}^\top\mathbf{A}\mathbf{g}`;
    with this "perfect" step, consecutive gradients are orthogonal (book line 1064).
    Returns 0 where the gradient is already zero.

    Parameters
    ----------
    A : (d, d) array, b : (d,) array, x : (d,) or (k, d) array.

    Returns
    -------
    () or (k,) array, :math:`\eta^*` per point.

    Book: §2.3.2, the remark on orthogonal gradients (line 1064).

    >>> import numpy as np
    >>> float(exact_line_search_quadratic(np.diag([1.0, 3.0]), np.zeros(2), np.ones(2)))
    0.35714285714285715
    """
    xp = array_namespace(A, b, x)
    d = b.shape[-1] if b.ndim == 1 else None
    if A.ndim != 2 or A.shape[0] != A.shape[1] or d != A.shape[0] or x.shape[-1] != d:
        raise ValueError(
            "expected A (d, d), b (d,) and x (d,) or (k, d); got A "
            f"{tuple(A.shape)}, b {tuple(b.shape)}, x {tuple(x.shape)}"
        )
    g = x @ A.T - b  # (k, d): rows are A x - b
    gg = xp.sum(g * g, axis=-1)
    gAg = xp.sum((g @ A.T) * g, axis=-1)
    safe = xp.where(gAg > 0, gAg, xp.ones_like(gAg))
    return xp.where(gAg > 0, gg / safe, xp.zeros_like(gg))


def is_descent_direction(g: Any, p: Any) -> Any:
    r"""Whether moving along ``p`` decreases f for a small enough step, given the
    gradient ``g``: the directional derivative
    :math:`\langle\mathbf{g},\mathbf{p}\rangle` is negative (the angle between them
    lies strictly between π/2 and 3π/2).

    The book writes the condition as :math:`\le 0` (line 926), which every descent
    direction satisfies; a zero directional derivative does not guarantee a decrease,
    so this test is strict.

    Parameters
    ----------
    g, p : (d,) or (k, d) arrays.

    Returns
    -------
    () or (k,) boolean array.

    Book: §2.3, descent directions (lines 918-944).

    >>> import numpy as np
    >>> bool(is_descent_direction(np.array([1.0, 0.0]), np.array([-1.0, 5.0])))
    True
    """
    xp = array_namespace(g, p)
    if tuple(g.shape) != tuple(p.shape) or g.ndim == 0:
        raise ValueError(
            f"g and p must have the same shape (d,) or (k, d); got "
            f"{tuple(g.shape)} and {tuple(p.shape)}"
        )
    return xp.sum(g * p, axis=-1) < 0


def steepest_direction(g: Any) -> Any:
    r"""The unit steepest-descent direction :math:`-\mathbf{g}/\lVert\mathbf{g}\rVert`
    (zero where the gradient is zero: there is no descent direction there).

    Parameters
    ----------
    g : (d,) or (k, d) array.

    Returns
    -------
    array shaped like ``g``.

    Book: §2.3, the steepest descent direction (line 944).

    >>> import numpy as np
    >>> steepest_direction(np.array([3.0, 4.0])).tolist()
    [-0.6, -0.8]
    """
    xp = array_namespace(g)
    if g.ndim == 0:
        raise ValueError("g must have shape (d,) or (k, d); got a 0-d array")
    norm = xp.linalg.vector_norm(g, axis=-1, keepdims=True)
    safe = xp.where(norm > 0, norm, xp.ones_like(norm))
    return xp.where(norm > 0, -g / safe, xp.zeros_like(g))


# =====================================================================================
# Stochastic optimisation (chapter 5): mini-batch SGD over epochs, and data parallelism.
# Book: §5.3, eq. E.5.8 and Figures F.5.2-F.5.3 (lines 2342-2412).
# =====================================================================================

__all__ += [
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
