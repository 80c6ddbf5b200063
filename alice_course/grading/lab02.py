"""Checks of lab 02 (chapter 2: gradient descent on the exercise function)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, _points, mutant, register

# --- lab 02: gradient descent on the exercise function ----------------------------
# Book: "From theory to practice" at the end of chapter 2 (lines 1104-1160).


def _alice2d():
    from alice_lab.testfuncs import alice2d

    return alice2d


def _alice2d_grad():
    from alice_lab.testfuncs import alice2d_grad

    return alice2d_grad


@register("lab02.1", name="f", exercise="2.1", points=2, reference=_alice2d)
def check_f(f: Callable) -> tuple[bool, str]:
    """f(X) for X (n, 2) returns (n,), row by row equal to the exercise function."""
    X = _points(50, seed=0)
    one = _points(1, seed=1)
    return _chain(
        lambda: _compare(
            "f(X)", f(X.copy()), lambda: _alice2d()(X), rtol=1e-7, atol=1e-9
        ),
        lambda: _compare(
            "f(X) for a single row",
            f(one.copy()),
            lambda: _alice2d()(one),
            rtol=1e-7,
            atol=1e-9,
        ),
        ok="f(X) matches the exercise function on 50 points, shape (n,)",
    )


@mutant("lab02.1", "swapped coordinates")
def _f_swapped(X):
    return _alice2d()(X[:, ::-1])


@mutant("lab02.1", "0.5 factor dropped in the second term")
def _f_no_half(X):
    return np.sin(X[:, 0]) * np.cos(X[:, 1]) * 2


@mutant("lab02.1", "keeps a trailing axis, returns (n, 1)")
def _f_keepdims(X):
    return _alice2d()(X)[:, None]


@mutant("lab02.1", "sums over the batch, returns a scalar")
def _f_summed(X):
    return _alice2d()(X).sum()


@register("lab02.2", name="grad_f", exercise="2.2", points=2, reference=_alice2d_grad)
def check_grad(grad_f: Callable) -> tuple[bool, str]:
    """grad_f(X) for X (n, 2) returns (n, 2): the hand-written gradient, row by row."""
    X = _points(50, seed=2)
    return _chain(
        lambda: _compare(
            "grad_f(X)",
            grad_f(X.copy()),
            lambda: _alice2d_grad()(X),
            rtol=1e-7,
            atol=1e-9,
        ),
        ok="grad_f(X) matches the analytic gradient on 50 points, shape (n, 2)",
    )


@mutant("lab02.2", "missing the 0.5 chain-rule factor")
def _grad_no_half(X):
    half = 0.5 * X
    inner_term = np.stack(
        [
            np.cos(half[:, 0]) * np.cos(half[:, 1]),
            -np.sin(half[:, 0]) * np.sin(half[:, 1]),
        ],
        axis=-1,
    )  # the second term's derivative without its chain-rule factor 0.5
    return _alice2d_grad()(X) + 0.5 * inner_term


@mutant("lab02.2", "sign error in the derivative of cos")
def _grad_cos_sign(X):
    return _alice2d_grad()(X) * np.array([1.0, -1.0])


@mutant("lab02.2", "columns swapped")
def _grad_swapped(X):
    return _alice2d_grad()(X)[:, ::-1]


@mutant("lab02.2", "stacked along the wrong axis, returns (2, n)")
def _grad_transposed(X):
    return _alice2d_grad()(X).T


def _gd_reference(*, momentum: bool) -> Callable:
    from alice_lab.optim import gradient_descent

    if momentum:

        def momentum_descent(grad_fn, X0, lr, momentum, steps):
            return gradient_descent(
                grad_fn, X0, lr=lr, momentum=momentum, steps=steps
            ).path

        return momentum_descent

    def plain_descent(grad_fn, X0, lr, steps):
        return gradient_descent(grad_fn, X0, lr=lr, steps=steps).path

    return plain_descent


def _check_path(
    call: Callable, want: Callable, X0: np.ndarray, name: str
) -> tuple[bool, str]:
    X0_before = X0.copy()
    got = call(X0)
    if not np.array_equal(X0, X0_before):
        return False, f"{name} modified the starting points X0 in place"
    return _compare(name, got, want, rtol=1e-7, atol=1e-9)


@register(
    "lab02.3",
    name="gradient_descent",
    exercise="2.3",
    points=3,
    reference=lambda: _gd_reference(momentum=False),
)
def check_gradient_descent(gd: Callable) -> tuple[bool, str]:
    """gd(grad_fn, X0, lr, steps) returns the path (steps + 1, n, 2), X0 first."""
    from alice_lab.optim import gradient_descent

    grad = _alice2d_grad()
    X0 = np.random.default_rng(3).uniform(0.5, 9.5, size=(7, 2))

    def case(lr, steps):
        return lambda: _check_path(
            lambda x: gd(grad, x, lr=lr, steps=steps),
            lambda: gradient_descent(grad, X0, lr=lr, steps=steps).path,
            X0,
            f"the path (lr={lr}, steps={steps})",
        )

    return _chain(
        case(0.1, 25),
        case(0.3, 4),
        ok="paths match the reference from 7 starts, shape (steps + 1, n, 2)",
    )


@mutant("lab02.3", "returns only the last point")
def _gd_last(grad_fn, X0, lr, steps):
    return _gd_reference(momentum=False)(grad_fn, X0, lr, steps)[-1]


@mutant("lab02.3", "path without the starting point")
def _gd_no_start(grad_fn, X0, lr, steps):
    return _gd_reference(momentum=False)(grad_fn, X0, lr, steps)[1:]


@mutant("lab02.3", "gradient ascent (wrong sign)")
def _gd_ascent(grad_fn, X0, lr, steps):
    return _gd_reference(momentum=False)(lambda X: -grad_fn(X), X0, lr, steps)


@mutant("lab02.3", "appends the same array, updated in place")
def _gd_aliased(grad_fn, X0, lr, steps):
    return _descent_variant(grad_fn, X0, lr, 0.0, steps, aliased=True)


@mutant("lab02.3", "updates the caller's X0 in place")
def _gd_inplace(grad_fn, X0, lr, steps):
    return _descent_variant(grad_fn, X0, lr, 0.0, steps, in_place=True)


@register(
    "lab02.4",
    name="momentum_descent",
    exercise="2.4",
    points=3,
    reference=lambda: _gd_reference(momentum=True),
)
def check_momentum(gd: Callable) -> tuple[bool, str]:
    r"""gd(grad_fn, X0, lr, momentum, steps) returns the path with the book's momentum,
    :math:`g_t = -\eta\nabla f(x_{t-1}) + \lambda g_{t-1}`, :math:`g_0 = 0`."""
    from alice_lab.optim import gradient_descent

    grad = _alice2d_grad()
    X0 = np.random.default_rng(4).uniform(0.5, 9.5, size=(6, 2))

    def case(lr, lam, steps):
        return lambda: _check_path(
            lambda x: gd(grad, x, lr=lr, momentum=lam, steps=steps),
            lambda: gradient_descent(grad, X0, lr=lr, momentum=lam, steps=steps).path,
            X0,
            f"the path (lr={lr}, momentum={lam}, steps={steps})",
        )

    return _chain(
        case(0.1, 0.9, 30),
        case(0.05, 0.3, 10),
        case(0.1, 0.0, 5),
        ok="momentum paths match the reference for momentum 0, 0.3 and 0.9",
    )


def _descent_variant(
    grad_fn, X0, lr, lam, steps, *, sign=1.0, damp=False, g0=False,
    aliased=False, in_place=False,
):  # fmt: skip
    """Momentum descent (plain descent for ``lam=0``) with knobs that turn it into
    the common mistakes the mutants stand for: the momentum term's sign, a damped
    average, a velocity started at the first step, one array appended again and again
    (``aliased``), the caller's ``X0`` updated (``in_place``)."""
    point = X0 if in_place else np.array(X0, dtype=float)
    velocity = -lr * grad_fn(point) if g0 else np.zeros_like(point)
    visited = [point if aliased else point.copy()]
    for _ in range(steps):
        push = -lr * grad_fn(point)
        if damp:
            velocity = (1 - lam) * push + lam * velocity
        else:
            velocity = push + sign * lam * velocity
        if aliased or in_place:
            point += velocity
        else:
            point = point + velocity
        visited.append(point if aliased else point.copy())
    return np.stack(visited)


