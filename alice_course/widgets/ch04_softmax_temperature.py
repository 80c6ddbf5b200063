r"""Widget: the softmax with a temperature, as bars and as a point in the simplex.

Three layers, as every widget in the companion:

- :func:`softmax_path` computes what is drawn: :math:`\mathrm{softmax}(\mathbf{x}/\tau)`
  for a range of temperatures, its entropy, and the point's position in the triangle
  of three-class distributions (:func:`simplex_xy`), all plain NumPy;
- :func:`live_view` returns core ipywidgets (three logit sliders, a log-scale slider
  for :math:`\tau`, a label, a PNG image), so it runs in Jupyter and Colab;
- :func:`static_view` returns a self-contained HTML animation sweeping :math:`\tau`
  from 0.05 to 100, with its own slider, for the built site.

As :math:`\tau \to 0` the point runs to the vertex of the largest logit (the argmax);
as :math:`\tau \to \infty` it runs to the centre, the uniform distribution
:math:`1/m` (the book prints 1/c, erratum E4-06). The order of the bars never changes.

Book: §4.2.1, the softmax and its temperature (lines 1670-1776), Figure F.4.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.functional import softmax

__all__ = [
    "SoftmaxPath",
    "live_view",
    "simplex_xy",
    "softmax_path",
    "static_view",
    "summary",
]

#: the triangle's corners: class 1 bottom left, class 2 bottom right, class 3 on top
VERTICES = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
DEFAULT_X = (1.0, 2.0, -0.5)


@dataclass(frozen=True)
class SoftmaxPath:
    """Softmax of one logit vector at k temperatures.

    x : (m,) the logits; taus : (k,) the temperatures;
    probs : (k, m) ``softmax(x / tau)`` row by row;
    entropy : (k,) in nats, between 0 and log m;
    xy : (k, 2) the position in the triangle (only for m = 3, else None).
    """

    x: np.ndarray
    taus: np.ndarray
    probs: np.ndarray
    entropy: np.ndarray
    xy: np.ndarray | None


def simplex_xy(p: Any) -> np.ndarray:
    r"""Barycentric coordinates to the plane: a distribution over three classes
    :math:`(p_1, p_2, p_3)` is the point :math:`\sum_i p_i \mathbf{v}_i` of the
    triangle with corners :data:`VERTICES` (a vertex is a one-hot vector).

    (..., 3) -> (..., 2).

    >>> simplex_xy([1.0, 0.0, 0.0]).tolist()
    [0.0, 0.0]
    """
    p = np.asarray(p, dtype=np.float64)
    if p.shape[-1] != 3:
        raise ValueError(f"simplex_xy needs 3 probabilities; got shape {p.shape}")
    return p @ VERTICES


def softmax_path(x: Any = DEFAULT_X, taus: Any = None) -> SoftmaxPath:
    r"""The softmax of ``x`` at every temperature in ``taus`` (default 40 values from
    0.05 to 100 on a log scale).

    >>> softmax_path([1.0, 2.0, -0.5], [1.0]).probs.round(3).tolist()
    [[0.254, 0.69, 0.057]]
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.shape[0] < 2:
        raise ValueError(
            f"x must be a vector of at least 2 logits; got shape {x.shape}"
        )
    taus = (
        np.logspace(np.log10(0.05), 2, 40) if taus is None else np.asarray(taus, float)
    )
    if taus.ndim != 1 or not np.all(taus > 0):
        raise ValueError("taus must be a 1-D array of positive temperatures")
    probs = np.stack([softmax(x, tau=t) for t in taus])  # (k, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.sum(np.where(probs > 0, probs * np.log(probs), 0.0), axis=1)
    xy = simplex_xy(probs) if x.shape[0] == 3 else None
    return SoftmaxPath(x, taus, probs, ent, xy)


def summary(path: SoftmaxPath, i: int = 0) -> str:
    """One line: τ, the probabilities, the entropy against its maximum log m."""
    p = path.probs[i]
    m = len(p)
    shown = ", ".join(f"{v:.3f}" for v in p)
    return (
        f"τ = {path.taus[i]:.3g}: softmax = [{shown}], entropy {path.entropy[i]:.3f} "
        f"of at most log {m} = {np.log(m):.3f}; argmax = class {int(np.argmax(p)) + 1}"
    )


def _draw_triangle(ax) -> None:
    tri = np.vstack([VERTICES, VERTICES[:1]])
    ax.plot(tri[:, 0], tri[:, 1], color="0.3", lw=1)
    for k, (vx, vy) in enumerate(VERTICES):
        ax.annotate(
            f"class {k + 1}",
            (vx, vy),
            textcoords="offset points",
            xytext=(0, 6 if k == 2 else -13),
            ha="center",
            fontsize=8,
        )
    c = VERTICES.mean(axis=0)
    ax.plot([c[0]], [c[1]], "+", color="0.4", ms=8)
    ax.set(xlim=(-0.1, 1.1), ylim=(-0.15, 1.0), aspect="equal")
    ax.set_axis_off()


# --- layer 2: the live view ---------------------------------------------------------


