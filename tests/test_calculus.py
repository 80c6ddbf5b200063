"""Tests for alice_lab.calculus (§2.2-2.3.1): finite differences against closed forms,
``jax.grad`` / ``jax.jacobian`` / ``jax.hessian`` and ``torch.autograd``.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import calculus as C
from alice_lab.backend import array_namespace


def alice2d(X):
    """The lab function of "From theory to practice" (line 1136), (n, 2) -> (n)."""
    return np.sin(X[:, 0]) * np.cos(X[:, 1]) + np.sin(0.5 * X[:, 0]) * np.cos(
        0.5 * X[:, 1]
    )


def alice2d_grad(X):
    x1, x2 = X[:, 0], X[:, 1]
    g1 = np.cos(x1) * np.cos(x2) + 0.5 * np.cos(x1 / 2) * np.cos(x2 / 2)
    g2 = -np.sin(x1) * np.sin(x2) - 0.5 * np.sin(x1 / 2) * np.sin(x2 / 2)
    return np.stack([g1, g2], axis=1)


# --- derivatives --------------------------------------------------------------------


def test_derivative_of_sin_and_the_error_v_shape():
    """C2-30 (line 588): forward error is least near h = 1e-8, larger on both sides."""
    err = {
        h: abs(C.derivative(np.sin, 1.0, h=h) - np.cos(1.0))
        for h in (1e-1, 1e-8, 1e-12)
    }
    assert err[1e-8] < err[1e-1] and err[1e-8] < err[1e-12]
    assert np.isclose(err[1e-1], 4.3e-2, rtol=0.05)  # truncation, O(h)
    assert err[1e-8] < 1e-7
    central = abs(C.derivative(np.sin, 1.0, h=1e-5, scheme="central") - np.cos(1.0))
    assert central < 1e-10  # O(h^2): about 1.1e-11
    for scheme, tol in [("forward", 1e-7), ("central", 1e-9)]:  # default steps
        assert abs(C.derivative(np.sin, 1.0, scheme=scheme) - np.cos(1.0)) < tol


def test_derivative_elementary_rules():
    """C2-31/C2-32/C2-33 (lines 602-662): power, log, sin; sum, product, chain rules."""
    x = np.linspace(0.2, 3.0, 15)
    d = lambda f: C.derivative(f, x, scheme="central")
    np.testing.assert_allclose(d(lambda t: t**3), 3 * x**2, rtol=1e-8)
    np.testing.assert_allclose(d(np.log), 1 / x, rtol=1e-8)
    np.testing.assert_allclose(d(np.sin), np.cos(x), atol=1e-9)
    f, df = np.sin, np.cos
    g, dg = (lambda t: t**3), (lambda t: 3 * t**2)
    np.testing.assert_allclose(d(lambda t: f(t) + g(t)), df(x) + dg(x), rtol=1e-8)
    np.testing.assert_allclose(
        d(lambda t: f(t) * g(t)), df(x) * g(x) + f(x) * dg(x), rtol=1e-8
    )
    np.testing.assert_allclose(
        d(lambda t: f(g(t))), df(g(x)) * dg(x), rtol=1e-7, atol=1e-8
    )
    # x^2 - 1.5x: slope 2x - 1.5, negative left of the minimum at 0.75
    q = lambda t: t**2 - 1.5 * t
    assert (
        C.derivative(q, 0.25, scheme="central")
        < 0
        < C.derivative(q, 1.25, scheme="central")
    )
    assert abs(C.derivative(q, 0.75, scheme="central")) < 1e-9


def test_derivative_matches_autodiff():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    torch = pytest.importorskip("torch")
    f = lambda t: t * jnp.sin(2 * t) if isinstance(t, jax.Array) else t * np.sin(2 * t)
    x = np.linspace(-2, 3, 11)
    want = jax.vmap(jax.grad(f))(jnp.asarray(x))
    np.testing.assert_allclose(C.derivative(f, x, scheme="central"), want, atol=1e-9)
    xt = torch.tensor(x, requires_grad=True)
    (xt * torch.sin(2 * xt)).sum().backward()
    got = C.derivative(
        lambda t: t * torch.sin(2 * t), torch.as_tensor(x), scheme="central"
    )
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, xt.grad, atol=1e-9, rtol=1e-8)


def test_scheme_and_basis_errors():
    with pytest.raises(ValueError, match="scheme must be 'forward' or 'central'"):
        C.derivative(np.sin, 1.0, scheme="backward")
    with pytest.raises(ValueError, match="0 <= i < d=3"):
        C.basis(3, 3)
    np.testing.assert_array_equal(
        np.stack([C.basis(4, i) for i in range(4)]), np.eye(4)
    )


# --- gradients ----------------------------------------------------------------------


def test_grad_fd_lab_function(rng):
    """C2-34/C2-35/C2-60 (lines 672-708, 1136): FD gradient = the hand-derived one."""
    X = rng.uniform(0, 10, (50, 2))
    f1 = lambda x: alice2d(x[None])[0]
    G = np.stack([C.grad_fd(f1, x) for x in X])
    assert G.shape == (50, 2)
    np.testing.assert_allclose(G, alice2d_grad(X), atol=1e-9)
    np.testing.assert_allclose(
        C.grad_fd_batched(alice2d, X), alice2d_grad(X), atol=1e-9
    )
    np.testing.assert_allclose(
        C.grad_fd_batched(alice2d, X, scheme="forward"), alice2d_grad(X), atol=1e-6
    )
    parts = [C.partial(f1, X[0], i) for i in range(2)]
    np.testing.assert_allclose(parts, alice2d_grad(X[:1])[0], atol=1e-9)


def test_grad_fd_matches_jax_and_torch(rng):
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    A = rng.standard_normal((4, 4))
    x = rng.standard_normal(4)
    f_np = lambda z: np.log1p((z @ A @ z) ** 2) + np.sum(np.sin(z))
    f_jax = lambda z: (
        jax.numpy.log1p((z @ A @ z) ** 2) + jax.numpy.sum(jax.numpy.sin(z))
    )
    want = np.asarray(jax.grad(f_jax)(jax.numpy.asarray(x)))
    np.testing.assert_allclose(C.grad_fd(f_np, x), want, rtol=1e-8, atol=1e-9)
    At = torch.as_tensor(A)
    f_t = lambda z: torch.log1p((z @ At @ z) ** 2) + torch.sin(z).sum()
    xt = torch.tensor(x, requires_grad=True)
    f_t(xt).backward()
    got = C.grad_fd(f_t, torch.as_tensor(x))
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, xt.grad, rtol=1e-8, atol=1e-9)
    Xs = rng.standard_normal((6, 4))
    want_b = jax.vmap(jax.grad(f_jax))(jax.numpy.asarray(Xs))
    got_b = C.grad_fd_batched(lambda Z: np.array([f_np(z) for z in Z]), Xs)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-8, atol=1e-9)


def test_gradient_ops_parity(backend, rng):
    x, v = rng.standard_normal(3), rng.standard_normal(3)
    bx, bv = backend.asarray(x), backend.asarray(v)
    xp = array_namespace(bx)
    f = lambda z: xp.sum(xp.sin(z) * z) + z[0] * z[1]
    grad = np.sin(x) + x * np.cos(x) + np.array([x[1], x[0], 0.0])
    g = C.grad_fd(f, bx)
    assert array_namespace(g) is xp
    np.testing.assert_allclose(backend.to_numpy(g), grad, atol=1e-9)
    dd = C.directional_derivative(f, bx, bv)
    np.testing.assert_allclose(float(dd), grad @ v, atol=1e-9)
    p = C.partial(f, bx, 1)
    np.testing.assert_allclose(float(p), grad[1], atol=1e-9)
    e = C.basis(3, 2, like=bx)
    assert array_namespace(e) is xp
    Xb = backend.asarray(rng.standard_normal((5, 3)))
    fb = lambda Z: xp.sum(Z * Z, axis=1)
    np.testing.assert_allclose(
        backend.to_numpy(C.grad_fd_batched(fb, Xb)), 2 * backend.to_numpy(Xb), atol=1e-9
    )


def test_directional_derivative_is_dot_with_gradient(rng):
    """C2-36 (lines 716-738): D_v f = <grad f, v> for any v (central, rtol 1e-6)."""
    X = rng.uniform(0, 10, (20, 2))
    f1 = lambda x: alice2d(x[None])[0]
    for x in X:
        v = rng.standard_normal(2)
        got = C.directional_derivative(f1, x, v, h=1e-5)
        np.testing.assert_allclose(
            got, alice2d_grad(x[None])[0] @ v, rtol=1e-6, atol=1e-9
        )
    assert C.directional_derivative(f1, X[0], np.zeros(2)) == 0.0
    with pytest.raises(
        ValueError, match=r"v must have the shape of x, got x \(2,\) and v \(3,\)"
    ):
        C.directional_derivative(f1, X[0], np.ones(3))


def test_grad_fd_shapes_and_errors(rng):
    W = rng.standard_normal((3, 4))
    np.testing.assert_allclose(C.grad_fd(lambda M: np.sum(M**2), W), 2 * W, atol=1e-8)
    with pytest.raises(
        ValueError, match=r"needs f to return a scalar \(shape \(\)\), got shape \(3,\)"
    ):
        C.grad_fd(lambda z: W @ z, np.ones(4))
    with pytest.raises(ValueError, match=r"f should map \(n, d\) -> \(n\) = \(5,\)"):
        C.grad_fd_batched(lambda Z: Z, np.ones((5, 2)))
    with pytest.raises(ValueError, match=r"needs X : \(n, d\)"):
        C.grad_fd_batched(alice2d, np.ones(2))
    with pytest.raises(ValueError, match=r"partial needs x : \(d\)"):
        C.partial(np.sum, np.ones((2, 2)), 0)


# --- Jacobians ----------------------------------------------------------------------


def test_jacobian_fd_matches_autodiff(rng):
    """C2-37 (lines 744-758): (o, d) Jacobian against jax.jacobian and torch."""
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    A = rng.standard_normal((4, 3))
    x = rng.standard_normal(3)
    f_np = lambda z: np.tanh(A @ z) * np.sum(z**2)
    f_jax = lambda z: jax.numpy.tanh(A @ z) * jax.numpy.sum(z**2)
    J = C.jacobian_fd(f_np, x)
    assert J.shape == (4, 3)
    np.testing.assert_allclose(J, jax.jacobian(f_jax)(jax.numpy.asarray(x)), atol=1e-9)
    At = torch.as_tensor(A)
    f_t = lambda z: torch.tanh(At @ z) * torch.sum(z**2)
    want = torch.autograd.functional.jacobian(f_t, torch.as_tensor(x))
    got = C.jacobian_fd(f_t, torch.as_tensor(x))
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, want, atol=1e-9, rtol=0)
    Jf = C.jacobian_fd(f_np, x, scheme="forward")
    np.testing.assert_allclose(Jf, J, atol=1e-6)


def test_jacobian_fd_shapes():
    """o = 1 gives the gradient, d = o = 1 the derivative (line 758)."""
    x = np.array([0.5, -1.0, 2.0])
    assert C.jacobian_fd(lambda z: np.sum(z**2), x).shape == (3,)
    np.testing.assert_allclose(
        C.jacobian_fd(lambda z: np.sum(z**2), x), 2 * x, atol=1e-9
    )
    np.testing.assert_allclose(
        C.jacobian_fd(np.sin, np.array(0.3)), np.cos(0.3), atol=1e-10
    )
    assert C.jacobian_fd(lambda t: np.array([t, t**2]), np.array(2.0)).shape == (2,)


def test_jacobian_chain_rule(rng):
    """C2-38 (lines 758-772): J_{f o g}(x) = J_f(g(x)) J_g(x), (o, h)(h, d)."""
    A, B = rng.standard_normal((2, 4)), rng.standard_normal((4, 3))
    g = lambda z: np.sin(B @ z)
    f = lambda u: np.exp(A @ u)
    x = rng.standard_normal(3)
    Jfg = C.jacobian_fd(lambda z: f(g(z)), x)
    np.testing.assert_allclose(
        Jfg, C.jacobian_fd(f, g(x)) @ C.jacobian_fd(g, x), rtol=1e-7, atol=1e-8
    )


def test_jacobians_of_a_linear_map(backend, rng):
    """C2-41..C2-44 (lines 826-880): d(Wx)/dx = W; d(Wx)/dW ~ (o, o, d) = delta x_j."""
    o, d = 3, 4
    W, x, v = (
        rng.standard_normal((o, d)),
        rng.standard_normal(d),
        rng.standard_normal(o),
    )
    bW, bx, bv = backend.asarray(W), backend.asarray(x), backend.asarray(v)
    np.testing.assert_allclose(
        backend.to_numpy(C.jacobian_fd(lambda z: bW @ z, bx)), W, atol=1e-9
    )
    J = C.jacobian_linear_wrt_W(bx, o)
    assert array_namespace(J) is array_namespace(bx)
    Jn = backend.to_numpy(J)
    assert Jn.shape == (o, o, d)
    np.testing.assert_allclose(
        backend.to_numpy(C.jacobian_fd(lambda M: M @ bx, bW)), Jn, atol=1e-9
    )
    expected = np.einsum("ik,j->ikj", np.eye(o), x)
    np.testing.assert_array_equal(Jn, expected)
    np.testing.assert_array_equal(Jn.reshape(o, o * d), np.kron(np.eye(o), x[None]))
    assert np.count_nonzero(Jn) == o * d  # 12 of 36 for o=3, d=4
    vjp = C.vjp_linear_wrt_W(bv, bx)
    assert array_namespace(vjp) is array_namespace(bx)
    np.testing.assert_allclose(backend.to_numpy(vjp), np.einsum("i,ikj->kj", v, Jn))
    np.testing.assert_allclose(backend.to_numpy(vjp), np.outer(v, x))


def test_linear_jacobian_against_frameworks(rng):
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    W, x, v = (
        rng.standard_normal((3, 4)),
        rng.standard_normal(4),
        rng.standard_normal(3),
    )
    Jj = jax.jacobian(lambda M: M @ x)(jax.numpy.asarray(W))
    assert Jj.shape == (3, 3, 4)
    np.testing.assert_allclose(C.jacobian_linear_wrt_W(x, 3), Jj)
    Wt = torch.tensor(W, requires_grad=True)
    (Wt @ torch.as_tensor(x)).backward(torch.as_tensor(v))
    np.testing.assert_allclose(C.vjp_linear_wrt_W(v, x), Wt.grad.numpy())
    with pytest.raises(ValueError, match=r"x must be a vector \(d\)"):
        C.jacobian_linear_wrt_W(np.ones((2, 2)), 3)
    with pytest.raises(ValueError, match=r"o must be an int >= 1 \(a positive"):
        C.jacobian_linear_wrt_W(x, 0)
    with pytest.raises(ValueError, match=r"vectors \(o\) and \(d\)"):
        C.vjp_linear_wrt_W(v[:, None], x)


# --- Taylor -------------------------------------------------------------------------


def test_linearize_box_2_6():
    """C2-40 (lines 790-812): f(0.51) = -0.5049, linearisation -0.5050, gap h^2."""
    f = lambda x: x**2 - 1.5 * x
    df = lambda x: 2 * x - 1.5
    f_lin = C.linearize(f, 0.5, grad=df(0.5))
    assert np.isclose(f(0.51), -0.5049) and np.isclose(f_lin(0.51), -0.505)
    assert np.isclose(f(0.51) - f_lin(0.51), 0.01**2, rtol=1e-9)
    f_lin_fd = C.linearize(f, 0.5)  # gradient by finite differences
    grid = np.linspace(0, 1, 5)
    np.testing.assert_allclose(f_lin_fd(grid), -0.5 - 0.5 * (grid - 0.5), atol=1e-9)


def test_linearize_error_is_second_order(rng):
    """C2-39 (lines 776-788): the error / ||dx|| goes to 0; log-log slope about 2."""
    f = lambda z: np.sum(np.sin(z) * np.exp(z[::-1]))
    x0 = rng.standard_normal(3)
    f_lin = C.linearize(f, x0)
    u = rng.standard_normal(3)
    u /= np.linalg.norm(u)
    ts = np.array([1e-1, 1e-2, 1e-3])
    errs = np.array([abs(f(x0 + t * u) - f_lin(x0 + t * u)) for t in ts])
    assert np.all(np.diff(errs / ts) < 0)
    slopes = np.diff(np.log10(errs))
    np.testing.assert_allclose(slopes, -2.0, atol=0.15)
    batch = x0 + 0.1 * rng.standard_normal((7, 3))  # evaluates a batch of points
    assert f_lin(batch).shape == (7,)
    np.testing.assert_allclose(f_lin(batch)[2], f_lin(batch[2]))
    with pytest.raises(ValueError, match=r"x must end with x0's shape \(3,\)"):
        f_lin(np.ones(2))
    with pytest.raises(ValueError, match=r"grad must have the shape of x0 \(3,\)"):
        C.linearize(f, x0, grad=np.ones(2))


# --- Hessian, stationary points, convexity ------------------------------------------


def test_hessian_fd_matches_closed_form(rng):
    A = rng.standard_normal((3, 3))
    f = lambda z: np.sum(np.cos(A @ z)) + z[0] * z[1] ** 2
    x = rng.standard_normal(3)
    want = -A.T @ np.diag(np.cos(A @ x)) @ A
    want += np.array([[0, 2 * x[1], 0], [2 * x[1], 2 * x[0], 0], [0, 0, 0]])
    H = C.hessian_fd(f, x)
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_allclose(H, want, atol=1e-6)


def test_hessian_fd_parity(backend, rng):
    x = rng.standard_normal(3)
    bx = backend.asarray(x)
    xp = array_namespace(bx)
    f = lambda z: xp.sum(z**3) + z[0] * z[2]
    want = np.diag(6 * x) + np.array([[0, 0, 1.0], [0, 0, 0], [1.0, 0, 0]])
    H = C.hessian_fd(f, bx)
    assert array_namespace(H) is xp
    np.testing.assert_allclose(backend.to_numpy(H), want, atol=1e-6)


def test_classify_stationary_point():
    """§2.3.1 (lines 988-1006): minima, maxima, saddles; x^3 and x^4 are undecided."""
    z = np.zeros(2)
    H = lambda f: C.hessian_fd(f, z)
    assert (
        C.classify_stationary_point(H(lambda x: x[0] ** 2 + 3 * x[1] ** 2)) == "minimum"
    )
    assert (
        C.classify_stationary_point(H(lambda x: -(x[0] ** 2) - x[1] ** 2)) == "maximum"
    )
    assert (
        C.classify_stationary_point(H(lambda x: x[0] ** 2 - x[1] ** 2)) == "saddle"
    )  # C2-48
    assert (
        C.classify_stationary_point(H(lambda x: x[0] ** 2)) == "degenerate"
    )  # a valley
    one = np.zeros(1)
    assert (
        C.classify_stationary_point(C.hessian_fd(lambda x: x[0] ** 3, one))
        == "degenerate"
    )
    assert (
        C.classify_stationary_point(C.hessian_fd(lambda x: x[0] ** 4, one))
        == "degenerate"
    )
    assert C.classify_stationary_point(2.0) == "minimum"
    assert C.classify_stationary_point(np.array([[0, 1], [1, 0]])) == "saddle"
    with pytest.raises(ValueError, match=r"square \(d, d\) matrix, got shape \(2, 3\)"):
        C.classify_stationary_point(np.ones((2, 3)))


def test_classify_stationary_point_on_torch():
    torch = pytest.importorskip("torch")
    assert (
        C.classify_stationary_point(torch.diag(torch.tensor([-1.0, -2.0]))) == "maximum"
    )


def test_check_convexity_book_examples(rng):
    """C2-50 (lines 1018-1040): x^2 passes; x sin 2x fails at (0, 2, 1/2)."""
    xs1, xs2 = rng.uniform(-5, 5, 50), rng.uniform(-5, 5, 50)
    alphas = np.linspace(0, 1, 11)
    assert C.check_convexity(lambda x: x**2, xs1, xs2, alphas) is None
    assert C.check_convexity(np.abs, xs1, xs2, alphas) is None
    assert (
        C.check_convexity(lambda x: 3 * x - 1, xs1, xs2, alphas) is None
    )  # no false alarm
    x1, x2, a = C.check_convexity(lambda x: x * np.sin(2 * x), [0.0], [2.0], [0.5])
    f = lambda x: x * np.sin(2 * x)
    assert (x1, x2, a) == (0.0, 2.0, 0.5)
    assert f(1.0) > 0.5 * (f(0.0) + f(2.0))  # 0.909 > -0.757
    assert C.check_convexity(lambda x: x**3, xs1, xs2, alphas) is not None


def test_check_convexity_vectors_and_errors(rng):
    X1, X2 = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    alphas = [0.1, 0.5, 0.9]
    assert C.check_convexity(lambda x: x @ x, X1, X2, alphas) is None
    found = C.check_convexity(lambda x: -(x @ x), X1, X2, alphas)
    assert found is not None and found[0].shape == (3,)
    with pytest.raises(ValueError, match="must pair up, got 30 and 29"):
        C.check_convexity(np.sum, X1, X2[:29], alphas)
    with pytest.raises(ValueError, match=r"alphas must lie in \[0, 1\]"):
        C.check_convexity(np.sum, X1, X2, [1.5])
