"""Checkable claims of Chapter 3, §3.2.2 probabilistic losses and §3.2.3 maximum
likelihood (lines 1244-1282).

References outside ``alice_lab``: ``scipy.stats`` (multinomial, norm),
``scipy.optimize``, ``scipy.special.xlogy``, PyTorch's cross-entropy, and the float32 /
float64 limits of IEEE arithmetic.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _np, _rng


@claim(
    "C3-13",
    section="3.2.2",
    lines=(1250, 1250),
    statement="The product rule splits any joint as p(x, y) = p(x) p(y | x): on a "
    "discrete joint table every row of p(y | x) sums to 1 and the product rebuilds "
    "the joint exactly.",
)
def _c3_13() -> str:
    from alice_lab.probability import conditional, joint_from_counts, marginal

    counts = _rng(13).integers(1, 50, size=(4, 3))
    joint = _np(joint_from_counts(counts))
    px = _np(marginal(joint, axis=1))
    py_x = _np(conditional(joint, given_axis=0))
    assert np.allclose(py_x.sum(axis=1), 1.0)
    assert np.allclose(px[:, None] * py_x, counts / counts.sum(), atol=1e-15)
    return "4×3 joint: rows of p(y|x) sum to 1, p(x)p(y|x) = p(x, y)"


@claim(
    "C3-14",
    section="3.2.2",
    lines=(1252, 1256),
    statement="For a one-hot y the categorical likelihood ∏ f_i(x)^{y_i} is the "
    "probability of the observed class; its log is finite even when other classes "
    "have probability 0 (0·log 0 = 0), where a naive sum(y·log f) gives NaN.",
)
def _c3_14() -> str:
    from scipy.special import xlogy
    from scipy.stats import multinomial

    from alice_lab.probability import categorical_nll, categorical_pmf
    from alice_lab.tensors import is_simplex

    rng = _rng(14)
    probs = rng.dirichlet(np.ones(3), size=20)
    labels = rng.integers(0, 3, size=20)
    onehot = np.eye(3)[labels]
    assert is_simplex(probs)
    pmf = _np(categorical_pmf(onehot, probs))
    ref = np.array(
        [multinomial.pmf(o, 1, p) for o, p in zip(onehot, probs, strict=True)]
    )
    assert np.allclose(pmf, ref, rtol=1e-12) and np.allclose(
        pmf, probs[np.arange(20), labels]
    )
    p0 = np.array([[0.0, 0.7, 0.3]])
    with np.errstate(divide="ignore", invalid="ignore"):
        naive = float(np.sum(np.array([[0, 1, 0]]) * np.log(p0)))
    ours = float(_np(categorical_nll(np.array([1]), p0))[0])
    assert np.isnan(naive) and abs(ours + np.log(0.7)) < 1e-15
    assert abs(ours + xlogy(np.array([0, 1, 0]), p0[0]).sum()) < 1e-15
    return (
        f"pmf = scipy multinomial on 20 rows; with a zero class: naive {naive}, "
        f"ours {ours:.4f}"
    )


@claim(
    "C3-15",
    section="3.2.2",
    lines=(1256, 1260),
    statement="The Gaussian model N(y | f₁, f₂²) squares its second output so the "
    "variance is never negative: its negative log-likelihood equals −log N from SciPy, "
    "is unchanged by f₂ → −f₂, and for a fixed f₂ is minimised over f₁ by the mean.",
    equation="E.3.6",
)
def _c3_15() -> str:
    from scipy.optimize import minimize_scalar
    from scipy.stats import norm

    from alice_lab.probability import gaussian_pseudo_loss

    book = float(_np(gaussian_pseudo_loss(np.array([0.3]), np.array([[0.1, -0.7]])))[0])
    assert abs(book - 0.60308) < 5e-6 and abs(book + norm.logpdf(0.3, 0.1, 0.7)) < 1e-12
    rng = _rng(15)
    y = rng.normal(2.0, 1.5, size=100)
    f = np.c_[rng.normal(size=100), rng.normal(size=100)]
    nll = _np(gaussian_pseudo_loss(y, f))
    assert np.allclose(nll, -norm.logpdf(y, f[:, 0], np.abs(f[:, 1])), rtol=1e-12)
    assert np.array_equal(nll, _np(gaussian_pseudo_loss(y, f * np.array([1.0, -1.0]))))

    def total(m):
        return float(
            np.sum(
                _np(gaussian_pseudo_loss(y, np.c_[np.full(100, m), np.full(100, 0.8)]))
            )
        )

    best = minimize_scalar(total, bracket=(0.0, 4.0), tol=1e-12).x
    assert abs(best - y.mean()) < 1e-6, (best, y.mean())
    floor = float(_np(gaussian_pseudo_loss(np.array([0.0]), np.array([[0.0, 0.0]])))[0])
    assert np.isfinite(floor)
    return (
        f"NLL(0.3; 0.1, −0.7) = {book:.5f} (book 0.60308); argmin_f₁ = {best:.6f} = "
        f"mean {y.mean():.6f}; f₂ = 0 gives {floor:.2f} with the floor"
    )


@claim(
    "C3-16",
    section="3.2.3",
    lines=(1264, 1268),
    statement="The likelihood of an i.i.d. dataset is a product over examples, which "
    "underflows: 0.5²⁰⁰ is 0 in float32 and 0.5¹¹⁰⁰ is 0 in float64, while the "
    "log-likelihood sums stay finite (−138.63 and −762.46).",
)
def _c3_16() -> str:
    from alice_lab.probability import bernoulli_logpmf, log_likelihood

    out = []
    for n, dtype, want in ((200, np.float32, -138.63), (1100, np.float64, -762.46)):
        prod = np.prod(np.full(n, 0.5, dtype=dtype))
        x = np.ones(n, dtype=dtype)
        ll = float(log_likelihood(bernoulli_logpmf, x, np.full(n, 0.5, dtype=dtype)))
        assert prod == 0.0, f"{dtype.__name__}: product {prod}"
        assert abs(ll - n * np.log(0.5)) < 1e-3 * n and round(ll, 2) == want, ll
        out.append(f"{dtype.__name__}: ∏ = {prod}, Σ log = {ll:.2f}")
    return "; ".join(out)


@claim(
    "C3-17",
    section="3.2.3",
    lines=(1270, 1280),
    statement="Maximising the likelihood and minimising the summed negative "
    "log-likelihood give the same model (log is increasing, E.3.7); for Bernoulli "
    "data the maximiser is the fraction of ones, for categorical data the class "
    "frequencies.",
    equation="E.3.7",
)
def _c3_17() -> str:
    from scipy.optimize import minimize

    from alice_lab.functional import softmax
    from alice_lab.probability import (
        bernoulli_logpmf,
        categorical_nll,
        grid_argmax,
        log_likelihood,
        mle_bernoulli,
    )

    x = (_rng(17).random(60) < 0.3).astype(float)
    grid = np.linspace(0.001, 0.999, 999)
    prod = np.array([np.prod(p**x * (1 - p) ** (1 - x)) for p in grid])
    nll = np.array([-float(log_likelihood(bernoulli_logpmf, x, p)) for p in grid])
    assert np.all(prod > 0), "the product underflowed; use fewer points"
    assert np.argmax(prod) == np.argmin(nll)
    p_grid = float(grid_argmax(-nll, grid))
    assert abs(p_grid - float(mle_bernoulli(x))) < 1e-3, (p_grid, x.mean())
    labels = _rng(18).integers(0, 4, size=300)

    def cat_nll(z):
        return float(
            np.sum(_np(categorical_nll(labels, softmax(np.tile(z, (300, 1))))))
        )

    z = minimize(cat_nll, np.zeros(4), method="BFGS", options={"gtol": 1e-9}).x
    freq = np.bincount(labels, minlength=4) / 300
    assert np.allclose(_np(softmax(z)), freq, atol=1e-5), (softmax(z), freq)
    return (
        f"Bernoulli: argmax ∏ = argmin Σ(−log) = {p_grid:.3f} = h/n; categorical ML = "
        f"frequencies {np.round(freq, 3).tolist()}"
    )


@claim(
    "C3-18",
    section="3.2.3",
    lines=(1282, 1282),
    statement="Common losses are negative log-likelihoods: the squared loss is an "
    "affine function of the Gaussian NLL with fixed variance (same minimiser), and "
    "the cross-entropy of logits is the categorical NLL of their softmax.",
)
def _c3_18() -> str:
    import torch

    from alice_lab.functional import softmax
    from alice_lab.losses import cross_entropy
    from alice_lab.probability import categorical_nll, gaussian_pseudo_loss

    rng = _rng(19)
    y, yhat, s = rng.normal(size=50), rng.normal(size=50), 0.7
    nll = _np(gaussian_pseudo_loss(y, np.c_[yhat, np.full(50, s)]))
    affine = (y - yhat) ** 2 / (2 * s**2) + 0.5 * np.log(2 * np.pi * s**2)
    assert np.allclose(nll, affine, rtol=1e-13)
    logits, labels = rng.normal(size=(30, 5)) * 3, rng.integers(0, 5, size=30)
    ours = float(np.mean(_np(categorical_nll(labels, softmax(logits)))))
    ce = float(cross_entropy(logits, labels))
    ref = float(
        torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels))
    )
    assert abs(ours - ref) < 1e-12 and abs(ce - ref) < 1e-12, (ours, ce, ref)
    return (
        f"Gaussian NLL = MSE/(2σ²) + const; mean categorical NLL {ours:.6f} = torch CE"
    )
