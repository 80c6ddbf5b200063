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
# # 13. Recurrent models
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch13_recurrent_models.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 13 ("Recurrent models") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# Attention compares every token with every other one: quadratic time, and a cache
# that grows with the sequence. This chapter goes the other way, to layers that carry a
# **fixed-size state** from token to token:
#
# * linearised attention, whose causal form *is* a recurrence (§13.1);
# * classical recurrent layers, backpropagation through time and gating (§13.2);
# * linear state-space models, which can be run as a recurrence, as one long
#   convolution or as a **parallel scan**, and their diagonal form (§13.3);
# * attention-free transformers, RWKV and selective SSMs (§13.4).
#
# Everything is in `alice_lab.recurrent` (NumPy reference code; the attention and cell
# functions also run on torch and JAX arrays) and is checked against `torch.nn`,
# `jax.lax`, SciPy and finite differences. `alice_course.claims.verify` shows a `✓` block
# per checked statement with its place in the book; boxes marked **Erratum** correct
# slips in the text.

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

from alice_course.claims import verify
from alice_course.widgets import (
    ch13_recurrent_vs_parallel as recurrent_vs_parallel,
    ch13_scan_tree as scan_tree,
    ch13_ssm_kernel as ssm_kernel,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import recurrent as R

describe_figures()  # each figure's output also says in words what it shows

# float64 so that JAX matches NumPy digit for digit
jax.config.update("jax_enable_x64", True)
FAST = alice_lab.backend.is_fast()  # ALICE_FAST=1 (set by the tests) shrinks the runs
rng = np.random.default_rng(0)
torch.manual_seed(0)

# %% [markdown]
# ## 13.1 Linearized attention models
#
# ### 13.1.1 Replacing the dot product
#
# Write attention with a generic similarity $\alpha$ (E.13.1):
# $\mathbf{h}_i = \sum_j \alpha(\mathbf{q}_i, \mathbf{k}_j)\mathbf{v}_j / \sum_j
# \alpha(\mathbf{q}_i, \mathbf{k}_j)$. With $\alpha(\mathbf{x}, \mathbf{y}) =
# \exp(\mathbf{x}^\top\mathbf{y})$ this is the softmax attention of Chapter 10 (without
# the $1/\sqrt{k}$). Any non-negative $\alpha$ gives valid weights; choosing
# $\alpha(\mathbf{x}, \mathbf{y}) = \phi(\mathbf{x})^\top\phi(\mathbf{y})$ (E.13.2) lets us
# move $\phi(\mathbf{q}_i)$ out of the sums (E.13.3), so the two sums over $j$ are
# computed once for all queries.

# %%
n, c, v = 10, 4, 3
Q, K, V = (
    rng.standard_normal((n, c)),
    rng.standard_normal((n, c)),
    rng.standard_normal((n, v)),
)
H_exp = R.kernel_attention(Q, K, V)  # α = exp(qᵀk)
H_torch = torch.nn.functional.scaled_dot_product_attention(
    *(torch.as_tensor(M) for M in (Q, K, V)), scale=1.0
).numpy()
print("exp kernel vs torch softmax attention:", np.abs(H_exp - H_torch).max())
print("ELU+1 at -50, 0, 3:", R.elu_plus_one(np.array([-50.0, 0.0, 3.0])))
x, y = rng.standard_normal(4), rng.standard_normal(4)
print(
    "quadratic features: φ(x)ᵀφ(y) =",
    R.quadratic_features(x) @ R.quadratic_features(y),
    " (xᵀy)² =",
    (x @ y) ** 2,
)
verify("C13-01", "C13-02", "C13-03", "C13-04")

# %% [markdown]
# The factored form costs $\mathcal{O}(n(e^2 + ev))$ with $e$ features after $\phi$,
# linear in $n$; softmax attention costs $\mathcal{O}(n^2(e + v))$. The figure counts
# multiply-adds for both.
#
# ```{admonition} Erratum (E13-01, §13.1.1; book text line 6357)
# :class: warning
# The book says the linear form is "advantageous whenever $n < e^2$". The comparison
# runs the other way: the linear form wins for **long** sequences. With $v = e$,
# $n(e^2 + ev) < n^2(e + v)$ exactly when $n > e$; for $n < e$ softmax attention is the
# cheaper one.
# ```

# %%
e_feat = 16
ns = np.arange(1, 65)
plt.figure(figsize=(5.5, 3.2))
plt.plot(ns, ns * (e_feat**2 + e_feat * e_feat), label="linearised: n(e² + ev)")
plt.plot(ns, ns**2 * (2 * e_feat), label="softmax: n²(e + v)")
plt.axvline(e_feat, color="0.5", ls=":", label="n = e")
plt.xlabel("sequence length n")
plt.ylabel("multiply-adds")
plt.title("cost of attention, e = v = 16")
plt.legend()
plt.show()
verify("C13-05", "E13-01")

# %% [markdown]
# ### 13.1.2 A recurrent formulation
#
# In the causal case the sums stop at $i$ (E.13.4). They can be kept as running
# totals, a matrix $\mathbf{S}_i = \mathbf{S}_{i-1} + \phi(\mathbf{k}_i)\mathbf{v}_i^\top$
# and a vector $\mathbf{z}_i = \mathbf{z}_{i-1} + \phi(\mathbf{k}_i)$, both starting at zero
# (E.13.5-E.13.8), and $\mathbf{h}_i = \phi(\mathbf{q}_i)^\top\mathbf{S}_i /
# \phi(\mathbf{q}_i)^\top\mathbf{z}_i$ (E.13.9). The memory has the same size at every
# step: a recurrent layer. Both forms, on the same inputs, on NumPy, torch and JAX
# arrays:

# %%
for name, to in (
    ("numpy", np.asarray),
    ("torch", torch.as_tensor),
    ("jax", jax.numpy.asarray),
):
    Qb, Kb, Vb = (to(M) for M in (Q, K, V))
    par = np.asarray(R.causal_linear_attention_parallel(Qb, Kb, Vb))
    rec = np.asarray(R.causal_linear_attention_recurrent(Qb, Kb, Vb))
    print(f"{name:5s}: parallel vs recurrent {np.abs(par - rec).max():.1e}")
_, (S_n, z_n) = R.causal_linear_attention_recurrent(Q, K, V, return_state=True)
print("state after", n, "tokens:", S_n.shape, z_n.shape)
verify("C13-06")

# %% [markdown]
# The widget steps through the tokens: the memory $\mathbf{S}_i$, the normaliser
# $\mathbf{z}_i$, the gap between the two outputs, and how many numbers each approach
# keeps (constant for linear attention, growing for a KV cache).

# %% tags=["remove-output"]
# NBVAL_SKIP
recurrent_vs_parallel.live_view()

# %%
recurrent_vs_parallel.static_view(n=12 if FAST else 24)

# %% [markdown]
# ## 13.2 Classical recurrent layers
#
# ### 13.2.1 General formulation
#
# A recurrent layer is a pair of functions, a state update
# $\mathbf{s}_i = f(\mathbf{s}_{i-1}, \mathbf{x}_i)$ (E.13.10) and a readout
# $\mathbf{h}_i = g(\mathbf{s}_i, \mathbf{x}_i)$ (E.13.11), with $\mathbf{s}_0 = \mathbf{0}$.
# The layer is causal by construction and works for any length. Reading the sequence
# in both directions with two independent layers and concatenating gives a
# *bidirectional* layer with $2o$ outputs; stacking layers gives a deep RNN. The
# figure is Figure F.13.1 of the book (a recurrent layer) made concrete: a small Elman
# layer reads a noisy sine and its state evolves token by token.

# %%
A_e = 0.9 * np.linalg.qr(rng.standard_normal((6, 6)))[0]  # orthogonal, scaled: stable
B_e = rng.standard_normal((6, 1))
t = np.linspace(0, 4 * np.pi, 60)
x_sine = (np.sin(t) + 0.1 * rng.standard_normal(60))[:, None]
_, S_sine = R.elman_rnn(x_sine, A_e, B_e)
fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(7, 4), sharex=True)
ax0.plot(x_sine[:, 0], color="tab:blue")
ax0.set(
    ylabel="input x_i", title="a recurrent layer reads a sequence one token at a time"
)
ax1.imshow(S_sine.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
ax1.set(xlabel="token i", ylabel="state s_i (6 features)")
plt.show()
verify("C13-07", "C13-08")

# %% [markdown]
# ### 13.2.2 "Vanilla" recurrent layers
#
# The Elman layer uses $f(\mathbf{s}, \mathbf{x}) = \phi(\mathbf{A}\mathbf{s} +
# \mathbf{B}\mathbf{x})$ and $g(\mathbf{s}, \mathbf{x}) = \mathbf{C}\mathbf{s} +
# \mathbf{D}\mathbf{x}$ (E.13.14-E.13.15). The book's code box runs `nn.RNNCell` in a
# Python loop over time (the loop cannot be vectorised: each state needs the previous
# one). Our NumPy cell with the torch cell's weights gives the same states; PyTorch's
# cell adds two bias vectors, which we pass as one.

# %%
batch, length, features, state_size = 2, 12, 3, 5
x_box = torch.randn(batch, length, features)
cell = torch.nn.RNNCell(features, state_size)
s = torch.zeros(batch, state_size)
states = []
for i in range(length):  # the book's loop
    s = cell(x_box[:, i, :], s)
    states.append(s)
p = R.params_from_torch(cell)
S_np, _ = R.rnn(x_box.numpy().astype(float), p)
print(
    "NumPy unrolled cell vs torch loop (float32):",
    np.abs(S_np - torch.stack(states, 1).detach().numpy()).max(),
)
verify("C13-09", "C13-11")

# %% [markdown]
# ```{admonition} Note (line 6415)
# :class: note
# The book refers to "Box ." without a number, and its equation numbering jumps from
# E.13.11 to E.13.14 (there is no E.13.12 or E.13.13). The box meant is the `RNNCell`
# loop above.
# ```
#
# **Echo state networks** keep A and B random and train only a linear readout. With a
# spectral radius below 1 the reservoir forgets its initial state; a ridge regression
# on the states predicts the next value of a sine.

# %%
A_r, B_r = R.esn_reservoir(60, 1, spectral_radius=0.8, seed=1)
t = np.arange(500) * 0.1
u_in, target = np.sin(t)[:, None], np.sin(t + 0.1)[:, None]
S_r = R.esn_states(u_in, A_r, B_r)
W_out = R.esn_fit_readout(S_r[100:400], target[100:400])
pred = np.hstack([S_r, np.ones((500, 1))]) @ W_out
print(
    "test RMSE of the readout:",
    float(np.sqrt(np.mean((pred[400:] - target[400:]) ** 2))),
)
verify("C13-10")

# %% [markdown]
# **Backpropagation through time.** Unrolled, the layer is an $n$-layer network whose
# layers share $\mathbf{A}$; the gradient is the sum of the gradients of untied copies.
# With $\mathbf{J}_j = \partial_{\mathbf{s}_{j-1}} f$ and
# $\widetilde{\mathbf{s}}_i = \mathbf{J}_n\cdots\mathbf{J}_{i+1}$,
# $\partial_\mathbf{A}\mathbf{s}_n = \sum_i \widetilde{\mathbf{s}}_i\,\partial_\mathbf{A}
# f(\mathbf{s}_{i-1}, \mathbf{x}_i)$ (line 6461). `R.bptt_weight_jacobian` computes this
# sum; finite differences and torch agree.

# %%
from alice_lab.calculus import jacobian_fd

A_b, B_b, X_b = (
    0.8 * rng.standard_normal((3, 3)),
    rng.standard_normal((3, 2)),
    rng.standard_normal((6, 2)),
)
J_bptt = R.bptt_weight_jacobian(A_b, B_b, X_b)
J_fd = jacobian_fd(lambda A_: R.rnn_forward(A_, B_b, X_b)[0][-1], A_b)
print(
    "∂A s_n", J_bptt.shape, "BPTT vs central differences:", np.abs(J_bptt - J_fd).max()
)
verify("C13-12", "C13-13")

# %% [markdown]
# The products $\widetilde{\mathbf{s}}_i$ multiply $n - i$ Jacobians: they shrink or
# grow geometrically with the spectral radius $\rho$ of $\mathbf{A}$ (Figure F.13.2
# of the book draws that backward pass). Truncated BPTT keeps only the last K terms; clipping caps the
# gradient's norm.

# %%
n_b = 60
plt.figure(figsize=(5.5, 3.4))
for rho in (0.5, 0.9, 1.0, 1.1, 1.5):
    A_rho = rho * np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)))[0]
    P = R.bptt_products(A_rho, np.ones((4, 1)), np.zeros((n_b, 1)), phi="linear")
    plt.semilogy(
        np.arange(1, n_b + 1), [np.linalg.norm(Pi, 2) for Pi in P], label=f"ρ = {rho}"
    )
