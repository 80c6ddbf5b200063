r"""Widget: receptive fields of stacked (dilated, causal) 1-D convolutions.

- :func:`receptive_field_graph` walks back from one output through ``L`` layers of
  kernel size ``s`` and dilation ``base**l`` and marks every node and edge it uses
  (centred or causal kernels); its width is ``1 + (s - 1) · Σ_l d_l``;
- :func:`live_view`: sliders layers, kernel size, dilation base, output index, a
  causal checkbox; the layer × time node grid of F.8.5 / F.8.6;
- :func:`static_view`: an animation adding layers, plain (d = 1) against dilated
  (d = 1, 2, 4, …), both causal.

Book: §8.2.3 (dilated convolutions, lines 3940-3958) and §8.3.2 (causal models,
lines 4016-4052).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import (
    LiveFigure,
    animation_html,
    freeze_layout,
    new_figure,
    slider_style,
)
from alice_lab.backend import check_int
from alice_lab.conv import receptive_field

__all__ = ["ReceptiveField", "live_view", "receptive_field_graph", "static_view"]


@dataclass(frozen=True)
class ReceptiveField:
    """``active[l]`` (t,) bool: nodes of level l (0 = input, L = output) that reach
    the chosen output; ``edges``: (level, source, target) connections used;
    ``size``: the receptive field on the input, ``1 + (s - 1) Σ d_l``."""

    t: int
    dilations: tuple[int, ...]
    kernel_size: int
    causal: bool
    active: np.ndarray
    edges: list
    size: int


def _taps(s: int, d: int, causal: bool) -> list[int]:
    if causal:
        return [-(s - 1 - j) * d for j in range(s)]
    return [(j - (s - 1) // 2) * d for j in range(s)]


def receptive_field_graph(
    layers: int,
    kernel_size: int = 3,
    *,
    dilation_base: int = 2,
    causal: bool = True,
    t: int = 32,
    out_index: int | None = None,
) -> ReceptiveField:
    """Mark what output ``out_index`` (default: the last, or the middle when not
    causal) depends on. Zero padding: taps outside ``0..t-1`` are dropped.

    >>> receptive_field_graph(3, 2, dilation_base=2).size
    8
    """
    layers, t = check_int(layers, "layers"), check_int(t, "t")
    kernel_size = check_int(kernel_size, "kernel_size")
    dilation_base = check_int(dilation_base, "dilation_base")
    if not causal and kernel_size % 2 == 0:
        raise ValueError(f"a centred kernel needs an odd size; got {kernel_size}")
    if out_index is None:
        out_index = t - 1 if causal else t // 2
    if not 0 <= out_index < t:
        raise ValueError(f"out_index must lie in [0, {t}); got {out_index}")
    dil = tuple(dilation_base**l for l in range(layers))
    active = np.zeros((layers + 1, t), dtype=bool)
    active[layers, out_index] = True
    edges = []
    for lvl in range(layers, 0, -1):
        for j in np.flatnonzero(active[lvl]):
            for off in _taps(kernel_size, dil[lvl - 1], causal):
                src = j + off
                if 0 <= src < t:
                    active[lvl - 1, src] = True
                    edges.append((lvl, int(src), int(j)))
    size = receptive_field([kernel_size] * layers, dilations=list(dil))  # 1 + (s-1)Σd
    return ReceptiveField(t, dil, kernel_size, causal, active, edges, size)


def _draw(ax, rf: ReceptiveField, title: str) -> None:
    ax.clear()
    L, t = rf.active.shape[0] - 1, rf.t
    xx, yy = np.meshgrid(np.arange(t), np.arange(L + 1))
    ax.scatter(xx.ravel(), yy.ravel(), s=14, color="0.85", zorder=1)
    for lvl, src, dst in rf.edges:
        ax.plot([src, dst], [lvl - 1, lvl], color="tab:red", lw=0.8, zorder=2)
    on = rf.active
    ax.scatter(xx[on], yy[on], s=22, color="tab:red", zorder=3)
    ax.set(
        xlim=(-0.8, t - 0.2),
        ylim=(-0.5, L + 0.5),
        yticks=range(L + 1),
        yticklabels=["input"]
        + [f"layer {lv} (d={d})" for lv, d in enumerate(rf.dilations, 1)],
        xlabel="time step",
    )
    ax.set_title(title, fontsize=10)


def _summary(rf: ReceptiveField) -> str:
    kind = "causal" if rf.causal else "centred"
    seen = int(rf.active[0].sum())
    return (
        f"{kind}, s = {rf.kernel_size}, dilations {list(rf.dilations)}: receptive "
        f"field 1 + (s−1)·Σd = {rf.size} steps ({seen} inside the window)"
    )


def live_view(
    layers: int = 4, kernel_size: int = 2, dilation_base: int = 2, causal: bool = True
):
    """Sliders and a checkbox over :func:`receptive_field_graph` (32 time steps)."""
    import ipywidgets as w

    opts = slider_style()
    controls = {
        "layers": w.IntSlider(value=layers, min=1, max=6, description="layers", **opts),
        "kernel_size": w.IntSlider(
            value=kernel_size, min=2, max=5, description="kernel s", **opts
        ),
        "dilation_base": w.Dropdown(
            options=[1, 2, 3], value=dilation_base, description="dilation base"
        ),
        "out_index": w.IntSlider(value=31, min=0, max=31, description="output", **opts),
        "causal": w.Checkbox(value=causal, description="causal"),
    }
    fig = new_figure((8, 3.4), 80)
    ax = fig.subplots()

    def draw(v) -> str:
        s, causal = v["kernel_size"], v["causal"]
        if not causal and s % 2 == 0:
            s += 1  # centred kernels need an odd size
        rf = receptive_field_graph(
            v["layers"],
            s,
            dilation_base=v["dilation_base"],
            causal=causal,
            t=32,
            out_index=v["out_index"],
        )
        _draw(ax, rf, "nodes feeding the chosen output")
        return _summary(rf)

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.explorer = live
    return box


def static_view(
    max_layers: int = 5, *, kernel_size: int = 2, t: int = 32, dpi: int = 55
):
    """Frames add layers one by one: left plain causal convolutions (d = 1), right
    dilations 1, 2, 4, … (WaveNet-style)."""
    fig = new_figure((10, 3.6), dpi)
    axes = fig.subplots(1, 2)
    title = fig.suptitle("")

    def draw(L):
        plain = receptive_field_graph(L, kernel_size, dilation_base=1, t=t)
        dil = receptive_field_graph(L, kernel_size, dilation_base=2, t=t)
        _draw(axes[0], plain, f"d = 1: receptive field {plain.size}")
        _draw(axes[1], dil, f"d = 1, 2, 4, …: receptive field {dil.size}")
        title.set_text(f"causal convolutions, kernel size {kernel_size}, {L} layers")

    draw(max_layers)
    freeze_layout(fig)
    return animation_html(fig, draw, range(1, int(max_layers) + 1), fps=2)
