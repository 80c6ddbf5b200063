"""Appendix B widgets, three layers each: the pure functions against SciPy's sigmoid and
quadrature, the live views driven through their controls, and the static HTML
animations (a working slider, the expected number of frames, no kernel)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit

from alice_course.widgets import appB_sigmoid_step as ss, appB_staircase as sc


def _core_only(widget) -> None:
    """Every widget in the tree is a stock ipywidgets control (no custom front-end)."""
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _animation_frames(html: str) -> int:
    assert re.search(r'<input[^>]*type="range"', html)
    n = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert f"new Array({n})" in html
    assert len(html) < 3_000_000
    assert "https://" not in html and "http://" not in html  # nothing remote
    assert "▶" in html  # the play button, drawn without Font Awesome
    return n


# --- sigmoid_step: layer 1 --------------------------------------------------------


def test_step_curves_against_expit():
    a, w, s, bc, d = -1.3, 40.0, 0.35, 0.7, 0.16
    c = ss.step_curves(a, w, s, bin_center=bc, delta=d, n=501)
    x = np.linspace(0, 1, 501)
    np.testing.assert_allclose(c.neuron, a * expit(w * (x - s)), rtol=1e-12)
    want_bin = a * expit(w * (x - bc + d / 2)) - a * expit(w * (x - bc - d / 2))
    np.testing.assert_allclose(c.up + c.down, want_bin, atol=1e-14)
    np.testing.assert_array_equal(c.bin, c.up + c.down)
    np.testing.assert_array_equal(c.step, a * np.heaviside(x - s, 0.5))
    assert c.slope == pytest.approx(a * w / 4)


def test_errors_away_from_the_jumps_follow_the_closed_form():
    # beyond the window the worst point is the nearest one: |a| σ(-w · distance)
    for w in (10.0, 100.0, 1000.0):
        c = ss.step_curves(1.0, w, 0.3, window=0.02, n=2001)
        x = c.x[np.abs(c.x - 0.3) > 0.02]
        nearest = np.abs(x - 0.3).min()
        assert c.step_error == pytest.approx(expit(-w * nearest), rel=1e-9)
    errs = [ss.step_curves(1.0, w, 0.3).bin_error for w in (1.0, 10.0, 100.0, 1e3)]
    assert errs == sorted(errs, reverse=True) and errs[-1] < 1e-8
    assert "step 1.0e+00" not in ss.summary(ss.step_curves(1.0, 1e4, 0.3))


def test_step_curves_bad_input():
    with pytest.raises(ValueError, match="n must be at least 2"):
        ss.step_curves(n=1)
    with pytest.raises(ValueError, match="window must be > 0"):
        ss.step_curves(window=0.0)
    with pytest.raises(ValueError, match="delta must be a finite number > 0"):
        ss.step_curves(delta=-0.1)


# --- sigmoid_step: layers 2 and 3 --------------------------------------------------


def test_step_live_view_follows_its_sliders():
    box = ss.live_view(a=1.0, log10_w=1.0, s=0.3, delta=0.2)
    e = box.explorer
    _core_only(box)
    first = e.image.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    e.a.value = -0.5
    e.log10_w.value = 3.0
    e.s.value = 0.6
    e.delta.value = 0.1
    want = ss.step_curves(-0.5, 1e3, 0.6, delta=0.1)
    x, y = e.panels.neuron.get_data()
    np.testing.assert_allclose(y, want.neuron)
    np.testing.assert_allclose(e.panels.bin.get_data()[1], want.bin)
    assert e.label.value == ss.summary(want)
    assert "slope at s = aw/4 = -125" in e.label.value
    assert e.image.value != first


def test_step_static_view_is_a_small_animation():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    html = ss.static_view(frames=12).data
    assert plt.get_fignums() == before
    assert _animation_frames(html) == 12
    with pytest.raises(ValueError, match="frames must be between 2 and 60"):
        ss.static_view(frames=61)


# --- staircase: layer 1 -------------------------------------------------------------


def test_staircase_frame_against_quad_and_expit():
    fr = sc.staircase_frame("sin(x)/x", 5, n=2001)
    c, d = np.linspace(0, 10, 5), 2.5
    heights = [
        quad(lambda t: np.sinc(t / np.pi), ci - d / 2, ci + d / 2)[0] / d for ci in c
    ]
    np.testing.assert_allclose(fr.heights, heights, rtol=1e-12)
    x = np.linspace(0, 10, 2001)
    f = sum(
        h * (expit(1e4 * (x - ci + d / 2)) - expit(1e4 * (x - ci - d / 2)))
        for ci, h in zip(c, heights, strict=True)
    )
    np.testing.assert_allclose(fr.f, f, atol=1e-12)
    assert fr.mse == pytest.approx(np.mean((f - np.sinc(x / np.pi)) ** 2), rel=1e-9)
    assert fr.hidden_units == 10
    assert fr.mse == pytest.approx(0.0218, rel=0.03)  # Figure F.B.3, m = 5


def test_mse_curve_slopes_smooth_kink_and_jump():
    slopes = {name: sc.mse_curve(name)[2] for name in sc.TARGETS}
    assert slopes["sin(x)/x"] == pytest.approx(-2.0, abs=0.25)
    assert slopes["(x / 10)²"] == pytest.approx(-2.0, abs=0.25)
    assert slopes["|x − 5| / 5"] == pytest.approx(-2.0, abs=0.35)
    assert slopes["step at x = 10/3"] == pytest.approx(-1.0, abs=0.3)
    ms, err, _ = sc.mse_curve("sin(x)/x")
    assert ms.tolist() == list(sc.CURVE_MS) and err.shape == ms.shape


def test_staircase_bad_input():
    with pytest.raises(ValueError, match="target must be one of"):
        sc.staircase_frame("cos(x)", 5)
    with pytest.raises(ValueError, match="convention must be one of"):
        sc.staircase_frame("sin(x)/x", 5, convention="edges")
    with pytest.raises(ValueError, match="max_frames >= 2"):
        sc.frame_ms(1)


# --- staircase: layers 2 and 3 -----------------------------------------------------


def test_staircase_live_view_follows_its_controls():
    box = sc.live_view(m=15)
    e = box.explorer
    _core_only(box)
    assert "m = 15 bins → 30 hidden neurons" in e.label.value
    first = e.image.value
    e.m.value = 50
    e.target.value = "|x − 5| / 5"
    e.convention.value = "mid"
    want = sc.staircase_frame("|x − 5| / 5", 50, convention="mid")
    x, y = e.panels.f.get_data()
    np.testing.assert_allclose(y, want.f)
    assert e.panels.here.get_data()[0] == [50]
    _, _, slope = sc.mse_curve("|x − 5| / 5", convention="mid", w=1e4)
    assert e.label.value == sc.summary(want, slope)
    assert "100 hidden neurons" in e.label.value
    assert e.image.value != first


def test_staircase_static_view_is_a_small_animation():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    html = sc.static_view(max_frames=8).data
    assert plt.get_fignums() == before
    assert _animation_frames(html) == len(sc.frame_ms(8)) == 8
    idx = sc.frame_ms(40)
    assert idx[0] == 2 and idx[-1] == 200 and np.all(np.diff(idx) > 0)
