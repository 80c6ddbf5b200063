r"""Regularization: weight penalties, early stopping, data augmentation, dropout.

* **Weight penalties** (§9.2.1): :math:`L_{reg} = L + \lambda R(w)` with
  :math:`R = \lVert w\rVert^2` (gradient :math:`\nabla L + 2\lambda w`) or
  :math:`\lVert w\rVert_1`. For plain gradient descent the ℓ2 term *is* weight decay:
  one step multiplies :math:`w` by :math:`1 - 2\eta\lambda` before the loss step. With
  an adaptive optimizer they differ: :func:`adam` puts the penalty in the gradient (then
  Adam rescales it) or, with ``decoupled=True``, shrinks the weights directly (AdamW,
  the book's :math:`w_t = w_{t-1} - g(\nabla L) - \lambda w_{t-1}` with the learning
  rate folded into λ). PyTorch's ``weight_decay=wd`` is the book's ``λ = wd / 2``.
* **Early stopping** (§9.2.2): :class:`EarlyStopping` with the usual patience rule
  ("no improvement on the best score for k epochs", which is what the rollback to epoch
  t - k assumes) or the book's printed rule, and rollback to the best weights.
* **Augmentation** (§9.2.3), seeded NumPy on the host: Gaussian noise, flips, shifts,
  rotations, mixup, cutmix, cutout for images ``(b, h, w, c)``; time shifts and time
  masks for sequences ``(b, t, c)``.
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

from alice_lab.backend import array_namespace, device_of

__all__ = [
    "EarlyStopping",
    "adam",
    "cutmix",
    "cutout",
    "decoupled_decay_step",
    "dropconnect_linear",
    "dropout",
    "dropout_mask",
    "early_stopping_epoch",
    "exact_dropout_expectation",
    "gaussian_noise",
    "has_converged",
    "l1_penalty",
    "l2_grad",
    "l2_penalty",
    "mc_dropout_predict",
    "mixup",
    "project_l1_ball",
    "project_l2_ball",
    "random_hflip",
    "random_rotation",
    "random_shift",
    "sgd_l2_step",
    "soft_threshold",
    "spatial_dropout",
    "time_mask",
    "time_shift",
]


def _gen(rng: Any) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


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


def adam(
    grad_fn: Callable[[Any], Any],
    w0: Any,
    *,
    lr: float,
    steps: int,
    weight_decay: float = 0.0,
    decoupled: bool = False,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> Any:
    r"""Adam from ``w0`` for ``steps`` steps, returning the path ``(steps + 1,
    *w.shape)`` as a list of arrays. ``weight_decay`` acts as ``torch.optim.Adam``
    (added to the gradient, ``decoupled=False``) or as ``torch.optim.AdamW`` (``w ← w(1
    - lr·wd)`` before the Adam step, ``decoupled=True``). Book: lines 4365-4369
    ([LH19])."""
    b1, b2 = betas
    w, m, v = w0, 0.0 * w0, 0.0 * w0
    path = [w0]
    for t in range(1, steps + 1):
        g = grad_fn(w)
        if decoupled:
            w = w * (1.0 - lr * weight_decay)
        else:
            g = g + weight_decay * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        w = w - lr * m_hat / (array_namespace(w).sqrt(v_hat) + eps)
        path.append(w)
    return path


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
    when training should stop. ``rule="best"`` (default, the usual one): stop when the
    best score has not improved for ``patience`` epochs; the best epoch is then ``t -
    k``, which is where the book rolls back. ``rule="book"``: the printed test "stop if
    a_t ≤ a_i for every i = t-1, ..., t-k" (the current epoch is no better than each of
    the previous k), which can miss a plateau (erratum, lines 4397-4399). ``mode="max"``
    for accuracies/F1, ``"min"`` for losses. ``best_weights`` is a deep
    copy (torch ``state_dict`` tensors are cloned).
    """

    def __init__(self, patience: int, *, mode: str = "max", rule: str = "best"):
        if not isinstance(patience, int) or patience < 1:
            raise ValueError(f"patience must be a positive int; got {patience!r}")
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


# --- §9.2.3 data augmentation (host NumPy, seeded) ------------------------------------


def _images(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"images must have shape (b, h, w, c); got {x.shape}")
    return x


def gaussian_noise(x: np.ndarray, sigma: float, rng: Any = 0) -> np.ndarray:
    r""":math:`x' = x + \varepsilon`, :math:`\varepsilon\sim\mathcal{N}(0,\sigma^2 I)`
    (lines 4409-4413)."""
    x = np.asarray(x, dtype=float)
    return x + sigma * _gen(rng).standard_normal(x.shape)


def random_hflip(x: np.ndarray, p: float = 0.5, rng: Any = 0) -> np.ndarray:
    """Flip each image of ``x (b, h, w, c)`` left-right with probability ``p``."""
    x = _images(x)
    flip = _gen(rng).random(x.shape[0]) < p
    return np.where(flip[:, None, None, None], x[:, :, ::-1, :], x)


