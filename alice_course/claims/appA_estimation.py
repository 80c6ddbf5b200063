"""Checkable claims and errata of Appendix A, §A.4-A.6: expectations and Monte Carlo,
the KL divergence, and maximum likelihood (lines 6941-7009).

References outside ``alice_lab``: ``scipy.stats`` (norm, entropy, multivariate_normal),
``scipy.special.rel_entr``, PyTorch autograd, closed forms, and the appendix's numbers.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _rng


@claim(
    "CA-17",
    section="A.4",
    lines=(6943, 6943),
    statement="(μ, σ²) are sufficient statistics of a Gaussian: two different datasets "
    "with the same size, mean and variance have the same log-likelihood at every "
    "(μ, σ²), hence the same ML fit.",
)
def _ca_17() -> str:
    from scipy.stats import norm

    from alice_lab.probability import gaussian_loglik, mle_gaussian

    rng = _rng(17)
    a = rng.normal(size=40)
    b = rng.exponential(size=40)
    b = (b - b.mean()) / b.std() * a.std() + a.mean()  # same mean and variance
    assert not np.allclose(np.sort(a), np.sort(b))
    for mu, var in ((0.0, 1.0), (0.5, 2.0), (-1.0, 0.3)):
        la, lb = float(gaussian_loglik(a, mu, var)), float(gaussian_loglik(b, mu, var))
        assert (
            abs(la - lb) < 1e-9
            and abs(la - norm.logpdf(a, mu, np.sqrt(var)).sum()) < 1e-9
        )
    fa, fb = mle_gaussian(a), mle_gaussian(b)
    assert np.allclose([float(v) for v in fa], [float(v) for v in fb])
    return "equal log-likelihoods at 3 parameter values and equal ML fits"


@claim(
    "CA-18",
    section="A.4",
    lines=(6945, 6959),
    statement="Expectations (E.A.6) and their Monte Carlo estimates (E.A.7): the "
    "lottery's E[w] = 1·0.6 + 2·0.3 + 3·0.1 = 1.5; 10⁵ samples estimate it within "
    "0.01, and the error shrinks like 1/√n.",
    equation="E.A.7",
)
def _ca_18() -> str:
    from alice_lab.probability import expectation, mc_expectation, moment

    w, p = np.array([1.0, 2.0, 3.0]), np.array([0.6, 0.3, 0.1])
    exact = float(expectation(w, p))
    assert abs(exact - 1.5) < 1e-15 and abs(float(moment(w, p, 1)) - exact) < 1e-15
    rng = _rng(18)
    est = mc_expectation(lambda x: x, rng.choice(w, size=100_000, p=p))
    assert abs(est.mean - 1.5) < 0.01, est
    ns = np.array([100, 400, 1600, 6400])
    rmse = [
        np.sqrt(np.mean((rng.choice(w, size=(400, n), p=p).mean(axis=1) - 1.5) ** 2))
        for n in ns
    ]
    slope = np.polyfit(np.log(ns), np.log(rmse), 1)[0]
    assert abs(slope + 0.5) < 0.08, slope
    return f"E[w] = {exact}; MC (10⁵) = {est.mean:.4f}; error slope {slope:.3f} (−½)"


@claim(
    "CA-19",
    section="A.5",
    lines=(6963, 6967),
    statement="KL(p‖q) is ≥ 0, 0 only for p = q, asymmetric, unbounded, infinite when "
    "supp p ⊄ supp q, breaks the triangle inequality, and can be estimated by Monte "
    "Carlo.",
)
def _ca_19() -> str:
    from scipy.special import rel_entr
    from scipy.stats import entropy, norm

    from alice_lab.probability import kl_discrete, kl_mc, kl_normal, normal_logpdf

    rng = _rng(19)
    for _ in range(50):
        p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
        kl = float(kl_discrete(p, q))
        assert (
            kl >= 0
            and abs(kl - entropy(p, q)) < 1e-12
            and abs(kl - rel_entr(p, q).sum()) < 1e-12
        )
        assert abs(float(kl_discrete(p, p))) < 1e-15
    fwd, bwd = kl_normal(0, 1, 1, 4), kl_normal(1, 4, 0, 1)
    assert abs(fwd - bwd) > 0.5, (fwd, bwd)
    grows = [
        float(kl_discrete(np.array([0.5, 0.5]), np.array([e, 1 - e])))
        for e in (1e-2, 1e-8, 1e-16)
    ]
    assert grows[0] < grows[1] < grows[2] and grows[2] > 17
    assert float(kl_discrete(np.array([0.5, 0.5]), np.array([1.0, 0.0]))) == np.inf

    def bern(a):
        return np.array([1 - a, a])

    tri = (
        float(kl_discrete(bern(0.1), bern(0.9))),
        float(kl_discrete(bern(0.1), bern(0.5)))
        + float(kl_discrete(bern(0.5), bern(0.9))),
    )
    assert round(tri[0], 3) == 1.758 and round(tri[1], 3) == 0.879 and tri[0] > tri[1]
    x = norm.rvs(0, 1, size=200_000, random_state=rng)
    est = kl_mc(
        lambda s: normal_logpdf(s, 0.0, 1.0), lambda s: normal_logpdf(s, 1.0, 4.0), x
    )
    assert abs(est.mean - fwd) < 3 * est.stderr, (est, fwd)
    return (
        f"KL(N(0,1)‖N(1,4)) = {fwd:.4f} ≠ {bwd:.4f} reversed; MC {est.mean:.4f}; "
        f"triangle: {tri[0]:.3f} > {tri[1]:.3f}"
    )


@claim(
    "CA-20",
    section="A.6",
    lines=(6973, 6977),
    statement="Products of many densities underflow ('inconvenient'): for 1000 "
    "standard normal samples ∏ N(x_i) is 0.0 in float64, while the log-likelihood "
    "sum is about −1400 and perfectly finite.",
)
def _ca_20() -> str:
    from scipy.stats import norm

    from alice_lab.probability import log_likelihood, normal_logpdf

    x = _rng(20).normal(size=1000)
    prod = float(np.prod(norm.pdf(x)))
    ll = float(log_likelihood(normal_logpdf, x, 0.0, 1.0))
    assert prod == 0.0 and np.isfinite(ll) and abs(ll - norm.logpdf(x).sum()) < 1e-9
    assert ll < np.log(np.finfo(float).tiny), ll
    return f"∏ = {prod}, Σ log = {ll:.1f} (float64 bottoms out near −745)"


@claim(
    "CA-27",
    section="A.6",
    lines=(6971, 6975),
    statement=(
        "i.i.d. samples are identically distributed and independent: every x_i "
        "has the same distribution (the first and the last draw agree over many"
        " repetitions) and the joint density is the product, a Gaussian with "
        "covariance σ²I."
    ),
)
def _ca_27() -> str:
    from scipy.stats import ks_2samp, multivariate_normal, norm

    from alice_lab.probability import log_likelihood, normal_logpdf

    rng = _rng(40)
    draws = rng.normal(1.0, 2.0, size=(3000, 8))
    p = ks_2samp(draws[:, 0], draws[:, -1]).pvalue
    assert p > 0.01, p
    x = draws[0]
    joint = multivariate_normal.logpdf(x, np.full(8, 1.0), 4.0 * np.eye(8))
    ll = float(log_likelihood(normal_logpdf, x, 1.0, 4.0))
    assert abs(joint - ll) < 1e-10 and abs(ll - norm.logpdf(x, 1, 2).sum()) < 1e-10
    return f"KS p(first vs last draw) = {p:.2f}; joint = Σ log f(x_i) = {ll:.4f}"


@claim(
    "CA-21",
    section="A.6",
    lines=(6981, 6987),
    statement="The ML principle maximises Σ log f(x_i; s); for a differentiable f "
    "gradient ascent gets there: on Gaussian data it converges to the closed forms "
    "E.A.8-E.A.9, with the hand-written gradient equal to PyTorch's.",
)
def _ca_21() -> str:
    import torch

    from alice_lab.probability import fit_gaussian_gd, mle_gaussian

    x = _rng(21).normal(3.0, 1.7, size=500)
    mu, var, res = fit_gaussian_gd(x, lr=0.5, steps=400, init=(0.0, 0.0))
    mu_ml, var_ml = (float(v) for v in mle_gaussian(x))
    assert abs(float(mu) - mu_ml) < 1e-4 and abs(float(var) - var_ml) < 1e-4
    th = torch.tensor([0.7, -0.2], dtype=torch.float64, requires_grad=True)
    xt = torch.tensor(x)
    J = (
        0.5 * np.log(2 * np.pi)
        + 0.5 * th[1]
        + ((xt - th[0]) ** 2).mean() / (2 * torch.exp(th[1]))
    )
    J.backward()
    path = fit_gaussian_gd(x, lr=1.0, steps=1, init=(0.7, -0.2))[2].path
    ours = path[0] - path[1]  # x_1 = x_0 - 1.0 * grad
    assert np.allclose(ours, th.grad.numpy(), rtol=1e-12, atol=1e-12), (ours, th.grad)
    return (
        f"GD: μ = {float(mu):.5f}, σ² = {float(var):.5f}; closed form {mu_ml:.5f}, "
        f"{var_ml:.5f}"
    )


@claim(
    "CA-22",
    section="A.6",
    lines=(6989, 6993),
    statement="The Bernoulli ML estimate is the fraction of ones, p* = Σ x_i / n: it "
    "maximises the log-likelihood over a fine grid of p.",
)
def _ca_22() -> str:
    from scipy.stats import bernoulli

    from alice_lab.probability import grid_argmax, mle_bernoulli

    x = (_rng(22).random(250) < 0.37).astype(int)
    grid = np.linspace(0.0001, 0.9999, 9999)
    ll = bernoulli.logpmf(x[:, None], grid[None, :]).sum(axis=0)
    p_star = float(mle_bernoulli(x))
    assert (
        abs(float(grid_argmax(ll, grid)) - p_star) <= 1e-4 and p_star == x.sum() / 250
    )
    return f"p* = {p_star} = grid argmax"


@claim(
    "CA-23",
    section="A.6",
    lines=(6997, 7001),
    statement="The Gaussian log-likelihood is L(μ, σ²) = −(n/2) log(2πσ²) − "
    "Σ(x_i − μ)²/(2σ²), the sum of SciPy's log-densities.",
)
def _ca_23() -> str:
    from scipy.stats import norm

    from alice_lab.probability import gaussian_loglik

    x = _rng(23).normal(size=77)
    errs = [
        abs(float(gaussian_loglik(x, m, v)) - norm.logpdf(x, m, np.sqrt(v)).sum())
        for m, v in ((0.0, 1.0), (0.3, 0.2), (-2.0, 5.0))
    ]
    assert max(errs) < 1e-10, errs
    return f"max error {max(errs):.1e} at 3 parameter values"


@claim(
    "CA-24",
    section="A.6",
    lines=(7003, 7007),
    statement="Maximising L gives the empirical mean μ* (E.A.8) and the empirical "
    "variance with 1/n, σ²* (E.A.9), SciPy's normal fit.",
    equation="E.A.9",
)
def _ca_24() -> str:
    from scipy.stats import norm

    from alice_lab.probability import mle_gaussian

    x = _rng(24).normal(-1.0, 0.6, size=300)
    mu, var = (float(v) for v in mle_gaussian(x))
    loc, scale = norm.fit(x)
    assert abs(mu - loc) < 1e-12 and abs(var - scale**2) < 1e-12
    assert abs(mu - x.mean()) < 1e-15 and abs(var - x.var(ddof=0)) < 1e-15
    return f"μ* = {mu:.5f}, σ²* = {var:.5f} (= scipy.stats.norm.fit)"


@claim(
    "CA-25",
    section="A.6",
    lines=(7007, 7009),
    statement="The ML variance is biased: its average is (n − 1)/n σ² (3.2 for σ = 2, "
    "n = 5); Bessel's 1/(n − 1) removes the bias, and the difference vanishes for "
    "large n.",
    equation="E.A.9",
)
def _ca_25() -> str:
    from alice_lab.probability import mle_gaussian

    x = _rng(25).normal(0.0, 2.0, size=(200_000, 5))
    ml = x.var(axis=1, ddof=0).mean()
    bessel = x.var(axis=1, ddof=1).mean()
    assert abs(ml - 3.2) < 0.03 and abs(bessel - 4.0) < 0.04, (ml, bessel)
    one = x[0]
    assert abs(float(mle_gaussian(one, ddof=1)[1]) - one.var(ddof=1)) < 1e-12
    big = _rng(26).normal(0.0, 2.0, size=1000)
    rel = float(mle_gaussian(big, ddof=1)[1] / mle_gaussian(big)[1]) - 1
    assert abs(rel - 1 / 999) < 1e-12
    return (
        f"mean ML variance {ml:.3f} (3.2), Bessel {bessel:.3f} (4.0); n = 1000 gap "
        f"{rel:.1e}"
    )
