"""a helper the graded code needs raises while the definitions load; another loops forever."""


import numpy as np


SCALE = 1 / 0


def f(X):
    return SCALE * X[:, 0]


def _forever():
    while True:
        pass


STOP = _forever()


def grad_f(X):
    return STOP


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
