"""Checkable claims of Chapter 4, §4.3.3-4.3.4: calibration, decisions under costs,
the expected calibration error, temperature scaling and conformal prediction (book
lines 2016-2162).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, SciPy, scikit-learn, a brute-force loop, or the book's numbers.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _sampled(n: int, m: int = 5, scale: float = 3.0, seed: int = 0):
    """Logits z and labels drawn from softmax(z): calibrated by construction."""
    import scipy.special as sp

    rng = _rng(seed)
    z = rng.normal(size=(n, m)) * scale
    cdf = np.cumsum(sp.softmax(z, axis=1), axis=1)
    y = np.minimum((rng.uniform(size=(n, 1)) > cdf).sum(axis=1), m - 1)
    return z, y


# =====================================================================================
# 4.3.3 Calibration and classification
# =====================================================================================


@claim(
    "C4-52",
    section="4.3.3",
    lines=(2018, 2026),
    statement="The predicted class argmax f(x) does not change under a temperature or "
    "any increasing transform of the logits, while the probabilities do: training on "
    "the true class alone does not pin them down.",
)
def _c4_52() -> str:
    from alice_lab.functional import softmax

    Z = _rng(52).normal(size=(200, 6)) * 2
    pred = Z.argmax(axis=1)
    for g in (lambda z: z / 0.1, lambda z: z / 10, np.exp, lambda z: z**3 + z):
        assert np.array_equal(softmax(g(Z)).argmax(axis=1), pred)
    moved = _maxerr(softmax(Z), softmax(Z / 10))
    assert moved > 0.1
    return (
        f"argmax unchanged under 4 transforms; probabilities move by up to {moved:.2f}"
    )


@claim(
    "C4-53",
    section="4.3.3",
    lines=(2040, 2046),
    statement="A binary model that is always right with confidence 0.8 is "
    "under-confident (ECE = 0.2); always predicting [0.25, 0.25, 0.25, 0.25] on four "
    "balanced classes is perfectly calibrated (ECE = 0) yet only 25% accurate.",
)
def _c4_53() -> str:
    from alice_lab.calibration import expected_calibration_error, reliability_bins

    y = _rng(53).integers(0, 2, size=200)
    P = np.where(np.eye(2)[y] == 1, 0.8, 0.2)
    ece = float(expected_calibration_error(P, y))
    bins = reliability_bins(P.max(axis=1), P.argmax(axis=1) == y)
    full = np.asarray(bins.counts) > 0
    assert abs(ece - 0.2) < 1e-12
    assert np.all(np.asarray(bins.accuracy)[full] > np.asarray(bins.confidence)[full])
    y4 = np.repeat(np.arange(4), 50)
    P4 = np.full((200, 4), 0.25)
    assert float(expected_calibration_error(P4, y4)) < 1e-15
    assert np.mean(P4.argmax(axis=1) == y4) == 0.25
    return (
        f"scenario 1: ECE = {ece:.3f}, accuracy 1.0 > confidence 0.8; "
        "scenario 2: ECE = 0, accuracy 0.25"
    )


@claim(
    "E4-11",
    section="4.3.3",
    lines=(2046, 2046),
    statement="The constant prediction of the second scenario is [0.25, 0.25, 0.25, "
    "0.25], the uniform distribution over four classes.",
    erratum="[0.25, 025, 0.25, 0.25]",
)
def _e4_11() -> str:
    from alice_lab.tensors import is_simplex

    right, printed = (
        np.array([0.25, 0.25, 0.25, 0.25]),
        np.array([0.25, 25, 0.25, 0.25]),
    )
    assert is_simplex(right) and not is_simplex(printed)
    return f"sums: {right.sum()} (a distribution) vs {printed.sum()} as printed"


@claim(
    "C4-54",
    section="4.3.3",
    lines=(2048, 2080),
    statement="With the costs of Table T.4.2 (a missed class 1 costs 10, a false "
    "alarm 1) the cheapest decision predicts class 1 as soon as p(1) > 1/11 ≈ 0.091, "
    "not 0.5.",
)
def _c4_54() -> str:
    from alice_lab.calibration import bayes_decision, binary_threshold

    C = np.array([[0.0, 10.0], [1.0, 0.0]])  # C[pred, true]
    t = binary_threshold(C)
    assert abs(t - 1 / 11) < 1e-15
    p1 = np.linspace(0, 1, 10_001)
    P = np.stack([1 - p1, p1], axis=1)
    brute = np.argmin(np.stack([10 * p1, 1 - p1], axis=1), axis=1)  # expected costs
    dec = bayes_decision(P, C)
    assert np.array_equal(dec, brute) and np.array_equal(dec, (p1 > t).astype(int))
    assert C[0, 1] / C[1, 0] == 10
    return (
        f"threshold on p(1): {t:.4f} = 1/11; = brute-force least cost on 10001 points"
    )


@claim(
    "E4-12",
    section="4.3.3",
    lines=(2048, 2084),
    statement="The cost matrix must be read one way throughout: with C[i, j] the cost "
    "of predicting i when the truth is j (Table T.4.2), the rule argminᵢ Σⱼ Cᵢⱼ f(x)ⱼ "
    "protects against the expensive false negative.",
    erratum="line 2048 defines Cᵢⱼ as the cost of an input of class i predicted as j, "
    "while the table and the rule at line 2082 use i = predicted, j = true",
)
def _e4_12() -> str:
    from alice_lab.calibration import bayes_decision

    C = np.array([[0.0, 10.0], [1.0, 0.0]])
    P = np.array([[0.8, 0.2]])  # p(class 1) = 0.2
    right = int(bayes_decision(P, C)[0])  # costs: predict 0 → 2.0, predict 1 → 0.8
    swapped = int(bayes_decision(P, C.T)[0])  # the 2048 reading plugged into 2082
    assert right == 1 and swapped == 0
    return "p(1) = 0.2: C[pred, true] predicts 1 (0.8 < 2.0); the transposed reading, 0"


@claim(
    "C4-55",
    section="4.3.3",
    lines=(2084, 2088),
    statement="With Cᵢⱼ = 1 for i ≠ j and 0 otherwise, the least expected cost "
    "decision is the argmax of f(x).",
)
def _c4_55() -> str:
    import scipy.special as sp

    from alice_lab.calibration import bayes_decision

    P = sp.softmax(_rng(55).normal(size=(1000, 7)) * 2, axis=1)
    assert np.array_equal(bayes_decision(P, 1 - np.eye(7)), P.argmax(axis=1))
    return "0/1 costs: the argmax on 1000 random distributions over 7 classes"


# =====================================================================================
# 4.3.4 Estimating the calibration error
# =====================================================================================


@claim(
    "C4-56",
    section="4.3.4",
    lines=(2092, 2100),
    statement="Reliability bins: b equal bins of [0, 1] hold every prediction once, "
    "the mean confidence of a bin lies inside it, and the per-bin accuracies agree "
    "with scikit-learn's calibration_curve.",
    equation="Figure F.4.5",
)
def _c4_56() -> str:
    from sklearn.calibration import calibration_curve

    from alice_lab.calibration import reliability_bins

    rng = _rng(56)
    p1 = rng.beta(2, 2, size=1000)
    y = (rng.uniform(size=1000) < p1**1.5).astype(int)
    b = reliability_bins(p1, y, n_bins=10)
    counts, conf, acc = (np.asarray(a) for a in (b.counts, b.confidence, b.accuracy))
    full = counts > 0
    assert counts.sum() == 1000
    edges = np.asarray(b.edges)
    assert np.all((conf[full] >= edges[:-1][full]) & (conf[full] <= edges[1:][full]))
    prob_true, prob_pred = calibration_curve(y, p1, n_bins=10)
    assert (
        _maxerr(acc[full], prob_true) < 1e-12 and _maxerr(conf[full], prob_pred) < 1e-12
    )
    return (
        f"{int(full.sum())} non-empty bins, Σ|Bᵢ| = 1000; = sklearn calibration_curve"
    )


@claim(
    "C4-57",
    section="4.3.4",
    lines=(2100, 2116),
    statement="The ECE is the |Bᵢ|/n-weighted sum of the gaps |aᵢ − pᵢ| of the "
    "reliability diagram, lies in [0, 1], and is close to 0 for a model whose labels "
    "are drawn from its own predictions.",
    equation="E.4.21",
)
def _c4_57() -> str:
    import scipy.special as sp

    from alice_lab.calibration import expected_calibration_error, reliability_bins

    z, y = _sampled(20_000, seed=57)
    P = sp.softmax(z, axis=1)
    ece = float(expected_calibration_error(P, y))
    assert 0 <= ece < 0.02, ece
    over = sp.softmax(3 * z, axis=1)
    b = reliability_bins(over.max(axis=1), over.argmax(axis=1) == y)
    counts, gaps = np.asarray(b.counts), np.nan_to_num(np.asarray(b.gaps))
    weighted = float(np.sum(counts / len(y) * gaps))
    ece_over = float(expected_calibration_error(over, y))
    assert abs(weighted - ece_over) < 1e-12 and 0 <= ece_over <= 1
    return (
        f"calibrated: ECE = {ece:.4f}; over-confident (logits × 3): "
        f"ECE = {ece_over:.3f} = Σ weighted gaps"
    )


@claim(
    "C4-58",
    section="4.3.4",
    lines=(2118, 2120),
    statement="Temperature scaling fixes over-confidence: for logits 3z of a model "
    "calibrated at z, the NLL-optimal temperature on held-out data is about 3, the "
    "ECE drops and the accuracy is unchanged; the maximum gap over the bins is never "
    "below the ECE.",
)
def _c4_58() -> str:
    import scipy.optimize
    import scipy.special as sp

    from alice_lab.calibration import (
        expected_calibration_error,
        fit_temperature,
        max_calibration_error,
        temperature_nll,
    )

    z, y = _sampled(6000, seed=58)
    zc, yc, zt, yt = 3 * z[:3000], y[:3000], 3 * z[3000:], y[3000:]
    tau = fit_temperature(zc, yc)
    ref = scipy.optimize.minimize_scalar(
        lambda t: float(temperature_nll(zc, yc, t)),
        bounds=(0.05, 20),
        method="bounded",
        options={"xatol": 1e-9},
    ).x
    assert abs(tau - ref) < 1e-4 and abs(tau - 3) < 0.3, (tau, ref)
    before = float(expected_calibration_error(sp.softmax(zt, axis=1), yt))
    after = float(expected_calibration_error(sp.softmax(zt / tau, axis=1), yt))
    assert after < before / 3, (before, after)
    assert np.array_equal(zt.argmax(axis=1), (zt / tau).argmax(axis=1))
    mce = float(max_calibration_error(sp.softmax(zt, axis=1), yt))
    assert mce >= before
    return (
        f"τ = {tau:.3f} (scipy {ref:.3f}); test ECE {before:.3f} → {after:.3f}; "
        f"MCE {mce:.3f} ≥ ECE"
    )


@claim(
    "C4-59",
    section="4.3.4",
    lines=(2122, 2146),
    statement="Prediction sets {i : f(x)ᵢ > γ} shrink as γ grows; γ = 0 keeps every "
    "class of non-zero probability, hence always contains the true class.",
    equation="E.4.22",
)
def _c4_59() -> str:
    import scipy.special as sp

    from alice_lab.calibration import coverage, prediction_sets

    z, y = _sampled(500, seed=59)
    P = sp.softmax(z, axis=1)
    sizes = [prediction_sets(P, g).sum(axis=1) for g in np.linspace(0, 0.99, 34)]
    assert all(np.all(a >= b) for a, b in zip(sizes, sizes[1:], strict=False))
    full = prediction_sets(P, 0.0)
    assert full.all() and float(coverage(full, y)) == 1.0
    first, last = sizes[0].mean(), sizes[-1].mean()
    return f"mean set size {first:.1f} at γ = 0, {last:.2f} at γ = 0.99"


def _digits_split():
    from sklearn.linear_model import LogisticRegression

    from alice_lab.data import load_digits, standardize, train_test_split

    X, y = load_digits()
    Xtr, Xrest, ytr, yrest = train_test_split(X, y, test_size=0.5, seed=0)
    Xtr, Xrest = standardize(Xtr, Xrest)
    model = LogisticRegression(C=0.01, max_iter=2000).fit(Xtr, ytr)
    P = model.predict_proba(Xrest)
    half = len(yrest) // 2
    return P[:half], yrest[:half], P[half:], yrest[half:]


@claim(
    "C4-60",
    section="4.3.4",
    lines=(2146, 2162),
    statement="Split conformal prediction: a γ calibrated on held-out data at level α "
    "gives sets that contain the true class at least 1 − α of the time on new data; a "
    "smaller α lowers γ and enlarges the sets (monotone, though not proportional).",
    equation="E.4.23",
)
def _c4_60() -> str:
    from alice_lab.calibration import conformal_threshold, coverage, prediction_sets

    Pc, yc, Pt, yt = _digits_split()
    out, gammas, sizes = [], [], []
    for alpha in (0.02, 0.05, 0.1, 0.2):
        g = conformal_threshold(Pc, yc, alpha)
        sets = prediction_sets(Pt, g)
        cov = float(coverage(sets, yt))
        assert cov >= 1 - alpha - 0.03, (alpha, cov)
        gammas.append(g)
        sizes.append(sets.sum(axis=1).mean())
        out.append(f"α={alpha}: coverage {cov:.3f}, size {sizes[-1]:.2f}")
    assert gammas == sorted(gammas) and sizes == sorted(sizes, reverse=True)
    return "; ".join(out)


@claim(
    "E4-13",
    section="4.3.4",
    lines=(2146, 2160),
    statement=(
        "Lowering γ only grows the set {i : f_i > γ} (γ = 0 takes every class),"
        " so conformal prediction picks the largest γ whose sets still hold the"
        " true class with probability ≥ 1 − α (E.4.23): α is the allowed "
        "miscoverage, and that γ grows with α."
    ),
    erratum=(
        "“select the minimum γ such that the probability of finding the correct"
        " class y in the set is higher than a user-defined error α” and “an "
        "inversely proportional relation between γ and α”"
    ),
    equation="E.4.23",
)
def _e4_13() -> str:
    from alice_lab.calibration import conformal_threshold, coverage, prediction_sets

    Pc, yc, Pt, yt = _digits_split()
    miss, gammas, sizes = {}, {}, {}
    for alpha in (0.05, 0.1, 0.2):
        gammas[alpha] = conformal_threshold(Pc, yc, alpha)
        sets = prediction_sets(Pt, gammas[alpha])
        miss[alpha] = 1 - float(coverage(sets, yt))
        sizes[alpha] = float(np.mean(np.sum(sets, axis=1)))
        assert miss[alpha] <= alpha + 0.03, (alpha, miss[alpha])
    # the printed "minimum γ" meeting the bound is γ = 0: every class, every time
    everything = float(np.mean(np.sum(prediction_sets(Pc, 0.0), axis=1)))
    assert everything == Pc.shape[1] and max(sizes.values()) < everything / 3, sizes
    # the chosen γ is the largest the calibration scores allow: the next score up
    # would leave out more true classes than α allows
    true_scores = np.sort(Pc[np.arange(len(yc)), yc])
    k = int(np.floor((len(yc) + 1) * 0.1))
    assert gammas[0.1] == true_scores[k - 1] < true_scores[k], (gammas[0.1], k)
    # γ grows with α (not "inversely")
    g = [gammas[a] for a in (0.05, 0.1, 0.2)]
    assert g[0] <= g[1] <= g[2] and g[0] < g[2], g
    shown = ", ".join(f"{v:.3f} at α = {a}" for a, v in miss.items())
    return (
        f"miscoverage {shown} (each ≤ α + 0.03); γ = "
        + ", ".join(f"{v:.3g}" for v in g)
        + f" grows with α; mean set size {sizes[0.1]:.2f} vs {everything:.0f} at γ = 0"
    )
