"""The functional API (grad, vjp, jvp, Jacobians) and the chapter's algorithms.

References: ``jax.grad``/``jax.vjp``/``jax.jvp``/``jax.jacrev``/``jax.jacfwd``,
finite differences, SymPy, closed forms; float64 throughout.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import autodiff as ad
from alice_lab.autodiff import (
    checkpoint,
    gradient_flow,
    numerical,
    ops,
    subgradients,
    symbolic,
    trace,
)

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 5))  # non-square on purpose: c' = 3, c = 5
X5 = RNG.standard_normal(5)


# --- plain Python functions with NumPy operators --------------------------------------

PLAIN = {
    "A @ x": (lambda x: A @ x, "jnp"),
    "(x * x).sum()": (lambda x: (x * x).sum(), "jnp"),
    "np.tanh(x)": (lambda x: np.tanh(x), "jnp"),
    "np.exp(A @ x) / 2 + 1": (lambda x: np.exp(A @ x) / 2 + 1, "jnp"),
    "x @ x * np.sin(x[0])": (lambda x: x @ x * np.sin(x[0]), "jnp"),
}


def _jax_twin(f):
    """The same Python function, traced by JAX (NumPy calls through jax.numpy)."""
    import jax.numpy as jnp

    src = {
        "A @ x": lambda x: A @ x,
        "(x * x).sum()": lambda x: (x * x).sum(),
        "np.tanh(x)": jnp.tanh,
        "np.exp(A @ x) / 2 + 1": lambda x: jnp.exp(A @ x) / 2 + 1,
        "x @ x * np.sin(x[0])": lambda x: x @ x * jnp.sin(x[0]),
    }
    return src[f]


@pytest.mark.parametrize("name", list(PLAIN))
def test_vjp_jvp_and_jacobians_of_plain_functions_match_jax(name):
    import jax

    f = PLAIN[name][0]
    fj = _jax_twin(name)
    y, vjp_fn = ad.vjp(f, X5)
    yj, vjp_j = jax.vjp(fj, X5)
    np.testing.assert_allclose(y, yj, rtol=1e-13)
    u = RNG.standard_normal(np.shape(y))
    np.testing.assert_allclose(vjp_fn(u), vjp_j(u)[0], rtol=1e-12, atol=1e-14)
    v = RNG.standard_normal(5)
    y2, t = ad.jvp(f, X5, v)
    np.testing.assert_allclose(t, jax.jvp(fj, (X5,), (v,))[1], rtol=1e-12, atol=1e-14)
    J_rev = ad.jacobian(f, X5, mode="reverse")
    J_fwd = ad.jacobian(f, X5, mode="forward")
    np.testing.assert_allclose(J_rev, jax.jacrev(fj)(X5), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(J_fwd, J_rev, rtol=1e-12, atol=1e-14)
    if np.ndim(y) == 0:
        np.testing.assert_allclose(ad.grad(f)(X5), jax.grad(fj)(X5), rtol=1e-12)


def test_the_matrix_vjp_is_the_transpose_not_the_matrix():
    """Book line 3038 prints v^T W^T = [W v]^T; the VJP of x -> W x is W^T v."""
    v = RNG.standard_normal(3)
    _, vjp_fn = ad.vjp(lambda x: A @ x, X5)
    np.testing.assert_allclose(vjp_fn(v), A.T @ v, rtol=1e-14)
    assert vjp_fn(v).shape == (5,)
    with pytest.raises(ValueError):
        A @ v  # the printed form is not even defined for a non-square W


def test_weight_vjp_is_an_outer_product():
    v = RNG.standard_normal(3)
    _, vjp_fn = ad.vjp(lambda W, x: W @ x, A, X5)
    gW, gx = vjp_fn(v)
    np.testing.assert_allclose(gW, np.outer(v, X5), rtol=1e-14)
    np.testing.assert_allclose(gx, A.T @ v, rtol=1e-14)


def test_jacobian_call_counts_favour_reverse_mode_for_scalar_outputs():
    def loss(x):
        return np.tanh(A @ x).sum()

    rev = ad.jacobian_from_vjps(loss, X5)
    fwd = ad.jacobian_from_jvps(loss, X5)
    assert (rev.calls, rev.forward_passes) == (1, 1)
    assert (fwd.calls, fwd.forward_passes) == (5, 5)
    np.testing.assert_allclose(rev.matrix, fwd.matrix, rtol=1e-13)
    wide = ad.jacobian_from_vjps(lambda x: A @ x, X5)
    tall = ad.jacobian_from_jvps(lambda x: A @ x, X5)
    assert wide.calls == 3 and tall.calls == 5  # c' rows vs c columns
    np.testing.assert_allclose(wide.matrix, A, rtol=1e-15)
    np.testing.assert_allclose(tall.matrix, A, rtol=1e-15)


def test_dot_product_test_vjp_is_the_transpose_of_jvp():
    def f(x):
        return ops.softmax(A @ x) * np.sin(x[:3])

    for seed in range(3):
        r = np.random.default_rng(seed)
        u, v = r.standard_normal(3), r.standard_normal(5)
        _, vjp_fn = ad.vjp(f, X5)
        _, Jv = ad.jvp(f, X5, v)
        assert u @ Jv == pytest.approx(vjp_fn(u) @ v, rel=1e-13)


def test_grad_argnums_value_and_grad_and_errors():
    def f(W, x, scale):
        return scale * (np.tanh(W @ x) ** 2).sum()

    gW, gx = ad.grad(f, argnums=(0, 1))(A, X5, 2.0)
    y, gx_only = ad.value_and_grad(f, 1)(A, X5, 2.0)
    np.testing.assert_allclose(gx, gx_only, rtol=1e-15)
    assert gW.shape == A.shape and y == pytest.approx(f(A, X5, 2.0), rel=1e-15)
    with pytest.raises(ValueError, match="scalar-valued"):
        ad.grad(lambda x: A @ x)(X5)
    with pytest.raises(ValueError, match="out of range"):
        ad.grad(f, argnums=5)(A, X5, 2.0)
    _, vjp_fn = ad.vjp(lambda x: A @ x, X5)
    with pytest.raises(ValueError, match="output's shape"):
        vjp_fn(np.ones(5))
    with pytest.raises(ValueError, match="tangent must have"):
        ad.jvp(lambda x: x, X5, np.ones(3))
    np.testing.assert_array_equal(ad.grad(lambda x: 3.0)(X5), np.zeros(5))


def test_dual_numbers_follow_the_product_rule():
    a, b, c, d = 2.0, 3.0, -1.0, 0.5
    z = ad.Dual(a, b) * ad.Dual(c, d)
    assert float(z.primal) == a * c and float(z.tangent) == a * d + b * c
    y, t = ad.jvp(
        lambda x, w: np.sin(x) * w,
        (np.array(0.3), np.array(2.0)),
        (np.array(1.0), np.array(0.0)),
    )
    assert float(t) == pytest.approx(np.cos(0.3) * 2.0, rel=1e-15)
    assert ad.Dual(1.0).tangent is None  # a constant carries a symbolic zero
    with pytest.raises(ValueError, match="tangent must have"):
        ad.Dual(np.ones(3), np.ones(2))


# --- numerical and symbolic differentiation -------------------------------------------


def test_central_differences_cost_two_calls_per_parameter():
    for p in (1, 4, 9):
        x = RNG.standard_normal(p)
        g, calls = numerical.numerical_grad(lambda z: np.sum(np.sin(z) * z), x)
        assert calls == 2 * p
        np.testing.assert_allclose(g, np.sin(x) + x * np.cos(x), rtol=1e-8)
        _, calls_fwd = numerical.numerical_grad(
            lambda z: np.sum(z**2), x, scheme="forward"
        )
        assert calls_fwd == p + 1


def test_fd_error_curve_has_the_expected_slopes_and_v_shape():
    hs = np.logspace(-14, -1, 53)
    central = numerical.fd_error_curve(np.sin, np.cos, 1.0, hs, scheme="central")
    forward = numerical.fd_error_curve(np.sin, np.cos, 1.0, hs, scheme="forward")
    assert central.slope(1e-4, 1e-2) == pytest.approx(2.0, abs=0.1)
    assert forward.slope(1e-5, 1e-2) == pytest.approx(1.0, abs=0.1)
    assert 1e-7 <= central.best_h <= 1e-3 and 1e-10 <= forward.best_h <= 1e-6
    assert central.error[0] > 100 * central.error.min()  # the rounding arm of the V
    f32 = numerical.fd_error_curve(
        np.sin, np.cos, 1.0, hs, scheme="central", dtype="float32"
    )
    assert f32.error.min() > 100 * central.error.min()
    assert 1e-4 <= f32.best_h <= 1e-1
    with pytest.raises(ValueError, match="dtype"):
        numerical.fd_error_curve(np.sin, np.cos, 1.0, dtype="float16")


def test_symbolic_box_and_expression_swell():
    import sympy as sp

    box = symbolic.box_6_1()
    x, a, b = box["x"], box["a"], box["b"]
    assert (
        sp.simplify(box["df"] - (a * sp.cos(x) + b * x * sp.cos(x) + b * sp.sin(x)))
        == 0
    )
    shared, _ = symbolic.shared_subexpressions([box["f"], box["df"]])
    assert sp.sin(x) in [v for _, v in shared] and sp.cos(x) in [v for _, v in shared]
    rows = symbolic.expression_swell(6)
    assert [r.f_ops for r in rows] == [2 ** (k + 1) - 2 for k in range(1, 7)]
    assert all(
        r2.df_ops > 2.5 * r1.df_ops for r1, r2 in zip(rows[:-1], rows[1:], strict=True)
    )
    cse = np.array([r.cse_ops for r in rows])
    assert np.all(np.diff(cse, 2) == 2)  # quadratic after CSE, not exponential
    assert rows[-1].df_ops > 25 * rows[-1].cse_ops
    # the derivative agrees with the engine numerically
    f_num = sp.lambdify(sp.Symbol("x"), sp.diff(_nested(4), sp.Symbol("x")))

    def nested(z):
        for _ in range(4):
            z = np.sin(z) * z
        return z

    assert ad.grad(nested)(np.array(0.7)) == pytest.approx(f_num(0.7), rel=1e-13)


def _nested(k):
    import sympy as sp

    f = sp.Symbol("x")
    for _ in range(k):
        f = sp.sin(f) * f
    return f


# --- forward and reverse mode on a trace ----------------------------------------------


@pytest.mark.parametrize("widths", [(4, 6, 3), (5, 4, 4, 3, 2)])
def test_forward_and_reverse_mode_agree_with_jax(widths):
    import jax
    import jax.numpy as jnp

    fs, x, ws = trace.random_trace(widths, seed=len(widths))
    fwd = trace.forward_mode(fs, x, ws)
    rev = trace.reverse_mode(fs, x, ws)

    def y_of(ws_):
        h = jnp.asarray(x)
        for (c_in, c_out), w in zip(
            zip(widths[:-1], widths[1:], strict=False), ws_[:-1], strict=True
        ):
            h = jnp.tanh(h @ w[: c_in * c_out].reshape(c_in, c_out) + w[c_in * c_out :])
        return jnp.sum(h**2)

    want = jax.grad(y_of)([jnp.asarray(w) for w in ws])
    for gf, gr, gj in zip(fwd.grads, rev.grads, want, strict=True):
        np.testing.assert_allclose(gf, gj, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(gr, gj, rtol=1e-10, atol=1e-13)
    l = len(fs)
    assert fwd.cost.tangent_updates == l * (l - 1) // 2
    assert rev.cost.jacobians_built == 0 and rev.cost.vjp_calls == 2 * l
    assert fwd.cost.multiply_adds > rev.cost.multiply_adds


def test_forward_mode_cost_is_quadratic_in_the_batch():
    """Inputs and outputs (n, d): a tangent update costs (n d)^2 p (book line 2818)."""
    d, costs = 3, []
    for n in (2, 4, 8):
        (f1, p1), (f2, p2) = (
            trace.fc_primitive(d, d, n=n),
            trace.fc_primitive(d, d, n=n),
        )
        r = np.random.default_rng(0)
        res = trace.forward_mode(
            [f1, f2],
            r.standard_normal(d * n),
            [r.standard_normal(p1), r.standard_normal(p2)],
        )
        update = (n * d) ** 2 * p1  # [d h2 / d h1] (nd, nd) @ W~1 (nd, p1)
        assert res.cost.multiply_adds == update + n * d * (p1 + p2)  # + the 1^T W~ sums
        costs.append(update)
    assert costs[1] == 4 * costs[0] and costs[2] == 4 * costs[1]


def test_chain_product_is_associative_but_not_equally_cheap():
    Ms = [RNG.standard_normal((8, 8)) for _ in range(4)]
    r = RNG.standard_normal(8)
    left, f_left = trace.chain_product(r, Ms, "left")
    right, f_right = trace.chain_product(r, Ms, "right")
    np.testing.assert_allclose(left, right, rtol=1e-12)
    np.testing.assert_allclose(left, r @ Ms[0] @ Ms[1] @ Ms[2] @ Ms[3], rtol=1e-12)
    assert f_left == 4 * 64 and f_right == 3 * 512 + 64


# --- checkpointing --------------------------------------------------------------------


def _blocks(n, width=6, seed=0):
    r = np.random.default_rng(seed)
    blocks = [lambda h, W: np.tanh(h @ W) for _ in range(n)]
    ws = [r.standard_normal((width, width)) / np.sqrt(width) for _ in range(n)]
    return blocks, r.standard_normal((2, width)), ws


def test_checkpointing_the_books_example():
    blocks, x, ws = _blocks(4)
    plain = checkpoint.checkpointed_gradients(blocks, x, ws)
    ckpt = checkpoint.checkpointed_gradients(blocks, x, ws, stored=[1, 2, 4])
    assert plain.evaluations == 4 and ckpt.evaluations == 5
    assert (
        ckpt.evaluations / plain.evaluations
        == 1.25
        == ad.recompute_factor(4, [1, 2, 4])
    )
    assert ckpt.recomputed == [3] and ckpt.peak_stored == 3 and plain.peak_stored == 4
    for g1, g2 in zip(plain.grads, ckpt.grads, strict=True):
        np.testing.assert_array_equal(g1, g2)  # bit for bit
    np.testing.assert_array_equal(plain.grad_x, ckpt.grad_x)
    i = ckpt.events.index(("recompute", 3))
    assert ckpt.events[i - 1] == ("backward", 4)
    assert all(kind == "backward" for kind, _ in ckpt.events[i + 1 :])


def test_checkpointing_matches_torch_and_fewer_stores_cost_more():
    import itertools

    import torch

    blocks, x, ws = _blocks(4, seed=1)
    plain = checkpoint.checkpointed_gradients(blocks, x, ws)
    tw = [torch.tensor(w, requires_grad=True) for w in ws]
    h = torch.tensor(x)
    for W in tw:
        h = torch.tanh(h @ W)
    h.sum().backward()
    for g, W in zip(plain.grads, tw, strict=True):
        np.testing.assert_allclose(g, W.grad.numpy(), rtol=1e-12)
    by_size = {}
    for k in range(5):
        for stored in itertools.combinations(range(1, 5), k):
            run = checkpoint.checkpointed_gradients(blocks, x, ws, stored=stored)
            by_size.setdefault(k, set()).add(run.evaluations)
            for g1, g2 in zip(plain.grads, run.grads, strict=True):
                np.testing.assert_array_equal(g1, g2)
    assert by_size == {k: {8 - k} for k in range(5)}
    with pytest.raises(ValueError, match="numbered 1..4"):
        checkpoint.checkpointed_gradients(blocks, x, ws, stored=[0])


# --- vanishing gradients and subgradients ---------------------------------------------


def test_underflow_depths():
    assert gradient_flow.underflow_depth(0.25, "float32") == (64, 75)
    assert gradient_flow.underflow_depth(0.25, "float64")[1] == 538
    assert gradient_flow.chain_derivative("sigmoid", 100, dtype="float32") == 0.0
    assert gradient_flow.chain_derivative("sigmoid", 100, dtype="float64") > 0.0
    for depth in (1, 5, 20):
        d = gradient_flow.chain_derivative("sigmoid", depth)
        assert 0 < d <= 0.25**depth
        assert gradient_flow.chain_derivative("linear x1.5", depth) == pytest.approx(
            1.5**depth, rel=1e-13
        )
        assert gradient_flow.chain_derivative("relu", depth, x0=0.5) == 1.0


def test_adjoint_norms_shrink_for_sigmoid_and_never_grow_for_orthogonal_relu():
    sig = gradient_flow.adjoint_norms(30, activation="sigmoid")
    relu = gradient_flow.adjoint_norms(30, activation="relu", orthogonal=True)
    assert sig[0] < 1e-10 * sig[-1]
    assert np.all(np.diff(relu) >= -1e-12)  # 0/1 masks and rotations cannot increase
    assert sig[-1] == pytest.approx(np.sqrt(32))


def test_subgradients():
    assert subgradients.subdifferential(np.abs, 0.0) == (-1.0, 1.0)
    assert subgradients.subdifferential(lambda x: np.maximum(x, 0.0), 0.0) == (0.0, 1.0)
    lo, hi = subgradients.subdifferential(lambda x: x**2, 0.7)
    assert lo <= 1.4 <= hi and hi - lo <= 0.011  # one slope, up to the grid's 0.005
    assert not subgradients.is_subgradient(np.abs, 0.0, -1.01)
    got = {
        k: subgradients.ad_derivative_at(f)
        for k, f in subgradients.RELU_VARIANTS.items()
    }
    assert got == {
        "relu(x)": 0.0,
        "maximum(x, 0)": 0.5,
        "(x + |x|) / 2": 0.5,
        "relu(x) - relu(-x)  (= x)": 0.0,
    }
    path = subgradients.subgradient_descent(
        lambda x: np.sign(x - 3), 0.0, 10_000, lambda t: 1 / (t + 1)
    )
    assert abs(path[-1] - 3) < 0.05
    const = subgradients.subgradient_descent(lambda x: np.sign(x - 3), 0.0, 200, 0.3)
    assert 0.2 < np.ptp(const[-50:]) <= 0.3 + 1e-12
