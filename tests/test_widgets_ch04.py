"""The chapter-4 widgets, three layers each: the pure functions against SciPy and
hand-written references, the live views driven through their sliders, and the static
HTML animations (a working slider, the expected frames, no network)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats

from alice_course.widgets import ch04_reliability as rl, ch04_softmax_temperature as st


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _frames(html: str) -> int:
    return len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))


def _static_ok(html: str, n_frames: int) -> None:
    assert re.search(r'<input[^>]*type="range"', html)
    assert _frames(html) == n_frames and f"new Array({n_frames})" in html
    assert "https://" not in html and "http://" not in html.replace(
        "http://www.w3.org", ""
    )
    assert len(html) < 3_000_000


# --- softmax with temperature --------------------------------------------------------


def test_softmax_path_matches_scipy_and_the_figure():
    taus = np.array([1.0, 10.0, 100.0])
    path = st.softmax_path([1.0, 2.0, -0.5], taus)
    want = np.stack([sp.softmax(np.array([1.0, 2.0, -0.5]) / t) for t in taus])
    np.testing.assert_allclose(path.probs, want, rtol=1e-14)
    np.testing.assert_allclose(path.probs.round(3)[0], [0.254, 0.690, 0.057])
    np.testing.assert_allclose(
        path.entropy, [scipy.stats.entropy(p) for p in want], rtol=1e-12
    )
    # the point is the probability-weighted average of the triangle's corners
    np.testing.assert_allclose(path.xy, want @ st.VERTICES, rtol=1e-14)


def test_softmax_path_limits():
    path = st.softmax_path([0.3, -1.0, 2.0, 0.0], np.logspace(-3, 4, 30))
    assert path.xy is None  # four classes: no triangle
    np.testing.assert_allclose(path.probs[0], [0, 0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(path.probs[-1], [0.25] * 4, atol=1e-3)  # 1/m, not 1/c
    assert np.all(np.diff(path.entropy) >= -1e-12)
    order = np.argsort([0.3, -1.0, 2.0, 0.0])
    assert all(np.array_equal(np.argsort(p), order) for p in path.probs[5:])


def test_simplex_xy_corners_and_bad_input():
    np.testing.assert_allclose(st.simplex_xy(np.eye(3)), st.VERTICES)
    np.testing.assert_allclose(st.simplex_xy([1 / 3] * 3), st.VERTICES.mean(axis=0))
    with pytest.raises(ValueError, match="3 probabilities"):
        st.simplex_xy([0.5, 0.5])
    with pytest.raises(ValueError, match="at least 2 logits"):
        st.softmax_path([1.0])
    with pytest.raises(ValueError, match="positive temperatures"):
        st.softmax_path([1.0, 2.0], [0.0])


def test_softmax_live_view_follows_its_sliders():
    box = st.live_view(x=(1.0, 2.0, -0.5), tau=1.0)
    e = box.explorer
    _core_only(box)
    first = e.image.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert "softmax = [0.254, 0.690, 0.057]" in e.label.value
    e.logits[2].value = 3.0
    e.tau.value = 0.5
    want = sp.softmax(np.array([1.0, 2.0, 3.0]) / e.tau.value)
    np.testing.assert_allclose([b.get_height() for b in e.bars], want, rtol=1e-12)
    x, y = e.point.get_data()
    np.testing.assert_allclose(np.column_stack([x, y])[0], want @ st.VERTICES)
    assert "argmax = class 3" in e.label.value and e.image.value != first


def test_softmax_static_view():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    html = st.static_view(frames=12).data
    assert plt.get_fignums() == before
    _static_ok(html, 12)
    with pytest.raises(ValueError, match="frames"):
        st.static_view(frames=0)


# --- reliability diagram -------------------------------------------------------------


def test_demo_logits_are_over_confident_by_three():
    from alice_lab.calibration import fit_temperature

    h, y = rl.demo_logits(3000, seed=1)
    assert h.shape == (3000, 5) and y.dtype == np.int64
    assert fit_temperature(h, y) == pytest.approx(3.0, rel=0.1)


def test_reliability_at_matches_a_loop():
    h, y = rl.demo_logits(800, seed=2)
    r = rl.reliability_at(h, y, tau=2.0, n_bins=8)
    P = sp.softmax(h / 2.0, axis=1)
    conf, ok = P.max(axis=1), P.argmax(axis=1) == y
    ece = 0.0
    for i in range(8):
        lo, hi = i / 8, (i + 1) / 8
        inside = (conf > lo) & (conf <= hi) if i else (conf <= hi)
        assert r.counts[i] == inside.sum()
        if inside.any():
            assert r.accuracy[i] == pytest.approx(ok[inside].mean())
            assert r.confidence[i] == pytest.approx(conf[inside].mean())
            ece += inside.mean() * abs(ok[inside].mean() - conf[inside].mean())
    assert r.ece == pytest.approx(ece, rel=1e-12) and r.mce >= r.ece
    assert r.accuracy_total == pytest.approx(ok.mean())
    same = rl.reliability_at(h, y, tau=0.3, n_bins=8).accuracy_total
    assert same == r.accuracy_total  # temperature never changes the argmax


def test_reliability_live_view_follows_its_sliders():
    h, y = rl.demo_logits(1000, seed=3)
    box = rl.live_view(h, y, tau=1.0, n_bins=10)
    e = box.explorer
    _core_only(box)
    first_ece = e.result.ece
    e.tau.value = 3.0
    e.n_bins.value = 5
    want = rl.reliability_at(h, y, e.tau.value, 5)
    assert e.label.value == rl.summary(want)
    assert want.ece < first_ece
    heights = [b.get_height() for b in e.diagram.acc_bars[:5]]
    np.testing.assert_allclose(heights, np.nan_to_num(want.accuracy))
    assert not any(b.get_visible() for b in e.diagram.acc_bars[5:])


def test_reliability_static_view():
    html = rl.static_view(taus=[0.5, 1.0, 3.0, 6.0]).data
    _static_ok(html, 4)
    with pytest.raises(ValueError, match="1 to 60"):
        rl.static_view(taus=np.ones(61))
