"""Checks of lab 05 (chapter 5: an MLP on the digits, in NumPy, PyTorch and JAX, and
data-parallel training with torch.distributed).

Every check runs the student's function on seeded slices of ``load_digits`` and hands
each answer to :func:`alice_course.grading.compare`, against ``alice_lab``'s reference:
:func:`alice_lab.layers.mlp_forward`, :func:`alice_lab.optim.sgd`, ``torch.optim.SGD``,
``jax.grad`` and single-process SGD on the concatenated mini-batch.

The data-parallel check runs in two stages: two ranks simulated by threads in this
process (a barrier stands in for ``all_reduce``, so mistakes and stubs fail in a
fraction of a second), then, only if that passed, two real processes joined by
``torch.distributed`` with the gloo backend
(:func:`alice_course.launch.run_data_parallel`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from alice_course import grading
from alice_course.grading import _chain, _compare, _lazy, mutant, register

# Book: "From theory to practice" of chapter 5 (lines 2634-2660), §5.2-§5.3.

SIZES = [64, 16, 10]
N_LAYERS = len(SIZES) - 1


@functools.cache
def _digits() -> tuple[np.ndarray, np.ndarray]:
    from alice_lab.data import load_digits

    X, y = load_digits()
    return X / 16.0, y


def _slice(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = _digits()
    idx = np.random.default_rng(seed).choice(len(X), size=n, replace=False)
    return X[idx], y[idx]


def _params(sizes: list[int], seed: int) -> list[dict[str, np.ndarray]]:
    """He-initialised weights and small non-zero biases (so a forgotten bias shows)."""
    from alice_lab.layers import mlp_init

    rng = np.random.default_rng(1000 + seed)
    return [
        {"W": p["W"], "b": 0.1 * rng.standard_normal(p["b"].shape)}
        for p in mlp_init(sizes, seed=seed, scheme="he")
    ]


def _compare_params(
    name: str,
    got: Any,
    n_layers: int,
    want: Callable[[], list],
    *,
    rtol=1e-9,
    atol=1e-11,
):
    """Steps comparing a list of ``n_layers`` {"W", "b"} dicts leaf by leaf with the
    reference's ``want()`` (the same steps every time, whatever the values)."""
    steps = []
    for k in range(n_layers):
        for key in ("W", "b"):

            def step(k=k, key=key):
                try:
                    value = got[k][key]
                except (IndexError, KeyError, TypeError):
                    return False, f"{name} has no layer {k} with a {key!r} entry"
                return _compare(
                    f"{name}[{k}][{key!r}]",
                    value,
                    lambda: want()[k][key],
                    rtol=rtol,
                    atol=atol,
                )

            steps.append(step)
    return steps


# =====================================================================================
# 5.1 The forward pass of an MLP, in NumPy
# =====================================================================================


def _forward_reference():
    def mlp_forward(params, X):
        from alice_lab.layers import mlp_forward as forward

        return forward(params, X, phi="relu")

    return mlp_forward


@register(
    "lab05.1",
    name="mlp_forward",
    exercise="5.1",
    points=2,
    reference=_forward_reference,
)
def check_forward(mlp_forward: Callable) -> tuple[bool, str]:
    """mlp_forward(params, X): ReLU after every layer but the last, logits out."""
    from alice_lab.layers import mlp_forward as reference

    cases = [(SIZES, 7, 0), ([64, 32, 16, 10], 5, 1), ([64, 10], 3, 2)]
    steps = []
    for sizes, n, seed in cases:
        X, _ = _slice(n, seed)
        p = _params(sizes, seed)

        def step(X=X, p=p, sizes=sizes):
            got = mlp_forward(
                [{k: v.copy() for k, v in q.items()} for q in p], X.copy()
            )
            return _compare(
                f"logits for sizes {sizes}",
                got,
                lambda: reference(p, X),
                rtol=1e-9,
                atol=1e-11,
            )

        steps.append(step)
    return _chain(*steps, ok="logits match for 1, 2 and 3 layers, shape (n, 10)")


@mutant("lab05.1", "ReLU on the output layer too")
def _forward_relu_out(params, X):
    from alice_lab.layers import mlp_forward

    return mlp_forward(params, X, phi="relu", output="relu")


@mutant("lab05.1", "bias forgotten")
def _forward_no_bias(params, X):
    from alice_lab.layers import mlp_forward

    return mlp_forward([{**p, "b": 0 * p["b"]} for p in params], X, phi="relu")


