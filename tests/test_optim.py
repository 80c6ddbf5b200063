"""alice_lab.optim: gradient descent and momentum against hand loops, closed forms,
torch.optim.SGD, every backend, and the book's convergence claims (§2.3)."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import optim, testfuncs as tf
from alice_lab.optim import DivergenceError, gradient_descent

STARTS = np.array([[1.0, 2.0], [5.0, 5.0], [8.0, 1.0], [2.5, 9.0]])


def hand_loop(grad_fn, x0, lr, lam, steps):
    """The book's update written out in the most literal way (NumPy)."""
    x, g, path = x0.copy(), np.zeros_like(x0), [x0.copy()]
    for _ in range(steps):
        if lam == 0:
            x = x - lr * grad_fn(x)
        else:
            g = -lr * grad_fn(x) + lam * g
            x = x + g
        path.append(x)
    return np.stack(path)


# --- the update rule ---------------------------------------------------------------


def test_plain_gd_equals_hand_loop_bit_for_bit_c2_55():
    res = gradient_descent(tf.alice2d_grad, STARTS, lr=0.1, steps=200)
    expected = hand_loop(tf.alice2d_grad, STARTS, 0.1, 0.0, 200)
    np.testing.assert_array_equal(res.path, expected)
    np.testing.assert_array_equal(res.x, expected[-1])
    assert res.path.shape == (201, 4, 2) and res.grad_norms.shape == (201, 4)
    assert res.steps_taken == 200 and not res.converged


def test_momentum_equals_hand_loop():
    res = gradient_descent(tf.alice2d_grad, STARTS, lr=0.05, momentum=0.9, steps=150)
    expected = hand_loop(tf.alice2d_grad, STARTS, 0.05, 0.9, 150)
    np.testing.assert_allclose(res.path, expected, rtol=1e-13, atol=1e-13)


def test_momentum_equals_unrolled_closed_form_c2_56():
    lr, lam, T = 0.05, 0.7, 60
    res = gradient_descent(tf.alice2d_grad, STARTS, lr=lr, momentum=lam, steps=T)
    grads = tf.alice2d_grad(res.path[:-1])  # (T, k, 2): ∇f(x_0) .. ∇f(x_{T-1})
    steps = np.diff(res.path, axis=0)  # g_t = x_t - x_{t-1}, t = 1..T
    closed = optim.momentum_unrolled(grads, lr, lam)
    assert closed.shape == grads.shape
    np.testing.assert_allclose(closed, steps, rtol=1e-9, atol=1e-12)
    # an explicit double sum for one start, as in the book
    t = 7
    manual = -lr * sum(lam ** (n - 1) * grads[t - n, 0] for n in range(1, t + 1))
    np.testing.assert_allclose(closed[t - 1, 0], manual, rtol=1e-13)


def test_momentum_unrolled_lambda_zero_is_plain_steps():
    grads = np.random.default_rng(1).normal(size=(5, 3))
    np.testing.assert_array_equal(
        optim.momentum_unrolled(grads, 0.1, 0.0), -0.1 * grads
    )


def test_zero_d_start_for_a_scalar_function():
    res = gradient_descent(tf.dquad_1d, np.float64(2.0), lr=0.25, steps=3)
    assert res.path.shape == (4,) and res.grad_norms.shape == (4,)
    np.testing.assert_allclose(res.grad_norms, np.abs(tf.dquad_1d(res.path)))


def test_list_start_becomes_numpy_float64():
    res = gradient_descent(tf.saddle_2d_grad, [1.0, 0.0], lr=0.25, steps=2)
    assert isinstance(res.x, np.ndarray) and res.x.dtype == np.float64
    np.testing.assert_array_equal(res.path[:, 0], [1.0, 0.5, 0.25])


def test_grad_norms_are_norms_of_the_gradient_along_the_path():
    res = gradient_descent(tf.alice2d_grad, STARTS, lr=0.1, momentum=0.3, steps=20)
    expected = np.linalg.norm(tf.alice2d_grad(res.path), axis=-1)
    np.testing.assert_allclose(res.grad_norms, expected, rtol=1e-14)


