# %% [markdown]
# # Lab 2 — Gradient descent on a bumpy landscape
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab02_gradient_descent.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 2 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 1104–1160). The
# exercise is the book's; the text and code here are the companion's (text CC BY-SA 4.0,
# code MIT).*
#
# The book closes its chapter on tensors and gradients with one small task to repeat in
# three frameworks: take a two-dimensional function with several hills and valleys,
# write it and its gradient by hand, and watch gradient descent (with and without
# momentum) roll downhill from many starting points. This lab walks through it:
#
# | Exercise | What you write | Framework |
# |---|---|---|
# | 2.1 | `f(X)`: the function on a batch of points | NumPy |
# | 2.2 | `grad_f(X)`: its gradient, derived by hand | NumPy |
# | 2.3 | `gradient_descent(...)`: the path from many starts at once | NumPy |
# | 2.4 | `momentum_descent(...)`: the same with momentum | NumPy |
# | 2.5 | `f_single_jax(x)`: one point; `jax.vmap` batches it, `jax.grad` differentiates it | JAX |
# | 2.6 | `f_single_torch(x)`: the same for `torch.func.vmap` and autograd | PyTorch |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed; the cell after that uses your function, and until the
# exercises it needs are done it says "(skipped until Exercise 2.k is done)" instead, so
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
import matplotlib.pyplot as plt
import numpy as np

from alice_course import grading
from alice_course.grading import (
    attempted,  # False (and a note) while fn is still a stub
)
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) uses fewer starts and steps
rng = np.random.default_rng(0)

N_GRID = 4 if FAST else 10  # starting points per side of the grid
STEPS = 150 if FAST else 400  # gradient-descent iterations
LR = 0.1  # the step size eta


def draw_landscape(ax, f, n=150):
    """Filled contours of f on [0, 10]^2, darker where f is lower."""
    t = np.linspace(0.0, 10.0, n)
    X1, X2 = np.meshgrid(t, t)
    F = f(np.stack([X1.ravel(), X2.ravel()], axis=1)).reshape(X1.shape)
    cs = ax.contourf(X1, X2, F, levels=20, cmap="viridis")
    ax.set(xlim=(0, 10), ylim=(0, 10), xlabel="$x_1$", ylabel="$x_2$", aspect="equal")
    return cs


# %% [markdown]
# ## The landscape
#
# The function lives on the square $[0, 10]^2$:
#
# $$
# f(\mathbf{x}) = \sin(x_1)\cos(x_2) + \sin(0.5\,x_1)\cos(0.5\,x_2),
# \qquad \mathbf{x} = (x_1, x_2).
# $$
#
# Each term is a product of waves, one with period $2\pi$ and one twice as long, so the
# surface is a patchwork of bumps and dips: several local minima, several maxima and
# saddle points between them. That makes it a good playground for gradient descent,
# whose answer depends on where it starts.

# %% [markdown]
# ## Exercise 2.1 — A vectorised function
#
# Write `f(X)` for a **batch** of points: `X` has shape `(n, 2)`, one point per row,
# and the result has shape `(n,)` with `f(X)[i]` equal to $f$ at row `i`. Use whole
# columns (`X[:, 0]` is the vector of all first coordinates) and NumPy's element-wise
# `np.sin` and `np.cos`: no Python loop over the rows. Mind the shape of the answer: a
# `(n, 1)` column is not an `(n,)` vector.


# %%
def f(X):
    """X: (n, 2) array -> (n,) array of function values."""
    ### BEGIN SOLUTION
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(x1) * np.cos(x2) + np.sin(0.5 * x1) * np.cos(0.5 * x2)
    ### END SOLUTION


# %%
grading.check("lab02.1", f)

# %% [markdown]
# The vectorised version must agree with a plain loop over the rows, and it lets us draw
# the whole landscape from one call on a grid of 150 × 150 points.

