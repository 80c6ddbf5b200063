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
# # 3. Datasets and losses
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/ch03_datasets_losses.ipynb) · runs as is, no set-up needed
#
# *Companion to Chapter 3 ("Datasets and losses") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# Chapter 3 sets up supervised learning: what a **dataset** is and what it assumes
# (§3.1), how a **loss** turns "approximate this behaviour" into an optimisation problem
# and why minimising the loss on the data is not the real goal (§3.2), how losses follow
# from **maximum likelihood** once the model outputs a probability distribution
# (§3.2.2–3.2.3), and how **Bayesian learning** keeps a whole distribution over models
# instead of one (§3.3). The chapter has no code boxes and no exercises; every checkable
# statement is computed below and verified by `alice_course.claims.verify`, which shows a
# `✓` block with the place in the book where it is made.
#
# A note on the equations: in the source text of this chapter several displayed
# equations (E.3.1, E.3.4, E.3.6, E.3.8–E.3.10, E.3.12) are garbled by their colour
# annotations. We write them out in their standard form; the two places where the
# printed formula is wrong (E.3.9, E.3.10) are marked **Erratum**.

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
from IPython.display import Markdown, display
from scipy import stats
from scipy.spatial.distance import cdist

from alice_course.claims import verify
from alice_course.widgets import (
    ch03_bayes_coin as bayes_coin,
    ch03_embedding as embedding,
    ch03_loss_margin as loss_margin,
    ch03_mc_risk as mc_risk,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import probability, risk
from alice_lab.backend import is_fast
from alice_lab.data import load_diabetes, make_blobs, train_test_split
from alice_lab.functional import softmax
from alice_lab.linear import linear_model
from alice_lab.losses import hinge, hinge_grad, margin, squared_loss, zero_one

describe_figures()  # each figure's output also says in words what it shows

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) shrinks grids, seeds and animations
rng = np.random.default_rng(0)
torch.manual_seed(0)

# %% [markdown]
# ## 3.1 What is a dataset?
#
# Supervised learning starts where writing the function by hand is hopeless (recognise
# objects in photos) but collecting examples of it is easy. A **supervised dataset** of
# size $n$ is a set of input–output pairs
# $\mathcal{S}_n = \{(x_i, y_i)\}_{i=1}^n$, and we assume each pair is an
# **independent and identically distributed (i.i.d.)** draw from one fixed but unknown
# distribution $p(x, y)$.
#
# The assumption carries the whole construction. *Identically distributed* means the
# thing we model does not change while we collect it; *independent* means the
# collection is not biased towards some part of the distribution. Below, `sample_linear`
# draws i.i.d. pairs $x \sim \mathcal{U}(-1, 1)$, $y = x + \varepsilon$. Two halves of
# such a sample look alike to a two-sample Kolmogorov–Smirnov test; two halves of a
# sample whose distribution drifts while it is being collected do not.

# %%
X_iid, y_iid = risk.sample_linear(4000, rng)
print(f"dataset: X {X_iid.shape}, y {y_iid.shape}")
p_iid = stats.ks_2samp(y_iid[:2000], y_iid[2000:]).pvalue
print(f"KS test, first vs second half of an i.i.d. sample: p = {p_iid:.3f}")
early = risk.sample_drifting(2000, 0.0, rng)
late = risk.sample_drifting(2000, 1.0, rng)
resid = [Xh[:, 0] - yh for Xh, yh in (early, late)]
p_drift = stats.ks_2samp(*resid).pvalue
print(f"KS test, early vs late half of a drifting sample: p = {p_drift:.1e}")
verify("C3-01")

# %% [markdown]
# The book's two examples of a broken assumption are photos of car models collected
# over decades (the distribution drifts: a model trained on old cars meets new ones) and
# photos collected next to one dealership (the collection over-represents one maker).
# `sample_drifting(n, t)` rotates the relation between $x$ and $y$ as the "time" $t$ goes
# from 0 to 1; `sample_biased(n, share)` draws from two groups with different
# input–output relations, with a share of group 1 that a biased collection gets wrong.
# A least-squares model fitted at $t = 0$ (by gradient descent on the empirical risk,
# `risk.erm_gd`) degrades steadily as $t$ moves on. The functions of `alice_lab.risk`
# take a loss of `alice_lab.losses` as it is (they ask it for per-sample values, its
# `reduction="none"`) and a model as a function of a batch of inputs.

# %%
X0, y0 = risk.sample_drifting(500, 0.0, rng)
w0 = risk.erm_gd(risk.squared_loss_grad, X0, y0, np.zeros(2), lr=0.2, steps=300).x
ts = np.linspace(0, 1, 11)
drift_risk = [
    float(
        risk.empirical_risk(
            squared_loss,
            lambda X: linear_model(X, w0),
            *risk.sample_drifting(4000, t, rng),
        )
    )
    for t in ts
]

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(ts, drift_risk, "o-")
ax.set(
    xlabel="deployment time t",
    ylabel="test risk (MSE)",
    title="a model fitted at t = 0, deployed later",
)
ax.grid(alpha=0.3)
plt.show()
verify("C3-02")

