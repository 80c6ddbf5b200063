r"""Offline datasets, a seeded train/test split and seeded mini-batches.

Nothing here downloads: the data come from code (:func:`make_linear_regression`,
:func:`make_xor`) or from the small datasets that ship inside the scikit-learn wheel
(:func:`load_digits`, :func:`load_iris`, :func:`load_diabetes`,
:func:`load_breast_cancer`, and the generators :func:`make_moons`,
:func:`make_blobs`). Every loader returns NumPy arrays, ``X`` as ``(n, c)`` float64
and ``y`` as ``(n,)`` (int64 class labels, or float64 regression targets); move them
to torch or JAX with :func:`alice_lab.backend.to_backend`.

:func:`minibatches` yields shuffled index arrays for one pass over a dataset of size
``n`` (one *epoch*); :func:`batches` applies them to ``(X, y)`` of any backend. The
last mini-batch is smaller when ``batch_size`` does not divide ``n`` (1000 examples in
batches of 32 end with a batch of 8) unless ``drop_last=True``.

Book: §4.1.3, Figure F.4.2 (lines 1540-1550); "From theory to practice" of chapter 4
(lines 2176-2192); §5.3, shuffle-then-slice mini-batches (lines 2356-2396, Box 5.2).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from alice_lab.backend import array_namespace, check_int, device_of, to_numpy

__all__ = [
    "batches",
    "load_breast_cancer",
    "load_diabetes",
    "load_digits",
    "load_iris",
    "make_blobs",
    "make_linear_regression",
    "make_moons",
    "make_xor",
    "minibatches",
    "standardize",
    "train_test_split",
]


# --- checks ---------------------------------------------------------------------------


def _seed(seed: Any) -> int | None:
    return None if seed is None else check_int(seed, "seed", low=0)


def _check_xy(X: Any, y: Any) -> int:
    """Check X (n, c) and y (n,) agree on n; return n."""
    if getattr(X, "ndim", None) != 2:
        raise ValueError(
            f"X must have shape (n, c); got {tuple(getattr(X, 'shape', ()))}"
        )
    n = X.shape[0]
    if y is not None and (getattr(y, "ndim", None) != 1 or y.shape[0] != n):
        raise ValueError(
            f"y must have shape (n,) = ({n},) to match X {tuple(X.shape)}; "
            f"got {tuple(getattr(y, 'shape', ()))}"
        )
    return n


# --- mini-batches ---------------------------------------------------------------------


def minibatches(
    n: int, batch_size: int, *, seed: int | None, drop_last: bool = False
) -> Iterator[np.ndarray]:
    """Index arrays of one shuffled pass (an epoch) over ``n`` examples.

    Parameters
    ----------
    n : int >= 0, the number of examples.
    batch_size : int >= 1.
    seed : int, seeds the permutation (the same seed gives the same batches);
        ``None`` keeps the examples in order (no shuffling).
    drop_last : drop the last, smaller batch when ``batch_size`` does not divide ``n``.

    Yields
    ------
    (b,) int64 NumPy arrays with ``b == batch_size`` except possibly the last; together
    they hold every index in ``0..n-1`` exactly once (without ``drop_last``).
    Index any backend's arrays with them through :func:`batches`.

    Book: §5.3, shuffle then slice into consecutive chunks (lines 2356-2396).

    >>> [b.tolist() for b in minibatches(5, 2, seed=None)]
    [[0, 1], [2, 3], [4]]
    """
    n = check_int(n, "n", low=0)
    batch_size = check_int(batch_size, "batch_size")
    seed = _seed(seed)
    order = (
        np.arange(n, dtype=np.int64)
        if seed is None
        else np.random.default_rng(seed).permutation(n).astype(np.int64)
    )
    stop = (n // batch_size) * batch_size if drop_last else n
    for start in range(0, stop, batch_size):
        yield order[start : start + batch_size]


def batches(
    X: Any,
    y: Any = None,
    batch_size: int = 32,
    *,
    seed: int | None,
    drop_last: bool = False,
) -> Iterator[Any]:
    """Mini-batches ``(X_b, y_b)`` of one shuffled epoch, for any array backend.

    Parameters
    ----------
    X : (n, c) array (NumPy, torch, JAX, ...).
    y : (n,) array in the same namespace, or ``None`` to yield only ``X_b``.
    batch_size, seed, drop_last : as in :func:`minibatches`.

    Yields
    ------
    ``(X_b, y_b)`` with ``X_b (b, c)`` and ``y_b (b,)`` (or ``X_b`` alone when ``y`` is
    None), in the namespace and on the device of ``X``.

    >>> X, y = np.arange(10.0).reshape(5, 2), np.arange(5)
    >>> [yb.tolist() for _, yb in batches(X, y, 2, seed=None)]
    [[0, 1], [2, 3], [4]]
    """
    n = _check_xy(X, y)
    xp = array_namespace(X) if y is None else array_namespace(X, y)
    for idx in minibatches(n, batch_size, seed=seed, drop_last=drop_last):
        i = xp.asarray(idx, device=device_of(X))
        Xb = xp.take(X, i, axis=0)
        yield Xb if y is None else (Xb, xp.take(y, i, axis=0))


# --- train/test split and scaling -----------------------------------------------------


def train_test_split(
    X: Any, y: Any, *, test_size: float = 0.25, seed: int, stratify: bool = False
) -> tuple[Any, Any, Any, Any]:
    """A seeded random split ``(X_train, X_test, y_train, y_test)``, for any backend.

    Parameters
    ----------
    X : (n, c) array; y : (n,) array.
    test_size : fraction in (0, 1) of the examples held out (rounded up, as
        scikit-learn does).
    seed : int, seeds the permutation.
    stratify : keep each class's proportion in both parts (``y`` must hold integer
        labels); each class gets ``ceil(test_size * n_k)`` test examples.

    Book: "From theory to practice", chapter 4 (line 2190).

    >>> X, y = np.zeros((8, 2)), np.arange(8)
    >>> [a.shape for a in train_test_split(X, y, test_size=0.25, seed=0)]
    [(6, 2), (2, 2), (6,), (2,)]
    """
    n = _check_xy(X, y)
    try:
        frac = float(test_size)
    except (TypeError, ValueError):
        raise ValueError(
            f"test_size must be a number in (0, 1); got {test_size!r}"
        ) from None
    if not 0.0 < frac < 1.0:
        raise ValueError(f"test_size must lie in (0, 1); got {test_size!r}")
    seed = _seed(seed)
    if seed is None:
        raise ValueError("seed must be an int >= 0 (a split is always shuffled)")
    rng = np.random.default_rng(seed)
    if stratify:
        labels = to_numpy(y)
        if not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(f"stratify needs integer labels; got dtype {labels.dtype}")
        test = np.concatenate(
            [
                rng.permutation(np.flatnonzero(labels == k))[
                    : math.ceil(frac * int(np.sum(labels == k)))
                ]
                for k in np.unique(labels)
            ]
        )
    else:
        test = rng.permutation(n)[: math.ceil(frac * n)]
    mask = np.zeros(n, dtype=bool)
    mask[test] = True
    tr, te = np.sort(np.flatnonzero(~mask)), np.sort(np.flatnonzero(mask))
    if tr.size == 0:
        raise ValueError(f"test_size={test_size} leaves no training example out of {n}")
    xp = array_namespace(X, y)
    itr = xp.asarray(tr, device=device_of(X))
    ite = xp.asarray(te, device=device_of(X))
    return (
        xp.take(X, itr, axis=0),
        xp.take(X, ite, axis=0),
        xp.take(y, itr, axis=0),
        xp.take(y, ite, axis=0),
    )


def standardize(X_train: Any, X_test: Any = None) -> Any:
    """Zero mean, unit variance per column, with statistics of ``X_train`` only.

    Constant columns are centred and left unscaled. Returns ``X_train`` scaled, or the
    pair ``(X_train, X_test)`` when ``X_test`` is given (scaled with the training mean
    and standard deviation, so nothing leaks from the test set).

    >>> standardize(np.array([[0.0], [2.0]])).ravel().tolist()
    [-1.0, 1.0]
    """
    xp = array_namespace(X_train)
    if X_train.ndim != 2:
        raise ValueError(f"X_train must have shape (n, c); got {tuple(X_train.shape)}")
    mu = xp.mean(X_train, axis=0)
    sd = xp.std(X_train, axis=0)
    sd = xp.where(sd > 0, sd, xp.ones_like(sd))
    if X_test is None:
        return (X_train - mu) / sd
    if X_test.ndim != 2 or X_test.shape[1] != X_train.shape[1]:
        raise ValueError(
            f"X_test must have shape (n', {X_train.shape[1]}); "
            f"got {tuple(X_test.shape)}"
        )
    return (X_train - mu) / sd, (X_test - mu) / sd


# --- synthetic data -------------------------------------------------------------------


def make_linear_regression(
    n: int = 10,
    c: int = 3,
    *,
    noise_var: float = 0.01,
    bias: float = 0.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The data of Figure F.4.2: :math:`y_i = \mathbf{w}^\top\mathbf{x}_i + b +
    \varepsilon_i` with :math:`w_j \sim \mathcal{N}(0, 1)`,
    :math:`\mathbf{x}_i \sim \mathcal{N}(\mathbf{0}, \mathbf{I})` and
    :math:`\varepsilon_i \sim \mathcal{N}(0, \sigma^2)`.

    The book writes :math:`\mathcal{N}(0, 0.01)`, a *variance* of 0.01 (standard
    deviation 0.1); it does not say how :math:`\mathbf{x}` is drawn nor give c, so we
    take standard normal inputs and c = 3.

    Returns
    -------
    X : (n, c) float64, y : (n,) float64, w : (c,) float64 (the true weights).

    Book: §4.1.3, Figure F.4.2 (lines 1540-1550).

    >>> X, y, w = make_linear_regression(10, 3, seed=0)
    >>> X.shape, y.shape, w.shape
    ((10, 3), (10,), (3,))
    """
    n, c = check_int(n, "n"), check_int(c, "c")
    try:
        var = float(noise_var)
    except (TypeError, ValueError):
        raise ValueError(
            f"noise_var must be a number >= 0; got {noise_var!r}"
        ) from None
    if not (math.isfinite(var) and var >= 0):
        raise ValueError(f"noise_var must be a finite number >= 0; got {noise_var!r}")
    rng = np.random.default_rng(_seed(seed))
    w = rng.standard_normal(c)
    X = rng.standard_normal((n, c))
    y = X @ w + float(bias) + math.sqrt(var) * rng.standard_normal(n)
    return X, y, w