plt.xlabel("step i")
plt.ylabel("‖s̃_i‖₂")
plt.title("vanishing and exploding products (linear RNN, n = 60)")
plt.legend(fontsize=8)
plt.show()
verify("C13-14", "C13-15")

# %% [markdown]
# ### 13.2.3 Gated recurrent networks
#
# A gate $\gamma = \sigma(\mathbf{V}\mathbf{s} + \mathbf{U}\mathbf{x})$ decides, feature
# by feature, how much of the new value to take:
# $f = \gamma\odot\phi(\mathbf{A}\mathbf{s} + \mathbf{B}\mathbf{x}) + (1 - \gamma)\odot
# \mathbf{s}$ (the light GRU, line 6509). A closed gate copies the state and its
# Jacobian is the identity, so gradients pass unchanged.
#
# ```{admonition} Erratum (E13-02, §13.2.3; book text line 6503)
# :class: warning
# The book writes "$\gamma_1 \approx 1$" where it means $\gamma_i \approx 1$: each
# feature $i$ of the state has its own gate.
# ```

# %%
A_g, B_g, V_g, U_g = (
    rng.standard_normal(sh) for sh in ((3, 3), (3, 2), (3, 3), (3, 2))
)
s_g, x_g = rng.uniform(-1, 1, 3), rng.standard_normal(2)
print(
    "gate bias -20 (closed):",
    R.li_gru_cell(s_g, x_g, A_g, B_g, V_g, U_g, gate_bias=-20.0),
    "state:",
    s_g,
)
print(
    "per-feature gates (open, closed, open):",
    R.li_gru_cell(
        s_g, x_g, A_g, B_g, V_g, U_g, gate_bias=np.array([20.0, -20.0, 20.0])
    ),
)
verify("C13-16", "E13-02", "C13-17")