@mutant("lab05.1", "sigmoid instead of ReLU")
def _forward_sigmoid(params, X):
    from alice_lab.layers import mlp_forward

    return mlp_forward(params, X, phi="sigmoid")


@mutant("lab05.1", "softmax applied to the output (probabilities, not logits)")
def _forward_softmax(params, X):
    from alice_lab.functional import softmax
    from alice_lab.layers import mlp_forward

    return softmax(mlp_forward(params, X), axis=-1)


# =====================================================================================
# 5.2 One epoch of mini-batch SGD, in NumPy
# =====================================================================================


def _sgd_epoch(
    params,
    X,
    y,
    lr,
    batch_size,
    seed,
    *,
    shuffle: bool = True,
    sign: float = 1.0,
    drop_last: bool = False,
):
    """One epoch of :func:`alice_lab.optim.sgd` on
    :func:`alice_lab.layers.mlp_value_and_grad`; the knobs turn it into common
    mistakes: no shuffling, ``sign=-1`` (gradient ascent), dropping the last, smaller
    mini-batch."""
    from alice_lab.layers import mlp_value_and_grad
    from alice_lab.optim import sgd, tree_map

    def value_and_grad(p, Xb, yb):
        value, grads = mlp_value_and_grad(p, Xb, yb)
        return value, tree_map(lambda g: sign * g, grads)

    res = sgd(
        value_and_grad,
        params,
        X,
        y,
        lr=lr,
        batch_size=batch_size,
        epochs=1,
        seed=seed if shuffle else None,
        drop_last=drop_last,
    )
    return res.params, list(res.losses)


def _epoch_reference():
    return _sgd_epoch


@register(
    "lab05.2", name="sgd_epoch", exercise="5.2", points=3, reference=_epoch_reference
)
def check_epoch(sgd_epoch: Callable) -> tuple[bool, str]:
    """sgd_epoch(params, X, y, lr, batch_size, seed) -> (new params, the losses)."""
    steps = []
    for n, r, lr, seed in [(100, 16, 0.5, 3), (64, 64, 0.2, 4)]:
        X, y = _slice(n, seed)
        p = _params(SIZES, seed)
        want = _lazy(_epoch_reference(), p, X, y, lr, r, seed)
        out = {}

        def run(X=X, y=y, p=p, r=r, lr=lr, seed=seed, out=out):
            before = [{k: v.copy() for k, v in q.items()} for q in p]
            out["got"] = sgd_epoch(p, X.copy(), y.copy(), lr, r, seed)
            for q, b in zip(p, before, strict=True):
                if any(not np.array_equal(q[k], b[k]) for k in q):
                    return False, "sgd_epoch changed the caller's params in place"
            if not (isinstance(out["got"], tuple) and len(out["got"]) == 2):
                return False, "sgd_epoch must return a pair (params, losses)"
            return True, ""

        steps.append(run)
        steps.append(
            lambda out=out, want=want, r=r: _compare(
                f"the mini-batch losses (batch size {r})",
                np.asarray(out["got"][1], dtype=float),
                lambda: np.asarray(want()[1]),
                rtol=1e-9,
                atol=1e-11,
            )
        )
        steps.append(
            lambda out=out, want=want, r=r: _chain(
                *_compare_params(
                    f"params after one epoch (batch size {r})",
                    out["got"][0],
                    N_LAYERS,
                    lambda: want()[0],
                ),
                ok="",
            )
        )
    return _chain(*steps, ok="one epoch matches optim.sgd (same batches, same updates)")


@mutant("lab05.2", "no shuffling (batches in the original order)")
def _epoch_no_shuffle(params, X, y, lr, batch_size, seed):
    return _sgd_epoch(params, X, y, lr, batch_size, seed, shuffle=False)


@mutant("lab05.2", "gradient ascent")
def _epoch_ascent(params, X, y, lr, batch_size, seed):
    return _sgd_epoch(params, X, y, lr, batch_size, seed, sign=-1.0)


@mutant("lab05.2", "drops the last, smaller mini-batch")
def _epoch_drop_last(params, X, y, lr, batch_size, seed):
    return _sgd_epoch(params, X, y, lr, batch_size, seed, drop_last=True)


@mutant("lab05.2", "one full-batch step instead of an epoch of mini-batches")
def _epoch_full_batch(params, X, y, lr, batch_size, seed):
    return _sgd_epoch(params, X, y, lr, len(X), seed, shuffle=False)


