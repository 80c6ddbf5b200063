r"""Widget: a staircase of 2m sigmoid neurons approximating a function (Figure F.B.3).

Three layers, as every widget in the companion:

- :func:`staircase_frame` computes the approximation with m bins and its error, and
  :func:`mse_curve` the error against m with its log-log slope (NumPy, unit-tested);
- :func:`live_view` returns core ipywidgets: a slider for m, drop-downs for the target
  and the bin-centre convention, a slider for log₁₀ w, a label with the MSE and the
  2m hidden neurons, and a PNG of the approximation next to the MSE-vs-m curve;
- :func:`static_view` returns an HTML animation (``to_jshtml``) whose slider steps m
  from 2 to 200 for sin(x)/x, for the built site where no kernel runs.

The slope of the error curve tells how the error shrinks: about -2 (MSE ∝ 1/m²) for a
differentiable target, about -1 for a target with a jump.

Book: Appendix B §B.3, E.B.3 and Figure F.B.3 (lines 7058-7087).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.approximation import (
    CONVENTIONS,
    bin_approximation,
    loglog_slope,
    mse_on_grid,
    sin_over_x,
    step,
)

__all__ = [
    "DOMAIN",
    "StaircaseExplorer",
    "StaircaseFrame",
    "TARGETS",
    "frame_ms",
    "live_view",
    "mse_curve",
    "static_view",
    "staircase_frame",
    "summary",
]

DOMAIN = (0.0, 10.0)

#: the targets offered by the widget, each defined on all of ℝ (the linspace bins stick
#: out of [0, 10] by half a bin)
TARGETS: dict[str, Callable] = {
    "sin(x)/x": sin_over_x,
    "|x − 5| / 5": lambda x: np.abs(x - 5.0) / 5.0,
    "step at x = 10/3": lambda x: step(x, 1.0, 10.0 / 3.0),
    "(x / 10)²": lambda x: (x / 10.0) ** 2,
}

#: the m values of the error curve
CURVE_MS = (2, 3, 4, 5, 7, 10, 14, 20, 28, 40, 57, 80, 113, 160, 200)


def _target(name: str) -> Callable:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(
            f"target must be one of {list(TARGETS)}; got {name!r}"
        ) from None


# --- layer 1: what is drawn -------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StaircaseFrame:
    """The approximation with m bins, on ``x`` (n,) points of the domain.

    Attributes: ``g`` and ``f`` (n,) the target and the staircase, ``mse`` their
    average squared difference, ``hidden_units`` = 2m, and the bins (``centers`` (m,),
    ``delta``, ``heights`` (m,)).
    """

    target: str
    m: int
    convention: str
    w: float
    x: np.ndarray
    g: np.ndarray
    f: np.ndarray
    mse: float
    centers: np.ndarray
    delta: float
    heights: np.ndarray

    @property
    def hidden_units(self) -> int:
        return 2 * self.m


def staircase_frame(
    target: str = "sin(x)/x",
    m: int = 15,
    *,
    convention: str = "linspace",
    w: float = 1e4,
    n: int = 5001,
) -> StaircaseFrame:
    """Bin ``TARGETS[target]`` into ``m`` bins on [0, 10] (heights: bin averages) and
    evaluate target and staircase on ``n`` equispaced points.

    Book: Appendix B §B.3, E.B.3 (lines 7064-7074).

    >>> round(staircase_frame("sin(x)/x", 15, n=20_001).mse, 4)
    0.002
    """
    g = _target(target)
    approx = bin_approximation(g, m, domain=DOMAIN, convention=convention, w=w)
    x = np.linspace(*DOMAIN, int(n))
    gx, fx = g(x), approx(x)
    return StaircaseFrame(
        target,
        int(m),
        convention,
        float(w),
        x,
        gx,
        fx,
        float(np.mean((fx - gx) ** 2)),
        approx.centers,
        approx.delta,
        approx.heights,
    )


@functools.lru_cache(maxsize=32)
def mse_curve(
    target: str = "sin(x)/x",
    *,
    convention: str = "linspace",
    w: float = 1e4,
    ms: tuple[int, ...] = CURVE_MS,
    n: int = 5001,
) -> tuple[np.ndarray, np.ndarray, float]:
    """The MSE for every m in ``ms`` and the fitted log-log slope, as
    ``(ms (k,), mse (k,), slope)``. Cached: moving the m slider costs nothing.

    >>> ms, err, slope = mse_curve("sin(x)/x", ms=(10, 20, 40))
    >>> round(slope)
    -2
    """
    g = _target(target)
    ms_arr = np.array([m for m in ms if convention != "linspace" or m >= 2])
    err = np.array(
        [
            mse_on_grid(
                bin_approximation(g, int(m), domain=DOMAIN, convention=convention, w=w),
                g,
                DOMAIN,
                n=n,
            )
            for m in ms_arr
        ]
    )
    return ms_arr, err, loglog_slope(ms_arr, err)


def summary(frame: StaircaseFrame, slope: float | None = None) -> str:
    """One line: m, the 2m hidden neurons, the MSE (and the curve's slope)."""
    line = (
        f"{frame.target}, m = {frame.m} bins → {frame.hidden_units} hidden neurons: "
        f"MSE = {frame.mse:.2e}"
    )
    if slope is not None:
        line += f"; MSE ∝ m^{slope:.2f} over m = 2…200"
    return line


class _Panels:
    """Left: target (red) and staircase (green). Right: MSE against m, log-log."""

    def __init__(self, fig):
        self.ax_f, self.ax_e = fig.subplots(1, 2, width_ratios=(1.4, 1))
        (self.g,) = self.ax_f.plot([], [], color="tab:red", lw=1.5, label="target g")
        (self.f,) = self.ax_f.plot([], [], color="tab:green", lw=1.5, label="staircase")
        self.ax_f.set(xlim=DOMAIN, xlabel="x", title="approximation")
        self.ax_f.legend(loc="upper right", fontsize=8)
        (self.curve,) = self.ax_e.loglog([], [], "o-", ms=3, color="0.3", label="MSE")
        (self.ref,) = self.ax_e.loglog([], [], ":", color="tab:blue", label="∝ 1/m²")
        (self.here,) = self.ax_e.loglog([], [], "o", ms=9, color="tab:green")
        self.ax_e.set(xlabel="bins m", ylabel="MSE", title="error against m")
        # plain tick labels: mathtext (10^k) layout is most of the cost of a frame
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

        self.ax_e.xaxis.set_major_locator(FixedLocator([2, 5, 10, 20, 50, 100, 200]))
        self.ax_e.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        self.ax_e.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0e}"))
        for axis in (self.ax_e.xaxis, self.ax_e.yaxis):
            axis.set_minor_locator(NullLocator())
        self.ax_e.grid(True, which="both", alpha=0.3)
        self.ax_e.legend(loc="lower left", fontsize=8)

    def draw_curve(self, ms, err) -> None:
        self.curve.set_data(ms, err)
        self.ref.set_data(ms, err[-1] * (ms[-1] / ms) ** 2.0)
        self.ax_e.set_xlim(ms[0] / 1.3, ms[-1] * 1.3)
        self.ax_e.set_ylim(err.min() / 3, err.max() * 3)

    def draw_frame(self, fr: StaircaseFrame) -> None:
        self.g.set_data(fr.x, fr.g)
        self.f.set_data(fr.x, fr.f)
        lo, hi = min(fr.g.min(), fr.f.min()), max(fr.g.max(), fr.f.max())
        pad = 0.08 * (hi - lo) + 1e-3
        self.ax_f.set_ylim(lo - pad, hi + pad)
        self.here.set_data([fr.m], [max(fr.mse, 1e-300)])