# %% [markdown]
# The book names the GRU and the LSTM without their equations; `R.gru_cell` and
# `R.lstm_cell` follow PyTorch's definitions and reproduce `nn.GRU` and `nn.LSTM` with
# copied weights (tested in `tests/test_recurrent.py`):

# %%
for kind, fn in (("GRU", R.gru), ("LSTM", R.lstm)):
    layer = getattr(torch.nn, kind)(3, 4, batch_first=True).double()
    X_t = rng.standard_normal((2, 9, 3))
    ours = fn(X_t, R.params_from_torch(layer))[0]
    theirs = layer(torch.as_tensor(X_t))[0].detach().numpy()
    print(f"{kind}: ours vs torch.nn.{kind}: {np.abs(ours - theirs).max():.1e}")

# %% [markdown]
# ## 13.3 Structured state space models
#
# ### 13.3.1 Linear recurrent layers
#
# Drop the non-linearity: $\mathbf{s}_i = \mathbf{A}\mathbf{s}_{i-1} + \mathbf{B}\mathbf{x}_i$,
# $\mathbf{y}_i = \mathbf{C}\mathbf{s}_i + \mathbf{D}\mathbf{x}_i$, a *state space model*.
# It is linear in its input, and unrolling it gives
# $\mathbf{s}_i = \sum_{j\le i}\mathbf{A}^{i-j}\mathbf{B}\mathbf{x}_j$: a causal
# convolution with a kernel $K = (\mathbf{A}^{n-1}\mathbf{B}, \ldots, \mathbf{A}\mathbf{B},
# \mathbf{B})$ as long as the sequence. Recurrence, closed form and convolution agree:

# %%
e_s, c_s, o_s, n_s = 4, 2, 3, 40
A_s = rng.standard_normal((e_s, e_s))
A_s *= 0.9 / np.max(np.abs(np.linalg.eigvals(A_s)))
B_s, C_s, D_s = (
    rng.standard_normal((e_s, c_s)),
    rng.standard_normal((o_s, e_s)),
    rng.standard_normal((o_s, c_s)),
)
X_s = rng.standard_normal((n_s, c_s))
Y_s, S_s = R.linear_ssm(X_s, A_s, B_s, C_s, D_s)
K_s = R.ssm_kernel(A_s, B_s, n_s)
print("kernel K:", K_s.shape)
print(
    "closed form vs recurrence:", np.abs(R.ssm_closed_form(X_s, A_s, B_s) - S_s).max()
)
print("long convolution vs recurrence:", np.abs(R.ssm_conv(X_s, K_s) - S_s).max())
verify("C13-18", "C13-19", "C13-20")

# %% [markdown]
# Continuous-time SSMs (S4, S5, cited by the book) start from
# $\dot{\mathbf{s}} = \mathbf{A}\mathbf{s} + \mathbf{B}\mathbf{x}$ and *discretise* it with a
# step $\Delta$. `R.discretize` implements zero-order hold, bilinear and Euler rules;
# they match `scipy.signal.cont2discrete`:

# %%
from scipy.signal import cont2discrete

Ac = A_s - 2 * np.eye(e_s)
for method in ("zoh", "bilinear"):
    Ad, Bd = R.discretize(Ac, B_s, 0.1, method)
    ref = cont2discrete((Ac, B_s, C_s, D_s), 0.1, method=method)
    gap = max(np.abs(Ad - ref[0]).max(), np.abs(Bd - ref[1]).max())
    print(f"{method:8s}: vs SciPy {gap:.1e}")

# %% [markdown]
# ### 13.3.2 An interlude: associative scans
#
# For an associative $\star$, all prefixes $x_1, x_1\star x_2, \ldots$ can be computed
# on a tree: combine neighbours, recurse on the pairs, fill in the gaps. On six
# elements that is 7 applications of $\star$ instead of 5, but in 3 parallel levels
# instead of 5. The SSM is such a scan: with elements $(\mathbf{A}, \mathbf{B}\mathbf{x}_i)$
# and $(\mathbf{Z}, \mathbf{z})\star(\mathbf{V}, \mathbf{v}) = (\mathbf{V}\mathbf{Z},
# \mathbf{V}\mathbf{z} + \mathbf{v})$ the prefixes are $(\mathbf{A}^i, \mathbf{s}_i)$.

# %%
out, trace = R.associative_scan(
    lambda a, b: a + b, [1, 2, 3, 4, 5, 6], return_trace=True
)
print("prefix sums:", out, f"— {trace.work} ops in {trace.depth} levels")
for k, level in enumerate(trace.levels, 1):
    print(
        f"  level {k}:",
        ", ".join(
            f"x{o.left[0]}..{o.left[1]} ⋆ x{o.right[0]}..{o.right[1]}" for o in level
        ),
    )
S_scan, P_scan = R.ssm_scan(X_s, A_s, B_s, return_powers=True)
print(
    "SSM by scan vs recurrence:",
    np.abs(S_scan - S_s).max(),
    "| prefix 5's matrix vs A⁵:",
    np.abs(P_scan[4] - np.linalg.matrix_power(A_s, 5)).max(),
)
a_j, b_j = np.full((n_s, 3), 0.9), X_s @ rng.standard_normal((2, 3))
h_assoc = np.asarray(R.jax_linear_recurrence(a_j, b_j, method="associative"))
h_loop = np.asarray(R.jax_linear_recurrence(a_j, b_j, method="scan"))
print("jax.lax.associative_scan vs jax.lax.scan:", np.abs(h_assoc - h_loop).max())
verify("C13-21", "C13-22", "C13-23", "C13-24")

# %% [markdown]
# The operator must be associative: subtraction is not, and a tree computes something
# other than the loop, so `associative_scan` refuses it:

# %%
try:
    R.associative_scan(lambda a, b: a - b, [1.0, 2.0, 3.0, 4.0])
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# Figure F.13.3 of the book draws a parallel scan on six elements; the widget draws
# the tree for the three schedules as $n$ grows.

# %% tags=["remove-output"]
# NBVAL_SKIP
scan_tree.live_view()

# %%
scan_tree.static_view(ns=(2, 4, 6, 9, 16) if FAST else (2, 3, 4, 6, 8, 11, 16, 23, 32))

# %% [markdown]
# ```{admonition} Erratum (E13-03, §13.3.2; book text line 6651)
# :class: warning
# The book gives the cost of a $\star$ with a dense $\mathbf{A}$ as
# $\mathcal{O}(n^3)$; the $n$ there is the **state size** $e$ (a product of two
# $e \times e$ matrices), not the sequence length $n$ used everywhere else in the
# chapter: $\mathcal{O}(e^3)$ per operation, whatever the length.
# ```

# %%
from torch.utils.flop_counter import FlopCounterMode


def dense_pair(e):
    return torch.randn(e, e, dtype=torch.float64), torch.randn(e, dtype=torch.float64)