# %% [markdown]
# ### Figure F.3.1: embeddings
#
# Figure F.3.1 of the book makes a geometric point: a trained network transforms its
# input layer by layer, and its internal representations (an **embedding**) tend to
# place semantically similar inputs close together, which raw inputs do not. We can see
# this on the 8×8 handwritten digits that ship with scikit-learn. A small network
# ($64 \to 64 \to 32 \to 10$, ReLU, trained for 30 epochs on 1000 digits) gives two
# hidden representations of the 797 held-out digits. Projected to two dimensions with
# PCA, the classes overlap in pixel space and separate in the second hidden layer. The
# same shows in numbers: a Gaussian mixture with 10 components recovers the digit
# classes far better in the hidden layer (adjusted Rand index), while a 5-nearest-
# neighbour vote is already good on pixels and stays good.

# %%
run = embedding.train_digits_mlp()
Xtr_d, ytr_d, Xte_d, yte_d = embedding.digits_data()
W_final = run.at(30)
print(
    "test accuracy after each snapshot:",
    ", ".join(
        f"epoch {e}: {a:.3f}"
        for e, a in zip(run.epochs, run.test_accuracy, strict=True)
    ),
)

fig, axes = plt.subplots(1, 2, figsize=(9, 4))
for ax, layer, name in zip(axes, (0, 2), ("pixels", "hidden layer 2"), strict=True):
    P2 = embedding.pca_2d(embedding.hidden_features(W_final, Xte_d, layer))
    sc = ax.scatter(P2[:, 0], P2[:, 1], c=yte_d, cmap="tab10", s=6)
    ax.set(title=f"test digits in {name} (PCA)", xticks=[], yticks=[])
fig.colorbar(sc, ax=axes, label="digit", ticks=range(10))
plt.show()

rows = ["| space | 5-NN test accuracy | GMM clustering ARI |", "|---|---|---|"]
for layer, name in (
    (0, "pixels (64)"),
    (1, "hidden layer 1 (64)"),
    (2, "hidden layer 2 (32)"),
):
    Ftr, Fte = (embedding.hidden_features(W_final, Z, layer) for Z in (Xtr_d, Xte_d))
    knn = embedding.knn_accuracy(Ftr, ytr_d, Fte, yte_d)
    rows.append(f"| {name} | {knn:.3f} | {embedding.gmm_ari(Fte, yte_d):.3f} |")
display(Markdown("\n".join(rows)))
verify("C3-05")

# %% [markdown]
# **Explore.** Figure F.3.1 of the book sketches this idea (images embedded into a
# metric latent space); the widget shows it on the held-out digits, in the space of your
# choice (pixels, hidden layer 1, hidden layer 2) at any snapshot of training, with the
# nearest-neighbour accuracy in that space. At epoch 0 the hidden layers are random projections; the
# clusters form as the network trains. The live version needs a running kernel (Colab
# or JupyterLab); the animation after it replays training for the site.

# %% tags=["remove-output"]
# NBVAL_SKIP
embedding.live_view(space="hidden layer 2", epoch=30)

# %%
embedding.static_view(epochs=(0, 2, 30) if FAST else None)

# %% [markdown]
# ### 3.1.1 Variants of supervised learning
#
# Without targets $y_i$ the problem is **unsupervised**: clustering (as with the Gaussian
# mixture above) or **retrieval**, which returns the top-$k$ database items most similar
# to a query. On images, similarity between raw pixels is a poor guide: a change nobody
# would notice can move many pixels. Shifting every test digit one pixel to the right
# changes most of its 64 pixels, and in Euclidean distance the shifted copy lands
# farther from the original than the nearest image of a *different* digit, for almost
# every test digit.

# %%
shifted = embedding.shift_right(Xte_d)
d_self = np.linalg.norm(Xte_d - shifted, axis=1)
D = cdist(Xte_d, Xte_d)  # all pairwise Euclidean distances, (797, 797)
D[yte_d[:, None] == yte_d[None, :]] = np.inf
changed = np.mean(np.sum(shifted != Xte_d, axis=1))
farther = 100 * np.mean(d_self > D.min(axis=1))
print(f"pixels changed by a 1-pixel shift: {changed:.1f} of 64 on average")
print(
    f"shifted copy farther than the nearest other digit: {farther:.1f}% of test digits"
)

fig, axes = plt.subplots(1, 3, figsize=(6, 2.2))
j = int(np.argmax(d_self > D.min(axis=1)))
other = int(np.argmin(D[j]))
for ax, img, title in zip(
    axes,
    (Xte_d[j], shifted[j], Xte_d[other]),
    (f"a {yte_d[j]}", f"shifted {yte_d[j]}", f"nearest other: a {yte_d[other]}"),
    strict=True,
):
    ax.imshow(img.reshape(8, 8), cmap="gray_r")
    ax.set(title=title, xticks=[], yticks=[])
plt.show()
verify("C3-04")

# %% [markdown]
# Retrieval itself is a sort: score every database item against the query (here the
# cosine similarity) and keep the best $k$. `embedding.topk_similar` agrees with
# scikit-learn's nearest-neighbour search. Querying the training digits with a test
# digit, in pixel space and in the hidden space:

# %%
q = 3
fig, axes = plt.subplots(2, 6, figsize=(7, 2.8))
for row, layer, name in ((0, 0, "pixels"), (1, 2, "hidden 2")):
    db = embedding.hidden_features(W_final, Xtr_d, layer)
    hits = embedding.topk_similar(
        embedding.hidden_features(W_final, Xte_d[q : q + 1], layer)[0], db, 5
    )
    axes[row, 0].imshow(Xte_d[q].reshape(8, 8), cmap="gray_r")
    axes[row, 0].set_title(f"query ({name})", fontsize=8)
    for ax, h in zip(axes[row, 1:], hits, strict=True):
        ax.imshow(Xtr_d[h].reshape(8, 8), cmap="gray_r")
        ax.set_title(f"label {ytr_d[h]}", fontsize=8)