def random_shift(x: np.ndarray, max_shift: int = 1, rng: Any = 0) -> np.ndarray:
    """Translate each image by integers in ``[-max_shift, max_shift]`` along h and w,
    filling with zeros (``max_shift=0`` is the identity)."""
    x = _images(x)
    g = _gen(rng)
    out = np.zeros_like(x)
    b, h, w, _ = x.shape
    for i, (dy, dx) in enumerate(g.integers(-max_shift, max_shift + 1, size=(b, 2))):
        src = x[i, max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)]
        out[
            i,
            max(0, dy) : max(0, dy) + src.shape[0],
            max(0, dx) : max(0, dx) + src.shape[1],
        ] = src
    return out


def random_rotation(
    x: np.ndarray,
    max_degrees: float = 20.0,
    rng: Any = 0,
    *,
    angle: float | None = None,
) -> np.ndarray:
    """Rotate each image by an angle drawn uniformly in ``[-max_degrees, max_degrees]``
    (or by the given ``angle``; 0 is the identity), the parametric T(x; c) of E.9.4."""
    from scipy.ndimage import rotate

    x = _images(x).astype(float)
    b = x.shape[0]
    angles = (
        np.full(b, float(angle))
        if angle is not None
        else _gen(rng).uniform(-max_degrees, max_degrees, b)
    )
    return np.stack(
        [
            x[i] if a == 0 else rotate(x[i], a, axes=(0, 1), reshape=False, order=1)
            for i, a in enumerate(angles)
        ]
    )


def mixup(
    x: np.ndarray,
    y: np.ndarray,
    *,
    lam: float | None = None,
    alpha: float | None = None,
    rng: Any = 0,
) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Mixup of a batch with a permutation of itself: :math:`\lambda x_1 +
    (1-\lambda)x_2` and the same for the one-hot labels ``y (b, m)`` (eq. ``eq:mixup``,
    lines 4457-4471). λ is given, or drawn from U[0, 1] (the book) or Beta(α, α) (the
    paper). Returns ``(x_mix, y_mix, lam)``."""
    g = _gen(rng)
    if lam is None:
        lam = float(g.beta(alpha, alpha) if alpha else g.uniform())
    perm = g.permutation(len(x))
    return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm], lam


def _box(h: int, w: int, size: tuple[int, int], g: np.random.Generator) -> np.ndarray:
    ph, pw = size
    if ph > h or pw > w:
        raise ValueError(f"patch {size} does not fit in an image of size {(h, w)}")
    top, left = g.integers(0, h - ph + 1), g.integers(0, w - pw + 1)
    M = np.zeros((h, w, 1))
    M[top : top + ph, left : left + pw] = 1.0
    return M


def cutmix(
    x1: np.ndarray,
    y1: np.ndarray,
    x2: np.ndarray,
    y2: np.ndarray,
    patch: tuple[int, int],
    *,
    lam: str = "area",
    rng: Any = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""CutMix of two images ``(h, w, c)``: :math:`M\odot x_1 + (1-M)\odot x_2` with a
    ``patch``-sized box ``M`` at a random place; labels mixed with the patch's area
    fraction (``lam="area"``, the CutMix paper) or a U[0, 1] draw (``"random"``, as the
    book says, line 4485). Returns ``(x, y, M)`` with ``M (h, w, 1)``."""
    g = _gen(rng)
    M = _box(x1.shape[0], x1.shape[1], patch, g)
    weight = float(M.mean()) if lam == "area" else float(g.uniform())
    return M * x1 + (1 - M) * x2, weight * y1 + (1 - weight) * y2, M


def cutout(
    x: np.ndarray, size: int, rng: Any = 0, *, channels: str = "all"
) -> np.ndarray:
    """Zero a ``size × size`` square of each image ``(b, h, w, c)`` (on all channels, as
    in DeVries and Taylor; ``channels="one"`` picks one channel, as line 4653 says)."""
    x = _images(x).astype(float)
    g = _gen(rng)
    out = x.copy()
    for i in range(x.shape[0]):
        M = _box(x.shape[1], x.shape[2], (size, size), g)[..., 0] > 0
        if channels == "all":
            out[i][M] = 0.0
        else:
            out[i][M, g.integers(x.shape[3])] = 0.0
    return out


def time_shift(x: np.ndarray, max_shift: int, rng: Any = 0) -> np.ndarray:
    """Sequence augmentation: roll each sequence of ``x (b, t, c)`` in time by an
    integer in ``[-max_shift, max_shift]`` (circularly)."""
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError(f"sequences must have shape (b, t, c); got {x.shape}")
    shifts = _gen(rng).integers(-max_shift, max_shift + 1, size=x.shape[0])
    return np.stack([np.roll(x[i], s, axis=0) for i, s in enumerate(shifts)])


def time_mask(x: np.ndarray, width: int, rng: Any = 0) -> np.ndarray:
    """Sequence augmentation: zero ``width`` consecutive time steps of each sequence of
    ``x (b, t, c)`` (SpecAugment-style)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 3 or width > x.shape[1]:
        raise ValueError(f"expected x (b, t, c) with t >= width={width}; got {x.shape}")
    g = _gen(rng)
    out = x.copy()
    for i, s in enumerate(g.integers(0, x.shape[1] - width + 1, size=x.shape[0])):
        out[i, s : s + width] = 0.0
    return out


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
    (``eq:sampling_m``, line 4531)."""
    return (_gen(rng).random(shape) < keep_prob).astype(np.float64)


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
    g = _gen(rng)
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


def __getattr__(name: str):
    if name == "DropoutModule":
        return _torch_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