for e in (4, 8, 16):
    with FlopCounterMode(display=False) as counter:
        R.ssm_op(dense_pair(e), dense_pair(e))  # (A^{i-1}, s) ⋆ (A, x): two products
    print(f"dense ⋆, state size e = {e:2d}: {counter.get_total_flops():5,} FLOPs")
print("(2(e³ + e²): ×8 per doubling of e; the ⋆ never sees the sequence length n)")
lam_diag = np.full((20, 6), 0.9)
powers_diag, _ = R.jax_associative_scan(
    R.linear_recurrence_op, (lam_diag, np.ones((20, 6)))
)
print(
    "diagonal A: the scan keeps the powers λ^i as",
    f"{tuple(powers_diag.shape)} = (n, e);",
    f"λ^20 = {float(powers_diag[-1, 0]):.5f}, 0.9^20 = {0.9**20:.5f}",
)
verify("E13-03", "C13-25")

# %% [markdown]
# ### 13.3.3 Diagonal SSMs
#
# If $\mathbf{A} = \mathbf{P}\mathbf{\Lambda}\mathbf{P}^{-1}$, powers are cheap,
# $\mathbf{A}^i = \mathbf{P}\mathbf{\Lambda}^i\mathbf{P}^{-1}$, and in the coordinates
# $\bar{\mathbf{s}} = \mathbf{P}^{-1}\mathbf{s}$ the layer becomes diagonal:
# $\bar{\mathbf{s}}_i = \mathbf{\Lambda}\bar{\mathbf{s}}_{i-1} + \bar{\mathbf{B}}\mathbf{x}_i$,
# $\mathbf{y}_i = \bar{\mathbf{C}}\bar{\mathbf{s}}_i + \mathbf{D}\mathbf{x}_i$ with
# $\bar{\mathbf{C}} = \mathbf{C}\mathbf{P}$. Eigenvalues of a real matrix come in
# complex pairs; the outputs are real (we take the real part of round-off).
#
# ```{admonition} Erratum (E13-04, §13.3.3, E.13.22, E.13.23; book text lines 6679–6709)
# :class: warning
# The book writes the new input matrix as $\bar{\mathbf{B}} = \mathbf{P}\mathbf{B}$.
# Multiplying $\mathbf{s}_i = \sum_j \mathbf{P}\mathbf{\Lambda}^{i-j}\mathbf{P}^{-1}
# \mathbf{B}\mathbf{x}_j$ on the left by $\mathbf{P}^{-1}$ gives
# $\bar{\mathbf{B}} = \mathbf{P}^{-1}\mathbf{B}$. With the printed $\mathbf{P}\mathbf{B}$
# the outputs are wrong (below).
# ```

# %%
lam, Bbar, Cbar = R.diagonalize_ssm(A_s, B_s, C_s)
_, P_s, _ = R.diagonalize(A_s)
print("eigenvalues:", np.round(lam, 3))
for method in ("recurrent", "scan", "conv"):
    Y_d = R.diagonal_ssm(X_s, lam, Bbar, Cbar, D_s, method=method)
    print(
        f"diagonal SSM ({method:9s}) with P⁻¹B vs original: "
        f"{np.abs(Y_d - Y_s).max():.1e}"
    )
print(
    "with the printed PB:",
    np.abs(R.diagonal_ssm(X_s, lam, P_s @ B_s, Cbar, D_s) - Y_s).max(),
)
verify("C13-26", "E13-04", "C13-27", "C13-28")

# %% [markdown]
# The eigenvalues must stay inside the unit circle, or the state explodes; a matrix
# that cannot be diagonalised (a Jordan block) gives a numerically useless $\mathbf{P}$.
# The widget moves one complex pair $\lambda = re^{\pm i\theta}$ and shows the kernel
# $\mathrm{Re}(\lambda^k)$ and the state under a constant input.

# %%
ones_600 = np.ones((600, 1))
for radius in (1.05, 0.99):
    states = R.diagonal_ssm(
        ones_600, np.array([radius * np.exp(0.3j)]), np.ones((1, 1))
    )
    print(
        f"|λ| = {radius}: largest |state| in 600 steps {np.abs(states).max():.3g}"
        + (f" (bound 1/(1 − |λ|) = {1 / (1 - radius):.0f})" if radius < 1 else "")
    )
_, P_jordan, _ = R.diagonalize(np.array([[1.0, 1.0], [0.0, 1.0]]))
print(f"a Jordan block [[1, 1], [0, 1]]: cond(P) = {np.linalg.cond(P_jordan):.1e}")
verify("C13-29")

