# %% [markdown]
# # Lab 7 — Convolutions from scratch, and a CNN in PyTorch and JAX
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab07_cnn.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 7 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 3660–3682). The
# exercises follow the book's suggestions; the text and code here are the companion's
# (text CC BY-SA 4.0, code MIT).*
#
# The book suggests three things: use the convolutional layers of `torch.nn`, redo an
# image-classification tutorial in PyTorch and in JAX, and implement a convolution
# yourself by extracting patches (`fold`/`unfold`). We do all three, offline, on the
# 8×8 digits that ship with scikit-learn. Images are **channels last**, `(b, h, w, c)`,
# as in the book; kernels are `(s, s, c, c')`.
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 7.1 | `extract_patches(X, s)`: every `s×s` patch of a NumPy batch | the patches of E.7.4 |
# | 7.2 | `conv2d_unfold(X, W, padding)`: a convolution from `F.unfold` and one matmul | your convolution |
# | 7.3 | `max_pool(X)`: 2×2 max-pooling in NumPy | pooling |
# | 7.4 | `cnn_forward_torch(params, X)`: a small CNN, functional PyTorch | a trained classifier |
# | 7.5 | `cnn_forward_jax(params, X)`: the same CNN in JAX | the same, trained with `jax.grad` |
#
# Replace each `raise NotImplementedError(...)` with your code; the cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed. Remember that the layer is a **cross-correlation**: do not
# flip the kernel.

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
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits

from alice_course import grading
from alice_course.grading import attempted
from alice_course.grading.lab07 import cnn_init
from alice_lab import conv
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer epochs
rng = np.random.default_rng(0)
torch.manual_seed(0)


# %% [markdown]
# ## Exercise 7.1 — Patches
#
# For a batch `X ~ (b, h, w, c)` and a kernel size `s`, return the array of shape
# `(b, h-s+1, w-s+1, s, s, c)` whose entry `[n, i, j]` is the `s×s×c` patch of image
# `n` whose top-left corner is `(i, j)` (no padding). A loop works; the fast way is
# `numpy.lib.stride_tricks.sliding_window_view`, which puts the window axes **last**
# (after the channels), so you will need to move an axis.


# %%
def extract_patches(X, s):
    """X (b, h, w, c), s int -> (b, h-s+1, w-s+1, s, s, c)."""
    ### BEGIN SOLUTION
    from numpy.lib.stride_tricks import sliding_window_view

    V = sliding_window_view(X, (s, s), axis=(1, 2))  # (b, h', w', c, s, s)
    return np.moveaxis(V, 3, -1)
    ### END SOLUTION


# %%
grading.check("lab07.1", extract_patches)

# %% [markdown]
# With the patches, a convolution is one `einsum`: the kernel `(s, s, c, c')` contracts
# the last three axes.

# %%
if attempted(extract_patches, np.ones((1, 4, 4, 1)), 3):
    Xd = rng.standard_normal((2, 7, 6, 3))
    Wd = rng.standard_normal((3, 3, 3, 4))
    H = np.einsum("bhwijc,ijcz->bhwz", extract_patches(Xd, 3), Wd)
    print(
        "einsum over your patches vs alice_lab.conv.conv2d:",
        np.abs(H - conv.conv2d(Xd, Wd)).max(),
    )

# %% [markdown]
# ## Exercise 7.2 — A convolution from `unfold`
#
# `F.unfold(X, s, padding=p)` takes a channels-**first** batch `(b, c, h, w)` and
# returns `(b, c·s·s, L)`: one column per patch, each flattened in the order
# `(c, s, s)`. Write `conv2d_unfold(X, W, padding)` for channels-last torch tensors
# `X ~ (b, h, w, c)` and `W ~ (s, s, c, c')`: reshape the kernel into a `(c', c·s·s)`
# matrix **in the same order as the columns**, multiply, and reshape to
# `(b, h', w', c')` with `h' = h + 2p - s + 1`. It must equal `F.conv2d` (after the
# layout conversions), i.e. the cross-correlation.


