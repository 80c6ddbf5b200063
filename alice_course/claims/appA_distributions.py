"""Checkable claims and errata of Appendix A, §A.1-A.3: the laws of probability on the
lottery table, densities and CDFs, and the common distributions (lines 6851-6939).

References outside ``alice_lab``: exact fractions (``fractions.Fraction``) for the
table, ``scipy.stats`` (norm, bernoulli, multinomial, multivariate_normal) and
``scipy.integrate.quad``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _np, _rng

#: Table T.A.1 as exact fractions of 100 tickets: rows w = 1, 2, 3; columns r = 1, 2
TABLE = [[58, 2], [27, 3], [2, 8]]


def _F(w: int, r: int) -> Fraction:
    return Fraction(TABLE[w - 1][r - 1], 100)


def _pw(w: int) -> Fraction:
    return _F(w, 1) + _F(w, 2)


def _pr(r: int) -> Fraction:
    return sum((_F(w, r) for w in (1, 2, 3)), Fraction(0))


@claim(
    "CA-01",
    section="A.1",
    lines=(6855, 6865),
    statement="The lottery distribution p(w) = (6/10, 3/10, 1/10) has non-negative "
    "entries summing to 1: it lies in the probability simplex.",
)
def _ca_01() -> str:
    from alice_lab.tensors import is_simplex

    p = [Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)]
    assert sum(p) == 1 and all(v >= 0 for v in p)
    assert is_simplex(np.array([0.6, 0.3, 0.1]))
    return "6/10 + 3/10 + 1/10 = 1 exactly"


@claim(
    "CA-26",
    section="A.1",
    lines=(6863, 6865),
    statement=(
        "The entries of a distribution are non-negative, p(w) ≥ 0, as the "
        "book's formula says: (0.7, 0.3, 0) is a valid distribution with finite"
        " log-probabilities of what can happen; a negative entry is not."
    ),
)
def _ca_26() -> str:
    from scipy.stats import multinomial

    from alice_lab.probability import categorical_logpmf
    from alice_lab.tensors import is_simplex

    p = np.array([0.7, 0.3, 0.0])
    assert is_simplex(p) and not is_simplex(np.array([0.8, 0.3, -0.1]))
    logp = _np(categorical_logpmf(np.eye(3), p))
    ref = [multinomial.logpmf(e, 1, p) for e in np.eye(3)]
    assert np.allclose(logp[:2], ref[:2]) and logp[2] == -np.inf == ref[2]
    return f"log p = {np.round(logp, 4).tolist()} (matches scipy)"


@claim(
    "CA-02",
    section="A.1",
    lines=(6867, 6877),
    statement="Table T.A.1: 87 real and 13 fake tickets out of 100, and the row sums "
    "60/30/10 reproduce p(w) = (0.6, 0.3, 0.1).",
    equation="Table T.A.1",
)
def _ca_02() -> str:
    from alice_lab.probability import LOTTERY_COUNTS, joint_from_counts, marginal

    c = LOTTERY_COUNTS
    assert c.tolist() == TABLE
    assert c.sum(axis=0).tolist() == [87, 13] and c.sum() == 100
    pw = _np(marginal(joint_from_counts(c), axis=1))
    assert np.allclose(pw, [0.6, 0.3, 0.1], atol=1e-15)
    assert [_pw(w) for w in (1, 2, 3)] == [
        Fraction(6, 10),
        Fraction(3, 10),
        Fraction(1, 10),
    ]
    return "column sums 87, 13; p(w) = (0.6, 0.3, 0.1)"


@claim(
    "CA-03",
    section="A.1",
    lines=(6879, 6881),
    statement="The joint probability p(r = 2, w = 3) = 8/100.",
)
def _ca_03() -> str:
    from alice_lab.probability import LOTTERY_COUNTS, joint_from_counts

    j = _np(joint_from_counts(LOTTERY_COUNTS))
    assert _F(3, 2) == Fraction(8, 100) and abs(j[2, 1] - 0.08) < 1e-15
    return f"p(r=2, w=3) = {j[2, 1]}"


@claim(
    "CA-04",
    section="A.1",
    lines=(6883, 6885),
    statement="The conditional p(r = 1 | w = 3) = p(r = 1, w = 3)/p(w = 3) = 0.2 (and "
    "so p(r = 2 | w = 3) = 0.8).",
)
def _ca_04() -> str:
    from alice_lab.probability import LOTTERY_COUNTS, conditional, joint_from_counts

    exact = _F(3, 1) / _pw(3)
    ours = _np(conditional(joint_from_counts(LOTTERY_COUNTS), given_axis=0))[2]
    assert exact == Fraction(1, 5) and np.allclose(ours, [0.2, 0.8], atol=1e-15)
    return f"p(r | w=3) = {np.round(ours, 12).tolist()} (exactly 1/5 and 4/5)"


@claim(
    "CA-05",
    section="A.1",
    lines=(6887, 6889),
    statement="Product rule (E.A.1): p(r, w) = p(r | w) p(w) for every cell of the "
    "table.",
    equation="E.A.1",
)
def _ca_05() -> str:
    from alice_lab.probability import (
        LOTTERY_COUNTS,
        conditional,
        joint_from_counts,
        marginal,
    )

    j = _np(joint_from_counts(LOTTERY_COUNTS))
    rebuilt = _np(conditional(j, given_axis=0)) * _np(marginal(j, axis=1))[:, None]
    exact = [[float((_F(w, r) / _pw(w)) * _pw(w)) for r in (1, 2)] for w in (1, 2, 3)]
    assert np.allclose(rebuilt, j, atol=1e-16) and np.allclose(rebuilt, exact)
    return "all 6 cells rebuilt"


@claim(
    "CA-06",
    section="A.1",
    lines=(6891, 6891),
    statement="Independence means p(r, w) = p(r)p(w); the lottery's r and w are not "
    "independent: p(r = 1, w = 1) = 0.58 but p(r = 1)p(w = 1) = 0.87 · 0.6 = 0.522.",
)
def _ca_06() -> str:
    from alice_lab.probability import LOTTERY_COUNTS, is_independent, joint_from_counts

    j = joint_from_counts(LOTTERY_COUNTS)
    assert not is_independent(j)
    assert _F(1, 1) == Fraction(58, 100) and _pr(1) * _pw(1) == Fraction(522, 1000)
    rank1 = np.outer([0.6, 0.3, 0.1], [0.87, 0.13])  # what independence would look like
    assert is_independent(rank1)
    return "0.58 ≠ 0.522; an outer product of the marginals is independent"


@claim(
    "CA-07",
    section="A.1",
    lines=(6893, 6893),
    statement="Sum rule (E.A.2): p(w) = Σ_r p(w, r) = Σ_r p(w | r) p(r).",
    equation="E.A.2",
)
def _ca_07() -> str:
    from alice_lab.probability import (
        LOTTERY_COUNTS,
        conditional,
        joint_from_counts,
        marginal,
    )

    j = _np(joint_from_counts(LOTTERY_COUNTS))
    via_cond = _np(conditional(j, given_axis=1)) @ _np(marginal(j, axis=0))
    assert np.allclose(via_cond, [0.6, 0.3, 0.1], atol=1e-15)
    exact = [sum((_F(w, r) / _pr(r)) * _pr(r) for r in (1, 2)) for w in (1, 2, 3)]
    assert exact == [Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)]
    return f"Σ_r p(w|r)p(r) = {np.round(via_cond, 12).tolist()}"


@claim(
    "CA-08",
    section="A.1",
    lines=(6895, 6899),
    statement="Bayes' rule (E.A.3) reverses conditionals: from p(w | r) and p(r), "
    "p(r = 2 | w = 3) = 0.8, p(r = 1 | w = 2) = 0.9, and a winning ticket (w ∈ {2, 3}) "
    "is real with probability 29/40 = 0.725, while p(win | fake) = 11/13.",
    equation="E.A.3",
)
def _ca_08() -> str:
    from alice_lab.probability import bayes

    pr = np.array([0.87, 0.13])
    lik = {w: np.array([float(_F(w, r) / _pr(r)) for r in (1, 2)]) for w in (1, 2, 3)}
    post3, post2 = _np(bayes(lik[3], pr)), _np(bayes(lik[2], pr))
    win = _np(bayes(lik[2] + lik[3], pr))
    assert np.allclose(post3, [0.2, 0.8]) and np.allclose(post2, [0.9, 0.1])
    exact_win = (_F(2, 1) + _F(3, 1)) / (_pw(2) + _pw(3))
    assert exact_win == Fraction(29, 40) and abs(win[0] - 0.725) < 1e-12
    assert (_F(2, 2) + _F(3, 2)) / _pr(2) == Fraction(11, 13)
    return f"p(r | w=3) = {post3.round(3).tolist()}, p(real | win) = {win[0]:.3f}"


@claim(
    "CA-09",
    section="A.2",
    lines=(6903, 6903),
    statement="A real-valued variable takes any single value with probability 0: "
    "P(a + h) − P(a − h) → 0 as h → 0 (linearly in h).",
)
def _ca_09() -> str:
    from scipy.stats import norm

    hs = np.array([1e-1, 1e-2, 1e-3, 1e-4])
    mass = norm.cdf(0.3 + hs) - norm.cdf(0.3 - hs)
    slope = np.polyfit(np.log(hs), np.log(mass), 1)[0]
    assert mass[-1] < 1e-4 and abs(slope - 1) < 0.01, (mass, slope)
    return f"mass of [0.3 ± h] for h = 1e-4: {mass[-1]:.2e}; log-log slope {slope:.3f}"


@claim(
    "CA-10",
    section="A.2",
    lines=(6905, 6907),
    statement="The density is the derivative of the CDF: a trapezoid CDF of the "
    "Gaussian density matches SciPy's CDF, and its numerical derivative gives back "
    "the density.",
)
def _ca_10() -> str:
    from scipy.stats import norm

    from alice_lab.probability import normal_pdf, numeric_cdf

    x = np.linspace(-10, 4, 14_001)
    cdf = _np(numeric_cdf(normal_pdf(x, 0.0, 1.0), x))
    e1 = float(np.max(np.abs(cdf - norm.cdf(x))))
    e2 = float(np.max(np.abs(np.gradient(cdf, x) - norm.pdf(x))))
    assert e1 < 1e-6 and e2 < 1e-5, (e1, e2)
    return f"|CDF − scipy| ≤ {e1:.1e}; |dCDF/dx − pdf| ≤ {e2:.1e}"


@claim(
    "EA-02",
    section="A.2",
    lines=(6903, 6905),
    statement="The CDF integrates the density from −∞: P(x) = ∫_{−∞}^x p(t) dt. "
    "Starting at 0 is right only for non-negative variables; for a standard normal "
    "it gives P(0) = 0 instead of 0.5 and negative values for x < 0.",
    erratum="P(x) = ∫_0^x p(t) dt",
)
def _ea_02() -> str:
    from scipy.integrate import quad
    from scipy.stats import norm

    def pdf(t):
        return norm.pdf(t)

    right = [quad(pdf, -np.inf, x)[0] for x in (-1.0, 0.0, 1.5)]
    printed = [quad(pdf, 0.0, x)[0] for x in (-1.0, 0.0, 1.5)]
    assert np.allclose(right, norm.cdf([-1.0, 0.0, 1.5]), atol=1e-10)
    assert (
        printed[0] < 0 and printed[1] == 0.0 and abs(printed[2] - right[2] + 0.5) < 1e-9
    )
    r4, p4 = np.round(right, 4).tolist(), np.round(printed, 4).tolist()
    return f"from −∞: {r4}; from 0: {p4}"


@claim(
    "CA-11",
    section="A.2",
    lines=(6909, 6911),
    statement="The product and sum rules hold for densities (E.A.4-E.A.5): "
    "∫ N(x; y, 1) N(y; 0, 1) dy = N(x; 0, 2).",
    equation="E.A.5",
)
def _ca_11() -> str:
    from scipy.integrate import quad
    from scipy.stats import norm

    from alice_lab.probability import normal_pdf

    xs = np.array([-2.0, 0.0, 0.7, 3.0])
    marg = [
        quad(
            lambda y, x=x: float(normal_pdf(np.array(x), y, 1.0)) * norm.pdf(y), -12, 12
        )[0]
        for x in xs
    ]
    err = float(np.max(np.abs(np.array(marg) - norm.pdf(xs, 0, np.sqrt(2)))))
    assert err < 1e-10, err
    return f"max |∫ − N(x; 0, 2)| = {err:.1e} at 4 points"


@claim(
    "CA-12",
    section="A.2",
    lines=(6913, 6913),
    statement="Densities are not bounded by 1: N(0; 0, 0.1²) = 1/√(2π·0.01) ≈ 3.989, "
    "yet the density still integrates to 1.",
)
def _ca_12() -> str:
    from scipy.stats import norm

    from alice_lab.probability import normal_pdf

    peak = float(normal_pdf(np.array(0.0), 0.0, 0.01))
    x = np.linspace(-2, 2, 40_001)
    area = float(np.trapezoid(_np(normal_pdf(x, 0.0, 0.01)), x))
    assert (
        abs(peak - 1 / np.sqrt(2 * np.pi * 0.01)) < 1e-12
        and abs(peak - norm.pdf(0, 0, 0.1)) < 1e-12
    )
    assert round(peak, 3) == 3.989 and abs(area - 1) < 1e-9, (peak, area)
    return f"peak {peak:.4f} > 1, area {area:.10f}"


@claim(
    "CA-13",
    section="A.3",
    lines=(6917, 6923),
    statement="Cat(x; p) = ∏ p_i^{x_i} returns the probability of the observed class; "
    "with k = 2 it is the Bernoulli p^x(1 − p)^{1−x}: Bern(1; p) = p, "
    "Bern(0; p) = 1 − p.",
)
def _ca_13() -> str:
    from scipy.stats import bernoulli

    from alice_lab.probability import bernoulli_logpmf, categorical_pmf

    p = np.array([0.1, 0.6, 0.3])
    assert np.allclose(_np(categorical_pmf(np.eye(3), p)), p, rtol=1e-15)
    for q in (0.0, 0.25, 1.0):
        ours = np.exp(_np(bernoulli_logpmf(np.array([1, 0]), q)))
        assert np.allclose(ours, bernoulli.pmf([1, 0], q)), (q, ours)
        cat = _np(categorical_pmf(np.array([[1, 0], [0, 1]]), np.array([q, 1 - q])))
        assert np.allclose(ours, cat)
    return (
        "Cat picks p_class; Bern(·; p) = Cat with (p, 1 − p) = scipy, also at p = 0, 1"
    )


@claim(
    "CA-14",
    section="A.3",
    lines=(6925, 6927),
    statement="The univariate Gaussian density (1/√(2πσ²)) exp(−½((x − μ)/σ)²) matches "
    "SciPy's normal distribution.",
)
def _ca_14() -> str:
    from scipy.stats import norm

    from alice_lab.probability import normal_logpdf, normal_pdf

    rng = _rng(14)
    x, mu, s = rng.normal(size=200) * 3, rng.normal(size=200), rng.uniform(0.1, 3, 200)
    e1 = float(np.max(np.abs(_np(normal_pdf(x, mu, s**2)) - norm.pdf(x, mu, s))))
    e2 = float(np.max(np.abs(_np(normal_logpdf(x, mu, s**2)) - norm.logpdf(x, mu, s))))
    assert e1 < 1e-14 and e2 < 1e-12, (e1, e2)
    return f"pdf error {e1:.1e}, log-pdf error {e2:.1e} on 200 points"


@claim(
    "CA-15",
    section="A.3",
    lines=(6929, 6933),
    statement="The multivariate Gaussian (with −½ in the exponent) matches SciPy; for "
    "k = 1 it is the univariate density and a diagonal Σ factorises into univariate "
    "densities.",
)
def _ca_15() -> str:
    from scipy.stats import multivariate_normal, norm

    from alice_lab.probability import mvn_logpdf

    rng = _rng(15)
    A = rng.normal(size=(4, 4))
    S, mu, x = A @ A.T + 0.5 * np.eye(4), rng.normal(size=4), rng.normal(size=(50, 4))
    e = float(
        np.max(np.abs(_np(mvn_logpdf(x, mu, S)) - multivariate_normal.logpdf(x, mu, S)))
    )
    one = float(mvn_logpdf(np.array([0.4]), np.array([1.0]), np.array([[2.5]])))
    d = np.array([0.5, 2.0, 1.5])
    diag = _np(mvn_logpdf(x[:, :3], mu[:3], np.diag(d)))
    fact = norm.logpdf(x[:, :3], mu[:3], np.sqrt(d)).sum(axis=1)
    assert e < 1e-12 and abs(one - norm.logpdf(0.4, 1.0, np.sqrt(2.5))) < 1e-14
    assert np.allclose(diag, fact, rtol=1e-13)
    return f"4-D: max error {e:.1e}; k = 1 and diagonal cases match"


@claim(
    "EA-03",
    section="A.3",
    lines=(6931, 6933),
    statement="The multivariate Gaussian's exponent is −½(x − μ)ᵀΣ⁻¹(x − μ); without "
    "the −½ the formula grows away from μ, does not integrate to 1 and disagrees "
    "with SciPy.",
    erratum="(2π)^{−k/2} det(Σ)^{−1/2} exp((x − μ)ᵀ Σ⁻¹ (x − μ))",
)
def _ea_03() -> str:
    from scipy.integrate import dblquad
    from scipy.stats import multivariate_normal

    S, mu = np.array([[1.0, 0.3], [0.3, 0.5]]), np.zeros(2)
    Si, c = np.linalg.inv(S), (2 * np.pi) ** -1 * np.linalg.det(S) ** -0.5

    def right(a, b):
        v = np.array([a, b])
        return c * np.exp(-0.5 * v @ Si @ v)

    def printed(a, b):
        v = np.array([a, b])
        return c * np.exp(v @ Si @ v)

    x = np.array([0.5, -0.4])
    assert abs(right(*x) - multivariate_normal.pdf(x, mu, S)) < 1e-14
    assert printed(*x) > multivariate_normal.pdf(x, mu, S) * 2
    area = dblquad(right, -8, 8, -8, 8)[0]
    bad = dblquad(printed, -3, 3, -3, 3)[0]
    assert abs(area - 1) < 1e-7 and bad > 100, (area, bad)
    return f"with −½: area {area:.8f}; as printed: area over [−3, 3]² already {bad:.2e}"


@claim(
    "CA-16",
    section="A.3",
    lines=(6935, 6939),
    statement="An isotropic covariance σ²I has circular contours and a diagonal one "
    "axis-aligned elliptical contours (its eigenvectors are the coordinate axes); "
    "samples drawn through the Cholesky factor have the requested covariance.",
)
def _ca_16() -> str:
    from alice_lab.probability import mvn_logpdf, mvn_sample

    t = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    circle = 1.3 * np.c_[np.cos(t), np.sin(t)]
    iso = _np(mvn_logpdf(circle, np.zeros(2), 0.7 * np.eye(2)))
    assert np.ptp(iso) < 1e-12, "isotropic density not constant on a circle"
    D = np.diag([2.0, 0.5])
    vals, vecs = np.linalg.eigh(D)
    assert np.allclose(np.abs(vecs), np.eye(2)[:, ::-1]) or np.allclose(
        np.abs(vecs), np.eye(2)
    )
    ellipse = np.c_[np.sqrt(2.0) * np.cos(t), np.sqrt(0.5) * np.sin(t)]
    assert np.ptp(_np(mvn_logpdf(ellipse, np.zeros(2), D))) < 1e-12
    S = np.array([[1.0, 0.8], [0.8, 2.0]])
    emp = np.cov(mvn_sample(np.zeros(2), S, 200_000, _rng(16)).T)
    assert np.allclose(emp, S, atol=0.02), emp
    cov = np.round(emp, 3).tolist()
    return f"circle/ellipse level sets exact; sample covariance {cov}"
