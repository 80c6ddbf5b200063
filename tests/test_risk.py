"""alice_lab.risk: empirical and expected risk, ERM by gradient descent, the memoriser
and the synthetic generators.

References: ``numpy.linalg.lstsq``, scikit-learn's ``mean_squared_error``, torch
autograd for the ERM gradient, closed forms of the expected risk, and SciPy's
two-sample KS test for the generators.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import linear, losses, risk
from alice_lab.losses import hinge_grad


@pytest.fixture
def regression():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 4))
    y = X @ np.array([0.5, -1.0, 2.0, 0.0]) + 0.2 * rng.normal(size=120)
    return X, y


def test_empirical_risk_parity(backend, regression):
    from sklearn.metrics import mean_squared_error

    X, y = regression
    w = np.array([0.4, -0.8, 1.9, 0.1])
    wb = backend.asarray(w)
    got = risk.empirical_risk(
        losses.squared_loss,
        lambda A: linear.linear_model(A, wb),
        backend.asarray(X),
        backend.asarray(y),
    )
    assert float(backend.to_numpy(got)) == pytest.approx(
        mean_squared_error(y, X @ w), rel=1e-12
    )


def test_erm_gd_reaches_least_squares(backend, regression):
    X, y = regression
    res = risk.erm_gd(
        risk.squared_loss_grad,
        backend.asarray(X),
        backend.asarray(y),
        backend.asarray(np.zeros(4)),
        lr=0.2,
        steps=400,
    )
    w_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(backend.to_numpy(res.x), w_ls, atol=1e-9)


def test_erm_gradient_matches_autograd(regression):
    import torch

    X, y = regression
    w = np.array([0.1, 0.2, -0.3, 0.4])
    res = risk.erm_gd(risk.squared_loss_grad, X, y, w, lr=1.0, steps=1)
    ours = res.path[0] - res.path[1]  # one step with lr = 1 is minus the gradient
    wt = torch.tensor(w, requires_grad=True)
    ((torch.tensor(y) - torch.tensor(X) @ wt) ** 2).mean().backward()
    np.testing.assert_allclose(ours, wt.grad.numpy(), rtol=1e-12)
    # with the hinge (labels ±1), the subgradient of mean(max(0, 1 - y x·w))
    yl = np.sign(y)
    res = risk.erm_gd(hinge_grad, X, yl, w, lr=1.0, steps=1)
    wt = torch.tensor(w, requires_grad=True)
    torch.relu(1 - torch.tensor(yl) * (torch.tensor(X) @ wt)).mean().backward()
    np.testing.assert_allclose(res.path[0] - res.path[1], wt.grad.numpy(), rtol=1e-12)


def test_lookup_table_memorises(backend):
    if backend.name == "strict":
        pytest.skip(
            "the table hashes rows on the host; array-api-strict's test device "
            "refuses host copies by design"
        )
    X = np.array([[0.0, 1.0], [2.0, 3.0], [0.1, 0.2]])
    y = np.array([5.0, 7.0, -1.0])
    table = risk.LookupTable(default=0.5).fit(backend.asarray(X), backend.asarray(y))
    Xq = np.array([[2.0, 3.0], [2.0, 3.0 + 1e-12], [-0.0, 1.0]])
    out = table.predict(backend.asarray(Xq))
    assert type(out) is type(backend.asarray(y))
    np.testing.assert_array_equal(backend.to_numpy(out), [7.0, 0.5, 5.0])
    assert table.seen(Xq).tolist() == [True, False, True]  # -0.0 matches 0.0


def test_lookup_table_last_duplicate_wins_and_needs_fit():
    table = risk.LookupTable().fit(np.array([[1.0], [1.0]]), np.array([2.0, 3.0]))
    assert table.predict(np.array([[1.0]])).tolist() == [3.0]
    with pytest.raises(ValueError, match="before fit"):
        risk.LookupTable().predict(np.zeros((1, 1)))


def test_expected_risk_mc_matches_sigma_squared():
    for sigma in (0.2, 1.0):

        def sampler(n, rng, sigma=sigma):
            return risk.sample_linear(n, rng, sigma=sigma)

        est = risk.expected_risk_mc(
            losses.squared_loss,
            lambda X: X[:, 0],
            sampler,
            50_000,
            np.random.default_rng(1),
        )
        assert abs(est.mean - sigma**2) < 4 * est.stderr
        assert est.stderr == pytest.approx(sigma**2 * np.sqrt(2 / 50_000), rel=0.05)


def test_generalization_gap(regression):
    X, y = regression
    Xtr, ytr, Xte, yte = X[:80], y[:80], X[80:], y[80:]
    table = risk.LookupTable().fit(Xtr, ytr)
    gap = risk.generalization_gap(
        losses.squared_loss, table.predict, (Xtr, ytr), (Xte, yte)
    )
    assert gap == pytest.approx(np.mean(yte**2))  # train risk 0, test = predicting 0


def test_generators_are_seeded_and_shaped():
    from scipy.stats import ks_2samp

    a = risk.sample_linear(50, np.random.default_rng(3))
    b = risk.sample_linear(50, np.random.default_rng(3))
    assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    X0, y0 = risk.sample_drifting(2000, 0.0, np.random.default_rng(0), sigma=0.0)
    X1, y1 = risk.sample_drifting(2000, 1.0, np.random.default_rng(0), sigma=0.0)
    np.testing.assert_allclose(y0, X0[:, 0])
    np.testing.assert_allclose(y1, X1[:, 1], atol=1e-15)
    Xb, yb = risk.sample_biased(4000, 0.9, np.random.default_rng(0))
    Xp, yp = risk.sample_biased(4000, 0.5, np.random.default_rng(1))
    assert ks_2samp(Xb[:, 0], Xp[:, 0]).pvalue < 1e-6  # biased inputs differ
    share = np.mean(Xb[:, 0] > 0)
    assert 0.7 < share < 0.9


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: risk.squared_loss_grad(np.zeros(3), np.zeros(2)), "same shape"),
        (
            lambda: risk.empirical_risk(
                losses.squared_loss, lambda X: X, np.zeros((3, 2)), np.zeros(3)
            ),
            "shape of y",
        ),
        (
            lambda: risk.empirical_risk(
                losses.squared_loss, lambda X: X, np.zeros((3, 1)), np.zeros(2)
            ),
            "same n",
        ),
        (
            lambda: risk.erm_gd(
                risk.squared_loss_grad,
                np.zeros((3, 2)),
                np.zeros(3),
                np.zeros(3),
                lr=0.1,
                steps=1,
            ),
            r"w0 \(c,\)",
        ),
        (
            lambda: risk.sample_linear(0, np.random.default_rng(0)),
            "n must be an int >= 1",
        ),
        (
            lambda: risk.sample_biased(5, 1.5, np.random.default_rng(0)),
            r"share in \[0, 1\]",
        ),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()
