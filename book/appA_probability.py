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
# # A. Probability theory
#
# [▶ Open this notebook in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/book/appA_probability.ipynb) · runs as is, no set-up needed
#
# *Companion to Appendix A ("Probability theory") of* Alice's Adventures in a
# differentiable wonderland *by Simone Scardapane (CC BY-SA 4.0). The text of this
# notebook is derived from the book and shared under the same licence; the code is MIT.*
#
# The appendix is the probability the book relies on, in six short steps: the sum and
# product rules and Bayes' rule on a small lottery table (A.1), densities and CDFs (A.2),
# the categorical, Bernoulli and Gaussian distributions (A.3), expectations and their
# Monte Carlo estimates (A.4), the Kullback–Leibler divergence (A.5) and maximum
# likelihood (A.6). Each statement is computed below and checked by
# `alice_course.claims.verify`, which shows a `✓` block with the place in the book where it
# is made; the four places where the printed text is wrong are marked **Erratum**.

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
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import Markdown, display
from scipy import stats
from scipy.integrate import quad

from alice_course.claims import verify
from alice_course.widgets import (
    appA_gaussian_pdf as gaussian_pdf,
    appA_kl_divergence as kl_divergence,
    appA_mc_convergence as mc_convergence,
)
from alice_course.widgets.describe import describe_figures
from alice_lab import probability as P
from alice_lab.backend import is_fast
from alice_lab.data import load_iris
from alice_lab.tensors import is_simplex

describe_figures()  # each figure's output also says in words what it shows

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) shrinks samples and animations
rng = np.random.default_rng(0)
torch.manual_seed(0)

# %% [markdown]
# ## A.1 Basic laws of probability
#
# A lottery sells tickets with three outcomes, "no win", "small win" and "large win",
# in proportions 6 : 3 : 1. The **random variable** $w \in \{1, 2, 3\}$ has the
# distribution $p(w) = (0.6, 0.3, 0.1)$: every entry is non-negative and they sum to 1,
# so the vector lies in the **probability simplex**.
#
# ```{note}
# **Remark (CA-26).** The prose says the entries "must be positive"; the formula beside
# it, $p(w) \geq 0$, is the condition: an outcome can have probability 0 (a lottery with
# no large wins, $(0.7, 0.3, 0)$).
# ```

# %%
p_w = np.array([0.6, 0.3, 0.1])
print(
    "p(w) =",
    p_w,
    "sum =",
    sum(Fraction(k, 10) for k in (6, 3, 1)),
    "on the simplex:",
    is_simplex(p_w),
)
no_large = np.array([0.7, 0.3, 0.0])
print(
    "(0.7, 0.3, 0) on the simplex:",
    is_simplex(no_large),
    "; log p of each outcome:",
    P.categorical_logpmf(np.eye(3), no_large),
)
verify("CA-01", "CA-26")

# %% [markdown]
# A second variable $r$ says whether the ticket is real ($r = 1$) or fake ($r = 2$).
# Table T.A.1 counts 100 tickets by both variables; dividing by 100 gives the **joint**
# distribution $p(r, w)$, for example $p(r = 2, w = 3) = 8/100$.

# %%
C = P.LOTTERY_COUNTS
rows = ["| | r = 1 (real) | r = 2 (fake) | sum |", "|---|---|---|---|"]
for name, (a, b) in zip(
    ("w = 1 (no win)", "w = 2 (small win)", "w = 3 (large win)"), C, strict=True
):
    rows.append(f"| {name} | {a} | {b} | {a + b} |")
rows.append(f"| sum | {C[:, 0].sum()} | {C[:, 1].sum()} | {C.sum()} |")
display(Markdown("\n".join(rows)))
joint = P.joint_from_counts(C)
print(f"p(r=2, w=3) = {joint[2, 1]}")
verify("CA-02", "CA-03")

