r"""Widget: the error of a finite difference as the step h shrinks (book §6.1.2).

Three layers, as every widget in the companion:

- :func:`fd_curves` and :func:`readout` compute what is drawn: the relative error of
  the forward and central differences of a test function, for a grid of steps h, in
  float32 and float64 (plain NumPy, unit-tested);
- :func:`live_view`: a log slider for h, toggles for the scheme and the dtype, a
  dropdown for the function; a label with the error at h and the number of function
  calls a whole gradient would cost (core ipywidgets only);
- :func:`static_view`: an HTML animation sweeping h from 1e-1 to 1e-15 over the four
  curves, for the built site.

The curves are V-shaped: truncation error (slope 1 forward, 2 central) on the right,
rounding error (slope -1) on the left; float32's V bottoms out about 10⁸ times higher.

Book: §6.1.2, numerical differentiation (lines 2720-2724).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.autodiff.numerical import FDCurve, fd_error_curve

__all__ = [
    "FUNCTIONS",
    "FDExplorer",
    "fd_curves",
    "live_view",
    "readout",
    "static_view",
]

#: test functions: (f, exact derivative, point)
FUNCTIONS = {
    "sin(x) at x = 1": (np.sin, np.cos, 1.0),
    "exp(x) at x = 0.5": (np.exp, np.exp, 0.5),
    "tanh(x) at x = 2": (np.tanh, lambda x: 1 - np.tanh(x) ** 2, 2.0),
}
SCHEMES = ("forward", "central")
DTYPES = ("float64", "float32")
STEPS = np.logspace(-16, -1, 91)


def fd_curves(function: str = "sin(x) at x = 1", hs=STEPS) -> dict[tuple, FDCurve]:
    """``{(scheme, dtype): FDCurve}`` for the four combinations.

    >>> sorted(fd_curves(hs=[1e-3]))[:2]
    [('central', 'float32'), ('central', 'float64')]
    """
    if function not in FUNCTIONS:
        raise ValueError(f"function must be one of {list(FUNCTIONS)}; got {function!r}")
    f, df, x0 = FUNCTIONS[function]
    return {
        (s, d): fd_error_curve(f, df, x0, hs, scheme=s, dtype=d)
        for s in SCHEMES
        for d in DTYPES
    }


@dataclass(frozen=True)
class Readout:
    """What the label says: the error at h and what a gradient of p parameters costs."""

    h: float
    error: float
    calls_per_gradient: int
    best_h: float


def readout(
    h: float,
    scheme: str = "central",
    dtype: str = "float64",
    function: str = "sin(x) at x = 1",
    parameters: int = 1_000_000,
) -> Readout:
    """The error at ``h`` and the calls a finite-difference gradient of ``parameters``
    scalars costs (2 per parameter central, 1 + 1 per parameter forward).

    >>> readout(1e-5).calls_per_gradient
    2000000
    """
    if scheme not in SCHEMES or dtype not in DTYPES:
        raise ValueError(
            f"scheme in {SCHEMES}, dtype in {DTYPES}; got {scheme}, {dtype}"
        )
    f, df, x0 = FUNCTIONS[function]
    err = float(fd_error_curve(f, df, x0, [h], scheme=scheme, dtype=dtype).error[0])
    best = fd_curves(function)[(scheme, dtype)].best_h
    calls = 2 * parameters if scheme == "central" else parameters + 1
    return Readout(float(h), err, calls, best)


def _label(r: Readout, scheme: str, dtype: str) -> str:
    return (
        f"{scheme} difference, {dtype}: h = {r.h:.1e}, relative error {r.error:.1e} "
        f"(best h ≈ {r.best_h:.0e}); a gradient of 10⁶ parameters would take "
        f"{r.calls_per_gradient:,} calls of f"
    )


_COLORS = {
    ("forward", "float64"): "tab:blue",
    ("central", "float64"): "tab:green",
    ("forward", "float32"): "tab:orange",
    ("central", "float32"): "tab:red",
}


def _draw_curves(ax, curves):
    lines = {}
    for key, c in curves.items():
        ok = np.isfinite(c.error) & (c.error > 0)
        (lines[key],) = ax.loglog(
            c.h[ok],
            c.error[ok],
            color=_COLORS[key],
            lw=1.5,
            label=f"{key[0]}, {key[1]}",
        )
    ax.set(xlabel="step h", ylabel="relative error", ylim=(1e-17, 10))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    return lines


# --- layer 2: the live view -----------------------------------------------------------


class FDExplorer:
    """Live view state: ``h``, ``scheme``, ``dtype``, ``function`` controls, ``label``,
    ``image``; :meth:`update` recomputes (the controls call it)."""

    def __init__(self, h=1e-5, scheme="central", dtype="float64", function=None):
        import ipywidgets as w

        function = function or next(iter(FUNCTIONS))
        self.h = w.FloatLogSlider(
            value=h,
            base=10,
            min=-16,
            max=-1,
            step=0.25,
            description="step h",
            readout_format=".1e",
            continuous_update=False,
        )
        self.scheme = w.ToggleButtons(
            options=SCHEMES, value=scheme, description="scheme"
        )
        self.dtype = w.ToggleButtons(options=DTYPES, value=dtype, description="dtype")
        self.function = w.Dropdown(
            options=list(FUNCTIONS), value=function, description="f"
        )
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((6, 4), 80)
        self.ax = self.figure.subplots()
        self.curves = None
        self.lines: dict = {}
        (self.marker,) = self.ax.plot([], [], "o", color="k", ms=8, zorder=5)
        self._function_shown = None
        for c in (self.h, self.scheme, self.dtype, self.function):
            c.observe(lambda change: self.update(), names="value")
        self.widget = w.VBox(
            [
                w.HBox([self.h, self.function]),
                self.scheme,
                self.dtype,
                self.label,
                self.image,
            ]
        )
        self.update()

    def update(self) -> None:
        if self._function_shown != self.function.value:
            self.ax.cla()
            self.curves = fd_curves(self.function.value)
            self.lines = _draw_curves(self.ax, self.curves)
            self.ax.set_title(f"finite differences of {self.function.value}")
            (self.marker,) = self.ax.plot([], [], "o", color="k", ms=8, zorder=5)
            self._function_shown = self.function.value
        key = (self.scheme.value, self.dtype.value)
        for k, line in self.lines.items():
            line.set_linewidth(3.0 if k == key else 1.0)
            line.set_alpha(1.0 if k == key else 0.35)
        r = readout(self.h.value, *key, function=self.function.value)
        self.marker.set_data([r.h], [max(r.error, 1e-17)])
        self.label.value = _label(r, *key)
        self.image.value = png_bytes(self.figure)


def live_view(h: float = 1e-5, scheme: str = "central", dtype: str = "float64"):
    """The explorer's box (core ipywidgets); ``box.explorer`` is the state."""
    explorer = FDExplorer(h=h, scheme=scheme, dtype=dtype)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view ---------------------------------------------------------