# --- layer 2: the live view -------------------------------------------------------


class StaircaseExplorer:
    """The live view's state: an m slider, target and convention drop-downs, a log₁₀ w
    slider, a label and a PNG image. :meth:`update` recomputes from the controls (they
    call it); tests set ``.value`` and read ``label.value`` and the lines."""

    def __init__(self, m=15, target="sin(x)/x", convention="linspace", log10_w=4.0):
        import ipywidgets as wd

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.m = wd.IntSlider(
            value=m, min=2, max=200, step=1, description="bins m", **opts
        )
        self.target = wd.Dropdown(
            options=list(TARGETS), value=target, description="target g"
        )
        self.convention = wd.Dropdown(
            options=list(CONVENTIONS), value=convention, description="bin centres"
        )
        self.log10_w = wd.FloatSlider(
            value=log10_w, min=1, max=5, step=0.25, description="log₁₀ slope w", **opts
        )
        self.label = wd.Label()
        self.image = wd.Image(format="png")
        self.figure = new_figure((9.5, 3.6), 80)
        self.panels = _Panels(self.figure)
        self.frame: StaircaseFrame | None = None
        self.slope: float | None = None
        for control in self.controls:
            control.observe(self._on_change, names="value")
        self.widget = wd.VBox(
            [
                wd.HBox(
                    [
                        wd.VBox([self.m, self.log10_w]),
                        wd.VBox([self.target, self.convention]),
                    ]
                ),
                self.label,
                self.image,
            ]
        )
        self.update()

    @property
    def controls(self):
        return (self.m, self.target, self.convention, self.log10_w)

    def _on_change(self, change) -> None:
        self.update()

    def update(self) -> None:
        w = 10.0**self.log10_w.value
        key = {"convention": self.convention.value, "w": w}
        self.frame = fr = staircase_frame(self.target.value, self.m.value, **key)
        ms, err, self.slope = mse_curve(self.target.value, **key)
        self.panels.draw_curve(ms, err)
        self.panels.draw_frame(fr)
        self.label.value = summary(fr, self.slope)
        self.image.value = png_bytes(self.figure)


