"""Chapter 13 widgets: the pure functions against independent computations, the live
views driven through their controls, the static animations (slider, frames, nothing
remote)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import (
    ch13_recurrent_vs_parallel as recurrent_vs_parallel,
    ch13_scan_tree as scan_tree,
    ch13_ssm_kernel as ssm_kernel,
)


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


def test_state_at_matches_hand_written_sums():
    st = recurrent_vs_parallel.state_at(6)
    Q, K, V = recurrent_vs_parallel._data(24)
    phi = lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))  # noqa: E731
    S = sum(np.outer(phi(K[j]), V[j]) for j in range(6))
    np.testing.assert_allclose(st.S, S, atol=1e-12)
    np.testing.assert_allclose(st.z, phi(K[:6]).sum(0), atol=1e-12)
    np.testing.assert_allclose(
        st.h_parallel, phi(Q[5]) @ S / (phi(Q[5]) @ st.z), atol=1e-12
    )
    assert st.gap < 1e-12 and st.linear_memory == 24 and st.kv_cache_memory == 6 * 9
    with pytest.raises(ValueError, match="i must lie in"):
        recurrent_vs_parallel.state_at(0)


def test_tree_layout_counts():
    t = scan_tree.tree_layout(6, "blelloch")
    assert (t.work, t.depth, t.matches_loop) == (7, 3, True)
    assert sorted(t.ops[t.ops[:, 0] == 1][:, 3].tolist()) == [2, 4, 6]
    hs = scan_tree.tree_layout(16, "hillis_steele")
    assert hs.depth == 4 and hs.work == 15 + 14 + 12 + 8
    assert scan_tree.tree_layout(9, "sequential").depth == 8
    with pytest.raises(ValueError):
        scan_tree.tree_layout(0)


def test_ssm_response_kernel_and_stability():
    r = ssm_kernel.ssm_response(0.9, 0.4, n=50)
    lam = 0.9 * np.exp(0.4j)
    np.testing.assert_allclose(r.kernel, np.real(lam ** np.arange(50)), atol=1e-14)
    assert r.stable and r.max_gap < 1e-10
    assert r.state_norm.max() <= 1 / (1 - 0.9) + 1e-9
    bad = ssm_kernel.ssm_response(1.05, 0.4, n=200)
    assert not bad.stable and bad.state_norm[-1] > 1e3
    with pytest.raises(ValueError):
        ssm_kernel.ssm_response(2.0)


def test_live_views_respond_to_controls():
    box = recurrent_vs_parallel.live_view()
    _core_only(box)
    box.live.controls["i"].value = 20
    assert (
        box.live.label.value.startswith("token 20")
        and "KV cache 180" in box.live.label.value
    )
    box = scan_tree.live_view()
    _core_only(box)
    box.live.controls["algorithm"].value = "sequential"
    assert "5 ops in 5 levels" in box.live.label.value
    box = ssm_kernel.live_view()
    _core_only(box)
    box.live.controls["radius"].value = 1.08
    assert "unstable" in box.live.label.value


def test_static_views():
    _check_static(recurrent_vs_parallel.static_view(n=8).data, 8)
    _check_static(scan_tree.static_view(ns=(2, 6, 9)).data, 3)
    _check_static(ssm_kernel.static_view(radii=[0.5, 0.9, 1.05]).data, 3)
