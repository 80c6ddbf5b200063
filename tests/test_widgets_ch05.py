"""The chapter-5 widgets' three layers: the pure functions against independent
computations (brute force, the activations module, torch, optim.sgd), the live views
driven through their controls, and the static HTML animations (a working slider, one
frame per state, nothing remote, no figure left behind)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from alice_course.widgets import (
    ch05_activation_gallery as ag,
    ch05_minibatch_sgd as ms,
    ch05_xor_playground as xp,
)
from alice_lab import activations as A, data, layers, optim


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html: str, n_frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    assert (
        len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html)) == n_frames
    )
    assert "http://" not in html.replace("http://www.w3.org", "")
    assert "https://" not in html
    assert len(html) < 3_000_000
    assert not plt.get_fignums()


# --- XOR playground ----------------------------------------------------------------


def test_line_accuracy_and_the_three_quarters_ceiling():
    assert xp.line_accuracy(1, 1, -0.5) == 0.75
    assert xp.line_accuracy(-1, -1, 0.5) == 0.25
    assert xp.line_accuracy(0, 0, 1) == 0.5  # everything in class 1
    assert xp.best_line_accuracy() == 0.75
    # every sign pattern a line can make on the 4 corners, by brute force over (w, b)
    rng = np.random.default_rng(0)
    W = rng.standard_normal((20000, 3))
    accs = [xp.line_accuracy(*w) for w in W]
    assert max(accs) == 0.75
    b, acc = xp.best_offset(np.pi / 4)
    assert (
        acc == 0.75
        and xp.line_accuracy(np.cos(np.pi / 4), np.sin(np.pi / 4), b) == 0.75
    )
    with pytest.raises(ValueError, match=r"X \(n, 2\)"):
        xp.line_accuracy(1, 1, 0, np.zeros((3, 3)), np.zeros(3))


def test_mlp_training_is_gradient_descent_on_the_cloud():
    run = xp.train_mlp(3, steps=40, n_snapshots=5)
    X, y = xp.xor_cloud()
    p = layers.mlp_init([2, 3, 2], seed=0, scheme="he")
    for _ in range(40):
        p = optim.sgd_step(p, layers.mlp_value_and_grad(p, X, y)[1], lr=0.5)
    for a, b in zip(
        optim.tree_leaves(run.snapshots[-1]), optim.tree_leaves(p), strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    assert run.steps_at.tolist() == [0, 10, 20, 30, 40] and len(run.losses) == 41
    assert xp.train_mlp(3, steps=300).accuracy == 1.0
    X1, X2, P = xp.decision_grid(run.snapshots[-1], n=7)
    want = A.sigmoid(
        np.diff(
            layers.mlp_forward(
                run.snapshots[-1], np.column_stack([X1.ravel(), X2.ravel()])
            ),
            axis=1,
        )
    )
    np.testing.assert_allclose(P.ravel(), want[:, 0], rtol=1e-12)
    with pytest.raises(ValueError):
        xp.train_mlp(0)


def test_xor_live_view_follows_its_controls():
    box = xp.live_view(steps=200)
    pg = box.playground
    _core_only(box)
    first = pg.image.value
    pg.w1.value, pg.w2.value, pg.b.value = 1.0, -1.0, 0.5
    pred = xp.CORNERS @ np.array([1.0, -1.0]) + 0.5 > 0
    assert f"accuracy {np.mean(pred == (xp.LABELS == 1)):.2f}" in pg.label.value
    x, y = pg.line.get_data()
    np.testing.assert_allclose(np.asarray(x) - np.asarray(y) + 0.5, 0, atol=1e-12)
    pg.hidden.value = 4
    pg.train_button.click()
    assert pg.run is not None and pg.run.hidden == 4
    assert "MLP 2-4-2 (relu), 200 steps: accuracy" in pg.mlp_label.value
    assert pg.image.value != first


def test_xor_static_view():
    html = xp.static_view(steps=60, max_frames=8).data
    _check_static(html, 8)


# --- activation gallery ------------------------------------------------------------


@pytest.mark.parametrize("name", ag.NAMES)
def test_curves_are_the_activations_and_their_derivatives(name):
    c = ag.curves(name)
    assert c.values.shape == c.derivative.shape == (601,)
    s = c.s[np.abs(c.s) > 0.01]
    h = 1e-6
    f = {
        "heaviside": A.heaviside, "sigmoid": A.sigmoid, "tanh": A.tanh, "relu": A.relu,
        "leaky_relu": lambda x: A.leaky_relu(x, 0.1), "softplus": A.softplus,
        "elu": lambda x: A.elu(x, 0.1), "gelu": A.gelu, "silu": A.silu,
        "trainable_swish": A.trainable_swish, "polynomial": lambda x: x**3,
    }[name]  # fmt: skip
    np.testing.assert_allclose(c.values, f(c.s), rtol=1e-14)
    keep = np.abs(c.s) > 0.01
    fd = (f(s + h) - f(s - h)) / (2 * h)
    np.testing.assert_allclose(c.derivative[keep], fd, rtol=1e-5, atol=1e-6)


def test_zero_fractions_against_torch():
    torch = pytest.importorskip("torch")
    sample = np.random.default_rng(0).standard_normal(20000)
    torch_zeros = float((torch.relu(torch.tensor(sample)) == 0).double().mean())
    assert ag.curves("relu").zero_fraction == pytest.approx(torch_zeros, abs=0)
    assert abs(torch_zeros - 0.5) < 0.02
    assert ag.curves("leaky_relu").zero_fraction == 0.0
    assert ag.curves("gelu").zero_fraction == 0.0
    with pytest.raises(ValueError, match="unknown activation"):
        ag.curves("mish")


def test_gallery_live_view_follows_its_controls():
    box = ag.live_view("relu")
    g = box.gallery
    _core_only(box)
    g.name.value = "elu"
    g.alpha.value = 0.5
    want = ag.curves("elu", alpha=0.5)
    np.testing.assert_allclose(np.asarray(g.value_line.get_data()[1]), want.values)
    np.testing.assert_allclose(np.asarray(g.grad_line.get_data()[1]), want.derivative)
    assert (
        g.label.value.startswith("ELU, α = 0.5: min -0.4751")
        and "(monotone)" in g.label.value
    )
    g.derivative.value = False
    assert not g.grad_line.get_visible()
    g.name.value = "trainable_swish"
    g.swish[0].value = 3.0
    np.testing.assert_allclose(
        np.asarray(g.value_line.get_data()[1]), A.trainable_swish(want.s, 3.0, 0, 1, 0)
    )
    g.name.value = "silu"
    assert "not monotone" in g.label.value


def test_gallery_static_view():
    _check_static(ag.static_view(("relu", "gelu", "tanh")).data, 3)


# --- mini-batch SGD ----------------------------------------------------------------


@pytest.mark.parametrize("n, r, drop", [(20, 6, False), (20, 6, True), (12, 4, False)])
def test_schedule_is_figure_f52(n, r, drop):
    order, batch = ms.schedule(n, r, 3, seed=5, drop_last=drop)
    b = n // r if drop else -(-n // r)
    for e in range(3):
        assert sorted(order[e]) == list(range(n))  # every example once per epoch
        want = list(data.minibatches(n, r, seed=5 + e, drop_last=drop))
        np.testing.assert_array_equal(
            order[e, : sum(map(len, want))], np.concatenate(want)
        )
        ids = batch[e][batch[e] > 0]
        assert ids.min() == e * b + 1 and ids.max() == (e + 1) * b  # b+1 starts epoch 2
    assert (batch == 0).sum() == (3 * (n % r) if drop else 0)
    assert not np.array_equal(order[0], order[1])


def test_sgd_curves_match_optim_sgd_directly():
    c = ms.sgd_curves(25, 0.3, 3)
    X, y = data.make_moons(200, noise=0.15, seed=0)
    p0 = layers.mlp_init([2, 16, 2], seed=0)
    res = optim.sgd(
        layers.mlp_value_and_grad, p0, X, y, lr=0.3, batch_size=25, epochs=3, seed=0
    )
    np.testing.assert_array_equal(c.batch_losses, res.losses)
    assert c.steps == optim.iterations(200, 25, 3) == 24
    assert len(c.epoch_loss) == 4
    assert c.epoch_loss[-1] == pytest.approx(
        float(layers.mlp_value_and_grad(res.params, X, y)[0])
    )
    variances = [ms.sgd_curves(r, 0.3, 1).grad_variance for r in (1, 10, 50, 200)]
    assert variances[0] > variances[1] > variances[2] > variances[3] == 0.0
    with pytest.raises(ValueError, match="r must lie in"):
        ms.sgd_curves(0)


def test_minibatch_live_view_follows_its_controls():
    box = ms.live_view(r=50, epochs=3)
    e = box.explorer
    _core_only(box)
    assert e.label.value.startswith("r = 50: 4 steps per epoch, 12 in all")
    e.r.value = 40
    assert e.label.value.startswith("r = 40: 5 steps per epoch, 15 in all")
    assert e.ax_strip.get_title() == "r = 40: b = 5 mini-batches per epoch"
    e.shuffle.value = False
    assert e.current is ms.sgd_curves(40, e.lr.value, 3, shuffle=False)


def test_minibatch_static_view():
    _check_static(ms.static_view((10, 100), epochs=2).data, 2)
