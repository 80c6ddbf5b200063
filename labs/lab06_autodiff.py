# %% [markdown]
# # Lab 6 — A reverse-mode engine of your own
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab06_autodiff.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 6 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 3236–3250). The
# exercise is the book's; the text and code here are the companion's (text CC BY-SA
# 4.0, code MIT).*
#
# The book suggests re-implementing a small reverse-mode AD system and adding new
# primitives by writing their vector-Jacobian products (VJPs). In this lab you do both,
# on top of `alice_lab.autodiff`: its `Tensor` records the graph, and everything that
# turns the graph into gradients is yours. At the end your engine trains an MLP on the
# digits dataset and must land exactly where PyTorch does.
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 6.1 | `matmul_vjp(g, X, W)`: the two VJPs of $\mathbf{Y} = \mathbf{X}\mathbf{W}$ | the primitive `my_matmul` |
# | 6.2 | `add_bias_vjp(g, X, b)`: the VJPs of $\mathbf{X} + \mathbf{b}$ (broadcast) | `my_add_bias` |
# | 6.3 | `softplus_vjp(g, x)`: the VJP of $\log(1 + e^x)$ | `my_softplus` |
# | 6.4 | `logsumexp_vjp(g, x)`: the VJP of a row-wise logsumexp | `my_logsumexp`, the loss |
# | 6.5 | `backward(y)`: the backward pass (topological order, accumulation) | your engine |
# | 6.6 | `train_step(params, X, y, lr, loss_fn, backward_fn)`: one step of gradient descent | training |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed. A VJP receives the upstream gradient `g` (shaped like the
# primitive's output) and the primitive's inputs, and returns one gradient per input,
# **shaped like that input**.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import matplotlib.pyplot as plt
import numpy as np

from alice_course import grading
from alice_course.grading import attempted
from alice_lab import autodiff as ad
from alice_lab.autodiff import Tensor
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer steps
rng = np.random.default_rng(0)


# %% [markdown]
# ## How a primitive is made
#
# `ad.defprimitive(name, forward, vjp=(...), jvp=(...))` registers a new operation. The
# engine never looks inside it: it calls `forward` on the input arrays, and during the
# backward pass it calls `vjp[i](g, z, *inputs)` to get the gradient of input `i`
# (`z` is the forward output, handy when the derivative reuses it). Here is the square
# function, $z = x^2$, whose VJP is $g \odot 2x$:

# %%
square = ad.defprimitive(
    "lab06_square",
    lambda x: x * x,
    vjp=(lambda g, z, x: g * 2 * x,),
    jvp=(lambda t, z, x: t * 2 * x,),
)
x_demo = Tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
square(x_demo).sum().backward()
print("d/dx sum(x²) =", x_demo.grad)

# %% [markdown]
# ## Exercise 6.1 — The VJPs of a matrix product
#
# For $\mathbf{Y} = \mathbf{X}\mathbf{W}$ with $\mathbf{X} \sim (n, c)$,
# $\mathbf{W} \sim (c, c')$, the upstream gradient $\mathbf{G}$ has the shape of
# $\mathbf{Y}$, $(n, c')$. Work out $\partial L / \partial X_{ij}$ and
# $\partial L / \partial W_{ij}$ from $L = \sum_{ik} G_{ik} Y_{ik}$ (the book does it for
# one vector in its box "Working out the VJP"), then write both as matrix products.
# Check the shapes: `dX` must be $(n, c)$ and `dW` must be $(c, c')$. A square
# $\mathbf{W}$ will not warn you if you transpose by mistake; the check will.


# %%
def matmul_vjp(g, X, W):
    """g (n, c'), X (n, c), W (c, c') -> (dX (n, c), dW (c, c'))."""
    ### BEGIN SOLUTION
    return g @ W.T, X.T @ g
    ### END SOLUTION


# %%
grading.check("lab06.1", matmul_vjp)

# %% [markdown]
# Your rule becomes a primitive. `ad.check_grads` compares it with finite differences
# along random directions (it computes $\langle \mathbf{u}, \partial f\,
# \mathbf{v}\rangle$ both ways).