# %%
X_test = rng.uniform(0.0, 10.0, size=(200, 2))  # test points, used again below
if attempted(f, X_test):
    values = f(X_test)
    looped = np.array([f(X_test[i : i + 1])[0] for i in range(len(X_test))])
    print("vectorised == row by row:", np.allclose(values, looped))

    fig, ax = plt.subplots(figsize=(5, 4.3))
    fig.colorbar(draw_landscape(ax, f), ax=ax, label="$f(x)$")
    ax.set_title("the landscape $f$ on $[0, 10]^2$")
    plt.show()

# %% [markdown]
# ## Exercise 2.2 — The gradient, by hand
#
# No automatic differentiation yet: derive the two partial derivatives on paper and
# code them. Two facts are enough: $\frac{d}{dz}\sin z = \cos z$ and
# $\frac{d}{dz}\cos z = -\sin z$, plus the chain rule for the inner $0.5\,x_i$, which
# brings out a factor $0.5$. Treat $x_2$ as a constant when differentiating in $x_1$,
# and the other way round.
#
# `grad_f(X)` takes `X` of shape `(n, 2)` and returns shape `(n, 2)`: row `i` is
# $\nabla f$ at row `i` of `X`. (`np.stack([a, b], axis=1)` puts two `(n,)` vectors side
# by side as columns.)


# %%
def grad_f(X):
    """X: (n, 2) array -> (n, 2) array, row i = gradient of f at X[i]."""
    ### BEGIN SOLUTION
    x1, x2 = X[:, 0], X[:, 1]
    d1 = np.cos(x1) * np.cos(x2) + 0.5 * np.cos(0.5 * x1) * np.cos(0.5 * x2)
    d2 = -np.sin(x1) * np.sin(x2) - 0.5 * np.sin(0.5 * x1) * np.sin(0.5 * x2)
    return np.stack([d1, d2], axis=1)
    ### END SOLUTION


# %%
grading.check("lab02.2", grad_f)

# %% [markdown]
# A derivation can be checked without knowing the answer: nudge one coordinate by a
# small $h$ in both directions and divide the change of $f$ by $2h$ (a *central
# difference*). The two should agree to about $h^2$.

# %%
if attempted(grad_f, X_test) and attempted(f, X_test):  # this demo needs both
    G = grad_f(X_test)
    h = 1e-5
    G_fd = np.stack(
        [(f(X_test + h * e) - f(X_test - h * e)) / (2 * h) for e in np.eye(2)], axis=1
    )
    print(
        "largest gap between grad_f and central differences: "
        f"{np.abs(G - G_fd).max():.1e}"
    )

    fig, ax = plt.subplots(figsize=(5, 4.3))
    draw_landscape(ax, f)
    Xq = np.meshgrid(np.linspace(0.5, 9.5, 12), np.linspace(0.5, 9.5, 12))
    Xq = np.stack(Xq, -1).reshape(-1, 2)
    Gq = -grad_f(Xq)
    ax.quiver(Xq[:, 0], Xq[:, 1], Gq[:, 0], Gq[:, 1], color="white")
    ax.set_title(r"$-\nabla f$: the arrows point downhill")
    plt.show()

# %% [markdown]
# ## Exercise 2.3 — Gradient descent from many starting points
#
# Gradient descent repeats $\mathbf{x}_t = \mathbf{x}_{t-1} - \eta\,\nabla
# f(\mathbf{x}_{t-1})$ with a fixed step size $\eta$ (`lr`). Because `grad_f` works on a
# batch, one loop can move **all** starting points together.
#
# Write `gradient_descent(grad_fn, X0, lr, steps)`: `X0` has shape `(n, 2)` and the
# result is the whole path, shape `(steps + 1, n, 2)`, with `X0` itself first. Two
# classic traps: `x -= ...` changes the array in place, so appending `x` to a list
# stores the same array over and over (and may even change the caller's `X0`); prefer
# `x = x - ...`, which makes a new array each step.