def test_progress_bar_runs(capsys):
    res = gradient_descent(tf.dquad_1d, np.array([2.0]), lr=0.1, steps=5, progress=True)
    assert res.steps_taken == 5


# --- backends ------------------------------------------------------------------------


@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_parity_across_backends(backend, lam):
    ref = gradient_descent(tf.alice2d_grad, STARTS, lr=0.1, momentum=lam, steps=100)
    res = gradient_descent(
        tf.alice2d_grad, backend.asarray(STARTS), lr=0.1, momentum=lam, steps=100
    )
    assert type(res.path) is type(backend.asarray(STARTS))
    for name in ("x", "path", "grad_norms"):
        np.testing.assert_allclose(
            backend.to_numpy(getattr(res, name)),
            getattr(ref, name),
            rtol=1e-10,
            atol=1e-12,
        )


def test_matches_torch_sgd_momentum():
    torch = pytest.importorskip("torch")
    lr, lam, T = 0.05, 0.9, 80
    res = gradient_descent(tf.alice2d_grad, STARTS, lr=lr, momentum=lam, steps=T)

    p = torch.nn.Parameter(torch.tensor(STARTS))
    opt = torch.optim.SGD([p], lr=lr, momentum=lam, dampening=0.0)
    torch_path, buffers = [p.detach().clone()], []
    for _ in range(T):
        opt.zero_grad()
        tf.alice2d(p).sum().backward()
        opt.step()
        torch_path.append(p.detach().clone())
        buffers.append(opt.state[p]["momentum_buffer"].clone())
    torch_path = torch.stack(torch_path).numpy()
    np.testing.assert_allclose(res.path, torch_path, rtol=1e-10, atol=1e-12)
    # torch keeps b_t = λ b_{t-1} + ∇f(x_{t-1}) and steps x_t = x_{t-1} - η b_t:
    # for a constant η that is the book's g_t = -η b_t.
    book_g = np.diff(res.path, axis=0)
    np.testing.assert_allclose(book_g, -lr * torch.stack(buffers).numpy(), atol=1e-12)
    # the optimiser's state doubles the memory of the parameters (C2-59)
    assert opt.state[p]["momentum_buffer"].numel() == p.numel()


# --- the book's convergence claims ----------------------------------------------------


@pytest.mark.parametrize(
    "lr, regime",
    [(0.1, "monotone"), (0.5, "one step"), (0.8, "oscillating"), (1.0, "cycle")],
)
def test_quad_1d_step_size_regimes_c2_47(lr, regime):
    x0 = np.array([2.0])
    res = gradient_descent(tf.dquad_1d, x0, lr=lr, steps=30)
    t = np.arange(31)[:, None]
    np.testing.assert_allclose(
        res.path - 0.75, (1 - 2 * lr) ** t * (x0 - 0.75), rtol=1e-12, atol=1e-15
    )
    err = res.path[:, 0] - 0.75
    if regime == "monotone":
        assert np.all(np.diff(err) < 0) and np.all(err > 0)
    elif regime == "one step":
        assert np.all(err[1:] == 0)
    elif regime == "oscillating":
        assert np.all(np.sign(err[1:]) != np.sign(err[:-1])) and abs(err[-1]) < 1e-2
    else:  # η = 1: the iterate bounces between two points forever
        np.testing.assert_allclose(np.abs(err), abs(err[0]))


def test_quad_1d_diverges_for_lr_above_one_c2_47():
    with pytest.raises(
        DivergenceError, match=r"diverged at step \d+.*lower lr"
    ) as info:
        gradient_descent(tf.dquad_1d, np.array([2.0]), lr=1.5, steps=1000)
    err = info.value
    assert isinstance(err, RuntimeError) and 0 < err.step < 1000
    assert np.all(np.isfinite(err.last_x))
    assert "Last finite iterate" in str(err)


