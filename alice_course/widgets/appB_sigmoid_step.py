r"""Widget: how steep sigmoids become steps (one neuron) and bins (two neurons).

Three layers, as every widget in the companion:

- :func:`step_curves` computes what is drawn (plain NumPy, unit-tested): one neuron
  :math:`a\sigma(w(x - s))` next to the step it approximates, and a bin, the sum of two
  opposite neurons, next to the box it approximates, with the worst error outside a
  small window around the jumps;
- :func:`live_view` returns core ipywidgets (sliders for a, log₁₀ w, s, Δ; a label; a
  PNG image), so it works in Jupyter and Colab;
- :func:`static_view` returns an HTML animation (``to_jshtml``) whose own slider sweeps
  the slope w from 1 to 10⁴, for the built site where no kernel runs.

Book: Appendix B §B.1-B.2, Figures F.B.1 and F.B.2 (lines 7024-7056).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.approximation import box, neuron, step

__all__ = [
    "StepCurves",
    "StepExplorer",
    "live_view",
    "static_view",
    "step_curves",
    "summary",
]

BOX = (0.0, 1.0)


# --- layer 1: what is drawn -------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StepCurves:
    r"""Curves on ``x`` (n,) for one setting of the sliders.

    Attributes
    ----------
    neuron, step : (n,) the neuron :math:`a\sigma(w(x-s))` and its limit.
    up, down : (n,) the bin's two neurons, :math:`\pm a\sigma(w(x - s_b \pm \Delta/2))`.
    bin, box : (n,) their sum (E.B.2) and its limit.
    step_error, bin_error : worst absolute error more than ``window`` away from the
        jumps (the closed form is :math:`|a|\sigma(-w\,\mathrm{window})` for the step).
    slope : :math:`aw/4`, the neuron's slope at x = s.
    """

    a: float
    w: float
    s: float
    bin_center: float
    delta: float
    window: float
    x: np.ndarray
    neuron: np.ndarray
    step: np.ndarray
    up: np.ndarray
    down: np.ndarray
    bin: np.ndarray
    box: np.ndarray
    step_error: float
    bin_error: float

    @property
    def slope(self) -> float:
        return self.a * self.w / 4


def step_curves(
    a: float = 1.0,
    w: float = 10.0,
    s: float = 0.3,
    *,
    bin_center: float = 0.6,
    delta: float = 0.2,
    window: float = 0.02,
    n: int = 2001,
) -> StepCurves:
    r"""One neuron and one bin on ``n`` points of [0, 1].

    Parameters
    ----------
    a, w, s : amplitude, slope and centre of the neuron (E.B.1); the bin uses the same
        a and w.
    bin_center, delta : centre and width of the bin (E.B.2).
    window : the errors ignore points closer than this to a jump.

    Book: Appendix B, E.B.1 and E.B.2 (lines 7032, 7052).

    >>> c = step_curves(a=1.0, w=1e4, s=0.3)
    >>> c.step_error < 1e-80, c.slope
    (True, 2500.0)
    """
    if int(n) < 2:
        raise ValueError(f"n must be at least 2; got {n}")
    if not float(window) > 0:
        raise ValueError(f"window must be > 0; got {window}")
    x = np.linspace(*BOX, int(n))
    lo, hi = bin_center - delta / 2, bin_center + delta / 2
    f_neuron, f_step = neuron(x, a, w, s), step(x, a, s)
    up, down = neuron(x, a, w, lo), neuron(x, -a, w, hi)
    f_box = box(x, a, bin_center, delta)
    far_s = np.abs(x - s) > window
    far_bin = np.minimum(np.abs(x - lo), np.abs(x - hi)) > window
    step_err = float(np.abs(f_neuron - f_step)[far_s].max(initial=0.0))
    bin_err = float(np.abs(up + down - f_box)[far_bin].max(initial=0.0))
    return StepCurves(
        float(a),
        float(w),
        float(s),
        float(bin_center),
        float(delta),
        float(window),
        x,
        f_neuron,
        f_step,
        up,
        down,
        up + down,
        f_box,
        step_err,
        bin_err,
    )


def summary(c: StepCurves) -> str:
    """One line: w, the slope at s, the two worst errors away from the jumps."""
    return (
        f"w = {c.w:.3g}: slope at s = aw/4 = {c.slope:.3g}; max error more than "
        f"{c.window:g} from the jumps: step {c.step_error:.1e}, bin {c.bin_error:.1e}"
    )


class _Panels:
    """The two panels of the figure and their lines, updated in place."""

    def __init__(self, fig):
        self.ax_step, self.ax_bin = fig.subplots(1, 2, sharey=True)
        ax1, ax2 = self.ax_step, self.ax_bin
        (self.step,) = ax1.plot([], [], "--", color="0.3", lw=1.2, label="step")
        (self.neuron,) = ax1.plot([], [], color="tab:green", lw=2, label="1 neuron")
        (self.box,) = ax2.plot([], [], "--", color="0.3", lw=1.2, label="box")
        (self.up,) = ax2.plot([], [], ":", color="tab:blue", lw=1.2, label="neuron 1")
        (self.down,) = ax2.plot([], [], ":", color="tab:red", lw=1.2, label="neuron 2")
        (self.bin,) = ax2.plot([], [], color="tab:green", lw=2, label="sum = bin")
        ax1.set(xlim=BOX, xlabel="x", ylabel="f(x)", title="one neuron ≈ a step")
        ax2.set(xlim=BOX, xlabel="x", title="two neurons ≈ a bin")
        ax1.legend(loc="upper left", fontsize=8)
        ax2.legend(loc="upper left", fontsize=8)

    def draw(self, c: StepCurves) -> None:
        for line, y in [
            (self.step, c.step),
            (self.neuron, c.neuron),
            (self.box, c.box),
            (self.up, c.up),
            (self.down, c.down),
            (self.bin, c.bin),
        ]:
            line.set_data(c.x, y)
        top = max(abs(c.a), 0.1) * 1.25
        self.ax_step.set_ylim(-top, top)


# --- layer 2: the live view -------------------------------------------------------


class StepExplorer:
    """The live view's state: sliders, a label and a PNG image of the figure.

    ``widget`` is the box to display; :meth:`update` recomputes from the sliders (they
    call it), so tests can set ``.value`` and read ``label.value`` and the lines.
    """

    def __init__(self, a=1.0, log10_w=1.0, s=0.3, delta=0.2, bin_center=0.6):
        import ipywidgets as wd

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.a = wd.FloatSlider(
            value=a, min=-2, max=2, step=0.05, description="amplitude a", **opts
        )
        self.log10_w = wd.FloatSlider(
            value=log10_w, min=0, max=4, step=0.1, description="log₁₀ slope w", **opts
        )
        self.s = wd.FloatSlider(
            value=s, min=0, max=1, step=0.01, description="step centre s", **opts
        )
        self.delta = wd.FloatSlider(
            value=delta, min=0.02, max=0.5, step=0.01, description="bin width Δ", **opts
        )
        self.bin_center = bin_center
        self.label = wd.Label()
        self.image = wd.Image(format="png")
        self.figure = new_figure((9, 3.4), 80)
        self.panels = _Panels(self.figure)
        self.curves: StepCurves | None = None
        for slider in self.sliders:
            slider.observe(self._on_change, names="value")
        controls = wd.HBox(
            [wd.VBox([self.a, self.log10_w]), wd.VBox([self.s, self.delta])]
        )
        self.widget = wd.VBox([controls, self.label, self.image])
        self.update()

    @property
    def sliders(self):
        return (self.a, self.log10_w, self.s, self.delta)

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> StepCurves:
        return step_curves(
            self.a.value,
            10.0**self.log10_w.value,
            self.s.value,
            bin_center=self.bin_center,
            delta=self.delta.value,
        )

    def update(self) -> None:
        self.curves = c = self.compute()
        self.panels.draw(c)
        self.label.value = summary(c)
        self.image.value = png_bytes(self.figure)


def live_view(a: float = 1.0, log10_w: float = 1.0, s: float = 0.3, delta: float = 0.2):
    """An ipywidgets box: sliders for a, log₁₀ w, s and Δ; a label with the slope at s
    and the errors; the neuron and the bin against their limits. Core widgets only.

    The :class:`StepExplorer` behind it is ``box.explorer``.
    """
    explorer = StepExplorer(a=a, log10_w=log10_w, s=s, delta=delta)
    box_ = explorer.widget
    box_.explorer = explorer
    return box_


# --- layer 3: the static view -----------------------------------------------------


def static_view(
    a: float = 1.0,
    s: float = 0.3,
    delta: float = 0.2,
    *,
    frames: int = 41,
    dpi: int = 60,
    fps: int = 6,
):
    """An HTML animation (no kernel needed): the slope w sweeps 10⁰ … 10⁴ in
    ``frames`` steps (at most 60); the neuron turns into a step and the pair of
    neurons into a bin. Returns an ``IPython.display.HTML``; nothing is left for
    pyplot to show.
    """
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    frames = int(frames)
    if not 2 <= frames <= 60:
        raise ValueError(f"frames must be between 2 and 60; got {frames}")
    ws = np.logspace(0, 4, frames)
    fig = new_figure((8, 3.2), dpi)
    panels = _Panels(fig)
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(i):
        c = step_curves(a, ws[i], s, delta=delta, n=801)
        panels.draw(c)
        title.set_text(
            f"w = {c.w:,.0f}: max error more than {c.window:g} from a jump "
            f"{max(c.step_error, c.bin_error):.1e}"
        )

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(frames)), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