class SoftmaxExplorer:
    """The live view's state: three logit sliders, a log slider for τ, a label and a
    PNG image. :meth:`update` recomputes from the sliders (they call it), so tests can
    set ``.value`` and read ``label.value``, ``bars`` heights and ``point``."""

    def __init__(self, x=DEFAULT_X, tau: float = 1.0):
        import ipywidgets as w

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.logits = [
            w.FloatSlider(
                value=v, min=-5.0, max=5.0, step=0.1, description=f"x{k + 1}", **opts
            )
            for k, v in enumerate(x)
        ]
        self.tau = w.FloatLogSlider(
            value=tau, base=10, min=-2, max=2, step=0.05, description="τ", **opts
        )
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((8, 3.2), 80)
        self.ax_in, self.ax_out, self.ax_tri = self.figure.subplots(1, 3)
        idx = np.arange(3)
        self.in_bars = self.ax_in.bar(idx, x, color="tab:gray")
        self.ax_in.axhline(0, color="k", lw=0.8)
        self.ax_in.set(
            title="logits x", xticks=idx, xticklabels=["1", "2", "3"], ylim=(-5.5, 5.5)
        )
        self.bars = self.ax_out.bar(idx, [1 / 3] * 3, color="tab:blue")
        self.ax_out.set(
            title="softmax(x / τ)", xticks=idx, xticklabels=["1", "2", "3"], ylim=(0, 1)
        )
        _draw_triangle(self.ax_tri)
        self.ax_tri.set_title("in the simplex")
        (self.trail,) = self.ax_tri.plot([], [], "-", color="tab:blue", lw=1, alpha=0.6)
        (self.point,) = self.ax_tri.plot([], [], "o", color="tab:red", mec="k", ms=8)
        for s in self.sliders:
            s.observe(self._on_change, names="value")
        self.widget = w.VBox(
            [w.HBox([w.VBox(self.logits), w.VBox([self.tau])]), self.label, self.image]
        )
        self.update()

    @property
    def sliders(self):
        return (*self.logits, self.tau)

    def _on_change(self, change) -> None:
        self.update()

    def update(self) -> None:
        x = np.array([s.value for s in self.logits])
        here = softmax_path(x, [self.tau.value])
        sweep = softmax_path(x)
        for bar, v in zip(self.in_bars, x, strict=True):
            bar.set_height(v)
        for bar, v in zip(self.bars, here.probs[0], strict=True):
            bar.set_height(v)
        self.trail.set_data(sweep.xy[:, 0], sweep.xy[:, 1])
        self.point.set_data(here.xy[:, 0], here.xy[:, 1])
        self.label.value = summary(here)
        self.image.value = png_bytes(self.figure)


def live_view(x: tuple[float, float, float] = DEFAULT_X, tau: float = 1.0):
    """An ipywidgets box: sliders for three logits and for τ (log scale); the bars of
    the input and of its softmax, and the point in the triangle of distributions with
    the whole path τ = 0.05 … 100. Core widgets only (works in Colab).

    The :class:`SoftmaxExplorer` behind it is ``box.explorer``.
    """
    explorer = SoftmaxExplorer(x=x, tau=tau)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view -------------------------------------------------------


def static_view(
    x: tuple[float, float, float] = DEFAULT_X,
    *,
    frames: int = 40,
    dpi: int = 60,
    fps: int = 6,
):
    """An HTML animation (no kernel needed) sweeping τ from 0.05 to 100: the softmax
    bars, the entropy, and the point travelling from the argmax vertex to the centre
    of the triangle. Returns an ``IPython.display.HTML``; its figure never reaches
    pyplot.
    """
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if not 1 <= int(frames) <= 60:
        raise ValueError(f"frames must lie in 1..60; got {frames}")
    path = softmax_path(x, np.logspace(np.log10(0.05), 2, int(frames)))
    fig = new_figure((8.4, 3.0), dpi)
    ax_bar, ax_ent, ax_tri = fig.subplots(1, 3)
    idx = np.arange(3)
    bars = ax_bar.bar(idx, path.probs[0], color="tab:blue")
    ax_bar.set(
        ylim=(0, 1), xticks=idx, xticklabels=["1", "2", "3"], title="softmax(x/τ)"
    )
    ax_ent.semilogx(path.taus, path.entropy, color="0.6")
    ax_ent.axhline(np.log(3), ls="--", color="k", lw=0.8)
    ax_ent.set(xlabel="τ", ylabel="entropy (nats)", title="entropy → log 3")
    (ent_dot,) = ax_ent.plot([], [], "o", color="tab:red")
    _draw_triangle(ax_tri)
    ax_tri.plot(path.xy[:, 0], path.xy[:, 1], "-", color="tab:blue", lw=1, alpha=0.5)
    (dot,) = ax_tri.plot([], [], "o", color="tab:red", mec="k", ms=8)
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(i):
        for bar, v in zip(bars, path.probs[i], strict=True):
            bar.set_height(v)
        ent_dot.set_data([path.taus[i]], [path.entropy[i]])
        dot.set_data(path.xy[i : i + 1, 0], path.xy[i : i + 1, 1])
        title.set_text(f"x = {list(x)}, τ = {path.taus[i]:.3g}")

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(path.taus))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
