"""Checkable claims and errata of Chapter 3, §3.3 Bayesian learning (lines 1284-1312).

The running example is a coin with unknown bias θ (a Bernoulli likelihood), where the
Beta prior is conjugate and every quantity has a closed form in ``scipy.stats.beta``
and ``scipy.special``; the regulariser claim compares a MAP fit with scikit-learn's
ridge regression.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _np, _rng

GRID = np.linspace(0.0005, 0.9995, 1000)  # midpoints of 1000 cells of [0, 1]


def _coin(n: int, seed: int, p: float = 0.7) -> np.ndarray:
    return (_rng(seed).random(n) < p).astype(float)


def _bern_loglik(x: np.ndarray) -> np.ndarray:
    h, n = x.sum(), x.size
    return h * np.log(GRID) + (n - h) * np.log1p(-GRID)  # (G,)


@claim(
    "C3-19",
    section="3.3",
    lines=(1290, 1290),
    statement="A prior p(f) ∝ 1/‖f‖ prefers small norms but is improper on ℝᵈ (d ≥ 2): "
    "its mass inside a ball of radius R grows without bound (2πR for d = 2), so it "
    "cannot be normalised; its log adds the penalty log‖f‖ to the MAP objective.",
)
def _c3_19() -> str:
    from scipy.integrate import quad

    masses = []
    for R in (10.0, 100.0, 1000.0):
        radial, _ = quad(lambda r: 2 * np.pi * r * (1 / r), 0.0, R)  # d = 2, polar
        assert abs(radial - 2 * np.pi * R) < 1e-6 * R, (R, radial)
        masses.append(radial)
    assert masses[0] < masses[1] < masses[2], masses
    w = np.array([[0.1, 0.0], [1.0, 1.0], [3.0, 4.0]])
    penalty = np.log(np.linalg.norm(w, axis=1))  # −log p(f) up to a constant
    assert np.all(np.diff(penalty) > 0)
    return f"mass within R = 10, 100, 1000: {[round(m, 1) for m in masses]} (unbounded)"


@claim(
    "C3-20",
    section="3.3",
    lines=(1296, 1302),
    statement="The Bayesian predictive averages the models' predictions under the "
    "posterior, and a Monte Carlo average over k posterior samples estimates it: for "
    "a Beta(3, 2) posterior p(y = 1 | S) = 0.6.",
    equation="E.3.10",
)
def _c3_20() -> str:
    from scipy.stats import beta

    from alice_lab.probability import mc_predictive

    k = 200_000
    theta = beta.rvs(3, 2, size=k, random_state=_rng(20))
    est = float(mc_predictive(lambda t: t, theta))  # p(y = 1 | θ) = θ
    se = float(np.std(theta) / np.sqrt(k))
    assert abs(est - beta.mean(3, 2)) < 5 * se and beta.mean(3, 2) == 0.6, est
    return f"MC predictive with k = 2·10⁵: {est:.4f} (exact 0.6, ±{5 * se:.4f})"


@claim(
    "E3-01",
    section="3.3",
    lines=(1300, 1302),
    statement="With f_i drawn from the posterior the MC predictive is the plain "
    "average (1/k) Σ p(y | f_i(x)); multiplying each term by p(f_i | S_n) as well "
    "counts the posterior twice and estimates a different number (0.857 instead of "
    "0.6 for a Beta(3, 2) coin). The samples are f_i, not f_k.",
    equation="E.3.10",
    erratum="p(y | x) ≈ (1/k) Σ_i p(y | f_i(x)) p(f_i | S_n), with f_k ~ p(f | S_n)",
)
def _e3_01() -> str:
    from scipy.special import beta as B
    from scipy.stats import beta

    k = 200_000
    theta = beta.rvs(3, 2, size=k, random_state=_rng(20))
    plain = float(np.mean(theta))
    printed = float(np.mean(theta * beta.pdf(theta, 3, 2)))
    printed_exact = 144 * B(6, 3)  # E[θ p(θ)] = ∫ θ p(θ)² dθ for Beta(3, 2)
    assert abs(plain - 0.6) < 0.005, plain
    assert abs(printed - printed_exact) < 0.01 and abs(printed - 0.6) > 0.2, printed
    return (
        f"plain average {plain:.4f} ≈ 0.6; as printed {printed:.4f} ≈ 144·B(6,3) = "
        f"{printed_exact:.4f}"
    )


@claim(
    "C3-27",
    section="3.3",
    lines=(1296, 1298),
    statement=(
        "The predictive E.3.9 averages over models, p(y | x) = ∫ p(y | f(x)) "
        "p(f | S_n) df (the book's ∫_f names the variable of integration): for "
        "the coin, ∫ θ·Beta(θ; 3, 2) dθ = 0.6 by quadrature."
    ),
    equation="E.3.9",
)
def _c3_27() -> str:
    from scipy.integrate import quad
    from scipy.stats import beta

    val, err = quad(lambda t: t * beta.pdf(t, 3, 2), 0.0, 1.0)
    assert abs(val - 0.6) < 1e-10, val
    return f"∫ θ p(θ | S) dθ = {val:.10f}"


@claim(
    "C3-21",
    section="3.3",
    lines=(1292, 1296),
    statement="Bayes' rule (E.3.8): the evidence p(S_n) only normalises, so a grid "
    "posterior normalised with logsumexp sums to 1, keeps the ratios of likelihood × "
    "prior, and survives log-likelihoods far below the float range.",
    equation="E.3.8",
)
def _c3_21() -> str:
    from scipy.special import logsumexp

    from alice_lab.probability import grid_posterior

    x = _coin(20_000, 21)
    ll = _bern_loglik(x)
    lp = np.log(np.full_like(GRID, 1 / GRID.size))
    post = _np(grid_posterior(ll, lp))
    assert np.max(ll) < -10_000, "the example should underflow naively"
    assert abs(np.exp(post).sum() - 1) < 1e-12
    assert np.allclose(post, ll + lp - logsumexp(ll + lp), atol=1e-9)
    i, j = np.argsort(post)[-2:]
    assert abs((post[i] - post[j]) - (ll[i] - ll[j])) < 1e-8
    return f"max log-likelihood {ll.max():.0f}; Σ posterior = {np.exp(post).sum():.15f}"


@claim(
    "C3-22",
    section="3.3",
    lines=(1304, 1308),
    statement="The MAP solution ignores the evidence and maximises log-likelihood + "
    "log-prior (E.3.11-E.3.12); for a coin with a Beta(a, b) prior it is "
    "(h + a − 1)/(n + a + b − 2), the mode of the Beta posterior.",
    equation="E.3.12",
)
def _c3_22() -> str:
    from scipy.optimize import minimize_scalar
    from scipy.stats import beta

    from alice_lab.probability import grid_argmax, map_beta_bernoulli

    x, a, b = _coin(40, 22), 4.0, 2.5
    h, n = int(x.sum()), x.size
    closed = map_beta_bernoulli(a, b, h, n)
    grid = float(grid_argmax(_bern_loglik(x) + beta.logpdf(GRID, a, b), GRID))
    mode = minimize_scalar(
        lambda t: -beta.logpdf(t, a + h, b + n - h), bounds=(0, 1), method="bounded"
    ).x
    assert abs(grid - closed) <= 5e-4 and abs(mode - closed) < 1e-5, (
        grid,
        closed,
        mode,
    )
    return (
        f"h = {h}/{n}: closed form {closed:.4f}, grid {grid:.4f}, "
        f"posterior mode {mode:.4f}"
    )


@claim(
    "C3-23",
    section="3.3",
    lines=(1310, 1310),
    statement="With a uniform prior the log-prior is constant and MAP reduces to "
    "maximum likelihood: Beta(1, 1) gives h/n.",
)
def _c3_23() -> str:
    from alice_lab.probability import grid_argmax, map_beta_bernoulli

    x = _coin(37, 23)
    h, n = int(x.sum()), x.size
    ml = float(grid_argmax(_bern_loglik(x), GRID))
    mp = float(grid_argmax(_bern_loglik(x) + np.zeros_like(GRID), GRID))
    assert (
        map_beta_bernoulli(1, 1, h, n) == h / n and ml == mp and abs(ml - h / n) < 5e-4
    )
    return f"MAP = ML = {h}/{n} = {h / n:.4f}"


@claim(
    "C3-24",
    section="3.3",
    lines=(1310, 1310),
    statement="The log-prior acts as a regulariser: a Gaussian prior N(0, τ²I) on the "
    "weights of a linear model with noise N(0, σ²) makes MAP equal to ridge regression "
    "with λ = σ²/τ², shrinking the weights towards 0 compared with ML.",
)
def _c3_24() -> str:
    from sklearn.linear_model import Ridge

    from alice_lab.optim import gradient_descent

    rng = _rng(24)
    X = rng.normal(size=(30, 5))
    y = X @ rng.normal(size=5) + 0.5 * rng.normal(size=30)
    sigma2, tau2 = 0.25, 0.05

    def grad_neg_log_post(w):  # ‖y − Xw‖²/(2σ²) + ‖w‖²/(2τ²)
        return -X.T @ (y - X @ w) / sigma2 + w / tau2

    w_map = _np(gradient_descent(grad_neg_log_post, np.zeros(5), lr=1e-3, steps=5000).x)
    ridge = Ridge(alpha=sigma2 / tau2, fit_intercept=False, solver="cholesky").fit(X, y)
    w_ml = np.linalg.lstsq(X, y, rcond=None)[0]
    err = float(np.max(np.abs(w_map - ridge.coef_)))
    assert err < 1e-8, err
    assert np.linalg.norm(w_map) < np.linalg.norm(w_ml)
    return (
        f"|w_MAP − ridge(λ = σ²/τ² = 5)| = {err:.1e}; ‖w_MAP‖ = "
        f"{np.linalg.norm(w_map):.3f} < ‖w_ML‖ = {np.linalg.norm(w_ml):.3f}"
    )


@claim(
    "C3-25",
    section="3.3",
    lines=(1312, 1312),
    statement="Sequential updating: the posterior after S is the prior for S′, and "
    "the result equals the posterior from S ∪ S′ at once (grid and conjugate forms).",
)
def _c3_25() -> str:
    from scipy.stats import beta

    from alice_lab.probability import beta_bernoulli_posterior, grid_posterior

    x = _coin(80, 25)
    first, second = x[:30], x[30:]
    prior = beta.logpdf(GRID, 2, 2)
    seq = _np(
        grid_posterior(
            _bern_loglik(second), _np(grid_posterior(_bern_loglik(first), prior))
        )
    )
    batch = _np(grid_posterior(_bern_loglik(x), prior))
    assert np.allclose(seq, batch, atol=1e-10)
    a1, b1 = beta_bernoulli_posterior(2, 2, first.astype(int))
    conj_seq = beta_bernoulli_posterior(a1, b1, second.astype(int))
    conj_batch = beta_bernoulli_posterior(2, 2, x.astype(int))
    assert conj_seq == conj_batch and all(isinstance(v, int) for v in conj_seq)
    gap = np.abs(seq - batch).max()
    return f"grid max |Δ log p| = {gap:.1e}; Beta{conj_seq} both ways"


@claim(
    "C3-26",
    section="3.3",
    lines=(1302, 1302),
    statement="Closed-form posteriors exist for conjugate pairs: the Beta–Bernoulli "
    "and Normal–Normal (known variance) updates match the numerically normalised grid "
    "posteriors.",
)
def _c3_26() -> str:
    from scipy.stats import beta, norm

    from alice_lab.probability import (
        beta_bernoulli_posterior,
        grid_posterior,
        normal_mean_posterior,
    )

    x = _coin(50, 26)
    a, b = beta_bernoulli_posterior(3, 3, x.astype(int))
    dens = np.exp(_np(grid_posterior(_bern_loglik(x), beta.logpdf(GRID, 3, 3)))) / (
        GRID[1] - GRID[0]
    )
    e1 = float(np.max(np.abs(dens - beta.pdf(GRID, a, b))))
    data = _rng(27).normal(1.2, 0.8, size=25)
    mu_grid = np.linspace(-3, 5, 4001)
    ll = norm.logpdf(data[:, None], mu_grid[None, :], 0.8).sum(axis=0)
    post = np.exp(_np(grid_posterior(ll, norm.logpdf(mu_grid, 0.0, 1.0)))) / (
        mu_grid[1] - mu_grid[0]
    )
    mu_n, var_n = normal_mean_posterior(0.0, 1.0, 0.8**2, data)
    e2 = float(np.max(np.abs(post - norm.pdf(mu_grid, mu_n, np.sqrt(var_n)))))
    assert e1 < 1e-3 * beta.pdf(GRID, a, b).max() and e2 < 1e-3 * post.max(), (e1, e2)
    return (
        f"Beta({a}, {b}) vs grid: {e1:.1e}; N({mu_n:.3f}, {var_n:.4f}) vs grid: "
        f"{e2:.1e}"
    )
