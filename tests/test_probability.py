"""alice_lab.probability against SciPy, closed forms and autograd, on every backend.

References: ``scipy.stats`` (norm, multivariate_normal, bernoulli, multinomial, beta),
``scipy.special`` (xlogy, rel_entr, logsumexp), ``scipy.integrate``, torch autograd
and the appendix's lottery numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from alice_lab import probability as P


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# --- tables (A.1) ---------------------------------------------------------------------


def test_lottery_table_laws():
    j = P.joint_from_counts(P.LOTTERY_COUNTS)
    np.testing.assert_allclose(P.marginal(j, axis=1), [0.6, 0.3, 0.1])
    np.testing.assert_allclose(P.marginal(j, axis=0), [0.87, 0.13])
    r_given_w = P.conditional(j, given_axis=0)
    w_given_r = P.conditional(j, given_axis=1)
    np.testing.assert_allclose(r_given_w.sum(axis=1), 1.0)
    np.testing.assert_allclose(w_given_r.sum(axis=0), 1.0)
    np.testing.assert_allclose(w_given_r[:, 1], [2 / 13, 3 / 13, 8 / 13])
    # Bayes turns p(w=3 | r) into p(r | w=3), as the table itself says
    np.testing.assert_allclose(P.bayes(w_given_r[2], P.marginal(j, 0)), r_given_w[2])
    # batched: one posterior per observed w
    np.testing.assert_allclose(P.bayes(w_given_r, P.marginal(j, 0)), r_given_w)
    assert not P.is_independent(j)
    assert P.is_independent(np.outer([0.2, 0.8], [0.5, 0.25, 0.25]))


def test_table_errors():
    with pytest.raises(ValueError, match="non-negative"):
        P.joint_from_counts(np.array([[1, -1]]))
    with pytest.raises(ValueError, match="probability 0"):
        P.conditional(np.array([[0.5, 0.5], [0.0, 0.0]]), given_axis=0)
    with pytest.raises(ValueError, match=r"\(k,\)"):
        P.bayes(np.ones(3), np.ones(2) / 2)
    with pytest.raises(ValueError, match="impossible"):
        P.bayes(np.zeros(2), np.array([0.5, 0.5]))


# --- distributions (A.3) and the chapter-3 likelihoods --------------------------------


def test_categorical_parity(backend, rng):
    probs = rng.dirichlet(np.ones(4), size=30)
    probs[0] = [0.0, 1.0, 0.0, 0.0]  # zeros off the observed class: 0 log 0 = 0
    labels = rng.integers(0, 4, size=30)
    labels[0] = 1
    onehot = np.eye(4)[labels]
    want = np.log(probs[np.arange(30), labels])
    ref = np.array(
        [stats.multinomial.logpmf(o, 1, p) for o, p in zip(onehot, probs, strict=True)]
    )
    np.testing.assert_allclose(want, ref, rtol=1e-12)
    X, Pb = backend.asarray(onehot), backend.asarray(probs)
    got = backend.to_numpy(P.categorical_logpmf(X, Pb))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(backend.to_numpy(P.categorical_pmf(X, Pb)), np.exp(want))
    nll_int = P.categorical_nll(backend.asarray(labels), Pb)
    nll_hot = P.categorical_nll(X, Pb)
    np.testing.assert_allclose(backend.to_numpy(nll_int), -want, rtol=1e-12)
    np.testing.assert_allclose(backend.to_numpy(nll_hot), -want, rtol=1e-12)


def test_categorical_zero_probability_on_the_observed_class():
    nll = P.categorical_nll(np.array([0]), np.array([[0.0, 1.0]]))
    assert nll.tolist() == [np.inf]
    logp = P.categorical_logpmf(np.array([[0, 1]]), np.array([0.0, 1.0]))
    assert logp.tolist() == [0.0]  # no NaN from 0 * log 0


def test_categorical_errors():
    with pytest.raises(ValueError, match="one-hot"):
        P.categorical_logpmf(np.array([[1, 1, 0]]), np.ones(3) / 3)
    with pytest.raises(ValueError, match=r"\(n, k\)"):
        P.categorical_logpmf(np.array([[1, 0]]), np.ones(3) / 3)
    with pytest.raises(ValueError, match=r"0\.\.2"):
        P.categorical_nll(np.array([3]), np.ones((1, 3)) / 3)
    with pytest.raises(ValueError, match="integer labels"):
        P.categorical_nll(np.array([0.0]), np.ones((1, 3)) / 3)


def test_bernoulli_parity(backend):
    x = np.array([1, 0, 1, 1, 0], dtype=np.float64)
    for p in (0.0, 0.3, 1.0):
        got = backend.to_numpy(P.bernoulli_logpmf(backend.asarray(x), p))
        np.testing.assert_allclose(got, stats.bernoulli.logpmf(x, p))
    with pytest.raises(ValueError, match="0s and 1s"):
        P.bernoulli_logpmf(np.array([2.0]), 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        P.bernoulli_logpmf(np.array([1.0]), 1.5)


def test_normal_parity(backend, rng):
    x, mu, s = rng.normal(size=50) * 3, rng.normal(size=50), rng.uniform(0.1, 3, 50)
    got = P.normal_logpdf(
        backend.asarray(x), backend.asarray(mu), backend.asarray(s**2)
    )
    np.testing.assert_allclose(
        backend.to_numpy(got), stats.norm.logpdf(x, mu, s), rtol=1e-12
    )
    got = P.normal_pdf(backend.asarray(x), 0.5, 2.0)  # scalar parameters
    np.testing.assert_allclose(
        backend.to_numpy(got), stats.norm.pdf(x, 0.5, np.sqrt(2.0)), rtol=1e-12
    )


def test_normal_errors():
    with pytest.raises(ValueError, match="> 0"):
        P.normal_logpdf(np.zeros(3), 0.0, 0.0)
    with pytest.raises(ValueError, match="shape of x"):
        P.normal_logpdf(np.zeros(3), np.zeros(2), 1.0)


def test_gaussian_pseudo_loss_parity_and_floor(backend, rng):
    y, f = rng.normal(size=40), rng.normal(size=(40, 2))
    want = -stats.norm.logpdf(y, f[:, 0], np.abs(f[:, 1]))
    got = P.gaussian_pseudo_loss(backend.asarray(y), backend.asarray(f))
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-12)
    floor = P.gaussian_pseudo_loss(
        np.array([0.0, 0.0]), np.array([[0.0, 0.0], [0.0, 1e-3]])
    )
    np.testing.assert_allclose(floor, -stats.norm.logpdf(0, 0, 1e-3), rtol=1e-12)
    with pytest.raises(ValueError, match=r"f \(n, 2\)"):
        P.gaussian_pseudo_loss(np.zeros(3), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="min_var"):
        P.gaussian_pseudo_loss(np.zeros(1), np.ones((1, 2)), min_var=0.0)


def test_gaussian_pseudo_loss_gradient_matches_autograd(rng):
    import torch

    y, f = rng.normal(size=10), rng.normal(size=(10, 2)) + np.array([0.0, 2.0])
    ft = torch.tensor(f, requires_grad=True)
    P.gaussian_pseudo_loss(torch.tensor(y), ft).sum().backward()
    v = f[:, 1] ** 2
    d_mean = (f[:, 0] - y) / v
    d_s = (1 / f[:, 1]) - (y - f[:, 0]) ** 2 / f[:, 1] ** 3  # d/ds of the NLL
    np.testing.assert_allclose(ft.grad.numpy(), np.c_[d_mean, d_s], rtol=1e-10)


def test_mvn_parity(backend, rng):
    A = rng.normal(size=(3, 3))
    S, mu, x = A @ A.T + np.eye(3), rng.normal(size=3), rng.normal(size=(20, 3))
    got = P.mvn_logpdf(backend.asarray(x), backend.asarray(mu), backend.asarray(S))
    want = stats.multivariate_normal.logpdf(x, mu, S)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-11)
    one = P.mvn_logpdf(backend.asarray(x[0]), backend.asarray(mu), backend.asarray(S))
    assert backend.to_numpy(one).shape == ()
    np.testing.assert_allclose(backend.to_numpy(one), want[0], rtol=1e-11)


def test_mvn_errors_and_sampling(rng):
    with pytest.raises(ValueError, match="positive definite"):
        P.mvn_logpdf(np.zeros(2), np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="symmetric"):
        P.mvn_logpdf(np.zeros(2), np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"Sigma \(k, k\)"):
        P.mvn_logpdf(np.zeros(2), np.zeros(2), np.eye(3))
    S = np.array([[2.0, -0.6], [-0.6, 0.5]])
    draws = P.mvn_sample([1.0, -1.0], S, 100_000, rng)
    np.testing.assert_allclose(draws.mean(axis=0), [1.0, -1.0], atol=0.02)
    np.testing.assert_allclose(np.cov(draws.T), S, atol=0.03)


def test_mvn_jax_gives_an_error_not_nan_for_indefinite_sigma():
    import jax.numpy as jnp

    with pytest.raises(ValueError, match="positive definite"):
        P.mvn_logpdf(jnp.zeros(2), jnp.zeros(2), jnp.array([[1.0, 2.0], [2.0, 1.0]]))


def test_numeric_cdf_parity(backend):
    x = np.linspace(-9, 3, 6001)
    got = P.numeric_cdf(backend.asarray(stats.norm.pdf(x)), backend.asarray(x))
    np.testing.assert_allclose(backend.to_numpy(got), stats.norm.cdf(x), atol=1e-6)
    with pytest.raises(ValueError, match="increasing"):
        P.numeric_cdf(np.ones(3), np.array([0.0, 2.0, 1.0]))


# --- moments, Monte Carlo, KL (A.4-A.5) -----------------------------------------------


def test_expectations_and_running_mean(backend):
    w, p = np.array([1.0, 2.0, 3.0]), np.array([0.6, 0.3, 0.1])
    assert float(
        P.expectation(backend.asarray(w), backend.asarray(p))
    ) == pytest.approx(1.5)
    var = float(P.moment(w, p, 2)) - 1.5**2
    assert var == pytest.approx(stats.rv_discrete(values=(w, p)).var())
    v = np.array([3.0, 1.0, 2.0, 6.0])
    got = P.running_mean(backend.asarray(v))
    np.testing.assert_allclose(backend.to_numpy(got), np.cumsum(v) / np.arange(1, 5))


def test_mc_expectation_standard_error(rng):
    x = rng.normal(size=40_000)
    est = P.mc_expectation(lambda s: s**2, x)
    assert abs(est.mean - 1.0) < 4 * est.stderr
    assert est.stderr == pytest.approx(np.sqrt(2 / 40_000), rel=0.05)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        P.mc_expectation(lambda s: s[:2], np.ones(3))


def test_kl_and_entropy(backend, rng):
    for _ in range(5):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        got = float(P.kl_discrete(backend.asarray(p), backend.asarray(q)))
        assert got == pytest.approx(special.rel_entr(p, q).sum(), rel=1e-12)
        assert float(P.entropy(backend.asarray(p))) == pytest.approx(stats.entropy(p))
    zero_p = np.array([0.0, 0.5, 0.5])
    assert float(P.kl_discrete(zero_p, np.array([0.2, 0.4, 0.4]))) == pytest.approx(
        stats.entropy(zero_p, [0.2, 0.4, 0.4])
    )
    assert float(P.kl_discrete(np.array([0.5, 0.5]), np.array([1.0, 0.0]))) == np.inf
    with pytest.raises(ValueError, match="simplex"):
        P.kl_discrete(np.array([0.5, 0.6]), np.array([0.5, 0.5]))


def test_kl_normal_against_quadrature_and_mc(rng):
    from scipy.integrate import quad

    m1, v1, m2, v2 = 0.3, 0.5, -1.0, 2.0
    want = quad(
        lambda t: (
            stats.norm.pdf(t, m1, np.sqrt(v1))
            * (
                stats.norm.logpdf(t, m1, np.sqrt(v1))
                - stats.norm.logpdf(t, m2, np.sqrt(v2))
            )
        ),
        -20,
        20,
    )[0]
    assert P.kl_normal(m1, v1, m2, v2) == pytest.approx(want, rel=1e-9)
    x = rng.normal(m1, np.sqrt(v1), size=100_000)
    est = P.kl_mc(
        lambda s: P.normal_logpdf(s, m1, v1), lambda s: P.normal_logpdf(s, m2, v2), x
    )
    assert abs(est.mean - want) < 4 * est.stderr
    with pytest.raises(ValueError, match="> 0"):
        P.kl_normal(0, 0, 0, 1)


# --- maximum likelihood (A.6, §3.2.3) -------------------------------------------------


def test_ml_estimates(backend, rng):
    x = rng.normal(2.0, 0.7, size=200)
    mu, var = P.mle_gaussian(backend.asarray(x))
    loc, scale = stats.norm.fit(x)
    assert float(mu) == pytest.approx(loc) and float(var) == pytest.approx(scale**2)
    assert float(P.mle_gaussian(backend.asarray(x), ddof=1)[1]) == pytest.approx(
        x.var(ddof=1)
    )
    ll = P.gaussian_loglik(backend.asarray(x), 1.5, 0.8)
    assert float(ll) == pytest.approx(stats.norm.logpdf(x, 1.5, np.sqrt(0.8)).sum())
    b = (rng.random(100) < 0.3).astype(np.float64)
    assert float(P.mle_bernoulli(backend.asarray(b))) == pytest.approx(b.mean())
    total = P.log_likelihood(P.normal_logpdf, backend.asarray(x), 2.0, 0.5)
    assert float(total) == pytest.approx(stats.norm.logpdf(x, 2.0, np.sqrt(0.5)).sum())


def test_fit_gaussian_gd_matches_closed_form(backend, rng):
    x = rng.normal(-1.0, 1.3, size=300)
    mu, var, res = P.fit_gaussian_gd(backend.asarray(x), lr=0.5, steps=300)
    assert float(mu) == pytest.approx(x.mean(), abs=1e-6)
    assert float(var) == pytest.approx(x.var(), rel=1e-6)
    assert type(res.x) is type(backend.asarray(x))


def test_ml_errors():
    with pytest.raises(ValueError, match="0s and 1s"):
        P.mle_bernoulli(np.array([0.5]))
    with pytest.raises(ValueError, match="ddof"):
        P.mle_gaussian(np.array([1.0]), ddof=1)
    with pytest.raises(ValueError, match="> 0"):
        P.gaussian_loglik(np.zeros(3), 0.0, -1.0)


# --- Bayesian learning (§3.3) ---------------------------------------------------------


def test_grid_posterior_parity_and_extreme_values(backend):
    g = np.linspace(0.01, 0.99, 99)
    ll = 300 * np.log(g) + 700 * np.log1p(-g) - 5000.0  # exp underflows everywhere
    lp = stats.beta.logpdf(g, 2, 3)
    got = backend.to_numpy(P.grid_posterior(backend.asarray(ll), backend.asarray(lp)))
    np.testing.assert_allclose(got, ll + lp - special.logsumexp(ll + lp), atol=1e-9)
    assert np.exp(got).sum() == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="every grid point"):
        P.grid_posterior(np.full(3, -np.inf), np.zeros(3))


def test_conjugate_updates_and_map():
    x = np.array([1, 0, 1, 1, 1, 0, 1])
    a, b = P.beta_bernoulli_posterior(2, 3, x)
    assert (a, b) == (7, 5)
    mode = stats.beta(a, b).pdf(np.linspace(0, 1, 100_001)).argmax() / 100_000
    assert P.map_beta_bernoulli(2, 3, 5, 7) == pytest.approx(mode, abs=1e-5)
    mu_n, var_n = P.normal_mean_posterior(1.0, 4.0, 0.25, np.array([0.2, 0.4]))
    # the same answer written as precision-weighted average
    prec = 1 / 4.0 + 2 / 0.25
    assert var_n == pytest.approx(1 / prec) and mu_n == pytest.approx(
        (1 / 4 + 0.6 / 0.25) / prec
    )
    with pytest.raises(ValueError, match="> 0"):
        P.beta_bernoulli_posterior(0, 1, x)
    with pytest.raises(ValueError, match="0s and 1s"):
        P.beta_bernoulli_posterior(1, 1, np.array([2]))
    with pytest.raises(ValueError, match="interior mode"):
        P.map_beta_bernoulli(0.5, 1, 1, 2)


def test_mc_predictive_is_a_plain_average(backend):
    theta = stats.beta.rvs(3, 2, size=100_000, random_state=np.random.default_rng(1))
    got = float(P.mc_predictive(lambda t: t, backend.asarray(theta)))
    assert got == pytest.approx(0.6, abs=0.005)
    with pytest.raises(ValueError, match="one likelihood per sample"):
        P.mc_predictive(lambda t: t[:3], np.ones(5))


def test_grid_argmax(backend):
    o, g = np.array([0.1, 3.0, 2.0]), np.array([10.0, 20.0, 30.0])
    assert float(P.grid_argmax(backend.asarray(o), backend.asarray(g))) == 20.0
    with pytest.raises(ValueError, match=r"\(G,\)"):
        P.grid_argmax(np.ones(3), np.ones(2))
