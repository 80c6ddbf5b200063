# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 1. Introduction
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch01_introduction.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 1 ("Introduction") of* Alice's Adventures in a differentiable
# wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this notebook is derived
# from the book and shared under the same licence; the code is MIT.*
#
# The book's opening chapter has no algorithms: it says what the book is about and fixes
# the notation every later chapter uses. This notebook turns its empirical remarks into
# small experiments and its notation into code you can poke at. Every checkable statement
# is verified by a cell that shows a `✓` block with the place in the book where it is made.

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
import matplotlib.pyplot as plt
import numpy as np

from alice_course import claims
from alice_course.experiments import digits_mlp
from alice_course.widgets.describe import describe_figures
from alice_lab import tensors
from alice_lab.backend import is_fast

describe_figures()  # each figure's output also says in words what it shows

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) shrinks the experiments
rng = np.random.default_rng(0)

# %% [markdown]
# ## Differentiable models
#
# The book's point of view, stated in its foreword: a neural network is a composition of
# **differentiable primitives**, so the book calls them *differentiable models*. In that
# world some things that are trivial in ordinary programming become hard. Picking "the
# largest element" is an example: the *value* of the largest entry is differentiable in
# the inputs (its gradient is a one-hot vector), but the *index* of that entry is an
# integer, and an integer-valued function has a zero derivative almost everywhere.

# %%
import jax
import jax.numpy as jnp

x = jnp.array([0.3, 2.0, -1.0, 1.5])
print(
    "gradient of max(x) with respect to x:        ",
    jax.grad(lambda v: v[jnp.argmax(v)])(x),
)
print(
    "gradient of argmax(x) (as a float) w.r.t. x: ",
    jax.grad(lambda v: jnp.argmax(v).astype(float))(x),
)
claims.verify("C1-10")

# %% [markdown]
# ## Scaling, memorisation and generalisation
#
# The chapter opens with the *scaling laws*: growing the data, the compute and the model
# together gives predictable gains in accuracy. The book's Figure F.1.1 plots the training
# cost of notable models from the Stanford AI Index 2024; that data is not available
# offline, so we do not redraw it. Instead we run a tiny version of the idea we *can*
# measure here: a one-hidden-layer network trained on scikit-learn's bundled 8×8 digits,
# with more and more training data, averaged over seeds.

# %%
fractions = [0.25, 0.5, 1.0]
seeds = [0, 1] if FAST else [0, 1, 2, 3]
curve = []
for frac in fractions:
    runs = [
        digits_mlp(n_train=int(1000 * frac), width=256, steps=150, seed=s)
        for s in seeds
    ]
    curve.append(
        (
            int(1000 * frac),
            np.mean([r.test_loss for r in runs]),
            np.mean([r.test_accuracy for r in runs]),
        )
    )
for n, loss, acc in curve:
    print(f"n_train = {n:4d}: test loss {loss:.3f}, test accuracy {acc:.3f}")

fig, ax = plt.subplots(figsize=(5, 3.2))
ax.loglog([c[0] for c in curve], [c[1] for c in curve], "o-")
ax.set_xlabel("training examples")
ax.set_ylabel("test cross-entropy")
ax.set_title("More data, lower test loss (digits, 1 hidden layer)")
ax.grid(True, which="both", alpha=0.3)
plt.show()
claims.verify("C1-07")

# %% [markdown]
# The book then warns that modern networks are big enough to **memorise** their training
# set and become a glorified look-up table [ZBH+21]. The classic test: shuffle the labels,
# so that nothing in an image says anything about its label, and train anyway. A network
# with enough parameters still fits the training set perfectly, and its test accuracy
# stays at chance (one in ten). That it *does* generalise on real labels is the puzzle the
# book keeps returning to.

# %%
real = digits_mlp(n_train=1000, width=512, steps=300)
random_labels = digits_mlp(n_train=1000, width=512, steps=300, shuffle_labels=True)
print(f"parameters: {real.n_params:,}")
print(
    f"true labels:     train accuracy {real.train_accuracy:.3f}, "
    f"test accuracy {real.test_accuracy:.3f}"
)
print(
    f"shuffled labels: train accuracy {random_labels.train_accuracy:.3f}, "
    f"test accuracy {random_labels.test_accuracy:.3f}"
)
claims.verify("C1-06")