# %%
def gradient_descent(grad_fn, X0, lr, steps):
    """Plain gradient descent from every row of X0 (n, 2); returns (steps + 1, n, 2)."""
    ### BEGIN SOLUTION
    x = np.array(X0, dtype=float)
    path = [x]
    for _ in range(steps):
        x = x - lr * grad_fn(x)
        path.append(x)
    return np.stack(path)
    ### END SOLUTION


# %%
grading.check("lab02.3", gradient_descent)

# %% [markdown]
# Start from a regular grid of points and draw every path. Each run stops in the valley
# its start drains into, so the picture also shows the *basins of attraction*.
# Gradient descent knows nothing about the square, and a few runs walk out of it.

# %%
t0 = np.linspace(0.5, 9.5, N_GRID)
starts = np.stack(np.meshgrid(t0, t0), axis=-1).reshape(-1, 2)  # (N_GRID**2, 2)
# gradient_descent calls your grad_f, and the picture draws your f
if attempted(gradient_descent, grad_f, starts.copy(), LR, 1) and attempted(f, starts):
    path = gradient_descent(grad_f, starts, lr=LR, steps=STEPS)  # (STEPS + 1, n, 2)

    fig, ax = plt.subplots(figsize=(5, 4.3))
    draw_landscape(ax, f)
    ax.plot(path[:, :, 0], path[:, :, 1], color="tab:red", lw=1)
    ax.plot(starts[:, 0], starts[:, 1], "o", color="white", mec="k", ms=4)
    ax.plot(path[-1, :, 0], path[-1, :, 1], "*", color="tab:red", mec="k", ms=10)
    ax.set_title(f"{len(starts)} runs of gradient descent, η = {LR}")
    plt.show()

    ends = np.unique(path[-1].round(2), axis=0)
    outside = np.any((path[-1] < 0) | (path[-1] > 10), axis=1).sum()
    print(f"{len(ends)} different end points; {outside} runs ended outside [0, 10]^2")

# %% [markdown]
# ## Exercise 2.4 — Momentum, and watching the gradient vanish
#
# Momentum keeps a running *velocity* $\mathbf{g}_t$ and adds it to the point:
#
# $$
# \mathbf{g}_t = -\eta\,\nabla f(\mathbf{x}_{t-1}) + \lambda\,\mathbf{g}_{t-1},
# \qquad \mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t,
# \qquad \mathbf{g}_0 = \mathbf{0},
# $$
#
# with $\lambda \in [0, 1)$ (`momentum`). Unrolling the recursion, each step is a sum of
# all past gradients, the one from $n$ steps ago weighted by $\lambda^{n-1}$: the run
# keeps some speed through flat stretches and damps zig-zags. With $\lambda = 0$ it is
# exactly Exercise 2.3.
#
# Write `momentum_descent(grad_fn, X0, lr, momentum, steps)` with the same input and
# output shapes as `gradient_descent`.


# %%
def momentum_descent(grad_fn, X0, lr, momentum, steps):
    """Gradient descent with momentum from every row of X0 (n, 2); (steps + 1, n, 2)."""
    ### BEGIN SOLUTION
    x = np.array(X0, dtype=float)
    g = np.zeros_like(x)
    path = [x]
    for _ in range(steps):
        g = -lr * grad_fn(x) + momentum * g
        x = x + g
        path.append(x)
    return np.stack(path)
    ### END SOLUTION


# %%
grading.check("lab02.4", momentum_descent)

# %% [markdown]
# Near a stationary point the gradient goes to zero, so its norm
# $\lVert\nabla f(\mathbf{x}_t)\rVert$ is a good progress meter. The plot shows its
# median over all starts, on a log scale, for three values of $\lambda$, and counts the
# iterations until the median falls below $10^{-6}$. Momentum does not always win: with
# this fairly large step, $\lambda = 0.9$ overshoots and circles before settling.