for ax in axes.flat:
    ax.set(xticks=[], yticks=[])
plt.show()
verify("C3-03")

# %% [markdown]
# **Figure F.3.2, as an analogy.** The book's figure compares three ways to use a
# pre-trained model on a new task: *zero-shot* (ask directly), *few-shot prompting*
# (put a few examples in the prompt) and *fine-tuning* (continue gradient descent on a
# small dataset). Prompting needs a large language model and cannot run offline; here is
# a small analogy on the digits, and it is only that. A network pre-trained on the
# digits 0–4 meets the new classes 5–9 with $k$ labelled examples each:
# *frozen embedding* classifies by the nearest class mean in its first hidden layer (no
# gradient step, the closest thing to using a frozen model with a few examples),
# *fine-tuning* trains a new head and every weight on the $k$ examples, *from scratch*
# trains the same network from random weights, and *pixels* is the nearest class mean
# on raw pixels.
#
# The outcome is instructive rather than flattering: on 8×8 digits, features learned
# for 0–4 are *worse* than raw pixels for 5–9, and fine-tuning has to undo part of the
# pre-training. An embedding is only as useful as its pre-training task is generic,
# which is exactly the book's condition ("some other task which we assume sufficiently
# generic").

# %%
curves = embedding.few_shot_curves(
    ks=(1, 5, 20) if FAST else (1, 2, 5, 10, 20),
    seeds=(0,) if FAST else (0, 1, 2),
    epochs_new=30 if FAST else 50,
)
fig, ax = plt.subplots(figsize=(5.5, 3.4))
for name, style in (
    ("frozen embedding", "o-"),
    ("fine-tuning", "s-"),
    ("from scratch", "^-"),
    ("pixels", "k--"),
):
    ax.plot(curves["k"], curves[name], style, label=name)
ax.axhline(0.2, color="0.6", lw=0.8, ls=":", label="chance")
ax.set(
    xscale="log",
    xlabel="labelled examples per new class k",
    ylabel="test accuracy on digits 5-9",
    title="few-shot analogy (not prompting)",
)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
plt.show()
assert (curves["frozen embedding"] < curves["pixels"]).all(), (
    "the text below the figure says so"
)
assert curves["fine-tuning"][-1] > curves["fine-tuning"][0], (
    "fine-tuning improves with more examples"
)

# %% [markdown]
# The section closes with a list of other settings (self-supervised learning,
# semi-supervised learning, domain adaptation, meta-, continual and metric learning,
# unlearning); they are names here and come back in later chapters.
#
# ## 3.2 Loss functions
#
# A **loss function** $l(y, \hat{y})$ scores a prediction $\hat{y} = f(x)$ against the
# target $y$ with one real number: lower is better,
# $l(y, \hat{y}_1) < l(y, \hat{y}_2)$ when $\hat{y}_1$ is the better prediction. Given a
# dataset, the natural objective is the average loss, the **empirical risk**, minimised
# over models (empirical risk minimisation, E.3.1):
#
# $$f^* = \arg\min_f \frac{1}{n}\sum_{i=1}^n l(y_i, f(x_i)).$$
#
# In practice the model has parameters $w$ and we search over them by gradient descent
# (E.3.2): $w^* = \arg\min_w \frac1n\sum_i l(y_i, f(x_i, w))$. For a linear model and
# the squared loss, gradient descent on E.3.2 lands on the least-squares solution (a
# preview of chapter 4).

# %%
Xr = rng.normal(size=(200, 3))
yr = Xr @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=200)
res = risk.erm_gd(risk.squared_loss_grad, Xr, yr, np.zeros(3), lr=0.2, steps=500)
print("w by gradient descent on the empirical risk:", np.round(res.x, 6))
print(
    "w by numpy.linalg.lstsq:                    ",
    np.round(np.linalg.lstsq(Xr, yr, rcond=None)[0], 6),
)
risk_at_w = risk.empirical_risk(squared_loss, lambda X: linear_model(X, res.x), Xr, yr)
print(f"empirical risk at w*: {float(risk_at_w):.5f}")
print(
    "squared loss of predictions approaching y = 1.5:",
    np.round(
        squared_loss(
            np.array([-1.0, 0.0, 1.0, 1.5]), np.full(4, 1.5), reduction="none"
        ),
        3,
    ),
)
verify("C3-06", "C3-07")

# %% [markdown]
# ### On the differentiability of the loss
#
# The loss must also be useful to gradient descent. Take binary classification with
# labels $y \in \{-1, +1\}$ and a real-valued model whose sign is the decision. The
# **0/1 loss** (E.3.3) is 0 when $\mathrm{sign}(\hat{y}) = y$ and 1 otherwise. It is what
# we mean by "being right", but it is piecewise constant: its gradient is zero wherever
# it exists, and gradient descent never leaves its starting point. (A prediction of
# exactly 0 has sign 0, which matches neither label: it counts as an error.)
#
# The **margin** $y\hat{y}$ is positive when the signs agree and varies continuously. The
# **hinge loss** $\max(0, 1 - y\hat{y})$, used to train support vector machines, is 0 once
# the margin reaches 1 and grows linearly below; it sits above the 0/1 loss everywhere.
# Its kink at margin 1 has no derivative; `losses.hinge_grad` uses the subgradient 0
# there. Training the same linear classifier with each loss on two Gaussian blobs:

# %%
Xb, yb01 = make_blobs(200, centers=2, cluster_std=1.5, seed=3)
yb = 2.0 * yb01 - 1.0  # labels in {-1, +1}
Ab = np.c_[Xb, np.ones(len(Xb))]  # a bias feature
w_init = np.array([1.0, 1.0, 0.0])
# 0/1: l' = 0
stuck = risk.erm_gd(lambda yh, y: 0.0 * yh, Ab, yb, w_init, lr=0.1, steps=200)
trained = risk.erm_gd(hinge_grad, Ab, yb, w_init, lr=0.1, steps=200)
for name, r in (("0/1 loss", stuck), ("hinge loss", trained)):
    error = np.mean(zero_one(Ab @ r.x, yb))
    print(f"{name:>10}: w = {np.round(r.x, 3)}, training error = {error:.3f}")

fig, ax = plt.subplots(figsize=(5, 4))
ax.scatter(Xb[:, 0], Xb[:, 1], c=yb, cmap="coolwarm", s=10)
xs = np.linspace(Xb[:, 0].min(), Xb[:, 0].max(), 2)
for r, style, name in (
    (stuck, "k--", "0/1 loss (never moves)"),
    (trained, "g-", "hinge loss"),
):
    w = r.x
    ax.plot(xs, -(w[0] * xs + w[2]) / w[1], style, label=name)
ax.set(
    ylim=(Xb[:, 1].min() - 1, Xb[:, 1].max() + 1),
    title="decision boundaries after 200 steps",
    xlabel="$x_1$",
    ylabel="$x_2$",
)
ax.legend(fontsize=8)
plt.show()

m = np.linspace(-3, 3, 7)
print("margins      ", m)
print("0/1 loss     ", zero_one(m, np.ones(7)))
print("hinge loss   ", hinge(m, np.ones(7)))
print("margin(y=-1) ", margin(m, -np.ones(7)))
verify("C3-08", "C3-09")

# %% [markdown]
# **Explore.** Losses against the margin, with their derivatives: the 0/1 loss is flat
# with a jump, the hinge has a kink at 1, and the logistic loss (from chapter 4, shown
# as a preview) is smooth. The slider moves one prediction for a label $+1$.

# %% tags=["remove-output"]
# NBVAL_SKIP
loss_margin.live_view(y_hat=0.5)

# %%
loss_margin.static_view(frames=5 if FAST else 13)

# %% [markdown]
# ### 3.2.1 Expected risk and overfitting
#
# The empirical risk is trivially minimised by a **look-up table** (E.3.4): return
# $y$ if $(x, y)$ is in $\mathcal{S}_n$, and a constant $\bar{y}$ (say 0) otherwise:
#
# $$f(x) = \begin{cases} y & \text{if } (x, y) \in \mathcal{S}_n \\ \bar{y} & \text{otherwise.}\end{cases}$$
#
# It has the lowest possible training loss and no practical value: this is memorisation,
# not learning. On the diabetes regression data (scikit-learn, 442 patients), the table
# has training MSE 0 and, since no test patient matches a training patient exactly, a
# test MSE equal to that of always predicting 0.

# %%
Xd, yd = load_diabetes()
Xd_tr, Xd_te, yd_tr, yd_te = train_test_split(Xd, yd, test_size=0.3, seed=0)
table = risk.LookupTable(default=0.0).fit(Xd_tr, yd_tr)
train_mse = float(risk.empirical_risk(squared_loss, table.predict, Xd_tr, yd_tr))
test_mse = float(risk.empirical_risk(squared_loss, table.predict, Xd_te, yd_te))
print(f"look-up table: train MSE {train_mse:.1f}, test MSE {test_mse:.0f}")
print(
    f"always predicting 0: test MSE {np.mean(yd_te**2):.0f}; "
    f"test inputs seen in training: {table.seen(Xd_te).sum()}"
)
verify("C3-10")

# %% [markdown]
# What we actually want small is the **expected risk** (E.3.5), the average loss over
# the whole distribution,
#
# $$\mathrm{ER}[f] = \mathbb{E}_{p(x, y)}\left[l(y, f(x))\right],$$
#
# which we cannot compute, because $p(x, y)$ is unknown. The empirical risk of a fresh
# i.i.d. sample is a Monte Carlo estimate of it (Appendix A, E.A.7). In a synthetic case
# the expected risk is known: for $y = x + \varepsilon$ with
# $\varepsilon \sim \mathcal{N}(0, \sigma^2)$, the model $f(x) = x$ and the squared loss,
# $\mathrm{ER} = \sigma^2$, and the empirical risk of $n$ samples fluctuates around it
# with standard deviation $\sigma^2\sqrt{2/n}$.

# %%
for n in (10, 100, 1000, 10_000):
    r = mc_risk.empirical_risks(n, sigma=0.5, reps=100 if FAST else 500, seed=n)
    print(
        f"n = {n:>6}: mean {r.risks.mean():.4f}, std {r.risks.std():.4f}, "
        f"predicted std σ²√(2/n) = {r.sd:.4f}"
    )