# %% [markdown]
# A **conditional** distribution answers "how likely is one event, given another has
# happened": $p(r = 1 \mid w = 3) = p(r = 1, w = 3)/p(w = 3) = 0.02/0.1 = 0.2$. Written
# the other way round, this is the **product rule** (E.A.1),
# $p(r, w) = p(r \mid w)\,p(w)$. When $p(r \mid w) = p(r)$ the variables are
# **independent** and the joint factorises, $p(r, w) = p(r)p(w)$; the lottery's are not,
# since $p(r = 1, w = 1) = 0.58$ while $p(r = 1)\,p(w = 1) = 0.87 \cdot 0.6 = 0.522$.
# Summing the joint over one variable **marginalises** it out: the **sum rule** (E.A.2),
# $p(w) = \sum_r p(w, r) = \sum_r p(w \mid r)\,p(r)$.

# %%
p_r_given_w = P.conditional(joint, given_axis=0)  # rows: p(r | w), each sums to 1
p_w_given_r = P.conditional(joint, given_axis=1)  # columns: p(w | r)
p_r, p_w_marg = P.marginal(joint, axis=0), P.marginal(joint, axis=1)
print("p(r | w=3) =", np.round(p_r_given_w[2], 12))
print(
    "product rule, max |p(r|w)p(w) - p(r,w)| =",
    np.abs(p_r_given_w * p_w_marg[:, None] - joint).max(),
)
print(
    f"p(r=1, w=1) = {joint[0, 0]:.3f} vs p(r=1)p(w=1) = {p_r[0] * p_w_marg[0]:.3f}; "
    f"independent: {P.is_independent(joint)}"
)
print("sum rule, Σ_r p(w|r)p(r) =", np.round(p_w_given_r @ p_r, 12))

fig, axes = plt.subplots(1, 2, figsize=(9, 3))
bottom = np.zeros(2)
for w, colour in zip(range(3), ("0.7", "tab:blue", "tab:orange"), strict=True):
    axes[0].bar(
        ["real", "fake"],
        p_w_given_r[w],
        bottom=bottom,
        color=colour,
        label=f"w = {w + 1}",
    )
    bottom += p_w_given_r[w]
axes[0].set(title="p(w | r): what each kind of ticket wins", ylabel="probability")
axes[0].legend(fontsize=8)
for r, colour in zip(range(2), ("tab:green", "tab:red"), strict=True):
    axes[1].bar(
        np.arange(3) + 0.4 * r,
        p_r_given_w[:, r],
        width=0.4,
        color=colour,
        label=("real", "fake")[r],
    )
axes[1].set(
    xticks=np.arange(3) + 0.2,
    xticklabels=["no win", "small", "large"],
    title="p(r | w): is a ticket with this outcome real?",
)
axes[1].legend(fontsize=8)
plt.show()
verify("CA-04", "CA-05", "CA-06", "CA-07")

# %% [markdown]
# Combining both rules gives **Bayes' rule** (E.A.3), which reverses a conditional:
#
# $$p(r \mid w) = \frac{p(w \mid r)\,p(r)}{\sum_{r'} p(w \mid r')\,p(r')}.$$
#
# The book invites us to try it: from the winning proportions of real and fake tickets,
# how likely is a winning ticket to be real? A large win is fake with probability 0.8;
# a win of any size (small or large) is real with probability $29/40 = 0.725$.

# %%
lik_large = p_w_given_r[2]  # p(w=3 | r)
lik_win = p_w_given_r[1] + p_w_given_r[2]  # p(win | r)
print(
    "p(win | r) =",
    np.round(lik_win, 4),
    "(11/13 for fake tickets:",
    round(11 / 13, 4),
    ")",
)
print("p(r | w=3) by Bayes =", np.round(P.bayes(lik_large, p_r), 4))
print("p(r | w=2) by Bayes =", np.round(P.bayes(p_w_given_r[1], p_r), 4))
print(
    "p(r | win) by Bayes =",
    np.round(P.bayes(lik_win, p_r), 4),
    "; from the table: 29/40 =",
    29 / 40,
)
verify("CA-08")

