"""Fully-connected layers and MLPs: the generic code against torch.nn (nn.Linear,
autograd, F.cross_entropy), jax.grad/jit of the same pure function, hand-written loops,
and the initialisation schemes against their variance formulas and torch.nn.init."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

from alice_lab import layers as L
from alice_lab.optim import tree_leaves

SIZES = [5, 7, 6, 3]


def _data(rng, n=11, c=5, m=3):
    return rng.standard_normal((n, c)), rng.integers(0, m, size=n)


# --- initialisation ----------------------------------------------------------------


@pytest.mark.parametrize(
    "scheme, var",
    [("normal", 1.0), ("lecun", 1 / 400), ("glorot", 2 / 700), ("he", 2 / 400)],
)
@pytest.mark.parametrize("distribution", ["normal", "uniform"])
def test_init_variance_follows_the_scheme(scheme, var, distribution):
    p = L.fc_init(400, 300, seed=1, scheme=scheme, distribution=distribution)
    assert p["W"].shape == (400, 300) and p["b"].shape == (300,)
    assert abs(p["W"].mean()) < 4 * np.sqrt(var / p["W"].size)
    assert p["W"].var() == pytest.approx(var, rel=0.02)
    if distribution == "uniform":
        assert np.abs(p["W"]).max() <= np.sqrt(3 * var) + 1e-15
    assert (p["b"].std() > 0.5) if scheme == "normal" else not p["b"].any()


def test_init_matches_torch_nn_init_and_is_seeded():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    w = torch.empty(300, 400, dtype=torch.float64)  # torch stores (c', c)
    for scheme, init in [
        ("he", lambda t: torch.nn.init.kaiming_normal_(t, nonlinearity="relu")),
        ("glorot", torch.nn.init.xavier_normal_),
        ("lecun", lambda t: torch.nn.init.kaiming_normal_(t, nonlinearity="linear")),
    ]:
        ours = L.fc_init(400, 300, seed=0, scheme=scheme)["W"].std()
        assert ours == pytest.approx(float(init(w).std()), rel=0.02), scheme
    a = L.mlp_init(SIZES, seed=3)
    b = L.mlp_init(SIZES, seed=3)
    c = L.mlp_init(SIZES, seed=4)
    assert all(
        np.array_equal(x, y)
        for x, y in zip(tree_leaves(a), tree_leaves(b), strict=True)
    )
    assert not np.array_equal(a[0]["W"], c[0]["W"])
    assert not np.array_equal(
        a[0]["W"][:, :3], a[1]["W"][:5, :3]
    )  # one stream, no reuse


def test_init_bad_arguments():
    with pytest.raises(ValueError, match="unknown scheme"):
        L.fc_init(3, 4, seed=0, scheme="kaiming")
    with pytest.raises(ValueError, match="positive int"):
        L.fc_init(0, 4, seed=0)
    with pytest.raises(ValueError, match="'normal' or 'uniform'"):
        L.fc_init(3, 4, seed=0, distribution="laplace")
    with pytest.raises(ValueError, match="input and an output"):
        L.mlp_init([3], seed=0)


def test_parameter_counts():
    assert L.fc_param_count(3, 5) == 20 and L.fc_param_count(5, 4) == 24
    assert L.mlp_param_count([3, 5, 4]) == 44
    p = L.mlp_init(SIZES, seed=0)
    assert sum(a.size for a in tree_leaves(p)) == L.mlp_param_count(SIZES)


# --- the FC layer and the MLP on every backend ----------------------------------------


def test_fully_connected_on_every_backend(backend, rng):
    X, W, b = (
        rng.standard_normal((6, 4)),
        rng.standard_normal((4, 3)),
        rng.standard_normal(3),
    )
    out = L.fully_connected(*(backend.asarray(a) for a in (X, W, b)), phi="relu")
    want = np.array(
        [[max(0.0, X[i] @ W[:, j] + b[j]) for j in range(3)] for i in range(6)]
    )
    np.testing.assert_allclose(backend.to_numpy(out), want, rtol=1e-13, atol=1e-14)
    lin = L.fully_connected(*(backend.asarray(a) for a in (X, W, b)), phi=None)
    np.testing.assert_allclose(backend.to_numpy(lin), X @ W + b, rtol=1e-13)


def test_mlp_forward_on_every_backend(backend, rng):
    X, _ = _data(rng)
    params = L.mlp_init(SIZES, seed=0)
    ref = L.mlp_forward(params, X, phi="tanh")
    out = L.mlp_forward(L.params_to(params, "numpy") if backend.name == "numpy" else
                        [{k: backend.asarray(v) for k, v in p.items()} for p in params],
                        backend.asarray(X), phi="tanh")  # fmt: skip
    np.testing.assert_allclose(backend.to_numpy(out), ref, rtol=1e-13)
    h = X
    for k, p in enumerate(params):  # the book's eq. E.5.6, one layer at a time
        h = h @ p["W"] + p["b"]
        h = np.tanh(h) if k < len(params) - 1 else h
    np.testing.assert_allclose(ref, h, rtol=1e-13)


def test_shape_errors_say_what_was_expected():
    p = L.mlp_init([4, 3, 2], seed=0)
    with pytest.raises(ValueError, match=r"layer 0: expected W \(5, c'\)"):
        L.mlp_forward(p, np.ones((2, 5)))
    with pytest.raises(ValueError, match=r"X must have shape \(n, c\)"):
        L.mlp_forward(p, np.ones(4))
    with pytest.raises(ValueError, match=r"expected X \(n, c\), W \(c, c'\)"):
        L.fully_connected(np.ones((2, 3)), np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError, match="non-empty list"):
        L.mlp_forward([], np.ones((2, 3)))
    with pytest.raises(ValueError, match="y must have 2 rows"):
        L.mlp_value_and_grad(p, np.ones((2, 4)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="'cross_entropy' or 'mse'"):
        L.mlp_value_and_grad(p, np.ones((2, 4)), np.zeros(2, dtype=int), loss="hinge")


def test_to_torch_is_the_same_function(rng):
    torch = pytest.importorskip("torch")
    X, _ = _data(rng)
    params = L.mlp_init(SIZES, seed=1)
    for phi in ("relu", "sigmoid", "gelu", "softplus"):
        model = L.to_torch(params, phi=phi)
        assert isinstance(model[0], torch.nn.Linear) and model[0].weight.shape == (7, 5)
        got = model(torch.tensor(X)).detach().numpy()
        np.testing.assert_allclose(got, L.mlp_forward(params, X, phi=phi), rtol=1e-12)
    back = L.from_torch(L.to_torch(params))
    for a, b in zip(tree_leaves(back), tree_leaves(params), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="phi must be one of"):
        L.to_torch(params, phi="heaviside")


# --- back-propagation by hand ---------------------------------------------------------


@pytest.mark.parametrize(
    "phi", ["relu", "tanh", "sigmoid", "gelu", "silu", "elu", "softplus"]
)
def test_value_and_grad_matches_torch_autograd(phi, rng):
    torch = pytest.importorskip("torch")
    X, y = _data(rng)
    params = L.mlp_init(SIZES, seed=2)
    value, grads = L.mlp_value_and_grad(params, X, y, phi=phi)
    model = L.to_torch(params, phi=phi)
    loss = torch.nn.functional.cross_entropy(model(torch.tensor(X)), torch.tensor(y))
    loss.backward()
    assert float(value) == pytest.approx(loss.item(), rel=1e-13)
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    for g, m in zip(grads, linears, strict=True):
        np.testing.assert_allclose(
            g["W"], m.weight.grad.numpy().T, rtol=1e-10, atol=1e-13
        )
        np.testing.assert_allclose(g["b"], m.bias.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_value_and_grad_matches_jax_grad_of_the_pure_forward(rng):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    X, y = _data(rng)
    Y = rng.standard_normal((11, 3))
    params = L.mlp_init(SIZES, seed=5)
    jparams = L.params_to(params, "jax")

    def mse(p, X, Y):
        return jnp.mean((L.mlp_forward(p, X, phi="tanh") - Y) ** 2)

    def ce(p, X, y):
        logits = L.mlp_forward(p, X)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(len(y)), y])

    for fn, target, kw in [(mse, Y, {"phi": "tanh", "loss": "mse"}), (ce, y, {})]:
        v_jax, g_jax = jax.jit(jax.value_and_grad(fn))(
            jparams, jnp.asarray(X), jnp.asarray(target)
        )
        v, g = L.mlp_value_and_grad(params, X, target, **kw)
        assert float(v) == pytest.approx(float(v_jax), rel=1e-12)
        for a, b in zip(tree_leaves(g), tree_leaves(g_jax), strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-10, atol=1e-13)


def test_value_and_grad_matches_finite_differences_for_scalar_regression(rng):
    X = rng.standard_normal((9, 2))
    y = rng.standard_normal(9)
    params = L.mlp_init([2, 4, 1], seed=6, scheme="glorot")
    value, grads = L.mlp_value_and_grad(params, X, y, phi="softplus", loss="mse")
    h = 1e-6
    for k, name, idx in [
        (0, "W", (1, 2)),
        (0, "b", (3,)),
        (1, "W", (2, 0)),
        (1, "b", (0,)),
    ]:
        plus = [{kk: vv.copy() for kk, vv in p.items()} for p in params]
        minus = [{kk: vv.copy() for kk, vv in p.items()} for p in params]
        plus[k][name][idx] += h
        minus[k][name][idx] -= h
        fd = (
            L.mlp_value_and_grad(plus, X, y, phi="softplus", loss="mse")[0]
            - L.mlp_value_and_grad(minus, X, y, phi="softplus", loss="mse")[0]
        ) / (2 * h)
        assert grads[k][name][idx] == pytest.approx(fd, rel=1e-6, abs=1e-9)
    pred = L.mlp_forward(params, X, phi="softplus")[:, 0]
    assert float(value) == pytest.approx(np.mean((pred - y) ** 2), rel=1e-14)


def test_value_and_grad_on_every_backend(backend, rng):
    X, y = _data(rng)
    params = L.mlp_init(SIZES, seed=7)
    v_ref, g_ref = L.mlp_value_and_grad(params, X, y)
    moved = [{k: backend.asarray(v) for k, v in p.items()} for p in params]
    v, g = L.mlp_value_and_grad(moved, backend.asarray(X), backend.asarray(y))
    assert float(backend.to_numpy(v)) == pytest.approx(float(v_ref), rel=1e-13)
    for a, b in zip(tree_leaves(g), tree_leaves(g_ref), strict=True):
        np.testing.assert_allclose(backend.to_numpy(a), b, rtol=1e-12, atol=1e-14)


# --- objects: layers, Sequential, Box 5.1 -------------------------------------------


def test_sequential_nests_and_collects_parameters(rng):
    X = rng.standard_normal((4, 3))
    inner = L.Sequential(L.FullyConnected(3, 5, seed=0), L.FullyConnected(5, 4, seed=1))
    assert inner.n_params == 44 and len(inner) == 2 and inner(X).shape == (4, 4)
    outer = L.Sequential(inner, L.FullyConnected(4, 2, phi=None, seed=2))
    assert outer.n_params == 44 + 10 and len(outer.parameters()) == 6
    want = outer[1](inner[1](inner[0](X)))
    np.testing.assert_array_equal(outer(X), want)
    assert (inner(X) >= 0).all()  # ReLU on the last layer too, as in Box 5.1
    assert L.compose(outer[1], inner)(X).tolist() == want.tolist()
    with pytest.raises(ValueError, match="at least one callable"):
        L.Sequential()


def test_book_box_5_1_layer_in_torch_sequential(rng):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        model = torch.nn.Sequential(
            L.FullyConnectedLayer(3, 5, seed=0), L.FullyConnectedLayer(5, 4, seed=1)
        )
    finally:
        torch.set_default_dtype(torch.float32)
    assert sum(p.numel() for p in model.parameters()) == 44
    assert model[0].b.shape == (1, 5)  # the book's (1, c') bias
    X = rng.standard_normal((6, 3))
    ours = L.Sequential(
        L.FullyConnected(3, 5, seed=0, scheme="normal"),
        L.FullyConnected(5, 4, seed=1, scheme="normal"),
    )
    np.testing.assert_allclose(
        model(torch.tensor(X)).detach().numpy(), ours(X), rtol=1e-13
    )


def test_objects_move_between_backends(rng):
    jnp = pytest.importorskip("jax.numpy")
    X = rng.standard_normal((4, 3))
    model = L.Sequential(L.FullyConnected(3, 5), L.FullyConnected(5, 2, phi=None))
    want = model(X)
    model.to("jax")
    out = model(jnp.asarray(X))
    assert "jax" in type(out).__module__
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-13)


def test_compose_reads_like_the_book():
    f = L.compose(np.sqrt, lambda x: x + 1.0, lambda x: 3.0 * x)  # sqrt(3x + 1)
    assert f(5.0) == 4.0
    with pytest.raises(ValueError):
        L.compose()


def test_linear_layers_collapse(rng):
    X = rng.standard_normal((8, 5))
    params = L.mlp_init(SIZES, seed=9)
    single = L.collapse_linear(params)
    assert single["W"].shape == (5, 3) and single["b"].shape == (3,)
    np.testing.assert_allclose(
        L.mlp_forward(params, X, phi=None), X @ single["W"] + single["b"], rtol=1e-12
    )
    # the book's column form: y = w2^T (W1 x + b1) + b2 = A x + c
    W1, b1, w2, b2 = (
        rng.standard_normal((4, 3)),
        rng.standard_normal(4),
        rng.standard_normal(4),
        0.3,
    )
    col = L.collapse_linear(
        [{"W": W1.T, "b": b1}, {"W": w2[:, None], "b": np.array([b2])}]
    )
    np.testing.assert_allclose(col["W"][:, 0], w2 @ W1, rtol=1e-13)
    assert col["b"][0] == pytest.approx(w2 @ b1 + b2, rel=1e-13)


# --- design variants ----------------------------------------------------------------


def test_maxout_against_a_loop_and_relu(rng):
    X, W, b = (
        rng.standard_normal((6, 3)),
        rng.standard_normal((4, 3, 2)),
        rng.standard_normal((4, 2)),
    )
    want = np.max([X @ W[j] + b[j] for j in range(4)], axis=0)
    np.testing.assert_allclose(L.maxout(X, W, b), want, rtol=1e-14)
    W2 = np.stack([W[0], np.zeros((3, 2))])
    b2 = np.stack([b[0], np.zeros(2)])
    np.testing.assert_allclose(
        L.maxout(X, W2, b2), np.maximum(X @ W[0] + b[0], 0), rtol=1e-14
    )
    with pytest.raises(ValueError, match=r"b \(k, c'\)"):
        L.maxout(X, W, b[:, :1])


def test_kan_layer_against_loops_and_its_linear_special_case(rng):
    X = rng.standard_normal((5, 3))
    grid = np.linspace(-2, 2, 6)
    alpha = rng.standard_normal((3, 4, 6))
    out = L.kan_layer(X, alpha, L.gaussian_basis(grid, 1.5))
    want = np.zeros((5, 4))
    for n in range(5):
        for i in range(4):
            for j in range(3):  # h_i = sum_j phi_ij(x_j)
                want[n, i] += sum(
                    alpha[j, i, k] * np.exp(-1.5 * (X[n, j] - grid[k]) ** 2)
                    for k in range(6)
                )
    np.testing.assert_allclose(out, want, rtol=1e-13)
    W = rng.standard_normal((3, 4))
    np.testing.assert_allclose(
        L.kan_layer(X, W[:, :, None], lambda Z: Z[..., None]), X @ W, rtol=1e-14
    )
    with pytest.raises(ValueError, match=r"alpha \(c, c', m\)"):
        L.kan_layer(X, alpha[:2], L.gaussian_basis(grid, 1.5))


def test_sigmoid_staircase_approximates_and_only_on_its_domain():
    g = lambda x: np.sin(2 * np.pi * x)
    xs = np.linspace(0, 1, 4001)[:, None]
    errs = []
    for N in (10, 50, 200):
        p = L.sigmoid_staircase(g, N)
        assert p[0]["W"].shape == (1, N) and p[1]["W"].shape == (N, 1)
        f = L.mlp_forward(p, xs, phi="sigmoid")[:, 0]
        by_formula = g(0.0) + sum(
            (g((k + 1) / N) - g(k / N)) * sp.expit(10 * N * (xs[:, 0] - (k + 0.5) / N))
            for k in range(N)
        )
        np.testing.assert_allclose(f, by_formula, rtol=1e-10, atol=1e-12)
        errs.append(np.abs(f - g(xs[:, 0])).max())
    assert errs[0] > errs[1] > errs[2] and errs[2] < 0.01
    outside = np.linspace(1.5, 3, 50)[:, None]
    f_out = L.mlp_forward(L.sigmoid_staircase(g, 200), outside, phi="sigmoid")[:, 0]
    assert np.abs(f_out - g(outside[:, 0])).max() > 0.9
    with pytest.raises(ValueError, match="hi > lo"):
        L.sigmoid_staircase(g, 5, domain=(1.0, 0.0))