# %%
def conv2d_unfold(X, W, padding=0):
    """X (b, h, w, c), W (s, s, c, c') torch tensors -> (b, h', w', c')."""
    ### BEGIN SOLUTION
    b, h, w, c = X.shape
    s, _, _, c_out = W.shape
    U = F.unfold(X.permute(0, 3, 1, 2), s, padding=padding)  # (b, c·s·s, L)
    Wm = W.permute(3, 2, 0, 1).reshape(c_out, -1)  # (c', c·s·s), the same order
    h2, w2 = h + 2 * padding - s + 1, w + 2 * padding - s + 1
    return (Wm @ U).reshape(b, c_out, h2, w2).permute(0, 2, 3, 1)
    ### END SOLUTION


# %%
grading.check("lab07.2", conv2d_unfold)

# %% [markdown]
# Your convolution against the library kernel, on a batch of digits (the library's is
# faster: it is a purpose-built kernel, not a generic matmul).

# %%
digits = load_digits()
images = torch.as_tensor(digits.images / 16.0, dtype=torch.float32)[
    ..., None
]  # (n, 8, 8, 1)
labels = torch.as_tensor(digits.target)
if attempted(conv2d_unfold, images[:1], torch.ones(3, 3, 1, 1), 1):
    edge = torch.tensor([[1.0, 0, -1], [2, 0, -2], [1, 0, -1]])[:, :, None, None]
    mine = conv2d_unfold(images[:8], edge, 1)
    lib = F.conv2d(images[:8].permute(0, 3, 1, 2), edge.permute(3, 2, 0, 1), padding=1)
    print(
        "max |mine - F.conv2d| =", float((mine - lib.permute(0, 2, 3, 1)).abs().max())
    )
    fig, axes = plt.subplots(2, 4, figsize=(7, 3.6))
    for k, ax in enumerate(axes.ravel()):
        ax.imshow(
            (images[k // 2, ..., 0] if k % 2 == 0 else mine[k // 2, ..., 0]).numpy(),
            cmap="gray" if k % 2 == 0 else "RdBu_r",
        )
        ax.set_title("digit" if k % 2 == 0 else "Sobel-x response", fontsize=8)
        ax.axis("off")
    plt.show()

# %% [markdown]
# ## Exercise 7.3 — Max-pooling
#
# Write 2×2 max-pooling with stride 2 for a NumPy batch `(b, h, w, c)`, channel by
# channel; odd heights or widths drop their last row or column (as PyTorch does). A
# `reshape` into `(b, h/2, 2, w/2, 2, c)` and a `max` over two axes does it.


# %%
def max_pool(X):
    """X (b, h, w, c) -> (b, h//2, w//2, c)."""
    ### BEGIN SOLUTION
    b, h, w, c = X.shape
    Y = X[:, : h // 2 * 2, : w // 2 * 2]
    return Y.reshape(b, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
    ### END SOLUTION


# %%
grading.check("lab07.3", max_pool)

# %% [markdown]
# ## Exercise 7.4 — A CNN in PyTorch
#
# The model: a 3×3 convolution (`"same"` padding, 8 channels) and a ReLU, a 2×2
# max-pool, a 3×3 convolution (16 channels) and a ReLU, global average pooling over
# the positions, and a linear head to 10 logits. `params` holds `W1 (3, 3, 1, 8)`,
# `b1`, `W2 (3, 3, 8, 16)`, `b2`, `W3 (16, 10)`, `b3` (channels last, like the book).
# Write the forward pass with `torch.nn.functional` for `X ~ (b, h, w, 1)`. `F.conv2d`
# wants channels first: convert the input with `permute(0, 3, 1, 2)` and each kernel
# with `permute(3, 2, 0, 1)` (to `(c', c, s, s)`).


# %%
def cnn_forward_torch(params, X):
    """params: dict of torch tensors; X (b, h, w, 1) -> logits (b, 10)."""
    ### BEGIN SOLUTION
    p = params
    H = X.permute(0, 3, 1, 2)
    H = F.relu(F.conv2d(H, p["W1"].permute(3, 2, 0, 1), p["b1"], padding=1))
    H = F.max_pool2d(H, 2)
    H = F.relu(F.conv2d(H, p["W2"].permute(3, 2, 0, 1), p["b2"], padding=1))
    return H.mean(dim=(2, 3)) @ p["W3"] + p["b3"]
    ### END SOLUTION


# %%
grading.check("lab07.4", cnn_forward_torch)

# %% [markdown]
# Training it: softmax cross-entropy, mini-batches of 64, Adam.

# %%
n_train = 1400
EPOCHS = 4 if FAST else 25


def train_torch(forward):
    params = {
        k: torch.tensor(v, dtype=torch.float32, requires_grad=True)
        for k, v in cnn_init(0).items()
    }
    opt = torch.optim.Adam(params.values(), lr=0.01)
    gen = torch.Generator().manual_seed(0)
    for _ in range(EPOCHS):
        for idx in torch.randperm(n_train, generator=gen).split(64):
            loss = F.cross_entropy(forward(params, images[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        pred = forward(params, images[n_train:]).argmax(1)
    return float((pred == labels[n_train:]).float().mean())


if attempted(
    cnn_forward_torch,
    {k: torch.as_tensor(v) for k, v in cnn_init(0).items()},
    torch.zeros(1, 8, 8, 1, dtype=torch.float64),
):
    acc_torch = train_torch(cnn_forward_torch)
    print(f"PyTorch CNN: test accuracy {acc_torch:.3f} after {EPOCHS} epochs")

# %% [markdown]
# ## Exercise 7.5 — The same CNN in JAX
#
# In JAX, `jax.lax.conv_general_dilated(H, W, (1, 1), "SAME",
# dimension_numbers=("NHWC", "HWIO", "NHWC"))` convolves channels-last images with
# `(s, s, c, c')` kernels directly: no layout conversion. Max-pooling is
# `jax.lax.reduce_window(H, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")`.
# Write the same forward pass; the check compares it with the PyTorch reference.


# %%
def cnn_forward_jax(params, X):
    """params: dict of JAX arrays; X (b, h, w, 1) -> logits (b, 10)."""
    ### BEGIN SOLUTION
    p = params

    def conv_(H, W, b):
        dn = ("NHWC", "HWIO", "NHWC")
        return (
            jax.lax.conv_general_dilated(H, W, (1, 1), "SAME", dimension_numbers=dn) + b
        )

    H = jax.nn.relu(conv_(X, p["W1"], p["b1"]))
    H = jax.lax.reduce_window(
        H, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
    )
    H = jax.nn.relu(conv_(H, p["W2"], p["b2"]))
    return H.mean(axis=(1, 2)) @ p["W3"] + p["b3"]
    ### END SOLUTION


# %%
grading.check("lab07.5", cnn_forward_jax)

# %% [markdown]
# Training with `jax.grad` and plain SGD with momentum, written by hand (`jit` compiles
# the whole step).


# %%
def train_jax(forward, lr=0.05, momentum=0.9):
    params = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in cnn_init(0).items()}
    velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
    Xtr, ytr = (
        jnp.asarray(images[:n_train].numpy()),
        jnp.asarray(labels[:n_train].numpy()),
    )

    def loss_fn(p, X, y):
        logits = forward(p, X)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(len(y)), y])

    @jax.jit
    def step(p, v, X, y):
        g = jax.grad(loss_fn)(p, X, y)
        v = jax.tree_util.tree_map(lambda v_, g_: momentum * v_ - lr * g_, v, g)
        return jax.tree_util.tree_map(lambda p_, v_: p_ + v_, p, v), v

    key = np.random.default_rng(0)
    for _ in range(EPOCHS):
        order = key.permutation(n_train)
        for start in range(0, n_train - 63, 64):
            idx = order[start : start + 64]
            params, velocity = step(params, velocity, Xtr[idx], ytr[idx])
    pred = forward(params, jnp.asarray(images[n_train:].numpy())).argmax(1)
    return float((np.asarray(pred) == labels[n_train:].numpy()).mean())


if attempted(
    cnn_forward_jax,
    {k: jnp.asarray(v) for k, v in cnn_init(0).items()},
    jnp.zeros((1, 8, 8, 1)),
):
    acc_jax = train_jax(cnn_forward_jax)
    print(f"JAX CNN: test accuracy {acc_jax:.3f} after {EPOCHS} epochs")

# %% [markdown]
# ## Your score

# %%
results = grading.report("lab07", globals())