# %%
my_matmul = ad.defprimitive(
    "lab06_matmul",
    np.matmul,
    vjp=(
        lambda g, z, X, W: matmul_vjp(g, X, W)[0],
        lambda g, z, X, W: matmul_vjp(g, X, W)[1],
    ),
    jvp=(lambda t, z, X, W: t @ W, lambda t, z, X, W: X @ t),
)
X_t, W_t = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
if attempted(matmul_vjp, np.ones((5, 3)), X_t, W_t):
    _, vjp_X = ad.vjp(lambda X: my_matmul(X, W_t), X_t)
    _, vjp_W = ad.vjp(lambda W: my_matmul(X_t, W), W_t)
    print(
        "largest relative error, dX:",
        ad.check_grads(lambda X: X @ W_t, X_t, vjp_fn=vjp_X),
    )
    print(
        "largest relative error, dW:",
        ad.check_grads(lambda W: X_t @ W, W_t, vjp_fn=vjp_W),
    )

# %% [markdown]
# ## Exercise 6.2 — Broadcasting, and its adjoint
#
# Adding a bias $\mathbf{b} \sim (c)$ to every row of $\mathbf{X} \sim (n, c)$ copies
# $\mathbf{b}$ $n$ times. Each copy receives a share of the gradient, so the gradient
# of $\mathbf{b}$ is the **sum** of the upstream gradient over the copied axis. Return
# `db` with the shape of `b`, $(c)$, not $(n, c)$ and not $(1, c)$.


# %%
def add_bias_vjp(g, X, b):
    """g (n, c), X (n, c), b (c,) -> (dX (n, c), db (c,))."""
    ### BEGIN SOLUTION
    return g, g.sum(axis=0)
    ### END SOLUTION


# %%
grading.check("lab06.2", add_bias_vjp)

# %%
my_add_bias = ad.defprimitive(
    "lab06_add_bias",
    np.add,
    vjp=(
        lambda g, z, X, b: add_bias_vjp(g, X, b)[0],
        lambda g, z, X, b: add_bias_vjp(g, X, b)[1],
    ),
    jvp=(lambda t, z, X, b: t, lambda t, z, X, b: np.broadcast_to(t, z.shape)),
)
b_t = rng.standard_normal(3)
if attempted(add_bias_vjp, np.ones((5, 3)), X_t[:, :3], b_t):
    _, vjp_b = ad.vjp(lambda b: my_add_bias(X_t[:, :3], b), b_t)
    print("db for an all-ones upstream gradient (5 rows):", vjp_b(np.ones((5, 3))))

# %% [markdown]
# ## Exercise 6.3 — A new activation: softplus
#
# $\mathrm{softplus}(x) = \log(1 + e^x)$ is a smooth ReLU. Its derivative is the
# sigmoid, $\sigma(x) = 1/(1 + e^{-x})$, so the VJP is $g \odot \sigma(x)$. Compute
# $\sigma$ in a way that cannot overflow: $e^{800}$ is `inf` in float64, and
# `inf / inf` is `nan`. (Hint: $\sigma(x) = \tfrac12(1 + \tanh(x/2))$, or split
# positive and negative $x$.)


# %%
def softplus_vjp(g, x):
    """g, x of the same shape -> g * sigmoid(x), finite for every x."""
    ### BEGIN SOLUTION
    return g * 0.5 * (np.tanh(0.5 * x) + 1)
    ### END SOLUTION


# %%
grading.check("lab06.3", softplus_vjp)

# %%
my_softplus = ad.defprimitive(
    "lab06_softplus",
    lambda x: np.logaddexp(0.0, x),
    vjp=(lambda g, z, x: softplus_vjp(g, x),),
    jvp=(lambda t, z, x: softplus_vjp(t, x),),
)
s = np.linspace(-6, 6, 241)
if attempted(softplus_vjp, np.ones(3), np.zeros(3)):
    slope = ad.grad(lambda z: my_softplus(z).sum())(s)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(s, my_softplus(s), label="softplus(x)")
    ax.plot(s, slope, label="its derivative, from your VJP")
    ax.plot(s, np.maximum(s, 0), ":", color="0.5", label="ReLU")
    ax.set(xlabel="x", title="softplus and its derivative")
    ax.legend()
    plt.show()

