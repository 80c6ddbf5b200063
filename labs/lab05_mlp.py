# %% [markdown]
# # Lab 5 — An MLP on the digits: NumPy, PyTorch, JAX, and two processes
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab05_mlp.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 5 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 2634–2660), with the
# mini-batches of §5.3 and the data parallelism of Figure F.5.3. The exercises are the
# companion's; text CC BY-SA 4.0, code MIT.*
#
# The chapter ends by asking for two things every training framework provides: a way to
# cut a dataset into shuffled **mini-batches**, and a way to build models out of
# **layers**. This lab trains the same multi-layer perceptron (64 → 64 → 10, ReLU) on the
# 8×8 handwritten digits that ship with scikit-learn, four times:
#
# | Exercise | What you write | Framework |
# |---|---|---|
# | 5.1 | `mlp_forward(params, X)`: the forward pass of an MLP | NumPy |
# | 5.2 | `sgd_epoch(...)`: one epoch of mini-batch SGD | NumPy |
# | 5.3 | `torch_train_step(...)`: one step of the classic PyTorch loop | PyTorch |
# | 5.4 | `jax_sgd_step(...)`: a pure SGD step, differentiated by `jax.grad` | JAX |
# | 5.5 | `ddp_train_step(...)`: a *data-parallel* step on two processes | `torch.distributed` |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed; the cell after that uses your function, and until the
# exercises it needs are done it says "(skipped until Exercise 5.k is done)" instead, so
# that *Run all* still reaches your score at the end.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab[torch,jax] @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import jax
import matplotlib.pyplot as plt
import numpy as np
import torch

from alice_course import grading
from alice_course.grading import (
    attempted,  # False (and a note) while fn is still a stub
)
from alice_lab import data, layers
from alice_lab.backend import is_fast

jax.config.update("jax_enable_x64", True)  # compare JAX with NumPy to many digits
FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
EPOCHS = 2 if FAST else 8
torch.manual_seed(0)

X_all, y_all = data.load_digits()  # (1797, 64) pixel intensities 0..16, labels 0..9
X_all = X_all / 16.0  # inputs in [0, 1]
X_train, X_test, y_train, y_test = data.train_test_split(
    X_all, y_all, test_size=0.25, seed=0, stratify=True
)
SIZES = [64, 64, 10]  # input, hidden, output widths
print("train", X_train.shape, "test", X_test.shape)

fig, axes = plt.subplots(1, 8, figsize=(9, 1.6))
for ax, x, label in zip(axes, X_train, y_train, strict=False):
    ax.imshow(x.reshape(8, 8), cmap="gray_r")
    ax.set(title=str(label), xticks=[], yticks=[])
fig.suptitle("a few training digits (8×8 pixels, flattened to 64 features)")
plt.show()

# %% [markdown]
# ## Exercise 5.1 — The forward pass
#
# An MLP is a chain of fully-connected layers. Layer $k$ holds a weight matrix
# $\mathbf{W}_k \sim (c_{k-1}, c_k)$ and a bias $\mathbf{b}_k \sim (c_k)$ and maps a batch
# $\mathbf{H} \sim (n, c_{k-1})$ to $\mathbf{H}\mathbf{W}_k + \mathbf{b}_k$ (the book's
# eq. E.5.7, rows are examples). Between layers comes the non-linearity
# $\mathrm{ReLU}(s) = \max(0, s)$; the **last** layer has none: its outputs are the
# *logits*, which the cross-entropy turns into probabilities.
#
# Here `params` is a list with one dict per layer, `{"W": (c_in, c_out), "b": (c_out,)}`.
# Write `mlp_forward(params, X)` for `X` of shape `(n, 64)`, returning `(n, 10)`, with
# `@` and `np.maximum`.


# %%
def mlp_forward(params, X):
    """params: list of {"W", "b"}; X: (n, c) -> logits (n, c_out). ReLU between layers."""
    ### BEGIN SOLUTION
    H = X
    for k, layer in enumerate(params):
        H = H @ layer["W"] + layer["b"]
        if k < len(params) - 1:
            H = np.maximum(H, 0.0)
    return H
    ### END SOLUTION


# %%
grading.check("lab05.1", mlp_forward)

# %% [markdown]
# `alice_lab.layers.mlp_init` draws the initial weights from a seeded generator with He's
# scaling (variance $2/c$, suited to ReLUs). Before training, the network guesses: about
# one digit in ten is right.

