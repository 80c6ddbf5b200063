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
# # 7. Convolutional layers
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch07_convolutions.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 7 ("Convolutional layers") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# Fully-connected layers ignore the fact that an image is a grid. This chapter adds
# that knowledge to a layer in two steps: *locality* (each output pixel looks at a
# small neighbourhood) and *weight sharing* (every neighbourhood is processed by the
# same weights). The result is the convolutional layer. We implement it from scratch in
# `alice_lab.conv`, channels last as in the book, in four ways that must agree:
#
# * loops that follow the book's index formula (`conv2d_loop`);
# * patches times a matrix, the default (`conv2d`; for stride 1 on NumPy arrays it
#   sums one shifted matrix product per kernel tap instead, which needs no patch
#   matrix: about twice as fast on a batch of 32×32 images with 16 channels);
# * multiplication by a (doubly-block) Toeplitz matrix (`conv_matrix`);
# * products in the frequency domain (`fft_conv2d`);
#
# and check them against `torch.nn.functional.conv2d`. Then we stack convolutions into
# blocks and a complete CNN. Every checkable statement is computed in the open and then
# confirmed by `alice_course.claims.verify` (a `✓` block with the place in the book);
# boxes marked **Erratum** correct slips in the text.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab[torch] @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle
from sklearn.datasets import load_digits