verify("C3-11")

# %% [markdown]
# **Explore.** Each histogram collects the empirical risks of 300 independent datasets of
# size $n$; the vertical line is the expected risk, the band $\pm 2\sigma^2\sqrt{2/n}$.

# %% tags=["remove-output"]
# NBVAL_SKIP
mc_risk.live_view(n=100, sigma=0.5)

# %%
mc_risk.static_view(
    ns=(10, 100, 1000)
    if FAST
    else (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000),
    reps=100 if FAST else 300,
)

# %% [markdown]
# The difference between expected and empirical risk is the **generalisation gap**. We
# estimate it with a test set $\mathcal{T}_m$ kept apart from training
# ($\mathcal{S}_n \cap \mathcal{T}_m = \emptyset$): test risk minus training risk. The
# memoriser's gap is huge; a linear model's is small (here even slightly negative: the
# test split happens to be easier).

# %%
A_tr, A_te = np.c_[Xd_tr, np.ones(len(Xd_tr))], np.c_[Xd_te, np.ones(len(Xd_te))]
w_lin = np.linalg.lstsq(A_tr, yd_tr, rcond=None)[0]
models = {
    "look-up table": (table.predict, Xd_tr, Xd_te),
    "linear model": (lambda A: linear_model(A, w_lin), A_tr, A_te),
}
fig, ax = plt.subplots(figsize=(5, 3))
for i, (name, (f, Ztr, Zte)) in enumerate(models.items()):
    tr = float(risk.empirical_risk(squared_loss, f, Ztr, yd_tr))
    te = float(risk.empirical_risk(squared_loss, f, Zte, yd_te))
    gap = risk.generalization_gap(squared_loss, f, (Ztr, yd_tr), (Zte, yd_te))
    print(f"{name:>14}: train {tr:8.0f}, test {te:8.0f}, gap {gap:8.0f}")
    ax.bar([2 * i, 2 * i + 0.8], [tr, te], color=["tab:blue", "tab:orange"], width=0.8)
ax.set(
    xticks=[0.4, 2.4],
    xticklabels=list(models),
    ylabel="MSE",
    title="train (blue) and test (orange) risk",
)
plt.show()
verify("C3-12")

# %% [markdown]
# ### 3.2.2 How to select a valid loss function?
#
# Losses can also be derived rather than designed. By the product rule,
# $p(x, y) = p(x)\,p(y \mid x)$; instead of predicting $y$ itself, let the model output
# the parameters (sufficient statistics) of a distribution $p(y \mid f(x))$. A discrete
# joint table shows the factorisation at work:

# %%
counts = np.array([[12, 3, 5], [1, 20, 4], [7, 7, 1]])
joint = probability.joint_from_counts(counts)
p_x = probability.marginal(joint, axis=1)
p_y_given_x = probability.conditional(joint, given_axis=0)
print("p(x) =", np.round(p_x, 3), "; rows of p(y|x) sum to", p_y_given_x.sum(axis=1))
print("max |p(x) p(y|x) - p(x, y)| =", np.abs(p_x[:, None] * p_y_given_x - joint).max())
verify("C3-13")

# %% [markdown]
# For classification with three classes, the model outputs a probability vector
# $f(x) \in \Delta(3)$ and, with the one-hot target $\mathbf{y}$,
# $p(\mathbf{y} \mid f(x)) = \prod_{i=1}^3 f_i(x)^{y_i}$, which is simply the probability
# of the observed class. Its log is $\sum_i y_i \log f_i(x)$; computed naively, a zero
# probability on a class that was *not* observed gives $0 \cdot \log 0 = $ NaN.
# `probability.categorical_nll` picks the observed class (a gather) instead, so only the
# observed class's probability matters.

# %%
probs = np.array([[0.0, 0.7, 0.3], [0.2, 0.5, 0.3]])
labels = np.array([1, 2])
onehot = np.eye(3)[labels]
with np.errstate(divide="ignore", invalid="ignore"):
    naive = -np.sum(onehot * np.log(probs), axis=1)
print("naive -sum(y log f):", naive)
print("categorical_nll:    ", probability.categorical_nll(labels, probs))
print(
    "prod f_i^y_i:       ",
    probability.categorical_pmf(onehot, probs),
    "= probs of the observed classes",
)
verify("C3-14")

# %% [markdown]
# For regression, the model outputs two numbers and predicts a Gaussian (E.3.6),
#
# $$p(y \mid f(x)) = \mathcal{N}\left(y \mid f_1(x), f_2(x)^2\right),$$
#
# squaring the second output so the variance cannot be negative. Its negative log is
# $\tfrac12\log(2\pi f_2^2) + (y - f_1)^2 / (2 f_2^2)$; because of the square it does not
# care about the sign of $f_2$, and as $f_2 \to 0$ it can fall without bound, so
# `probability.gaussian_pseudo_loss` puts a floor under the variance. The same model also
# returns an uncertainty: the predicted variance.

