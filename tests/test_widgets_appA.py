"""Appendix A's widgets, three layers each: gaussian_pdf (§A.2-A.3), mc_convergence
(§A.4) and kl_divergence (§A.5), checked against SciPy and closed forms."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from alice_course.widgets import (
    appA_gaussian_pdf as gaussian_pdf,
    appA_kl_divergence as kl_divergence,
    appA_mc_convergence as mc_convergence,
)


def _static_ok(html: str, frames: int) -> None:
    assert re.search(r'<input[^>]*type="range"', html)
    assert len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html)) == frames
    assert "http://" not in html and "https://" not in html
    assert len(html) < 2_000_000


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


# --- Gaussian density --------------------------------------------------------------


@pytest.mark.parametrize("mu, sigma", [(0.0, 1.0), (1.5, 0.05), (-2.0, 2.5)])
def test_gaussian_curve_against_scipy(mu, sigma):
    c = gaussian_pdf.gaussian_curve(mu, sigma)
    np.testing.assert_allclose(
        c.pdf, stats.norm.pdf(c.x, mu, sigma), rtol=1e-12, atol=1e-300
    )
    np.testing.assert_allclose(c.cdf, stats.norm.cdf(c.x, mu, sigma), atol=1e-6)
    assert c.peak == pytest.approx(1 / np.sqrt(2 * np.pi * sigma**2), rel=1e-6)
    assert c.area == pytest.approx(1.0, abs=1e-6)


def test_gaussian_curve_rejects_bad_sigma():
    with pytest.raises(ValueError, match="sigma"):
        gaussian_pdf.gaussian_curve(0.0, 0.0)


def test_gaussian_live_and_static():
    box = gaussian_pdf.live_view()
    _core_only(box)
    live = box.live
    assert "below 1" in live.label.value
    live.controls["sigma"].value = 0.1
    assert "peak height 3.9894 (above 1)" in live.label.value
    x, y = live.figure.axes[0].lines[1].get_data()
    np.testing.assert_allclose(y, stats.norm.pdf(x, 0.0, 0.1), rtol=1e-10, atol=1e-300)
    _static_ok(gaussian_pdf.static_view(sigmas=[1.0, 0.1, 0.05]).data, 3)


# --- Monte Carlo convergence ----------------------------------------------------------


def test_mc_run_against_numpy():
    r = mc_convergence.mc_run("sin x", 500, seed=3)
    x = np.random.default_rng(3).standard_normal(500)
    np.testing.assert_allclose(r.estimate, np.cumsum(np.sin(x)) / np.arange(1, 501))
    # sd of sin(x) for x ~ N(0, 1), by quadrature
    from scipy.integrate import quad

    var = quad(lambda t: np.sin(t) ** 2 * stats.norm.pdf(t), -12, 12)[0]
    assert r.band[0] == pytest.approx(2 * np.sqrt(var))
    lot = mc_convergence.mc_run("lottery w", 20_000, seed=0)
    assert abs(lot.estimate[-1] - 1.5) < lot.band[-1]
    with pytest.raises(ValueError, match="one of"):
        mc_convergence.mc_run("cos x", 10)


def test_mc_error_mostly_inside_the_band():
    inside = [
        abs(mc_convergence.mc_run("x²", 400, seed=s).estimate[-1] - 1.0)
        < mc_convergence.mc_run("x²", 400, seed=s).band[-1]
        for s in range(100)
    ]
    assert 0.88 < np.mean(inside) <= 1.0  # about 95% for a 2-sd band


def test_mc_live_and_static():
    box = mc_convergence.live_view(name="x", n=100)
    _core_only(box)
    live = box.live
    live.controls["name"].value = "x²"
    live.controls["n"].value = 2000
    want = mc_convergence.mc_run("x²", 2000, 0).estimate[-1]
    assert f"{want:.4f} vs exact 1.0" in live.label.value
    _static_ok(mc_convergence.static_view(n=500, frames=3).data, 3)


# --- KL divergence -----------------------------------------------------------------


def test_kl_pair_against_quadrature():
    r = kl_divergence.kl_pair(0.5, 0.8, -1.0, 1.5, n=20_000, seed=2)
    x = kl_divergence.X
    np.testing.assert_allclose(r.p, stats.norm.pdf(x, 0.5, 0.8), rtol=1e-12)
    num = np.trapezoid(r.integrand, x)
    assert r.kl_pq == pytest.approx(num, rel=1e-6)
    assert abs(r.mc_pq - r.kl_pq) < 0.05 and abs(r.mc_qp - r.kl_qp) < 0.05
    same = kl_divergence.kl_pair(0.3, 1.2, 0.3, 1.2)
    assert same.kl_pq == 0.0 and same.kl_qp == 0.0
    with pytest.raises(ValueError, match="s1, s2 > 0"):
        kl_divergence.kl_pair(0, 0, 0, 1)


def test_kl_live_and_static():
    box = kl_divergence.live_view()
    _core_only(box)
    live = box.live
    assert (
        "KL(p‖q) = 0.4431" in live.label.value
        and "KL(q‖p) = 1.3069" in live.label.value
    )
    live.controls["s2"].value = 1.0
    live.controls["mu2"].value = 0.0
    assert "KL(p‖q) = 0.0000" in live.label.value
    _static_ok(kl_divergence.static_view(mus=[-1.0, 1.0]).data, 2)
