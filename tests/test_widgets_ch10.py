"""Chapter 10 widgets, three layers each: attention_lab (§10.1.2), dictionary_lookup
(§10.1.3) and positional (§10.2.2), checked against SciPy, torch autograd and closed
forms."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.special import softmax

from alice_course.widgets import (
    ch10_attention_lab as attention_lab,
    ch10_dictionary_lookup as dictionary_lookup,
    ch10_positional as positional,
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


def test_attention_panels_against_scipy():
    p = attention_lab.attention_panels(5, 8, 1.5, scale=True, seed=3)
    np.testing.assert_allclose(p.scores, p.Q @ p.K.T / np.sqrt(8), atol=1e-12)
    np.testing.assert_allclose(p.weights, softmax(p.scores, axis=1), atol=1e-12)
    np.testing.assert_allclose(p.output, p.weights @ p.V, atol=1e-12)
    u = attention_lab.attention_panels(5, 8, 1.5, scale=False, seed=3)
    np.testing.assert_allclose(u.scores, p.scores * np.sqrt(8), atol=1e-12)
    with pytest.raises(ValueError, match="n <= 64"):
        attention_lab.attention_panels(1, 8, 1.0)


def test_unscaled_attention_collapses_as_k_grows():
    ent_u = [
        attention_lab.attention_panels(8, k, 1.0, scale=False).entropy for k in (4, 256)
    ]
    ent_s = [
        attention_lab.attention_panels(8, k, 1.0, scale=True).entropy for k in (4, 256)
    ]
    assert ent_u[1] < 0.3 < 1.5 < ent_s[1]
    assert ent_u[1] < ent_u[0]


def test_attention_live_and_static():
    box = attention_lab.live_view()
    _core_only(box)
    live = box.live
    before = live.label.value
    live.controls["scale"].value = False
    live.controls["sigma"].value = 3.0
    assert live.label.value != before and "entropy" in live.label.value
    ent = float(re.search(r"entropy ([\d.]+)", live.label.value).group(1))
    assert ent < 0.3
    _static_ok(attention_lab.static_view(sigmas=[0.5, 2.0]).data, 2)


def test_lookup_limits_and_gradient_against_torch():
    import torch

    hard = dictionary_lookup.lookup(1.0, 0.5, hard=True)
    np.testing.assert_array_equal(hard.colour, dictionary_lookup.VALUES[hard.argmax])
    assert hard.grad_norm == 0.0
    cold = dictionary_lookup.lookup(1.0, 0.5, 1e-9)
    np.testing.assert_allclose(cold.colour, dictionary_lookup.VALUES.mean(0), atol=1e-8)
    hot = dictionary_lookup.lookup(1.0, 0.5, 100.0)
    np.testing.assert_allclose(hot.colour, hard.colour, atol=1e-6)
    lk = dictionary_lookup.lookup(0.3, -0.4, 0.7)
    q = torch.tensor([0.3, -0.4], dtype=torch.float64, requires_grad=True)
    K = torch.as_tensor(dictionary_lookup.KEYS)
    V = torch.as_tensor(dictionary_lookup.VALUES)
    J = torch.autograd.functional.jacobian(
        lambda q: torch.softmax(0.7 * (K @ q), 0) @ V, q
    )
    assert lk.grad_norm == pytest.approx(float(torch.linalg.norm(J)), rel=1e-10)
    with pytest.raises(ValueError, match="beta"):
        dictionary_lookup.lookup(0, 0, -1.0)


def test_lookup_live_and_static():
    box = dictionary_lookup.live_view()
    _core_only(box)
    live = box.live
    live.controls["mode"].value = "hard"
    assert "hard (argmax)" in live.label.value and "= 0" in live.label.value
    live.controls["qx"].value, live.controls["qy"].value = -2.0, -1.5
    assert "closest key k3" in live.label.value
    _static_ok(dictionary_lookup.static_view(betas=[0.01, 1, 100]).data, 3)


def test_positional_functions_against_closed_forms():
    np.testing.assert_allclose(
        positional.sine_embedding(6.0), np.sin([0.6, 6.0, 60.0]), atol=1e-15
    )
    d, sim = positional.offset_similarity(64, 16, i=5)
    w = 10000.0 ** (-2 * np.arange(8) / 16)
    np.testing.assert_allclose(sim, np.cos(d[:, None] * w).sum(1), atol=1e-12)
    d0, sim0 = positional.offset_similarity(64, 16, i=0)
    np.testing.assert_allclose(sim, sim0[: len(sim)], atol=1e-12)


def test_positional_live_and_static():
    box = positional.live_view()
    _core_only(box)
    live = box.live
    assert "[0.5646, -0.2794, -0.3048]" in live.label.value
    live.controls["x"].value = 0.0
    assert "[0.0, 0.0, 0.0]" in live.label.value
    live.controls["e"].value = 64
    assert live.figure.axes[1].get_title() == "table S (128×64)"
    _static_ok(positional.static_view(xs=[0.0, 6.0]).data, 2)