# %% [markdown]
# ## A.2 Real-valued distributions
#
# A real-valued variable takes any single value with probability 0, so we describe it by
# its **cumulative distribution function** $P(x)$, the probability of a value at most $x$,
# and its **density** $p(x)$, the derivative of the CDF:
# $P(x) = \int_{-\infty}^x p(t)\,dt$. The probability of a small interval around a point
# vanishes with the interval's width.
#
# ```{admonition} Erratum (EA-02, §A.2; book text lines 6903–6905)
# :class: warning
# The book writes the CDF as $P(x) = \int_0^x p(t)\,dt$. Starting the integral at 0 is
# only right for variables that are never negative; in general it starts at $-\infty$.
# For a standard normal, $\int_0^x$ gives $P(0) = 0$ instead of $0.5$ and negative
# "probabilities" for $x < 0$.
# ```

# %%
for h in (1e-1, 1e-2, 1e-3, 1e-4):
    mass = stats.norm.cdf(0.3 + h) - stats.norm.cdf(0.3 - h)
    print(f"P(0.3 + h) - P(0.3 - h) with h = {h:g}: {mass:.3e}")
x = np.linspace(-10, 4, 14_001)
cdf = P.numeric_cdf(P.normal_pdf(x, 0.0, 1.0), x)
cdf_error = np.abs(cdf - stats.norm.cdf(x)).max()
pdf_error = np.abs(np.gradient(cdf, x) - stats.norm.pdf(x)).max()
print(
    f"max |trapezoid CDF - scipy CDF| = {cdf_error:.1e}; "
    f"max |dCDF/dx - pdf| = {pdf_error:.1e}"
)
from_zero = [quad(stats.norm.pdf, 0, t)[0] for t in (-1.0, 0.0, 1.5)]
print(
    "∫ from 0 at x = -1, 0, 1.5:",
    np.round(from_zero, 4),
    "; the CDF:",
    np.round(stats.norm.cdf([-1.0, 0.0, 1.5]), 4),
)
verify("CA-09", "CA-10", "EA-02")

# %% [markdown]
# The product and sum rules carry over with integrals in place of sums (E.A.4–E.A.5):
# $p(x, y) = p(x \mid y)\,p(y)$ and $p(x) = \int p(x \mid y)\,p(y)\,dy$. For instance, if
# $y \sim \mathcal{N}(0, 1)$ and $x \mid y \sim \mathcal{N}(y, 1)$, integrating $y$ out
# gives $x \sim \mathcal{N}(0, 2)$. And a density is not a probability: it can exceed 1,
# as $\mathcal{N}(0; 0, 0.1^2) = 1/\sqrt{2\pi \cdot 0.01} \approx 3.989$ does, while its
# integral stays 1.

# %%
xs = np.linspace(-5, 5, 41)
marg = [
    quad(
        lambda y, x=x: float(P.normal_pdf(np.array(x), y, 1.0)) * stats.norm.pdf(y),
        -12,
        12,
    )[0]
    for x in xs
]
marg_error = np.abs(np.array(marg) - stats.norm.pdf(xs, 0, np.sqrt(2))).max()
print(f"max |∫ N(x; y, 1) N(y; 0, 1) dy - N(x; 0, 2)| over 41 points: {marg_error:.1e}")
grid = np.linspace(-2, 2, 40_001)
narrow = P.normal_pdf(grid, 0.0, 0.01)
print(
    f"N(0; 0, 0.1²) = {float(narrow.max()):.4f}; "
    f"area = {np.trapezoid(narrow, grid):.10f}"
)
verify("CA-11", "CA-12")