# %% tags=["remove-output"]
# NBVAL_SKIP
ssm_kernel.live_view()

# %%
ssm_kernel.static_view(radii=[0.5, 0.8, 0.95, 1.02] if FAST else None)

# %% [markdown]
# ## 13.4 Additional variants
#
# ### 13.4.1 Attention-free transformers
#
# The AFT replaces the query-key product by a per-channel softmax over the keys, gated
# by $\sigma(\mathbf{q}_i)$: $\mathbf{h}_i = \sigma(\mathbf{q}_i)\odot\sum_j
# \exp(\mathbf{k}_j)\odot\mathbf{v}_j / \sum_j\exp(\mathbf{k}_j)$. Without position
# biases the context is one vector shared by all tokens; with biases $W_{ij}$ (a
# $(m, m)$ matrix for lengths up to $m$) each token gets its own, and a $-\infty$ above
# the diagonal makes it causal.
#
# The book's claim of a cost linear in both $n$ and $e$ is made for the plain layer,
# whose context is shared by all tokens; the relative embeddings, added afterwards for
# flexibility, give each token its own context and $n^2 e$ work. (The paper abbreviates
# the layer AFT; the book writes "ATF".)
#
# ```{admonition} Erratum (E13-06, §13.4.1; book text line 6749)
# :class: warning
# In the per-channel formula the value belongs **inside** the sum:
# $h_{iz} = \sigma(q_{iz})\sum_j \exp(k_{jz})v_{jz} / \sum_j \exp(k_{jz})$.
# ```

# %%
Qa, Ka, Va = (rng.standard_normal((8, 3)) for _ in range(3))
ctx = R.aft(Qa, Ka, Va) / (1 / (1 + np.exp(-Qa)))
print("AFT-simple: rows of H/σ(Q) identical:", np.allclose(ctx, ctx[0]))
print(
    "AFT with W = 0 equals AFT-simple:",
    np.allclose(R.aft(Qa, Ka, Va, np.zeros((8, 8))), R.aft(Qa, Ka, Va)),
)
W_rel = -np.abs(np.subtract.outer(np.arange(8), np.arange(8)))  # decays with distance
ctx_w = R.aft(Qa, Ka, Va, W_rel) / (1 / (1 + np.exp(-Qa)))
print("AFT with this W: rows of H/σ(Q) identical:", np.allclose(ctx_w, ctx_w[0]))
verify("C13-30", "C13-40", "C13-31", "E13-06", "C13-32")

# %% [markdown]
# ### 13.4.2 The Receptance Weighted Key Value (RWKV) model
#
# RWKV fixes the biases to a decay, $w_{ij} = -(i - j)\mathbf{w}$ for earlier tokens, with
# a bonus $\mathbf{u}$ for the current one, and is causal. The sums then update in
# place: two vectors per channel, $\mathbf{a}_{i+1} = e^{-\mathbf{w}}\odot(\mathbf{a}_i +
# e^{\mathbf{k}_i}\odot\mathbf{v}_i)$ and the same without $\mathbf{v}$. Carrying a running
# maximum exponent keeps large keys from overflowing. The channel mix is a squared-ReLU
# MLP with a sigmoid gate, and a token shift mixes each token with the previous one.

# %%
Rr, Kr, Vr = (rng.standard_normal((12, 4)) for _ in range(3))
w_d, u_b = rng.uniform(0, 1, 4), rng.standard_normal(4)
par = R.rwkv_time_mix(Rr, Kr, Vr, w_d, u_b)
for form in ("recurrent", "stable"):
    seq = R.rwkv_time_mix(Rr, Kr, Vr, w_d, u_b, form=form)
    print(f"RWKV {form} vs parallel: {np.abs(seq - par).max():.1e}")
big = R.rwkv_time_mix(Rr, Kr + 800, Vr, w_d, u_b, form="stable")
print("keys + 800, stable form still equal:", np.abs(big - par).max())
verify("C13-33", "C13-34", "C13-35")

