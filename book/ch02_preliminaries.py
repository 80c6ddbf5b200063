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
# # 2. Mathematical preliminaries
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch02_preliminaries.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 2 ("Mathematical preliminaries") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# The chapter builds the toolkit the rest of the book stands on, in three steps that
# depend on each other: **linear algebra** on tensors (§2.1), **derivatives, gradients
# and Jacobians** of functions of many variables (§2.2), and **gradient descent**, which
# uses those gradients to minimise a function (§2.3). It closes with an exercise that
# implements gradient descent three times, in NumPy, JAX and PyTorch; we do it below.
#
# Every checkable statement of the chapter is computed in the open and then checked by
# `alice_course.claims.verify`, which shows a `✓` block with the place in the book where
# the statement is made (and stops the notebook if it fails). Where the book's text has
# a slip, a box marked **Erratum** says what is printed and what is right.

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
import time

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import scipy.linalg
import torch

from alice_course.claims import verify
from alice_course.widgets import ch02_gd_momentum as gd_momentum
from alice_course.widgets.describe import describe_figures
from alice_lab import calculus, linalg, optim, tensors, testfuncs
from alice_lab.backend import to_numpy

describe_figures()  # each figure's output also says in words what it shows

# JAX computes in float32 unless told otherwise. We switch on float64 once, here, so
# that NumPy, JAX and PyTorch can be compared number for number further down.
jax.config.update("jax_enable_x64", True)

# ALICE_FAST=1 (set by the tests) shrinks grids and step counts
FAST = alice_lab.backend.is_fast()
rng = np.random.default_rng(0)
torch.manual_seed(0)
DEVICE = alice_lab.backend.device("torch")  # CUDA when there is a GPU, else the CPU
print(f"PyTorch computes on: {DEVICE}")

# %% [markdown]
# ## 2.1 Linear algebra
#
# ### Tensors and indexing
#
# A **tensor** is an $n$-dimensional array whose elements all have the same type; the
# book writes its shape as $X \sim (s_1, s_2, \ldots, s_n)$. With $n=0$ it is a scalar,
# $n=1$ a vector, $n=2$ a matrix. Indexing follows NumPy's conventions: for
# $X \sim (a, b, c)$, $X_i$ is a slice of shape $(b, c)$, $X_{ijk}$ a single number and
# $X_{i,:,j:k}$ a slice of shape $(b, k-j)$. `alice_lab.tensors.slice_shape` predicts
# those shapes from the index alone.

# %%
X = rng.standard_normal((3, 7, 9))  # X ~ (a, b, c) = (3, 7, 9)
for name, x in [
    ("scalar", np.float64(1.5)),
    ("vector", X[0, 0]),
    ("matrix", X[0]),
    ("tensor", X),
]:
    print(f"{name:>6}: rank {tensors.rank(x)}, shape {np.shape(x)}")

i, j, k = 1, 2, 5
for label, index in [
    ("X[i]", (i,)),
    ("X[i, j, k]", (i, j, k)),
    ("X[i, :, j:k]", (i, slice(None), slice(j, k))),
]:
    predicted = tensors.slice_shape(X.shape, index)
    print(f"{label:>13} ~ {X[index].shape}   predicted: {predicted}")
print("named sizes:", tensors.check_shape(X, ("a", "b", "c")))
verify("C2-01", "C2-02")

# %% [markdown]
# ### Box 2.1: a broadcasting trap
#
# In the text a vector $\mathbf{x} \sim (d)$ is a column and $\mathbf{x}^\top$ a row. In
# code there are three different objects: a 1-D array of shape $(d)$, a column $(d, 1)$
# and a row $(1, d)$. NumPy-style **broadcasting** happily combines them: adding a
# $(4, 1)$ column to a $(4)$ vector stretches *both* operands and returns a $(4, 4)$
# matrix, with no error. All three frameworks do it.

# %%
# a "column" and a 1-D vector
x_np, y_np = rng.standard_normal((4, 1)), rng.standard_normal(4)
x_t, y_t = torch.randn((4, 1)), torch.randn((4,))
x_j, y_j = jnp.asarray(x_np), jnp.asarray(y_np)
print("NumPy :", (x_np + y_np).shape)
print("torch :", tuple((x_t + y_t).shape))
print("JAX   :", (x_j + y_j).shape)
print("broadcast_shape((4, 1), (4,)) =", tensors.broadcast_shape((4, 1), (4,)))

# %% [markdown]
# The fix is to make the shapes agree on purpose: drop the extra axis of the column, or
# give the vector one. `alice_lab.tensors.assert_no_silent_broadcast` is a guard that
# refuses the case where both operands would grow.

# %%
print("x[:, 0] + y     ->", (x_np[:, 0] + y_np).shape)  # two (4) vectors
print("x + y[:, None]  ->", (x_np + y_np[:, None]).shape)  # two (4, 1) columns
try:
    tensors.assert_no_silent_broadcast(x_np, y_np)
except ValueError as err:
    print("guard:", err)
verify("C2-03")

# %% [markdown]
# ### 2.1.1 Common vector operations
#
# Vectors of the same shape can be combined linearly, $\mathbf{z} = a\mathbf{x} +
# b\mathbf{y}$, one coordinate at a time: $z_i = a x_i + b y_i$. Their length is the
# Euclidean norm $\lVert \mathbf{x} \rVert = \sqrt{\sum_i x_i^2}$. Written exactly like
# that, the norm overflows as soon as the squares exceed the largest float, even when
# the norm itself is representable; `alice_lab.linalg.norm` divides by the largest entry
# first.

# %%
a, b = 2.0, -0.5
xv, yv = rng.standard_normal(5), rng.standard_normal(5)
print("a x + b y           :", np.round(linalg.lincomb(a, xv, b, yv), 4))
print("element by element  :", np.round([a * xv[t] + b * yv[t] for t in range(5)], 4))

big = np.array([1e200, 1e200])
with np.errstate(over="ignore"):
    naive = np.sqrt(np.sum(big**2))
print(f"naive sqrt(sum x^2) = {naive}, scaled norm = {float(linalg.norm(big)):.4e}")
print(
    f"||x||^2 = {float(linalg.norm(xv)) ** 2:.6f}, sum x_i^2 = {np.sum(xv**2):.6f}, "
    f"<x, x> = {float(linalg.inner(xv, xv)):.6f}"
)
verify("C2-04", "C2-05")

# %% [markdown]
# The **inner product** (dot product) multiplies two vectors element-wise and sums:
#
# $$\langle \mathbf{x}, \mathbf{y} \rangle = \mathbf{x}^\top \mathbf{y} = \sum_i x_i y_i .$$
#
# Its result is a scalar. The book's example: $\mathbf{x} = [0.1, 0, -0.3]$ and
# $\mathbf{y} = [-4.0, 0.05, 0.1]$ give $-0.4 + 0 - 0.03 = -0.43$. In binary floating
# point neither $0.1$ nor $0.3$ is exact, so the computed value is a hair off; compare
# floats with a tolerance, never with `==`.

# %%
x = np.array([0.1, 0.0, -0.3])
y = np.array([-4.0, 0.05, 0.1])
xy = linalg.inner(x, y)
print(f"<x, y> = {float(xy):.17g}   (shape {np.shape(xy)}, rank {tensors.rank(xy)})")
print(f"terms: {x[0] * y[0]:.2f} + {x[1] * y[1]:.2f} + {x[2] * y[2]:.2f}")
print(
    f"torch: {float(torch.tensor(x) @ torch.tensor(y)):.17g},  "
    f"JAX: {float(jnp.dot(x, y)):.17g}"
)
print(
    "equal to -0.43 with ==?",
    float(xy) == -0.43,
    "| np.isclose:",
    bool(np.isclose(xy, -0.43)),
)
verify("C2-06", "C2-07")

# %% [markdown]
# Geometrically, $\mathbf{x}^\top \mathbf{y} = \lVert \mathbf{x} \rVert \lVert \mathbf{y}
# \rVert \cos(\alpha)$, where $\alpha$ is the angle between the two vectors. For unit
# vectors the dot product *is* the cosine, which is why $\cos(\alpha)$ is called the
# **cosine similarity**: $1$ when they point the same way, $-1$ when they point in
# opposite directions, $0$ when they are orthogonal.

# %%
alpha = 2.0
u = 1.5 * np.array([1.0, 0.0])
v = 0.7 * np.array([np.cos(alpha), np.sin(alpha)])
print(
    f"<u, v> = {float(linalg.inner(u, v)):.6f}; "
    f"||u|| ||v|| cos(alpha) = {1.5 * 0.7 * np.cos(alpha):.6f}"
)
print(f"angle recovered from the vectors: {float(linalg.angle(u, v)):.6f} rad")
e1, e2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
for label, (p, q) in {
    "same direction": (u, 3 * u),
    "opposite": (u, -u),
    "orthogonal": (e1, e2),
}.items():
    print(
        f"cosine similarity, {label:>14}: {float(linalg.cosine_similarity(p, q)):+.3f}"
    )
verify("C2-08", "C2-09")

# %% [markdown]
# Fix a unit vector $\mathbf{x}$ and search over unit vectors $\mathbf{y}$: the dot
# product is largest when $\mathbf{y} = \mathbf{x}$,
# $\mathbf{y}^* = \argmax_{\lVert\mathbf{y}\rVert=1} \langle \mathbf{x}, \mathbf{y} \rangle = \mathbf{x}$.
# Later chapters read this as **template matching**: an input $\mathbf{x}$ "resonates"
# with the parameters $\mathbf{w}$ it is most aligned with.

# %%
x = rng.standard_normal(8)
x /= np.linalg.norm(x)
candidates = rng.standard_normal((1000, 8))
candidates /= np.linalg.norm(candidates, axis=1, keepdims=True)
candidates[417] = x  # hide the input itself among 1000 random unit templates
best = linalg.best_template(x, candidates)
print(f"best template: #{best}, dot product {float(candidates[best] @ x):.6f}")
print(f"second best dot product: {np.sort(candidates @ x)[-2]:.6f}")
verify("C2-10")

# %% [markdown]
# Two identities that come back often. The sum of a vector's entries is its dot product
# with the all-ones vector, $\langle \mathbf{x}, \mathbf{1} \rangle = \sum_i x_i$. And a
# squared distance can be written with dot products only,
#
# $$\lVert \mathbf{x} - \mathbf{y} \rVert^2 = \langle \mathbf{x}, \mathbf{x} \rangle +
# \langle \mathbf{y}, \mathbf{y} \rangle - 2 \langle \mathbf{x}, \mathbf{y} \rangle ,$$
#
# which turns all pairwise distances between two sets of points into one matrix
# product. It comes with a numerical catch: for two *close* vectors with *large* entries
# the three terms are huge and nearly cancel, so rounding errors dominate, and the
# result can even come out negative (then `sqrt` gives `nan`). Batched code clamps it at
# zero, as `alice_lab.linalg.pairwise_sq_dists` does.