# %% [markdown]
# ## A.3 Common distributions
#
# The lottery variables are **categorical**: one of $k$ values, with probabilities
# $\mathbf{p} \in \Delta(k)$. With the observed class as a one-hot vector
# $\mathbf{x} \in \mathrm{Binary}(k)$, $\mathrm{Cat}(\mathbf{x}; \mathbf{p}) = \prod_i p_i^{x_i}$,
# which picks the probability of the observed class. With $k = 2$ one number suffices:
# the **Bernoulli** distribution $\mathrm{Bern}(x; p) = p^x (1 - p)^{1-x}$.

# %%
print("Cat(one-hot; p) for each class:", P.categorical_pmf(np.eye(3), p_w))
for p in (0.0, 0.25, 1.0):
    ours = np.exp(P.bernoulli_logpmf(np.array([1, 0]), p))
    print(
        f"Bern(1; {p}), Bern(0; {p}) = {ours}; scipy: {stats.bernoulli.pmf([1, 0], p)}"
    )
verify("CA-13")

# %% [markdown]
# The **Gaussian** $\mathcal{N}(x; \mu, \sigma^2) = \frac{1}{\sqrt{2\pi\sigma^2}}
# \exp\left(-\frac12\left(\frac{x - \mu}{\sigma}\right)^2\right)$ is a bell centred at the
# mean $\mu$ with spread set by the variance $\sigma^2$ (the **normal** distribution when
# $\mu = 0$, $\sigma^2 = 1$). Its peak, $1/\sqrt{2\pi\sigma^2}$, passes 1 when
# $\sigma < 1/\sqrt{2\pi} \approx 0.40$.

# %%
for mu, s in ((0.0, 1.0), (1.0, 0.3), (-1.0, 2.0)):
    err = np.abs(P.normal_pdf(x, mu, s**2) - stats.norm.pdf(x, mu, s)).max()
    peak = 1 / np.sqrt(2 * np.pi * s**2)
    print(f"N(μ={mu}, σ={s}): peak {peak:.3f}; max |ours - scipy| = {err:.1e}")
verify("CA-14")

# %% [markdown]
# **Explore.** Move $\mu$ and $\sigma$: the area under the density stays 1 while the peak
# grows past 1 as $\sigma$ shrinks; the CDF next to it climbs from 0 to 1. The live view
# needs a running kernel; the animation after it shrinks $\sigma$ from 3 to 0.05.

# %% tags=["remove-output"]
# NBVAL_SKIP
gaussian_pdf.live_view(mu=0.0, sigma=1.0)

# %%
gaussian_pdf.static_view(sigmas=[3.0, 1.0, 0.3, 0.1] if FAST else None)

# %% [markdown]
# For a vector $\mathbf{x} \in \mathbb{R}^k$ the **multivariate Gaussian** has a mean
# vector $\boldsymbol{\mu}$ and a covariance matrix $\Sigma$:
#
# $$\mathcal{N}(\mathbf{x}; \boldsymbol{\mu}, \Sigma) = (2\pi)^{-k/2} \det(\Sigma)^{-1/2}
# \exp\left(-\tfrac12 (\mathbf{x} - \boldsymbol{\mu})^\top \Sigma^{-1} (\mathbf{x} - \boldsymbol{\mu})\right).$$
#
# `probability.mvn_logpdf` computes it through the Cholesky factor $\Sigma = LL^\top$:
# one triangular solve for the quadratic form and $\log\det\Sigma = 2\sum_i \log L_{ii}$,
# with no inverse and no determinant that could overflow.
#
# ```{admonition} Erratum (EA-03, §A.3; book text lines 6931–6933)
# :class: warning
# The book prints the exponent as $(\mathbf{x} - \boldsymbol{\mu})^\top \Sigma^{-1}
# (\mathbf{x} - \boldsymbol{\mu})$, without the factor $-\tfrac12$. Without it the
# function *grows* away from the mean and its integral is infinite; the density needs
# $-\tfrac12$, as in the univariate formula just above it.
# ```