# %%
if attempted(momentum_descent, grad_f, starts.copy(), LR, 0.3, 1) and attempted(
    f, starts
):
    runs = {
        lam: momentum_descent(grad_f, starts, lr=LR, momentum=lam, steps=STEPS)
        for lam in (0.0, 0.3, 0.9)
    }

    fig, (ax_paths, ax_norm) = plt.subplots(1, 2, figsize=(10, 4.3))
    draw_landscape(ax_paths, f)
    for (lam, path_m), color in zip(
        runs.items(), ["tab:red", "tab:orange", "white"], strict=True
    ):
        norms = np.linalg.norm(grad_f(path_m.reshape(-1, 2)), axis=1)
        norms = norms.reshape(path_m.shape[:2])  # (STEPS + 1, n)
        median = np.median(norms, axis=1)
        below = np.flatnonzero(median < 1e-6)
        when = (
            f"after {below[0]} iterations"
            if below.size
            else f"not within {STEPS} steps"
        )
        print(f"λ = {lam}: median gradient norm below 1e-6 {when}")
        ax_norm.semilogy(
            median, color=color if lam < 0.9 else "tab:blue", label=f"λ = {lam}"
        )
        ax_paths.plot(path_m[:, 0, 0], path_m[:, 0, 1], color=color, lw=1.5)
    ax_paths.set_title("one start, three momenta")
    ax_norm.set(
        xlabel="iteration t",
        ylabel=r"median $\Vert\nabla f(x_t)\Vert$",
        title=f"gradient norm over {len(starts)} starts, η = {LR}",
    )
    ax_norm.legend()
    plt.show()

# %% [markdown]
# ## Exercise 2.5 — The same in JAX, with vmap
#
# JAX copies NumPy's interface (`jax.numpy`, usually imported as `jnp`) and adds
# transformations of functions. Two of them change how you write the exercise:
#
# - `jax.vmap(g)` turns a function of **one** point into a function of a batch, so you
#   no longer slice columns by hand;
# - `jax.grad(g)` returns the gradient of a scalar function: automatic differentiation,
#   which the book explains in Chapter 6. Here it checks your hand-derived `grad_f`.
#
# Write `f_single_jax(x)` for a single point `x` of shape `(2,)`, returning a scalar,
# with `jnp` functions (NumPy's cannot see inside JAX's traced arrays). We turn on
# 64-bit floats so that JAX's numbers can be compared with NumPy's to many digits.

# %%
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


def f_single_jax(x):
    """x: (2,) array -> scalar f(x), written with jax.numpy."""
    ### BEGIN SOLUTION
    x1, x2 = x[0], x[1]
    return jnp.sin(x1) * jnp.cos(x2) + jnp.sin(0.5 * x1) * jnp.cos(0.5 * x2)
    ### END SOLUTION


# %%
grading.check("lab02.5", f_single_jax)

# %% [markdown]
# With `vmap`, gradient descent can also be written for one start and then mapped over
# all of them. Below, one run is a `jax.lax.scan` (a loop JAX compiles as a whole)
# and `jax.vmap` runs it from every start at once; the paths match your NumPy ones.

# %%
# the comparisons below use your NumPy f, grad_f and momentum_descent too
if (
    attempted(f_single_jax, jnp.zeros(2))
    and attempted(f, X_test)
    and attempted(grad_f, X_test)
    and attempted(momentum_descent, grad_f, starts.copy(), LR, 0.9, 1)
):
    f_batch_jax = jax.vmap(f_single_jax)  # (n, 2) -> (n,)
    grad_batch_jax = jax.vmap(jax.grad(f_single_jax))  # (n, 2) -> (n, 2)
    print("vmap(f_single_jax) == f:   ", np.allclose(f_batch_jax(X_test), f(X_test)))
    print(
        "vmap(grad(f_single_jax)) == grad_f:",
        np.allclose(grad_batch_jax(X_test), grad_f(X_test)),
    )

    def descend_one(x0, lr, lam, steps):
        """Momentum descent from one start x0 (2,) -> path (steps + 1, 2)."""
        grad = jax.grad(f_single_jax)

        def step(carry, _):
            x, g = carry
            g = -lr * grad(x) + lam * g
            return (x + g, g), x + g

        _, xs = jax.lax.scan(step, (x0, jnp.zeros_like(x0)), length=steps)
        return jnp.concatenate([x0[None], xs])

    descend_all = jax.jit(
        jax.vmap(descend_one, in_axes=(0, None, None, None)), static_argnums=3
    )
    paths_jax = descend_all(jnp.asarray(starts), LR, 0.9, STEPS)  # (n, STEPS + 1, 2)
    paths_np = momentum_descent(grad_f, starts, lr=LR, momentum=0.9, steps=STEPS)
    print(
        "vmapped JAX paths == NumPy paths:",
        np.allclose(np.asarray(paths_jax), paths_np.transpose(1, 0, 2)),
    )

