r"""Widget: how the receptive field grows with depth (book §7.2.1, lines 3440-3452).

A stack of ``L`` convolutions with all-ones ``s×s`` kernels (so that no weights cancel)
is differentiated with torch autograd: the gradient of the centre output pixel with
respect to the input is non-zero exactly on its receptive field. The heatmap shows the
gradient (how many paths connect each input pixel to the output), the red square the
side predicted by :math:`r = 1 + \sum_l (s-1)\,d_l \prod_{m<l}\text{stride}_m`.
With constant dilation it grows linearly (``L(s-1)+1``, the book's claim); with
dilations 1, 2, 4, … (chapter 8) it grows exponentially; strides multiply it too.

Three layers: :func:`receptive_field_map` (pure, tested against the formula);
:func:`live_view`; :func:`static_view` (depth 1..6, linear next to exponential).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets import _anim
from alice_lab import conv

__all__ = ["RFMap", "dilations_for", "live_view", "receptive_field_map", "static_view"]


def dilations_for(layers: int, schedule: str) -> list[int]:
    """``"constant"``: all 1; ``"exponential"``: 1, 2, 4, …"""
    if schedule == "constant":
        return [1] * layers
    if schedule == "exponential":
        return [2**i for i in range(layers)]
    raise ValueError(f"schedule must be 'constant' or 'exponential'; got {schedule!r}")


@dataclass(frozen=True)
class RFMap:
    """``grad``: ``(n, n)`` |∂H_centre/∂X|; ``side``: the formula's side; ``measured``:
    the side of the gradient's support."""

    grad: np.ndarray
    side: int
    measured: int
    layers: int
    kernel: int
    stride: int
    dilations: tuple[int, ...]


def receptive_field_map(
    layers: int = 3,
    kernel: int = 3,
    *,
    stride: int = 1,
    schedule: str = "constant",
    size: int = 41,
) -> RFMap:
    """Receptive field of the centre pixel after ``layers`` convolutions (``'same'``
    padding; ``stride`` applies to the first layer only), measured with autograd."""
    import torch

    if layers < 1 or kernel < 1 or kernel % 2 == 0:
        raise ValueError(
            f"need layers ≥ 1 and an odd kernel; got layers={layers}, kernel={kernel}"
        )
    dil = dilations_for(layers, schedule)
    strides = [stride] + [1] * (layers - 1)
    W = torch.ones((kernel, kernel, 1, 1), dtype=torch.float64)

    def forward(X):
        H = X
        for r, st in zip(dil, strides, strict=True):
            H = conv.conv2d(H, W, padding="same", dilation=r, stride=st)
        return H

    X = torch.ones((1, size, size, 1), dtype=torch.float64, requires_grad=True)
    H = forward(X)
    n = H.shape[1]
    H[0, n // 2, n // 2, 0].backward()
    g = X.grad[0, :, :, 0].numpy()
    rows = np.nonzero(g.any(axis=1))[0]
    side = conv.receptive_field([kernel] * layers, strides, dil)
    return RFMap(
        g, side, int(rows.max() - rows.min() + 1), layers, kernel, stride, tuple(dil)
    )


def _figure(panels: int, dpi: int = 70):
    fig = _anim.new_figure((3.3 * panels, 3.4), dpi)
    axes = np.atleast_1d(fig.subplots(1, panels))
    arts = []
    for ax in axes:
        im = ax.imshow(np.zeros((41, 41)), cmap="viridis", vmin=0, vmax=1)
        from matplotlib.patches import Rectangle

        rect = Rectangle((0, 0), 1, 1, fill=False, ec="red", lw=1.5)
        ax.add_patch(rect)
        ax.set_xticks([])
        ax.set_yticks([])
        arts.append((ax, im, rect))

    def show(maps: list[RFMap]) -> None:
        for (ax, im, rect), m in zip(arts, maps, strict=True):
            n = m.grad.shape[0]
            im.set_data(m.grad / m.grad.max())
            im.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
            centre = n // 2 if m.stride == 1 else (n - 1) // 2
            lo = centre - (m.side - 1) // 2 - 0.5
            rect.set_xy((lo, lo))
            rect.set_width(m.side)
            rect.set_height(m.side)
            ax.set_title(
                f"L={m.layers}, s={m.kernel}, d={list(m.dilations)}\nformula "
                f"{m.side}, measured {m.measured}",
                fontsize=8,
            )

    return fig, show


def live_view():
    """Sliders for depth, kernel size, first-layer stride; a dilation schedule
    dropdown."""
    import ipywidgets as w

    s = _anim.slider_style()
    controls = {
        "layers": w.IntSlider(value=3, min=1, max=6, description="layers L", **s),
        "kernel": w.Dropdown(options=[1, 3, 5, 7], value=3, description="kernel s"),
        "stride": w.Dropdown(options=[1, 2], value=1, description="stride (layer 1)"),
        "schedule": w.Dropdown(
            options=["constant", "exponential"],
            value="constant",
            description="dilation",
        ),
    }
    fig, show = _figure(1)

    def draw(v):
        m = receptive_field_map(
            v["layers"],
            v["kernel"],
            stride=v["stride"],
            schedule=v["schedule"],
            size=81,
        )
        show([m])
        return (
            f"receptive field {m.side}×{m.side} (formula) — measured "
            f"{m.measured}×{m.measured}"
        )

    live = _anim.LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(max_layers: int = 6, *, dpi: int = 60, fps: int = 1):
    """Depth 1..max_layers: constant dilation (linear growth) next to exponential."""
    maps = {
        (L, sch): receptive_field_map(
            L, 3, schedule=sch, size=129 if sch == "exponential" else 41
        )
        for L in range(1, max_layers + 1)
        for sch in ("constant", "exponential")
    }
    fig, show = _figure(2, dpi)
    _anim.freeze_layout(fig)
    return _anim.animation_html(
        fig,
        lambda L: show([maps[(L, "constant")], maps[(L, "exponential")]]),
        range(1, max_layers + 1),
        fps=fps,
    )