def test_nonfinite_gradient_raises_divergence():
    def grad(x):  # finite at the start, NaN once x goes negative
        with np.errstate(invalid="ignore"):
            return np.sqrt(x) + 1.0

    with pytest.raises(DivergenceError, match="the gradient became non-finite"):
        gradient_descent(grad, np.array([1.0]), lr=1.0, steps=10)


def test_spd_quadratic_converges_to_the_solution_c2_52(rng):
    M = rng.normal(size=(5, 5))
    A, b = M @ M.T + 5 * np.eye(5), rng.normal(size=5)
    _, grad = tf.convex_quadratic(A, b)
    lr = 1.0 / np.linalg.eigvalsh(A).max()
    starts = rng.normal(scale=10, size=(20, 5))
    for lam in (0.0, 0.5):
        res = gradient_descent(grad, starts, lr=lr, momentum=lam, steps=3000, tol=1e-10)
        assert res.converged
        x_star = np.linalg.solve(A, b)
        np.testing.assert_allclose(res.x, np.broadcast_to(x_star, (20, 5)), atol=1e-9)


def test_saddle_start_stays_and_perturbation_escapes_c2_48():
    stay = gradient_descent(tf.saddle_2d_grad, np.zeros(2), lr=0.1, steps=50)
    np.testing.assert_array_equal(stay.x, [0.0, 0.0])
    with pytest.raises(DivergenceError):  # x2 grows by 1.2 per step: unbounded below
        gradient_descent(tf.saddle_2d_grad, np.array([0.0, 1e-8]), lr=0.1, steps=5000)
    escape = gradient_descent(
        tf.saddle_2d_grad, np.array([0.0, 1e-8]), lr=0.1, steps=150
    )
    assert abs(escape.x[1]) > 1.0


def test_exact_line_search_gives_orthogonal_gradients_c2_54(rng):
    M = rng.normal(size=(5, 5))
    A, b = M @ M.T + np.eye(5), rng.normal(size=5)
    x = rng.normal(size=5)
    for _ in range(10):
        g = A @ x - b
        eta = optim.exact_line_search_quadratic(A, b, x)
        # η* minimises f(x - η g): compare with a dense scan
        f, _ = tf.convex_quadratic(A, b)
        etas = np.linspace(0.5 * eta, 1.5 * eta, 1001)
        assert f(x - eta * g) <= f(x - etas[:, None] * g).min() + 1e-12
        x = x - eta * g
        g_next = A @ x - b
        cos = g @ g_next / (np.linalg.norm(g) * np.linalg.norm(g_next))
        assert abs(cos) < 1e-8


def test_exact_line_search_batched_and_at_the_minimum(rng):
    A, b = np.diag([1.0, 3.0]), np.array([1.0, 1.0])
    X = rng.normal(size=(4, 2))
    etas = optim.exact_line_search_quadratic(A, b, X)
    single = [optim.exact_line_search_quadratic(A, b, x) for x in X]
    np.testing.assert_allclose(etas, single)
    assert optim.exact_line_search_quadratic(A, b, np.linalg.solve(A, b)) == 0.0
    with pytest.raises(ValueError, match=r"A \(d, d\)"):
        optim.exact_line_search_quadratic(A, b, np.zeros(3))


def test_momentum_speeds_up_small_step_c2_58():
    g = np.linspace(0.5, 9.5, 4)
    X0 = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    iters = {}
    for lam in (0.0, 0.3):
        res = gradient_descent(tf.alice2d_grad, X0, lr=0.01, momentum=lam, steps=6000)
        below = res.grad_norms < 1e-6  # (T+1, 16)
        assert below[-1].all()
        iters[lam] = np.median(below.argmax(axis=0))
    assert iters[0.3] < iters[0.0]


def test_alice2d_gd_reaches_stationary_points_from_every_start_c2_51():
    g = np.linspace(0.5, 9.5, 10)
    X0 = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    res = gradient_descent(
        tf.alice2d_grad, X0, lr=0.1, momentum=0.9, steps=3000, tol=1e-6
    )
    assert res.converged and res.steps_taken < 3000
    ends = np.unique(np.round(res.x, 2), axis=0)
    assert len(ends) >= 2  # non-convex: where you end depends on where you start


