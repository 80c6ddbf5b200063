"""Chapter 3's widgets, three layers each: the pure function against an independent
computation, the live view driven through its controls, the static view's frames.

Widgets: loss_margin (§3.2), mc_risk (§3.2.1), bayes_coin (§3.3) and embedding
(F.3.1-F.3.2).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from alice_course.widgets import (
    ch03_bayes_coin as bayes_coin,
    ch03_embedding as embedding,
    ch03_loss_margin as loss_margin,
    ch03_mc_risk as mc_risk,
)


def _frames(html: str) -> int:
    return len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _static_ok(html: str, frames: int) -> None:
    assert re.search(r'<input[^>]*type="range"', html)
    assert _frames(html) == frames
    assert "http://" not in html and "https://" not in html
    assert len(html) < 2_000_000


# --- loss vs margin -------------------------------------------------------------------


def test_loss_curves_against_formulas():
    m = np.linspace(-3, 3, 121)
    c = loss_margin.loss_curves(m)
    np.testing.assert_array_equal(c["0/1"][0], (m <= 0).astype(float))
    np.testing.assert_array_equal(c["hinge"][0], np.maximum(0, 1 - m))
    np.testing.assert_allclose(c["logistic (ch. 4)"][0], np.log1p(np.exp(-m)))
    np.testing.assert_allclose(c["logistic (ch. 4)"][1], -1 / (1 + np.exp(m)))
    assert np.isnan(c["0/1"][1][m == 0]).all() and (c["0/1"][1][m != 0] == 0).all()
    np.testing.assert_array_equal(c["hinge"][1], np.where(m < 1, -1.0, 0.0))
    with pytest.raises(ValueError, match=r"\(m,\)"):
        loss_margin.loss_curves(np.zeros((2, 2)))


def test_loss_margin_live_view():
    box = loss_margin.live_view(y_hat=0.5)
    live = box.live
    _core_only(box)
    assert "hinge: 0.500" in live.label.value and "logistic" not in live.label.value
    live.controls["y_hat"].value = -1.0
    live.controls["logistic (ch. 4)"].value = True
    assert "0/1: 1.000" in live.label.value and "hinge: 2.000" in live.label.value
    assert f"{np.log1p(np.e):.3f}" in live.label.value
    live.controls["derivatives"].value = False
    assert live.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_loss_margin_static_view():
    _static_ok(loss_margin.static_view(frames=4).data, 4)


# --- Monte Carlo risk -----------------------------------------------------------------


def test_empirical_risks_statistics():
    r = mc_risk.empirical_risks(200, sigma=0.6, reps=400, seed=1)
    assert r.er == pytest.approx(0.36) and r.sd == pytest.approx(0.36 * np.sqrt(0.01))
    # n ε²/σ² is chi-square with n degrees of freedom: compare the whole distribution
    p = stats.kstest(200 * r.risks / 0.36, stats.chi2(200).cdf).pvalue
    assert p > 0.01
    with pytest.raises(ValueError, match="sigma > 0"):
        mc_risk.empirical_risks(10, sigma=0.0)


def test_mc_risk_live_and_static():
    box = mc_risk.live_view(n=50, sigma=0.5)
    _core_only(box)
    live = box.live
    live.controls["n"].value = 1000
    want = mc_risk.empirical_risks(1000, 0.5)
    assert f"{want.risks.mean():.4f}" in live.label.value
    assert f"{want.sd:.4f}" in live.label.value
    _static_ok(mc_risk.static_view(ns=(10, 100), reps=20).data, 2)


# --- Bayesian coin --------------------------------------------------------------------


def test_coin_posterior_against_scipy():
    flips = [1, 1, 0, 1, 0, 1, 1]
    p = bayes_coin.coin_posterior(2.0, 3.0, flips, k=50_000, seed=0)
    assert p.conjugate == (7.0, 5.0)
    np.testing.assert_allclose(
        p.posterior, stats.beta.pdf(bayes_coin.GRID, 7, 5), rtol=1e-6
    )
    np.testing.assert_allclose(p.sequential, p.posterior, rtol=1e-9)
    np.testing.assert_allclose(
        p.prior, stats.beta.pdf(bayes_coin.GRID, 2, 3), rtol=1e-6
    )
    assert p.ml == 5 / 7 and p.map == pytest.approx(6 / 10) and p.mean == 7 / 12
    assert abs(p.mc - 7 / 12) < 0.01
    from scipy.integrate import quad

    printed = quad(lambda t: t * stats.beta.pdf(t, 7, 5) ** 2, 0, 1)[0]
    assert (
        p.printed == pytest.approx(printed, rel=0.02) and abs(p.printed - p.mean) > 0.5
    )


def test_coin_posterior_without_data():
    p = bayes_coin.coin_posterior(1.0, 1.0, [])
    assert p.ml is None and p.map is None and p.mean == 0.5
    np.testing.assert_allclose(p.posterior, 1.0, rtol=1e-9)  # uniform stays uniform
    with pytest.raises(ValueError, match="> 0"):
        bayes_coin.coin_posterior(0.0, 1.0, [1])


def test_bayes_coin_live_view_buttons_and_sliders():
    box = bayes_coin.live_view(a=2.0, b=2.0)
    _core_only(box)
    heads, tails, random10, reset = box.buttons
    heads.click()
    heads.click()
    tails.click()
    assert box.flips == [1, 1, 0]
    assert "Beta(4.0, 3.0)" in box.live.label.value
    random10.click()
    assert len(box.flips) == 13
    box.live.controls["a"].value = 1.0
    box.live.controls["b"].value = 1.0
    h = sum(box.flips)
    assert f"ML {h / 13:.3f}" in box.live.label.value
    assert f"MAP {h / 13:.3f}" in box.live.label.value  # uniform prior: MAP = ML
    reset.click()
    assert box.flips == [] and "ML —" in box.live.label.value


def test_bayes_coin_static_view():
    _static_ok(bayes_coin.static_view(n_flips=6, frames=4).data, 4)


# --- embeddings (F.3.1, F.3.2) --------------------------------------------------------


def test_topk_and_pca_against_sklearn():
    from sklearn.decomposition import PCA
    from sklearn.neighbors import NearestNeighbors

    X, _, Xte, _ = embedding.digits_data()
    nn = NearestNeighbors(n_neighbors=4).fit(X)
    dist, ref = nn.kneighbors(Xte[:10])
    ours = np.stack(
        [embedding.topk_similar(q, X, 4, metric="euclidean") for q in Xte[:10]]
    )
    # digits have exact distance ties, so compare the distances, then most indices
    ours_d = np.linalg.norm(X[ours] - Xte[:10, None, :], axis=-1)
    np.testing.assert_allclose(ours_d, dist, atol=1e-12)
    assert np.mean(ours == ref) > 0.9
    P = embedding.pca_2d(Xte)
    Q = PCA(2).fit_transform(Xte)
    np.testing.assert_allclose(np.abs(P), np.abs(Q), atol=1e-8)
    with pytest.raises(ValueError, match="metric"):
        embedding.topk_similar(Xte[0], X, 3, metric="manhattan")
    with pytest.raises(ValueError, match="k <= m"):
        embedding.topk_similar(Xte[0], X[:2], 3)


def test_trained_network_snapshots():
    import torch

    run = embedding.train_digits_mlp()
    assert run.epochs == (0, 1, 2, 5, 10, 20, 30)
    assert run.test_accuracy[0] < 0.3 < 0.9 < run.test_accuracy[-1]
    W = run.at(30)
    _, _, Xte, _ = embedding.digits_data()
    h2 = embedding.hidden_features(W, Xte, 2)
    # the same layer computed by torch from the same weights
    x = torch.tensor(Xte)
    for Wl, bl in W[:2]:
        x = torch.relu(x @ torch.tensor(Wl) + torch.tensor(bl))
    np.testing.assert_allclose(h2, x.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(embedding.hidden_features(W, Xte, 0), Xte)
    with pytest.raises(ValueError, match="no snapshot"):
        run.at(3)


def test_shift_right_moves_every_pixel_one_column():
    X = np.arange(2 * 64, dtype=float).reshape(2, 64)
    S = embedding.shift_right(X).reshape(2, 8, 8)
    np.testing.assert_array_equal(S[:, :, 1:], X.reshape(2, 8, 8)[:, :, :-1])
    assert (S[:, :, 0] == 0).all()


def test_few_shot_curves_small():
    c = embedding.few_shot_curves(ks=(1, 5), seeds=(0,), epochs_pre=3, epochs_new=5)
    assert c["k"].tolist() == [1, 5]
    for name in ("frozen embedding", "fine-tuning", "from scratch", "pixels"):
        assert c[name].shape == (2,) and ((c[name] >= 0) & (c[name] <= 1)).all()
    assert (c["pixels"] > 0.4).all()  # nearest class mean on pixels beats chance (0.2)


def test_embedding_live_view_and_static():
    box = embedding.live_view(space="pixels", epoch=30)
    _core_only(box)
    live = box.live
    X, y, Xte, yte = embedding.digits_data()
    want = embedding.knn_accuracy(X, y, Xte, yte)
    assert f"{want:.3f}" in live.label.value
    live.controls["space"].value = "hidden layer 2"
    assert "5-NN" in live.label.value
    _static_ok(embedding.static_view(epochs=(0, 30)).data, 2)
