"""alice_lab.calibration against scikit-learn's calibration_curve, plain NumPy loops,
SciPy's scalar minimiser and the conformal quantile formula; the book's two ECE
scenarios; parity on every backend; bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
import scipy.special as sp

from alice_lab import calibration as cal


def _synthetic(n=4000, m=5, scale=3.0, seed=0):
    """Labels drawn from softmax(z): z are calibrated logits by construction."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, m)) * scale
    P = sp.softmax(z, axis=1)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(P, axis=1)).sum(axis=1)
    return z, np.minimum(y, m - 1)


def _ece_loop(P, y, b):
    conf, pred = P.max(axis=1), P.argmax(axis=1)
    total = 0.0
    for i in range(1, b + 1):
        inside = (conf > (i - 1) / b) & (conf <= i / b) if i > 1 else (conf <= 1 / b)
        if inside.any():
            total += (
                inside.sum()
                / len(y)
                * abs((pred == y)[inside].mean() - conf[inside].mean())
            )
    return total


def test_reliability_bins_match_sklearn_calibration_curve():
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(1)
    p1 = rng.uniform(size=500)
    p1[:4] = [0.0, 0.1, 0.5, 1.0]  # edges: right-closed bins, 0 in the first
    y = (rng.uniform(size=500) < p1).astype(int)
    bins = cal.reliability_bins(p1, y, n_bins=10)
    prob_true, prob_pred = calibration_curve(y, p1, n_bins=10)
    full = bins.counts > 0
    np.testing.assert_allclose(bins.accuracy[full], prob_true, rtol=1e-12)
    np.testing.assert_allclose(bins.confidence[full], prob_pred, rtol=1e-12)
    assert bins.counts.sum() == 500 and np.isnan(bins.accuracy[~full]).all()
    lo, hi = bins.edges[:-1][full], bins.edges[1:][full]
    assert ((bins.confidence[full] >= lo) & (bins.confidence[full] <= hi)).all()


@pytest.mark.parametrize("b", [1, 5, 10, 15])
def test_ece_matches_a_loop_and_max_dominates(b):
    z, y = _synthetic(n=600, seed=b)
    P = sp.softmax(2.0 * z, axis=1)  # over-confident
    ece = float(cal.expected_calibration_error(P, y, n_bins=b))
    assert ece == pytest.approx(_ece_loop(P, y, b), rel=1e-12)
    assert 0 <= ece <= float(cal.max_calibration_error(P, y, n_bins=b)) <= 1


def test_the_books_two_scenarios():
    y = np.random.default_rng(0).integers(0, 2, size=100)
    P = np.where(np.eye(2)[y] == 1, 0.8, 0.2)  # always right, always 0.8 sure
    assert float(cal.expected_calibration_error(P, y)) == pytest.approx(0.2)
    y4 = np.repeat(np.arange(4), 25)  # balanced classes, constant uniform prediction
    P4 = np.full((100, 4), 0.25)
    assert float(cal.expected_calibration_error(P4, y4)) == pytest.approx(
        0.0, abs=1e-15
    )
    _, pred = cal.confidences(P4)
    assert np.mean(pred == y4) == 0.25


def test_calibrated_by_construction_has_small_ece():
    z, y = _synthetic(n=20_000, seed=4)
    assert float(cal.expected_calibration_error(sp.softmax(z, axis=1), y)) < 0.02
    assert float(cal.expected_calibration_error(sp.softmax(3 * z, axis=1), y)) > 0.05


