"""The reverse-mode engine: graphs, accumulation, errors, MLPs against the frameworks.

What is compared with what:

- gradients of random MLPs with cross-entropy against ``torch.autograd`` and
  ``jax.grad`` (float64, relative error below 1e-10), for three activations;
- shared subexpressions (the diamond graph) against the closed form;
- a 10,000-node chain against the closed form (no recursion limit);
- training on ``load_digits`` against PyTorch from the same initialisation.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import autodiff as ad
from alice_lab.autodiff import mlp, ops
from alice_lab.autodiff.engine import Tensor


def rel_err(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


# --- graphs and accumulation ----------------------------------------------------------


def test_diamond_graph_accumulates_both_paths():
    for a0 in (-1.5, 0.3, 2.0):
        a = Tensor(a0, requires_grad=True)
        b = a * a
        c = a + b
        c.backward()
        assert a.grad == pytest.approx(1 + 2 * a0, rel=1e-15)


def test_interior_node_is_complete_before_it_is_passed_on():
    """x -> a = exp(x) -> (a * a) + a: the adjoint of a must collect both uses
    before flowing to x; dy/dx = (2a + 1) a."""
    x = Tensor(0.7, requires_grad=True)
    a = np.exp(x)
    y = a * a + a
    y.backward()
    ea = np.exp(0.7)
    assert x.grad == pytest.approx((2 * ea + 1) * ea, rel=1e-14)
    order = ad.toposort(y)
    assert order[0] is y and order[-1] is x
    pos = {id(n): k for k, n in enumerate(order)}
    for node in order:  # every node comes before the nodes it was computed from
        assert all(pos[id(node)] < pos[id(p)] for p in node.parents)


def test_leaf_grads_accumulate_across_backward_calls_like_pytorch():
    import torch

    x = Tensor(np.array([1.0, -2.0]), requires_grad=True)
    xt = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    for _ in range(2):
        (x * x).sum().backward()
        (xt * xt).sum().backward()
    np.testing.assert_array_equal(x.grad, xt.grad.numpy())
    np.testing.assert_array_equal(x.grad, [4.0, -8.0])
    x.zero_grad()
    assert x.grad is None


def test_retain_grad_gives_the_adjoint_of_an_intermediate():
    import torch

    rng = np.random.default_rng(0)
    W, x0 = rng.standard_normal((4, 3)), rng.standard_normal(3)
    x = Tensor(x0, requires_grad=True)
    h = np.tanh(W @ x).retain_grad()
    (h**2).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    ht = torch.tanh(torch.tensor(W) @ xt)
    ht.retain_grad()
    (ht**2).sum().backward()
    np.testing.assert_allclose(h.grad, ht.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(h.grad, 2 * h.data, rtol=1e-15)
    np.testing.assert_allclose(x.grad, xt.grad.numpy(), rtol=1e-13)


def test_deep_chain_needs_no_recursion():
    x = Tensor(1.0, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001 + 0.0
    y.backward()
    assert len(ad.toposort(y)) == 20_001
    assert x.grad == pytest.approx(1.0001**10_000, rel=1e-10)


def test_inputs_without_requires_grad_get_no_gradient_and_cost_nothing():
    calls = []
    X = Tensor(np.ones((3, 2)))  # data: no gradient wanted
    W = Tensor(np.ones((2, 2)), requires_grad=True)
    original = ad.PRIMITIVES["matmul"].vjp
    spy = (
        lambda *a, **k: calls.append("x") or original[0](*a, **k),
        lambda *a, **k: calls.append("w") or original[1](*a, **k),
    )
    object.__setattr__(ad.PRIMITIVES["matmul"], "vjp", spy)
    try:
        (X @ W).sum().backward()
    finally:
        object.__setattr__(ad.PRIMITIVES["matmul"], "vjp", original)
    assert calls == ["w"] and X.grad is None
    np.testing.assert_array_equal(W.grad, np.full((2, 2), 3.0))


def test_no_grad_records_nothing():
    w = Tensor(np.ones(3), requires_grad=True)
    with ad.no_grad():
        y = (w * 2).sum()
    assert not y.requires_grad and y.is_leaf
    assert (w * 2).sum().requires_grad


def test_numpy_functions_on_tensors_stay_differentiable():
    import torch

    rng = np.random.default_rng(1)
    A, x0 = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x = Tensor(x0, requires_grad=True)
    y = np.sum(np.tanh(A @ x) ** 2) + np.mean(np.concatenate([x, np.exp(x)]))
    y.backward()
    xt = torch.tensor(x0, requires_grad=True)
    yt = (torch.tanh(torch.tensor(A) @ xt) ** 2).sum() + torch.cat(
        [xt, xt.exp()]
    ).mean()
    yt.backward()
    assert float(y.data) == pytest.approx(float(yt.detach()), rel=1e-14)
    np.testing.assert_allclose(x.grad, xt.grad.numpy(), rtol=1e-13)


# --- bad input ------------------------------------------------------------------------


def test_backward_on_a_non_scalar_needs_a_seed():
    x = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(ValueError, match=r"needs a scalar output; .* shape \(3,\)"):
        (x * 2).backward()
    with pytest.raises(ValueError, match=r"seed .* must have the output's shape"):
        (x * 2).backward(np.ones(4))
    (x * 2).backward(np.array([1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(x.grad, [2.0, 0.0, 4.0])


def test_backward_without_any_input_requiring_grad():
    with pytest.raises(ValueError, match="nothing to differentiate"):
        (Tensor(np.ones(2)) * 3).sum().backward()


@pytest.mark.parametrize(
    "make, shapes",
    [
        (lambda a, b: a + b, ((3,), (4,))),
        (lambda a, b: a * b, ((2, 3), (3, 2))),
        (lambda a, b: a @ b, ((2, 3), (4, 5))),
        (lambda a, b: np.concatenate([a, b], axis=0), ((2, 3), (2, 4))),
    ],
)
def test_shape_mismatch_names_the_operation_and_shapes(make, shapes):
    a = Tensor(np.ones(shapes[0]), requires_grad=True)
    b = Tensor(np.ones(shapes[1]))
    with pytest.raises(ValueError, match=rf"of shapes \({shapes[0][0]},"):
        make(a, b)


def test_integer_inputs_cannot_be_differentiated():
    with pytest.raises(TypeError, match="only floating-point tensors"):
        Tensor(np.arange(3), requires_grad=True)
    with pytest.raises(TypeError, match="dtype int64"):
        ad.grad(lambda x: (x * x).sum())(np.arange(3))
    with pytest.raises(TypeError, match="dtype bool"):
        ad.vjp(lambda x: x, np.array([True, False]))
    with pytest.raises(TypeError, match="floating-point"):
        ad.jvp(lambda x: x, np.arange(3), np.ones(3))
    # integer data inside a function is fine: it is a constant
    labels = np.array([0, 2])
    g = ad.grad(lambda z: z[np.arange(2), labels].sum())(np.zeros((2, 3)))
    np.testing.assert_array_equal(g, [[1, 0, 0], [0, 0, 1]])


def test_non_differentiable_numpy_calls_raise_instead_of_dropping_the_graph():
    x = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(TypeError, match=r"np\.arctan is not differentiable"):
        np.arctan(x)
    with pytest.raises(TypeError, match=r"np\.sort is not differentiable"):
        np.sort(x)
    with pytest.raises(TypeError, match="cannot be turned into a NumPy array"):
        np.asarray(x)
    assert bool(x.sum() > 0)  # comparisons give plain arrays: no derivative to lose
    with pytest.raises(TypeError, match="ambiguous"):
        if x.sum():  # a Tensor itself has no truth value
            pass
    with pytest.raises(TypeError, match="cannot mix"):
        x + ad.Dual(np.ones(3), np.ones(3))


# --- MLPs against torch and JAX -------------------------------------------------------


ACTIVATIONS = {
    "relu": (ops.relu, "relu"),
    "tanh": (ops.tanh, "tanh"),
    "sigmoid": (ops.sigmoid, "sigmoid"),
}


def _random_problem(seed, widths=(7, 16, 12, 5), n=9):
    rng = np.random.default_rng(seed)
    params = mlp.init_mlp(widths, seed=seed)
    X = rng.standard_normal((n, widths[0]))
    y = rng.integers(0, widths[-1], n)
    return params, X, y


@pytest.mark.parametrize("act", list(ACTIVATIONS))
@pytest.mark.parametrize("seed", [0, 1])
def test_mlp_cross_entropy_gradients_match_torch_and_jax(act, seed):
    import jax
    import jax.numpy as jnp
    import torch

    fn, name = ACTIVATIONS[act]
    params, X, y = _random_problem(seed)
    flat = [p for pair in params for p in pair]

    def engine_loss(*ps):
        return mlp.mlp_loss(list(zip(ps[::2], ps[1::2], strict=True)), X, y, fn)

    value, grads = ad.value_and_grad(engine_loss, tuple(range(len(flat))))(*flat)

    tp = [torch.tensor(p, requires_grad=True) for p in flat]
    h = torch.tensor(X)
    for k in range(0, len(tp), 2):
        h = h @ tp[k] + tp[k + 1]
        if k < len(tp) - 2:
            h = getattr(torch, name)(h)
    loss_t = torch.nn.functional.cross_entropy(h, torch.tensor(y))
    torch_grads = torch.autograd.grad(loss_t, tp)

    def jax_loss(ps):
        h = jnp.asarray(X)
        for k in range(0, len(ps), 2):
            h = h @ ps[k] + ps[k + 1]
            if k < len(ps) - 2:
                h = getattr(jax.nn, name)(h) if name != "tanh" else jnp.tanh(h)
        logp = jax.nn.log_softmax(h, axis=-1)
        return -jnp.mean(logp[jnp.arange(len(y)), y])

    jax_grads = jax.grad(jax_loss)([jnp.asarray(p) for p in flat])
    assert float(value) == pytest.approx(float(loss_t.detach()), rel=1e-13)
    for g, gt, gj in zip(grads, torch_grads, jax_grads, strict=True):
        assert g.shape == gt.shape
        assert rel_err(g, gt.numpy()) < 1e-10
        assert rel_err(g, np.asarray(gj)) < 1e-10


def test_sgd_step_keeps_float32_and_matches_torch():
    rng = np.random.default_rng(3)
    params = mlp.init_mlp([20, 16, 4], seed=3, dtype=np.float32)
    X = rng.standard_normal((32, 20)).astype(np.float32)
    y = rng.integers(0, 4, 32)
    new, loss = mlp.backprop_step(params, X, y, lr=0.5)
    assert all(W.dtype == np.float32 and b.dtype == np.float32 for W, b in new)
    want, losses = ad.frameworks.train_mlp_torch(params, X, y, lr=0.5, steps=1)
    assert loss == pytest.approx(losses[0], rel=1e-5)
    for (W, b), (Wt, bt) in zip(new, want, strict=True):
        np.testing.assert_allclose(W, Wt, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, bt, rtol=1e-5, atol=1e-6)


def test_training_on_digits_matches_pytorch_from_the_same_start():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    Xtr, ytr, Xte, yte = X[:1200], y[:1200], X[1200:], y[1200:]
    init = mlp.init_mlp([64, 32, 10], seed=0)
    run = mlp.train_mlp(init, Xtr, ytr, lr=0.5, steps=150, batch_size=100, seed=0)
    theirs, losses = ad.frameworks.train_mlp_torch(
        init, Xtr, ytr, lr=0.5, steps=150, batch_size=100, seed=0
    )
    np.testing.assert_allclose(run.losses, losses, rtol=1e-9)
    for (W, b), (Wt, bt) in zip(run.params, theirs, strict=True):
        np.testing.assert_allclose(W, Wt, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b, bt, rtol=1e-8, atol=1e-10)
    acc = mlp.accuracy(run.params, Xte, yte)
    assert acc == mlp.accuracy(theirs, Xte, yte)
    assert acc > 0.9
    assert run.losses[-1] < run.losses[0] / 5
