r"""Data augmentation, seeded NumPy on the host.

Augmentation trains on transformed copies of the data, drawn fresh at every epoch:

* Gaussian noise :math:`x' = x + \varepsilon` (:func:`gaussian_noise`, lines
  4409-4413; for a linear model it amounts to ridge regression);
* parametric transforms :math:`x' = T(x; c)` with :math:`T(x; 0) = x` (E.9.4, lines
  4415-4421): :func:`random_rotation`, :func:`random_hflip`, :func:`random_shift`;
* **mixup** (:func:`mixup`, eq. E.9.6, lines 4457-4471) and **CutMix**
  (:func:`cutmix`, lines 4473-4485), which mix two examples and their labels;
* :func:`cutout` (line 4653, in §9.3.1) zeroes a square patch;
* for sequences ``(b, t, c)``: :func:`time_shift` and :func:`time_mask`.

Images are ``(b, h, w, c)`` (channels last). Every function takes ``rng``: an int
seed (the same draws on every call) or a ``numpy.random.Generator`` (fresh draws on
every call, as a training loop needs). Inputs and outputs are NumPy arrays.

Book: §9.2.3 "Data augmentation" (lines 4405-4497).

>>> import numpy as np
>>> random_hflip(np.arange(4.0).reshape(1, 1, 4, 1), p=1.0)[0, 0, :, 0].tolist()
[3.0, 2.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "cutmix",
    "cutout",
    "gaussian_noise",
    "mixup",
    "random_hflip",
    "random_rotation",
    "random_shift",
    "time_mask",
    "time_shift",
]


def _images(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"images must have shape (b, h, w, c); got {x.shape}")
    return x


def gaussian_noise(x: np.ndarray, sigma: float, rng: Any = 0) -> np.ndarray:
    r""":math:`x' = x + \varepsilon`, :math:`\varepsilon\sim\mathcal{N}(0,\sigma^2 I)`
    (lines 4409-4413)."""
    x = np.asarray(x, dtype=float)
    return x + sigma * np.random.default_rng(rng).standard_normal(x.shape)


def random_hflip(x: np.ndarray, p: float = 0.5, rng: Any = 0) -> np.ndarray:
    """Flip each image of ``x (b, h, w, c)`` left-right with probability ``p``."""
    x = _images(x)
    flip = np.random.default_rng(rng).random(x.shape[0]) < p
    return np.where(flip[:, None, None, None], x[:, :, ::-1, :], x)


def random_shift(x: np.ndarray, max_shift: int = 1, rng: Any = 0) -> np.ndarray:
    """Translate each image by integers in ``[-max_shift, max_shift]`` along h and w,
    filling with zeros (``max_shift=0`` is the identity)."""
    x = _images(x)
    g = np.random.default_rng(rng)
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
        else np.random.default_rng(rng).uniform(-max_degrees, max_degrees, b)
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
    (1-\lambda)x_2` and the same for the one-hot labels ``y (b, m)`` (eq. E.9.6,
    lines 4457-4471). λ is given, or drawn from U[0, 1] (the book) or Beta(α, α) (the
    paper). Returns ``(x_mix, y_mix, lam)``."""
    g = np.random.default_rng(rng)
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
    g = np.random.default_rng(rng)
    M = _box(x1.shape[0], x1.shape[1], patch, g)
    weight = float(M.mean()) if lam == "area" else float(g.uniform())
    return M * x1 + (1 - M) * x2, weight * y1 + (1 - weight) * y2, M


def cutout(
    x: np.ndarray, size: int, rng: Any = 0, *, channels: str = "all"
) -> np.ndarray:
    """Zero a ``size × size`` square of each image ``(b, h, w, c)`` (on all channels, as
    in DeVries and Taylor; ``channels="one"`` picks one channel, as line 4653 says)."""
    x = _images(x).astype(float)
    g = np.random.default_rng(rng)
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
    g = np.random.default_rng(rng)
    shifts = g.integers(-max_shift, max_shift + 1, size=x.shape[0])
    return np.stack([np.roll(x[i], s, axis=0) for i, s in enumerate(shifts)])


def time_mask(x: np.ndarray, width: int, rng: Any = 0) -> np.ndarray:
    """Sequence augmentation: zero ``width`` consecutive time steps of each sequence of
    ``x (b, t, c)`` (SpecAugment-style)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 3 or width > x.shape[1]:
        raise ValueError(f"expected x (b, t, c) with t >= width={width}; got {x.shape}")
    g = np.random.default_rng(rng)
    out = x.copy()
    for i, s in enumerate(g.integers(0, x.shape[1] - width + 1, size=x.shape[0])):
        out[i, s : s + width] = 0.0
    return out
