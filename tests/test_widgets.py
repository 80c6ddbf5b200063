"""The momentum widget's three layers: the pure function against a hand-written loop of
the book's recursion, the live view driven through its sliders, and the static HTML
animation (a working slider and the expected number of frames, with no kernel)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import ch02_gd_momentum as gm
from alice_lab.testfuncs import alice2d, alice2d_grad

STARTS = np.array([[2.0, 2.0], [7.5, 1.0], [4.0, 8.0]])


def hand_loop(X0, lr, lam, steps, grad=alice2d_grad):
    """Book §2.3.2: g_t = -lr grad f(x_{t-1}) + lam g_{t-1}; x_t = x_{t-1} + g_t;
    g_0 = 0."""
    x, g, path = X0.copy(), np.zeros_like(X0), [X0.copy()]
    for _ in range(steps):
        g = -lr * grad(x) + lam * g
        x = x + g
        path.append(x)
    return np.stack(path, axis=1)  # (k, steps + 1, 2)


# --- layer 1: the pure function ---------------------------------------------------


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.9])
def test_paths_match_hand_loop(lam):
    run = gm.momentum_paths(STARTS, lr=0.1, momentum=lam, steps=40)
    want = hand_loop(STARTS, 0.1, lam, 40)
    assert run.paths.shape == (3, 41, 2)
    np.testing.assert_allclose(run.paths, want, rtol=1e-12, atol=1e-12)
    norms = np.linalg.norm(alice2d_grad(want.reshape(-1, 2)), axis=1).reshape(3, 41)
    np.testing.assert_allclose(run.grad_norms, norms, rtol=1e-12)
    np.testing.assert_allclose(run.f_final, alice2d(want[:, -1]), rtol=1e-12)
    assert not run.diverged.any()


def test_momentum_changes_the_path_and_iterations_count():
    plain = gm.momentum_paths(STARTS, lr=0.01, momentum=0.0, steps=3000)
    heavy = gm.momentum_paths(STARTS, lr=0.01, momentum=0.3, steps=3000)
    assert np.abs(plain.paths[:, 5] - heavy.paths[:, 5]).max() > 1e-3
    assert np.array_equal(
        plain.paths[:, 1], heavy.paths[:, 1]
    )  # g_0 = 0: same 1st step
    # book claim C2-58: with a small step, momentum 0.3 needs fewer iterations
    assert (plain.iterations > 0).all() and (heavy.iterations > 0).all()
    assert (heavy.iterations < plain.iterations).all()
    for i in range(3):
        t = plain.iterations[i]
        assert plain.grad_norms[i, t] < 1e-6 <= plain.grad_norms[i, t - 1]


def test_divergence_is_reported_not_raised():
    def steep_grad(X):  # f = 50 |x|^2: with lr = 1 every step multiplies x by -99
        return 100.0 * X

    run = gm.momentum_paths(
        [[1.0, -1.0], [0.0, 0.0]],
        lr=1.0,
        momentum=0.0,
        steps=80,
        f=lambda X: 50.0 * (X**2).sum(axis=-1),
        grad_fn=steep_grad,
    )
    assert run.diverged.tolist() == [True, False]
    at = run.diverged_at[0]
    assert 40 < at < 60  # 99^t passes the optimiser's 1e100 limit near t = 50
    assert np.isnan(run.paths[0, at:]).all() and np.isfinite(run.paths[0, :at]).all()
    np.testing.assert_allclose(
        run.paths[0, at - 1], [(-99.0) ** (at - 1)] * np.array([1, -1])
    )
    assert np.array_equal(run.paths[1], np.zeros((81, 2)))
    assert "diverged at step" in gm.summary(run, 0)
    assert np.isfinite(run.f_final).all()


@pytest.mark.parametrize(
    "bad", [np.zeros((3, 3)), np.zeros((0, 2)), np.zeros((2, 2, 2))]
)
def test_bad_starts_raise(bad):
    with pytest.raises(ValueError, match=r"\(k, 2\)"):
        gm.momentum_paths(bad, lr=0.1, momentum=0.0, steps=3)


def test_contour_grid_is_f_on_the_box():
    X1, X2, F = gm.contour_grid(7)
    assert X1.shape == X2.shape == F.shape == (7, 7)
    assert X1.min() == 0 and X1.max() == 10 and X2[0, 0] == 0 and X2[-1, 0] == 10
    i, j = 3, 5
    assert F[i, j] == pytest.approx(float(alice2d(np.array([X1[i, j], X2[i, j]]))))
    with pytest.raises(ValueError):
        gm.contour_grid(1)


# --- layer 2: the live view -------------------------------------------------------


def _core_only(widget) -> None:
    """Every widget in the tree is a stock ipywidgets control (no custom front-end)."""
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def test_live_view_follows_its_sliders():
    box = gm.live_view(lr=0.1, momentum=0.3, steps=30, start=(2.0, 2.0))
    e = box.explorer
    _core_only(box)
    first_png = e.image.value
    assert first_png[:8] == b"\x89PNG\r\n\x1a\n"

    e.lr.value = 0.05
    e.momentum.value = 0.8
    e.x1.value = 7.0
    e.steps.value = 50
    want = gm.momentum_paths([[7.0, 2.0]], lr=e.lr.value, momentum=0.8, steps=50)
    x, y = e.path_line.get_data()
    np.testing.assert_allclose(np.column_stack([x, y]), want.paths[0])
    t, norms = e.norm_line.get_data()
    np.testing.assert_allclose(norms, want.grad_norms[0])
    assert e.label.value == gm.summary(want)
    assert "λ=0.80" in e.label.value and "x_T = (" in e.label.value
    assert e.image.value != first_png


def test_live_view_label_reports_convergence():
    box = gm.live_view(lr=0.1, momentum=0.3, steps=400, start=(2.0, 2.0))
    run = gm.momentum_paths([[2.0, 2.0]], lr=0.1, momentum=0.3, steps=400)
    assert run.iterations[0] > 0
    assert f"after {run.iterations[0]} iterations" in box.explorer.label.value
    assert (
        "f(x_T) = -1.0646" in box.explorer.label.value
    )  # the minimum near (1.64, 3.51)


# --- layer 3: the static view -----------------------------------------------------


def test_static_view_is_a_small_self_contained_animation():
    import matplotlib.pyplot as plt

    figures_before = plt.get_fignums()
    html = gm.static_view().data  # the defaults: 60 steps, momentum 0 and 0.9
    assert plt.get_fignums() == figures_before  # nothing left for pyplot to show
    assert re.search(r'<input[^>]*type="range"', html)
    n_frames = len(re.findall(r"frames\[\d+\] = \"data:image/jpeg;base64,", html))
    assert n_frames == len(gm.frame_indices(60)) == 60
    assert f"new Array({n_frames})" in html
    assert len(html) < 3_000_000
    assert "http://" not in html.replace("http://www.w3.org", "")  # no CDN


def test_frame_indices():
    assert gm.frame_indices(10).tolist() == list(range(11))
    idx = gm.frame_indices(1000, max_frames=40)
    assert len(idx) == 40 and idx[0] == 0 and idx[-1] == 1000
    assert (np.diff(idx) > 0).all()


def test_static_view_needs_no_network():
    """The animation player must not link remote stylesheets (the site is offline)."""
    from alice_course.widgets.static import offline_jshtml

    html = gm.static_view(steps=5, max_frames=3).data
    assert "https://" not in html and "http://" not in html
    assert "▶" in html  # the play button, drawn without Font Awesome
    with pytest.raises(ValueError, match="remote resource"):
        offline_jshtml('<img src="https://example.org/x.png">')