# %%
print(f"<x, 1> = {float(linalg.inner(x, np.ones_like(x))):.6f}, sum(x) = {x.sum():.6f}")
xa, ya = rng.standard_normal(6), rng.standard_normal(6)
print(
    f"random pair: direct {float(linalg.sq_dist(xa, ya)):.12f}, "
    f"via dots {float(linalg.sq_dist(xa, ya, method='dots')):.12f}"
)

x_far = 1e4 * rng.standard_normal(1000)
y_near = x_far + 1e-7 * rng.standard_normal(1000)
d_direct = float(linalg.sq_dist(x_far, y_near, "direct"))
d_dots = float(linalg.sq_dist(x_far, y_near, "dots"))
print(f"close, large vectors: direct {d_direct:.3e}, via dots {d_dots:.3e}")
negative = 0
for seed in range(200):
    r = np.random.default_rng(seed)
    p = 1e3 * r.standard_normal(100)
    negative += float(linalg.sq_dist(p, p + 1e-6 * r.standard_normal(100), "dots")) < 0
print(f"the dot form is negative in {negative} of 200 such pairs")
print(
    "clamped pairwise version, min entry:",
    float(linalg.pairwise_sq_dists(x_far[None], y_near[None]).min()),
)
verify("C2-11", "C2-12")

# %% [markdown]
# ### 2.1.2 Common matrix operations
#
# A matrix $\mathbf{X} \sim (n, d)$ can be read as a **batch**: a stack of $n$ row
# vectors $\mathbf{x}_i^\top$. The central operation is the matrix product: for
# $\mathbf{X} \sim (a, b)$ and $\mathbf{Y} \sim (b, c)$, $\mathbf{Z} = \mathbf{X}\mathbf{Y}
# \sim (a, c)$ has entries
#
# $$Z_{ij} = \langle \mathbf{X}_i, \mathbf{Y}^\top_j \rangle ,$$
#
# the dot product of row $i$ of $\mathbf{X}$ with column $j$ of $\mathbf{Y}$.
# `alice_lab.linalg.matmul_naive` is that definition written as three loops.

# %%
Xm, Ym = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
Z = linalg.matmul_naive(Xm, Ym)
print("Z ~", Z.shape, "| max |naive - X @ Y| =", f"{np.abs(Z - Xm @ Ym).max():.1e}")
print(
    f"Z[1, 0] = {Z[1, 0]:.6f} = <row 1 of X, column 0 of Y> "
    f"= {float(linalg.inner(Xm[1], Ym[:, 0])):.6f}"
)
verify("C2-13", "C2-67")

# %% [markdown]
# A matrix times a vector, $\mathbf{z} = \mathbf{W}\mathbf{x}$, is the special case
# $c=1$. With a batch $\mathbf{X} \sim (n, d)$, the single product
# $\mathbf{X}\mathbf{W}^\top \sim (n, o)$ computes all $n$ matrix–vector products at
# once (row $i$ is $\mathbf{W}\mathbf{x}_i$): this is what **vectorised** code means.
# Likewise the **Gram matrix** $\mathbf{X}\mathbf{X}^\top \sim (n, n)$ holds the dot
# products of every pair of rows.

# %%
n, d, o = 6, 4, 3
Xb, W = rng.standard_normal((n, d)), rng.standard_normal((o, d))
batched = Xb @ W.T  # (n, d) @ (d, o) -> (n, o)
looped = np.stack([W @ Xb[t] for t in range(n)])
print(
    "X W^T ~",
    batched.shape,
    "| max |X W^T - [W x_i]_i| =",
    f"{np.abs(batched - looped).max():.1e}",
)
G = linalg.gram(Xb)
print(
    "G ~",
    G.shape,
    f"| G[2, 5] = {G[2, 5]:.6f}, <x_2, x_5> = {Xb[2] @ Xb[5]:.6f}",
    f"| symmetric: {np.allclose(G, G.T)} "
    f"| min eigenvalue {np.linalg.eigvalsh(G).min():+.1e}",
)
verify("C2-14", "C2-15")

# %% [markdown]
# The **Hadamard product** multiplies two same-shaped matrices entry by entry,
# $[\mathbf{X} \odot \mathbf{Y}]_{ij} = X_{ij} Y_{ij}$. With a binary matrix it works as
# a **mask**: entries where the mask is 0 are zeroed, the others are kept.

# %%
Xh = np.arange(1.0, 13.0).reshape(3, 4)
M = (rng.uniform(size=(3, 4)) > 0.5).astype(float)
print("X =\n", Xh, "\nmask =\n", M, "\nX ⊙ mask =\n", linalg.hadamard(Xh, M))
verify("C2-16")

# %% [markdown]
# Functions applied to a matrix, such as $\exp(\mathbf{X})$, act **element-wise** in
# the book's notation: $[\exp(\mathbf{X})]_{ij} = \exp(X_{ij})$, for a tensor of any
# shape. The *matrix exponential* of linear algebra is a different object, defined only
# for square matrices by a power series:
#
# $$\text{mat-exp}(\mathbf{X}) = \sum_{k=0}^\infty \frac{1}{k!} \mathbf{X}^k .$$
#
# Frameworks keep such matrix-only operations in a separate `linalg` module. The book's
# Box 2.2 shows both in PyTorch; here it is with separate names for the two
# results, next to `scipy.linalg.expm` and the truncated series
# `alice_lab.linalg.expm_series`.
#
# ```{note}
# **Remark (C2-65).** Each line of Box 2.2 is right. Because both results are assigned
# to `X`, running the box in order takes the matrix exponential of $\exp(\mathbf{X})$;
# to compare the two exponentials of the same matrix, give each result its own name (`E
# = torch.exp(X)`, `M = torch.linalg.matrix_exp(X)`), as the cell does.
# ```

# %%
X = torch.randn((5, 5), dtype=torch.float64)
E = torch.exp(X)  # element-wise exponential
M = torch.linalg.matrix_exp(X)  # matrix exponential
vs_scipy = np.abs(M.numpy() - scipy.linalg.expm(X.numpy())).max()
vs_series = float((M - linalg.expm_series(X)).abs().max())
print(
    f"max |exp(X) - mat-exp(X)|           = {float((E - M).abs().max()):.3f}  "
    "(different things)"
)
print(f"max |mat-exp(X) - scipy expm(X)|    = {vs_scipy:.1e}")
print(f"max |mat-exp(X) - series (30 terms)| = {vs_series:.1e}")
as_printed = torch.linalg.matrix_exp(torch.exp(X))  # what the box computes as printed
print(
    f"max |box as printed - mat-exp(X)|   = {float((as_printed - M).abs().max()):.1f}"
)

Zero = torch.zeros(3, 3, dtype=torch.float64)
print(
    "exp(0) =\n",
    torch.exp(Zero).numpy(),
    "\nmat-exp(0) =\n",
    torch.linalg.matrix_exp(Zero).numpy(),
)
try:
    torch.linalg.matrix_exp(torch.randn(2, 3))
except RuntimeError as err:
    print("a (2, 3) matrix has no matrix exponential:", str(err).splitlines()[0])
verify("C2-17", "C2-65")

# %% [markdown]
# **Reductions** (sum, mean, max, …) collapse an axis. A sum written without limits,
# $\sum_i \mathbf{X}_i$, runs over the whole axis. In code the axis is an argument:
# `X.sum(axis=1)` sums over the second index and maps $(n, d)$ to $(n)$. PyTorch calls
# the argument `dim` but accepts `axis` too.

# %%
Xr = rng.standard_normal((4, 6))
print(
    "NumPy X.sum(axis=1):",
    Xr.sum(axis=1).shape,
    "| torch X.sum(dim=1):",
    tuple(torch.tensor(Xr).sum(dim=1).shape),
    "| torch X.sum(axis=1):",
    tuple(torch.tensor(Xr).sum(axis=1).shape),
    "| JAX:",
    jnp.asarray(Xr).sum(axis=1).shape,
)
verify("C2-18")

# %% [markdown]
# **Why is matrix multiplication defined this way?** (the book's side box). A function
# is *linear* when $f(\alpha\mathbf{x}_1 + \beta\mathbf{x}_2) = \alpha f(\mathbf{x}_1) +
# \beta f(\mathbf{x}_2)$. Every linear map is a matrix: its $j$-th column is
# $f(\mathbf{e}_j)$, the image of the $j$-th basis vector. Applying the map is the
# matrix–vector product, and composing two maps is the matrix product:
# $\mathbf{A}(\mathbf{B}\mathbf{x}) = (\mathbf{A}\mathbf{B})\mathbf{x}$. The Hadamard
# product has no such meaning.

# %%
A, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
lin_map = lambda v: A @ v  # a linear map written as a function
print("matrix recovered from f(e_j):", np.allclose(linalg.matrix_of(lin_map, 4), A))
xc = rng.standard_normal(5)
print(f"A(Bx) vs (AB)x: max difference {np.abs(A @ (B @ xc) - (A @ B) @ xc).max():.1e}")
print(
    "is_linear(A @ x):",
    linalg.is_linear(lin_map, 4),
    "| is_linear(x**2):",
    linalg.is_linear(lambda v: v**2, 4),
)
verify("C2-19")

# %% [markdown]
# ### Computational complexity
#
# Computing $\mathbf{Z} \sim (a, c)$ by the definition takes $ac$ dot products of
# length $b$, so $abc$ multiplications (the **time complexity**), and memory for the
# $ac$ outputs (the **space complexity**). `matmul_naive` counts them.

# %%
_, flops = linalg.matmul_naive(
    rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), count_flops=True
)
print(f"(3, 4) @ (4, 5): {flops} multiplications = 3 * 4 * 5")
verify("C2-20")

# %% [markdown]
# The **big-$\mathcal{O}$** notation drops constants: $f(x)$ is $\mathcal{O}(g(x))$ if
# $f(x) \le c\,g(x)$ for some constant $c$ and every $x$ beyond some $x_0$. The naive
# product is $\mathcal{O}(abc)$, and $\mathcal{O}(n^3)$ (cubic) for two $(n, n)$
# matrices. Timing it shows the cube: on a log–log plot the running time of the Python
# triple loop follows a line of slope about 3. NumPy's product (a compiled, cache-aware,
# multi-threaded BLAS kernel) does the same $n^3$ work thousands of times faster. The
# numbers depend on the machine, so this cell only shows them; nothing is asserted.

# %%
# NBVAL_IGNORE_OUTPUT
sizes = [8, 16, 32] if FAST else [16, 32, 64, 96, 128]