# --- tol -----------------------------------------------------------------------------


def test_tol_stops_early_and_keeps_the_path_consistent():
    res = gradient_descent(tf.dquad_1d, np.array([2.0]), lr=0.1, steps=1000, tol=1e-6)
    T = res.steps_taken
    assert res.converged and 0 < T < 1000
    assert res.path.shape == (T + 1, 1) and res.grad_norms.shape == (T + 1,)
    assert res.grad_norms[-1] < 1e-6 <= res.grad_norms[-2]
    full = gradient_descent(tf.dquad_1d, np.array([2.0]), lr=0.1, steps=T)
    np.testing.assert_array_equal(res.path, full.path)


def test_tol_waits_for_every_start():
    X0 = np.array([[0.75], [100.0]])  # the first start is already at the minimum
    res = gradient_descent(tf.dquad_1d, X0, lr=0.1, steps=1000, tol=1e-6)
    assert res.converged and res.steps_taken > 10
    assert np.all(res.grad_norms[-1] < 1e-6)


def test_tol_at_a_stationary_start_takes_no_step():
    res = gradient_descent(tf.dquad_1d, np.array([0.75]), lr=0.1, steps=10, tol=1e-8)
    assert res.steps_taken == 0 and res.converged and res.path.shape == (1, 1)


def test_zero_steps():
    res = gradient_descent(tf.dquad_1d, np.array([2.0]), lr=0.1, steps=0)
    assert res.steps_taken == 0 and not res.converged
    np.testing.assert_array_equal(res.path, [[2.0]])


# --- bad input -----------------------------------------------------------------------

X = np.array([1.0, 2.0])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(lr=0.0, steps=5), "lr must be a finite number > 0"),
        (dict(lr=-0.1, steps=5), "lr must be a finite number > 0"),
        (dict(lr=float("nan"), steps=5), "lr must be a finite number > 0"),
        (dict(lr=float("inf"), steps=5), "lr must be a finite number > 0"),
        (dict(lr="big", steps=5), "lr must be a real number"),
        (dict(lr=0.1, momentum=1.0, steps=5), r"momentum must lie in \[0, 1\)"),
        (dict(lr=0.1, momentum=-0.1, steps=5), r"momentum must lie in \[0, 1\)"),
        (dict(lr=0.1, momentum=None, steps=5), "momentum must be a number"),
        (dict(lr=0.1, steps=-1), "steps must be an int >= 0"),
        (dict(lr=0.1, steps=2.5), "steps must be an int >= 0"),
        (dict(lr=0.1, steps=True), "steps must be an int >= 0"),
        (dict(lr=0.1, steps=5, tol=0.0), "tol must be a finite number > 0"),
    ],
)
def test_bad_hyper_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gradient_descent(tf.alice2d_grad, X, **kwargs)


@pytest.mark.parametrize("bad", [np.array([np.nan, 1.0]), np.array([1.0, np.inf])])
def test_nonfinite_start(bad):
    with pytest.raises(ValueError, match="x0 contains NaN or inf"):
        gradient_descent(tf.alice2d_grad, bad, lr=0.1, steps=5)


def test_integer_start_is_cast_to_float64():
    res = gradient_descent(tf.alice2d_grad, np.array([1, 2]), lr=0.1, steps=5)
    ref = gradient_descent(tf.alice2d_grad, np.array([1.0, 2.0]), lr=0.1, steps=5)
    assert res.x.dtype == np.float64
    np.testing.assert_array_equal(res.path, ref.path)


def test_grad_fn_of_the_wrong_shape_names_both_shapes():
    with pytest.raises(ValueError, match=r"returned shape \(\) for x of shape \(2,\)"):
        gradient_descent(tf.alice2d, X, lr=0.1, steps=5)
    with pytest.raises(ValueError, match="shaped like x"):
        gradient_descent(lambda x: 1.0, X, lr=0.1, steps=5)


