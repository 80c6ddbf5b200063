r"""Regularization: weight penalties, early stopping, dropout.

* **Weight penalties** (§9.2.1): :math:`L_{reg} = L + \lambda R(w)` with
  :math:`R = \lVert w\rVert^2` (gradient :math:`\nabla L + 2\lambda w`) or
  :math:`\lVert w\rVert_1`. For plain gradient descent the ℓ2 term *is* weight decay:
  one step multiplies :math:`w` by :math:`1 - 2\eta\lambda` before the loss step. With
  an adaptive optimizer they differ: :func:`alice_lab.optim.adam` puts the penalty in
  the gradient (then Adam rescales it) or, with ``decoupled=True``, shrinks the weights
  directly (AdamW, the book's :math:`w_t = w_{t-1} - g(\nabla L) - \lambda w_{t-1}`
  with the learning rate folded into λ). PyTorch's ``weight_decay=wd`` is the book's
  ``λ = wd / 2``.
* **Early stopping** (§9.2.2): :class:`EarlyStopping` with the usual patience rule
  ("no improvement on the best score for k epochs", which is what the rollback to epoch
  t - k assumes) or the book's printed rule, and rollback to the best weights.
* **Augmentation** (§9.2.3) lives in :mod:`alice_lab.augmentation`.
* **Dropout** (§9.3.1) with explicit ``keep_prob`` / ``drop_prob`` (the book's ``p`` is
  the *keep* probability, ``torch.nn.Dropout(p)`` takes the *drop* probability),
  inverted by default (divide by ``keep_prob`` in training, identity at inference, so
  the expectation is preserved), Monte Carlo dropout, the exact expectation over every
  mask of a tiny network, spatial dropout and DropConnect. ``DropoutModule`` is the
  ``torch.nn.Module`` version (lazy import).

Random numbers are drawn on the host from ``numpy.random.default_rng(seed)`` and moved
to the caller's array library, so every backend sees the same masks.
Every random function takes ``rng``: an int seed (the same draws on every call) or
a ``numpy.random.Generator`` (fresh draws on every call, as a training loop needs).

Book: §9.2 (lines 4343-4497) and §9.3.1 (lines 4505-4667).
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab._compat import lazy_getattr, renamed
from alice_lab.backend import array_namespace, check_int, device_of
from alice_lab.optim.adaptive import adam as _adam

__all__ = [
    "EarlyStopping",
    "decoupled_decay_step",
    "dropconnect_linear",
    "dropout",
    "dropout_mask",
    "early_stopping_epoch",
    "exact_dropout_expectation",
    "has_converged",
    "l1_penalty",
    "l2_grad",
    "l2_penalty",
    "mc_dropout_predict",
    "project_l1_ball",
    "project_l2_ball",
    "sgd_l2_step",
    "soft_threshold",
    "spatial_dropout",
]


def _like(host: np.ndarray, x: Any) -> Any:
    """A host array moved to the library, dtype and device of ``x``."""
    xp = array_namespace(x)
    return xp.asarray(host.astype(np.float64), dtype=x.dtype, device=device_of(x))


# --- §9.2.1 weight regularization -----------------------------------------------------


def l2_penalty(w: Any) -> Any:
    r""":math:`R(w) = \lVert w\rVert^2 = \sum_i w_i^2` (line 4359).

    >>> l2_penalty(np.array([3.0, 4.0])).item()
    25.0
    """
    xp = array_namespace(w)
    return xp.sum(w * w)


def l2_grad(grad: Any, w: Any, lam: float) -> Any:
    r"""Gradient of the ℓ2-regularized loss, :math:`\nabla L + 2\lambda w` (line
    4363)."""
    if tuple(grad.shape) != tuple(w.shape):
        raise ValueError(
            f"grad and w must have the same shape; got {tuple(grad.shape)} "
            f"and {tuple(w.shape)}"
        )
    return grad + 2.0 * lam * w


def l1_penalty(w: Any) -> Any:
    r""":math:`R(w) = \lVert w\rVert_1 = \sum_i |w_i|` (line 4373; the book writes
    :math:`x_i`, an erratum).

    >>> l1_penalty(np.array([3.0, -4.0])).item()
    7.0
    """
    xp = array_namespace(w)
    return xp.sum(xp.abs(w))


def soft_threshold(w: Any, t: float) -> Any:
    """The proximal map of ``t * ||w||_1``: ``sign(w) * max(|w| - t, 0)`` (exact zeros).

    >>> soft_threshold(np.array([3.0, -0.5]), 1.0).tolist()
    [2.0, -0.0]
    """
    xp = array_namespace(w)
    return xp.sign(w) * xp.maximum(xp.abs(w) - t, xp.zeros_like(w))


def sgd_l2_step(w: Any, grad: Any, *, lr: float, lam: float) -> Any:
    r"""One gradient step on :math:`L + \lambda\lVert w\rVert^2`:
    :math:`w - \eta(\nabla L + 2\lambda w) = (1 - 2\eta\lambda)w - \eta\nabla L`."""
    return w - lr * l2_grad(grad, w, lam)


def decoupled_decay_step(w: Any, update: Any, *, lam: float) -> Any:
    r"""The book's generalized weight decay, :math:`w_t = w_{t-1} - g(\nabla L) -
    \lambda w_{t-1}`, with ``update`` = :math:`g(\nabla L)` already computed by the
    optimizer (lines 4365-4369)."""
    return w - update - lam * w


#: :func:`alice_lab.optim.adam` under its old address, for one release (chapter 9's
#: notebook): warns
adam = renamed(
    "alice_lab.regularization.adam", _adam, "alice_lab.optim.adam", "an optimiser"
)


def project_l2_ball(w: np.ndarray, mu: float) -> np.ndarray:
    """Euclidean projection of ``w (p,)`` onto the ball ``||w||_2 <= mu`` (E.9.3)."""
    w = np.asarray(w, dtype=float)
    norm = np.linalg.norm(w)
    return w if norm <= mu else w * (mu / norm)


def project_l1_ball(w: np.ndarray, mu: float) -> np.ndarray:
    """Euclidean projection of ``w (p,)`` onto ``||w||_1 <= mu`` (Duchi et al., 2008:
    sort, find the threshold, soft-threshold); its corners lie on the axes, so the
    projection has exact zeros. Book: E.9.3 (lines 4381-4385)."""
    w = np.asarray(w, dtype=float)
    if mu <= 0:
        raise ValueError(f"mu must be positive; got {mu}")
    if np.abs(w).sum() <= mu:
        return w.copy()
    u = np.sort(np.abs(w))[::-1]
    css = np.cumsum(u)
    k = np.arange(1, len(u) + 1)
    rho = np.nonzero(u * k > css - mu)[0][-1]
    theta = (css[rho] - mu) / (rho + 1.0)
    return np.sign(w) * np.maximum(np.abs(w) - theta, 0.0)


# --- §9.2.2 early stopping ------------------------------------------------------------


def has_converged(losses: Sequence[float], eps: float) -> bool:
    r"""The book's stopping test :math:`(L(w_t) - L(w_{t-1}))^2 \le \varepsilon` on the
    last two losses (line 4391).

    >>> has_converged([2.0, 1.0, 1.0 + 1e-6], 1e-10)
    True
    """
    if len(losses) < 2:
        return False
    return (float(losses[-1]) - float(losses[-2])) ** 2 <= eps


class EarlyStopping:
    """Early stopping on a validation metric, with rollback to the best weights.

    ``step(score, weights)`` after each epoch (epochs count from 1) returns ``True``
    when training should stop; ``best_epoch`` and ``best_weights`` are the epoch to roll
    back to, always the best one so far. ``rule="best"`` (default, the usual one): stop
    when the best score has not improved for ``patience`` = k epochs; the best epoch is
    then t − k, the epoch the book rolls back to. ``rule="book"``: the printed test
    "stop if a_t ≤ a_i for every i = t−1, ..., t−k" (the current epoch is no better than
    each of the previous k). Under that test the best epoch need not be t − k (on
    [.5, .6, .8, .7, .6] with k = 3 it fires at t = 5, the best epoch is 3 and t − k = 2
    scored only .6), so the book's rollback to t − k fits only the usual rule (erratum
    E9-06, lines 4397-4399). ``mode="max"`` for accuracies/F1, ``"min"`` for losses.
    ``best_weights`` is a deep copy (torch ``state_dict`` tensors are cloned).
    """

    def __init__(self, patience: int, *, mode: str = "max", rule: str = "best"):
        patience = check_int(patience, "patience")
        if mode not in ("max", "min") or rule not in ("best", "book"):
            raise ValueError(
                f"mode must be 'max'/'min' and rule 'best'/'book'; got "
                f"{mode!r}, {rule!r}"
            )
        self.patience, self.mode, self.rule = patience, mode, rule
        self.history: list[float] = []
        self.best_score: float | None = None
        self.best_epoch = 0
        self.best_weights: Any = None
        self.stopped_epoch: int | None = None

    def _better(self, a: float, b: float) -> bool:
        return a > b if self.mode == "max" else a < b

    def step(self, score: float, weights: Any = None) -> bool:
        score = float(score)
        self.history.append(score)
        t = len(self.history)
        if self.best_score is None or self._better(score, self.best_score):
            self.best_score, self.best_epoch = score, t
            if weights is not None:
                self.best_weights = _snapshot(weights)
        k = self.patience
        if self.rule == "best":
            stop = t - self.best_epoch >= k
        else:
            prev = self.history[-k - 1 : -1]
            stop = t > k and all(not self._better(score, a) for a in prev)
        if stop and self.stopped_epoch is None:
            self.stopped_epoch = t
        return stop


def _snapshot(weights: Any) -> Any:
    if isinstance(weights, dict):
        return {
            k: (v.detach().clone() if hasattr(v, "detach") else copy.deepcopy(v))
            for k, v in weights.items()
        }
    return copy.deepcopy(weights)


def early_stopping_epoch(
    scores: Sequence[float], patience: int, *, mode: str = "max", rule: str = "best"
) -> tuple[int | None, int]:
    """Run :class:`EarlyStopping` over a whole history: ``(stop_epoch or None,
    best_epoch)`` (1-based).

    >>> early_stopping_epoch([0.5, 0.7, 0.6, 0.65, 0.62], 2)
    (4, 2)
    >>> early_stopping_epoch([0.5, 0.7, 0.6, 0.65, 0.62], 2, rule="book")
    (None, 2)
    """
    es = EarlyStopping(patience, mode=mode, rule=rule)
    for s in scores:
        if es.step(s):
            break
    return es.stopped_epoch, es.best_epoch


# --- §9.3.1 dropout -------------------------------------------------------------------


def _keep(keep_prob: float | None, drop_prob: float | None) -> float:
    if (keep_prob is None) == (drop_prob is None):
        raise ValueError(
            "give exactly one of keep_prob= (the book's p) or drop_prob= "
            "(torch.nn.Dropout's p)"
        )
    q = keep_prob if keep_prob is not None else 1.0 - drop_prob
    if not 0.0 < q <= 1.0:
        raise ValueError(f"keep probability must lie in (0, 1]; got {q}")
    return float(q)


def dropout_mask(shape: tuple[int, ...], keep_prob: float, rng: Any = 0) -> np.ndarray:
    r"""A host mask with entries :math:`M_{ij}\sim\text{Bern}(p)`, p = ``keep_prob``
    (E.9.7, line 4531)."""
    return (np.random.default_rng(rng).random(shape) < keep_prob).astype(np.float64)


def dropout(
    X: Any,
    *,
    keep_prob: float | None = None,
    drop_prob: float | None = None,
    rng: Any = 0,
    training: bool = True,
    inverted: bool = True,
) -> Any:
    r"""Dropout of ``X (n, ...)``: multiply by a Bernoulli mask.

    Training: ``M ⊙ X / keep_prob`` (inverted dropout, the default; its expectation is
    ``X``) or ``M ⊙ X`` (``inverted=False``, the book's definition, expectation ``p
    X``). Inference: ``X`` (inverted) or ``p X`` (the layer-wise expected value, line
    4611). Give ``keep_prob`` (the book's p) or ``drop_prob`` (``1 - p``, torch's p).

    Book: §9.3.1, definition "Dropout layer" (lines 4527-4549), lines 4589-4623.

    >>> dropout(np.ones((1, 4)), keep_prob=0.5, rng=1).tolist()
    [[0.0, 0.0, 2.0, 0.0]]
    """
    q = _keep(keep_prob, drop_prob)
    if not training:
        return X if inverted else q * X
    M = _like(dropout_mask(tuple(X.shape), q, rng), X)
    return M * X / q if inverted else M * X


def spatial_dropout(
    X: Any,
    *,
    keep_prob: float | None = None,
    drop_prob: float | None = None,
    rng: Any = 0,
) -> Any:
    """Spatial dropout (training, inverted) of ``X (b, ..., c)``: whole channels of each
    example are kept or dropped together (mask ``(b, 1, ..., 1, c)``; line 4653)."""
    q = _keep(keep_prob, drop_prob)
    shape = (X.shape[0],) + (1,) * (X.ndim - 2) + (X.shape[-1],)
    return _like(dropout_mask(shape, q, rng), X) * X / q


def dropconnect_linear(
    x: Any, W: Any, b: Any, *, keep_prob: float, rng: Any = 0
) -> Any:
    r"""DropConnect, :math:`(M\odot W)x + b` with ``W (c', c)``, ``x (c,)`` and a mask
    on the weights (not inverted, as printed; lines 4655-4667)."""
    return (_like(dropout_mask(tuple(W.shape), keep_prob, rng), W) * W) @ x + b


def mc_dropout_predict(
    f: Callable[[Any, np.random.Generator], Any], x: Any, k: int, rng: Any = 0
) -> tuple[Any, Any]:
    r"""Monte Carlo dropout: ``k`` stochastic passes ``f(x, rng)`` (dropout on), and
    their mean and standard deviation, :math:`\frac1k\sum_i f(x; Z_i)` (lines
    4597-4605)."""
    g = np.random.default_rng(rng)
    outs = [f(x, g) for _ in range(k)]
    xp = array_namespace(outs[0])
    Y = xp.stack(outs)
    return xp.mean(Y, axis=0), xp.std(Y, axis=0)


def exact_dropout_expectation(
    f: Callable[[list[np.ndarray]], Any], sizes: Sequence[int], keep_prob: float
) -> Any:
    r""":math:`\mathbb{E}_{p(M)}[f(x; M)]` by enumerating all :math:`2^{\sum s}` masks
    of the dropout layers (sizes ``sizes``), each weighted by its Bernoulli probability;
    ``f(masks)`` gets one 0/1 vector per layer. Only for tiny networks (line 4593)."""
    total = int(sum(sizes))
    if total > 20:
        raise ValueError(f"2^{total} masks is too many to enumerate")
    out = 0.0
    for bits in itertools.product((0.0, 1.0), repeat=total):
        v = np.array(bits)
        prob = keep_prob ** v.sum() * (1 - keep_prob) ** (total - v.sum())
        masks = np.split(v, np.cumsum(sizes)[:-1])
        out = out + prob * f(masks)
    return out


@functools.cache
def _torch_classes() -> dict[str, type]:
    from torch import nn

    class DropoutModule(nn.Module):
        """Inverted dropout as a ``torch.nn.Module`` built on :func:`dropout`: pass
        ``keep_prob=`` (book) or ``drop_prob=`` (torch); ``eval()`` makes it the
        identity. Masks come from a seeded NumPy generator."""

        def __init__(
            self,
            *,
            keep_prob: float | None = None,
            drop_prob: float | None = None,
            seed: int = 0,
        ):
            super().__init__()
            self.keep_prob = _keep(keep_prob, drop_prob)
            self.rng = np.random.default_rng(seed)

        def forward(self, x):
            return dropout(
                x, keep_prob=self.keep_prob, rng=self.rng, training=self.training
            )

    return {"DropoutModule": DropoutModule}


__getattr__ = lazy_getattr(__name__, {"DropoutModule": _torch_classes})
