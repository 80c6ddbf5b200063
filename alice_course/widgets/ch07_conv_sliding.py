r"""Widget: a 3×3 kernel sliding over an 8×8 digit (book §7.1.3, eq. E.7.4 and E.7.7).

Each output pixel is the dot product of the kernel with one patch
:math:`H_{ij} = \mathbf{W}\cdot\text{vect}(P_k(i,j))`. The animation moves the patch
over
a digit from scikit-learn's bundled ``load_digits`` and fills in the output map one
pixel at a time, printing the sum of products for the current position; the same
weights are used everywhere (weight sharing).

Three layers: :func:`sliding_steps` (pure, tested against
:func:`alice_lab.conv.conv2d`);
:func:`live_view` (position and digit sliders); :func:`static_view` (the
36 positions of a 'valid' convolution, ≤ 40 frames).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets import _anim
from alice_lab import conv

__all__ = ["Sliding", "digit", "live_view", "sliding_steps", "static_view"]

EDGE = np.array([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])


def digit(index: int = 0) -> np.ndarray:
    """An ``(8, 8)`` digit from scikit-learn's bundled ``load_digits``, scaled to [0,
    1]."""
    from sklearn.datasets import load_digits

    return load_digits().images[index] / 16.0


@dataclass(frozen=True)
class Sliding:
    """``positions[t] = (i, j)`` of output pixel ``t`` (row-major); ``patches[t]`` the
    ``(s, s)`` patch it reads (from the padded image); ``values[t]`` = W · patch;
    ``output`` the full map; ``padded`` the (padded) input."""

    padded: np.ndarray
    positions: list[tuple[int, int]]
    patches: np.ndarray
    values: np.ndarray
    output: np.ndarray

    def partial(self, t: int) -> np.ndarray:
        """The output map with pixels after ``t`` hidden (NaN)."""
        out = np.full(self.output.shape, np.nan)
        for (i, j), v in zip(
            self.positions[: t + 1], self.values[: t + 1], strict=True
        ):
            out[i, j] = v
        return out


def sliding_steps(
    image: np.ndarray, kernel: np.ndarray = EDGE, *, padding="valid"
) -> Sliding:
    """Every step of a single-channel convolution (cross-correlation) of ``image ~ (h,
    w)``
    with ``kernel ~ (s, s)``."""
    if image.ndim != 2 or kernel.ndim != 2:
        raise ValueError(
            f"expected image (h, w) and kernel (s, s); got {image.shape}, "
            f"{kernel.shape}"
        )
    P = conv.patches(image[..., None], kernel.shape, padding=padding)[
        ..., 0
    ]  # (h', w', s, s)
    h2, w2 = P.shape[:2]
    positions = [(i, j) for i in range(h2) for j in range(w2)]
    flat = P.reshape(h2 * w2, *kernel.shape)
    values = np.einsum("tab,ab->t", flat, kernel)
    k = kernel.shape[0] // 2 if padding == "same" else 0
    padded = np.pad(image, k)
    return Sliding(padded, positions, flat, values, values.reshape(h2, w2))


def _figure(s: Sliding, kernel, dpi=70):
    from matplotlib.patches import Rectangle

    fig = _anim.new_figure((7.0, 2.9), dpi)
    a0, a1, a2 = fig.subplots(1, 3, gridspec_kw={"width_ratios": [3, 1.3, 3]})
    inp = a0.imshow(s.padded, cmap="gray_r", vmin=0, vmax=1)
    rect = Rectangle(
        (-0.5, -0.5), kernel.shape[1], kernel.shape[0], fill=False, ec="red", lw=2
    )
    a0.add_patch(rect)
    a0.set_title("input (padded)" if s.padded.shape != s.output.shape else "input")
    a1.imshow(kernel, cmap="RdBu_r", vmin=-2, vmax=2)
    for (i, j), v in np.ndenumerate(kernel):
        a1.text(j, i, f"{v:g}", ha="center", va="center", fontsize=8)
    a1.set_title("kernel W")
    lim = np.abs(s.values).max() or 1.0
    out = a2.imshow(s.partial(0), cmap="RdBu_r", vmin=-lim, vmax=lim)
    (dot,) = a2.plot([], [], "s", mfc="none", mec="red", ms=10)
    for ax in (a0, a1, a2):
        ax.set_xticks([])
        ax.set_yticks([])

    def show(t, run=None):
        nonlocal s
        if run is not None and run is not s:
            s = run
            inp.set_data(s.padded)
        i, j = s.positions[t]
        rect.set_xy((j - 0.5, i - 0.5))
        out.set_data(s.partial(t))
        dot.set_data([j], [i])
        a2.set_title(f"H[{i},{j}] = W·P = {s.values[t]:.2f}", fontsize=9)

    return fig, show


def live_view(index: int = 0):
    """A slider over the 36 output positions and one over the digits; core widgets
    only."""
    import ipywidgets as w

    st = _anim.slider_style()
    controls = {
        "t": w.IntSlider(value=0, min=0, max=35, description="position", **st),
        "digit": w.IntSlider(value=index, min=0, max=9, description="digit #", **st),
    }
    runs = {}

    def run(i):
        if i not in runs:
            runs[i] = sliding_steps(digit(i), EDGE, padding="valid")
        return runs[i]

    fig, show = _figure(run(index), EDGE)
    _anim.freeze_layout(fig)

    def draw(v):
        s = run(v["digit"])
        show(v["t"], s)
        return f"digit #{v['digit']}, step {v['t']}: H = {s.values[v['t']]:.3f}"

    live = _anim.LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(index: int = 0, *, dpi: int = 60, fps: int = 4):
    """The 36 steps of a 'valid' 3×3 convolution over an 8×8 digit."""
    s = sliding_steps(digit(index), EDGE, padding="valid")
    fig, show = _figure(s, EDGE, dpi)
    _anim.freeze_layout(fig)
    return _anim.animation_html(fig, show, range(len(s.positions)), fps=fps)