# %%
params0 = layers.mlp_init(SIZES, seed=0, scheme="he")  # Exercise 5.2 starts here too
if attempted(mlp_forward, params0, X_test):
    logits = mlp_forward(params0, X_test)
    print(
        "logits",
        logits.shape,
        "| accuracy before training:",
        np.mean(logits.argmax(1) == y_test),
    )
    print(
        "same as alice_lab.layers.mlp_forward:",
        np.allclose(logits, layers.mlp_forward(params0, X_test)),
    )

# %% [markdown]
# ## Exercise 5.2 — An epoch of mini-batch SGD
#
# Gradient descent on all 1343 training digits at every step is wasteful. Stochastic
# gradient descent (§5.3) follows the gradient of a **mini-batch** instead: shuffle the
# data, cut it into consecutive chunks of `batch_size` examples, and take one step per
# chunk. One pass over the data is an **epoch**.
#
# Two tools are provided:
#
# - `data.batches(X, y, batch_size, seed=seed)` yields the mini-batches `(Xb, yb)` of one
#   shuffled epoch (the last one is smaller when `batch_size` does not divide n);
# - `layers.mlp_value_and_grad(params, Xb, yb)` returns the mean cross-entropy on the
#   mini-batch and its gradient, a list shaped like `params` (chapter 6 explains how it
#   is computed).
#
# Write `sgd_epoch(params, X, y, lr, batch_size, seed)`: one step
# $\theta \leftarrow \theta - \eta\,\nabla\widetilde{L}_t$ per mini-batch, in the order
# `data.batches` gives them. Return the new parameters and the list of mini-batch losses.
# Build new arrays (`W - lr * g`), never update the caller's arrays in place.


# %%
def sgd_epoch(params, X, y, lr, batch_size, seed):
    """One epoch of mini-batch SGD; returns (new params, list of mini-batch losses)."""
    ### BEGIN SOLUTION
    losses = []
    for Xb, yb in data.batches(X, y, batch_size, seed=seed):
        loss, grads = layers.mlp_value_and_grad(params, Xb, yb)
        params = [
            {"W": p["W"] - lr * g["W"], "b": p["b"] - lr * g["b"]}
            for p, g in zip(params, grads, strict=True)
        ]
        losses.append(float(loss))
    return params, losses
    ### END SOLUTION


# %%
grading.check("lab05.2", sgd_epoch)

# %% [markdown]
# Training: a new shuffle every epoch (`seed=epoch`). The mini-batch losses are noisy,
# since each is an estimate from 32 examples, but they trend down, and the test accuracy
# climbs well above 90%.

# %%
# the test accuracy uses your mlp_forward
if attempted(sgd_epoch, params0, X_train[:8], y_train[:8], 0.3, 8, 0) and attempted(
    mlp_forward, params0, X_test
):
    params, batch_losses, test_acc = params0, [], []
    for epoch in range(EPOCHS):
        params, losses = sgd_epoch(
            params, X_train, y_train, lr=0.3, batch_size=32, seed=epoch
        )
        batch_losses += losses
        test_acc.append(np.mean(mlp_forward(params, X_test).argmax(1) == y_test))
    print("test accuracy after each epoch:", np.round(test_acc, 3))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.2))
    ax1.plot(batch_losses, lw=0.8)
    ax1.set(
        xlabel="iteration (one mini-batch of 32)",
        ylabel="mini-batch loss",
        yscale="log",
        title="NumPy SGD",
    )
    ax2.plot(np.arange(1, EPOCHS + 1), test_acc, "o-")
    ax2.set(xlabel="epoch", ylabel="test accuracy", title="held-out digits")
    plt.show()

# %% [markdown]
# ## Exercise 5.3 — The same in PyTorch
#
# PyTorch packs the pieces into objects: `nn.Sequential` chains layers (the book's
# model of §5.2), a `DataLoader` over a `TensorDataset` shuffles and slices (Box 5.2),
# `F.cross_entropy` is the loss and `torch.optim.SGD` applies the update to every
# parameter. One training step is always the same four moves:
#
# 1. `optimizer.zero_grad()`: clear the gradients of the previous step (PyTorch adds new
#    gradients to the old ones otherwise);
# 2. compute the loss on the mini-batch;
# 3. `loss.backward()`: fill each parameter's `.grad`;
# 4. `optimizer.step()`: update the parameters.
#
# Write `torch_train_step(model, optimizer, xb, yb)` doing exactly that with the mean
# cross-entropy of the logits `model(xb)` (no softmax: `F.cross_entropy` applies it), and
# return the loss as a Python float (`loss.item()`).

