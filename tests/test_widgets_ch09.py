"""Chapter 9 widgets, three layers each: the pure functions against independent
computations (torch, closed forms), the live views driven through their controls, and
the static HTML animations. Widgets: dropout_view, batchnorm_stats, early_stopping."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import (
    ch09_batchnorm_stats as batchnorm_stats,
    ch09_dropout_view as dropout_view,
    ch09_early_stopping as early_stopping,
)

torch = pytest.importorskip("torch")


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _static_ok(html: str, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    found = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert found == frames
    assert "http://" not in html and "https://" not in html
    assert plt.get_fignums() == []


# --- dropout ------------------------------------------------------------------------


def test_dropout_forward_matches_torch_box_9_2():
    net = torch.nn.Sequential(
        torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)
    ).double()
    with torch.no_grad():
        net[0].weight.copy_(torch.as_tensor(dropout_view.W1.T))
        net[0].bias.copy_(torch.as_tensor(dropout_view.B1))
        net[2].weight.copy_(torch.as_tensor(dropout_view.W2[None, :]))
        net[2].bias.fill_(dropout_view.B2)
        ref = float(net(torch.as_tensor(dropout_view.X0)))
    r = dropout_view.dropout_predictions(0.7, 50)
    assert abs(r.eval_output - ref) < 1e-12
    # with every unit kept there is nothing random
    full = dropout_view.dropout_predictions(1.0, 20)
    assert np.all(full.samples == ref) and full.visited == 1


def test_dropout_mc_mean_converges_to_exact_expectation():
    r = dropout_view.dropout_predictions(0.6, 20000, seed=3)
    se = r.samples.std() / np.sqrt(len(r.samples))
    assert abs(r.mc_mean - r.exact) < 4 * se
    assert r.visited == 32
    # brute force over the 32 masks, written out independently
    import itertools

    p, total = 0.6, 0.0
    for bits in itertools.product([0, 1], repeat=5):
        m = np.array(bits, dtype=float)
        prob = np.prod(np.where(m == 1, p, 1 - p))
        total += prob * dropout_view.forward(dropout_view.X0, m[:2], m[2:], p)
    assert abs(total - r.exact) < 1e-12


def test_dropout_live_and_static():
    box = dropout_view.live_view()
    _core_only(box)
    box.live.controls["p"].value = 1.0
    assert "1/32 sub-networks" in box.live.label.value
    _static_ok(dropout_view.static_view(k=50, frames=4).data, 4)
    with pytest.raises(ValueError):
        dropout_view.dropout_predictions(0.0)


# --- batch-norm statistics ----------------------------------------------------------


def test_bn_statistics_spread_and_running_mean():
    s4 = batchnorm_stats.bn_statistics(4, n_batches=4000)
    s64 = batchnorm_stats.bn_statistics(64, n_batches=4000)
    assert abs(s4.spread / s64.spread - 4.0) < 0.4  # sigma / sqrt(n)
    # the running mean equals torch's BatchNorm1d(momentum = 1 - lam) on the same data
    s = batchnorm_stats.bn_statistics(8, 0.9, steps=10, seed=5)
    rng = np.random.default_rng(5)
    rng.normal(2.0, 3.0, (400, 8))  # the histogram's draws come first
    bn = torch.nn.BatchNorm1d(1, momentum=0.1, dtype=torch.float64)
    ref = [0.0]
    for _ in range(10):
        bn(torch.as_tensor(rng.normal(2.0, 3.0, (8, 1))))
        ref.append(float(bn.running_mean[0]))
    np.testing.assert_allclose(s.running, ref, atol=1e-12)
    np.testing.assert_allclose(s.expected[[0, 1, 2]], [0, 0.2, 2 * (1 - 0.81)])
    with pytest.raises(ValueError):
        batchnorm_stats.bn_statistics(1)


def test_bn_live_and_static():
    box = batchnorm_stats.live_view()
    _core_only(box)
    box.live.controls["n"].value = 64
    assert box.live.label.value.startswith("n = 64")
    _static_ok(batchnorm_stats.static_view().data, 8)


# --- early stopping -----------------------------------------------------------------


def test_training_curves_overfit_and_stopping_points():
    c = early_stopping.training_curves(120)
    assert c.train_loss[-1] < 0.1 * c.train_loss[0]
    best = int(np.argmin(c.val_loss)) + 1
    assert best < 120 and c.val_loss[-1] > c.val_loss.min()
    stop, restored = early_stopping.stopping_points(c.val_loss, 5)
    assert restored == int(np.argmin(c.val_loss[:stop])) + 1 and stop - restored == 5
    assert early_stopping.stopping_points(np.array([1.0, 2.0, 3.0]), 2) == (3, 1)
    assert early_stopping.stopping_points(
        np.array([0.5, 0.7, 0.6, 0.65, 0.62]), 2, mode="max", rule="book"
    ) == (None, 2)


def test_early_stopping_live_and_static():
    box = early_stopping.live_view()
    _core_only(box)
    box.live.controls["rule"].value = "book"
    assert "rule 'book'" in box.live.label.value
    box.live.controls["metric"].value = "accuracy"
    assert "metric accuracy" in box.live.label.value
    _static_ok(early_stopping.static_view().data, 7)


# --- normalization axes -------------------------------------------------------------


def test_pooled_masks_are_the_sets_each_layer_normalises():
    from alice_course.widgets import ch09_norm_axes as norm_axes
    from alice_lab import normalization as nz

    shape, index = (3, 4, 4, 6), (1, 2, 0, 4)
    X = np.random.default_rng(0).normal(size=shape)
    outs = {
        "batch": nz.batch_norm(X, eps=0.0),
        "layer A": nz.layer_norm(X, axes=(1, 2, 3), eps=0.0),
        "layer B": nz.layer_norm(X, eps=0.0),
        "group": nz.group_norm(X, 3, eps=0.0),
        "instance": nz.instance_norm(X, eps=0.0),
    }
    sizes = {"batch": 48, "layer A": 96, "layer B": 6, "group": 32, "instance": 16}
    for kind, out in outs.items():
        M = norm_axes.pooled_mask(kind, shape, index, groups=3)
        assert M.sum() == sizes[kind] and M[index]
        # the selected entry is standardised with the mean and std of its pooled set
        vals = X[M]
        want = (X[index] - vals.mean()) / vals.std()
        assert abs(out[index] - want) < 1e-12, kind


def test_norm_axes_live_and_static():
    from alice_course.widgets import ch09_norm_axes as norm_axes

    box = norm_axes.live_view()
    _core_only(box)
    box.live.controls["kind"].value = "instance"
    assert box.live.label.value.startswith("instance: 16 values")
    _static_ok(norm_axes.static_view().data, 5)
    with pytest.raises(ValueError):
        norm_axes.pooled_mask("weight", (2, 2, 2, 2))