def test_fit_temperature_matches_scipy_and_recovers_three():
    z, y = _synthetic(n=3000, seed=2)
    tau = cal.fit_temperature(3 * z, y)
    res = scipy.optimize.minimize_scalar(
        lambda t: float(cal.temperature_nll(3 * z, y, t)),
        bounds=(0.05, 20),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert tau == pytest.approx(res.x, rel=1e-5)
    assert tau == pytest.approx(3.0, rel=0.1)
    before = float(cal.expected_calibration_error(sp.softmax(3 * z, axis=1), y))
    after = float(cal.expected_calibration_error(sp.softmax(3 * z / tau, axis=1), y))
    assert after < before
    assert np.array_equal((3 * z).argmax(axis=1), (3 * z / tau).argmax(axis=1))


def test_bayes_decision_is_the_least_expected_cost():
    rng = np.random.default_rng(5)
    P = sp.softmax(rng.normal(size=(50, 4)), axis=1)
    C = rng.uniform(size=(4, 4)) * (1 - np.eye(4))
    got = cal.bayes_decision(P, C)
    brute = [
        min(range(4), key=lambda i: sum(C[i, j] * p[j] for j in range(4))) for p in P
    ]
    assert got.tolist() == brute
    zero_one = 1 - np.eye(4)
    assert np.array_equal(cal.bayes_decision(P, zero_one), P.argmax(axis=1))
    T42 = np.array([[0.0, 10.0], [1.0, 0.0]])  # C[pred, true] of Table T.4.2
    t = cal.binary_threshold(T42)
    assert t == pytest.approx(1 / 11)
    p1 = np.linspace(0, 1, 1001)
    dec = cal.bayes_decision(np.stack([1 - p1, p1], axis=1), T42)
    assert np.array_equal(dec, (p1 > t).astype(int))


def test_conformal_threshold_formula_and_coverage():
    z, y = _synthetic(n=6000, scale=2.0, seed=6)
    P = sp.softmax(z, axis=1)
    Pc, yc, Pt, yt = P[:3000], y[:3000], P[3000:], y[3000:]
    sizes = []
    for alpha in (0.05, 0.1, 0.2, 0.4):
        gamma = cal.conformal_threshold(Pc, yc, alpha)
        n = len(yc)
        scores = 1 - Pc[np.arange(n), yc]  # the usual 1 - p_y score
        k = int(np.ceil((n + 1) * (1 - alpha)))  # q-hat: the k-th smallest score
        q = np.sort(scores)[k - 1]
        assert gamma == pytest.approx(1 - q, abs=1e-15)
        sets = cal.prediction_sets(Pt, gamma)
        # about 3 standard errors of a coverage estimated from 3000 + 3000 points
        assert float(cal.coverage(sets, yt)) >= 1 - alpha - 0.035
        sizes.append(sets.sum(axis=1).mean())
    assert sizes == sorted(sizes, reverse=True)  # smaller alpha, larger sets
    assert cal.conformal_threshold(Pc[:5], yc[:5], 0.1) == 0.0  # k = 0: all classes
    assert cal.prediction_sets(Pt, 0.0).all()


def test_parity(backend):
    z, y = _synthetic(n=200, seed=7)
    P = sp.softmax(2 * z, axis=1)
    Pb, yb = backend.asarray(P), backend.asarray(y)
    for fn in (cal.expected_calibration_error, cal.max_calibration_error):
        np.testing.assert_allclose(backend.to_numpy(fn(Pb, yb)), fn(P, y), rtol=1e-13)
    bins = cal.reliability_bins(
        backend.asarray(P.max(axis=1)), backend.asarray(P.argmax(axis=1) == y)
    )
    np.testing.assert_array_equal(
        backend.to_numpy(bins.counts),
        cal.reliability_bins(P.max(axis=1), P.argmax(axis=1) == y).counts,
    )
    assert cal.conformal_threshold(Pb, yb, 0.1) == cal.conformal_threshold(P, y, 0.1)
    assert cal.fit_temperature(backend.asarray(2 * z), yb) == pytest.approx(
        cal.fit_temperature(2 * z, y), rel=1e-8
    )
    C = backend.asarray(1 - np.eye(5))
    np.testing.assert_array_equal(
        backend.to_numpy(cal.bayes_decision(Pb, C)), P.argmax(axis=1)
    )
    sets = cal.prediction_sets(Pb, 0.1)
    np.testing.assert_allclose(
        float(cal.coverage(sets, yb)), float(cal.coverage(P > 0.1, y))
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: cal.expected_calibration_error(
                np.array([[0.5, 1.5]]), np.array([0])
            ),
            "probabilities",
        ),
        (
            lambda: cal.expected_calibration_error(np.full((2, 2), 0.5), np.array([0])),
            r"labels must have shape \(n,\) = \(2,\)",
        ),
        (
            lambda: cal.expected_calibration_error(
                np.full((2, 2), 0.5), np.array([0, 2])
            ),
            r"labels must lie in 0..1",
        ),
        (
            lambda: cal.expected_calibration_error(
                np.full((2, 2), 0.5), np.array([0.0, 1.0])
            ),
            "integer",
        ),
        (
            lambda: cal.expected_calibration_error(
                np.full((2, 2), 0.5), np.array([0, 1]), n_bins=0
            ),
            "n_bins",
        ),
        (
            lambda: cal.reliability_bins(np.array([0.5, 1.2]), np.array([1, 0])),
            r"\[0, 1\]",
        ),
        (lambda: cal.reliability_bins(np.array([0.5]), np.array([2])), "0/1"),
        (
            lambda: cal.bayes_decision(np.full((2, 2), 0.5), np.zeros((3, 3))),
            r"C must have shape \(m, m\) = \(2, 2\)",
        ),
        (lambda: cal.binary_threshold(np.zeros((2, 2))), "must cost more"),
        (
            lambda: cal.conformal_threshold(
                np.full((2, 2), 0.5), np.array([0, 1]), 1.5
            ),
            "alpha",
        ),
        (lambda: cal.prediction_sets(np.full((2, 2), 0.5), -0.1), "gamma"),
        (
            lambda: cal.fit_temperature(
                np.zeros((2, 2)), np.array([0, 1]), bounds=(2, 1)
            ),
            "bounds",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