# %%
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def torch_train_step(model, optimizer, xb, yb):
    """One step of the training loop; returns the mini-batch loss as a float."""
    ### BEGIN SOLUTION
    optimizer.zero_grad()
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()
    ### END SOLUTION


# %%
grading.check("lab05.3", torch_train_step)

# %% [markdown]
# The loop of the PyTorch quick-start guide, on the digits (the guide's FashionMNIST
# would need a download). The same architecture, built from `nn.Linear` layers.

# %%
import copy

loader = DataLoader(
    TensorDataset(torch.tensor(X_train, dtype=torch.float32), torch.tensor(y_train)),
    batch_size=32,
    shuffle=True,
)
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
trial = copy.deepcopy(model)  # one trial step on a copy leaves the run below unchanged
xb0, yb0 = torch.tensor(X_train[:8], dtype=torch.float32), torch.tensor(y_train[:8])
if attempted(
    torch_train_step, trial, torch.optim.SGD(trial.parameters(), lr=0.3), xb0, yb0
):
    for epoch in range(EPOCHS):
        losses = [torch_train_step(model, optimizer, xb, yb) for xb, yb in loader]
        with torch.no_grad():
            pred = model(torch.tensor(X_test, dtype=torch.float32)).argmax(1).numpy()
        print(
            f"epoch {epoch + 1}: mean mini-batch loss {np.mean(losses):.3f}, test accuracy {np.mean(pred == y_test):.3f}"
        )
    print(
        f"{len(loader)} mini-batches per epoch; the last holds {len(X_train) - 32 * (len(loader) - 1)} digits"
    )

# %% [markdown]
# ## Exercise 5.4 — A pure SGD step in JAX
#
# JAX has no layers or optimisers of its own: a model is a function of its parameters,
# and the parameters are a *pytree* (here our list of dicts). `jax.grad(loss)(params)`
# returns the gradient with the same structure, and
# `jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)` applies the update to
# every leaf.
#
# Write `jax_sgd_step(params, xb, yb, lr)`: define the mean cross-entropy of the MLP's
# logits inside it (with `jax.nn.relu`, `jax.nn.log_softmax`, and
# `log_probs[jnp.arange(n), yb]` to pick each example's log-probability), differentiate
# it with `jax.grad`, and return the **new** parameters. No NumPy calls on JAX arrays,
# no in-place updates: the function must be pure, so that `jax.jit` can compile it.

# %%
import jax.numpy as jnp


def jax_sgd_step(params, xb, yb, lr):
    """One SGD step on the mini-batch (xb, yb); returns the new params (a pytree)."""

    ### BEGIN SOLUTION
    def loss(p):
        h = xb
        for k, layer in enumerate(p):
            h = h @ layer["W"] + layer["b"]
            if k < len(p) - 1:
                h = jax.nn.relu(h)
        log_probs = jax.nn.log_softmax(h)
        return -jnp.mean(log_probs[jnp.arange(yb.shape[0]), yb])

    grads = jax.grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    ### END SOLUTION


# %%
grading.check("lab05.4", jax_sgd_step)

# %% [markdown]
# Compiled once with `jax.jit`, the step runs on mini-batches from `data.batches`, which
# works on JAX arrays as well.

# %%
step = jax.jit(jax_sgd_step)
params_j = layers.params_to(layers.mlp_init(SIZES, seed=0, scheme="he"), "jax")
Xj, yj = jnp.asarray(X_train), jnp.asarray(y_train)
if attempted(jax_sgd_step, params_j, Xj[:8], yj[:8], 0.3):
    for epoch in range(EPOCHS):
        for xb, yb in data.batches(Xj, yj, 32, seed=epoch):
            params_j = step(params_j, xb, yb, 0.3)
    acc_j = float(
        jnp.mean(
            layers.mlp_forward(params_j, jnp.asarray(X_test)).argmax(1)
            == jnp.asarray(y_test)
        )
    )
    print(f"JAX: test accuracy after {EPOCHS} epochs: {acc_j:.3f}")