# %%
A = rng.normal(size=(3, 3))
Sigma, mu3 = A @ A.T + 0.5 * np.eye(3), rng.normal(size=3)
pts = rng.normal(size=(5, 3))
print("ours :", np.round(P.mvn_logpdf(pts, mu3, Sigma), 6))
print("scipy:", np.round(stats.multivariate_normal.logpdf(pts, mu3, Sigma), 6))
d = pts - mu3
as_printed = (
    -1.5 * np.log(2 * np.pi)
    - 0.5 * np.log(np.linalg.det(Sigma))
    + np.einsum("ni,ij,nj->n", d, np.linalg.inv(Sigma), d)
)
print("as printed (no -½):", np.round(as_printed, 6))
verify("CA-15", "EA-03")

# %% [markdown]
# Two special cases: a **diagonal** covariance gives contours that are ellipses aligned
# with the axes (the coordinates are independent), and an **isotropic** one,
# $\Sigma = \sigma^2 I$, gives circles. Samples drawn as $\boldsymbol{\mu} + L\mathbf{z}$,
# $\mathbf{z} \sim \mathcal{N}(0, I)$, have the requested covariance.

# %%
cases = {
    "full": np.array([[1.0, 0.8], [0.8, 1.5]]),
    "diagonal": np.diag([2.0, 0.4]),
    "isotropic": 0.8 * np.eye(2),
}
g1, g2 = np.meshgrid(np.linspace(-3.5, 3.5, 150), np.linspace(-3.5, 3.5, 150))
flat = np.c_[g1.ravel(), g2.ravel()]
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
for ax, (name, S) in zip(axes, cases.items(), strict=True):
    dens = np.exp(P.mvn_logpdf(flat, np.zeros(2), S)).reshape(g1.shape)
    ax.contour(g1, g2, dens, levels=6, cmap="viridis")
    draws = P.mvn_sample(np.zeros(2), S, 300, rng)
    ax.scatter(draws[:, 0], draws[:, 1], s=3, color="0.4")
    ax.set(title=f"{name} Σ", aspect="equal", xticks=[], yticks=[])
plt.show()
big = P.mvn_sample(np.zeros(2), cases["full"], 200_000, rng)
print(
    "sample covariance of 200k draws from the full Σ:",
    np.round(np.cov(big.T), 3).tolist(),
)
verify("CA-16")

# %% [markdown]
# ## A.4 Moments and expected values
#
# A few numbers can describe a whole distribution: the vector $\mathbf{p}$ of a
# categorical, the mean and variance of a Gaussian. These are **sufficient statistics**:
# two Gaussian samples of the same size with the same mean and variance have the same
# likelihood at every $(\mu, \sigma^2)$, however different they look.

# %%
a_sample = rng.normal(size=40)
b_sample = rng.exponential(size=40)
b_sample = (
    b_sample - b_sample.mean()
) / b_sample.std() * a_sample.std() + a_sample.mean()
for m, v in ((0.0, 1.0), (0.5, 2.0)):
    ll_normal = float(P.gaussian_loglik(a_sample, m, v))
    ll_skewed = float(P.gaussian_loglik(b_sample, m, v))
    print(
        f"L(μ={m}, σ²={v}): {ll_normal:.6f} (normal sample) "
        f"vs {ll_skewed:.6f} (skewed sample)"
    )
verify("CA-17")

# %% [markdown]
# The **expected value** of a function under $p$ is the probability-weighted sum (E.A.6),
# $\mathbb{E}_{p(x)}[f(x)] = \sum_x f(x)\,p(x)$ (an integral for densities); with
# $f(x) = x^p$ it is the moment of order $p$, and $p = 1$ gives the **mean**. When we can
# only sample from $p$, the **Monte Carlo** estimate averages over samples (E.A.7),
# $\mathbb{E}_{p(x)}[f(x)] \approx \frac1n\sum_{i=1}^n f(x_i)$, $x_i \sim p(x)$. Its error
# shrinks like $1/\sqrt{n}$: slope $-\tfrac12$ on log–log axes.