@mutant("lab05.2", "updates the caller's arrays in place")
def _epoch_in_place(params, X, y, lr, batch_size, seed):
    new, losses = _sgd_epoch(params, X, y, lr, batch_size, seed)
    for old, q in zip(params, new, strict=True):
        for k in old:
            old[k][...] = q[k]
    return params, losses


# =====================================================================================
# 5.3 A PyTorch training step
# =====================================================================================


def _torch_step(
    model,
    optimizer,
    xb,
    yb,
    *,
    fresh: bool = True,
    step_first: bool = False,
    reduction: str = "mean",
    softmax_first: bool = False,
):
    """One step of the training loop: the gradients of alice_lab's mean cross-entropy,
    taken with ``torch.autograd.grad``, are put in every parameter's ``.grad`` and
    the optimizer steps. The knobs turn it into common mistakes: ``fresh=False`` adds
    them to the gradients already there (``zero_grad`` forgotten), ``step_first``
    steps before the gradients exist, ``reduction="sum"`` sums the loss,
    ``softmax_first`` applies a softmax before the cross-entropy."""
    import torch

    from alice_lab.losses import cross_entropy

    params = [p for group in optimizer.param_groups for p in group["params"]]
    if fresh:
        for p in params:
            p.grad = None
    if step_first:
        optimizer.step()
    logits = model(xb)
    if softmax_first:
        logits = torch.softmax(logits, dim=-1)
    value = cross_entropy(logits, yb, reduction=reduction)
    for p, g in zip(params, torch.autograd.grad(value, params), strict=True):
        p.grad = g if p.grad is None else p.grad + g
    if not step_first:
        optimizer.step()
    return value.item() / (len(yb) if reduction == "sum" else 1)


def _torch_step_reference():
    return _torch_step


def _torch_run(step_fn: Callable, seed: int, n_steps: int, lr: float, momentum: float):
    import torch

    from alice_lab.layers import from_torch, to_torch

    X, y = _slice(16 * n_steps, seed)
    model = to_torch(_params(SIZES, seed))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for t in range(n_steps):
        xb = torch.tensor(X[16 * t : 16 * (t + 1)])
        yb = torch.tensor(y[16 * t : 16 * (t + 1)])
        value = step_fn(model, opt, xb, yb)
        losses.append(value.item() if hasattr(value, "item") else float(value))
    return from_torch(model), np.asarray(losses)


@register(
    "lab05.3",
    name="torch_train_step",
    exercise="5.3",
    points=3,
    reference=_torch_step_reference,
)
def check_torch_step(torch_train_step: Callable) -> tuple[bool, str]:
    """torch_train_step(model, optimizer, xb, yb): one step of the classic loop."""
    steps = []
    for seed, momentum in [(5, 0.0), (6, 0.9)]:
        want = _lazy(_torch_run, _torch_step_reference(), seed, 4, 0.3, momentum)
        out = {}

        def run(seed=seed, momentum=momentum, out=out):
            out["p"], out["l"] = _torch_run(torch_train_step, seed, 4, 0.3, momentum)
            return True, ""

        steps += [
            run,
            lambda out=out, want=want: _compare(
                "the losses of 4 steps",
                out["l"],
                lambda: want()[1],
                rtol=1e-6,
                atol=1e-7,
            ),
            lambda out=out, want=want, m=momentum: _chain(
                *_compare_params(
                    f"parameters after 4 steps (momentum {m})",
                    out["p"],
                    N_LAYERS,
                    lambda: want()[0],
                    rtol=1e-6,
                    atol=1e-7,
                ),
                ok="",
            ),
        ]
    return _chain(*steps, ok="4 steps (with and without momentum) match the reference")


@mutant("lab05.3", "zero_grad forgotten (gradients accumulate)")
def _torch_no_zero_grad(model, optimizer, xb, yb):
    return _torch_step(model, optimizer, xb, yb, fresh=False)


@mutant("lab05.3", "optimizer.step() before backward()")
def _torch_step_first(model, optimizer, xb, yb):
    return _torch_step(model, optimizer, xb, yb, step_first=True)


@mutant("lab05.3", "summed instead of averaged loss")
def _torch_sum(model, optimizer, xb, yb):
    return _torch_step(model, optimizer, xb, yb, reduction="sum")


@mutant("lab05.3", "softmax before cross_entropy (applied twice)")
def _torch_double_softmax(model, optimizer, xb, yb):
    return _torch_step(model, optimizer, xb, yb, softmax_first=True)