from alice_course.claims import verify
from alice_course.widgets import (
    ch07_conv_filter as conv_filter,
    ch07_conv_sliding as conv_sliding,
    ch07_receptive_field as receptive_field,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import conv

describe_figures()  # each figure's output also says in words what it shows

rng = np.random.default_rng(0)
torch.manual_seed(0)
FAST = alice_lab.backend.is_fast()  # ALICE_FAST=1 (set by the tests) shrinks the runs

# %% [markdown]
# The chapter opens by recalling that on *tabular* data, MLPs are often beaten by
# random forests or well-tuned SVMs; their strength shows on data with structure, such
# as images, sound and text, once that structure is built into the layers.
#
# ## 7.1 Towards convolutional layers
#
# ### 7.1.1 Fully-connected layers are not enough
#
# An image is a rank-3 tensor $X \sim (h, w, c)$: height, width and channels (three for
# RGB), and a mini-batch adds a leading axis, $(b, h, w, c)$. The book, JAX and
# TensorFlow put channels **last**; PyTorch puts them first, $(b, c, h, w)$. The
# helpers `to_torch_layout` / `from_torch_layout` move between the two.

# %%
X = rng.standard_normal((4, 5, 6, 3))  # (b, h, w, c)
Xt = conv.to_torch_layout(torch.as_tensor(X))
print("channels last:", X.shape, "→ PyTorch:", tuple(Xt.shape))
W = rng.standard_normal((3, 3, 3, 2))
perm = [2, 0, 1]  # reorder the channels (RGB → BRG) in the image and in the kernel
print(
    "same output after permuting channels:",
    np.allclose(conv.conv2d(X[..., perm], W[:, :, perm]), conv.conv2d(X, W)),
)
verify("C7-01", "C7-02")

# %% [markdown]
# The simplest way to use an MLP on an image is to flatten it, $\mathbf{h} =
# \phi(\mathbf{W}\,\text{vect}(X))$, and reshape the output back if we want an image out
# (E.7.1–E.7.2). `vect` is the row-major `reshape(-1)`. Two things go wrong: the
# spatial arrangement of the pixels is thrown away, and the number of weights explodes
# — $(hw)^2 c c'$ for an output of the same size.

# %%
v = conv.vect(np.zeros((2, 3, 4)))
print("vect of a (2, 3, 4) tensor has shape", v.shape)
n = conv.fc_image_params(1024, 1024, 3, 3)
print(f"fully-connected 1024×1024×3 → 1024×1024×3: {n:,} weights ≈ {n:.1e}")
verify("C7-03", "C7-04", "C7-05")

# %% [markdown]
# ### 7.1.2 Local layers
#
# Pixels have a distance, $d((i,j),(i',j')) = \max(|i-i'|, |j-j'|)$ (E.7.3), and the
# **patch** $P_k(i,j) = X_{i-k:i+k,\,j-k:j+k,\,:}$ collects every pixel within distance
# $k$ of $(i,j)$: a $(2k+1, 2k+1, c)$ tensor, with $s = 2k+1$ the *kernel size*. It is
# only defined $k$ pixels or more from the border. A layer is **local** when output
# pixel $(i,j)$ depends only on $P_k(i,j)$. Below, Figure F.7.1 of the book (a patch
# $P_k(i,j)$ drawn in red on its tensor) redrawn on a photo, with $k = 4$.

# %%
photo = conv_filter.sample_photo(64)
i0, j0, k0 = 30, 22, 4
patch = conv.extract_patch(photo[..., None], i0, j0, k0)
fig, (a0, a1) = plt.subplots(1, 2, figsize=(7, 3.2))
a0.imshow(photo, cmap="gray")
a0.add_patch(
    Rectangle(
        (j0 - k0 - 0.5, i0 - k0 - 0.5),
        2 * k0 + 1,
        2 * k0 + 1,
        fill=False,
        ec="red",
        lw=2,
    )
)
a0.set_title(f"patch $P_{k0}({i0},{j0})$ on a 64×64 photo")
a1.imshow(patch[..., 0], cmap="gray")
a1.set_title(f"the patch, shape {patch.shape}")
for ax in (a0, a1):
    ax.set_xlabel("j (width)")
    ax.set_ylabel("i (height)")
plt.tight_layout()
plt.show()
verify("C7-06", "C7-07", "C7-08")

# %% [markdown]
# A **locally-connected** layer gives every pixel its own weight matrix
# $\mathbf{W}_{ij} \sim (c', s^2 c)$: $H_{ij} = \phi(\mathbf{W}_{ij}\,\text{vect}(P_k(i,j)))$.
# That is $hw\,s^2cc'$ weights, a factor $s^2/(hw)$ fewer than the dense layer. In
# 1-D with four pixels and $k=1$ its matrix is banded; the border rows are missing a
# weight, which is the same as padding the input with a zero on each side
# (**zero-padding**: $k$ zeros per side keep the size, none shrink it by $2k$).

# %%
for k in range(4):
    W = rng.standard_normal((2 * k + 1, 2 * k + 1, 2, 3))
    Xs = rng.standard_normal((9, 10, 2))
    print(
        f"k={k}: 'same' → {conv.conv2d(Xs, W, padding='same').shape}, "
        f"'valid' → {conv.conv2d(Xs, W, padding='valid').shape}"
    )
verify("C7-09", "C7-10", "C7-11")

# %% [markdown]
# ### 7.1.3 Translation equivariance and the convolutional layer
#
# In a locally-connected layer the same object gives different outputs in different
# places. Asking that *equal patches give equal outputs* forces every
# $\mathbf{W}_{ij}$ to be the same matrix — weight sharing — and gives the
# **convolutional layer** (E.7.4):
#
# $$H_{ij} = \mathbf{W}\,\text{vect}(P_k(i,j)) + \mathbf{b},\qquad
# \mathbf{W} \sim (c', s^2c),\; \mathbf{b} \sim (c').$$
#
# Its parameter count, $s^2cc' + c'$, does not depend on the resolution at all.
#
# Translation equivariance, in the book's reading: when an object moves from $(i, j)$
# to $(i', j')$, the output it produced at $(i, j)$ is now found at $(i', j')$. With
# shared weights, equal patches give equal outputs wherever they sit; the book's
# example places the same content at pixels $(5, 2)$ and $(39, 81)$.

# %%
X = np.zeros((12, 12, 1))
X[1:4, 1:4, 0] = X[6:9, 7:10, 0] = rng.standard_normal((3, 3))
W = rng.standard_normal((3, 3, 1, 2))
H = conv.conv2d(X, W, padding=1)
print("equal patches at (2,2) and (7,8); conv outputs:", H[2, 2], H[7, 8])
verify("C7-40", "C7-12", "C7-13")

# %% [markdown]
# Box 7.1 of the book calls the functional convolution of PyTorch. Our channels-last
# version gives the same numbers in the book's layout.
#
# ```{admonition} Erratum (E7-01, §7.1.3; book text line 3376)
# :class: warning
# The object-oriented layer is `torch.nn.Conv2d` (lower-case d); `torch.nn.Conv2D`
# does not exist.
# ```

# %%
x = torch.randn(16, 3, 32, 32)
w = torch.randn(64, 3, 5, 5)
print("F.conv2d:", tuple(F.conv2d(x, w, padding="same").shape))
ours = conv.conv2d(
    conv.from_torch_layout(x).numpy(), conv.from_torch_weight(w).numpy(), padding="same"
)
print("alice_lab.conv.conv2d (channels last):", ours.shape)
verify("C7-14", "E7-01")

# %% [markdown]
# Without the bias a convolution is linear, so it is a matrix. In 1-D with three taps
# and zero padding the matrix has constant diagonals (a **Toeplitz** matrix); in 2-D it
# is block-Toeplitz with Toeplitz blocks. `conv_matrix` builds it for any shape,
# stride and dilation; its transpose is what back-propagation multiplies by.

# %%
print(conv.toeplitz_matrix(np.array([1.0, 2.0, 3.0]), 6))
M = conv.conv_matrix(rng.standard_normal((3, 3, 1, 1)), (6, 6, 1), padding=1)
plt.figure(figsize=(4, 4))
plt.imshow(M, cmap="RdBu_r")
plt.title("matrix of a 3×3 convolution on a 6×6 image")
plt.xlabel("input pixel (vect)")
plt.ylabel("output pixel (vect)")
plt.show()
verify("C7-15", "C7-16")

# %% [markdown]
# ### Convolutions and terminology
#
# Writing the layer with explicit indices uses the offset $t(i) = i - k - 1$ (1-based),
# which shifts $i' = 1, \dots, 2k+1$ onto $i-k, \dots, i+k$:
#
# $$H_{ijz} = \sum_{i'=1}^{2k+1}\sum_{j'=1}^{2k+1}\sum_{d=1}^{c}
#   W_{i',j',d,z}\, X_{i'+t(i),\, j'+t(j),\, d}.$$
#
# `conv2d_loop` is that formula; `conv2d` (patches times a matrix), `conv_matrix` and
# `fft_conv2d` must agree with it and with PyTorch for every stride, padding, dilation
# and number of groups.
#
# Chapter 8 repeats this index form and prints the offset there as $t(i) = i + k - 1$;
# that slip is registered once, as erratum E8-04 of chapter 8.
#
# ```{admonition} Erratum (E7-02, §7.1.3, E.7.7; book text lines 3390–3410)
# :class: warning
# The text rearranges the weights into "an equivalent weight tensor $W$ of shape
# $(s,s,c,c')$", but E.7.7 indexes it $W_{i',j',z,d}$, with the output channel $z$
# third, on an axis of size $c$. Shape and index disagree: either the shape is $(s, s,
# c', c)$ (PyTorch's order, and the one Chapter 8 uses for its 1-D kernel, $(s, c',
# c)$), or the index is $W_{i',j',d,z}$. We keep $(s, s, c, c')$, as JAX and TensorFlow
# do, and index it $W_{i',j',d,z}$, as above.
# ```

# %%
X, W = rng.standard_normal((2, 9, 8, 4)), rng.standard_normal((3, 3, 2, 6))
kw = dict(stride=2, padding=2, dilation=2, groups=2)
ref = conv.from_torch_layout(
    F.conv2d(
        conv.to_torch_layout(torch.as_tensor(X)),
        conv.to_torch_weight(torch.as_tensor(W)),
        **kw,
    )
).numpy()
for name, f in [
    ("loops (E.7.7)", conv.conv2d_loop),
    ("patches × matrix", conv.conv2d),
    ("FFT", conv.fft_conv2d),
]:
    print(f"{name:18s} max |Δ| vs torch = {np.abs(f(X, W, **kw) - ref).max():.1e}")
verify("C7-17", "C7-18", "E7-02")

# %% [markdown]
# In signal processing a layer with fixed weights is a finite impulse response filter;
# the book's example is the ridge detector. The book adds that the filtering is a
# discrete convolution up to a sign change: in the index formula the kernel's offset
# enters with a plus sign, where a convolution proper has a minus (it flips the
# kernel). Signal processing calls the unflipped operation a *cross-correlation*. The
# flip is invisible for a symmetric kernel such as the ridge detector and shows for an
# asymmetric one: below, Sobel-x changes sign.

# %%
S = conv.FILTERS["sobel x"]
fig, axes = plt.subplots(1, 3, figsize=(9, 3))
for ax, (title, img) in zip(
    axes,
    [
        ("photo", photo),
        ("layer (cross-correlation)", conv_filter.filter_response(photo, S)),
        ("true convolution", conv_filter.filter_response(photo, S, flip=True)),
    ],
    strict=True,
):
    ax.imshow(img, cmap="gray" if title == "photo" else "RdBu_r")
    ax.set_title(f"{title}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("Sobel-x: the two differ by a sign")
plt.tight_layout()
plt.show()
verify("C7-39", "C7-19", "C7-20")

# %% [markdown]
# ### Explore: a filter editor on a photo
#
# Edit the nine weights, or pick a named filter, and watch the activation map; tick
# "flip" to see the true convolution.

# %% tags=["remove-output"]
# NBVAL_SKIP
conv_filter.live_view()

# %%
conv_filter.static_view()

# %% [markdown]
# ### Explore: the kernel sliding over an image
#
# Each output pixel is the same kernel applied to a different patch.

# %% tags=["remove-output"]
# NBVAL_SKIP
conv_sliding.live_view()

# %%
conv_sliding.static_view()

# %% [markdown]
# ## 7.2 Convolutional models
#
# ### 7.2.1 Designing convolutional blocks
#
# The **receptive field** of an output pixel is the set of input pixels it depends on.
# For one layer it is the patch; each further $s \times s$ layer adds $s-1$ pixels per
# side, so it grows linearly with depth: $L(s-1)+1$. With dilations $d_l$ and strides
# the side is $1 + \sum_l (s_l-1)\,d_l\prod_{m<l}\text{stride}_m$.

# %%
for L in range(1, 6):
    dilated = conv.receptive_field([3] * L, dilations=[2**i for i in range(L)])
    print(
        f"{L} layers of 3×3: receptive field {conv.receptive_field([3] * L)}, "
        f"with dilations 1, 2, 4, …: {dilated}"
    )
verify("C7-21")

# %% tags=["remove-output"]
# NBVAL_SKIP
receptive_field.live_view()

# %%
receptive_field.static_view(4 if FAST else 6)

# %% [markdown]
# Stacking convolutions without a non-linearity gains nothing: two linear
# convolutions compose into one with a $(2s-1)\times(2s-1)$ kernel. So the blocks
# interleave activations, $H = (\phi\circ\text{Conv}\circ\dots\circ\phi\circ\text{Conv})(X)$.
#
# To classify, the grid must eventually be reduced to a vector. **Global pooling** sums,
# averages or maximises over all positions: this is invariant to translations (of a
# circular convolution) and forgets where features were. **Max-pooling** is gentler:
# it keeps the largest value of every $2\times2$ window, channel by channel, halving
# the resolution. Figure F.7.2 of the book, 2×2 max-pooling of a $(4, 4, 1)$ image,
# redrawn (the winner of each window in bold):

# %%
X4 = np.array([[1, 3, 2, 0], [4, 2, 1, 5], [0, 1, 7, 2], [6, 2, 3, 1]], float)
P = conv.max_pool2d(X4[..., None])[..., 0]
fig, (a0, a1) = plt.subplots(1, 2, figsize=(6, 3))
colors = np.kron(np.array([[0, 1], [2, 3]]), np.ones((2, 2)))
a0.imshow(colors, cmap="Pastel1")
for (i, j), val in np.ndenumerate(X4):
    a0.text(
        j,
        i,
        int(val),
        ha="center",
        va="center",
        fontweight="bold" if val == P[i // 2, j // 2] else "normal",
    )
a0.set_title("input (4, 4, 1), 2×2 windows")
a1.imshow(np.array([[0, 1], [2, 3]]), cmap="Pastel1")
for (i, j), val in np.ndenumerate(P):
    a1.text(j, i, int(val), ha="center", va="center", fontweight="bold")
a1.set_title("max-pooled (2, 2, 1)")
for ax in (a0, a1):
    ax.set_xticks([])
    ax.set_yticks([])
plt.tight_layout()
plt.show()
verify("C7-22", "C7-23", "C7-24", "C7-25")

# %% [markdown]
# A **block** is a few convolutions with activations followed by a max-pool: it halves
# $h$ and $w$. The VGG recipe stacks blocks with the same $3\times3$ kernels, keeps the
# channels fixed inside a block and doubles them from one block to the next. Another
# way to shrink the grid is a **stride**: a stride-2 convolution computes only every
# other output pixel. Finally, *equivariant* means $f(Tx) = Tf(x)$ and *invariant*
# $f(Tx) = f(x)$; averaging any model over a group of transformations makes it
# invariant to them.
#
# ```{admonition} Erratum (E7-05, §7.2.1; book text line 3556)
# :class: warning
# The VGG design is cited with the GoogLeNet paper (it is Simonyan & Zisserman's), and
# "the filter size constant (e.g., $k=3$)" should read $s = 3$: VGG uses $3\times3$
# filters, which is $k = 1$ in the book's $s = 2k+1$.
# ```

# %%
Xs = rng.standard_normal((9, 10, 2))
W = rng.standard_normal((3, 3, 2, 3))
print(
    "stride 2:",
    conv.conv2d(Xs, W, stride=2, padding=1).shape,
    "= stride 1 subsampled:",
    np.allclose(
        conv.conv2d(Xs, W, stride=2, padding=1), conv.conv2d(Xs, W, padding=1)[::2, ::2]
    ),
)
verify("C7-26", "C7-27", "E7-05", "C7-28", "C7-29")

# %% [markdown]
# ### 7.2.2 Designing the complete model
#
# A CNN is a **backbone** of blocks, $(h, w, c) \to (h', w', c')$, then global average
# pooling $\mathbf{h} = \frac{1}{h'w'}\sum_{i,j} H_{ij}$, then an MLP **head**. The
# vector $\mathbf{h}$ is an *embedding* of the image. $h'$ and $w'$ depend only on the
# number of pools; $c'$ only on the last convolution. Thanks to global pooling the
# same network accepts any resolution; flattening instead ties the head to one.
# Figure F.7.4 of the book works out such a design for 10 classes with each layer's
# output shape at the bottom (Figure F.7.3 draws the blocks as boxes); the table below
# lists the shapes of a VGG-like version of it.


# %%
def cnn_shapes(resolution=32, blocks=3, base=16):
    """Output shape after each layer of a VGG-like CNN (channels last)."""
    rows, h, c = [("input", (resolution, resolution, 3))], resolution, 3
    for b in range(blocks):
        c = base * 2**b
        rows += [
            (f"block {b + 1}: conv 3×3 ×2", (h, h, c)),
            (f"block {b + 1}: max-pool", (h // 2, h // 2, c)),
        ]
        h //= 2
    return rows + [("global avg pool", (c,)), ("linear head", (10,))]


for name, shape in cnn_shapes():
    print(f"{name:26s} {shape}")
verify("C7-30", "C7-31")

# %% [markdown]
# It trains like every model so far: softmax, cross-entropy, back-propagation. A small
# CNN on the 8×8 digits of scikit-learn (the offline stand-in for MNIST):

# %%
digits = load_digits()
Xd = torch.as_tensor(digits.images / 16.0, dtype=torch.float32)[:, None]
yd = torch.as_tensor(digits.target)
ntr = 1200
net = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3, padding=1),
    torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1),
    torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1),
    torch.nn.Flatten(),
    torch.nn.Linear(32, 10),
)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
losses = []
for _epoch in range(3 if FAST else 15):
    for idx in torch.randperm(ntr).split(64):
        loss = F.cross_entropy(net(Xd[idx]), yd[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
acc = (net(Xd[ntr:]).argmax(1) == yd[ntr:]).float().mean()
plt.figure(figsize=(5, 3))
plt.plot(losses)
plt.xlabel("mini-batch")
plt.ylabel("cross-entropy")
plt.title(f"small CNN on load_digits (test accuracy {acc:.2f})")
plt.show()
verify("C7-32")

# %% [markdown]
# ### Notable types of convolution
#
# * A **1×1 convolution**, $H_{ijz} = \sum_t W_{zt} X_{ijt}$, is a fully-connected
#   layer on each pixel: it changes the number of channels.
# * A **depthwise convolution** uses one $s\times s$ filter per channel and never
#   mixes channels ($W \sim (s, s, c)$); a **groupwise** one mixes channels only within
#   groups (depthwise is the extreme case of groups of size 1).
# * A **depthwise-separable** convolution alternates the two, cutting the weights from
#   $s^2cc'$ to $s^2c + cc'$.

# %%
X = rng.standard_normal((8, 8, 64))
H = conv.depthwise_separable_conv2d(
    X, rng.standard_normal((3, 3, 64)), rng.standard_normal((64, 64))
)
print(
    "separable output",
    H.shape,
    "with",
    conv.separable_params(64, 64, 3),
    "weights instead of",
    conv.conv_params(64, 64, 3, bias=False),
)
verify("C7-33", "C7-34", "C7-35", "C7-36")

# %% [markdown]
# ## From theory to practice
#
# `torch.nn` has all the layers of this chapter. Writing a convolution yourself is a
# good exercise: extract the patches (`F.unfold` in PyTorch, `conv.patches` here) and
# multiply by the kernel matrix. The library kernels are faster. A convolution can also
# be computed as a product in the frequency domain, which pays off for long kernels.

# %%
X = torch.randn(2, 3, 9, 8)
W = torch.randn(5, 3, 3, 3)
H = (W.reshape(5, -1) @ F.unfold(X, 3, padding=1)).reshape(2, 5, 9, 8)
print("unfold @ W vs F.conv2d:", float((H - F.conv2d(X, W, padding=1)).abs().max()))
verify("C7-37", "C7-38")

# %%
# NBVAL_IGNORE_OUTPUT
n = 2**12 if FAST else 2**13
x = rng.standard_normal((1, n, 1))
sizes = [3, 33, 129, 513] if FAST else [3, 17, 65, 257, 1025]
times = {"direct (patches)": [], "FFT": []}
for s in sizes:
    w = rng.standard_normal((s, 1, 1))
    for name, f in [("direct (patches)", conv.conv1d), ("FFT", conv.fft_conv1d)]:
        t0 = time.perf_counter()
        f(x, w)
        times[name].append(time.perf_counter() - t0)
plt.figure(figsize=(5, 3))
for name, ts in times.items():
    plt.loglog(sizes, ts, "o-", label=name)
plt.xlabel("kernel size s")
plt.ylabel("seconds")
plt.title(f"1-D convolution of a length-{n} signal")
plt.legend()
plt.show()

# %% [markdown]
# ## Summary
#
# * Locality and weight sharing turn a dense layer into a convolution: $s^2cc'+c'$
#   parameters, whatever the image size, and equivariance to translations.
# * The same layer is a loop over an index formula, a matrix of patches times a kernel
#   matrix, a Toeplitz matrix, or a product of Fourier transforms; all four agree with
#   PyTorch here, and the layer is a cross-correlation.
# * Receptive fields grow linearly with depth (faster with strides, pools, dilations);
#   pooling and strides shrink the grid; global pooling makes the model
#   resolution-independent and translation-invariant.
# * 1×1, depthwise and separable convolutions trade expressivity for parameters.
#
# **Claims not asserted here.** The opening remark that random forests and SVMs often
# beat MLPs on tabular data (line 3258) depends on the data set and is not checked.
# The digest's numbering differs from the ids: its claim 23 (cross-correlation) is
# C7-39; claims 3–4, 7–8, 13–14, 15–16 and 35–36 are grouped in one id each.
