"""alice_lab.testfuncs: the chapter-2 test functions and their hand-derived gradients,
against finite differences, autodiff, loops and the numbers in the chapter digest."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import testfuncs as tf


def central_diff(f, x, h=1e-6):
    """Element-wise central difference of an element-wise f."""
    return (f(x + h) - f(x - h)) / (2 * h)


def grad_fd_2d(f, X, h=1e-6):
    """Central-difference gradient of a vectorised f: (n, 2) -> (n)."""
    cols = []
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        cols.append((f(X + e) - f(X - e)) / (2 * h))
    return np.stack(cols, axis=-1)


# --- one-dimensional functions -------------------------------------------------------


@pytest.mark.parametrize(
    "f, df",
    [(tf.quad_1d, tf.dquad_1d), (tf.xsin2x, tf.dxsin2x), (tf.saddle_1d, tf.dsaddle_1d)],
)
def test_1d_derivatives_match_finite_differences(f, df, rng):
    x = rng.uniform(-5, 5, size=200)
    np.testing.assert_allclose(df(x), central_diff(f, x), rtol=1e-7, atol=1e-7)


def test_quad_1d_values_and_minimum():
    # Box 2.6 (lines 790-812): f(0.5) = -0.5, f'(0.5) = -0.5; the minimum is at 0.75
    assert tf.quad_1d(np.float64(0.5)) == -0.5
    assert tf.dquad_1d(np.float64(0.5)) == -0.5
    assert tf.dquad_1d(np.float64(0.75)) == 0.0
    grid = np.linspace(-1, 3, 4001)
    assert grid[np.argmin(tf.quad_1d(grid))] == pytest.approx(0.75)


def test_xsin2x_stationary_points_c2_57():
    # C2-57: stationary points of x sin 2x and their values, from the digest
    for x_star, f_star in [(1.0144, 0.9099), (2.4566, -2.4072), (3.9893, 3.9584)]:
        assert abs(tf.dxsin2x(np.float64(x_star))) < 1e-3
        assert tf.xsin2x(np.float64(x_star)) == pytest.approx(f_star, abs=1e-4)
    x = np.linspace(-4, 4, 101)
    np.testing.assert_allclose(tf.xsin2x(x), tf.xsin2x(-x))  # even function
    assert tf.dxsin2x(np.float64(1.0)) == pytest.approx(np.sin(2) + 2 * np.cos(2))


def test_saddle_points_are_stationary_but_not_extrema_c2_48():
    assert tf.dsaddle_1d(np.float64(0.0)) == 0.0
    assert tf.saddle_1d(np.float64(-1e-3)) < 0 < tf.saddle_1d(np.float64(1e-3))
    origin = np.zeros(2)
    np.testing.assert_array_equal(tf.saddle_2d_grad(origin), [0.0, 0.0])
    t = np.array([1e-3, 1e-2, 1e-1])
    along_x1 = np.stack([t, 0 * t], axis=-1)
    along_x2 = np.stack([0 * t, t], axis=-1)
    assert np.all(tf.saddle_2d(along_x1) > 0) and np.all(tf.saddle_2d(along_x2) < 0)


# --- alice2d -------------------------------------------------------------------------


def test_alice2d_grad_matches_finite_differences_c2_60(rng):
    X = rng.uniform(0, 10, size=(1000, 2))
    err = np.max(np.abs(tf.alice2d_grad(X) - grad_fd_2d(tf.alice2d, X)))
    assert err < 1e-8  # the digest measured 9.4e-10


def test_saddle_2d_grad_matches_finite_differences(rng):
    X = rng.normal(size=(50, 2))
    np.testing.assert_allclose(
        tf.saddle_2d_grad(X), grad_fd_2d(tf.saddle_2d, X), atol=1e-6
    )


def test_alice2d_vectorised_equals_loop_c2_62(rng):
    X = rng.uniform(0, 10, size=(37, 2))
    looped = np.array([tf.alice2d(x) for x in X])
    formula = np.array(
        [np.sin(a) * np.cos(b) + np.sin(a / 2) * np.cos(b / 2) for a, b in X]
    )
    assert tf.alice2d(X).shape == (37,)
    assert tf.alice2d(X[0]).shape == ()
    np.testing.assert_array_equal(tf.alice2d(X), looped)
    np.testing.assert_allclose(tf.alice2d(X), formula, rtol=1e-14)
    assert tf.alice2d_grad(X).shape == (37, 2)
    assert tf.alice2d_grad(X[0]).shape == (2,)


def test_alice2d_extremes_on_the_box_c2_61():
    g = np.linspace(0, 10, 1001)
    X = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    f = tf.alice2d(X)
    i_min, i_max = np.argmin(f), np.argmax(f)
    assert f[i_min] == pytest.approx(-1.7602, abs=1e-4)
    np.testing.assert_allclose(X[i_min], [4.41, 6.28], atol=0.02)
    assert f[i_max] == pytest.approx(1.7602, abs=1e-4)
    np.testing.assert_allclose(X[i_max], [1.87, 0.0], atol=0.02)


def test_alice2d_grad_matches_torch_autograd(rng):
    torch = pytest.importorskip("torch")
    X = torch.tensor(rng.uniform(0, 10, size=(20, 2)), requires_grad=True)
    tf.alice2d(X).sum().backward()
    np.testing.assert_allclose(
        tf.alice2d_grad(X.detach()).numpy(), X.grad.numpy(), rtol=1e-12, atol=1e-14
    )


def test_alice2d_grad_matches_jax_grad_and_vmap_c2_63(rng):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    X = jnp.asarray(rng.uniform(0, 10, size=(20, 2)))
    single = lambda x: tf.alice2d(x)  # (2,) -> ()
    np.testing.assert_allclose(jax.vmap(single)(X), tf.alice2d(X), rtol=1e-14)
    np.testing.assert_allclose(
        jax.vmap(jax.grad(single))(X), tf.alice2d_grad(X), rtol=1e-12, atol=1e-14
    )


def test_alice2d_torch_vmap_c2_63(rng):
    torch = pytest.importorskip("torch")
    X = torch.tensor(rng.uniform(0, 10, size=(20, 2)))
    np.testing.assert_allclose(
        torch.func.vmap(tf.alice2d)(X), tf.alice2d(X), rtol=1e-14
    )


@pytest.mark.parametrize(
    "fn", [tf.alice2d, tf.alice2d_grad, tf.saddle_2d, tf.saddle_2d_grad]
)
@pytest.mark.parametrize("shape", [(3,), (4, 3), (), (2, 1)])
def test_2d_functions_reject_wrong_last_axis(fn, shape):
    with pytest.raises(ValueError, match=r"\(n, 2\).*got shape"):
        fn(np.zeros(shape))


def test_parity_across_backends(backend, rng):
    X = rng.uniform(0, 10, size=(25, 2))
    Xb = backend.asarray(X)
    for fn in (tf.alice2d, tf.alice2d_grad, tf.saddle_2d, tf.saddle_2d_grad):
        out = fn(Xb)
        assert type(out) is type(Xb)
        np.testing.assert_allclose(backend.to_numpy(out), fn(X), rtol=1e-13, atol=1e-14)
    x = X[:, 0] - 5
    for fn in (
        tf.quad_1d,
        tf.dquad_1d,
        tf.xsin2x,
        tf.dxsin2x,
        tf.saddle_1d,
        tf.dsaddle_1d,
    ):
        out = fn(backend.asarray(x))
        np.testing.assert_allclose(backend.to_numpy(out), fn(x), rtol=1e-13, atol=1e-14)


# --- the convex quadratic ------------------------------------------------------------


def spd(rng, d=5):
    M = rng.normal(size=(d, d))
    return M @ M.T + d * np.eye(d)


def test_convex_quadratic_value_gradient_and_minimiser(rng):
    A, b = spd(rng), rng.normal(size=5)
    f, grad = tf.convex_quadratic(A, b)
    x = rng.normal(size=5)
    assert f(x) == pytest.approx(0.5 * x @ A @ x - b @ x)
    np.testing.assert_allclose(grad(x), A @ x - b, rtol=1e-13)
    x_star = np.linalg.solve(A, b)
    np.testing.assert_allclose(grad(x_star), 0, atol=1e-12)
    others = x_star + rng.normal(size=(100, 5))
    assert np.all(f(others) > f(x_star))  # strictly convex: unique global minimum
    X = rng.normal(size=(7, 5))  # batched
    np.testing.assert_allclose(f(X), [f(r) for r in X], rtol=1e-13)
    np.testing.assert_allclose(grad(X), [grad(r) for r in X], rtol=1e-13)


def test_convex_quadratic_gradient_for_non_symmetric_A(rng):
    A, b = rng.normal(size=(4, 4)), rng.normal(size=4)
    f, grad = tf.convex_quadratic(A, b)
    x, h = rng.normal(size=4), 1e-6
    fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(grad(x), fd, rtol=1e-6, atol=1e-8)


def test_convex_quadratic_bad_shapes():
    with pytest.raises(ValueError, match=r"square.*\(2, 3\)"):
        tf.convex_quadratic(np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(ValueError, match=r"b must have shape \(2,\).*\(3,\)"):
        tf.convex_quadratic(np.eye(2), np.zeros(3))
    f, grad = tf.convex_quadratic(np.eye(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"x must have shape \(2,\).*\(3,\)"):
        grad(np.zeros(3))
    with pytest.raises(ValueError, match=r"x must have shape"):
        f(np.zeros((1, 1, 2)))


def test_convex_quadratic_parity(backend, rng):
    A, b, X = spd(rng, 3), rng.normal(size=3), rng.normal(size=(4, 3))
    f, grad = tf.convex_quadratic(backend.asarray(A), backend.asarray(b))
    f0, grad0 = tf.convex_quadratic(A, b)
    np.testing.assert_allclose(
        backend.to_numpy(f(backend.asarray(X))), f0(X), rtol=1e-13
    )
    np.testing.assert_allclose(
        backend.to_numpy(grad(backend.asarray(X))), grad0(X), rtol=1e-13
    )
