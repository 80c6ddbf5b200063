"""Checkable claims of Chapter 5, §5.3 stochastic optimisation (book lines 2342-2412),
with the erratum of Box 5.2.

References: torch's FLOP counter, ``torch.utils.data.DataLoader``, torch autograd on
each shard, NumPy closed forms.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


@claim(
    "C5-14",
    section="5.3",
    lines=(2344, 2344),
    statement="The cost of a full gradient grows linearly with the number of examples "
    "n: doubling n doubles the FLOPs of a forward and backward pass.",
)
def _c5_14() -> str:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    )
    flops = {}
    for n in (100, 200, 400, 800):
        X, y = torch.randn(n, 64), torch.randint(0, 10, (n,))
        with FlopCounterMode(display=False) as counter:
            torch.nn.functional.cross_entropy(model(X), y).backward()
        flops[n] = counter.get_total_flops()
    ratios = [flops[2 * n] / flops[n] for n in (100, 200, 400)]
    assert ratios == [2.0, 2.0, 2.0], ratios
    per = flops[100] / 100
    return f"{per:,.0f} FLOPs per example, ratios for n → 2n: {ratios}"


def per_example_grads(n: int = 500, c: int = 5, seed: int = 515):
    """A least-squares problem and the gradient of each example's loss, (n, c)."""
    rng = _rng(seed)
    X, w = rng.standard_normal((n, c)), rng.standard_normal(c)
    y = X @ rng.standard_normal(c) + rng.standard_normal(n)
    G = 2 * (X @ w - y)[:, None] * X  # ∇_w (x_i·w − y_i)²
    return G


@claim(
    "C5-15",
    section="5.3",
    lines=(2346, 2350),
    statement="The mini-batch loss and gradient are unbiased estimates of the full "
    "ones: the mini-batch gradients of one epoch average exactly to the full "
    "gradient, and with i.i.d. sampling their variance falls like 1/r.",
    equation="E.5.8",
)
def _c5_15() -> str:
    from alice_lab.data import minibatches
    from alice_lab.layers import mlp_init, mlp_value_and_grad
    from alice_lab.optim import average_gradients, tree_leaves

    rng = _rng(5150)
    X, y = rng.standard_normal((240, 4)), rng.integers(0, 3, 240)
    p = mlp_init([4, 6, 3], seed=0)
    full = mlp_value_and_grad(p, X, y)[1]
    parts = [mlp_value_and_grad(p, X[i], y[i])[1] for i in minibatches(240, 30, seed=1)]
    pairs = zip(tree_leaves(average_gradients(parts)), tree_leaves(full), strict=True)
    err = max(_maxerr(a, b) for a, b in pairs)
    assert err < 1e-13, err
    G = per_example_grads()
    mean = G.mean(axis=0)
    rs = np.array([1, 2, 4, 8, 16, 32])
    variances = []
    for r in rs:
        idx = rng.integers(0, len(G), size=(4000, r))  # i.i.d. draws, with replacement
        est = G[idx].mean(axis=1)  # (4000, c)
        assert _maxerr(est.mean(axis=0), mean) < 6 * np.sqrt(
            G.var(axis=0).max() / (4000 * r)
        )
        variances.append(np.sum(est.var(axis=0)))
    slope = np.polyfit(np.log(rs), np.log(variances), 1)[0]
    assert abs(slope + 1) < 0.1, f"log-variance vs log r: slope {slope:.3f}"
    return f"epoch average = full gradient ({err:.0e}); variance ∝ r^{slope:.2f}"


@claim(
    "C5-16",
    section="5.3",
    lines=(2352, 2362),
    statement="Shuffle, then slice: an epoch is b = n/r mini-batches of r consecutive "
    "elements of a permutation, so every example is used exactly once; mini-batch "
    "b + 1 starts the next epoch on a new shuffle.",
    equation="Figure F.5.2",
)
def _c5_16() -> str:
    from alice_lab.data import minibatches

    n, r = 120, 8
    epochs = [list(minibatches(n, r, seed=40 + e)) for e in range(3)]
    for batches in epochs:
        assert len(batches) == n // r and all(len(b) == r for b in batches)
        assert np.array_equal(np.sort(np.concatenate(batches)), np.arange(n))
    first, second = np.concatenate(epochs[0]), np.concatenate(epochs[1])
    assert not np.array_equal(first, second), "the second epoch was not reshuffled"
    perm = np.random.default_rng(40).permutation(n)  # shuffle, then consecutive chunks
    assert np.array_equal(first, perm)
    return f"n={n}, r={r}: b = {len(epochs[0])} batches per epoch, each a permutation"


def _box_5_2_loader(drop_last: bool = False):
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    g = torch.Generator().manual_seed(517)
    dataset = TensorDataset(
        torch.randn(1000, 3, generator=g), torch.randn(1000, 1, generator=g)
    )
    return DataLoader(
        dataset, shuffle=True, batch_size=32, generator=g, drop_last=drop_last
    )