# %% [markdown]
# ### 13.4.3 Selective state space models
#
# Linear attention without its denominator is an SSM with $\mathbf{A} = \mathbf{I}$,
# $\mathbf{B}_i = \phi(\mathbf{k}_i)$ and $\mathbf{C}_i = \phi(\mathbf{q}_i)$: matrices that
# depend on the input. Selective SSMs (Mamba) make that the design: per channel, a
# diagonal decay $\exp(\Delta_i\bar{\mathbf{A}})$ with $\bar{\mathbf{A}} < 0$ and
# $\Delta_i = \mathrm{softplus}(\cdot) > 0$, so every decay lies in $(0, 1)$. There is no
# fixed kernel any more, but the recurrence is still a scan over time-varying pairs.
# The Mamba block around it (input projection, depthwise convolution, SSM, a gated
# branch, output projection; Figure F.13.4 of the book) is drawn below.

# %%
n_m, c_m, e_m = 40, 2, 4
X_m = rng.standard_normal((n_m, c_m))
args = (
    -np.exp(rng.standard_normal((c_m, e_m))),
    rng.standard_normal((e_m, c_m)),
    rng.standard_normal((e_m, c_m)),
    rng.standard_normal((c_m, c_m)),
    np.zeros(c_m),
)
H_m, decay = R.selective_ssm(X_m, *args, return_decay=True)
print(
    "selective SSM, scan vs loop:",
    np.abs(R.selective_ssm(X_m, *args, method="scan") - H_m).max(),
)
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3))
ax0.plot(decay[:, 0, :])
ax0.set(
    xlabel="token i", ylabel="exp(Δ_i Ā)", title="input-dependent decays (channel 1)"
)
ax1.set_axis_off()
boxes = [
    ("input proj.", (0.08, 0.45)),
    ("depthwise conv", (0.3, 0.78)),
    ("selective SSM", (0.68, 0.78)),
    ("σ gate", (0.45, 0.15)),
    ("⊙ → output proj.", (0.86, 0.45)),
]
for k, (label, xy) in enumerate(boxes):
    ax1.text(
        *xy,
        label,
        ha="center",
        va="center",
        fontsize=8,
        bbox={"boxstyle": "round", "fc": f"C{k}", "alpha": 0.3},
    )
for a, b in [
    ((0.1, 0.52), (0.24, 0.72)),
    ((0.43, 0.78), (0.55, 0.78)),
    ((0.74, 0.71), (0.84, 0.52)),
    ((0.1, 0.38), (0.38, 0.18)),
    ((0.52, 0.18), (0.82, 0.38)),
]:
    ax1.annotate("", xy=b, xytext=a, arrowprops={"arrowstyle": "->"})
ax1.set_title("Mamba block (no residual or normalisation)")
plt.show()
verify("C13-36", "C13-37", "C13-38", "C13-39")

# %% [markdown]
# ## Goodbye (for now)
#
# The book closes here, with a reminder that the field moves fast and that every
# component seen so far (differentiable primitives, attention, convolutions, recurrences
# and their parallel forms) can be recombined. Nothing to compute: the labs
# (`labs/lab13_recurrent.py` trains an RNN, an LSTM and a linear SSM on generated
# sequence tasks) are the place to keep going.
#
# ## Summary
#
# * Linear attention with a positive feature map is both a masked matrix product and a
#   recurrence with an $(e, v)$ memory; it is cheaper than softmax attention once
#   $n > e$ (not $n < e^2$).
# * A vanilla RNN is an $n$-layer network with shared weights; BPTT's products of
#   Jacobians vanish or explode with the spectral radius; gates help by copying state.
# * A linear SSM is at once a recurrence, a long convolution and an associative scan
#   ($\mathcal{O}(\log n)$ depth); diagonalising it needs $\bar{\mathbf{B}} =
#   \mathbf{P}^{-1}\mathbf{B}$ and $|\lambda| < 1$.
# * AFT, RWKV and selective SSMs trade attention's flexibility for constant-size state;
#   input-dependent coefficients keep the scan but lose the convolution.
#
# **Claims and notes not registered.** Every checkable claim of the digest for this
# chapter (39, plus C13-40 on AFT's relative embeddings) and five errata are verified
# above. The digest's sixth erratum on AFT (its cost) misread which formula the book
# calls linear and is now claim C13-40. Four remarks have nothing to compute and appear
# as notes only: the missing box number on line 6415 and the absent E.13.12-E.13.13,
# the acronym "ATF" for AFT, and the stray ’ after the Mamba figure reference (line
# 6837). The
# digest's claim 11 (the time loop cannot be parallelised) is checked as a dependency
# (every $\partial\mathbf{s}_i/\partial\mathbf{s}_{i-1} \neq 0$); wall-clock timings are in
# `benchmarks/bench_scan.py` and are never asserted.