# =====================================================================================
# 5.4 A pure SGD step in JAX
# =====================================================================================


def _jax_step(params, xb, yb, lr, *, sign: float = 1.0):
    """One SGD step: ``jax.grad`` of alice_lab's cross-entropy of alice_lab's MLP
    forward pass, then alice_lab's ``sgd_step`` on the pytree (``sign=-1``: a step up
    the gradient, a mistake)."""
    import jax

    from alice_lab.layers import mlp_forward
    from alice_lab.losses import cross_entropy
    from alice_lab.optim import sgd_step

    grads = jax.grad(lambda p: sign * cross_entropy(mlp_forward(p, xb), yb))(params)
    return sgd_step(params, grads, lr=lr)


def _jax_step_reference():
    return _jax_step


def _jax_run(step_fn: Callable, seed: int, n_steps: int, lr: float):
    import jax

    from alice_lab.backend import to_numpy

    X, y = _slice(16 * n_steps, seed)
    # float64 whatever the notebook chose (jax.enable_x64 is the context manager of
    # recent JAX; older releases have it in jax.experimental)
    x64 = getattr(jax, "enable_x64", None)
    if x64 is None:
        from jax.experimental import enable_x64 as x64
    with x64(True):
        import jax.numpy as jnp

        params = [
            {k: jnp.asarray(v) for k, v in q.items()} for q in _params(SIZES, seed)
        ]
        for t in range(n_steps):
            xb, yb = (
                jnp.asarray(X[16 * t : 16 * (t + 1)]),
                jnp.asarray(y[16 * t : 16 * (t + 1)]),
            )
            params = step_fn(params, xb, yb, lr)
        return [{k: to_numpy(v) for k, v in q.items()} for q in params]


@register(
    "lab05.4",
    name="jax_sgd_step",
    exercise="5.4",
    points=3,
    reference=_jax_step_reference,
)
def check_jax_step(jax_sgd_step: Callable) -> tuple[bool, str]:
    """jax_sgd_step(params, xb, yb, lr) -> new params: a pure function."""
    from alice_lab.layers import mlp_value_and_grad
    from alice_lab.optim import sgd_step

    @functools.cache
    def want():
        """The same steps with the hand-written gradient."""
        X, y = _slice(48, 7)
        params = _params(SIZES, 7)
        for t in range(3):
            _, g = mlp_value_and_grad(
                params, X[16 * t : 16 * (t + 1)], y[16 * t : 16 * (t + 1)]
            )
            params = sgd_step(params, g, lr=0.4)
        return params

    out = {}

    def run():
        out["p"] = _jax_run(jax_sgd_step, 7, 3, 0.4)
        return True, ""

    return _chain(
        run,
        lambda: _chain(
            *_compare_params("parameters after 3 steps", out["p"], N_LAYERS, want),
            ok="",
        ),
        ok="3 steps match SGD with the hand-written gradient",
    )


@mutant("lab05.4", "returns the gradients, not the new parameters")
def _jax_returns_grads(params, xb, yb, lr):
    import jax

    new = _jax_step(params, xb, yb, lr)
    return jax.tree_util.tree_map(lambda a, b: (a - b) / lr, params, new)


@mutant("lab05.4", "adds the gradient (ascent)")
def _jax_ascent(params, xb, yb, lr):
    return _jax_step(params, xb, yb, lr, sign=-1.0)


@mutant("lab05.4", "updates the weights but not the biases")
def _jax_no_bias(params, xb, yb, lr):
    new = _jax_step(params, xb, yb, lr)
    return [{"W": n["W"], "b": p["b"]} for n, p in zip(new, params, strict=True)]


@mutant("lab05.4", "summed loss over the mini-batch (step r times too large)")
def _jax_sum(params, xb, yb, lr):
    return _jax_step(params, xb, yb, lr * yb.shape[0])


# =====================================================================================
# 5.5 Data-parallel training with torch.distributed
# =====================================================================================

WORLD = 2
DDP_STEPS = 3
DDP_LR = 0.5