def test_grad_fn_of_another_library():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="same library"):
        gradient_descent(lambda x: torch.as_tensor(x), X, lr=0.1, steps=5)


def test_nonfinite_gradient_at_the_start():
    with pytest.raises(ValueError, match="NaN or inf at the starting point"):
        gradient_descent(lambda x: x * np.nan, X, lr=0.1, steps=5)


def test_helpers_bad_shapes():
    with pytest.raises(ValueError, match="same shape"):
        optim.is_descent_direction(np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        optim.steepest_direction(np.float64(1.0))
    with pytest.raises(ValueError, match="time axis"):
        optim.momentum_unrolled(np.float64(1.0), 0.1, 0.5)


# --- descent directions --------------------------------------------------------------


def test_descent_directions(rng):
    g = rng.normal(size=(200, 3))
    p = rng.normal(size=(200, 3))
    np.testing.assert_array_equal(
        optim.is_descent_direction(g, p), np.sum(g * p, -1) < 0
    )
    d = optim.steepest_direction(g)
    np.testing.assert_allclose(np.linalg.norm(d, axis=-1), 1.0)
    assert np.all(optim.is_descent_direction(g, d))
    # the steepest direction has the lowest directional derivative among unit vectors
    units = p / np.linalg.norm(p, axis=-1, keepdims=True)
    assert np.all(np.sum(g * d, -1) <= np.sum(g * units, -1) + 1e-12)
    np.testing.assert_array_equal(optim.steepest_direction(np.zeros(3)), np.zeros(3))


def test_helpers_parity(backend, rng):
    g, p = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    M = rng.normal(size=(3, 3))
    A, b = M @ M.T + np.eye(3), rng.normal(size=3)
    B = backend.asarray
    cases = [
        (optim.steepest_direction(B(g)), optim.steepest_direction(g)),
        (optim.is_descent_direction(B(g), B(p)), optim.is_descent_direction(g, p)),
        (
            optim.exact_line_search_quadratic(B(A), B(b), B(p)),
            optim.exact_line_search_quadratic(A, b, p),
        ),
        (optim.momentum_unrolled(B(g), 0.1, 0.6), optim.momentum_unrolled(g, 0.1, 0.6)),
    ]
    for got, want in cases:
        np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-13, atol=1e-15)


# --- Adam and AdamW (§2.3, line 1098; §9.2.1, lines 4365-4369) -----------------------

A_ADAM = np.diag([1.0, 10.0])
B_ADAM = np.array([1.0, -2.0])


def _grad(w):
    return A_ADAM @ w - B_ADAM


def _torch_path(opt_cls, steps, **kw):
    import torch

    w = torch.tensor([0.5, 0.5], dtype=torch.float64, requires_grad=True)
    opt = opt_cls([w], **kw)
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * w @ torch.as_tensor(A_ADAM) @ w - torch.as_tensor(B_ADAM) @ w).backward()
        opt.step()
    return w.detach().numpy()


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_and_adamw_match_torch(decoupled):
    torch = pytest.importorskip("torch")
    opt = torch.optim.AdamW if decoupled else torch.optim.Adam
    ref = _torch_path(opt, 25, lr=0.1, weight_decay=0.5)
    path = optim.adam(
        _grad,
        np.array([0.5, 0.5]),
        lr=0.1,
        steps=25,
        weight_decay=0.5,
        decoupled=decoupled,
    )
    np.testing.assert_allclose(path[-1], ref, atol=1e-12)


def test_adam_l2_differs_from_adamw():
    kw = dict(lr=0.1, steps=25, weight_decay=0.5)
    a = optim.adam(_grad, np.array([0.5, 0.5]), **kw)[-1]
    b = optim.adam(_grad, np.array([0.5, 0.5]), decoupled=True, **kw)[-1]
    assert np.abs(a - b).max() > 1e-3
