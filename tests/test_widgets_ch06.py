"""Chapter 6 widgets, three layers each: the pure functions against independent
computations, the live views driven through their controls, and the static HTML
animations (a slider, the expected number of frames, nothing remote)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import (
    ch06_ad_modes as ad_modes,
    ch06_fd_step as fd_step,
    ch06_graph_viewer as graph_viewer,
    ch06_vanishing as vanishing,
)
from alice_lab import autodiff as ad


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    found = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert found == frames
    assert "https://" not in html and "http://" not in html.replace(
        "http://www.w3.org", ""
    )
    assert plt.get_fignums() == []


# --- finite-difference step explorer --------------------------------------------------


def test_fd_curves_match_hand_written_quotients():
    hs = np.array([1e-2, 1e-4, 1e-6])
    curves = fd_step.fd_curves(hs=hs)
    for h, err in zip(hs, curves[("central", "float64")].error, strict=True):
        hand = (np.sin(1 + h) - np.sin(1 - h)) / (2 * h)
        assert err == pytest.approx(abs(hand - np.cos(1.0)) / 1.0, rel=1e-6)
    x32, h32 = np.float32(1.0), np.float32(1e-2)
    hand32 = (np.sin(x32 + h32) - np.sin(x32)) / h32
    got = curves[("forward", "float32")].error[0]
    assert got == pytest.approx(abs(float(hand32) - np.cos(1.0)), rel=1e-6)
    with pytest.raises(ValueError, match="function must be one of"):
        fd_step.fd_curves("cos(x)")


def test_fd_readout_counts_calls_and_finds_the_bottom_of_the_v():
    r = fd_step.readout(1e-5, "central", "float64", parameters=10)
    assert r.calls_per_gradient == 20
    assert fd_step.readout(1e-5, "forward", parameters=10).calls_per_gradient == 11
    assert 1e-7 <= r.best_h <= 1e-4
    assert fd_step.readout(1e-3, "central", "float32").best_h > 1e-5
    with pytest.raises(ValueError):
        fd_step.readout(1e-5, "backward")


def test_fd_live_view_follows_its_controls():
    box = fd_step.live_view()
    e = box.explorer
    _core_only(box)
    png = e.image.value
    e.dtype.value = "float32"
    e.scheme.value = "forward"
    e.h.value = 1e-3
    want = fd_step.readout(e.h.value, "forward", "float32")
    assert e.label.value.startswith("forward difference, float32")
    assert f"{want.error:.1e}" in e.label.value
    x, y = e.marker.get_data()
    assert x[0] == pytest.approx(e.h.value) and y[0] == pytest.approx(want.error)
    assert e.lines[("forward", "float32")].get_linewidth() == 3.0
    e.function.value = "exp(x) at x = 0.5"
    assert "exp(x)" in e.ax.get_title() and e.image.value != png


def test_fd_static_view():
    _check_static(fd_step.static_view(frames=4, dpi=40).data, 4)
    with pytest.raises(ValueError, match="frames"):
        fd_step.static_view(frames=100)


# --- forward versus reverse mode ------------------------------------------------------


def test_mode_schedule_follows_the_book_counts():
    s = ad_modes.schedule(n=2, d=3, depth=3)
    assert len(s.forward) == 4 and len(s.reverse) == 8 and s.max_gap < 1e-12
    p = 3 * 3 + 3  # weights per layer
    last = s.forward[-1]
    assert [k for k in last.live if k.startswith("W̃")] == ["W̃1", "W̃2", "W̃3", "W̃4"]
    assert last.live["W̃1"] == (6, p)
    assert [f.phase for f in s.reverse] == ["forward"] * 4 + ["backward"] * 4
    assert set(s.reverse[3].live) == {"h0", "h1", "h2", "h3", "h4"}
    assert max(f.floats for f in s.forward) > max(f.floats for f in s.reverse)
    with pytest.raises(ValueError, match="n must be"):
        ad_modes.schedule(n=0)


def test_mode_costs_forward_mode_pays_a_factor_p():
    rows = ad_modes.cost_table(ns=(1, 2, 4), d=2, depth=2)
    f = [r["forward_multiply_adds"] for r in rows]
    r = [r["reverse_multiply_adds"] for r in rows]
    assert f[2] / f[1] > 3.5  # (n d)^2 p: doubling n quadruples it
    assert all(a > 2 * b for a, b in zip(f[1:], r[1:], strict=True))
    peak_f = [r["forward_peak_floats"] for r in rows]
    peak_r = [r["reverse_peak_floats"] for r in rows]
    assert all(a > b for a, b in zip(peak_f, peak_r, strict=True))


def test_modes_live_view():
    box = ad_modes.live_view(n=2, d=2, depth=2)
    e = box.explorer
    _core_only(box)
    assert e.step.max == 5 and e.play.max == 5
    e.step.value = 4
    f, r = e.schedule.at(4)
    assert r.phase == "backward" and f is e.schedule.forward[-1]
    assert f"{r.multiply_adds:,} multiply-adds" in e.label.value
    e.n.value = 3
    assert e.schedule.n == 3 and e.step.max == 5


def test_modes_static_view():
    _check_static(ad_modes.static_view(n=1, d=2, depth=1, dpi=40).data, 4)


# --- computational graph viewer -------------------------------------------------------


def test_engine_graph_of_the_diamond():
    root, (a,) = graph_viewer.build("diamond: c = a + a·a", 1.5)
    g = graph_viewer.engine_graph(root)
    assert g.labels == ["a", "b = a·a", "c = a + b"]
    assert g.layers == [0, 1, 2]
    assert sorted(g.edges) == [(0, 1, 2), (0, 2, 1), (1, 2, 1)]
    steps = graph_viewer.backward_steps(root)
    assert steps[0] == {2: 1.0} and steps[-1][0] == pytest.approx(1 + 2 * 1.5)
    assert len(steps) == 3


def test_backward_steps_agree_with_torch_on_every_preset():
    import torch

    for name in graph_viewer.PRESETS:
        root, leaves = graph_viewer.build(name, 0.7)
        root.backward()
        final = graph_viewer.backward_steps(root)[-1]
        g = graph_viewer.engine_graph(root)
        for leaf in leaves:
            assert final[g.index[id(leaf)]] == pytest.approx(float(leaf.grad))
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    a = torch.exp(x)
    y = a + a * a
    y.backward()
    root, (xe,) = graph_viewer.build("diamond behind a node: y = eˣ + eˣ·eˣ", 0.7)
    final = graph_viewer.backward_steps(root)[-1]
    assert final[graph_viewer.engine_graph(root).index[id(xe)]] == pytest.approx(
        float(x.grad), rel=1e-14
    )


def test_torch_graph_lists_grad_fn_nodes():
    import torch

    a = torch.tensor(2.0, requires_grad=True)
    b = a * a
    c = a + b
    g = graph_viewer.torch_graph(c)
    assert g.labels[-1] == "AddBackward0" and "MulBackward0" in g.labels
    assert g.labels.count("AccumulateGrad") == 1
    mul, acc = g.labels.index("MulBackward0"), g.labels.index("AccumulateGrad")
    assert (acc, mul, 2) in g.edges  # a is used twice by the product


def test_graph_live_view():
    box = graph_viewer.live_view()
    e = box.explorer
    _core_only(box)
    e.x.value = 0.5
    assert "∂/∂a = 2" in e.label.value  # 1 + 2a at a = 0.5
    e.preset.value = "neuron: tanh(w·x + b)"
    assert e.step.max == len(graph_viewer.backward_steps(e.root))
    png = e.image.value
    e.step.value = e.step.max
    assert e.image.value != png
    with pytest.raises(ValueError, match="preset must be one of"):
        graph_viewer.build("nope")


def test_graph_static_view():
    html = graph_viewer.static_view("diamond: c = a + a·a", dpi=40).data
    _check_static(html, 4)


# --- vanishing gradients --------------------------------------------------------------


def test_vanishing_profiles_match_torch():
    import torch

    p = vanishing.profiles(6, dtype="float64", orthogonal=False, activations=("tanh",))
    want = ad.gradient_flow.adjoint_norms(6, activation="tanh", dtype="float64")
    np.testing.assert_allclose(p["tanh"], want, rtol=1e-14)
    # the same network in torch (same seeded draws as adjoint_norms)
    rng = np.random.default_rng(0)
    h = torch.tensor(rng.standard_normal((1, 32)), requires_grad=True)
    hs = [h]
    for _ in range(6):
        W = torch.tensor(rng.standard_normal((32, 32)) / np.sqrt(32))
        h = torch.tanh(h @ W)
        h.retain_grad()
        hs.append(h)
    h.sum().backward()
    np.testing.assert_allclose(
        p["tanh"], [float(t.grad.norm()) for t in hs], rtol=1e-12
    )
    deep = vanishing.profiles(100, dtype="float32")
    assert deep["sigmoid"][0] == 0.0 and deep["relu"][-1] == pytest.approx(np.sqrt(32))


def test_vanishing_live_and_static_views():
    box = vanishing.live_view(depth=10)
    e = box.explorer
    _core_only(box)
    e.dtype.value = "float64"
    e.depth.value = 20
    assert len(e.curves["relu"]) == 21
    assert f"{e.curves['sigmoid'][0]:.2e}" in e.label.value
    _check_static(vanishing.static_view(depths=(5, 10, 15), dpi=40).data, 3)