def _ddp_step(
    model,
    xb,
    yb,
    lr,
    world_size,
    all_reduce,
    *,
    share: str | None = "grads",
    mean: bool = True,
    fresh: bool = True,
):
    """A data-parallel SGD step: the gradients of alice_lab's cross-entropy on this
    rank's shard (``torch.autograd.grad``), summed over the ranks by ``all_reduce`` (one
    call per parameter tensor, in order), divided by ``world_size`` and applied in
    place. The knobs turn it into common mistakes: ``share="loss"`` all-reduces the
    loss instead, ``share=None`` nothing; ``mean=False`` keeps the sum;
    ``fresh=False`` adds to the gradients of the earlier steps (``zero_grad``
    forgotten)."""
    import torch

    from alice_lab.losses import cross_entropy

    params = list(model.parameters())
    value = cross_entropy(model(xb), yb)
    grads = list(torch.autograd.grad(value, params))
    if not fresh:
        for p, g in zip(params, grads, strict=True):
            p.grad = g if p.grad is None else p.grad + g
        grads = [p.grad.clone() for p in params]
    value = value.detach()
    if share == "grads":
        for g in grads:
            all_reduce(g)  # the sum over the ranks, in place
    elif share == "loss":
        value = value.clone()
        all_reduce(value)
        value = value / world_size
    shrink = world_size if share == "grads" and mean else 1
    with torch.no_grad():
        for p, g in zip(params, grads, strict=True):
            p.sub_(g, alpha=lr / shrink)
    return value.item()


def _ddp_reference():
    return _ddp_step


def ddp_shards(seed: int = 8, batch: int = 16):
    """Per rank, ``DDP_STEPS`` mini-batches ``(X, y)`` of ``batch`` examples each."""
    X, y = _slice(WORLD * DDP_STEPS * batch, seed)
    return [
        [
            (
                X[(WORLD * t + rank) * batch : (WORLD * t + rank + 1) * batch],
                y[(WORLD * t + rank) * batch : (WORLD * t + rank + 1) * batch],
            )
            for t in range(DDP_STEPS)
        ]
        for rank in range(WORLD)
    ]


def single_process_reference(params: list, shards: list, lr: float) -> list:
    """SGD on the concatenation of every rank's mini-batch, one step per round: the
    loss as a function of the parameters (``torch.func.functional_call``), its
    gradient by ``torch.func.grad``."""
    import torch
    import torch.nn.functional as F
    from torch.func import functional_call, grad

    from alice_lab.layers import from_torch, to_torch

    model = to_torch(params)
    theta = {name: t.detach() for name, t in model.named_parameters()}

    def joined_loss(theta, t):
        xb = torch.tensor(np.concatenate([s[t][0] for s in shards]))
        yb = torch.tensor(np.concatenate([s[t][1] for s in shards]))
        return F.cross_entropy(functional_call(model, theta, (xb,)), yb)

    for t in range(len(shards[0])):
        g = grad(joined_loss)(theta, t)
        theta = {name: theta[name] - lr * g[name] for name in theta}
    model.load_state_dict(theta)
    return from_torch(model)


def run_rank(
    rank: int,
    world_size: int,
    step_fn: Callable,
    params: list,
    shards: list,
    lr: float,
    all_reduce: Callable,
) -> tuple[list, list]:
    """One rank's training: its own replica, its own shard of every mini-batch."""
    import torch

    from alice_lab.layers import from_torch, to_torch

    model = to_torch(params)
    losses = []
    for xb, yb in shards[rank]:
        value = step_fn(
            model, torch.tensor(xb), torch.tensor(yb), lr, world_size, all_reduce
        )
        losses.append(value.item() if hasattr(value, "item") else float(value))
    return from_torch(model), losses


def ddp_worker(rank: int, world_size: int, step_fn: Callable, params, shards, lr):
    """What each process of :func:`alice_course.launch.run_data_parallel` runs."""
    import torch.distributed as dist

    def all_reduce(t):
        dist.all_reduce(t, op=dist.ReduceOp.SUM)

    return run_rank(rank, world_size, step_fn, params, shards, lr, all_reduce)


class ThreadGroup:
    """``all_reduce`` for ranks simulated by threads: every rank hands in its tensor,
    waits for the others, and gets the sum back in place."""

    def __init__(self, world_size: int, timeout: float = 20.0):
        self.barrier = threading.Barrier(world_size, timeout=timeout)
        self.slots: list = [None] * world_size

    def all_reduce_for(self, rank: int) -> Callable:
        def all_reduce(t, op=None):
            self.slots[rank] = t.detach().clone()
            self.barrier.wait()
            total = sum(self.slots[1:], self.slots[0].clone())
            self.barrier.wait()
            t.copy_(total)

        return all_reduce