def make_xor(
    n: int = 200, *, noise: float = 0.1, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    r"""The XOR problem: four Gaussian clusters at :math:`(\pm 1, \pm 1)`, label 1 when
    the two coordinates have opposite signs (the centres' XOR). No linear model
    separates the classes; a hidden layer does (chapter 5).

    Returns
    -------
    X : (n, 2) float64, y : (n,) int64 in {0, 1}, with n // 4 points per cluster
    (the remainder spread over the first clusters).

    >>> X, y = make_xor(8, noise=0.0)
    >>> sorted(zip(X[:4].tolist(), y[:4].tolist()))
    [([-1.0, -1.0], 0), ([-1.0, 1.0], 1), ([1.0, -1.0], 1), ([1.0, 1.0], 0)]
    """
    n = check_int(n, "n", low=4)
    noise = float(noise)
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0; got {noise!r}")
    rng = np.random.default_rng(_seed(seed))
    centres = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    which = np.arange(n) % 4
    X = centres[which] + noise * rng.standard_normal((n, 2))
    y = (centres[which, 0] * centres[which, 1] < 0).astype(np.int64)
    return X, y


# --- scikit-learn's bundled datasets (no download) ------------------------------------


def _bundled(name: str, *, regression: bool = False) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets

    X, y = getattr(datasets, name)(return_X_y=True)
    y = np.asarray(y, dtype=np.float64 if regression else np.int64)
    return np.asarray(X, dtype=np.float64), y


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """8x8 handwritten digits: X (1797, 64) float64 in 0..16, y (1797,) int64 0..9."""
    return _bundled("load_digits")


def load_iris() -> tuple[np.ndarray, np.ndarray]:
    """Iris flowers: X (150, 4) float64, y (150,) int64 in 0..2."""
    return _bundled("load_iris")


def load_breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    """Breast cancer diagnosis: X (569, 30) float64, y (569,) int64 in {0, 1}."""
    return _bundled("load_breast_cancer")


def load_diabetes() -> tuple[np.ndarray, np.ndarray]:
    """Diabetes progression (regression): X (442, 10) float64 (already scaled by
    scikit-learn), y (442,) float64."""
    return _bundled("load_diabetes", regression=True)


def make_moons(
    n: int = 200, *, noise: float = 0.1, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles: X (n, 2) float64, y (n,) int64 in {0, 1}."""
    from sklearn import datasets

    X, y = datasets.make_moons(
        n_samples=check_int(n, "n", low=2),
        noise=float(noise),
        random_state=_seed(seed),
    )
    return X.astype(np.float64), y.astype(np.int64)


def make_blobs(
    n: int = 200,
    *,
    centers: int = 3,
    c: int = 2,
    cluster_std: float = 1.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Isotropic Gaussian clusters: X (n, c) float64, y (n,) int64 in 0..centers-1."""
    from sklearn import datasets

    X, y = datasets.make_blobs(
        n_samples=check_int(n, "n"),
        n_features=check_int(c, "c"),
        centers=check_int(centers, "centers"),
        cluster_std=float(cluster_std),
        random_state=_seed(seed),
    )
    return X.astype(np.float64), y.astype(np.int64)
