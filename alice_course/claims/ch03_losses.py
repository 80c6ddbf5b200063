"""Checkable claims of Chapter 3, §3.2 losses and §3.2.1 expected risk (lines
1194-1242).

References outside ``alice_lab``: scikit-learn's ``hinge_loss`` and
``mean_squared_error``, ``numpy.linalg.lstsq``, torch autograd, closed forms of the
expected risk of a synthetic problem, and the book's own numbers.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _np, _rng


@claim(
    "C3-06",
    section="3.2",
    lines=(1198, 1200),
    statement="A loss orders predictions: l(y, ŷ₁) < l(y, ŷ₂) when ŷ₁ is the better "
    "one; the squared and hinge losses decrease as the prediction moves towards the "
    "target (for the hinge: towards the right side of the margin).",
)
def _c3_06() -> str:
    from alice_lab.losses import hinge, squared_loss

    y = 1.5
    preds = np.linspace(-3.0, 1.5, 50)  # getting closer to y
    sq = _np(squared_loss(preds, np.full(50, y), reduction="none"))
    assert np.all(np.diff(sq) < 0), "squared loss does not decrease towards y"
    lab = np.ones(50)
    h = _np(hinge(np.linspace(-3.0, 1.0, 50), lab))
    assert np.all(np.diff(h) < 0), "hinge does not decrease towards margin 1"
    assert np.all(_np(hinge(np.array([1.0, 2.0, 5.0]), np.ones(3))) == 0)
    return "squared loss strictly decreasing towards y; hinge decreasing up to margin 1"


@claim(
    "C3-07",
    section="3.2",
    lines=(1204, 1214),
    statement="ERM minimises the average loss over the dataset (E.3.1); for a linear "
    "model and the squared loss, gradient descent on the parameters (E.3.2) reaches "
    "the least-squares solution.",
    equation="E.3.2",
)
def _c3_07() -> str:
    from sklearn.metrics import mean_squared_error

    from alice_lab.linear import linear_model
    from alice_lab.losses import squared_loss
    from alice_lab.risk import empirical_risk, erm_gd, squared_loss_grad

    rng = _rng(7)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=200)
    res = erm_gd(squared_loss_grad, X, y, np.zeros(3), lr=0.2, steps=500)
    w_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    err = float(np.max(np.abs(_np(res.x) - w_ls)))
    assert err < 1e-8, f"GD vs lstsq: {err:.2e}"
    risk = float(empirical_risk(squared_loss, lambda A: linear_model(A, res.x), X, y))
    ref = mean_squared_error(y, X @ w_ls)
    assert abs(risk - ref) < 1e-10, (risk, ref)
    return f"|w_GD - w_lstsq| = {err:.1e}; empirical risk {risk:.5f} = sklearn MSE"


@claim(
    "C3-08",
    section="3.2",
    lines=(1218, 1222),
    statement="The 0/1 loss (E.3.3) has zero gradient almost everywhere, so gradient "
    "descent stays at its initialisation; the hinge loss has useful gradients and "
    "trains the same linear classifier.",
    equation="E.3.3",
)
def _c3_08() -> str:
    import torch

    from alice_lab.losses import hinge_grad, zero_one
    from alice_lab.risk import erm_gd

    rng = _rng(8)
    X = np.c_[rng.normal(size=(200, 2)) + np.array([1.5, 1.0]), np.ones(200)]
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    X[:, :2] *= y[:, None]  # two blobs on either side of the origin
    w0 = rng.normal(size=3)

    def risk01(w):
        return float(np.mean(_np(zero_one(X @ w, y))))

    h = 1e-6
    fd = [(risk01(w0 + h * e) - risk01(w0 - h * e)) / (2 * h) for e in np.eye(3)]
    assert fd == [0.0, 0.0, 0.0], f"finite-difference gradient of the 0/1 risk: {fd}"
    wt = torch.tensor(w0, requires_grad=True)
    yt, Xt = torch.tensor(y), torch.tensor(X)
    soft01 = (1 - torch.sign(Xt @ wt) * yt).mean() / 2  # 0/1 loss through sign()
    soft01.backward()
    assert torch.all(wt.grad == 0), f"torch gradient {wt.grad}"
    stuck = erm_gd(lambda yh, yy: 0 * yh, X, y, w0, lr=0.5, steps=50)  # 0/1: l' = 0
    assert np.array_equal(_np(stuck.x), w0), "GD on the 0/1 loss moved"
    trained = erm_gd(hinge_grad, X, y, w0, lr=0.1, steps=300)
    before, after = risk01(w0), risk01(_np(trained.x))
    assert after < before and after < 0.1, (before, after)
    return (
        f"0/1 gradient (FD and torch) = 0; 0/1 risk {before:.2f} stays; hinge GD "
        f"takes it to {after:.3f}"
    )


@claim(
    "C3-09",
    section="3.2",
    lines=(1222, 1222),
    statement="The margin yŷ is positive exactly when the signs agree; the hinge loss "
    "max(0, 1 − yŷ) is 0 for margins ≥ 1, linear below, and an upper bound of the 0/1 "
    "loss everywhere.",
)
def _c3_09() -> str:
    from sklearn.metrics import hinge_loss

    from alice_lab.losses import hinge, margin, zero_one

    yhat = np.linspace(-3, 3, 601)
    for lab in (1.0, -1.0):
        y = np.full_like(yhat, lab)
        m = _np(margin(yhat, y))
        agree = np.sign(yhat) == lab
        assert np.array_equal(m > 0, agree), f"margin sign vs agreement, y={lab}"
        h, z = _np(hinge(yhat, y)), _np(zero_one(yhat, y))
        assert np.all(h[m >= 1] == 0) and np.allclose(h[m < 1], 1 - m[m < 1])
        assert np.all(h >= z), f"hinge < 0/1 somewhere for y={lab}"
        ref = hinge_loss(y.astype(int), yhat)
        assert abs(float(np.mean(h)) - ref) < 1e-12, (float(np.mean(h)), ref)
    return (
        "on 601 margins in [-3, 3]: hinge = 0 for m ≥ 1, 1 − m below, ≥ 0/1; = sklearn"
    )


@claim(
    "C3-10",
    section="3.2.1",
    lines=(1226, 1230),
    statement="The look-up table (E.3.4) reaches zero empirical risk by memorising the "
    "training set, yet on unseen inputs it is exactly the constant default ȳ = 0: "
    "minimal training risk, no practical value.",
    equation="E.3.4",
)
def _c3_10() -> str:
    from sklearn.metrics import mean_squared_error

    from alice_lab.data import load_diabetes, train_test_split
    from alice_lab.risk import LookupTable

    X, y = load_diabetes()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, seed=0)
    table = LookupTable(default=0.0).fit(Xtr, ytr)
    train_mse = mean_squared_error(ytr, _np(table.predict(Xtr)))
    test_mse = mean_squared_error(yte, _np(table.predict(Xte)))
    const_mse = mean_squared_error(yte, np.zeros_like(yte))
    assert train_mse == 0.0, train_mse
    assert not table.seen(Xte).any() and test_mse == const_mse, (test_mse, const_mse)
    return f"train MSE {train_mse:.1f}; test MSE {test_mse:.0f} = MSE of predicting 0"


@claim(
    "C3-11",
    section="3.2.1",
    lines=(1234, 1240),
    statement="The empirical risk is a Monte Carlo estimate of the expected risk "
    "(E.3.5): for y = x + ε, ε ~ N(0, σ²), f(x) = x and the squared loss, ER = σ², and "
    "the empirical risk of n samples scatters around it with standard deviation "
    "σ²√(2/n).",
    equation="E.3.5",
)
def _c3_11() -> str:
    from alice_lab.losses import squared_loss
    from alice_lab.risk import expected_risk_mc, sample_linear

    sigma, n = 0.5, 10_000

    def f(X):
        return X[:, 0]

    est = expected_risk_mc(squared_loss, f, sample_linear, n, _rng(11))
    band = sigma**2 * np.sqrt(2 / n)
    assert abs(est.mean - sigma**2) < 5 * band, (est.mean, band)
    rng = _rng(12)
    reps = [
        expected_risk_mc(squared_loss, f, sample_linear, 400, rng).mean
        for _ in range(500)
    ]
    sd, want = float(np.std(reps)), sigma**2 * np.sqrt(2 / 400)
    assert abs(sd / want - 1) < 0.15, (sd, want)
    return (
        f"n = 10⁴: {est.mean:.4f} vs ER = 0.25 (band ±{5 * band:.4f}); spread over "
        f"500 datasets of 400: {sd:.4f} vs σ²√(2/n) = {want:.4f}"
    )


@claim(
    "C3-12",
    section="3.2.1",
    lines=(1242, 1242),
    statement="A test set disjoint from the training set estimates the generalisation "
    "gap: the memoriser's gap is far larger than a linear model's.",
)
def _c3_12() -> str:
    from alice_lab.data import load_diabetes, train_test_split
    from alice_lab.losses import squared_loss
    from alice_lab.risk import LookupTable, generalization_gap

    X, y = load_diabetes()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, seed=0)
    rows = {r.tobytes() for r in Xtr}
    assert not any(r.tobytes() in rows for r in Xte), "train and test overlap"
    A_tr, A_te = np.c_[Xtr, np.ones(len(Xtr))], np.c_[Xte, np.ones(len(Xte))]
    w = np.linalg.lstsq(A_tr, ytr, rcond=None)[0]
    gap_lin = generalization_gap(
        squared_loss, lambda A: A @ w, (A_tr, ytr), (A_te, yte)
    )
    table = LookupTable().fit(Xtr, ytr)
    gap_mem = generalization_gap(squared_loss, table.predict, (Xtr, ytr), (Xte, yte))
    assert gap_mem > 5 * abs(gap_lin), (gap_mem, gap_lin)
    return f"gap: memoriser {gap_mem:.0f}, linear model {gap_lin:.0f} (MSE units)"
