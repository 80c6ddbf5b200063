"""Chapter 12 widgets: pure functions against independent computations, live views
driven through their controls, static HTML animations (slider, frame count, offline)."""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pytest

from alice_course.widgets import (
    ch12_gat_ranking as gat_ranking,
    ch12_graph_diffusion as graph_diffusion,
    ch12_graph_receptive_field as receptive_field,
)


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    assert len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html)) == frames
    assert "https://" not in html
    assert plt.get_fignums() == []


# --- diffusion ------------------------------------------------------------------------


def test_diffusion_run_matches_matrix_powers():
    run = graph_diffusion.diffusion_run("row", 5, seed=1)
    A = run.A + np.eye(len(run.A))
    R = A / A.sum(1, keepdims=True)
    np.testing.assert_allclose(run.X[5], np.linalg.matrix_power(R, 5) @ run.X[0])
    heat = graph_diffusion.diffusion_run("heat", 40, eps=0.1)
    np.testing.assert_allclose(heat.mean, heat.mean[0], atol=1e-13)
    L = np.diag(heat.A.sum(1)) - heat.A
    assert heat.energy[0] == pytest.approx(heat.X[0] @ L @ heat.X[0])
    assert np.all(np.diff(heat.energy) < 0)
    with pytest.raises(ValueError, match="operator"):
        graph_diffusion.diffusion_run("laplace")


def test_diffusion_live_view_follows_controls():
    box = graph_diffusion.live_view()
    _core_only(box)
    ex = box.explorer
    ex.eps.value = 0.6
    ex.step.value = 50
    assert "diverges" in ex.label.value and "step 50" in ex.label.value
    ex.operator.value = "row"
    assert ex.label.value.startswith("row, step 50") and ex.run.X.shape == (51, 15)


def test_diffusion_static_view():
    _check_static(graph_diffusion.static_view(steps=6, frames=4, dpi=30).data, 4)


# --- GAT vs GATv2 ---------------------------------------------------------------------


def test_rankings_gat_static_gatv2_not():
    R = gat_ranking.rankings(8, h=16, seed=3)
    assert R.distinct1 == 1 and R.distinct2 > 1
    np.testing.assert_array_equal(
        np.sort(R.rank2, axis=1), np.tile(np.arange(8), (8, 1))
    )
    # rank 0 is the argmax of the row
    assert np.array_equal(np.argmin(R.rank2, 1), np.argmax(R.scores2, 1))


def test_ranking_live_view_and_static():
    box = gat_ranking.live_view()
    _core_only(box)
    ex = box.explorer
    ex.n.value = 9
    assert ex.result.rank1.shape == (9, 9) and "of 9" in ex.label.value
    _check_static(gat_ranking.static_view(seeds=3, dpi=30).data, 3)


# --- receptive field ------------------------------------------------------------------


def test_receptive_fields_match_networkx_hops():
    A = receptive_field.graph("karate")
    G = nx.from_numpy_array(A)
    F = receptive_field.receptive_fields(A, 16, 6)
    dist = nx.single_source_shortest_path_length(G, 16)
    for k in range(7):
        assert set(np.flatnonzero(F[k])) == {v for v, d in dist.items() if d <= k}
    with pytest.raises(ValueError):
        receptive_field.receptive_fields(A, 40, 2)


def test_receptive_field_live_and_static():
    box = receptive_field.live_view()
    _core_only(box)
    ex = box.explorer
    ex.name.value = "grid"
    ex.node.value = 0
    ex.k.value = 6
    assert "16/16" in ex.label.value and "global from k = 6" in ex.label.value
    _check_static(receptive_field.static_view("grid", 0, dpi=30).data, 8)