def best_time(fn, *args, repeat=1):
    """The fastest of `repeat` runs of fn(*args), in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


t_naive, t_numpy = [], []
for n in sizes:
    P, Q = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    t_naive.append(best_time(linalg.matmul_naive, P, Q, repeat=1 if n > 32 else 3))
    t_numpy.append(best_time(np.matmul, P, Q, repeat=50))
slope_naive = np.polyfit(np.log(sizes), np.log(t_naive), 1)[0]
slope_numpy = np.polyfit(np.log(sizes), np.log(t_numpy), 1)[0]
for n, tn, tb in zip(sizes, t_naive, t_numpy, strict=True):
    print(
        f"n = {n:4d}: triple loop {tn * 1e3:9.2f} ms, NumPy {tb * 1e6:8.2f} µs, "
        f"ratio {tn / tb:9.0f}"
    )
print(
    f"log-log slope: triple loop {slope_naive:.2f}, NumPy {slope_numpy:.2f} "
    "(small n: overheads dominate)"
)

fig, ax = plt.subplots(figsize=(5, 3.4))
ax.loglog(sizes, t_naive, "o-", label=f"Python triple loop (slope {slope_naive:.2f})")
ax.loglog(sizes, t_numpy, "s-", label=f"NumPy X @ Y (slope {slope_numpy:.2f})")
ref = t_naive[0] * (np.array(sizes) / sizes[0]) ** 3
ax.loglog(sizes, ref, "k:", label="slope 3 reference")
ax.set_xlabel("matrix size n")
ax.set_ylabel("time (s)")
ax.set_title("Multiplying two (n, n) matrices")
ax.legend(fontsize=8)
ax.grid(True, which="both", alpha=0.3)
plt.show()

# %% [markdown]
# Three further remarks of the book are about performance in practice, so they are
# discussed here rather than asserted (timings are not facts a test can pin down):
#
# * **Better exponents exist.** The best known algorithms multiply $(n, n)$ matrices in
#   $\mathcal{O}(n^c)$ with $c < 2.4$, but they parallelise poorly on GPUs and are
#   rarely used; the libraries run the cubic algorithm, extremely well tuned.
# * **Dispatching.** The same `A @ B` runs a different low-level *kernel* depending on
#   where the data lives (CPU, GPU, TPU); compilers such as XLA may also fuse operations.
#   The cell below runs one product on the CPU and on `DEVICE` (the GPU when there is
#   one) and compares the results.
# * **Parallelism is a constant factor.** With $k$ processors the best possible speed-up
#   is $k$, so the asymptotic class does not change. Moving data around can cost more
#   than the arithmetic (*memory-bound* rather than *compute-bound* code), which only a
#   profiler can tell.

# %%
A_cpu = torch.randn(256, 256, dtype=torch.float64)
B_cpu = torch.randn(256, 256, dtype=torch.float64)
C_here = (A_cpu.to(DEVICE) @ B_cpu.to(DEVICE)).cpu()  # dispatched to DEVICE's kernel
device_gap = float((C_here - A_cpu @ B_cpu).abs().max())
print(f"A @ B computed on {DEVICE} vs on the CPU: max difference {device_gap:.1e}")
print(
    "(without a GPU both products run the same CPU kernel, "
    "so the difference is exactly 0)"
)

# %% [markdown]
# ### 2.1.3 Higher-order tensor operations
#
# Beyond two axes, most operations are **batched** versions of matrix operations, with
# the batch axes in front. **Batched matrix multiplication** takes
# $X \sim (n, a, b)$ and $Y \sim (n, b, c)$ and multiplies them slice by slice:
# $[\text{BMM}(X, Y)]_i = \mathbf{X}_i \mathbf{Y}_i \sim (n, a, c)$. In PyTorch (Box
# 2.3), NumPy and JAX it is plain `matmul`; `torch.bmm` does the same but insists
# on exactly three axes, while `matmul` also broadcasts batch axes.

# %%
Xt, Yt = torch.randn((4, 5, 2)), torch.randn((4, 2, 3))
print(
    "torch.matmul(X, Y):",
    tuple(torch.matmul(Xt, Yt).shape),
    "| X @ Y:",
    tuple((Xt @ Yt).shape),
    "| torch.bmm:",
    tuple(torch.bmm(Xt, Yt).shape),
)
per_slice = torch.stack([Xt[t] @ Yt[t] for t in range(4)])
bmm_gap = float((torch.as_tensor(linalg.bmm(Xt, Yt)) - per_slice).abs().max())
print(f"alice_lab bmm vs slice-by-slice: {bmm_gap:.1e}")
print("matmul broadcasts a shared Y: (4, 5, 2) @ (2, 3) ->", tuple((Xt @ Yt[0]).shape))
try:
    torch.bmm(Xt, Yt[0])
except RuntimeError as err:
    print("torch.bmm refuses it:", str(err).splitlines()[0])
verify("C2-25")

# %% [markdown]
# A reduction example: the **generalised dot product** of two tensors of the same shape
# multiplies them element-wise and sums everything,
# $\text{GDT}(X, Y) = \sum_{i,j,k} [X \odot Y]_{ijk}$: the dot product of the flattened
# tensors.

# %%
Xg, Yg = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
print(f"GDT = {float(linalg.gdt(Xg, Yg)):.10f}")
print(
    f"dot of flattened = {Xg.ravel() @ Yg.ravel():.10f}, "
    f"np.vdot = {np.vdot(Xg, Yg):.10f}, "
    f"einsum('ijk,ijk->') = {np.einsum('ijk,ijk->', Xg, Yg):.10f}"
)
verify("C2-26")

# %% [markdown]
# ### 2.1.4 Einstein's notation
#
# Write the two examples with every index shown: $M_{ijk} = \sum_z A_{ijz} B_{izk}$
# (BMM) and $M = \sum_{i,j,k} X_{ijk} Y_{ijk}$ (GDT). **Einstein's convention** drops
# the sums: any index that appears on the right but not on the left is summed over. What
# is left fits in a string, `'ijz,izk->ijk'` and `'ijk,ijk->'`, which `einsum` reads in
# NumPy, PyTorch and JAX alike. `alice_lab.linalg.einsum_naive` interprets such a
# string with plain loops, to show there is no magic in it.

# %%
as_printed = "M = torch.einsum(\u2019ijz,izk->ijk\u2019, A, B)"
try:
    compile(as_printed, "<Box 2.4>", "exec")
except SyntaxError as err:
    print(f"{as_printed}\n  -> SyntaxError: {err.msg}")

A3, B3 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
M_np = np.einsum("ijz,izk->ijk", A3, B3)  # batched matrix multiply
M_pt = torch.einsum("ijz,izk->ijk", torch.tensor(A3), torch.tensor(B3))
M_jx = jnp.einsum("ijz,izk->ijk", A3, B3)
M_naive = linalg.einsum_naive("ijz,izk->ijk", A3, B3)
print(
    "shape",
    M_np.shape,
    "| vs A @ B:",
    f"{np.abs(M_np - A3 @ B3).max():.1e}",
    "| torch:",
    f"{np.abs(M_pt.numpy() - M_np).max():.1e}",
    "| JAX:",
    f"{np.abs(np.asarray(M_jx) - M_np).max():.1e}",
    "| einsum_naive:",
    f"{np.abs(M_naive - M_np).max():.1e}",
)
gdt_naive = float(linalg.einsum_naive("ijk,ijk->", A3, A3))
print(
    f"GDT: einsum {np.einsum('ijk,ijk->', A3, A3):.10f}, einsum_naive {gdt_naive:.10f}"
)
verify("C2-66", "C2-27")

# %% [markdown]
# The book's JAX box differs from the PyTorch one only in the module name,
# `jax.numpy.einsum('ijz,izk->ijk', A, B)`: the spec string carries over unchanged, and
# the cell above gets the same numbers from both frameworks.
#
# Transposes are just a change of letters: for $A \sim (n, a, b)$ and
# $B \sim (n, c, b)$, `'ijz,ikz->ijk'` computes $\mathbf{A}_i \mathbf{B}_i^\top$ for every
# $i$. And any index missing from the output is summed: `'ij->i'` is a row sum, `'ii->'`
# a trace.

# %%
At, Bt = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
Mt = np.einsum("ijz,ikz->ijk", At, Bt)
print(
    "'ijz,ikz->ijk' ~",
    Mt.shape,
    f"| vs A @ B^T per slice: {np.abs(Mt - At @ Bt.transpose(0, 2, 1)).max():.1e}",
)
S = rng.standard_normal((4, 4))
row_sums_gap = np.abs(linalg.einsum_naive("ij->i", S) - S.sum(1)).max()
print(
    f"'ij->i' vs X.sum(1): {row_sums_gap:.1e} | "
    f"'ii->' = {float(linalg.einsum_naive('ii->', S)):.6f}, trace = {np.trace(S):.6f}"
)
verify("C2-28", "C2-29")

# %% [markdown]
# ## 2.2 Gradients and Jacobians
#
# ### 2.2.1 Derivatives of scalar functions
#
# For $y = f(x)$ with scalar input and output, the derivative is the limit of the
# difference quotient,
#
# $$f'(x) = \lim_{h \to 0} \frac{f(x+h) - f(x)}{h} .$$
#
# It is the slope of the tangent line at $x$: when it is positive, $f$ increases just to
# the right of $x$ (and decreases just to the left); when it is negative, the reverse.
# Figure F.2.1 draws $f(x) = x^2 - 1.5x$, whose derivative is $2x - 1.5$, with the
# tangent at two points on either side of the minimum $x = 0.75$ (the book does not say
# which; we take $0.25$ and $1.25$, where the slopes are $-1$ and $+1$).

# %%
f, df = testfuncs.quad_1d, testfuncs.dquad_1d
xs = np.linspace(-0.5, 2.0, 200)
fig, ax = plt.subplots(figsize=(5, 3.4))
ax.plot(xs, f(xs), "k", lw=2, label=r"$f(x) = x^2 - 1.5x$")
for x0, color in [(0.25, "tab:blue"), (1.25, "tab:red")]:
    seg = np.linspace(x0 - 0.6, x0 + 0.6, 2)
    ax.plot(
        seg,
        f(x0) + df(x0) * (seg - x0),
        color=color,
        label=f"tangent at {x0}: slope {df(x0):+.1f}",
    )
    ax.plot([x0], [f(x0)], "o", color=color)
ax.plot([0.75], [f(0.75)], "k*", ms=10, label="minimum (0.75, -0.5625)")
ax.set_xlabel("$x$")
ax.set_ylabel("$f(x)$")
ax.set_title("F.2.1: the derivative as the slope of the tangent")
ax.legend(fontsize=8)
plt.show()
print(
    f"f'(0.25) = {df(0.25):+.2f} (f decreasing there), "
    f"f'(1.25) = {df(1.25):+.2f} (increasing); f(0.75) = {f(0.75):.4f}"
)
verify("C2-32")

# %% [markdown]
# On a computer the limit cannot be taken, but the quotient can be computed for a small
# $h$ (a **finite difference**). How small? The truncation error of the forward
# quotient shrinks like $h$, while the rounding error of subtracting two nearly equal
# numbers grows like $\epsilon/h$ ($\epsilon$ is the machine precision). The total error
# is V-shaped in $h$, with its best value near $h \approx \sqrt{\epsilon}$: about
# $10^{-8}$ in float64 but only about $3\cdot10^{-4}$ in float32. The central quotient
# $(f(x+h) - f(x-h))/2h$ has truncation error $\propto h^2$ and does better. Here is
# $\sin$ at $x = 1$, whose exact derivative is $\cos 1$.

# %%
hs = np.logspace(-14, -1, 53)
fig, ax = plt.subplots(figsize=(5.5, 3.6))
for dtype, style in [(np.float64, "-"), (np.float32, "--")]:
    for scheme, color in [("forward", "tab:blue"), ("central", "tab:orange")]:
        err = [
            abs(
                float(calculus.derivative(np.sin, dtype(1.0), h=h, scheme=scheme))
                - np.cos(1.0)
            )
            for h in hs
        ]
        ax.loglog(
            hs,
            np.maximum(err, 1e-17),
            style,
            color=color,
            label=f"{scheme}, {np.dtype(dtype).name}",
        )
for eps, dtype in [
    (np.finfo(np.float64).eps, "float64"),
    (np.finfo(np.float32).eps, "float32"),
]:
    ax.axvline(np.sqrt(eps), color="gray", lw=0.8, ls=":")
    ax.text(
        np.sqrt(eps),
        1e3,
        rf" $\sqrt{{\epsilon}}$ {dtype}",
        fontsize=7,
        rotation=90,
        va="bottom",
    )
ax.set_xlabel("step h")
ax.set_ylabel("|finite difference − cos(1)|")
ax.set_title("Finite-difference error for sin'(1): the V-curve")
ax.legend(fontsize=7, ncol=2)
plt.show()
for h in [1e-1, 1e-3, 1e-5, 1e-8, 1e-10, 1e-12]:
    e64 = abs(float(calculus.derivative(np.sin, 1.0, h=h)) - np.cos(1.0))
    e32 = abs(float(calculus.derivative(np.sin, np.float32(1.0), h=h)) - np.cos(1.0))
    print(f"h = {h:.0e}: forward error float64 {e64:.1e}, float32 {e32:.1e}")
verify("C2-30")

# %% [markdown]
# The familiar derivatives $\partial x^p = p x^{p-1}$, $\partial \log x = 1/x$ and
# $\partial \sin x = \cos x$, and the rules that combine them:
#
# * linearity: $\partial[f(x) + g(x)] = f'(x) + g'(x)$;
# * product rule: $\partial[f(x) g(x)] = f'(x) g(x) + f(x) g'(x)$;
# * chain rule: $\partial[f(g(x))] = f'(g(x))\, g'(x)$.
#
# Each is checked below against central differences at a few points (with
# $f = \sin$ and $g(x) = x^3$ for the rules).

# %%
pts = np.array([0.3, 1.0, 2.5])
rules = {
    "x^3 -> 3x^2": (lambda t: t**3, lambda t: 3 * t**2),
    "log x -> 1/x": (np.log, lambda t: 1 / t),
    "sin x -> cos x": (np.sin, np.cos),
    "sin x + x^3": (lambda t: np.sin(t) + t**3, lambda t: np.cos(t) + 3 * t**2),
    "sin(x) * x^3": (
        lambda t: np.sin(t) * t**3,
        lambda t: np.cos(t) * t**3 + np.sin(t) * 3 * t**2,
    ),
    "sin(x^3)": (lambda t: np.sin(t**3), lambda t: np.cos(t**3) * 3 * t**2),
}
for name, (fn, dfn) in rules.items():
    fd = calculus.derivative(fn, pts, scheme="central")
    print(
        f"{name:>15}: formula {np.round(dfn(pts), 6)}, "
        f"finite differences {np.round(fd, 6)}"
    )
print(
    "jax.grad of sin(x) * x^3 at 1.0:",
    f"{float(jax.grad(lambda t: jnp.sin(t) * t**3)(1.0)):.6f}",
)
verify("C2-31", "C2-33")

# %% [markdown]
# ### 2.2.2 Gradients and directional derivatives
#
# For $y = f(\mathbf{x})$ with $\mathbf{x} \sim (d)$, a small change must come with a
# direction. Moving along the $i$-th axis gives the **partial derivative**
#
# $$\partial_{x_i} f(\mathbf{x}) = \lim_{h \to 0} \frac{f(\mathbf{x} + h\mathbf{e}_i) -
# f(\mathbf{x})}{h} ,$$
#
# where $\mathbf{e}_i$ is the $i$-th row of the identity matrix. Stacking the $d$
# partial derivatives gives the **gradient** $\nabla f(\mathbf{x}) \sim (d)$. Along a
# general direction $\mathbf{v}$ the **directional derivative** is the same limit with
# $\mathbf{v}$ in place of $\mathbf{e}_i$, and it needs nothing beyond the gradient:
#
# $$\mathrm{D}_{\mathbf{v}} f(\mathbf{x}) = \langle \nabla f(\mathbf{x}), \mathbf{v}
# \rangle = \sum_i \partial_{x_i} f(\mathbf{x})\, v_i .$$
#
# We use the function of the chapter's final exercise,
# $f(\mathbf{x}) = \sin(x_1)\cos(x_2) + \sin(0.5x_1)\cos(0.5x_2)$, whose gradient we
# wrote by hand in `alice_lab.testfuncs.alice2d_grad`.

# %%
f2, grad_f2 = testfuncs.alice2d, testfuncs.alice2d_grad
x0 = np.array([1.0, 2.0])
partials = [float(calculus.partial(f2, x0, i)) for i in range(2)]
print("e_0, e_1 =", calculus.basis(2, 0), calculus.basis(2, 1))
print("partial derivatives by finite differences:", np.round(partials, 8))
print(
    "hand-written gradient:                    ",
    np.round(grad_f2(x0), 8),
    "shape",
    grad_f2(x0).shape,
)
vdir = np.array([0.6, -0.8])
d_v = float(calculus.directional_derivative(f2, x0, vdir))
print(
    f"D_v f by finite differences {d_v:.8f}, "
    f"<grad f, v> = {float(grad_f2(x0) @ vdir):.8f}"
)
verify("C2-34", "C2-35", "C2-36")

# %% [markdown]
# ### 2.2.3 Jacobians
#
# For a vector-valued $\mathbf{y} = f(\mathbf{x})$ with $\mathbf{x} \sim (d)$ and
# $\mathbf{y} \sim (o)$ there is one gradient per output; stacked as rows they form the
# **Jacobian** $\partial f(\mathbf{x}) \sim (o, d)$, with entries
# $\partial y_i / \partial x_j$. For $o = 1$ it is the gradient (as a row) and for
# $d = o = 1$ the ordinary derivative. The chain rule becomes a matrix product,
#
# $$\partial[f(g(\mathbf{x}))] = [\partial f(g(\mathbf{x}))]\, \partial g(\mathbf{x}) ,$$
#
# an $(o, h)$ matrix times an $(h, d)$ one when $g(\mathbf{x}) \sim (h)$.

# %%
Wg, Wf = rng.standard_normal((4, 3)), rng.standard_normal((2, 4))
g_map = lambda v: np.tanh(Wg @ v)  # (3) -> (4)
f_map = lambda u: Wf @ np.sin(u)  # (4) -> (2)
xj = rng.standard_normal(3)
J_g, J_f = calculus.jacobian_fd(g_map, xj), calculus.jacobian_fd(f_map, g_map(xj))
J_fg = calculus.jacobian_fd(lambda v: f_map(g_map(v)), xj)
print("shapes: dg", J_g.shape, "df", J_f.shape, "d(f∘g)", J_fg.shape)
print(f"max |d(f∘g) - df(g(x)) dg(x)| = {np.abs(J_fg - J_f @ J_g).max():.1e}")
J_auto = jax.jacobian(lambda v: Wf @ jnp.sin(jnp.tanh(Wg @ v)))(xj)
jac_gap = np.abs(J_fg - np.asarray(J_auto)).max()
print(f"max |finite differences - jax.jacobian| = {jac_gap:.1e}")
print(
    "a scalar function (d=3 -> o=1):",
    calculus.jacobian_fd(lambda v: np.sum(v**2)[None], xj).shape,
)
verify("C2-37", "C2-38")

# %% [markdown]
# Like the derivative in one dimension, the gradient gives the best linear
# approximation near a point $\mathbf{x}_0$ (first-order Taylor):
#
# $$\widetilde{f}(\mathbf{x}) = f(\mathbf{x}_0) + \langle \partial f(\mathbf{x}_0),
# \mathbf{x} - \mathbf{x}_0 \rangle .$$
#
# "Best" means that the error goes to zero faster than the displacement
# $\lVert \mathbf{x} - \mathbf{x}_0 \rVert$: for a smooth function it shrinks like its
# square. On the exercise function, halving the displacement divides the error by about
# four:

# %%
f_tilde = calculus.linearize(f2, x0, grad=grad_f2(x0))
direction = np.array([0.6, 0.8])
for r in [1e-1, 5e-2, 2.5e-2, 1.25e-2]:
    xr = x0 + r * direction
    err = abs(float(f2(xr) - f_tilde(xr)))
    print(f"||x - x0|| = {r:.4f}: error {err:.3e}, error / ||x - x0|| = {err / r:.3e}")
verify("C2-39")

# %% [markdown]
# The book's Box 2.6 linearises $f(x) = x^2 - 1.5x$ at $x_0 = 0.5$, where $f = -0.5$ and
# $f' = -0.5$, and compares the two at $0.51$. For a parabola the gap is exactly
# $(x - x_0)^2 = 10^{-4}$. Figure F.2.2 shows the function with its tangent line.

# %%
f_lin = calculus.linearize(f, 0.5, grad=df(0.5))
print(f"f(0.51)     = {f(0.51):.4f}")
print(f"f_lin(0.51) = {float(f_lin(0.51)):.4f}")
print(f"gap = {f(0.51) - float(f_lin(0.51)):.2e} = (0.01)^2")

fig, ax = plt.subplots(figsize=(5, 3.4))
ax.plot(xs, f(xs), "k", lw=2, label=r"$f(x) = x^2 - 1.5x$")
ax.plot(xs, f_lin(xs), "tab:green", label=r"$\tilde f(x) = f(0.5) + f'(0.5)(x - 0.5)$")
ax.plot([0.5], [f(0.5)], "o", color="tab:green")
ax.set_ylim(-1.2, 1.6)
ax.set_xlabel("$x$")
ax.set_ylabel("value")
ax.set_title("F.2.2: first-order approximation at 0.5")
ax.legend(fontsize=8)
plt.show()
verify("C2-40")

# %% [markdown]
# ### On the dimensionality of the Jacobians
#
# Take $\mathbf{y} = \mathbf{W}\mathbf{x}$ with $\mathbf{W} \sim (o, d)$. As a function of
# $\mathbf{x}$ its Jacobian is $\mathbf{W}$ itself, an $(o, d)$ matrix. As a function of
# $\mathbf{W}$ the input is a matrix, so the "Jacobian" has shape $(o, o, d)$ (one
# $(o, d)$ gradient per output), or $(o, od)$ if $\mathbf{W}$ is flattened into a
# vector. Element-wise, $y_i = \sum_j W_{ij} x_j$, so $\partial y_i / \partial W_{ij} =
# x_j$, and $\partial y_i / \partial W_{kj} = 0$ for every other row $k \ne i$: the
# tensor is mostly zeros, and its non-zeros are $\mathbf{x}$ repeated $o$ times.

# %%
o, d = 3, 4
Wj, xw = rng.standard_normal((o, d)), rng.standard_normal(d)
print(
    f"d[Wx]/dx: shape {calculus.jacobian_fd(lambda v: Wj @ v, xw).shape}, "
    f"max |J - W| = {np.abs(calculus.jacobian_fd(lambda v: Wj @ v, xw) - Wj).max():.1e}"
)
J_W = np.asarray(jax.jacobian(lambda Wv: Wv @ xw)(Wj))
print(
    "d[Wx]/dW with jax.jacobian:",
    J_W.shape,
    "| flattened:",
    J_W.reshape(o, o * d).shape,
    "| torch.func.jacrev:",
    tuple(torch.func.jacrev(lambda Wv: Wv @ torch.tensor(xw))(torch.tensor(Wj)).shape),
)
J_explicit = calculus.jacobian_linear_wrt_W(xw, o)
print(
    f"explicit J[i, k, j] = (i == k) x_j matches: {np.allclose(J_explicit, J_W)}; "
    f"non-zeros {np.count_nonzero(J_explicit)} of {J_explicit.size}"
)
print("J[1] (the gradient of y_1 with respect to W):\n", np.round(J_explicit[1], 3))
verify("C2-41", "C2-42", "C2-43")

# %% [markdown]
# Nobody builds that tensor. What backpropagation needs (Chapter 6) is its product with
# a vector $\mathbf{v} \sim (o)$ coming from later computations, a **vector–Jacobian
# product**, and here it collapses to the outer product $\mathbf{v}\mathbf{x}^\top \sim
# (o, d)$. The sizes make the point: for $o = d = 4096$ the explicit Jacobian would hold
# $4096^3 \approx 6.9 \cdot 10^{10}$ numbers (275 GB in float32), the product only
# $4096^2$ (64 MB).

# %%
vv = rng.standard_normal(o)
via_tensor = np.einsum("i,ikj->kj", vv, J_explicit)
tensor_gap = np.abs(via_tensor - calculus.vjp_linear_wrt_W(vv, xw)).max()
print(f"v^T J (via the (o, o, d) tensor) vs outer(v, x): {tensor_gap:.1e}")
_, vjp_fn = jax.vjp(lambda Wv: Wv @ xw, Wj)
vjp_gap = np.abs(np.asarray(vjp_fn(vv)[0]) - np.outer(vv, xw)).max()
print(f"jax.vjp gives the same: {vjp_gap:.1e}")
big_o = 4096
print(
    f"o = d = {big_o}: Jacobian {big_o**3 * 4 / 1e9:.0f} GB "
    f"vs vector-Jacobian product {big_o**2 * 4 / 2**20:.0f} MiB (float32)"
)
verify("C2-44")

# %% [markdown]
# ## 2.3 Gradient descent
#
# We want $\mathbf{x}^* = \arg\min_{\mathbf{x}} f(\mathbf{x})$ for a scalar $f$ with
# unconstrained $\mathbf{x} \sim (d)$. Maximising is the same problem, since the
# maximisers of $f$ are the minimisers of $-f$ (flip the graph upside down).

# %%
grid = np.linspace(-1.0, 4.0, 5001)
for name, fn in [("x^2 - 1.5x", testfuncs.quad_1d), ("x sin 2x", testfuncs.xsin2x)]:
    print(
        f"{name:>10}: argmin f = {grid[np.argmin(fn(grid))]:.3f}, "
        f"argmax(-f) = {grid[np.argmax(-fn(grid))]:.3f}"
    )
verify("C2-45")

# %% [markdown]
# Closed-form minimisers are rare, so we iterate from a guess $\mathbf{x}_0$, stepping
# $\mathbf{x}_t = \mathbf{x}_{t-1} + \eta_t \mathbf{p}_t$ with a **step size** (learning
# rate) $\eta_t$ and a direction $\mathbf{p}_t$. A **descent direction** is one along
# which a small enough step lowers $f$, i.e. one with a negative directional derivative.
# For a unit $\mathbf{p}$,
# $\mathrm{D}_{\mathbf{p}} f = \lVert \nabla f \rVert \cos(\alpha)$, with $\alpha$ the
# angle between $\mathbf{p}$ and the gradient: every angle between $\pi/2$ and $3\pi/2$
# goes downhill, and $\alpha = \pi$, i.e. $\mathbf{p} = -\nabla f / \lVert \nabla f
# \rVert$, goes down fastest (the **steepest descent** direction).

# %%
g0 = grad_f2(x0)
angles = np.linspace(0, 2 * np.pi, 361)
gangle = np.arctan2(g0[1], g0[0])
# unit p at angle alpha to the gradient
P = np.stack([np.cos(gangle + angles), np.sin(gangle + angles)], axis=1)
Dp = P @ g0
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.plot(angles, Dp, "k")
ax.fill_between(
    angles,
    Dp,
    0,
    where=Dp < 0,
    color="tab:green",
    alpha=0.3,
    label="descent directions",
)
ax.axvline(
    np.pi, color="tab:red", ls="--", label=r"$\alpha = \pi$: $-\nabla f / \|\nabla f\|$"
)
ax.set_xticks(
    [0, np.pi / 2, np.pi, 3 * np.pi / 2, 2 * np.pi], ["0", "π/2", "π", "3π/2", "2π"]
)
ax.set_xlabel(r"angle $\alpha$ between $\mathbf{p}$ and $\nabla f(\mathbf{x}_0)$")
ax.set_ylabel(r"$\mathrm{D}_\mathbf{p} f(\mathbf{x}_0)$")
ax.set_title("Directional derivative along unit directions")
ax.legend(fontsize=8)
plt.show()
steep = optim.steepest_direction(g0)
print(
    f"min over directions {Dp.min():.6f} = -||grad f|| = {-np.linalg.norm(g0):.6f}, "
    f"at p = {np.round(steep, 4)}"
)
verify("C2-46")

# %% [markdown]
# Choosing the steepest direction gives **(steepest) gradient descent**:
#
# $$\mathbf{x}_t = \mathbf{x}_{t-1} - \eta_t \nabla f(\mathbf{x}_{t-1}) .$$
#
# The book only asks for a step size "small enough". On the parabola
# $f(x) = x^2 - 1.5x$ we can see exactly what that means: one step maps
# $x - 0.75$ to $(1 - 2\eta)(x - 0.75)$, so the iterates approach the minimum
# monotonically for $\eta < 0.5$, land on it in one step at $\eta = 0.5$, overshoot back
# and forth but still converge for $0.5 < \eta < 1$, and run away for $\eta > 1$.
# `alice_lab.optim.gradient_descent` stops a runaway with a `DivergenceError` instead of
# filling the path with `inf`.

# %%
x_start = np.array(2.0)
regimes = [
    (0.1, "monotone"),
    (0.5, "one step"),
    (0.9, "oscillating"),
    (1.1, "divergent"),
]
fig, axes = plt.subplots(1, 4, figsize=(12, 2.8), sharey=False)
for ax, (lr, name) in zip(axes, regimes, strict=True):
    run = optim.gradient_descent(testfuncs.dquad_1d, x_start, lr=lr, steps=12)
    ax.plot(run.path, "o-", ms=3)
    ax.axhline(0.75, color="gray", ls=":")
    ax.set_title(f"η = {lr}: {name}", fontsize=9)
    ax.set_xlabel("iteration t")
    print(f"eta = {lr}: x_1..x_4 = {np.round(run.path[1:5], 4)}")
axes[0].set_ylabel("$x_t$")
fig.suptitle(
    "Gradient descent on $x^2 - 1.5x$ from $x_0 = 2$ (minimum at 0.75, dotted)"
)
fig.tight_layout()
plt.show()

try:
    optim.gradient_descent(testfuncs.dquad_1d, x_start, lr=1.1, steps=5000)
except optim.DivergenceError as err:
    print("DivergenceError:", str(err)[:120], "...")
verify("C2-47")

# %% [markdown]
# ### 2.3.1 Convergence of gradient descent
#
# A **local minimum** $\mathbf{x}^+$ has $f(\mathbf{x}^+) \le f(\mathbf{x})$ for all
# $\mathbf{x}$ in some small ball around it. There the gradient vanishes, which makes it
# a **stationary point**, $\nabla f(\mathbf{x}^+) = \mathbf{0}$. But stationary points
# also include maxima and **saddle points**, where the function curves up in some
# directions and down in others (or, in one dimension, keeps going the same way through
# a flat spot, as $x^3$ at 0). Figure F.2.3 shows both kinds. The Hessian's eigenvalues
# tell them apart; that goes beyond the chapter, which only mentions higher-order
# derivatives.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
t1 = np.linspace(-1.2, 1.2, 200)
ax1.plot(t1, testfuncs.saddle_1d(t1), "k", lw=2, label="$x^3$")
ax1.axhline(0, color="tab:red", ls="--", label="tangent at 0 (slope 0)")
ax1.set_title("F.2.3 (1-D): $x^3$ is flat at 0, but 0 is no extremum", fontsize=9)
ax1.set_xlabel("$x$")
ax1.legend(fontsize=8)
g1 = np.linspace(-1.5, 1.5, 121)
G1, G2 = np.meshgrid(g1, g1)
S = testfuncs.saddle_2d(np.stack([G1, G2], axis=-1))
cs = ax2.contourf(G1, G2, S, levels=20, cmap="RdBu_r")
fig.colorbar(cs, ax=ax2)
q = np.linspace(-1.2, 1.2, 7)
Q1, Q2 = np.meshgrid(q, q)
Gq = testfuncs.saddle_2d_grad(np.stack([Q1, Q2], axis=-1))
ax2.quiver(Q1, Q2, -Gq[..., 0], -Gq[..., 1], color="k", alpha=0.6)
ax2.plot([0], [0], "y*", ms=14)
ax2.set_title(
    r"$x_1^2 - x_2^2$ with $-\nabla f$: up along $x_1$, down along $x_2$", fontsize=9
)
ax2.set_xlabel("$x_1$")
ax2.set_ylabel("$x_2$")
ax2.set_aspect("equal")
plt.show()

origin = np.zeros(2)
print(
    "gradient at 0:",
    testfuncs.saddle_2d_grad(origin),
    "| Hessian (finite differences):",
    np.round(calculus.hessian_fd(testfuncs.saddle_2d, origin), 6).tolist(),
    "->",
    calculus.classify_stationary_point(
        calculus.hessian_fd(testfuncs.saddle_2d, origin)
    ),
)
stay = optim.gradient_descent(testfuncs.saddle_2d_grad, origin, lr=0.1, steps=50)
push = optim.gradient_descent(
    testfuncs.saddle_2d_grad, np.array([0.0, 1e-8]), lr=0.1, steps=120
)
print(
    f"GD started exactly at the saddle stays at {stay.x}; "
    f"pushed by 1e-8 along x2 it reaches {np.round(push.x, 3)} "
    f"after 120 steps (f = {float(testfuncs.saddle_2d(push.x)):.3f}, and falling)"
)
verify("C2-48")

# %% [markdown]
# A parabola has a single stationary point, a **global minimum**: $f(\mathbf{x}^*) \le
# f(\mathbf{x})$ everywhere. Every gradient points away from it, so gradient descent
# finds it from any starting point.

# %%
starts_1d = rng.uniform(-50, 50, size=(50, 1))
# f = 3(x - 1.7)^2
run = optim.gradient_descent(
    lambda z: 2 * 3.0 * (z - 1.7), starts_1d, lr=0.05, steps=200
)
print(
    "50 random starts in [-50, 50] on 3(x - 1.7)^2: "
    f"final x in [{run.x.min():.8f}, {run.x.max():.8f}]"
)
verify("C2-49")

# %% [markdown]
# **Convexity** generalises the parabola: $f$ is convex if for any two points and any
# $\alpha \in [0, 1]$,
#
# $$f(\alpha\mathbf{x}_1 + (1-\alpha)\mathbf{x}_2) \le \alpha f(\mathbf{x}_1) +
# (1-\alpha) f(\mathbf{x}_2) ,$$
#
# i.e. the graph between two points never rises above the chord joining them. The
# chord test below finds no violation for $x^2$, and a clear one for $x\sin(2x)$
# between $x_1 = 0$ and $x_2 = 2$: at the midpoint the curve is at $f(1) = 0.909$ while
# the chord is at $\tfrac12(0 + 2\sin 4) = -0.757$.

# %%
sq = lambda t: t**2
x1s, x2s = rng.uniform(-5, 5, 300), rng.uniform(-5, 5, 300)
alphas = np.linspace(0, 1, 11)
print("violation for x^2:      ", calculus.check_convexity(sq, x1s, x2s, alphas))
print(
    "violation for x sin 2x: ",
    calculus.check_convexity(testfuncs.xsin2x, np.array([0.0]), np.array([2.0]), [0.5]),
)

fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
for ax, (name, fn, (p1, p2)) in zip(
    axes,
    [
        ("$x^2$ (convex)", sq, (-1.0, 1.5)),
        (r"$x \sin 2x$ (not convex)", testfuncs.xsin2x, (0.0, 2.0)),
    ],
    strict=True,
):
    p1, p2 = np.float64(p1), np.float64(p2)
    tt = np.linspace(-1.5, 2.5, 300)
    ax.plot(tt, fn(tt), "k", lw=2)
    seg = np.linspace(p1, p2, 50)
    chord = fn(p1) + (fn(p2) - fn(p1)) * (seg - p1) / (p2 - p1)
    ax.plot(seg, chord, "tab:blue", lw=2, label="chord")
    above = fn(seg) > chord + 1e-12
    ax.fill_between(
        seg,
        fn(seg),
        chord,
        where=above,
        color="tab:red",
        alpha=0.4,
        label="curve above chord",
    )
    ax.plot([p1, p2], [fn(p1), fn(p2)], "o", color="tab:blue")
    ax.set_title(name)
    ax.set_xlabel("$x$")
    ax.legend(fontsize=8)
fig.suptitle("The chord test for convexity")
fig.tight_layout()
plt.show()
verify("C2-50")

# %% [markdown]
# What convexity buys, in three statements the book takes from the literature:
#
# 1. for a non-convex function, gradient descent (with a suitable step) reaches *a*
#    stationary point, and which one depends on where it starts;
# 2. for a convex function it reaches a *global* minimum from any start;
# 3. with strict inequality (**strict convexity**) that minimiser is unique.
#
# For (1) we run the chapter's exercise function from a $10 \times 10$ grid of starts;
# for (2) and (3) a quadratic $\tfrac12\mathbf{x}^\top\mathbf{A}\mathbf{x} -
# \mathbf{b}^\top\mathbf{x}$ with $\mathbf{A}$ positive definite (strictly convex, unique
# minimiser $\mathbf{A}^{-1}\mathbf{b}$) and $x_1^2$, which is convex but not strictly:
# every point of the line $x_1 = 0$ is a minimiser, and each run stops at a different one.

# %%
side = np.linspace(0.5, 9.5, 10)
grid_starts = np.stack(np.meshgrid(side, side), axis=-1).reshape(-1, 2)  # (100, 2)
lab_run = optim.gradient_descent(grad_f2, grid_starts, lr=0.1, steps=3000)
ends = np.unique(np.round(lab_run.x, 3), axis=0)
inside = ends[((ends >= 0) & (ends <= 10)).all(axis=1)]
all_converged = bool((lab_run.grad_norms[-1] < 1e-6).all())
print(
    f"non-convex: all 100 runs end with ||grad|| < 1e-6: {all_converged}; "
    f"{len(ends)} distinct end points ({len(inside)} inside the square), "
    f"f from {f2(ends).min():.4f} to {f2(ends).max():.4f}"
)

Aq = np.array([[3.0, 1.0], [1.0, 2.0]])
bq = np.array([1.0, -1.0])
fq, gq = testfuncs.convex_quadratic(Aq, bq)
qstarts = rng.uniform(-10, 10, size=(20, 2))
qrun = optim.gradient_descent(gq, qstarts, lr=0.2, steps=300)
print(
    f"strictly convex quadratic: 20 random starts, max distance to A^-1 b = "
    f"{np.abs(qrun.x - np.linalg.solve(Aq, bq)).max():.1e}"
)
flat = optim.gradient_descent(
    lambda z: np.stack([2 * z[:, 0], 0 * z[:, 1]], axis=1),
    qstarts[:4],
    lr=0.2,
    steps=300,
)
print("convex, not strictly (f = x1^2): end points", np.round(flat.x, 3).tolist())
verify("C2-51", "C2-52", "C2-53")

# %% [markdown]
# No guarantee survives non-convexity, and finding a *global* minimum of a general
# non-convex function is NP-hard. Any non-trivial neural network is non-convex, yet in
# practice gradient descent from a reasonable start lands on good solutions, one of the
# puzzles the book keeps returning to.
#
# ### 2.3.2 Accelerating gradient descent
#
# Plain gradient descent can zig-zag: the book notes that with the perfect step (an
# exact line search, minimising $f$ along the current direction) on a convex function,
# consecutive gradients are *orthogonal*. On a quadratic the perfect step has a closed
# form, $\eta^* = \mathbf{g}^\top\mathbf{g} / \mathbf{g}^\top\mathbf{A}\mathbf{g}$:

# %%
A5 = rng.standard_normal((5, 5))
A5 = A5 @ A5.T + 0.5 * np.eye(5)
b5 = rng.standard_normal(5)
_, g5 = testfuncs.convex_quadratic(A5, b5)
xq = np.zeros(5)
grads = [g5(xq)]
for _ in range(8):
    xq = xq - optim.exact_line_search_quadratic(A5, b5, xq) * grads[-1]
    grads.append(g5(xq))
cosines = [float(linalg.cosine_similarity(grads[t], grads[t + 1])) for t in range(8)]
print("cosine between consecutive gradients:", [f"{c:+.1e}" for c in cosines])
verify("C2-54")

# %% [markdown]
# **Momentum** smooths the zig-zag by keeping part of the previous step:
#
# $$\mathbf{g}_t = -\eta_t \nabla f(\mathbf{x}_{t-1}) + \lambda \mathbf{g}_{t-1}, \qquad
# \mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t, \qquad \mathbf{g}_0 = \mathbf{0} .$$
#
# With $\lambda = 0$ it is plain gradient descent. Unrolling the recursion shows what
# $\lambda$ does: the step is a weighted sum of all past gradients, the one from $n$
# steps back damped by $\lambda^{n-1}$; for a constant step,
# $\mathbf{g}_t = -\eta \sum_{n=1}^{t} \lambda^{n-1} \nabla f(\mathbf{x}_{t-n})$.
#
# ```{admonition} Erratum (E2-01, §2.3.2; book text lines 1080–1084)
# :class: warning
# Unrolling two steps, the book prints
# $\mathbf{g}_t = -\eta_t\nabla f(\mathbf{x}_{t-1}) - \lambda\eta_t\nabla f(\mathbf{x}_{t-2}) + \lambda^2\mathbf{g}_{t-2}$.
# The gradient at $\mathbf{x}_{t-2}$ entered $\mathbf{g}_{t-1}$ with that step's size, so
# the middle term is $-\lambda\eta_{t-1}\nabla f(\mathbf{x}_{t-2})$. The printed form is
# right only when the step size is constant.
# ```


# %%
def momentum_gd(grad, x0, eta, lam, steps):
    """The momentum recursion written out: returns the path x_0..x_steps."""
    x, g = x0, np.zeros_like(x0)  # g_0 = 0
    path = [x]
    for _ in range(steps):
        g = -eta * grad(x) + lam * g
        x = x + g
        path.append(x)
    return np.stack(path)


# x_t = x_(t-1) - eta grad
plain = optim.gradient_descent(grad_f2, x0, lr=0.1, steps=20)
gap = np.abs(momentum_gd(grad_f2, x0, 0.1, 0.0, 20) - plain.path).max()
print(f"lambda = 0 is plain GD: max |difference| {gap:.1e}")

lam, eta = 0.5, 0.1
mrun = optim.gradient_descent(grad_f2, x0, lr=eta, momentum=lam, steps=10)
gap = np.abs(momentum_gd(grad_f2, x0, eta, lam, 10) - mrun.path).max()
print(f"lambda = {lam}: alice_lab vs the loop above, max |difference| {gap:.1e}")
steps_taken = np.diff(mrun.path, axis=0)  # g_1..g_10
closed = optim.momentum_unrolled(grad_f2(mrun.path[:-1]), lr=eta, momentum=lam)
print(
    "recursion vs -eta * sum lambda^(n-1) grad f(x_(t-n)): "
    f"max difference {np.abs(steps_taken - closed).max():.1e}"
)
print(
    "weights of the past gradients in g_10:", np.round(lam ** np.arange(10), 4).tolist()
)

# the erratum with a varying step size:
# g_1 = -eta_1 grad(x_0), g_2 = -eta_2 grad(x_1) + lam g_1
etas = {1: 0.1, 2: 0.05}
xa0 = x0
ga1 = -etas[1] * grad_f2(xa0)
xa1 = xa0 + ga1
ga2 = -etas[2] * grad_f2(xa1) + lam * ga1
# eta_{t-1} on the older gradient (right), eta_t as printed
right = -etas[2] * grad_f2(xa1) - lam * etas[1] * grad_f2(xa0)
printed = -etas[2] * grad_f2(xa1) - lam * etas[2] * grad_f2(xa0)
print(
    f"varying step: |g_2 - corrected| = {np.abs(ga2 - right).max():.1e}, "
    f"|g_2 - as printed| = {np.abs(ga2 - printed).max():.1e}"
)
verify("C2-55", "C2-56", "E2-01")

# %% [markdown]
# Figure F.2.4 runs gradient descent with and without momentum ($\lambda = 0.3$) on
# $x \sin(2x)$ from $x_0 = 1 + \varepsilon$. The book gives neither $\varepsilon$ nor the
# step size, and the choice matters: $x \sin 2x$ has a local maximum at $x \approx
# 1.0144$, just right of 1. Starting left of it ($\varepsilon = 0.01$) the runs roll left
# into the minimum at $0$; starting right of it ($\varepsilon = 0.05$) they roll right
# into the minimum at $x \approx 2.4566$. We use $\eta = 0.01$ and stop when
# $|f'(x_t)| < 10^{-6}$.

# %%
fx, dfx = testfuncs.xsin2x, testfuncs.dxsin2x
fig, (axc, axt) = plt.subplots(1, 2, figsize=(11, 3.8))
tt = np.linspace(-1.0, 4.0, 400)
axc.plot(tt, fx(tt), "k", lw=1.5, label=r"$x \sin 2x$")
counts = {}
for eps, color in [(0.01, "tab:blue"), (0.05, "tab:red")]:
    for lam_, marker, ls in [(0.0, "o", "--"), (0.3, "s", "-")]:
        r = optim.gradient_descent(
            dfx, np.array(1.0 + eps), lr=0.01, momentum=lam_, steps=5000, tol=1e-6
        )
        counts[eps, lam_] = r
        label = f"ε = {eps}, {'momentum λ=0.3' if lam_ else 'plain GD'}"
        axc.plot(
            r.path[::8],
            fx(r.path[::8]),
            marker,
            color=color,
            ms=3,
            alpha=0.6,
            mfc="none" if lam_ == 0 else color,
        )
        axt.plot(fx(r.path), ls, color=color, label=label)
axc.axvline(1.0144, color="gray", ls=":", lw=1)
axc.text(1.05, 3.2, "local max\n≈ 1.0144", fontsize=8)
axc.set_xlabel("$x$")
axc.set_title(r"F.2.4: iterates on the curve (every 8th)")
axt.set_xlabel("iteration t")
axt.set_ylabel("$f(x_t)$")
axt.set_title("objective along the runs")
axt.legend(fontsize=8)
fig.tight_layout()
plt.show()
for (eps, lam_), r in counts.items():
    print(
        f"eps = {eps}, lambda = {lam_}: ends at x = {float(r.x):+.4f} "
        f"(f = {float(fx(r.x)):+.4f}) after {r.steps_taken} iterations"
    )
verify("C2-57")

# %% [markdown]
# With this small step, momentum needs about a third fewer iterations
# (204 → 134 for $\varepsilon = 0.05$), close to the factor $1/(1-\lambda) \approx 1.43$
# by which momentum lengthens steps on gentle slopes. The speed-up is not guaranteed:
# with a large step ($\eta = 0.1$, $\varepsilon = 0.1$) momentum overshoots and is
# *slower*. On the exercise function, over the same $10 \times 10$ grid of starts:

# %%
for eps, lr in [(0.05, 0.01), (0.1, 0.1)]:
    its = [
        optim.gradient_descent(
            dfx, np.array(1.0 + eps), lr=lr, momentum=m, steps=5000, tol=1e-6
        ).steps_taken
        for m in (0.0, 0.3)
    ]
    print(
        f"x sin 2x, eps = {eps}, eta = {lr}: plain GD {its[0]:4d} iterations, "
        f"momentum {its[1]:4d}"
    )
for lam_ in (0.0, 0.3, 0.9):
    r = optim.gradient_descent(grad_f2, grid_starts, lr=0.01, momentum=lam_, steps=4000)
    reached = np.argmax(r.grad_norms < 1e-6, axis=0)
    print(
        f"exercise function, eta = 0.01, lambda = {lam_}: "
        f"median iterations to ||grad|| < 1e-6 = {np.median(reached):.0f}"
    )
verify("C2-58")

# %% [markdown]
# The price of momentum is memory: the previous step $\mathbf{g}_{t-1}$ must be kept, one
# extra number per parameter, which doubles the optimiser's own state (the memory to
# compute the gradient itself usually dominates, Chapter 6). PyTorch's SGD shows it: with
# momentum it stores a `momentum_buffer` the size of each parameter, without it nothing.
# (Adam, which the book mentions as the default optimiser of deep learning, keeps two.)

# %%
for m in (0.0, 0.9):
    p = torch.nn.Parameter(torch.randn(1000))
    opt = torch.optim.SGD([p], lr=0.1, momentum=m)
    (p**2).sum().backward()
    opt.step()
    buf = opt.state[p].get("momentum_buffer")
    buf_size = 0 if buf is None else buf.numel()
    print(
        f"SGD momentum={m}: state {sorted(opt.state[p])}, "
        f"buffer size {buf_size} for {p.numel()} parameters"
    )
verify("C2-59")

# %% [markdown]
# ## From theory to practice
#
# The book ends the chapter with a learning path instead of exercises: get fluent in
# NumPy (its indexing above all), then in JAX and PyTorch, which copy NumPy's interface
# and add GPUs, automatic differentiation and transformations such as `vmap`; then
# implement gradient descent in all three. The online resources it points to are not
# needed here: the cell below runs the same operations in the three libraries, and
# `help(jnp.array)` / `help(torch.tensor)` give their documentation offline. Two
# differences worth knowing: JAX arrays are immutable (`x.at[i].set(v)` returns a new
# array) and both JAX and PyTorch default to float32 (we turned float64 on for JAX at the
# top).

# %%
Xn = np.arange(12.0).reshape(3, 4)
Xt_, Xj_ = torch.tensor(Xn), jnp.asarray(Xn)
ops = {
    "index X[1, 1:3]": (lambda L, T: T[1, 1:3]),
    "broadcast X + row": (lambda L, T: T + T[0]),
    "X @ X^T": (lambda L, T: T @ T.T),
    "sum over axis 1": (lambda L, T: T.sum(axis=1)),
    "exp, then mean": (lambda L, T: L.exp(T).mean()),
}
for name, op in ops.items():
    r_np, r_pt, r_jx = op(np, Xn), op(torch, Xt_), op(jnp, Xj_)
    same = np.allclose(r_np, r_pt.numpy()) and np.allclose(r_np, np.asarray(r_jx))
    print(
        f"{name:>18}: NumPy {np.round(np.ravel(r_np)[:3], 3)} ... "
        f"same in torch and JAX: {same}"
    )
print(
    "JAX is immutable: X.at[0, 0].set(-1) gives",
    Xj_.at[0, 0].set(-1.0)[0],
    "and leaves X[0] =",
    Xj_[0],
)
verify("C2-64")

# %% [markdown]
# ### Implementing gradient descent, three times
#
# The exercise function on the square $[0, 10]^2$ (its author notes it is the only
# LLM-generated item of the book) is
#
# $$f(\mathbf{x}) = \sin(x_1)\cos(x_2) + \sin(0.5x_1)\cos(0.5x_2) .$$
#
# **Step 1: vectorise.** Given $\mathbf{X} \sim (n, 2)$, return $f(\mathbf{X}) \sim (n)$
# with $[f(\mathbf{X})]_i = f(\mathbf{X}_i)$, using whole-column operations instead of a
# loop. The body is the same in the three libraries, only the namespace changes.


# %%
def f_vec(X, xp):
    """The exercise function, vectorised: X ~ (n, 2) -> (n)."""
    x1, x2 = X[:, 0], X[:, 1]
    return xp.sin(x1) * xp.cos(x2) + xp.sin(0.5 * x1) * xp.cos(0.5 * x2)


Xs = rng.uniform(0, 10, size=(64, 2))
looped = np.array(
    [np.sin(a) * np.cos(b) + np.sin(0.5 * a) * np.cos(0.5 * b) for a, b in Xs]
)
for name, xp, arr in [
    ("NumPy", np, Xs),
    ("JAX", jnp, jnp.asarray(Xs)),
    ("torch", torch, torch.tensor(Xs)),
]:
    out = f_vec(arr, xp)
    gap = np.abs(to_numpy(out) - looped).max()
    print(
        f"{name:>5}: {tuple(Xs.shape)} -> {tuple(out.shape)}, "
        f"max |vectorised - loop| = {gap:.1e}"
    )
print(f"alice_lab.testfuncs.alice2d agrees: {np.abs(f2(Xs) - looped).max():.1e}")
verify("C2-62")

# %% [markdown]
# A fine grid search locates the extremes inside the square: the lowest value,
# about $-1.7602$, sits near $(4.41, 6.28)$ (note $x_2 \approx 2\pi$), and the highest,
# about $+1.7602$, near $(1.87, 0)$.

# %%
n_grid = 401 if FAST else 1001
side_g = np.linspace(0, 10, n_grid)
G1, G2 = np.meshgrid(side_g, side_g)
F = f2(np.stack([G1, G2], axis=-1))
i_min, i_max = (
    np.unravel_index(F.argmin(), F.shape),
    np.unravel_index(F.argmax(), F.shape),
)
print(
    f"min f = {F[i_min]:.4f} at ({G1[i_min]:.2f}, {G2[i_min]:.2f}); "
    f"max f = {F[i_max]:.4f} at ({G1[i_max]:.2f}, {G2[i_max]:.2f})"
)
verify("C2-61")

# %% [markdown]
# **Step 2: the gradient by hand** (automatic differentiation comes in Chapter 6):
#
# $$\partial_{x_1} f = \cos x_1 \cos x_2 + \tfrac12 \cos\tfrac{x_1}{2} \cos\tfrac{x_2}{2},
# \qquad
# \partial_{x_2} f = -\sin x_1 \sin x_2 - \tfrac12 \sin\tfrac{x_1}{2} \sin\tfrac{x_2}{2} .$$
#
# As a preview of what is coming, we check it against finite differences and against the
# gradients that JAX (`jax.grad`) and PyTorch (`torch.autograd`) compute by themselves.


# %%
def grad_vec(X, xp):
    """Hand-written gradient of f_vec: X ~ (n, 2) -> (n, 2)."""
    x1, x2 = X[:, 0], X[:, 1]
    d1 = xp.cos(x1) * xp.cos(x2) + 0.5 * xp.cos(0.5 * x1) * xp.cos(0.5 * x2)
    d2 = -xp.sin(x1) * xp.sin(x2) - 0.5 * xp.sin(0.5 * x1) * xp.sin(0.5 * x2)
    return xp.stack([d1, d2], axis=1)


G_hand = grad_vec(Xs, np)
G_fd = calculus.grad_fd_batched(lambda Z: f_vec(Z, np), Xs)
# rows do not interact: d sum / dX_i = grad f(X_i)
G_jax = jax.grad(lambda Z: f_vec(Z, jnp).sum())(jnp.asarray(Xs))
Xt_req = torch.tensor(Xs, requires_grad=True)
f_vec(Xt_req, torch).sum().backward()
print(f"max |hand - finite differences| = {np.abs(G_hand - G_fd).max():.1e}")
jax_gap = np.abs(G_hand - np.asarray(G_jax)).max()
torch_gap = np.abs(G_hand - Xt_req.grad.numpy()).max()
print(f"max |hand - jax.grad|           = {jax_gap:.1e}")
print(f"max |hand - torch.autograd|     = {torch_gap:.1e}")
verify("C2-60")

# %% [markdown]
# **Step 3: gradient descent from many starts.** `alice_lab.optim.gradient_descent`
# accepts a batch of starting points $(k, 2)$ when the gradient is vectorised, so one
# call runs all of them. We start from a $10 \times 10$ grid ($5 \times 5$ in the quick
# test mode) with $\eta = 0.1$. Gradient descent knows nothing of the square: a few paths
# leave it on their way to a minimum outside.

# %%
k_side = 5 if FAST else 10
steps = 150 if FAST else 1000
side = np.linspace(0.5, 9.5, k_side)
starts = np.stack(np.meshgrid(side, side), axis=-1).reshape(-1, 2)  # (k, 2)
runs = {
    lam_: optim.gradient_descent(
        lambda Z: grad_vec(Z, np), starts, lr=0.1, momentum=lam_, steps=steps
    )
    for lam_ in (0.0, 0.3, 0.9)
}
left = (~((runs[0.0].path >= 0) & (runs[0.0].path <= 10)).all(axis=(0, 2))).sum()
print(f"{len(starts)} starts, {steps} steps: {left} plain-GD paths leave [0, 10]^2")

wide = np.linspace(-1, 11, 241)
W1, W2 = np.meshgrid(wide, wide)
FW = f2(np.stack([W1, W2], axis=-1))
fig, axes = plt.subplots(1, 2, figsize=(11, 5))
for ax, lam_ in zip(axes, (0.0, 0.9), strict=True):
    cs = ax.contourf(W1, W2, FW, levels=30, cmap="viridis")
    ax.plot([0, 10, 10, 0, 0], [0, 0, 10, 10, 0], "w--", lw=0.8)
    for path in runs[lam_].path.transpose(1, 0, 2):
        ax.plot(path[:, 0], path[:, 1], "-", color="white", lw=0.9, alpha=0.9)
    ax.plot(starts[:, 0], starts[:, 1], "o", color="white", mec="k", ms=4)
    ax.plot(runs[lam_].x[:, 0], runs[lam_].x[:, 1], "*", color="tab:red", mec="k", ms=9)
    ax.set_xlim(-1, 11)
    ax.set_ylim(-1, 11)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(f"{'plain GD' if lam_ == 0 else 'momentum'}: η = 0.1, λ = {lam_}")
fig.colorbar(cs, ax=axes, shrink=0.8, label="f(x)")
fig.suptitle(
    "Paths of gradient descent on the exercise function "
    "(starts: white, ends: red, dashed: the square [0, 10]²)"
)
plt.show()

# %% [markdown]
# **Step 4: momentum and the gradient norm.** Near a stationary point the gradient norm
# must go to zero. The semilog plot shows its median over all starts (the band spans the
# 10th to 90th percentiles) for $\lambda \in \{0, 0.3, 0.9\}$. With this fairly large
# step, $\lambda = 0.3$ converges fastest and $\lambda = 0.9$ overshoots and oscillates
# before settling.

# %%
fig, ax = plt.subplots(figsize=(6, 3.6))
for lam_, color in zip(
    (0.0, 0.3, 0.9), ("tab:blue", "tab:orange", "tab:green"), strict=True
):
    norms = runs[lam_].grad_norms  # (steps + 1, k)
    lo, med, hi = np.percentile(norms, [10, 50, 90], axis=1)
    ax.semilogy(med, color=color, label=f"λ = {lam_}")
    ax.fill_between(
        np.arange(len(med)), np.maximum(lo, 1e-17), hi, color=color, alpha=0.15
    )
    print(f"lambda = {lam_}: median ||grad f|| after {steps} steps = {med[-1]:.1e}")
ax.set_xlabel("iteration t")
ax.set_ylabel(r"$\|\nabla f(\mathbf{x}_t)\|$")
ax.set_ylim(1e-17, 10)
ax.set_title("Gradient norm along gradient descent (η = 0.1)")
ax.legend()
plt.show()

# %% [markdown]
# **The same in JAX and PyTorch.** `gradient_descent` is written once against the
# Python array API, so handing it JAX or PyTorch arrays runs the loop in that library.
# The three trajectories agree to rounding (all in float64).

# %%
steps_b = 60 if FAST else 300
ref = optim.gradient_descent(
    lambda Z: grad_vec(Z, np), starts, lr=0.1, momentum=0.3, steps=steps_b
)
grad_jax = jax.jit(lambda Z: grad_vec(Z, jnp))
run_jax = optim.gradient_descent(
    grad_jax, jnp.asarray(starts), lr=0.1, momentum=0.3, steps=steps_b
)
run_pt = optim.gradient_descent(
    lambda Z: grad_vec(Z, torch),
    torch.tensor(starts, device=DEVICE),
    lr=0.1,
    momentum=0.3,
    steps=steps_b,
)
diff_jax = np.abs(to_numpy(run_jax.path) - ref.path).max()
diff_pt = np.abs(to_numpy(run_pt.path) - ref.path).max()
print(
    f"paths {ref.path.shape}: max |JAX - NumPy| = {diff_jax:.1e}, "
    f"max |torch - NumPy| = {diff_pt:.1e}"
)
assert diff_jax < 1e-9 and diff_pt < 1e-9, "the three backends disagree"

# %% [markdown]
# **vmap.** Instead of vectorising by hand, JAX and PyTorch can vectorise a function
# written for a *single* point $\mathbf{x} \sim (2)$: `vmap` maps it over a leading
# batch axis. Both give back the vectorised function of step 1.


# %%
def f_single(x, xp):
    """The exercise function for one point: x ~ (2) -> ()."""
    return xp.sin(x[0]) * xp.cos(x[1]) + xp.sin(0.5 * x[0]) * xp.cos(0.5 * x[1])


v_jax = jax.vmap(lambda x: f_single(x, jnp))(jnp.asarray(Xs))
v_pt = torch.func.vmap(lambda x: f_single(x, torch))(torch.tensor(Xs))
gap_jax = np.abs(np.asarray(v_jax) - f_vec(Xs, np)).max()
gap_pt = np.abs(v_pt.numpy() - f_vec(Xs, np)).max()
print(f"jax.vmap:        {tuple(v_jax.shape)}, max |vmap - vectorised| = {gap_jax:.1e}")
print(f"torch.func.vmap: {tuple(v_pt.shape)}, max |vmap - vectorised| = {gap_pt:.1e}")
verify("C2-63")

# %% [markdown]
# In JAX `vmap` composes with everything else, so we can write the whole optimiser for
# *one* starting point, with `jax.grad` of the single-point function, a momentum buffer
# and `jax.lax.scan` for the loop, and let `vmap` run it for every start at once (`jit`
# compiles the result). It reproduces the paths above.


# %%
def gd_one(x0, lr, lam, steps):
    """Momentum gradient descent from one start x0 ~ (2); returns the path, shape
    (steps + 1, 2)."""
    grad_one = jax.grad(lambda x: f_single(x, jnp))

    def step(carry, _):
        x, g = carry
        g = -lr * grad_one(x) + lam * g
        return (x + g, g), x + g

    _, xs_ = jax.lax.scan(step, (x0, jnp.zeros_like(x0)), None, length=steps)
    return jnp.concatenate([x0[None], xs_])


gd_all = jax.jit(jax.vmap(gd_one, in_axes=(0, None, None, None)), static_argnums=3)
paths_vmap = gd_all(jnp.asarray(starts), 0.1, 0.3, steps_b)  # (k, steps + 1, 2)
diff_vmap = np.abs(np.asarray(paths_vmap).transpose(1, 0, 2) - ref.path).max()
print(
    f"vmap(scan(GD)) paths {paths_vmap.shape}: "
    f"max |difference to NumPy| = {diff_vmap:.1e}"
)
assert diff_vmap < 1e-9

# %% [markdown]
# ### Explore: momentum on the exercise function
#
# The widget below runs gradient descent with momentum from a start of your choice, with
# sliders for the step size $\eta$, the momentum $\lambda$, the number of steps and the
# start; it draws the path on the contour of $f$ and the gradient norm. It needs a
# running Python kernel: **run this notebook in Colab or JupyterLab to use the live
# version**. On the website the animation after it replays fixed runs (plain GD and
# $\lambda = 0.9$) with its own slider.

# %% tags=["remove-output"]
# NBVAL_SKIP
gd_momentum.live_view(lr=0.1, momentum=0.3, steps=100, start=(2.0, 2.0))

# %%
gd_momentum.static_view(max_frames=15 if FAST else 60)

# %% [markdown]
# ## Summary
#
# * Tensors are arrays with a shape; watch broadcasting, which can silently turn a sum
#   of two vectors into a matrix.
# * The dot product, matrix product, Hadamard product, reductions and einsum are the
#   operations everything later is built from; the naive matrix product is cubic, and
#   libraries make the same work thousands of times faster.
# * Gradients collect partial derivatives, give every directional derivative, and stack
#   into Jacobians whose shapes can explode; products with Jacobians do not.
# * Gradient descent follows $-\nabla f$ with a step that must be small enough; it
#   reaches a stationary point, a global minimum when $f$ is convex; momentum often
#   speeds it up at the cost of one extra buffer.

# %% [markdown]
# ### Claims not checked here, and why
#
# - **C2-21** (§2.1.2, lines 446–452): the naive product is $\mathcal{O}(abc)$, cubic
#   for square matrices. The timing cell of "Computational complexity" shows the
#   log–log slope but asserts nothing: timings depend on the machine and its load, so
#   a check on them would fail at random. The exact count of $abc$ multiplications is
#   checked instead (C2-20).
# - **C2-22** (§2.1.2, line 454): the best known algorithms multiply $(n, n)$ matrices
#   in $\mathcal{O}(n^c)$ with $c < 2.4$ but are rarely used on GPUs. A result from the
#   literature, with a citation; nothing here could confirm or refute it.
# - **C2-23** (§2.1.2, footnote on line 454): the same `A @ B` is dispatched to a CPU,
#   GPU or TPU kernel. Checking it needs an accelerator, which the companion's tests
#   cannot assume; `alice-lab doctor` reports which devices a machine has.
# - **C2-24** (§2.1.2, line 456): $k$ processors give at most a $1/k$ speedup, so
#   parallelism does not change the asymptotic complexity. A conceptual point about
#   big-$\mathcal{O}$; measured speedups depend on the machine, as for C2-21.
