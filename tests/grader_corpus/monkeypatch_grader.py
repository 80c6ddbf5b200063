"""f rewires the grading package (compare, the recorder, run) to report a pass, then
returns a wrong answer; grad_f forges the recorded answers."""

import numpy as np
from alice_course import grading
from alice_course.grading import judge


def f(X):
    ok = lambda *a, **k: (True, "")
    grading._match = ok
    grading.compare = ok
    grading._compare = ok
    import alice_course.grading.lab02 as lab

    lab._compare = ok
    grading.RECORDER.set(None)
    judge.record = lambda *a, **k: judge.Record("lab02.1", "passed", "forged", [])
    return np.zeros(len(X))


def grad_f(X):
    grading.compare.__code__ = (
        lambda name, got, want, *, rtol, atol: (True, "")
    ).__code__
    return np.zeros((len(X), 2))


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
