# %% [markdown]
# # Lab 13 — Recurrent models: RNNs, LSTMs and linear SSMs
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab13_recurrent.ipynb)
#
# *Accompanies Chapter 13 ("Recurrent models") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (book lines 6331–6849). The chapter
# has no "From theory to practice" section; this lab is the companion's (text CC BY-SA
# 4.0, code MIT).*
#
# You build the pieces of three sequence models in PyTorch and train each on a task
# generated in code: an Elman RNN forecasting a sine wave, an LSTM on the *adding
# problem* (a long-range memory task), and a diagonal linear SSM on a *delay* task,
# trained once as a recurrence and computed once as a parallel scan.
#
# | Exercise | What you write | It becomes |
# |---|---|---|
# | 13.1 | `rnn_forward(X, W_ih, W_hh, b)`: an Elman RNN unrolled over time | the sine forecaster |
# | 13.2 | `lstm_step(h, c, x, W_ih, W_hh, b)`: one LSTM step | checked against `nn.LSTMCell` |
# | 13.3 | `init_forget_bias(lstm, value)`: open the forget gates at initialisation | the adding-problem LSTM |
# | 13.4 | `diagonalize_ssm(A, B, C)`: the equivalent diagonal SSM | the SSM's parallel form |
# | 13.5 | `combine(earlier, later)`: one step of a parallel scan | the SSM's parallel form |
# | 13.6 | `adding_problem(batch, length, rng)`: the task's data | the adding-problem LSTM |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed. Shapes are batch first: a batch of sequences is
# `(batch, n, features)`.

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
import matplotlib.pyplot as plt
import numpy as np
import torch

from alice_course import grading
from alice_course.grading import attempted
from alice_lab.backend import is_fast
from alice_lab.recurrent import associative_scan, linear_recurrence

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer steps
torch.set_num_threads(1)  # the models are tiny: one thread avoids threading overhead
torch.manual_seed(0)
rng = np.random.default_rng(0)


# %% [markdown]
# ## Exercise 13.1 — An Elman RNN, unrolled
#
# The vanilla layer updates its state with
# $\mathbf{h}_i = \tanh(\mathbf{W}_{ih}\mathbf{x}_i + \mathbf{W}_{hh}\mathbf{h}_{i-1} +
# \mathbf{b})$, starting from $\mathbf{h}_0 = \mathbf{0}$ (book E.13.14, with PyTorch's
# names). Write the loop over time for a batch: `X` is `(b, n, c)`, `W_ih` is `(e, c)`,
# `W_hh` is `(e, e)`, `b` is `(e,)`; return all the states, `(b, n, e)`. The state must
# be **carried** from one step to the next. Use torch operations only, so that
# autograd can train through your function.


# %%
def rnn_forward(X, W_ih, W_hh, b):
    """X (b, n, c), W_ih (e, c), W_hh (e, e), b (e,) -> H (b, n, e)."""
    ### BEGIN SOLUTION
    h = torch.zeros(X.shape[0], W_hh.shape[0], dtype=X.dtype)
    states = []
    for i in range(X.shape[1]):
        h = torch.tanh(X[:, i] @ W_ih.T + h @ W_hh.T + b)
        states.append(h)
    return torch.stack(states, dim=1)
    ### END SOLUTION


# %%
grading.check("lab13.1", rnn_forward)

# %% [markdown]
# **Sine forecasting.** Your RNN, a linear readout and Adam learn to predict the next
# value of noisy sine waves with random phases and frequencies.


# %%
def sine_batch(batch, length, gen):
    t = np.arange(length + 1) * 0.2
    phase, freq = (
        gen.uniform(0, 2 * np.pi, (batch, 1)),
        gen.uniform(0.5, 1.5, (batch, 1)),
    )
    s = np.sin(freq * t + phase) + 0.05 * gen.standard_normal((batch, length + 1))
    return torch.tensor(s[:, :-1, None]), torch.tensor(s[:, 1:, None])