def live_view(
    m: int = 15,
    target: str = "sin(x)/x",
    convention: str = "linspace",
    log10_w: float = 4.0,
):
    """An ipywidgets box: the staircase with m bins next to the MSE-against-m curve.
    Core widgets only (works in Colab). The :class:`StaircaseExplorer` behind it is
    ``box.explorer``."""
    explorer = StaircaseExplorer(
        m=m, target=target, convention=convention, log10_w=log10_w
    )
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view -----------------------------------------------------


def frame_ms(max_frames: int = 40, m_max: int = 200) -> np.ndarray:
    """The m values the animation shows: at most ``max_frames``, from 2 to ``m_max``,
    spread evenly on a log scale.

    >>> frame_ms(5).tolist()
    [2, 6, 20, 63, 200]
    """
    if int(max_frames) < 2 or int(m_max) < 2:
        raise ValueError(
            f"need max_frames >= 2 and m_max >= 2; got {max_frames}, {m_max}"
        )
    return np.unique(np.round(np.geomspace(2, m_max, int(max_frames))).astype(int))


def static_view(
    target: str = "sin(x)/x",
    *,
    max_frames: int = 40,
    dpi: int = 60,
    fps: int = 4,
    n: int = 2001,
):
    """An HTML animation (no kernel needed): m runs from 2 to 200 (at most 60 frames);
    the left panel shows the staircase, the right one where this m sits on the
    MSE-against-m curve. Returns an ``IPython.display.HTML``."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if int(max_frames) > 60:
        raise ValueError(f"max_frames must be at most 60; got {max_frames}")
    ms = frame_ms(max_frames)
    curve_ms, err, slope = mse_curve(target, n=n)
    fig = new_figure((8.5, 3.3), dpi)
    panels = _Panels(fig)
    panels.draw_curve(curve_ms, err)
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(i):
        fr = staircase_frame(target, int(ms[i]), n=n)
        panels.draw_frame(fr)
        title.set_text(summary(fr, slope))

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(ms))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