# %%
f2 = np.linspace(-2, 2, 801)
nll_a = float(
    probability.gaussian_pseudo_loss(np.array([0.3]), np.array([[0.1, -0.7]]))[0]
)
nll_b = float(
    probability.gaussian_pseudo_loss(np.array([0.1]), np.array([[0.1, 0.0]]))[0]
)
print(f"NLL(y=0.3; f1=0.1, f2=-0.7) = {nll_a:.5f}")
print(f"NLL(y=0.1; f1=0.1, f2=0) = {nll_b:.3f} (the floor; without it -inf)")
fig, ax = plt.subplots(figsize=(5.5, 3.2))
for y_obs in (0.3, 0.1):
    ax.plot(
        f2,
        probability.gaussian_pseudo_loss(
            np.full(801, y_obs), np.c_[np.full(801, 0.1), f2]
        ),
        label=f"y = {y_obs}, f₁ = 0.1",
    )
ax.set(
    ylim=(-7, 6),
    xlabel="$f_2$",
    ylabel="Gaussian NLL",
    title="even in f₂; as f₂ → 0 it blows up or (if y = f₁) dives",
)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
plt.show()
verify("C3-15")

# %% [markdown]
# ### 3.2.3 Maximum likelihood
#
# With i.i.d. data, the probability the model assigns to the whole dataset, the
# **likelihood**, is a product over examples,
# $p(\mathcal{S}_n \mid f) = \prod_{i=1}^n p(y_i \mid f(x_i))$, and the **maximum
# likelihood** principle picks the model that makes it largest. The product is
# useless in floating point: 200 probabilities of 0.5 multiply to exactly 0 in float32,
# and 1100 of them in float64. The logarithm turns it into a sum that stays finite
# (E.3.7):
#
# $$\arg\max_f \log\prod_{i=1}^n p(y_i \mid f(x_i)) = \arg\min_f \sum_{i=1}^n -\log p(y_i \mid f(x_i)).$$

# %%
ns = np.arange(1, 1501)
prod32 = np.cumprod(np.full(1500, 0.5, dtype=np.float32))
prod64 = np.cumprod(np.full(1500, 0.5))
logsum = np.cumsum(probability.bernoulli_logpmf(np.ones(1500), 0.5))
print(
    f"float32: first n with product 0 = {ns[prod32 == 0][0]}; "
    f"float64: {ns[prod64 == 0][0]}"
)
print(f"log-likelihood at n = 200: {logsum[199]:.2f}; at n = 1100: {logsum[1099]:.2f}")
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
axes[0].semilogy(ns, prod64, label="float64")
axes[0].semilogy(ns, prod32, label="float32")
axes[0].set(xlabel="n", ylabel="∏ p (log axis)", title="the product underflows to 0")
axes[0].legend()
axes[1].plot(ns, logsum)
axes[1].set(xlabel="n", ylabel="Σ log p", title="the log-likelihood does not")
plt.show()
verify("C3-16")

# %% [markdown]
# The logarithm is increasing, so both problems have the same solution; for Bernoulli
# data the maximiser is the fraction of ones, for categorical data the class
# frequencies. With $-\log p(y \mid f(x))$ read as a "pseudo-loss", the two views of
# learning coincide, and the book's remark that the losses used in practice come out of
# maximum likelihood can be checked on the two models above: the Gaussian NLL with a
# fixed variance is the squared loss up to an affine map, and the categorical NLL of a
# softmax is the cross-entropy of chapter 4.

# %%
coin = (rng.random(60) < 0.3).astype(float)
grid = np.linspace(0.001, 0.999, 999)
loglik = np.array(
    [
        float(probability.log_likelihood(probability.bernoulli_logpmf, coin, p))
        for p in grid
    ]
)
print(
    f"grid ML estimate {float(probability.grid_argmax(loglik, grid)):.3f}; "
    f"fraction of ones {coin.mean():.3f}"
)
logits, cls = rng.normal(size=(5, 4)), rng.integers(0, 4, size=5)
ce_torch = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(cls))
ce_ours = probability.categorical_nll(cls, softmax(logits)).mean()
print(
    f"mean categorical NLL of softmax(logits) = {ce_ours:.6f}; "
    f"torch cross-entropy = {float(ce_torch):.6f}"
)
verify("C3-17", "C3-18")

# %% [markdown]
# ## 3.3 Bayesian learning
#
# Maximum likelihood returns one model. Bayesian learning keeps a distribution over
# models: a **prior** $p(f)$ (in practice over the weights) expresses what we believe
# before the data. The book's example prefers small norms, $p(f) \propto 1/\lVert f\rVert$;
# note that this prior is *improper*: in two or more dimensions its mass inside a ball
# of radius $R$ grows without bound (as $2\pi R$ in the plane), so it cannot be
# normalised. It can still serve as a penalty, $-\log p(f) = \log\lVert f\rVert + $ const.

# %%
from scipy.integrate import quad

for R in (10, 100, 1000):
    mass, _ = quad(lambda r: 2 * np.pi * r / r, 0, R)
    print(
        f"∫ over ‖w‖ < {R:>4} of 1/‖w‖ dw = {mass:9.2f}  (2πR = {2 * np.pi * R:9.2f})"
    )
verify("C3-19")

# %% [markdown]
# After seeing the data, Bayes' theorem (E.3.8) gives the **posterior**
#
# $$p(f \mid \mathcal{S}_n) = \frac{p(\mathcal{S}_n \mid f)\,p(f)}{p(\mathcal{S}_n)},$$
#
# where the **evidence** $p(\mathcal{S}_n)$ only normalises. Our running example is a
# coin with unknown bias $\theta$ (the model), a Beta prior and flips as data. On a grid
# of $\theta$ values the posterior is normalised in log space with logsumexp; that keeps
# working when the log-likelihood is $-10^4$ and every $\exp$ would underflow.