# %%
w_vals = np.array([1.0, 2.0, 3.0])
print(
    f"E[w] = {float(P.expectation(w_vals, p_w))}, "
    f"E[w²] = {float(P.moment(w_vals, p_w, 2)):.2f}"
)
est = P.mc_expectation(lambda s: s, rng.choice(w_vals, size=100_000, p=p_w))
print(f"Monte Carlo with 10⁵ tickets: {est.mean:.4f} ± {est.stderr:.4f}")
ns = np.array([10, 40, 160, 640, 2560, 10240])
rmse = [
    np.sqrt(np.mean((rng.choice(w_vals, size=(200, n), p=p_w).mean(axis=1) - 1.5) ** 2))
    for n in ns
]
slope = np.polyfit(np.log(ns), np.log(rmse), 1)[0]
fig, ax = plt.subplots(figsize=(5, 3))
ax.loglog(ns, rmse, "o-", label=f"RMS error over 200 runs (slope {slope:.2f})")
ax.loglog(ns, np.sqrt(0.45 / ns), "k--", label="sd(w)/√n")
ax.set(
    xlabel="samples n", ylabel="error of the MC mean", title="Monte Carlo error ~ 1/√n"
)
ax.legend(fontsize=8)
plt.show()
verify("CA-18")

# %% [markdown]
# **Explore.** The running Monte Carlo estimate of $\mathbb{E}[f(x)]$ for
# $x \sim \mathcal{N}(0, 1)$ (or the lottery's $w$), with the exact value and the band
# $\pm 2\,\mathrm{sd}(f)/\sqrt{t}$ that holds the error about 95% of the time.

# %% tags=["remove-output"]
# NBVAL_SKIP
mc_convergence.live_view(name="x²", n=1000)

# %%
mc_convergence.static_view(n=2000 if FAST else 10_000, frames=4 if FAST else 12)

# %% [markdown]
# ## A.5 Distance between distributions
#
# The **Kullback–Leibler divergence** compares two distributions,
# $\mathrm{KL}(p \,\Vert\, q) = \int p(x) \log\frac{p(x)}{q(x)}\,dx$. It is 0 exactly when
# $p = q$ and positive otherwise, but it is not a distance: it is asymmetric, it breaks
# the triangle inequality, it has no upper bound, and it is infinite as soon as $q$ puts
# zero mass where $p$ does not. As an expectation under $p$ it can be estimated by Monte
# Carlo from samples of $p$.


# %%
def bern(a):
    return np.array([1 - a, a])


print(
    f"KL(N(0,1) ‖ N(1,4)) = {P.kl_normal(0, 1, 1, 4):.4f}, "
    f"KL(N(1,4) ‖ N(0,1)) = {P.kl_normal(1, 4, 0, 1):.4f}"
)
xs_mc = rng.normal(size=20_000 if FAST else 200_000)
mc = P.kl_mc(
    lambda s: P.normal_logpdf(s, 0.0, 1.0),
    lambda s: P.normal_logpdf(s, 1.0, 4.0),
    xs_mc,
)
print(f"Monte Carlo estimate of the first: {mc.mean:.4f} ± {mc.stderr:.4f}")
kl_direct = float(P.kl_discrete(bern(0.1), bern(0.9)))
kl_via_half = float(
    P.kl_discrete(bern(0.1), bern(0.5)) + P.kl_discrete(bern(0.5), bern(0.9))
)
print(
    f"triangle: KL(B(0.1)‖B(0.9)) = {kl_direct:.3f} > "
    f"KL(B(0.1)‖B(0.5)) + KL(B(0.5)‖B(0.9)) = {kl_via_half:.3f}"
)
for eps in (1e-2, 1e-8, 0.0):
    print(f"KL(B(0.5) ‖ B({eps:g})) = {float(P.kl_discrete(bern(0.5), bern(eps))):.3f}")
verify("CA-19")