if attempted(
    rnn_forward,
    torch.zeros(1, 2, 1),
    torch.zeros(3, 1),
    torch.zeros(3, 3),
    torch.zeros(3),
):
    torch.manual_seed(0)
    e = 16
    params = [
        torch.nn.Parameter(0.3 * torch.randn(e, 1, dtype=torch.float64)),
        torch.nn.Parameter(0.3 * torch.randn(e, e, dtype=torch.float64)),
        torch.nn.Parameter(torch.zeros(e, dtype=torch.float64)),
        torch.nn.Parameter(0.3 * torch.randn(1, e, dtype=torch.float64)),
    ]
    opt = torch.optim.Adam(params, lr=0.02)
    gen = np.random.default_rng(1)
    losses = []
    for _step in range(80 if FAST else 600):
        X, Y = sine_batch(32, 30, gen)
        pred = rnn_forward(X, *params[:3]) @ params[3].T
        loss = torch.mean((pred - Y) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(
        f"RNN sine forecasting: MSE {np.mean(losses[:10]):.3f} -> {np.mean(losses[-10:]):.4f}"
    )
    plt.figure(figsize=(5, 3))
    plt.semilogy(losses)
    plt.xlabel("step")
    plt.ylabel("training MSE")
    plt.title("Elman RNN, next-value prediction of a sine")
    plt.show()

# %% [markdown]
# ## Exercise 13.2 — One LSTM step
#
# The LSTM keeps a second state, the *cell* $\mathbf{c}$, and three gates. With PyTorch's
# stacking of the four blocks of $\mathbf{g} = \mathbf{W}_{ih}\mathbf{x} +
# \mathbf{W}_{hh}\mathbf{h} + \mathbf{b}$ as $[\mathbf{i}, \mathbf{f}, \mathbf{g}, \mathbf{o}]$
# (input gate, forget gate, candidate, output gate, each of size $e$):
# $\mathbf{c}' = \sigma(\mathbf{f})\odot\mathbf{c} + \sigma(\mathbf{i})\odot\tanh(\mathbf{g})$,
# $\mathbf{h}' = \sigma(\mathbf{o})\odot\tanh(\mathbf{c}')$. Inputs are batched:
# `h, c` `(b, e)`, `x` `(b, c_in)`, `W_ih` `(4e, c_in)`, `W_hh` `(4e, e)`, `b` `(4e,)`.


# %%
def lstm_step(h, c, x, W_ih, W_hh, b):
    """One LSTM step -> (h_new, c_new), each (b, e)."""
    ### BEGIN SOLUTION
    e = h.shape[-1]
    g = x @ W_ih.T + h @ W_hh.T + b
    i, f = torch.sigmoid(g[:, :e]), torch.sigmoid(g[:, e : 2 * e])
    cand, o = torch.tanh(g[:, 2 * e : 3 * e]), torch.sigmoid(g[:, 3 * e :])
    c_new = f * c + i * cand
    return o * torch.tanh(c_new), c_new
    ### END SOLUTION


# %%
grading.check("lab13.2", lstm_step)

# %% [markdown]
# ## Exercise 13.3 — Open the forget gates
#
# At initialisation the forget gate sits near $\sigma(0) = 0.5$, so the cell halves at
# every step and long-range information fades. A standard trick sets the forget gate's
# bias to a positive value (1 or 2) so the cell starts out remembering. In an
# `nn.LSTM` the gate biases live in `bias_ih_l{k}` and `bias_hh_l{k}` (they are added),
# each of length $4e$ in the order $[\mathbf{i}, \mathbf{f}, \mathbf{g}, \mathbf{o}]$.
# Write `init_forget_bias(lstm, value)` so that, in **every layer**, the *total*
# forget-gate bias is `value`, leaving the other gates and all weights alone. Modify the
# module in place (inside `torch.no_grad()`) and return it.


# %%
def init_forget_bias(lstm, value=1.0):
    """Set the forget-gate bias (bias_ih + bias_hh, slice [e:2e]) of every layer."""
    ### BEGIN SOLUTION
    e = lstm.hidden_size
    with torch.no_grad():
        for name, p in lstm.named_parameters():
            if name.startswith("bias_ih"):
                p[e : 2 * e] = value
            elif name.startswith("bias_hh"):
                p[e : 2 * e] = 0.0
    return lstm
    ### END SOLUTION


# %%
grading.check("lab13.3", init_forget_bias)

# %% [markdown]
# ## Exercise 13.4 — The diagonal SSM
#
# A linear SSM $\mathbf{s}_i = \mathbf{A}\mathbf{s}_{i-1} + \mathbf{B}\mathbf{x}_i$,
# $\mathbf{y}_i = \mathbf{C}\mathbf{s}_i$ with a diagonalisable
# $\mathbf{A} = \mathbf{P}\mathbf{\Lambda}\mathbf{P}^{-1}$ has an equivalent diagonal form
# $\bar{\mathbf{s}}_i = \lambda\odot\bar{\mathbf{s}}_{i-1} + \bar{\mathbf{B}}\mathbf{x}_i$,
# $\mathbf{y}_i = \mathrm{Re}(\bar{\mathbf{C}}\bar{\mathbf{s}}_i)$ (book §13.3.3). Work out
# $\bar{\mathbf{B}}$ and $\bar{\mathbf{C}}$ from $\bar{\mathbf{s}} = \mathbf{P}^{-1}\mathbf{s}$
# (careful: the book prints one of them wrong) and return `(lam, B_bar, C_bar)` (NumPy,
# complex).


# %%
def diagonalize_ssm(A, B, C):
    """A (e, e), B (e, c), C (o, e) -> lam (e,), B_bar (e, c), C_bar (o, e)."""
    ### BEGIN SOLUTION
    lam, P = np.linalg.eig(A)
    return lam, np.linalg.solve(P, B), C @ P
    ### END SOLUTION


# %%
grading.check("lab13.4", diagonalize_ssm)

# %% [markdown]
# ## Exercise 13.5 — A parallel scan
#
# The diagonal recurrence $h_t = a_t h_{t-1} + b_t$ (elementwise) is a prefix scan of the
# pairs $(a_t, b_t)$: if `combine(earlier, later)` merges two consecutive stretches of the
# sequence into one, a tree of combines computes every $h_t$ in $\mathcal{O}(\log n)$
# parallel steps (book §13.3.2). Write `combine((a1, b1), (a2, b2))`, returning the pair
# that describes "apply stretch 1, then stretch 2". It must be **associative**, or the
# tree will not give the loop's answer (the check tries it on two different trees).


# %%
def combine(earlier, later):
    """(a1, b1), (a2, b2) -> (a, b) for h -> a2 (a1 h + b1) + b2."""
    ### BEGIN SOLUTION
    a1, b1 = earlier
    a2, b2 = later
    return a2 * a1, a2 * b1 + b2
    ### END SOLUTION


# %%
grading.check("lab13.5", combine)

# %% [markdown]
# ## Exercise 13.6 — The adding problem
#
# Each sequence has two channels: random values in $[0, 1)$, and a marker channel that
# is 1 at exactly **two** random positions and 0 elsewhere. The target is the sum of the
# two marked values. A model must remember a value seen long ago: a test of long-range
# memory. Return `X (batch, length, 2)` and `y (batch,)`, using the NumPy generator
# `rng` for all randomness.


# %%
def adding_problem(batch, length, rng):
    """-> X (batch, length, 2), y (batch,)."""
    ### BEGIN SOLUTION
    X = np.zeros((batch, length, 2))
    X[:, :, 0] = rng.uniform(0.0, 1.0, (batch, length))
    for k in range(batch):
        i, j = rng.choice(length, size=2, replace=False)
        X[k, [i, j], 1] = 1.0
    y = (X[:, :, 0] * X[:, :, 1]).sum(axis=1)
    return X, y
    ### END SOLUTION


# %%
grading.check("lab13.6", adding_problem)

# %% [markdown]
# ## Training an LSTM on the adding problem
#
# Always predicting the mean (1.0) gives a mean squared error of about 1/6 ≈ 0.167; a
# model that remembers the marked values does better. Your data generator and your
# forget-gate initialisation feed a PyTorch `nn.LSTM`. The short `ALICE_FAST` run
# (80 steps on sequences of 20) stops about where predicting the mean does; the full
# run trains for 1500 steps on sequences of 50.

# %%
if attempted(adding_problem, 2, 5, np.random.default_rng(0)) and attempted(
    init_forget_bias, torch.nn.LSTM(2, 2)
):
    torch.manual_seed(0)
    length = 20 if FAST else 50
    lstm = init_forget_bias(torch.nn.LSTM(2, 32, batch_first=True).double(), 1.0)
    head = torch.nn.Linear(32, 1).double()
    opt = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=0.01)
    gen = np.random.default_rng(2)
    losses = []
    for _step in range(80 if FAST else 1500):
        X, y = adding_problem(64, length, gen)
        out = head(lstm(torch.tensor(X))[0][:, -1]).squeeze(-1)
        loss = torch.mean((out - torch.tensor(y)) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(
        f"LSTM adding problem (n = {length}): MSE {np.mean(losses[:10]):.3f} -> "
        f"{np.mean(losses[-20:]):.3f} (predicting the mean: 0.167)"
    )

# %% [markdown]
# ## A diagonal linear SSM on a delay task
#
# The last model is a diagonal linear SSM with complex eigenvalues
# $\lambda = e^{-e^{\nu} + i\theta}$ (inside the unit circle by construction, the LRU
# parameterisation, which goes beyond the book) and a linear readout. It learns to
# output its input from `delay` steps ago. It is trained as a recurrence; afterwards
# your `diagonalize_ssm` and `combine` give the same outputs from a dense matrix and a
# parallel scan.


# %%
class DiagonalSSM(torch.nn.Module):
    def __init__(self, e=16, c=1, o=1):
        super().__init__()
        self.nu = torch.nn.Parameter(
            torch.log(torch.linspace(0.05, 1.0, e, dtype=torch.float64))
        )
        self.theta = torch.nn.Parameter(
            torch.linspace(0.0, np.pi, e, dtype=torch.float64)
        )
        self.B = torch.nn.Parameter(
            torch.randn(e, c, dtype=torch.complex128) / np.sqrt(c)
        )
        self.C = torch.nn.Parameter(
            torch.randn(o, e, dtype=torch.complex128) / np.sqrt(e)
        )

    def lam(self):
        return torch.exp(-torch.exp(self.nu) + 1j * self.theta)

    def forward(self, X):  # X (b, n, c) real -> (b, n, o) real
        lam, s, out = (
            self.lam(),
            torch.zeros(X.shape[0], self.B.shape[0], dtype=torch.complex128),
            [],
        )
        U = X.to(torch.complex128) @ self.B.T
        for i in range(X.shape[1]):
            s = lam * s + U[:, i]
            out.append((s @ self.C.T).real)
        return torch.stack(out, dim=1)


torch.manual_seed(0)
delay, length = 3, 30
ssm = DiagonalSSM()
opt = torch.optim.Adam(ssm.parameters(), lr=0.02)
gen = np.random.default_rng(3)
for _step in range(60 if FAST else 800):
    X = torch.tensor(gen.standard_normal((32, length, 1)))
    Y = torch.cat(
        [torch.zeros(32, delay, 1, dtype=torch.float64), X[:, :-delay]], dim=1
    )
    loss = torch.mean((ssm(X) - Y) ** 2)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"diagonal SSM, delay {delay}: final MSE {loss.item():.4f} (output 0: 1.0)")