# %%
flips = (rng.random(20_000) < 0.7).astype(float)
theta_grid = bayes_coin.GRID
ll = flips.sum() * np.log(theta_grid) + (flips.size - flips.sum()) * np.log1p(
    -theta_grid
)
log_post = probability.grid_posterior(ll, stats.beta.logpdf(theta_grid, 2, 2))
with np.errstate(under="ignore"):
    print(
        f"max log-likelihood {ll.max():.0f}; naive exp(ll).sum() = {np.exp(ll).sum()}"
    )
print(
    f"posterior sums to {np.exp(log_post).sum():.12f}; "
    f"its mode is θ = {theta_grid[np.argmax(log_post)]:.4f}"
)
verify("C3-21")

# %% [markdown]
# The posterior predicts by averaging every model's prediction, weighted by the
# posterior (E.3.9), and a Monte Carlo average over $k$ models drawn from the posterior
# approximates the integral (E.3.10):
#
# $$p(y \mid x) = \int p(y \mid f(x))\, p(f \mid \mathcal{S}_n)\, df \;\approx\; \frac1k \sum_{i=1}^k p(y \mid f_i(x)), \qquad f_i \sim p(f \mid \mathcal{S}_n).$$
#
# ```{note}
# **Remark (C3-27).** The book writes the predictive as $\int_f p(y \mid f(x))\,p(f \mid
# \mathcal{S}_n)$, naming the variable of integration under the sign; written with its
# measure it is $\int \ldots\, df$, and for the coin $\int_0^1 \theta\,
# \mathrm{Beta}(\theta; 3, 2)\, d\theta = 0.6$.
# ```
#
# ```{admonition} Erratum (E3-01, §3.3, E.3.10; book text lines 1300–1302)
# :class: warning
# The Monte Carlo estimate is printed as $\frac1k\sum_i p(y \mid f_i(x))\,p(f_i \mid \mathcal{S}_n)$,
# with samples written $f_k \sim p(f \mid \mathcal{S}_n)$. When the $f_i$ are drawn *from*
# the posterior, the posterior weighting is already in the sampling: the estimate is the
# plain average $\frac1k\sum_i p(y \mid f_i(x))$, and the samples are $f_i$. Multiplying by
# the posterior density once more estimates $\int p(y \mid f)\,p(f \mid \mathcal{S}_n)^2\,df$,
# a different number (0.857 instead of 0.6 for a Beta(3, 2) posterior; it is not even a
# probability in general).
# ```

# %%
k = 20_000 if FAST else 200_000
theta = stats.beta.rvs(3, 2, size=k, random_state=rng)
print(f"exact predictive p(heads | S) for Beta(3, 2): {stats.beta.mean(3, 2):.4f}")
mc_plain = float(probability.mc_predictive(lambda t: t, theta))
mc_printed = np.mean(theta * stats.beta.pdf(theta, 3, 2))
by_quadrature = quad(lambda t: t * stats.beta.pdf(t, 3, 2), 0, 1)[0]
print(f"MC, plain average:                            {mc_plain:.4f}")
print(f"MC as printed in E.3.10:                      {mc_printed:.4f}")
print(f"∫ θ Beta(θ; 3, 2) dθ by quadrature:           {by_quadrature:.4f}")
verify("C3-20", "E3-01", "C3-27")

# %% [markdown]
# Closed-form posteriors exist only for special prior–likelihood pairs; otherwise one
# turns to Markov chain Monte Carlo or variational inference (named in the book, not
# developed; Monte Carlo dropout comes in a later chapter). The coin is such a pair: a
# Beta$(a, b)$ prior and $h$ heads in $n$ flips give the posterior
# Beta$(a + h, b + n - h)$. So is a Gaussian mean with known variance under a Gaussian
# prior. Both closed forms agree with the numerically normalised grid.

# %%
few = flips[:50]
a_post, b_post = probability.beta_bernoulli_posterior(3, 3, few.astype(int))
grid_density = np.exp(
    probability.grid_posterior(
        few.sum() * np.log(theta_grid) + (50 - few.sum()) * np.log1p(-theta_grid),
        stats.beta.logpdf(theta_grid, 3, 3),
    )
) / (theta_grid[1] - theta_grid[0])
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(theta_grid, grid_density, lw=3, alpha=0.5, label="grid + logsumexp")
ax.plot(
    theta_grid,
    stats.beta.pdf(theta_grid, a_post, b_post),
    "k--",
    label=f"Beta({a_post}, {b_post})",
)
ax.set(xlabel="θ", ylabel="posterior density", title="50 flips, Beta(3, 3) prior")
ax.legend()
plt.show()
mu_n, var_n = probability.normal_mean_posterior(
    0.0, 1.0, 0.64, rng.normal(1.2, 0.8, 25)
)
print(f"Normal-Normal posterior of a mean: N({mu_n:.3f}, {var_n:.4f})")
verify("C3-26")

# %% [markdown]
# If all we want is the single most probable model, the evidence drops out and we get
# the **maximum a posteriori** (MAP) solution (E.3.11–E.3.12):
#
# $$f^* = \arg\max_f p(\mathcal{S}_n \mid f)\,p(f) = \arg\max_f \left\{\log p(\mathcal{S}_n \mid f) + \log p(f)\right\}.$$
#
# For the coin with a Beta$(a, b)$ prior it is $(h + a - 1)/(n + a + b - 2)$; with a
# uniform prior (Beta(1, 1)) the log-prior is constant and MAP is maximum likelihood,
# $h/n$.

