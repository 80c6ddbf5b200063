r"""Widget: the reliability diagram of a classifier, under temperature scaling.

Three layers, as every widget in the companion:

- :func:`reliability_at` computes what is drawn: the reliability bins of
  :math:`\mathrm{softmax}(\mathbf{h}/\tau)`, the ECE, the maximum calibration error
  and the accuracy (which :math:`\tau` never changes); :func:`demo_logits` makes a
  deliberately over-confident model (labels drawn from :math:`\mathrm{softmax}(
  \mathbf{z})`, logits :math:`3\mathbf{z}`), so the best temperature is about 3;
- :func:`live_view`: core ipywidgets sliders for :math:`\tau` (log scale) and the
  number of bins, a label, a PNG image;
- :func:`static_view`: an HTML animation sweeping :math:`\tau` for the built site.

Bars above the diagonal are under-confident bins, below it over-confident ones; the
red blocks are the gaps :math:`|a_i - p_i|`, and their sum weighted by
:math:`|\mathcal{B}_i|/n` is the ECE.

Book: §4.3.4, Figure F.4.5 (lines 2090-2120).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.calibration import (
    expected_calibration_error,
    max_calibration_error,
    reliability_bins,
)
from alice_lab.functional import softmax

__all__ = [
    "Reliability",
    "demo_logits",
    "live_view",
    "reliability_at",
    "static_view",
    "summary",
]


@dataclass(frozen=True)
class Reliability:
    """What the diagram shows at one temperature (NumPy arrays).

    tau, n_bins; edges (b + 1,); counts, confidence, accuracy (b,) as in
    :class:`alice_lab.calibration.ReliabilityBins` (NaN for empty bins); ece, mce,
    accuracy_total (floats).
    """

    tau: float
    n_bins: int
    edges: np.ndarray
    counts: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    ece: float
    mce: float
    accuracy_total: float


def demo_logits(
    n: int = 4000, m: int = 5, *, overconfidence: float = 3.0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    r"""An over-confident synthetic classifier: labels y drawn from
    :math:`\mathrm{softmax}(\mathbf{z})` and logits ``overconfidence * z``.

    Returns ``(logits (n, m), labels (n,))``.

    >>> [a.shape for a in demo_logits(10, 3)]
    [(10, 3), (10,)]
    """
    rng = np.random.default_rng(seed)
    z = 2.0 * rng.standard_normal((n, m))
    cdf = np.cumsum(softmax(z), axis=1)
    y = np.minimum((rng.uniform(size=(n, 1)) > cdf).sum(axis=1), m - 1)
    return overconfidence * z, y.astype(np.int64)


def reliability_at(logits: Any, labels: Any, tau: float = 1.0, n_bins: int = 10):
    r"""The reliability diagram of :math:`\mathrm{softmax}(\mathbf{h}/\tau)`.

    >>> h, y = demo_logits(500)
    >>> r = reliability_at(h, y, tau=3.0)
    >>> int(r.counts.sum()), r.ece < reliability_at(h, y).ece
    (500, True)
    """
    h = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels)
    P = softmax(h, tau=tau)
    conf, pred = P.max(axis=1), P.argmax(axis=1)
    bins = reliability_bins(conf, pred == y, n_bins=n_bins)
    return Reliability(
        float(tau),
        int(n_bins),
        np.asarray(bins.edges),
        np.asarray(bins.counts),
        np.asarray(bins.confidence),
        np.asarray(bins.accuracy),
        float(expected_calibration_error(P, y, n_bins=n_bins)),
        float(max_calibration_error(P, y, n_bins=n_bins)),
        float(np.mean(pred == y)),
    )


def summary(r: Reliability) -> str:
    """One line: τ, ECE, MCE and accuracy."""
    return (
        f"τ = {r.tau:.3g}, {r.n_bins} bins: ECE = {r.ece:.4f}, max gap = {r.mce:.4f}, "
        f"accuracy = {r.accuracy_total:.4f} (the same at every τ)"
    )


class _Diagram:
    """The two panels: reliability bars with red gaps, and the confidence histogram."""

    def __init__(self, fig, n_bins_max: int = 30):
        self.ax, self.hist_ax = fig.subplots(
            1, 2, width_ratios=(1.3, 1), gridspec_kw={"wspace": 0.1}
        )
        self.ax.plot([0, 1], [0, 1], "--", color="k", lw=0.8)
        self.ax.set(
            xlim=(0, 1),
            ylim=(0, 1),
            xlabel="confidence",
            ylabel="accuracy",
            title="reliability diagram",
        )
        self.hist_ax.set(xlim=(0, 1), xlabel="confidence", title="predictions per bin")
        self.acc_bars = self.ax.bar(
            np.zeros(n_bins_max),
            np.zeros(n_bins_max),
            align="edge",
            color="tab:blue",
            edgecolor="k",
            lw=0.5,
            label="accuracy aᵢ",
        )
        self.gap_bars = self.ax.bar(
            np.zeros(n_bins_max),
            np.zeros(n_bins_max),
            align="edge",
            color="tab:red",
            alpha=0.45,
            label="gap |aᵢ − pᵢ|",
        )
        self.ax.legend(loc="upper left", fontsize=8)
        self.count_bars = self.hist_ax.bar(
            np.zeros(n_bins_max), np.zeros(n_bins_max), align="edge", color="0.6"
        )

    def show(self, r: Reliability) -> None:
        width = 1.0 / r.n_bins
        top = max(float(np.max(r.counts)), 1.0)
        for k in range(len(self.acc_bars)):
            inside = k < r.n_bins and r.counts[k] > 0
            left = k * width
            a = r.accuracy[k] if inside else 0.0
            p = r.confidence[k] if inside else 0.0
            self.acc_bars[k].set(x=left, width=width, height=a, visible=inside)
            self.gap_bars[k].set(
                x=left, width=width, y=min(a, p), height=abs(a - p), visible=inside
            )
            self.count_bars[k].set(
                x=left,
                width=width,
                height=r.counts[k] if k < r.n_bins else 0.0,
                visible=k < r.n_bins,
            )
        self.hist_ax.set_ylim(0, 1.05 * top)


# --- layer 2: the live view ---------------------------------------------------------


class ReliabilityExplorer:
    """Sliders for τ and the number of bins, a label and a PNG image; :meth:`update`
    recomputes (the sliders call it), so tests can set ``.value`` and read
    ``label.value`` and the bar heights of ``diagram``."""

    def __init__(self, logits=None, labels=None, tau: float = 1.0, n_bins: int = 10):
        import ipywidgets as w

        if logits is None:
            logits, labels = demo_logits()
        self.logits, self.labels = np.asarray(logits), np.asarray(labels)
        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.tau = w.FloatLogSlider(
            value=tau,
            base=10,
            min=-1,
            max=1,
            step=0.02,
            description="temperature τ",
            **opts,
        )
        self.n_bins = w.IntSlider(
            value=n_bins, min=2, max=30, step=1, description="bins b", **opts
        )
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((8, 3.4), 80)
        self.diagram = _Diagram(self.figure)
        self.result: Reliability | None = None
        for s in (self.tau, self.n_bins):
            s.observe(self._on_change, names="value")
        self.widget = w.VBox([w.HBox([self.tau, self.n_bins]), self.label, self.image])
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def update(self) -> None:
        self.result = r = reliability_at(
            self.logits, self.labels, self.tau.value, self.n_bins.value
        )
        self.diagram.show(r)
        self.label.value = summary(r)
        self.image.value = png_bytes(self.figure)


def live_view(logits=None, labels=None, tau: float = 1.0, n_bins: int = 10):
    """An ipywidgets box with sliders for τ (0.1 … 10, log scale) and the number of
    bins; the reliability diagram with its gaps and the histogram of confidences; a
    label with ECE, maximum gap and accuracy. Defaults to :func:`demo_logits`.

    The :class:`ReliabilityExplorer` behind it is ``box.explorer``.
    """
    explorer = ReliabilityExplorer(logits, labels, tau=tau, n_bins=n_bins)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view -------------------------------------------------------


def static_view(
    logits=None,
    labels=None,
    *,
    taus: Any = None,
    n_bins: int = 10,
    dpi: int = 60,
    fps: int = 4,
):
    """An HTML animation (no kernel needed): the reliability diagram as τ sweeps from
    0.5 to 6 (default 30 frames), with ECE and accuracy in the title. Returns an
    ``IPython.display.HTML``; its figure never reaches pyplot."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if logits is None:
        logits, labels = demo_logits()
    taus = np.logspace(np.log10(0.5), np.log10(6.0), 30) if taus is None else taus
    taus = np.asarray(taus, dtype=float)
    if not 1 <= len(taus) <= 60:
        raise ValueError(f"an animation needs 1 to 60 temperatures; got {len(taus)}")
    results = [reliability_at(logits, labels, t, n_bins) for t in taus]
    fig = new_figure((8, 3.4), dpi)
    diagram = _Diagram(fig, n_bins_max=n_bins)
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(i):
        r = results[i]
        diagram.show(r)
        title.set_text(
            f"τ = {r.tau:.2f}: ECE = {r.ece:.3f}, accuracy = {r.accuracy_total:.3f}"
        )

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(results))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
