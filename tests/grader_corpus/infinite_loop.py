"""grad_f never returns: the per-check alarm stops it; the rest grades."""


import numpy as np


def f(X):
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(x1) * np.cos(x2) + np.sin(0.5 * x1) * np.cos(0.5 * x2)


def grad_f(X):
    while True:
        pass


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