# %% [markdown]
# ## Exercise 6.4 — logsumexp, the heart of the cross-entropy
#
# For logits $\mathbf{x} \sim (n, m)$ the row-wise
# $\mathrm{logsumexp}(\mathbf{x})_i = \log\sum_j e^{x_{ij}}$ has shape $(n)$, and its
# gradient is the softmax of the row. So the VJP with $\mathbf{g} \sim (n)$ is
# $g_i\,\mathrm{softmax}(\mathbf{x}_i)_j$: $\mathbf{g}$ needs a new axis to multiply the
# $(n, m)$ softmax row by row. Compute the softmax stably, subtracting the row's
# maximum before exponentiating (logits of size $10^3$ will be tested).


# %%
def logsumexp_vjp(g, x):
    """g (n,), x (n, m) -> (n, m): g[:, None] * softmax(x, axis=-1)."""
    ### BEGIN SOLUTION
    p = np.exp(x - x.max(axis=-1, keepdims=True))
    return g[..., None] * p / p.sum(axis=-1, keepdims=True)
    ### END SOLUTION


# %%
grading.check("lab06.4", logsumexp_vjp)

# %% [markdown]
# With it, the mean cross-entropy of integer labels is
# $\frac1n\sum_i \big(\mathrm{logsumexp}(\mathbf{p}_i) - p_{i, y_i}\big)$, and the MLP
# below is built only from your primitives (and the engine's ReLU, indexing and mean).


# %%
def _logsumexp_rows(x):
    m = x.max(axis=-1, keepdims=True)
    return np.log(np.exp(x - m).sum(axis=-1)) + m[..., 0]


my_logsumexp = ad.defprimitive(
    "lab06_logsumexp",
    _logsumexp_rows,
    vjp=(lambda g, z, x: logsumexp_vjp(g, x),),
    jvp=(lambda t, z, x: (t * np.exp(x - z[..., None])).sum(axis=-1),),
)


def cross_entropy(logits, labels):
    rows = np.arange(len(labels))
    return (my_logsumexp(logits) - logits[rows, labels]).mean()


def mlp_loss(params, X, y):
    """Mean cross-entropy of a ReLU MLP built from your primitives."""
    h = X
    for k, (W, b) in enumerate(params):
        h = my_add_bias(my_matmul(h, W), b)
        if k < len(params) - 1:
            h = ad.relu(h)
    return cross_entropy(h, y)


# %% [markdown]
# ## Exercise 6.5 — The backward pass
#
# Every `Tensor` computed by the engine knows `t.parents` (the Tensors it was computed
# from that need gradients; a Tensor used twice appears twice) and `t.local_vjp(g)`
# (one gradient per parent, given the gradient `g` of `t`: it calls the VJPs you wrote).
# Leaves have `t.is_leaf == True` and no parents.
#
# Write `backward(y)`: starting from a gradient of ones at the scalar `y`, return a
# dict mapping **every leaf** reached from `y` to its gradient. Two things make it
# right (the book's "From theory to practice" warns about both):
#
# 1. **Accumulate.** A value used in several places receives a gradient from each use;
#    add them up (in `c = a + a * a`, `a` gets $1 + 2a$).
# 2. **Order.** Pass a node's gradient on only when it is complete, i.e. after every
#    node that uses it has been processed: visit the nodes in reverse topological
#    order. Build that order with an explicit stack, not recursion: the check uses a
#    graph 6000 operations deep, beyond Python's recursion limit.
#
# Use `id(node)` or the Tensor itself as a dict key.


# %%
def backward(y):
    """Scalar Tensor y -> {leaf Tensor: gradient array} for every leaf reached."""
    ### BEGIN SOLUTION
    order, seen, stack = [], set(), [(y, False)]
    while stack:  # iterative depth-first search, post-order
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p in node.parents if id(p) not in seen)
    grads = {id(y): np.ones_like(y.data)}
    leaves = {}
    for node in reversed(order):  # every node after all the nodes that use it
        g = grads[id(node)]
        if node.is_leaf:
            leaves[node] = g
        for parent, gp in zip(node.parents, node.local_vjp(g), strict=True):
            grads[id(parent)] = grads[id(parent)] + gp if id(parent) in grads else gp
    return leaves
    ### END SOLUTION