# %% [markdown]
# ## Exercise 5.5 — Data parallelism on two processes
#
# Figure F.5.3 of the book: with several machines (or GPUs), each one keeps a copy of
# the model, takes its own slice of the mini-batch, and computes the gradient of its
# mean loss. The machines then **sum** their gradients (an *all-reduce*), divide by their
# number, and every copy takes the same step. Since the gradient is linear, this is
# exactly the gradient of the mean loss on the whole mini-batch (when the slices have
# the same size), so the copies stay identical and the result is that of ordinary SGD.
#
# We run it for real, on the CPU: `run_data_parallel` (`alice_course.launch`) starts two Python
# processes joined by `torch.distributed` (backend gloo, talking over 127.0.0.1), and
# in each one calls a worker that trains its copy of the model.
#
# Write `ddp_train_step(model, xb, yb, lr, world_size, all_reduce)`: clear the
# gradients, back-propagate the mean cross-entropy of the local mini-batch, then for
# every parameter call `all_reduce(p.grad)` (it replaces the tensor, in place, by the
# sum over all processes), divide by `world_size` and update `p -= lr * p.grad` inside
# `torch.no_grad()`. Return the local loss as a float. Your function runs in a fresh
# process: besides its arguments it may only use `torch`, `F` and `nn`.


# %%
def ddp_train_step(model, xb, yb, lr, world_size, all_reduce):
    """One data-parallel SGD step on this process's shard; returns its local loss."""
    ### BEGIN SOLUTION
    model.zero_grad()
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            all_reduce(p.grad)
            p.grad /= world_size
            p -= lr * p.grad
    return loss.item()
    ### END SOLUTION


# %%
grading.check("lab05.5", ddp_train_step)

# %% [markdown]
# Now a short training run. Each process gets half of every mini-batch of 64 digits;
# the worker below builds its copy of the model and calls your step. Afterwards both
# copies must equal a single model trained by plain SGD on the full mini-batches, to
# rounding error. (The two ranks are first simulated with threads in this process,
# which gives a quick error message if something is off; the second run is the real
# thing.)

# %%
from alice_course.grading.lab05 import simulate_ranks, single_process_reference
from alice_course.launch import run_data_parallel


def train_worker(rank, world_size, step_fn, params, shards, lr):
    """Runs in each process: its own replica, its own half of every mini-batch."""
    import torch.distributed as dist

    from alice_lab.layers import from_torch, to_torch

    def all_reduce(t):
        dist.all_reduce(t, op=dist.ReduceOp.SUM)

    model = to_torch(params)
    losses = [
        step_fn(model, torch.tensor(xb), torch.tensor(yb), lr, world_size, all_reduce)
        for xb, yb in shards[rank]
    ]
    return from_torch(model), losses


STEPS = 5 if FAST else 20
order = (
    np.random.default_rng(1).permutation(len(X_train))[: 64 * STEPS].reshape(STEPS, 64)
)
shards = [
    [
        (X_train[i[32 * r : 32 * (r + 1)]], y_train[i[32 * r : 32 * (r + 1)]])
        for i in order
    ]
    for r in range(2)
]
start = layers.mlp_init(SIZES, seed=3, scheme="he")
# a quick rehearsal in threads of this process, then the real thing with 2 processes
if attempted(simulate_ranks, ddp_train_step, start, shards, 0.3):
    (p0, loss0), (p1, loss1) = run_data_parallel(
        train_worker, ddp_train_step, start, shards, 0.3, world_size=2, timeout=120
    )
    single = single_process_reference(start, shards, 0.3)
    gap = max(
        np.abs(a[k] - b[k]).max()
        for a, b in zip(p0, single, strict=True)
        for k in ("W", "b")
    )
    print(f"{STEPS} steps on 2 processes: local losses of rank 0 {np.round(loss0, 3)}")
    print(
        f"rank 0 vs rank 1: identical = {all(np.array_equal(a[k], b[k]) for a, b in zip(p0, p1, strict=True) for k in 'Wb')}"
    )
    print(
        f"largest difference from single-process SGD on the joined mini-batches: {gap:.1e}"
    )

# %% [markdown]
# ## Your score, and a widget to play with
#
# The cell below runs every check of this lab again and adds up the points.

# %%
results = grading.report("lab05", globals())

# %% [markdown]
# How large should a mini-batch be? Move the slider for $r$: small batches give many
# cheap, noisy steps per epoch, large ones few, precise steps. The strip on the left is
# Figure F.5.2 of the book: each row an epoch, each red segment a mini-batch.

# %%
from alice_course.widgets.ch05_minibatch_sgd import live_view

live_view(r=20, lr=0.2, epochs=10)
