"""Chapter 7 widgets, three layers each: the pure functions against independent
computations (scipy.signal, the receptive-field formula, F.conv2d), the live views
driven through their controls, and the static HTML animations."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.signal

from alice_course.widgets import (
    ch07_conv_filter as conv_filter,
    ch07_conv_sliding as conv_sliding,
    ch07_receptive_field as receptive_field,
)
from alice_lab import conv


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    found = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert found == frames <= 40
    assert "https://" not in html
    assert plt.get_fignums() == []


# --- filter editor --------------------------------------------------------------------


def test_sample_photo_is_a_downscaled_grey_photo():
    from sklearn.datasets import load_sample_images

    im = conv_filter.sample_photo(32)
    assert im.shape == (32, 32) and 0 <= im.min() < im.max() <= 1
    full = load_sample_images().images[0].astype(float) / 255 @ [0.299, 0.587, 0.114]
    assert im.mean() == pytest.approx(full[5:421, 112:528].mean(), abs=1e-9)
    with pytest.raises(ValueError, match="size must be at most"):
        conv_filter.sample_photo(1000)


def test_filter_response_is_correlation_and_flip_is_convolution():
    im = conv_filter.sample_photo(24)
    S = conv.FILTERS["sobel x"]
    got = conv_filter.filter_response(im, S)
    np.testing.assert_allclose(got, scipy.signal.correlate2d(im, S, "same"), atol=1e-12)
    flipped = conv_filter.filter_response(im, S, flip=True)
    np.testing.assert_allclose(
        flipped, scipy.signal.convolve2d(im, S, "same"), atol=1e-12
    )
    np.testing.assert_allclose(flipped, -got, atol=1e-12)  # Sobel-x flipped = -Sobel-x
    R = conv.FILTERS["ridge"]
    np.testing.assert_allclose(
        conv_filter.filter_response(im, R),
        conv_filter.filter_response(im, R, flip=True),
    )
    with pytest.raises(ValueError, match="expected image"):
        conv_filter.filter_response(im, np.ones(3))


def test_filter_live_view_reacts_to_its_controls():
    box = conv_filter.live_view(32)
    _core_only(box)
    live = box.live
    first = live.image.value
    assert "kernel sum 0.00" in live.label.value  # ridge
    live.controls["filter"].value = "box blur"
    assert "kernel sum 1.00" in live.label.value and live.image.value != first
    live.controls["w4"].value = 2.0
    assert "kernel sum 2.89" in live.label.value


def test_filter_static_view():
    _check_static(conv_filter.static_view(24).data, len(conv.FILTERS) + 1)


# --- receptive field ---------------------------------------------------------------


@pytest.mark.parametrize(
    "layers, kernel, stride, schedule",
    [
        (1, 3, 1, "constant"),
        (4, 3, 1, "constant"),
        (3, 5, 1, "constant"),
        (4, 3, 1, "exponential"),
        (3, 3, 2, "constant"),
    ],
)
def test_receptive_field_map_matches_the_formula(layers, kernel, stride, schedule):
    m = receptive_field.receptive_field_map(
        layers, kernel, stride=stride, schedule=schedule, size=65
    )
    assert m.measured == m.side
    dil = receptive_field.dilations_for(layers, schedule)
    expected = 1 + sum(
        (kernel - 1) * d * (stride if i > 0 else 1) for i, d in enumerate(dil)
    )
    assert m.side == expected
    assert (m.grad > 0).sum() == m.side**2 or schedule == "exponential"


def test_receptive_field_constant_counts_paths():
    # two all-ones 3×3 layers: the gradient is the 2-D full convolution of two box
    # filters
    m = receptive_field.receptive_field_map(2, 3, size=11)
    box = np.ones((3, 3))
    paths = scipy.signal.convolve2d(box, box)
    np.testing.assert_array_equal(m.grad[3:8, 3:8], paths)
    with pytest.raises(ValueError, match="schedule"):
        receptive_field.dilations_for(3, "linear")
    with pytest.raises(ValueError, match="odd kernel"):
        receptive_field.receptive_field_map(2, 4)


def test_receptive_field_live_view():
    box = receptive_field.live_view()
    _core_only(box)
    live = box.live
    assert "7×7 (formula) — measured 7×7" in live.label.value
    live.controls["schedule"].value = "exponential"
    assert "15×15" in live.label.value
    live.controls["layers"].value = 1
    assert "3×3" in live.label.value


def test_receptive_field_static_view():
    _check_static(receptive_field.static_view(4).data, 4)


# --- sliding kernel ------------------------------------------------------------------


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_sliding_steps_rebuild_the_convolution(padding):
    torch = pytest.importorskip("torch")
    img = conv_sliding.digit(3)
    s = conv_sliding.sliding_steps(img, conv_sliding.EDGE, padding=padding)
    ref = torch.nn.functional.conv2d(
        torch.as_tensor(img)[None, None],
        torch.as_tensor(conv_sliding.EDGE)[None, None],
        padding=1 if padding == "same" else 0,
    )[0, 0].numpy()
    np.testing.assert_allclose(s.output, ref, atol=1e-12)
    assert len(s.positions) == ref.size
    part = s.partial(5)
    assert np.isfinite(part).sum() == 6 and np.isnan(part).sum() == ref.size - 6
    i, j = s.positions[7]
    np.testing.assert_array_equal(s.patches[7], s.padded[i : i + 3, j : j + 3])


def test_sliding_live_view():
    box = conv_sliding.live_view()
    _core_only(box)
    live = box.live
    s = conv_sliding.sliding_steps(conv_sliding.digit(2))
    live.controls["digit"].value = 2
    live.controls["t"].value = 20
    assert f"H = {s.values[20]:.3f}" in live.label.value


def test_sliding_static_view():
    _check_static(conv_sliding.static_view().data, 36)
