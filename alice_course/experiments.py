"""Small, seeded training experiments that the chapters run on bundled data.

Chapter 1 makes two empirical claims about neural networks: that big enough networks
can memorise any labelling of their training data, even a random one (line 87,
[ZBH+21]), and that more data predictably helps (the scaling laws of line 83). Both
are checked here on scikit-learn's bundled handwritten digits (1797 images of 8x8
pixels, shipped inside the package: nothing is downloaded) with a one-hidden-layer
PyTorch network trained full-batch with Adam. A run takes about a second on 2 CPU
cores.

Book: §1 (Introduction), lines 83-91.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

__all__ = ["DigitsRun", "digits_mlp", "digits_split"]


@dataclass(frozen=True)
class DigitsRun:
    """Result of :func:`digits_mlp`: accuracies in [0, 1] and the mean test loss."""

    n_train: int
    n_params: int
    train_accuracy: float
    test_accuracy: float
    test_loss: float


def digits_split(seed: int = 0, n_test: int = 797) -> tuple[np.ndarray, ...]:
    """Shuffle the digits with ``seed`` and split them into train and test parts.

    Returns ``X_train (n, 64), y_train (n), X_test (m, 64), y_test (m)`` with pixels
    scaled to [0, 1] and integer labels 0-9; ``n = 1797 - n_test``.
    """
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    if not 0 < n_test < len(X):
        raise ValueError(f"n_test must be between 1 and {len(X) - 1}; got {n_test}")
    order = np.random.default_rng(seed).permutation(len(X))
    X, y = X[order] / 16.0, y[order]
    return X[:-n_test], y[:-n_test], X[-n_test:], y[-n_test:]


@functools.lru_cache(maxsize=64)
def digits_mlp(
    *,
    n_train: int = 1000,
    width: int = 512,
    steps: int = 300,
    shuffle_labels: bool = False,
    seed: int = 0,
    lr: float = 3e-3,
) -> DigitsRun:
    """Train a ``64 -> width -> 10`` ReLU network on ``n_train`` digits and test it.

    Parameters
    ----------
    n_train : how many of the 1000 training digits to use.
    width : hidden units; the network has ``75 * width + 10`` parameters.
    steps : full-batch Adam steps on the cross-entropy.
    shuffle_labels : replace the training labels by a random permutation of them, so
        that nothing about the images predicts the label (the memorisation test).
    seed : seeds the label shuffle and the initialisation.

    Runs are deterministic, so results are cached: a notebook and the claim checks it
    calls share the same trained networks instead of training them twice.

    >>> run = digits_mlp(n_train=200, width=64, steps=100)
    >>> run.train_accuracy > 0.9
    True
    """
    import torch

    X_train, y_train, X_test, y_test = digits_split(seed=0)
    if not 1 <= n_train <= len(X_train):
        raise ValueError(f"n_train must be between 1 and {len(X_train)}; got {n_train}")
    labels = y_train[:n_train]
    if shuffle_labels:
        labels = np.random.default_rng(seed).permutation(labels)
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, width), torch.nn.ReLU(), torch.nn.Linear(width, 10)
    )
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    Xtr = torch.as_tensor(X_train[:n_train], dtype=torch.float32)
    ytr = torch.as_tensor(labels)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(Xtr), ytr)
        loss.backward()
        opt.step()
    with torch.no_grad():
        Xte = torch.as_tensor(X_test, dtype=torch.float32)
        yte = torch.as_tensor(y_test)
        logits = model(Xte)
        return DigitsRun(
            n_train=n_train,
            n_params=sum(p.numel() for p in model.parameters()),
            train_accuracy=float((model(Xtr).argmax(1) == ytr).float().mean()),
            test_accuracy=float((logits.argmax(1) == yte).float().mean()),
            test_loss=float(torch.nn.functional.cross_entropy(logits, yte)),
        )
