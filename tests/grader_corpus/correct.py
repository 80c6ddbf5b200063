"""An honest solution of lab02's four NumPy exercises (the baseline of the corpus)."""

import numpy as np


def f(X):
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(x1) * np.cos(x2) + np.sin(0.5 * x1) * np.cos(0.5 * x2)


def grad_f(X):
    x1, x2 = X[:, 0], X[:, 1]
    d1 = np.cos(x1) * np.cos(x2) + 0.5 * np.cos(0.5 * x1) * np.cos(0.5 * x2)
    d2 = -np.sin(x1) * np.sin(x2) - 0.5 * np.sin(0.5 * x1) * np.sin(0.5 * x2)
    return np.stack([d1, d2], axis=1)


def gradient_descent(grad_fn, X0, lr, steps):
    x = np.array(X0, dtype=float)
    path = [x]
    for _ in range(steps):
        x = x - lr * grad_fn(x)
        path.append(x)
    return np.stack(path)


def momentum_descent(grad_fn, X0, lr, momentum, steps):
    x = np.array(X0, dtype=float)
    g = np.zeros_like(x)
    path = [x]
    for _ in range(steps):
        g = -lr * grad_fn(x) + momentum * g
        x = x + g
        path.append(x)
    return np.stack(path)
