r"""Widget: diffusion steps on a small random graph (Figure F.12.4).

A scalar signal lives on the 15 nodes of an Erdős–Rényi graph. Each step applies one
operator: the heat step :math:`\mathbf{x} \leftarrow \mathbf{x} - \varepsilon
\mathbf{L}\mathbf{x}`, the row-normalised :math:`\mathbf{D}^{-1}\mathbf{A}` (an average
of the neighbours) or the symmetric :math:`\mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2}`
(both with self-loops). The readouts are the Dirichlet energy :math:`\mathbf{x}^\top
\mathbf{L}\mathbf{x}` and the mean; the heat step conserves the mean and flattens the
signal, and diverges once ε passes :math:`2/\lambda_{\max}(\mathbf{L})`.

Three layers: :func:`diffusion_run` (pure), :func:`live_view`, :func:`static_view`.
Book: §12.1.3, Figure F.12.4 (lines 6029-6047).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import (
    freeze_layout,
    new_figure,
    png_bytes as png,
    site_frames,
)
from alice_course.widgets._graph_draw import draw_graph, layout, pyplot_figure

__all__ = ["DiffusionRun", "OPERATORS", "diffusion_run", "live_view", "static_view"]

OPERATORS = ("heat", "row", "sym")


@dataclass(frozen=True)
class DiffusionRun:
    """A (n, n); pos (n, 2); X (steps + 1, n) the signal after each step; energy and
    mean (steps + 1,); eps the heat step size; lam_max the largest eigenvalue of L."""

    operator: str
    A: np.ndarray
    pos: np.ndarray
    X: np.ndarray
    energy: np.ndarray
    mean: np.ndarray
    eps: float
    lam_max: float


def diffusion_run(
    operator: str = "heat",
    steps: int = 30,
    *,
    eps: float = 0.1,
    n: int = 15,
    p: float = 0.25,
    seed: int = 0,
) -> DiffusionRun:
    """Run ``steps`` steps of ``operator`` on a seeded ER graph and random signal.

    >>> diffusion_run("row", 3).X.shape
    (4, 15)
    """
    from alice_lab import graphs as g

    if operator not in OPERATORS:
        raise ValueError(f"operator must be one of {OPERATORS}; got {operator!r}")
    if int(steps) < 0:
        raise ValueError(f"steps must be >= 0; got {steps}")
    A = g.erdos_renyi(n, p, seed=seed)
    x = np.random.default_rng(seed).random(n)
    if operator == "heat":
        X = g.heat_diffusion(A, x, steps, eps=eps, return_all=True)
    else:
        X = g.diffusion(
            g.normalized_adjacency(A, mode=operator), x, steps, return_all=True
        )
    L = g.laplacian(A)
    energy = np.einsum("ti,ij,tj->t", X, L, X)
    return DiffusionRun(operator, A, layout(A, seed), X, energy, X.mean(1), float(eps),
                        float(np.linalg.eigvalsh(L).max()))  # fmt: skip


def _draw(fig, run: DiffusionRun, t: int):
    ax, ax2 = fig.subplots(1, 2, width_ratios=(1.2, 1))
    lo, hi = float(run.X[0].min()), float(run.X[0].max())
    sc = draw_graph(ax, run.A, run.pos, run.X[t], vmin=lo, vmax=hi)
    title = ax.set_title("")
    steps = np.arange(len(run.energy))
    ax2.semilogy(steps, np.maximum(run.energy, 1e-300), color="tab:red", label="xᵀLx")
    ax2.set(xlabel="step", ylabel="Dirichlet energy xᵀLx", title="smoothness")
    (dot,) = ax2.plot([t], [max(run.energy[t], 1e-300)], "o", color="k")
    return sc, title, dot


def _caption(run: DiffusionRun, t: int) -> str:
    x = run.X[t]
    return (f"{run.operator}, step {t}: mean {x.mean():.3f}, std {x.std():.3f}, "
            f"xᵀLx {run.energy[t]:.3g}")  # fmt: skip


class DiffusionExplorer:
    """Live view state: operator dropdown, step and ε sliders, a label, a PNG image."""

    def __init__(self, operator="heat", steps=30, eps=0.1):
        import ipywidgets as w

        self.operator = w.Dropdown(options=list(OPERATORS), value=operator,
                                   description="operator")  # fmt: skip
        self.step = w.IntSlider(value=steps, min=0, max=100, description="steps",
                                continuous_update=False)  # fmt: skip
        self.eps = w.FloatSlider(value=eps, min=0.01, max=0.6, step=0.01,
                                 description="ε (heat)", continuous_update=False)  # fmt: skip  # noqa: E501
        self.label, self.image = w.Label(), w.Image(format="png")
        for c in (self.operator, self.step, self.eps):
            c.observe(lambda _: self.update(), names="value")
        self.widget = w.VBox([w.HBox([self.operator, self.step, self.eps]), self.label,
                              self.image])  # fmt: skip
        self.update()

    def update(self) -> None:
        self.run = diffusion_run(
            self.operator.value, self.step.value, eps=self.eps.value
        )
        fig = new_figure((8, 3.6), 80)
        _draw(fig, self.run, self.step.value)
        warn = (
            "" if self.eps.value < 2 / self.run.lam_max else " (ε > 2/λ_max: diverges)"
        )
        self.label.value = _caption(self.run, self.step.value) + warn
        self.image.value = png(fig)


def live_view(operator: str = "heat", steps: int = 30, eps: float = 0.1):
    """Dropdown for the operator, sliders for the steps and ε; graph + energy plot."""
    ex = DiffusionExplorer(operator, steps, eps)
    ex.widget.explorer = ex
    return ex.widget


def static_view(
    operator: str = "heat", steps: int = 30, *, frames: int = 16, dpi: int = 60
):
    """HTML animation over the steps (≤ 40 frames); no kernel needed."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if not 2 <= int(frames) <= 40:
        raise ValueError(f"frames must lie in 2..40; got {frames}")
    run = diffusion_run(operator, steps)
    ts = np.unique(np.linspace(0, steps, int(frames)).round().astype(int))
    fig = pyplot_figure((7.5, 3.4), dpi)
    sc, title, dot = _draw(fig, run, 0)
    freeze_layout(fig)

    def frame(t):
        sc.set_array(run.X[t])
        dot.set_data([t], [max(run.energy[t], 1e-300)])
        title.set_text(_caption(run, t).split(":")[0] + f": std {run.X[t].std():.3f}")

    return animation_html(FuncAnimation(fig, frame, frames=site_frames(ts)), fps=4)
