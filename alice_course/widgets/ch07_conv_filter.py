r"""Widget: a 3×3 filter editor on a real photograph (book §7.1.3, lines 3420-3432).

A convolutional layer with hand-set weights is a classical image filter (an FIR
filter); the book's example is the ridge detector
``[[-1,-1,-1],[-1,8,-1],[-1,-1,-1]]``. Here one edits the nine weights (or picks a
named filter) and sees the activation map on a grey, downscaled copy of scikit-learn's
bundled ``china.jpg`` (nothing downloads). A checkbox flips the kernel, which is what a
true convolution would do: symmetric kernels do not change, Sobel's sign flips — the
"apart from a sign change" of line 3420.

Three layers: :func:`sample_photo` and :func:`filter_response` (pure, tested);
:func:`live_view` (core ipywidgets); :func:`static_view` (an HTML animation through the
named filters, no kernel needed).
"""

from __future__ import annotations

import numpy as np

from alice_course.widgets import _anim
from alice_lab import conv

__all__ = ["filter_response", "live_view", "sample_photo", "static_view"]


def sample_photo(size: int = 64, index: int = 0) -> np.ndarray:
    """A grey ``(size, size)`` image in [0, 1]: the central square of scikit-learn's
    sample photo ``index`` (0: china.jpg, 1: flower.jpg), block-averaged down."""
    from sklearn.datasets import load_sample_images

    img = load_sample_images().images[index].astype(float) / 255.0
    grey = img @ np.array([0.299, 0.587, 0.114])
    h, w = grey.shape
    side = min(h, w) // size * size
    if side == 0:
        raise ValueError(f"size must be at most {min(h, w)}; got {size}")
    top, left = (h - side) // 2, (w - side) // 2
    crop = grey[top : top + side, left : left + side]
    f = side // size
    return crop.reshape(size, f, size, f).mean(axis=(1, 3))


def filter_response(
    image: np.ndarray, kernel: np.ndarray, *, flip: bool = False
) -> np.ndarray:
    """The activation map of ``kernel ~ (s, s)`` on ``image ~ (h, w)`` with 'same'
    padding: a one-channel :func:`alice_lab.conv.conv2d` (cross-correlation), or a true
    convolution when ``flip`` is set."""
    kernel = np.asarray(kernel, dtype=float)
    if kernel.ndim != 2 or image.ndim != 2:
        raise ValueError(
            f"expected image (h, w) and kernel (s, s); got {image.shape}, "
            f"{kernel.shape}"
        )
    if flip:
        kernel = kernel[::-1, ::-1]
    return conv.conv2d(image[..., None], kernel[:, :, None, None], padding="same")[
        ..., 0
    ]


def _figure(image, dpi=70):
    fig = _anim.new_figure((7.5, 2.8), dpi)
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [3, 1.2, 3]})
    axes[0].imshow(image, cmap="gray", vmin=0, vmax=1)
    axes[0].set_title("input (china.jpg, grey)")
    kim = axes[1].imshow(np.zeros((3, 3)), cmap="RdBu_r", vmin=-2, vmax=2)
    texts = [
        [axes[1].text(j, i, "", ha="center", va="center", fontsize=8) for j in range(3)]
        for i in range(3)
    ]
    axes[1].set_title("kernel W")
    out = axes[2].imshow(np.zeros_like(image), cmap="magma")
    axes[2].set_title("activation map")
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])

    def show(kernel, flip, name):
        K = np.asarray(kernel, float)
        shown = K[::-1, ::-1] if flip else K
        kim.set_data(shown)
        for i in range(3):
            for j in range(3):
                texts[i][j].set_text(f"{shown[i, j]:.2g}")
        H = filter_response(image, K, flip=flip)
        out.set_data(H)
        lo, hi = np.percentile(H, [1, 99])
        out.set_clim(lo, hi if hi > lo else lo + 1e-9)
        mode = "convolution (flipped)" if flip else "cross-correlation"
        axes[2].set_title(f"{name}: {mode}", fontsize=9)
        return H

    return fig, show


def live_view(size: int = 64):
    """Dropdown of named filters, nine editable weights, a "flip" checkbox; core
    widgets only. The :class:`~alice_course.widgets._anim.LiveFigure` is
    ``box.live``."""
    import ipywidgets as w

    image = sample_photo(size)
    fig, show = _figure(image)
    preset = w.Dropdown(options=list(conv.FILTERS), value="ridge", description="filter")
    cells = [
        w.FloatText(value=float(v), layout=w.Layout(width="60px"))
        for v in conv.FILTERS["ridge"].ravel()
    ]
    flip = w.Checkbox(value=False, description="flip kernel (true convolution)")
    busy = {"on": False}

    def draw(values):
        K = np.array([c.value for c in cells]).reshape(3, 3)
        H = show(K, values["flip"], values["filter"])
        return (
            f"response range [{H.min():.2f}, {H.max():.2f}], kernel sum {K.sum():.2f}"
        )

    controls = {"filter": preset, "flip": flip}
    for n, c in enumerate(cells):
        controls[f"w{n}"] = c
    live = _anim.LiveFigure(
        controls, fig, lambda v: draw(v) if not busy["on"] else live.label.value
    )

    def load(change):
        busy["on"] = True
        for c, v in zip(cells, conv.FILTERS[change["new"]].ravel(), strict=True):
            c.value = float(v)
        busy["on"] = False
        live.update()

    preset.observe(load, names="value")
    grid = w.GridBox(cells, layout=w.Layout(grid_template_columns="repeat(3, 64px)"))
    box = w.VBox([w.HBox([preset, flip]), grid, live.label, live.image])
    box.live = live
    return box


def static_view(size: int = 48, *, dpi: int = 60, fps: int = 1):
    """An HTML animation through the named filters, and Sobel-x flipped (≤ 40
    frames)."""
    image = sample_photo(size)
    fig, show = _figure(image, dpi)
    frames = [(name, False) for name in conv.FILTERS] + [("sobel x", True)]
    _anim.freeze_layout(fig)
    return _anim.animation_html(
        fig, lambda f: show(conv.FILTERS[f[0]], f[1], f[0]), frames, fps=fps
    )