# %% [markdown]
# ## About this book: tasks as input/output types
#
# Figure F.1.2 of the book sorts tasks by the type of their input and output. In tensor
# terms (shapes as defined below; `n` tokens, `t` audio samples):
#
# | task | input | output |
# |---|---|---|
# | image generation | text: token ids $(n)$ | image $(h, w, 3)$ |
# | image captioning | image $(h, w, 3)$ | text $(n)$ |
# | audio query answering | audio $(t)$ | text $(n)$ |
# | diagnosis from an X-ray | image $(h, w, 1)$ | a decision, e.g. probabilities $\Delta(c)$ |
#
# Learning is then a *search* over the parameters of a model, made practical by
# gradients: they say how the output changes when the parameters move a little. The
# next chapter makes this precise; here is the one-line preview, checked on a random
# smooth function.

# %%
A1 = rng.normal(size=(4, 4))
A1 = A1 @ A1.T
f1 = lambda w: 0.5 * w @ A1 @ w + np.sin(w).sum()
grad_f1 = lambda w: A1 @ w + np.cos(w)  # the gradient in closed form
w1, v1 = rng.normal(size=4), rng.normal(size=4)
for eps in (1e-1, 1e-2, 1e-3):
    change, predicted = f1(w1 + eps * v1) - f1(w1), eps * grad_f1(w1) @ v1
    print(
        f"ε = {eps:g}: f(w + εv) − f(w) = {change:+.8f}, "
        f"ε⟨∇f(w), v⟩ = {predicted:+.8f}, error {abs(change - predicted):.1e}"
    )
claims.verify("C1-08")

# %% [markdown]
# ## In the land of differentiability: primitives and their shapes
#
# Figure F.1.3 pictures a network as a chain of primitives, each with an input/output
# *signature* that decides what may follow what. `alice_lab.tensors.compose_shapes`
# follows a shape through such a chain and stops at the first primitive that cannot take
# its input.

# %%
chain = [
    tensors.reshape_prim((-1, 64)),  # a batch of 8x8 images -> a batch of vectors
    tensors.linear_prim(128),
    tensors.elementwise_prim("relu"),
    tensors.linear_prim(10),
    tensors.reduce_prim(axis=0, op="mean"),
]
for name, shape in tensors.compose_shapes(chain, (32, 8, 8)):
    print(f"{name:>18}: {shape}")

broken = [
    tensors.reduce_prim(axis=0),
    tensors.reduce_prim(axis=0),
    tensors.reduce_prim(axis=0),
]
for name, shape in tensors.compose_shapes(broken, (4, 5), on_error="return"):
    print(f"{name:>18}: {shape}")

# %% [markdown]
# ## Notation and symbols
#
# The basic object is a **tensor**: an $n$-dimensional array of numbers, and $n$ is its
# *rank* (the book apologises to mathematicians: this is `ndim`, not the rank of a
# matrix). Rank 0 is a scalar, rank 1 a vector (always a *column* in the text), rank 2 a
# matrix, and beyond that there is no special notation. A shape is written with `∼`:
# $X \sim (b, h, w, 3)$ is a rank-4 tensor, for example a batch of $b$ colour images.
# Figure F.1.5 draws the first four ranks:

# %%
fig, axes = plt.subplots(1, 4, figsize=(10, 2.6))
examples = [
    np.array(3.0),
    np.arange(4.0),
    np.arange(12.0).reshape(3, 4),
    np.arange(24.0).reshape(2, 3, 4),
]
titles = ["scalar", "vector", "matrix", "rank-3 tensor"]
for ax, arr, title in zip(axes, examples, titles, strict=True):
    ax.set_title(f"{title}\nrank {tensors.rank(arr)}, shape {arr.shape}", fontsize=9)
    ax.set_axis_off()
    if arr.ndim == 0:
        ax.add_patch(plt.Rectangle((0, 0), 1, 1, fc="#cde", ec="k"))
        ax.set_xlim(-1, 2)
        ax.set_ylim(-1, 2)
    elif arr.ndim == 1:
        for i in range(arr.shape[0]):
            # drawn as a column
            ax.add_patch(plt.Rectangle((0, -i), 1, 1, fc="#cde", ec="k"))
        ax.set_xlim(-2, 3)
        ax.set_ylim(-4, 1.5)
    else:
        layers = arr if arr.ndim == 3 else arr[None]
        for k in range(layers.shape[0])[::-1]:
            for i in range(layers.shape[1]):
                for j in range(layers.shape[2]):
                    ax.add_patch(
                        plt.Rectangle(
                            (j + 0.4 * k, -i + 0.4 * k),
                            1,
                            1,
                            fc="#cde" if k == 0 else "#9bd",
                            ec="k",
                        )
                    )
        ax.set_xlim(-0.5, 5.5)
        ax.set_ylim(-3.5, 2)
    ax.set_aspect("equal")
