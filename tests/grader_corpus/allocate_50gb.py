"""f asks for 50 GB at once; grad_f fills 2 GB arrays, one after the other, inside
single NumPy calls that the per-check alarm cannot interrupt: the memory watchdog (or
the cgroup) must stop it."""


import numpy as np


def f(X):
    big = np.ones(50 * 2**30 // 8)
    return big[: len(X)]


def grad_f(X):
    hoard = []
    while True:
        hoard.append(np.ones(2**28))


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
