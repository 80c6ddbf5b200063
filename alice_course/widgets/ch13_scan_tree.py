r"""Widget: the tree of a parallel (associative) scan.

Every ⋆ is drawn as an arrow pair from its two inputs to its output, at the level where
it can run (ops of one level are independent). The book's figure is the work-efficient
scheme on six elements: 7 ops in 3 levels against 5 ops in 5 levels for the loop;
Hillis-Steele uses more ops (about n log₂ n) in ⌈log₂ n⌉ levels.

- :func:`tree_layout` gives each op's level and segment, and the totals (pure);
- :func:`live_view`: a slider for n and a dropdown for the algorithm;
- :func:`static_view`: n growing from 2 to 32 for the three schedules side by side.

Book: §13.3.2, Figure F.13.3 (lines 6569-6631).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.recurrent.scan import ALGORITHMS, associative_scan, scan_schedule

__all__ = ["TreeLayout", "live_view", "static_view", "tree_layout"]


@dataclass(frozen=True)
class TreeLayout:
    """Ops as rows ``(level, first, split, last, left_level, right_level)``:
    ``x_first..split ⋆ x_split+1..last`` at ``level``, its inputs computed at the two
    given levels (0 = an input); ``matches_loop`` says the scan of random numbers
    equals ``np.cumsum``."""

    n: int
    algorithm: str
    ops: np.ndarray  # (work, 6) int
    work: int
    depth: int
    matches_loop: bool


def tree_layout(n: int, algorithm: str = "blelloch") -> TreeLayout:
    """The schedule of ``algorithm`` on ``n`` elements, checked against a cumsum.

    >>> t = tree_layout(6); (t.work, t.depth, t.matches_loop)
    (7, 3, True)
    """
    if not 1 <= int(n) <= 256:
        raise ValueError(f"n must lie in 1..256; got {n}")
    trace = scan_schedule(int(n), algorithm)
    ready: dict[tuple[int, int], int] = {}  # segment -> level where it is computed
    rows = []
    for o in trace.ops:
        rows.append(
            (
                o.level,
                o.left[0],
                o.left[1],
                o.right[1],
                ready.get(o.left, 0),
                ready.get(o.right, 0),
            )
        )
        ready[o.out] = o.level
    ops = np.array(rows, dtype=int).reshape(-1, 6)
    xs = list(np.random.default_rng(0).standard_normal(int(n)))
    got = associative_scan(lambda a, b: a + b, xs, algorithm=algorithm)
    ok = bool(np.allclose(got, np.cumsum(xs), atol=1e-12))
    return TreeLayout(int(n), algorithm, ops, trace.work, trace.depth, ok)


def _draw(ax, t: TreeLayout, max_depth: int | None = None) -> None:
    ax.clear()
    depth = max(t.depth, 1) if max_depth is None else max_depth
    ax.scatter(np.arange(1, t.n + 1), np.zeros(t.n), s=18, color="0.4", zorder=3)
    colors = [
        "tab:red",
        "tab:green",
        "tab:blue",
        "tab:orange",
        "tab:purple",
        "tab:brown",
        "tab:pink",
        "tab:olive",
        "tab:cyan",
    ]
    for level, _first, split, last, left_level, right_level in t.ops:
        c = colors[(level - 1) % len(colors)]
        ax.plot([split, last], [left_level, level], color=c, lw=0.8, alpha=0.8)
        ax.plot([last, last], [right_level, level], color=c, lw=0.8, alpha=0.8)
        ax.scatter([last], [level], s=14, color=c, zorder=3)
    ax.set(
        xlim=(0.5, t.n + 0.5),
        ylim=(-0.5, depth + 0.5),
        xlabel="position",
        ylabel="level (parallel step)",
    )
    ax.invert_yaxis()
    ax.set_title(f"{t.algorithm}: {t.work} ops, depth {t.depth}", fontsize=9)


def live_view(n: int = 6, algorithm: str = "blelloch"):
    """Slider n (2-32) and the algorithm; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((7.0, 3.6), 80)
    ax = fig.subplots()
    controls = {
        "n": w.IntSlider(value=n, min=2, max=32, description="n", **slider_style()),
        "algorithm": w.Dropdown(
            options=list(ALGORITHMS), value=algorithm, description="algorithm"
        ),
    }

    def draw(v):
        t = tree_layout(v["n"], v["algorithm"])
        _draw(ax, t)
        return (
            f"n = {t.n}: {t.work} ops in {t.depth} levels; equals the sequential "
            f"loop: {t.matches_loop}"
        )

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(ns=(2, 3, 4, 6, 8, 11, 16, 23, 32), *, dpi: int = 55):
    """n growing, with the three schedules side by side."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    fig = new_figure((11.0, 3.8), dpi)
    axes = fig.subplots(1, 3)
    title = fig.suptitle("")
    for ax, alg in zip(axes, ALGORITHMS, strict=True):
        _draw(ax, tree_layout(ns[-1], alg), max_depth=max(ns) - 1)
    freeze_layout(fig)

    def draw(n):
        for ax, alg in zip(axes, ALGORITHMS, strict=True):
            _draw(ax, tree_layout(int(n), alg), max_depth=int(n) - 1)
        title.set_text(f"prefix scan of n = {n} elements")

    return animation_html(fig, draw, list(ns), fps=2)
