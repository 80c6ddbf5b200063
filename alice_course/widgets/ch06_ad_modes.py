r"""Widget: forward mode against reverse mode, step by step (book §6.2-6.3).

A chain of fully-connected primitives on a batch of n rows of width d, closed by a
squared loss, is differentiated twice by :mod:`alice_lab.autodiff.trace`: forward mode
keeps one tangent matrix per weight and updates them all at each step; reverse mode
stores the whole forward pass, then sends one adjoint vector back. The widget replays
both side by side: what is alive in memory after each step (bars sized in floats) and
the multiply-adds so far.

- :func:`schedule` computes the frames (from the real algorithms' event logs) and
  :func:`cost_table` how the totals grow with n. Costs are counted as the book
  counts them, as products with the (dense) Jacobians: forward mode's
  matrix-matrix updates grow like :math:`(nd)^2 p` per tangent, reverse mode's
  vector-matrix products like :math:`(nd)^2 + nd\,p` per primitive, and forward
  mode keeps every tangent (:math:`nd \times p` floats each) alive;
- :func:`live_view`: sliders for the step (with a play button), n and d;
- :func:`static_view`: an HTML animation over the steps.

Book: §6.2 (lines 2766-2820), §6.3 (lines 2866-2900).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.autodiff import trace
from alice_lab.backend import check_int

__all__ = [
    "Frame",
    "ModesExplorer",
    "Schedule",
    "cost_table",
    "live_view",
    "schedule",
    "static_view",
]


@dataclass(frozen=True)
class Frame:
    """One step: ``phase`` ("forward" or "backward"), the primitive index, the objects
    alive (name -> shape), the floats they hold and the multiply-adds so far."""

    phase: str
    step: int
    live: dict
    floats: int
    multiply_adds: int


@dataclass(frozen=True)
class Schedule:
    """Frames of forward mode (l steps) and reverse mode (2l steps), and the gradients
    both produced (equal)."""

    n: int
    d: int
    depth: int
    forward: list[Frame]
    reverse: list[Frame]
    max_gap: float

    @property
    def steps(self) -> int:
        return max(len(self.forward), len(self.reverse))

    def at(self, t: int) -> tuple[Frame, Frame]:
        """The frames shown at time t (forward mode stays on its last frame)."""
        t = int(np.clip(t, 0, self.steps - 1))
        return self.forward[min(t, len(self.forward) - 1)], self.reverse[t]


def _frames(cost) -> list[Frame]:
    return [
        Frame(e["phase"], e["step"], e["live"], e["floats"], e["multiply_adds"])
        for e in cost.events
    ]


def schedule(n: int = 2, d: int = 3, depth: int = 3, seed: int = 0) -> Schedule:
    """Run both modes on ``depth`` FC layers (batch n, width d) plus the loss.

    >>> s = schedule(2, 3, 3); len(s.forward), len(s.reverse)
    (4, 8)
    """
    n, d, depth = check_int(n, "n"), check_int(d, "d"), check_int(depth, "depth")
    r = np.random.default_rng(seed)
    fs, ws = [], []
    for _ in range(depth):
        f, p = trace.fc_primitive(d, d, n=n)
        fs.append(f)
        ws.append(r.standard_normal(p) / np.sqrt(d))
    f, _ = trace.square_primitive()
    fs.append(f)
    ws.append(np.zeros(0))
    x = r.standard_normal(n * d)
    fwd, rev = trace.forward_mode(fs, x, ws), trace.reverse_mode(fs, x, ws)
    gap = max(
        float(np.max(np.abs(a - b), initial=0))
        for a, b in zip(fwd.grads, rev.grads, strict=True)
    )
    return Schedule(n, d, depth, _frames(fwd.cost), _frames(rev.cost), gap)


def cost_table(ns=(1, 2, 4, 8), d: int = 3, depth: int = 3) -> list[dict]:
    """Total multiply-adds and peak floats of both modes for each batch size n."""
    rows = []
    for n in ns:
        s = schedule(n, d, depth)
        rows.append(
            {
                "n": n,
                "forward_multiply_adds": s.forward[-1].multiply_adds,
                "reverse_multiply_adds": s.reverse[-1].multiply_adds,
                "forward_peak_floats": max(f.floats for f in s.forward),
                "reverse_peak_floats": max(f.floats for f in s.reverse),
            }
        )
    return rows


def _caption(fr: Frame, what: str) -> str:
    return (
        f"{what}: {fr.phase} step {fr.step}, {fr.floats:,} floats alive, "
        f"{fr.multiply_adds:,} multiply-adds"
    )


def _draw_panel(ax, fr: Frame, title: str, color: str, xmax: float) -> None:
    ax.cla()
    names = list(fr.live)
    sizes = [int(np.prod(fr.live[k])) for k in names]
    ax.barh(range(len(names)), sizes, color=color)
    ax.set_yticks(
        range(len(names)), [f"{k} {tuple(fr.live[k])}" for k in names], fontsize=8
    )
    ax.invert_yaxis()
    ax.set_xlim(0, xmax)
    ax.set_xlabel("floats in memory")
    ax.set_title(
        f"{title}\n{fr.phase} step {fr.step}: {fr.multiply_adds:,} multiply-adds",
        fontsize=9,
    )


def _xmax(s: Schedule) -> float:
    return 1.05 * max(f.floats for f in s.forward + s.reverse)


# --- layer 2: the live view -----------------------------------------------------------


class ModesExplorer:
    """``step`` (with ``play``), ``n``, ``d`` controls; ``label``; ``image``."""

    def __init__(self, n: int = 2, d: int = 3, depth: int = 3):
        import ipywidgets as w

        self.depth = int(depth)
        self.n = w.IntSlider(
            value=n, min=1, max=8, description="batch n", continuous_update=False
        )
        self.d = w.IntSlider(
            value=d, min=1, max=8, description="width d", continuous_update=False
        )
        self.step = w.IntSlider(value=0, min=0, max=1, description="step")
        self.play = w.Play(value=0, min=0, max=1, interval=700)
        w.jslink((self.play, "value"), (self.step, "value"))
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((9, 3.6), 80)
        self.axes = self.figure.subplots(1, 2)
        self.schedule: Schedule | None = None
        self.n.observe(lambda c: self.recompute(), names="value")
        self.d.observe(lambda c: self.recompute(), names="value")
        self.step.observe(lambda c: self.update(), names="value")
        self.widget = w.VBox(
            [
                w.HBox([self.play, self.step]),
                w.HBox([self.n, self.d]),
                self.label,
                self.image,
            ]
        )
        self.recompute()

    def recompute(self) -> None:
        self.schedule = schedule(self.n.value, self.d.value, self.depth)
        top = self.schedule.steps - 1
        self.step.max = self.play.max = top
        self.step.value = min(self.step.value, top)
        self.update()

    def update(self) -> None:
        s = self.schedule
        f, r = s.at(self.step.value)
        xmax = _xmax(s)
        _draw_panel(self.axes[0], f, "forward mode (tangents)", "tab:orange", xmax)
        _draw_panel(
            self.axes[1], r, "reverse mode (stored h, adjoint)", "tab:blue", xmax
        )
        self.label.value = (
            _caption(f, "F-AD")
            + " | "
            + _caption(r, "R-AD")
            + f" | gradients agree within {s.max_gap:.0e}"
        )
        self.image.value = png_bytes(self.figure)


def live_view(n: int = 2, d: int = 3, depth: int = 3):
    """The stepper's box (core ipywidgets); ``box.explorer`` is the state."""
    explorer = ModesExplorer(n=n, d=d, depth=depth)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view ---------------------------------------------------------


def static_view(n: int = 2, d: int = 3, depth: int = 3, dpi: int = 70):
    """An HTML animation over the steps of both algorithms (no kernel needed)."""
    import matplotlib as mpl
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    s = schedule(n, d, depth)
    fig = new_figure((9, 3.6), dpi)
    axes = fig.subplots(1, 2)
    xmax = _xmax(s)

    def draw(t):
        f, r = s.at(t)
        _draw_panel(axes[0], f, "forward mode (tangents)", "tab:orange", xmax)
        _draw_panel(axes[1], r, "reverse mode (stored h, adjoint)", "tab:blue", xmax)

    draw(0)
    freeze_layout(fig)
    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(s.steps)), interval=700, blit=False
    )
    with mpl.rc_context({"animation.frame_format": "png"}):
        return animation_html(anim, fps=2)
