"""Mini-batch SGD and data parallelism (§5.3): ``optim.sgd`` against a hand loop over
``data.minibatches`` and against ``torch.optim.SGD``; simulated data parallelism
against the full-batch gradient; and ``run_data_parallel`` with torch.distributed
(gloo, 2 CPU processes) against single-process gradients on the concatenated batch."""

from __future__ import annotations

import time

import numpy as np
import pytest

from alice_course.launch import run_data_parallel
from alice_lab import data, layers, optim
from alice_lab.optim import tree_leaves, tree_map


def _digits(n=300):
    X, y = data.load_digits()
    return X[:n] / 16.0, y[:n]


def _close_trees(a, b, **tol):
    for u, v in zip(tree_leaves(a), tree_leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), **tol)


# --- trees and counting ----------------------------------------------------------


def test_tree_map_and_leaves():
    t = [{"W": np.ones(2), "b": np.zeros(1)}, ({"W": np.ones(1)},)]
    doubled = tree_map(lambda a: 2 * a, t)
    assert isinstance(doubled[1], tuple) and doubled[0]["W"].tolist() == [2.0, 2.0]
    assert [a.shape for a in tree_leaves(t)] == [(2,), (1,), (1,)]
    with pytest.raises(ValueError, match="trees differ: keys"):
        tree_map(lambda a, b: a, {"W": 1}, {"V": 1})
    with pytest.raises(ValueError, match="trees differ: a sequence of 2"):
        tree_map(lambda a, b: a, [1, 2], [1])


def test_iterations_count_the_steps_sgd_takes():
    assert optim.iterations(1000, 20, 5) == 250  # the book's example, line 2396
    assert optim.iterations(1000, 32, 1) == 32
    assert optim.iterations(1000, 32, 1, drop_last=True) == 31
    X, y = np.zeros((50, 1)), np.zeros(50)

    def zero_grad(p, Xb, yb):
        return 0.0, tree_map(np.zeros_like, p)

    for r, drop in [(7, False), (7, True), (10, False), (50, True)]:
        res = optim.sgd(zero_grad, {"w": np.zeros(1)}, X, y, lr=0.1, batch_size=r,
                        epochs=3, seed=0, drop_last=drop)  # fmt: skip
        assert (
            res.steps == len(res.losses) == optim.iterations(50, r, 3, drop_last=drop)
        )
    with pytest.raises(ValueError):
        optim.iterations(10, 0, 1)


# --- SGD against a hand loop and against torch.optim.SGD --------------------------


def test_sgd_equals_a_hand_written_loop_over_minibatches():
    X, y = _digits(200)
    p0 = layers.mlp_init([64, 16, 10], seed=0)
    res = optim.sgd(layers.mlp_value_and_grad, p0, X, y, lr=0.3, batch_size=32,
                    epochs=3, seed=11)  # fmt: skip
    p, losses = p0, []
    for epoch in range(3):
        for idx in data.minibatches(len(X), 32, seed=11 + epoch):
            v, g = layers.mlp_value_and_grad(p, X[idx], y[idx])
            p = [{k: q[k] - 0.3 * gq[k] for k in q} for q, gq in zip(p, g, strict=True)]
            losses.append(float(v))
    _close_trees(res.params, p, rtol=0, atol=0)
    np.testing.assert_array_equal(res.losses, losses)
    assert res.epoch_losses.shape == (3,)
    assert res.epoch_losses[0] == pytest.approx(np.mean(losses[:7]))
    assert res.epoch_losses[-1] < res.epoch_losses[0]
    assert p0[0]["W"] is not res.params[0]["W"]  # nothing updated in place


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd_equals_torch_optim_sgd(momentum):
    torch = pytest.importorskip("torch")
    X, y = _digits(160)
    p0 = layers.mlp_init([64, 12, 10], seed=3)
    res = optim.sgd(layers.mlp_value_and_grad, p0, X, y, lr=0.2, batch_size=20,
                    epochs=2, seed=5, momentum=momentum)  # fmt: skip
    model = layers.to_torch(p0)
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=momentum)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    for epoch in range(2):
        for Xb, yb in data.batches(Xt, yt, 20, seed=5 + epoch):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(Xb), yb).backward()
            opt.step()
    _close_trees(res.params, layers.from_torch(model), rtol=1e-10, atol=1e-12)