@mutant("lab02.4", "momentum term with the wrong sign")
def _mom_sign(grad_fn, X0, lr, momentum, steps):
    return _descent_variant(grad_fn, X0, lr, momentum, steps, sign=-1.0)


@mutant("lab02.4", "momentum ignored (plain gradient descent)")
def _mom_ignored(grad_fn, X0, lr, momentum, steps):
    return _gd_reference(momentum=False)(grad_fn, X0, lr, steps)


@mutant("lab02.4", "dampened average (1 - momentum) * step + momentum * g")
def _mom_damped(grad_fn, X0, lr, momentum, steps):
    return _descent_variant(grad_fn, X0, lr, momentum, steps, damp=True)


@mutant("lab02.4", "velocity started at the first step instead of zero")
def _mom_g0(grad_fn, X0, lr, momentum, steps):
    return _descent_variant(grad_fn, X0, lr, momentum, steps, g0=True)


@mutant("lab02.4", "returns only the last point")
def _mom_last(grad_fn, X0, lr, momentum, steps):
    return _gd_reference(momentum=True)(grad_fn, X0, lr, momentum, steps)[-1]


# --- lab 02, frameworks: single-point functions, vmap and autodiff ----------------


def _check_single_point(
    f_single: Callable, *, vmap: Callable, grad: Callable, asarray: Callable, seed: int
) -> tuple[bool, str]:
    """Shared by the JAX and PyTorch checks: value at one point, vmapped values, and the
    framework's gradient of ``f_single`` against the hand-written one."""
    X = _points(40, seed=seed)
    tol = {"rtol": 1e-5, "atol": 1e-6}  # float32 unless x64 is on
    return _chain(
        lambda: _compare(
            "f_single(x) at one point",
            f_single(asarray(X[0])),
            lambda: _alice2d()(X[:1])[0],
            **tol,
        ),
        lambda: _compare(
            "vmap(f_single)(X)",
            vmap(f_single)(asarray(X)),
            lambda: _alice2d()(X),
            **tol,
        ),
        lambda: _compare(
            "vmap(grad(f_single))(X)",
            vmap(grad(f_single))(asarray(X)),
            lambda: _alice2d_grad()(X),
            **tol,
        ),
        ok="one point, vmapped over 40 points, and its autodiff gradient all match",
    )