# %%
grading.check("lab06.5", backward)

# %% [markdown]
# On the diamond $c = a + a \cdot a$ your backward pass must give $1 + 2a$, and on the
# MLP it must agree with the engine's own `backward()`.

# %%
a = Tensor(1.5, requires_grad=True)
c = a + a * a
if attempted(backward, c):
    print("dc/da =", float(backward(c)[a]), "(1 + 2a =", 1 + 2 * 1.5, ")")

# %% [markdown]
# ## Exercise 6.6 — One step of gradient descent
#
# Write `train_step(params, X, y, lr, loss_fn, backward_fn)`: `params` is a list of
# `(W, b)` NumPy pairs. Wrap each array in a `Tensor(..., requires_grad=True)`,
# compute `loss_fn(tensors, X, y)`, get the gradients with `backward_fn(loss)` (a dict
# from leaf to gradient, like your `backward`), and return the new list
# $[(\mathbf{W} - \eta\,\partial L/\partial\mathbf{W},\ \mathbf{b} - \eta\,
# \partial L/\partial\mathbf{b}), \ldots]$ as NumPy arrays (`.data` reads a Tensor's
# values). Do not change the arrays you were given: build new ones.
#
# Below you will call it with **your** `mlp_loss` and **your** `backward`; the check
# calls it with the engine's, so that a mistake in an earlier exercise does not cost
# you this one.


# %%
def train_step(params, X, y, lr, loss_fn, backward_fn):
    """[(W, b), ...] -> the parameters after one gradient-descent step on loss_fn."""
    ### BEGIN SOLUTION
    leaves = [
        (Tensor(W, requires_grad=True), Tensor(b, requires_grad=True))
        for W, b in params
    ]
    grads = backward_fn(loss_fn(leaves, X, y))
    return [(W.data - lr * grads[W], b.data - lr * grads[b]) for W, b in leaves]
    ### END SOLUTION


# %%
grading.check("lab06.6", train_step)

# %% [markdown]
# ## Training on the digits
#
# The $8 \times 8$ digit images of scikit-learn (1797 of them, shipped with the
# library) go through an MLP $64 \to 32 \to 10$ built from your primitives, trained
# with your `train_step` and your `backward` on mini-batches of 100. PyTorch trains
# the same network from the same initial weights on the same batches; if your engine
# is right the two runs stay together to the last digit and reach the same test
# accuracy.

# %%
from sklearn.datasets import load_digits

from alice_lab.autodiff import frameworks, mlp

X_all, y_all = load_digits(return_X_y=True)
X_all = X_all / 16.0
X_tr, y_tr, X_te, y_te = X_all[:1300], y_all[:1300], X_all[1300:], y_all[1300:]
STEPS = 200 if FAST else 1500
init = mlp.init_mlp([64, 32, 10], seed=0)
batches = mlp.batch_indices(len(X_tr), STEPS, batch_size=100, seed=0)

if attempted(train_step, init, X_tr[:5], y_tr[:5], 0.1, mlp_loss, backward):
    params = init
    for idx in batches:  # your primitives, your backward pass, your update
        params = train_step(params, X_tr[idx], y_tr[idx], 0.5, mlp_loss, backward)
    theirs, _ = frameworks.train_mlp_torch(
        init, X_tr, y_tr, lr=0.5, steps=STEPS, batch_size=100, seed=0
    )
    acc_mine, acc_torch = (
        mlp.accuracy(params, X_te, y_te),
        mlp.accuracy(theirs, X_te, y_te),
    )
    gap = max(
        np.abs(p - q).max()
        for pp, qq in zip(params, theirs, strict=True)
        for p, q in zip(pp, qq, strict=True)
    )
    print(f"test accuracy: your engine {acc_mine:.4f}, PyTorch {acc_torch:.4f}")
    print(f"largest difference between the final weights: {gap:.1e}")

# %% [markdown]
# ## Your score

# %%
results = grading.report("lab06", globals())