plt.show()

# %%
images = np.repeat(np.zeros((5, 8, 8))[..., None], 3, axis=-1)  # five 8x8 RGB images
print(
    "X ~", tensors.check_shape(images, ("b", "h", "w", 3)), "rank", tensors.rank(images)
)
claims.verify("C1-01", "C1-02")

# %% [markdown]
# Two more symbols appear throughout. $\mathbf{x} \sim \text{Binary}(c)$ is a tensor whose
# entries are all 0 or 1 (a mask, a one-hot label). $\mathbf{x} \sim \Delta(a)$ is a
# vector in the **simplex**: non-negative entries summing to one, such as a vector of
# class probabilities. For a matrix, $\mathbf{X} \sim \Delta(n, c)$ means that each *row*
# is in the simplex (the normalisation runs along the last axis).

# %%
P = rng.random((4, 3))
P = P / P.sum(axis=1, keepdims=True)
print(
    "rows of P sum to", P.sum(axis=1).round(12), "→ in Δ(4, 3):", tensors.is_simplex(P)
)
print("its transpose, columns summing to one?", tensors.is_simplex(P.T))
print(
    "Binary:",
    tensors.is_binary(np.array([0, 1, 1, 0])),
    tensors.is_binary(np.array([0, 2])),
)
claims.verify("C1-03", "C1-04")

# %% [markdown]
# ```{note}
# **Remark (C1-11).** The example in the book reads "each row of $\mathbf{X}_i$ belongs
# to the simplex". In the book's notation $\mathbf{X}_i$ is already a row, so read it
# as: each row $\mathbf{X}_i$ of $\mathbf{X}$, which is what "normalised along the last
# dimension" means and what the cell below shows.
# ```

# %%
print("the row P_0 =", P[0].round(3), "is one vector of Δ(3): it sums to", P[0].sum())
print("its entries, the only 'rows' it has, are each 1?", np.isclose(P[0], 1).tolist())
claims.verify("C1-11")

# %% [markdown]
# Differentiability is also why the book cannot feed characters or integers to a network
# directly: they are discrete, so a small change of the input is not even defined, and
# the frameworks refuse or return zero gradients. Text, for instance, is first turned
# into vectors (Chapter 8).

# %%
import torch

print("d round(x)/dx at 1.3:", float(jax.grad(jnp.round)(1.3)))
try:
    torch.tensor([1, 2]).requires_grad_()
except RuntimeError as err:
    print("torch:", str(err).split("\n")[0])
claims.verify("C1-05")

# %% [markdown]
# ## Final thoughts before departing
#
# The book grew out of a course on neural networks for data science, and it is written
# framework-agnostic: the ideas come first, code in PyTorch and JAX illustrates them.
# This companion follows the same line. Every function in `alice_lab` is written once
# against the Python array API, so the *same* code runs on NumPy, PyTorch and JAX arrays
# (and on a GPU when it is handed GPU tensors):

# %%
from alice_lab.backend import to_backend, to_numpy
from alice_lab.functional import softmax

z = np.array([1.0, 2.0, 3.0])
for name in ["numpy", "torch", "jax"]:
    out = softmax(to_backend(z, name, dtype="float32"))
    library = type(out).__module__.split(".")[0]
    print(f"{name:>5}: {library:>6} array {np.round(to_numpy(out), 4)}")

# %% [markdown]
# ### Claims not checked here, and why
#
# - **C1-09** (line 119): gradient descent for linear models known since the 19th
#   century, fully-connected networks in their modern form since the 1980s,
#   convolutional models in use by the end of the 1990s. These are historical facts
#   with citations; there is nothing for code to compute, so no check is registered.