def simulate_ranks(
    step_fn: Callable,
    params,
    shards,
    lr,
    world_size: int = WORLD,
    timeout: float = 20.0,
):
    """:func:`run_rank` for every rank, in threads of this process; a rank that waits
    more than ``timeout`` seconds for the others ends the simulation with an error."""
    group = ThreadGroup(world_size, timeout)
    results: list = [None] * world_size
    errors: list = [None] * world_size

    def target(rank):
        try:
            results[rank] = run_rank(
                rank,
                world_size,
                step_fn,
                params,
                shards,
                lr,
                group.all_reduce_for(rank),
            )
        except BaseException as err:  # noqa: BLE001 - re-raised below
            errors[rank] = err
            group.barrier.abort()  # free the ranks waiting for this one

    threads = [
        threading.Thread(target=target, args=(r,), daemon=True)
        for r in range(world_size)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=3 * timeout)
    first = next(
        (
            e
            for e in errors
            if e is not None and not isinstance(e, threading.BrokenBarrierError)
        ),
        None,
    )
    if first is not None:
        raise first
    if any(e is not None for e in errors) or any(t.is_alive() for t in threads):
        raise RuntimeError(
            "the ranks did not meet: every rank must call all_reduce the same number "
            "of times (once per parameter tensor)"
        )
    return results


#: sources already verified with real processes in this notebook session (the final
#: report re-runs every check; the gloo stage need not run twice for the same code).
#: Filled only in a notebook: under a grader's recorder a pass is not yet a verdict.
_GLOO_PASSED: set[str] = set()


def _source_key(fn: Callable) -> str | None:
    import inspect

    try:
        return f"{fn.__module__}:{fn.__qualname__}:{inspect.getsource(fn)}"
    except (OSError, TypeError):
        return None


@register(
    "lab05.5", name="ddp_train_step", exercise="5.5", points=4, reference=_ddp_reference
)
def check_ddp(ddp_train_step: Callable) -> tuple[bool, str]:
    """ddp_train_step(model, xb, yb, lr, world_size, all_reduce): a data-parallel
    step; 2 ranks must end where single-process SGD on the joined batches ends."""
    from alice_course.launch import run_data_parallel

    params, shards = _params(SIZES, 8), ddp_shards()
    want = _lazy(single_process_reference, params, shards, DDP_LR)
    out: dict = {}

    def threads():
        out["sim"] = simulate_ranks(ddp_train_step, params, shards, DDP_LR)
        return True, ""

    def per_rank(key, label):
        return [
            lambda r=r: _chain(
                *_compare_params(
                    f"{label}: rank {r}'s parameters", out[key][r][0], N_LAYERS, want
                ),
                ok="",
            )
            for r in range(WORLD)
        ]

    def processes():
        key = _source_key(ddp_train_step)
        if key is not None and key in _GLOO_PASSED and grading.RECORDER.get() is None:
            out["gloo"] = out["sim"]  # verified with real processes earlier
        else:
            out["gloo"] = run_data_parallel(
                ddp_worker,
                ddp_train_step,
                params,
                shards,
                DDP_LR,
                world_size=WORLD,
                timeout=120,
            )
        return True, ""

    passed, message = _chain(
        threads,
        *per_rank("sim", "2 simulated ranks"),
        processes,
        *per_rank("gloo", "2 gloo processes"),
        ok=f"{DDP_STEPS} data-parallel steps on 2 ranks (threads, then 2 gloo "
        "processes) equal single-process SGD on the joined mini-batches",
    )
    key = _source_key(ddp_train_step)
    if passed and key is not None and grading.RECORDER.get() is None:
        _GLOO_PASSED.add(key)
    return passed, message


@mutant("lab05.5", "no all_reduce: each rank follows its own gradient")
def _ddp_local(model, xb, yb, lr, world_size, all_reduce):
    return _ddp_step(model, xb, yb, lr, world_size, all_reduce, share=None)


@mutant("lab05.5", "sums the gradients without dividing by world_size")
def _ddp_sum(model, xb, yb, lr, world_size, all_reduce):
    return _ddp_step(model, xb, yb, lr, world_size, all_reduce, mean=False)


@mutant("lab05.5", "zero_grad forgotten (gradients accumulate over steps)")
def _ddp_no_zero(model, xb, yb, lr, world_size, all_reduce):
    return _ddp_step(model, xb, yb, lr, world_size, all_reduce, fresh=False)


@mutant("lab05.5", "averages the losses, not the gradients")
def _ddp_loss_only(model, xb, yb, lr, world_size, all_reduce):
    return _ddp_step(model, xb, yb, lr, world_size, all_reduce, share="loss")