def _jax_reference():
    import jax.numpy as jnp

    def f_single(x):
        return jnp.sin(x[0]) * jnp.cos(x[1]) + jnp.sin(0.5 * x[0]) * jnp.cos(0.5 * x[1])

    return f_single


@register(
    "lab02.5", name="f_single_jax", exercise="2.5", points=2, reference=_jax_reference
)
def check_jax(f_single: Callable) -> tuple[bool, str]:
    """f_single(x) for x (2,) in jax.numpy; checked through jax.vmap and jax.grad."""
    import jax
    import jax.numpy as jnp

    return _check_single_point(
        f_single, vmap=jax.vmap, grad=jax.grad, asarray=jnp.asarray, seed=5
    )


@mutant("lab02.5", "swapped coordinates")
def _jax_swapped(x):
    return _jax_reference()(x[::-1])


@mutant("lab02.5", "batch indexing x[:, 0] (breaks on a single point)")
def _jax_batch_only(x):
    import jax.numpy as jnp

    return jnp.sin(x[:, 0]) * jnp.cos(x[:, 1]) + jnp.sin(0.5 * x[:, 0]) * jnp.cos(
        0.5 * x[:, 1]
    )


@mutant("lab02.5", "NumPy functions inside (cannot be traced by JAX)")
def _jax_numpy_inside(x):
    return np.sin(x[0]) * np.cos(x[1]) + np.sin(0.5 * x[0]) * np.cos(0.5 * x[1])


def _torch_reference():
    import torch

    def f_single(x):
        return torch.sin(x[0]) * torch.cos(x[1]) + torch.sin(0.5 * x[0]) * torch.cos(
            0.5 * x[1]
        )

    return f_single


@register(
    "lab02.6",
    name="f_single_torch",
    exercise="2.6",
    points=2,
    reference=_torch_reference,
)
def check_torch(f_single: Callable) -> tuple[bool, str]:
    """f_single(x) for x (2,) in torch; checked through torch.func.vmap and grad."""
    import torch
    from torch.func import grad, vmap

    return _check_single_point(
        f_single,
        vmap=vmap,
        grad=grad,
        asarray=lambda a: torch.as_tensor(a, dtype=torch.float64),
        seed=6,
    )


@mutant("lab02.6", "swapped coordinates")
def _torch_swapped(x):
    return _torch_reference()(x.flip(0))


@mutant("lab02.6", "slices x[0:1], returns shape (1,) instead of a scalar")
def _torch_slices(x):
    import torch

    return torch.sin(x[0:1]) * torch.cos(x[1:2]) + torch.sin(0.5 * x[0:1]) * torch.cos(
        0.5 * x[1:2]
    )


@mutant("lab02.6", "goes through NumPy (breaks vmap and autograd)")
def _torch_numpy_inside(x):
    import torch

    a = x.detach().numpy()
    return torch.as_tensor(
        np.sin(a[0]) * np.cos(a[1]) + np.sin(0.5 * a[0]) * np.cos(0.5 * a[1])
    )