def static_view(function: str = "sin(x) at x = 1", frames: int = 40, dpi: int = 70):
    """An HTML animation: h sweeps from 1e-1 down to 1e-15; a marker rides each of
    the four curves and the title reports the four errors. No kernel needed."""
    import matplotlib as mpl
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if not 2 <= int(frames) <= 60:
        raise ValueError(f"frames must lie in 2..60; got {frames}")
    hs = np.logspace(-1, -15, int(frames))
    curves = fd_curves(function)
    at = {
        k: fd_error_curve(
            *FUNCTIONS[function][:2],
            FUNCTIONS[function][2],
            hs,
            scheme=k[0],
            dtype=k[1],
        ).error
        for k in curves
    }
    fig = new_figure((6.4, 4.2), dpi)
    ax = fig.subplots()
    _draw_curves(ax, curves)
    markers = {
        k: ax.plot([], [], "o", color=_COLORS[k], mec="k", ms=7)[0] for k in curves
    }
    vline = ax.axvline(hs[0], color="0.4", lw=0.8, ls="--")
    title = ax.set_title("")
    freeze_layout(fig)

    def draw(i):
        for k, m in markers.items():
            e = at[k][i]
            m.set_data([hs[i]], [e if np.isfinite(e) and e > 0 else 1e-17])
        vline.set_xdata([hs[i], hs[i]])
        best = min(curves, key=lambda k: at[k][i])
        title.set_text(
            f"h = {hs[i]:.0e}: central/float64 error "
            f"{at[('central', 'float64')][i]:.0e}; best here: {best[0]}, {best[1]}"
        )

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(hs))), interval=150, blit=False
    )
    with mpl.rc_context({"animation.frame_format": "png"}):
        return animation_html(anim, fps=6)
