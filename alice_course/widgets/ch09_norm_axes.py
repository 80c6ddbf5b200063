r"""Widget: which entries share one mean and variance, for each normalization layer.

An ``(n, h, w, c)`` batch is drawn as an n × c grid of h × w images (rows: examples,
columns: channels). Picking one entry, the widget colours every entry pooled with it
into the same statistics by batch norm (same channel, all examples and positions),
layer norm variant A (same example, everything), variant B (same example and position,
all channels), group norm (same example, a group of channels) and instance norm (same
example and channel) — the book's Figure F.9.4 — and prints the number of pooled values
and the shape of the statistics.

Three layers: :func:`pooled_mask` (pure, unit-tested against
``alice_lab.normalization``), :func:`live_view` (core ipywidgets), :func:`static_view`
(an HTML animation over the layers).

Book: §9.3.2 (lines 4749-4811), Figure F.9.4.
"""

from __future__ import annotations

import numpy as np

__all__ = ["KINDS", "live_view", "pooled_mask", "static_view"]

KINDS = ("batch", "layer A", "layer B", "group", "instance")


def pooled_mask(kind: str, shape=(3, 4, 4, 6), index=(0, 1, 2, 1), groups: int = 3):
    """Boolean ``shape`` array: the entries sharing statistics with ``X[index]``.

    >>> int(pooled_mask("batch", (2, 3, 3, 4), groups=2).sum())
    18
    """
    n, h, w, c = shape
    i, y, x, z = index
    if kind not in KINDS or c % groups:
        raise ValueError(f"kind must be one of {KINDS} and groups divide c={c}")
    M = np.zeros(shape, dtype=bool)
    if kind == "batch":
        M[..., z] = True
    elif kind == "layer A":
        M[i] = True
    elif kind == "layer B":
        M[i, y, x, :] = True
    elif kind == "group":
        size = c // groups
        start = (z // size) * size
        M[i, :, :, start : start + size] = True
    else:
        M[i, :, :, z] = True
    return M


def _mosaic(M: np.ndarray) -> np.ndarray:
    n, h, w, c = M.shape
    out = np.full((n * (h + 1) - 1, c * (w + 1) - 1), np.nan)
    for i in range(n):
        for z in range(c):
            out[i * (h + 1) : i * (h + 1) + h, z * (w + 1) : z * (w + 1) + w] = M[
                i, ..., z
            ]
    return out


def _draw(ax, kind, index=(0, 1, 2, 1), groups=3, shape=(3, 4, 4, 6)) -> str:
    M = pooled_mask(kind, shape, index, groups)
    ax.cla()
    ax.imshow(_mosaic(M), cmap="Blues", vmin=-0.3, vmax=1.2)
    i, y, x, z = index
    ax.plot(z * (shape[2] + 1) + x, i * (shape[1] + 1) + y, "r*", ms=10)
    ax.set(
        xticks=[(shape[2] + 1) * k + 1.5 for k in range(shape[3])],
        xticklabels=[f"c{k}" for k in range(shape[3])],
        yticks=[(shape[1] + 1) * k + 1.5 for k in range(shape[0])],
        yticklabels=[f"x{k}" for k in range(shape[0])],
        title=f"{kind} norm: {int(M.sum())} values pooled",
    )
    stats = {
        "batch": "(c,)",
        "layer A": "(n,)",
        "layer B": "(n, h, w)",
        "group": "(n, groups)",
        "instance": "(n, c)",
    }[kind]
    return (
        f"{kind}: {int(M.sum())} values share the ★ entry's statistics; stats {stats}"
    )


def live_view():
    """A dropdown for the layer, sliders for the entry and the number of groups."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.5, 3.4), 80)
    ax = fig.subplots()
    s = slider_style()
    controls = {
        "kind": w.Dropdown(options=list(KINDS), value="batch", description="layer"),
        "i": w.IntSlider(value=0, min=0, max=2, description="example", **s),
        "z": w.IntSlider(value=1, min=0, max=5, description="channel", **s),
        "groups": w.SelectionSlider(
            options=[1, 2, 3, 6], value=3, description="groups", **s
        ),
    }

    def draw(v):
        return _draw(ax, v["kind"], (v["i"], 1, 2, v["z"]), v["groups"])

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.live = live
    return box


def static_view(*, dpi: int = 55):
    """One frame per layer."""
    from alice_course.widgets._anim import animation_html, new_figure

    fig = new_figure((6.5, 3.4), dpi)
    ax = fig.subplots()

    def draw(kind):
        _draw(ax, kind)

    draw(KINDS[0])
    return animation_html(fig, draw, list(KINDS), fps=1)