def test_sgd_runs_on_torch_and_jax_arrays_with_the_same_numbers():
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    X, y = _digits(64)
    p0 = layers.mlp_init([64, 8, 10], seed=4)
    kw = {"lr": 0.5, "batch_size": 16, "epochs": 1, "seed": 0}
    ref = optim.sgd(layers.mlp_value_and_grad, p0, X, y, **kw)
    for backend, Xb, yb in [
        ("torch", torch.tensor(X), torch.tensor(y)),
        ("jax", jax.numpy.asarray(X), jax.numpy.asarray(y)),
    ]:
        res = optim.sgd(layers.mlp_value_and_grad, layers.params_to(p0, backend),
                        Xb, yb, **kw)  # fmt: skip
        assert backend in type(res.params[0]["W"]).__module__
        _close_trees(res.params, ref.params, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(res.losses, ref.losses, rtol=1e-10)


def test_sgd_with_jax_value_and_grad():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    X, y = _digits(120)
    p0 = layers.mlp_init([64, 8, 10], seed=4)

    def loss(p, Xb, yb):
        logits = layers.mlp_forward(p, Xb)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(yb.shape[0]), yb])

    kw = {"lr": 0.5, "batch_size": 16, "epochs": 1, "seed": 2}
    res = optim.sgd(jax.jit(jax.value_and_grad(loss)), layers.params_to(p0, "jax"),
                    jnp.asarray(X), jnp.asarray(y), **kw)  # fmt: skip
    ref = optim.sgd(layers.mlp_value_and_grad, p0, X, y, **kw)
    _close_trees(res.params, ref.params, rtol=1e-9, atol=1e-12)


def test_sgd_callback_divergence_and_bad_arguments():
    X, y = _digits(64)
    p0 = layers.mlp_init([64, 10], seed=0)
    seen = []
    optim.sgd(layers.mlp_value_and_grad, p0, X, y, lr=0.1, batch_size=16, epochs=1,
              seed=0, callback=lambda step, p, v: seen.append((step, v)))  # fmt: skip
    assert [s for s, _ in seen] == [1, 2, 3, 4]

    def steep(p, Xb, yb):  # 50 w^2: every step with lr = 1 multiplies w by -99
        with np.errstate(over="ignore"):
            return 50.0 * float(p["w"] @ p["w"]), {"w": 100.0 * p["w"]}

    with pytest.raises(optim.DivergenceError, match="SGD diverged at step"):
        optim.sgd(
            steep, {"w": np.ones(2)}, X, y, lr=1.0, batch_size=8, epochs=50, seed=0
        )
    with pytest.raises(ValueError, match="lr must be"):
        optim.sgd(
            layers.mlp_value_and_grad, p0, X, y, lr=0, batch_size=8, epochs=1, seed=0
        )
    with pytest.raises(ValueError, match="batch_size"):
        optim.sgd(
            layers.mlp_value_and_grad, p0, X, y, lr=0.1, batch_size=0, epochs=1, seed=0
        )


# --- unbiased mini-batch gradients and simulated data parallelism -----------------


def test_minibatch_gradients_average_to_the_full_gradient():
    X, y = _digits(240)
    p = layers.mlp_init([64, 10, 10], seed=1)
    _, full = layers.mlp_value_and_grad(p, X, y)
    parts = [layers.mlp_value_and_grad(p, X[i], y[i])[1]
             for i in data.minibatches(240, 40, seed=9)]  # fmt: skip
    _close_trees(optim.average_gradients(parts), full, rtol=1e-12, atol=1e-15)
    one = layers.mlp_value_and_grad(p, X[:40], y[:40])[1]
    assert np.abs(one[0]["W"] - full[0]["W"]).max() > 1e-3  # one batch alone is not it