# %%
h, n = int(few.sum()), few.size
for a_, b_ in ((1, 1), (4, 2.5), (20, 20)):
    obj = (
        few.sum() * np.log(theta_grid)
        + (n - few.sum()) * np.log1p(-theta_grid)
        + stats.beta.logpdf(theta_grid, a_, b_)
    )
    grid_map = float(probability.grid_argmax(obj, theta_grid))
    closed_form = probability.map_beta_bernoulli(a_, b_, h, n)
    print(
        f"Beta({a_}, {b_}) prior: grid MAP {grid_map:.4f}, "
        f"closed form {closed_form:.4f} (ML {h / n:.4f})"
    )
verify("C3-22", "C3-23")

# %% [markdown]
# The log-prior acts as a **regulariser**: it pulls the solution towards what the prior
# favours. With a Gaussian prior $\mathcal{N}(0, \tau^2 I)$ on the weights of a linear
# model with Gaussian noise of variance $\sigma^2$, the negative log-posterior is
# $\lVert y - Xw\rVert^2 / (2\sigma^2) + \lVert w\rVert^2/(2\tau^2)$: MAP is ridge regression
# with $\lambda = \sigma^2/\tau^2$ (chapter 4 develops it), and its weights are smaller
# than the maximum-likelihood ones.

# %%
from sklearn.linear_model import Ridge

from alice_lab.optim import gradient_descent

Xm = rng.normal(size=(30, 5))
ym = Xm @ rng.normal(size=5) + 0.5 * rng.normal(size=30)
sigma2, tau2 = 0.25, 0.05
w_map = gradient_descent(
    lambda w: -Xm.T @ (ym - Xm @ w) / sigma2 + w / tau2,
    np.zeros(5),
    lr=1e-3,
    steps=5000,
).x
w_ridge = Ridge(alpha=sigma2 / tau2, fit_intercept=False).fit(Xm, ym).coef_
w_ml = np.linalg.lstsq(Xm, ym, rcond=None)[0]
print("MAP by gradient descent:", np.round(w_map, 4))
print("ridge, λ = σ²/τ² = 5:   ", np.round(w_ridge, 4))
print(f"‖w_MAP‖ = {np.linalg.norm(w_map):.3f} < ‖w_ML‖ = {np.linalg.norm(w_ml):.3f}")
verify("C3-24")

# %% [markdown]
# Finally, the posterior makes learning **sequential**: the posterior after a first batch
# of data is the prior for the next batch, and the result is the posterior of all the
# data at once. This is one way to learn online without catastrophic forgetting.

# %%
first, second = few[:30], few[30:]
a1, b1 = probability.beta_bernoulli_posterior(2, 2, first.astype(int))
print(
    "Beta(2, 2) → after 30 flips",
    (a1, b1),
    "→ after 20 more",
    probability.beta_bernoulli_posterior(a1, b1, second.astype(int)),
)
print(
    "Beta(2, 2) → after all 50 flips at once",
    probability.beta_bernoulli_posterior(2, 2, few.astype(int)),
)
verify("C3-25")

# %% [markdown]
# **Explore.** A coin with unknown bias: choose the prior, flip (or add ten random flips
# of a $\theta = 0.7$ coin) and watch the prior, the likelihood and the posterior, with
# the ML estimate, the MAP and the posterior mean (the Bayesian predictive). The label
# compares the Monte Carlo predictive from $k$ posterior samples with the exact value
# and with E.3.10 as printed; the toggle overlays the posterior computed one flip at a
# time, which coincides with the batch posterior.

# %% tags=["remove-output"]
# NBVAL_SKIP
bayes_coin.live_view(a=2.0, b=2.0)

# %%
bayes_coin.static_view(n_flips=40, frames=5 if FAST else 21)

# %% [markdown]
# ## Summary
#
# * A dataset is a set of i.i.d. draws from an unknown $p(x, y)$; drift and biased
#   collection break that assumption and hurt the deployed model.
# * Trained networks embed inputs in spaces where distances mean something, which pixels
#   do not; but an embedding is only as general as the task it was trained for.
# * Empirical risk minimisation needs a loss that gradient descent can use: the 0/1 loss
#   has no gradient, the hinge does.
# * The empirical risk is a Monte Carlo estimate of the expected risk; memorising the
#   training set minimises the first and not the second. A held-out test set measures
#   the gap.
# * Losses are negative log-likelihoods of a distribution the model parameterises;
#   always sum logs, never multiply probabilities.
# * Bayesian learning keeps a posterior over models: it predicts by averaging, its mode
#   (MAP) is a regularised maximum likelihood, and it updates sequentially.
#
# **What is not checked here.** Every claim in this chapter's digest (C3-01 to C3-26) is
# registered and verified above, together with the two errata on E.3.9 and E.3.10. Not
# reproducible offline: the zero-shot and few-shot *prompting* of Figure F.3.2, which
# need a large language model (the digits analogy stands in for it). Slips in the text
# that no code can check: the "box in the next page" on the origin of the term *risk*
# (line 1208) is missing from the text, and two references are empty ("via gradient
# descent ()" at line 1210, "in Section one example" at line 1302).
