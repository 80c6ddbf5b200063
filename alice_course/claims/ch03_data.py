"""Checkable claims of Chapter 3, §3.1 datasets and §3.1.1 embeddings (lines 1164-1192).

The i.i.d. claims use the synthetic generators of :mod:`alice_lab.risk` with SciPy's
two-sample Kolmogorov-Smirnov test as the outside judge; the embedding claims use
scikit-learn's bundled digits, a small PyTorch network
(:func:`alice_course.widgets.ch03_embedding.train_digits_mlp`, cached) and
scikit-learn's neighbours, Gaussian mixtures and adjusted Rand index.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _rng


@claim(
    "C3-01",
    section="3.1",
    lines=(1168, 1170),
    statement="A supervised dataset is n i.i.d. draws from one p(x, y): two halves "
    "of an i.i.d. sample pass a two-sample KS test, while the two halves of a sample "
    "whose distribution drifts along the collection fail it.",
)
def _c3_01() -> str:
    from scipy.stats import ks_2samp

    from alice_lab.risk import sample_drifting, sample_linear

    n = 4000
    X, y = sample_linear(n, _rng(1))
    assert X.shape == (n, 1) and y.shape == (n,), (X.shape, y.shape)
    p_iid = min(
        ks_2samp(y[: n // 2], y[n // 2 :]).pvalue,
        ks_2samp(X[: n // 2, 0], X[n // 2 :, 0]).pvalue,
    )
    assert p_iid > 0.01, f"i.i.d. halves rejected: p = {p_iid:.3g}"
    rng = _rng(2)
    first = sample_drifting(n // 2, 0.0, rng)
    second = sample_drifting(n // 2, 1.0, rng)
    resid = [Xh[:, 0] - yh for Xh, yh in (first, second)]  # y - x1 drifts with t
    p_drift = ks_2samp(*resid).pvalue
    assert p_drift < 1e-6, f"drifting halves not rejected: p = {p_drift:.3g}"
    return f"i.i.d. halves: KS p = {p_iid:.2f}; drifting halves: KS p = {p_drift:.1e}"


@claim(
    "C3-02",
    section="3.1",
    lines=(1172, 1174),
    statement="Breaking the i.i.d. assumption hurts at deployment: a model fitted at "
    "time t = 0 has a much larger risk at t = 1 (drift), and a model fitted on a "
    "biased collection does worse on the population than one fitted on an unbiased "
    "sample of the same size.",
)
def _c3_02() -> str:
    from alice_lab.linear import linear_model
    from alice_lab.losses import squared_loss
    from alice_lab.risk import (
        empirical_risk,
        erm_gd,
        sample_biased,
        sample_drifting,
        squared_loss_grad,
    )

    rng = _rng(3)
    X0, y0 = sample_drifting(500, 0.0, rng)
    w = erm_gd(squared_loss_grad, X0, y0, np.zeros(2), lr=0.2, steps=300).x
    w_ref = np.linalg.lstsq(X0, y0, rcond=None)[0]
    assert np.allclose(w, w_ref, atol=1e-6), (w, w_ref)
    risk = {
        t: float(
            empirical_risk(
                squared_loss,
                lambda X: linear_model(X, w),
                *sample_drifting(5000, t, rng),
            )
        )
        for t in (0.0, 1.0)
    }
    assert risk[1.0] > 10 * risk[0.0], risk

    def fit(share):
        Xb, yb = sample_biased(500, share, rng)
        return np.linalg.lstsq(np.c_[Xb, np.ones(len(Xb))], yb, rcond=None)[0]

    Xp, yp = sample_biased(20_000, 0.5, rng)  # the population
    A = np.c_[Xp, np.ones(len(Xp))]
    pop = {s: float(np.mean((A @ fit(s) - yp) ** 2)) for s in (0.5, 0.9)}
    assert pop[0.9] > 1.5 * pop[0.5], pop
    return (
        f"drift: risk {risk[0.0]:.3f} at t=0 vs {risk[1.0]:.3f} at t=1; bias: "
        f"population risk {pop[0.5]:.3f} (unbiased) vs {pop[0.9]:.3f} (90% one group)"
    )


@claim(
    "C3-03",
    section="3.1.1",
    lines=(1180, 1180),
    statement="Retrieval returns the top-k most similar database items to a query: "
    "the same indices as scikit-learn's cosine nearest neighbours, sorted by "
    "similarity, and a database row queried against itself comes first.",
)
def _c3_03() -> str:
    from sklearn.neighbors import NearestNeighbors

    from alice_course.widgets.ch03_embedding import digits_data, topk_similar

    X, _, Xte, _ = digits_data()
    k = 5
    nn = NearestNeighbors(n_neighbors=k, metric="cosine").fit(X)
    _, ref = nn.kneighbors(Xte[:50])
    ours = np.stack([topk_similar(q, X, k) for q in Xte[:50]])
    assert np.array_equal(ours, ref), "top-k differs from sklearn"
    sims = (X @ Xte[0]) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Xte[0]))
    assert np.all(np.diff(sims[ours[0]]) <= 1e-12), "results not sorted by similarity"
    unique = np.unique(X, axis=0).shape[0] == len(X)
    selves = [int(topk_similar(X[i], X, 1)[0]) == i for i in range(0, len(X), 50)]
    assert unique and all(selves), "a database row is not its own top-1"
    return (
        f"top-{k} of 50 queries equal sklearn's; {len(selves)} self-queries come first"
    )


@claim(
    "C3-04",
    section="3.1.1",
    lines=(1182, 1182),
    statement="Distances between raw pixels are a poor notion of similarity: shifting "
    "a digit by one pixel changes most of its pixels and moves it farther from "
    "itself than its nearest image of a different digit.",
)
def _c3_04() -> str:
    from scipy.spatial.distance import cdist

    from alice_course.widgets.ch03_embedding import digits_data, shift_right

    _, _, Xte, yte = digits_data()
    S = shift_right(Xte)
    changed = np.mean(np.sum(S != Xte, axis=1))
    d_self = np.linalg.norm(Xte - S, axis=1)
    D = cdist(Xte, Xte)
    D[yte[:, None] == yte[None, :]] = np.inf  # only other digits
    frac = float(np.mean(d_self > D.min(axis=1)))
    assert changed > 20, f"only {changed:.1f} of 64 pixels change"
    assert frac > 0.5, (
        f"only {frac:.2f} of shifted digits are farther than another digit"
    )
    return (
        f"a 1-pixel shift changes {changed:.1f}/64 pixels on average; for "
        f"{100 * frac:.1f}% of test digits it lands farther away than the nearest "
        "other digit"
    )


@claim(
    "C3-05",
    section="3.1.1",
    lines=(1176, 1182),
    statement="In a trained network's hidden layer similar inputs land close together "
    "(F.3.1): nearest-neighbour accuracy stays as high as on pixels, and a Gaussian "
    "mixture finds the digit classes much better (higher adjusted Rand index).",
    equation="F.3.1",
)
def _c3_05() -> str:
    from alice_course.widgets.ch03_embedding import (
        digits_data,
        gmm_ari,
        hidden_features,
        knn_accuracy,
        train_digits_mlp,
    )

    X, y, Xte, yte = digits_data()
    W = train_digits_mlp().at(30)
    knn = {
        L: knn_accuracy(hidden_features(W, X, L), y, hidden_features(W, Xte, L), yte)
        for L in (0, 2)
    }
    ari = {L: gmm_ari(hidden_features(W, Xte, L), yte) for L in (0, 2)}
    assert knn[2] >= knn[0] - 0.02, knn
    assert ari[2] > ari[0] + 0.1, ari
    return (
        f"5-NN accuracy {knn[0]:.3f} (pixels) vs {knn[2]:.3f} (hidden layer 2); "
        f"GMM ARI {ari[0]:.3f} vs {ari[2]:.3f}"
    )