@pytest.mark.parametrize("cuts", [[60, 120, 180], [7, 150]])
def test_data_parallel_grad_equals_the_full_batch_gradient(cuts):
    X, y = _digits(240)
    p = layers.mlp_init([64, 10, 10], seed=2)
    v_full, g_full = layers.mlp_value_and_grad(p, X, y)
    shards = [
        (Xk, yk) for Xk, yk in zip(np.split(X, cuts), np.split(y, cuts), strict=True)
    ]
    v, g = optim.data_parallel_grad(layers.mlp_value_and_grad, p, shards)
    assert v == pytest.approx(float(v_full), rel=1e-13)
    _close_trees(g, g_full, rtol=1e-12, atol=1e-15)
    if len(set(np.diff([0, *cuts, 240]))) > 1:  # unequal shards: a plain mean is wrong
        plain = optim.average_gradients(
            [layers.mlp_value_and_grad(p, *s)[1] for s in shards]
        )
        assert np.abs(plain[0]["W"] - g_full[0]["W"]).max() > 1e-4


def test_average_gradients_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        optim.average_gradients([])
    with pytest.raises(ValueError, match="non-negative numbers"):
        optim.average_gradients([{"w": 1.0}], weights=[-1.0])
    with pytest.raises(ValueError, match="at least one shard"):
        optim.data_parallel_grad(layers.mlp_value_and_grad, [], [])


# --- torch.distributed, two processes ----------------------------------------------


def _ddp_grads(rank, world_size, params, shards):
    """One data-parallel backward pass: each rank's gradient on its shard, averaged
    with all_reduce."""
    import torch
    import torch.distributed as dist

    from alice_lab.layers import to_torch

    model = to_torch(params)
    Xk, yk = shards[rank]
    torch.nn.functional.cross_entropy(
        model(torch.tensor(Xk)), torch.tensor(yk)
    ).backward()
    out = []
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
        out.append((p.grad / world_size).numpy())
    return out


def _slow(rank, world_size):
    time.sleep(60)


def _fails_on_rank_1(rank, world_size):
    import torch
    import torch.distributed as dist

    if rank == 1:
        raise ValueError("rank 1 gives up")
    dist.all_reduce(torch.ones(1))  # would wait for rank 1 forever


@pytest.mark.slow
def test_gloo_all_reduce_equals_the_gradient_of_the_concatenated_batch():
    torch = pytest.importorskip("torch")
    X, y = _digits(64)
    params = layers.mlp_init([64, 16, 10], seed=8)
    shards = [(X[:32], y[:32]), (X[32:], y[32:])]
    per_rank = run_data_parallel(_ddp_grads, params, shards, world_size=2, timeout=90)
    model = layers.to_torch(params)
    torch.nn.functional.cross_entropy(
        model(torch.tensor(X)), torch.tensor(y)
    ).backward()
    single = [p.grad.numpy() for p in model.parameters()]
    for got in per_rank:  # every replica holds the same averaged gradient
        for a, b in zip(got, single, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_run_data_parallel_never_hangs():
    pytest.importorskip("torch")
    with pytest.raises(TimeoutError, match="did not finish within 1 s"):
        run_data_parallel(_slow, world_size=2, timeout=1)
    # rank 0 would wait for rank 1 until the timeout (TimeoutError); it is stopped as
    # soon as rank 1 fails, and rank 1's error is what we see
    with pytest.raises(RuntimeError, match="rank 1 raised ValueError: rank 1 gives up"):
        run_data_parallel(_fails_on_rank_1, world_size=2, timeout=60)
    with pytest.raises(ValueError, match="world_size"):
        run_data_parallel(_slow, world_size=0)