# %% [markdown]
# **Explore.** Two Gaussians, both KL directions in closed form and by Monte Carlo, and
# the integrand $p \log(p/q)$; the animation slides $q = \mathcal{N}(\mu_2, 2^2)$ past
# $p = \mathcal{N}(0, 1)$: the two directions never agree, because the variances differ.

# %% tags=["remove-output"]
# NBVAL_SKIP
kl_divergence.live_view()

# %%
kl_divergence.static_view(mus=[-2.0, 0.0, 2.0] if FAST else None)

# %% [markdown]
# ## A.6 Maximum likelihood estimation
#
# To estimate a distribution from samples, guess a family $f(x; s)$ with parameters $s$
# (its sufficient statistics) and take $n$ samples that are **i.i.d.**: each drawn from
# the same distribution and independently of the others. Their joint density is then the
# product $\prod_i f(x_i; s)$.
#
# ```{note}
# **Remark (CA-27).** The book's "identical" samples are, as its parenthesis says,
# *identically distributed*: each has the same distribution, and they are independent.
# ```

# %%
draws = rng.normal(1.0, 2.0, size=(3000, 8))
ks_p = stats.ks_2samp(draws[:, 0], draws[:, -1]).pvalue
print(f"KS test, 1st vs 8th draw over 3000 repetitions: p = {ks_p:.2f}")
joint_ll = stats.multivariate_normal.logpdf(draws[0], np.ones(8), 4 * np.eye(8))
sum_ll = float(P.log_likelihood(P.normal_logpdf, draws[0], 1.0, 4.0))
print(f"joint log-density of one draw as an 8-D Gaussian N(1, 4I): {joint_ll:.6f}")
print(f"sum of the 8 univariate log-densities:                     {sum_ll:.6f}")
verify("CA-27")

# %% [markdown]
# Large products are "inconvenient": 1000 standard normal densities multiply to exactly
# 0.0 in float64. The log turns the product into a sum, the **log-likelihood**
# $L(s) = \sum_i \log f(x_i; s)$, and the **maximum likelihood** (ML) principle picks
# $s^* = \arg\max_s L(s)$. When $f$ is differentiable, gradient ascent finds it. Here it
# runs on the mean and the *log*-variance of a Gaussian, so the variance stays positive
# whatever the step; the hand-written gradient matches PyTorch's autograd.

# %%
x1000 = rng.normal(size=1000)
log_lik_1000 = float(P.log_likelihood(P.normal_logpdf, x1000, 0.0, 1.0))
print(f"∏ N(x_i) = {np.prod(stats.norm.pdf(x1000))}; Σ log N(x_i) = {log_lik_1000:.1f}")
data = rng.normal(3.0, 1.7, size=500)
mu_gd, var_gd, res = P.fit_gaussian_gd(data, lr=0.5, steps=400)
mu_ml, var_ml = P.mle_gaussian(data)
print(
    f"gradient ascent: μ = {float(mu_gd):.5f}, σ² = {float(var_gd):.5f}; "
    f"closed form: μ* = {float(mu_ml):.5f}, σ²* = {float(var_ml):.5f}"
)
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(res.path[:, 0], np.exp(res.path[:, 1]), ".-", ms=3)
ax.plot([float(mu_ml)], [float(var_ml)], "r*", ms=12, label="E.A.8–E.A.9")
ax.set(xlabel="μ", ylabel="σ²", title="gradient ascent on the log-likelihood")
ax.legend()
plt.show()
verify("CA-20", "CA-21")

# %% [markdown]
# For a **Bernoulli** the ML estimate is the fraction of ones, $p^* = \frac1n\sum_i x_i$.
# For a **Gaussian** the log-likelihood is
# $L(\mu, \sigma^2) = -\frac n2\log(2\pi\sigma^2) - \frac{1}{2\sigma^2}\sum_i (x_i - \mu)^2$,
# and maximising it gives the empirical mean and variance (E.A.8–E.A.9),
# $\mu^* = \frac1n\sum_i x_i$ and $\sigma^{2*} = \frac1n\sum_i (x_i - \mu^*)^2$. On real
# data, the sepal lengths of the 150 iris flowers:

# %%
coin = (rng.random(250) < 0.37).astype(int)
p_grid = np.linspace(0.0001, 0.9999, 9999)
ll_grid = stats.bernoulli.logpmf(coin[:, None], p_grid[None, :]).sum(axis=0)
print(
    f"Bernoulli: fraction of ones {float(P.mle_bernoulli(coin)):.4f}; "
    f"grid argmax {float(P.grid_argmax(ll_grid, p_grid)):.4f}"
)
sepal = load_iris()[0][:, 0]
mu_s, var_s = P.mle_gaussian(sepal)
loc, scale = stats.norm.fit(sepal)
print(
    f"iris sepal length: μ* = {float(mu_s):.4f}, σ²* = {float(var_s):.4f}; "
    f"scipy.stats.norm.fit: {loc:.4f}, {scale**2:.4f}"
)
print(
    f"L(μ*, σ²*) = {float(P.gaussian_loglik(sepal, mu_s, var_s)):.4f} "
    f"= Σ scipy log-densities {stats.norm.logpdf(sepal, loc, scale).sum():.4f}"
)
verify("CA-22", "CA-23", "CA-24")

# %% [markdown]
# The ML variance uses the estimated mean, which sits closer to the data than the true
# mean does, so it comes out too small on average: its expectation is
# $\frac{n-1}{n}\sigma^2$. **Bessel's correction** divides by $n - 1$ instead and removes
# the bias; for large $n$ the two hardly differ. With $\sigma = 2$ and $n = 5$, over many
# repetitions:

# %%
reps = rng.normal(0.0, 2.0, size=(20_000 if FAST else 200_000, 5))
ml_var, bessel_var = reps.var(axis=1, ddof=0), reps.var(axis=1, ddof=1)
print(
    f"mean ML variance {ml_var.mean():.3f} (theory 4·4/5 = 3.2); "
    f"mean Bessel variance {bessel_var.mean():.3f} (theory 4)"
)
fig, ax = plt.subplots(figsize=(5.5, 3))
bins = np.linspace(0, 16, 65)
ax.hist(ml_var, bins=bins, alpha=0.5, label=f"ML (1/n): mean {ml_var.mean():.2f}")
ax.hist(
    bessel_var,
    bins=bins,
    alpha=0.5,
    label=f"Bessel (1/(n−1)): mean {bessel_var.mean():.2f}",
)
ax.axvline(4.0, color="k", label="true σ² = 4")
ax.set(
    xlabel="estimated variance",
    ylabel="repetitions",
    title="n = 5 samples per estimate",
)
ax.legend(fontsize=8)
plt.show()
verify("CA-25")

# %% [markdown]
# ## Summary
#
# * The product rule, the sum rule and Bayes' rule are all the algebra of probability;
#   the lottery table shows each one with exact numbers.
# * A density is the derivative of a CDF that starts at $-\infty$; it may exceed 1.
# * Categorical, Bernoulli and Gaussian distributions are the book's workhorses; compute
#   with log-probabilities and, for the multivariate Gaussian, with a Cholesky factor.
# * Expectations can be estimated by Monte Carlo, with an error that falls like
#   $1/\sqrt n$; the KL divergence is one such expectation, and it is not a distance.
# * Maximum likelihood maximises a sum of log-densities; for the Bernoulli and the
#   Gaussian the answers are the sample frequency, mean and (biased) variance.
#
# **What is not checked here.** All 25 claims of the appendix's digest (CA-01 to CA-25),
# two errata (EA-02, EA-03) and two remarks on loose wording (CA-26 "positive" entries,
# CA-27 "identical" samples) are verified above; nothing is left out. The
# appendix has no figures, code boxes or exercises; the plots above are added.