@claim(
    "C5-17",
    section="5.3",
    lines=(2364, 2394),
    statement="Box 5.2's DataLoader over 1000 examples in batches of 32 yields 32 "
    "mini-batches per epoch (31 with drop_last=True), the first 31 of shapes (32, 3) "
    "and (32, 1); alice_lab.data.batches makes the same split.",
)
def _c5_17() -> str:
    from alice_lab.data import batches

    loader = _box_5_2_loader()
    shapes = [(tuple(xb.shape), tuple(yb.shape)) for xb, yb in loader]
    assert len(loader) == len(shapes) == 32, len(shapes)
    assert set(shapes[:31]) == {((32, 3), (32, 1))}, set(shapes[:31])
    assert len(_box_5_2_loader(drop_last=True)) == 31
    X, y = np.zeros((1000, 3)), np.zeros(1000)
    ours = [xb.shape for xb, _ in batches(X, y, 32, seed=0)]
    assert len(ours) == 32 and ours[:31] == [(32, 3)] * 31
    return f"{len(shapes)} batches; first {shapes[0]}, last {shapes[-1]}"


@claim(
    "C5-38",
    section="5.3",
    equation="Box 5.2",
    lines=(2390, 2392),
    statement=(
        "Box 5.2's comments give the shapes of a full mini-batch: with 1000 "
        "examples and batch_size=32 the last one is (8, 3) and (8, 1), unless "
        "drop_last=True drops it."
    ),
)
def _c5_38() -> str:
    from alice_lab.data import batches

    last = [(tuple(xb.shape), tuple(yb.shape)) for xb, yb in _box_5_2_loader()][-1]
    assert last == ((8, 3), (8, 1)), last
    assert 1000 % 32 == 8
    full = {tuple(xb.shape) for xb, _ in _box_5_2_loader(drop_last=True)}
    assert full == {(32, 3)}, full
    ours = [
        xb.shape for xb, _ in batches(np.zeros((1000, 3)), np.zeros(1000), 32, seed=0)
    ]
    assert ours[-1] == (8, 3)
    return f"last mini-batch {last[0]} and {last[1]}; drop_last: every batch (32, 3)"


@claim(
    "C5-18",
    section="5.3",
    lines=(2396, 2396),
    statement="An epoch is one pass over the data: 1000 examples in mini-batches of 20 "
    "for 5 epochs is 250 iterations.",
)
def _c5_18() -> str:
    from torch.utils.data import DataLoader

    from alice_lab.optim import iterations, sgd

    X, y = np.zeros((1000, 1)), np.zeros(1000)
    res = sgd(lambda p, Xb, yb: (0.0, {"w": np.zeros(1)}), {"w": np.zeros(1)}, X, y,
              lr=0.1, batch_size=20, epochs=5, seed=0)  # fmt: skip
    torch_steps = sum(
        1 for _ in range(5) for _ in DataLoader(range(1000), batch_size=20)
    )
    assert res.steps == iterations(1000, 20, 5) == torch_steps == 5 * 1000 // 20 == 250
    return f"sgd took {res.steps} steps; a torch DataLoader loop {torch_steps}"


@claim(
    "C5-19",
    section="5.3",
    lines=(2398, 2412),
    statement="Data parallelism is exact: with the mean loss, averaging the gradients "
    "of k shards (weighted by size) gives the full mini-batch gradient; with summed "
    "losses the shard gradients add up to it; every replica then takes the same step.",
    equation="Figure F.5.3",
)
def _c5_19() -> str:
    import torch

    from alice_lab.layers import from_torch, mlp_init, mlp_value_and_grad, to_torch
    from alice_lab.optim import data_parallel_grad, sgd_step, tree_leaves

    rng = _rng(519)
    X, y = rng.standard_normal((96, 5)), rng.integers(0, 3, 96)
    params = mlp_init([5, 7, 3], seed=1)

    def torch_grads(Xk, yk, reduction):
        model = to_torch(params)
        loss = torch.nn.functional.cross_entropy(
            model(torch.tensor(Xk)), torch.tensor(yk), reduction=reduction
        )
        loss.backward()
        return [p.grad.numpy().copy() for p in model.parameters()]

    full = torch_grads(X, y, "mean")
    worst = 0.0
    for k in (2, 3, 4):
        shards = list(zip(np.array_split(X, k), np.array_split(y, k), strict=True))
        _, g = data_parallel_grad(mlp_value_and_grad, params, shards)
        ours = [a.T if a.ndim == 2 else a for a in tree_leaves(g)]  # nn.Linear layout
        worst = max(worst, max(_maxerr(a, b) for a, b in zip(ours, full, strict=True)))
        summed = [
            sum(gs)
            for gs in zip(
                *(torch_grads(Xk, yk, "sum") for Xk, yk in shards), strict=True
            )
        ]
        sum_full = torch_grads(X, y, "sum")
        assert max(_maxerr(a, b) for a, b in zip(summed, sum_full, strict=True)) < 1e-11
    assert worst < 1e-12, worst
    step = [sgd_step(params, g, lr=0.1) for _ in range(3)]  # three replicas
    assert all(
        _maxerr(a, b) == 0
        for s in step[1:]
        for a, b in zip(tree_leaves(s), tree_leaves(step[0]), strict=True)
    )
    assert from_torch(to_torch(step[0]))[0]["W"].shape == (5, 7)
    return f"k = 2, 3, 4 shards: max gap to the full gradient {worst:.0e}"