# %% [markdown]
# ## Exercise 2.6 — The same in PyTorch
#
# PyTorch also mirrors NumPy, with a few renamings (`torch.tensor`, `dim=` next to
# `axis=`). Its `torch.func` module offers the same `vmap` and `grad` transformations
# as JAX, and its classic interface computes gradients with `backward()` or
# `torch.autograd.grad` on tensors that record their history (`requires_grad=True`).
#
# Write `f_single_torch(x)` for one point `x`, a tensor of shape `(2,)`, returning a
# 0-dimensional tensor, with `torch` functions only.

# %%
import torch


def f_single_torch(x):
    """x: (2,) tensor -> 0-d tensor f(x), written with torch functions."""
    ### BEGIN SOLUTION
    x1, x2 = x[0], x[1]
    return torch.sin(x1) * torch.cos(x2) + torch.sin(0.5 * x1) * torch.cos(0.5 * x2)
    ### END SOLUTION


# %%
grading.check("lab02.6", f_single_torch)

# %% [markdown]
# Now gradient descent with momentum in PyTorch, with the gradient from autograd
# instead of a formula. Summing $f$ over the batch gives a scalar whose gradient with
# respect to row $i$ is exactly $\nabla f$ at that row (the rows do not interact), so
# one `torch.autograd.grad` call returns all the gradients at once.

# %%
# the comparisons below use your NumPy f, grad_f and momentum_descent too
if (
    attempted(f_single_torch, torch.zeros(2))
    and attempted(f, X_test)
    and attempted(grad_f, X_test)
    and attempted(momentum_descent, grad_f, starts.copy(), LR, 0.9, 1)
):
    f_batch_torch = torch.func.vmap(f_single_torch)  # (n, 2) -> (n,)
    X_t = torch.as_tensor(X_test)  # float64, like the NumPy array
    print(
        "vmap(f_single_torch) == f:", np.allclose(f_batch_torch(X_t).numpy(), f(X_test))
    )

    x = torch.as_tensor(starts).clone().requires_grad_(True)
    g = torch.zeros_like(x)
    path_t = [x.detach().clone()]
    for _ in range(STEPS):
        (grad,) = torch.autograd.grad(f_batch_torch(x).sum(), x)
        with torch.no_grad():
            g = -LR * grad + 0.9 * g
            x = (x + g).requires_grad_(True)
        path_t.append(x.detach().clone())
    path_t = torch.stack(path_t)  # (STEPS + 1, n, 2)
    paths_np = momentum_descent(grad_f, starts, lr=LR, momentum=0.9, steps=STEPS)
    print("autograd paths == NumPy paths:", np.allclose(path_t.numpy(), paths_np))

# %% [markdown]
# ## Your score, and a widget to play with
#
# The cell below runs every check of this lab again and adds up the points.

# %%
results = grading.report("lab02", globals())

# %% [markdown]
# The companion's own implementation (`alice_lab.optim.gradient_descent`) drives an
# interactive view: move the sliders for the step size, the momentum, the number of
# steps and the start, and watch the path and the gradient norm change. Things to try:
# a tiny step size with and without momentum; $\lambda$ close to 1; a start right on a
# ridge between two valleys.

# %%
from alice_course.widgets.ch02_gd_momentum import live_view

live_view(lr=LR, momentum=0.3, steps=100, start=(2.0, 2.0))