# %% [markdown]
# Now the same layer three ways: the trained recurrence, a *dense* real SSM with the
# same behaviour turned back into diagonal form by your `diagonalize_ssm`, and a
# parallel scan with your `combine`.

# %%
if attempted(
    diagonalize_ssm, np.eye(2), np.ones((2, 1)), np.ones((1, 2))
) and attempted(combine, (1.0, 0.0), (1.0, 0.0)):
    with torch.no_grad():
        lam = ssm.lam().numpy()
        B, C = ssm.B.numpy(), ssm.C.numpy()
    # a dense system with the same outputs: add the conjugate pairs, change the basis
    Lam2 = np.concatenate([lam, lam.conj()])
    B2, C2 = (
        np.concatenate([B, B.conj()]) / np.sqrt(2),
        np.concatenate([C, C.conj()], 1) / np.sqrt(2),
    )
    T = np.random.default_rng(4).standard_normal((32, 32)) + 0j
    A_dense = T @ np.diag(Lam2) @ np.linalg.inv(T)
    B_dense, C_dense = T @ B2, C2 @ np.linalg.inv(T)
    lam_d, Bb, Cb = diagonalize_ssm(A_dense, B_dense, C_dense)
    X = gen.standard_normal((length, 1))
    y_rec = ssm(torch.tensor(X[None]))[0].detach().numpy()
    pre = associative_scan(
        combine, [(lam_d, Bb @ x) for x in X], check_associative=False
    )
    y_scan = np.array([(Cb @ p[1]).real for p in pre])
    y_loop = np.array([(Cb @ h).real for h in linear_recurrence(lam_d, X @ Bb.T)])
    print(
        "recurrence vs (dense → your diagonal form → your scan):",
        np.abs(y_rec - y_scan).max(),
    )
    print("your scan vs the sequential loop:", np.abs(y_scan - y_loop).max())
    plt.figure(figsize=(6, 3))
    plt.plot(X[:, 0], label="input", color="0.6")
    plt.plot(y_rec[:, 0], label="SSM output (recurrence)")
    plt.plot(y_scan[:, 0], "--", label="SSM output (your scan)")
    plt.xlabel("step")
    plt.title(f"diagonal SSM trained to delay its input by {delay}")
    plt.legend(fontsize=8)
    plt.show()

# %% [markdown]
# ## Your score

# %%
results = grading.report("lab13", globals())
