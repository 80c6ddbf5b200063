r"""Widget: how GAT and GATv2 rank the neighbours of each node (§12.3.1, line 6249).

On a complete graph of n nodes with random features and weights we compute both
score matrices and, for every central node i (a row), the rank of each neighbour j.
GAT's score :math:`\mathrm{LeakyReLU}(\mathbf{a}_1^\top\mathbf{V}\mathbf{x}_i +
\mathbf{a}_2^\top\mathbf{V}\mathbf{x}_j)` is monotone in the j-term alone, so every
row ranks the neighbours in the same order ("static" attention); GATv2's rows differ.

Three layers: :func:`rankings` (pure), :func:`live_view`, :func:`static_view`.
Book: §12.3.1 (lines 6241-6253).
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
from alice_course.widgets._graph_draw import pyplot_figure

__all__ = ["Rankings", "live_view", "rankings", "static_view"]


@dataclass(frozen=True)
class Rankings:
    """scores1, scores2: (n, n) GAT and GATv2 scores; rank1, rank2: (n, n) rank of
    neighbour j for node i (0 = most attended); distinct1, distinct2: how many
    different orderings the n rows use."""

    scores1: np.ndarray
    scores2: np.ndarray
    rank1: np.ndarray
    rank2: np.ndarray

    @property
    def distinct1(self) -> int:
        return len({tuple(r) for r in self.rank1})

    @property
    def distinct2(self) -> int:
        return len({tuple(r) for r in self.rank2})


def _ranks(S: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(-S, axis=1), axis=1)


def rankings(n: int = 6, c: int = 4, h: int = 16, seed: int = 0) -> Rankings:
    """Scores and neighbour ranks of GAT and GATv2 with seeded random X, V, a.

    >>> rankings(seed=1).distinct1
    1
    """
    from alice_lab.graphs import gat_scores

    if n < 2 or c < 1 or h < 1:
        raise ValueError(f"need n >= 2, c >= 1, h >= 1; got {n}, {c}, {h}")
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, c))
    S1 = gat_scores(X, r.standard_normal((c, h)), r.standard_normal(2 * h))
    S2 = gat_scores(X, r.standard_normal((2 * c, h)), r.standard_normal(h), version=2)
    return Rankings(S1, S2, _ranks(S1), _ranks(S2))


def _draw(fig, R: Rankings):
    axes = fig.subplots(1, 2)
    ims = []
    for ax, rank, name, k in zip(axes, (R.rank1, R.rank2), ("GAT", "GATv2"),
                                 (R.distinct1, R.distinct2), strict=True):  # fmt: skip
        ims.append(ax.imshow(rank, cmap="viridis_r", vmin=0, vmax=len(rank) - 1))
        ax.set(xlabel="neighbour j", ylabel="central node i",
               title=f"{name}: {k} distinct ordering(s)")  # fmt: skip
    fig.colorbar(ims[-1], ax=axes, label="rank of j for i (0 = top)", shrink=0.8)
    return axes, ims


class RankingExplorer:
    """Live view state: seed and width sliders, a label, a PNG image."""

    def __init__(self, n=6, h=16, seed=0):
        import ipywidgets as w

        self.n = w.IntSlider(value=n, min=3, max=12, description="nodes n")
        self.h = w.IntSlider(value=h, min=1, max=64, description="width h")
        self.seed = w.IntSlider(value=seed, min=0, max=50, description="seed")
        self.label, self.image = w.Label(), w.Image(format="png")
        for s in (self.n, self.h, self.seed):
            s.observe(lambda _: self.update(), names="value")
        self.widget = w.VBox(
            [w.HBox([self.n, self.h, self.seed]), self.label, self.image]
        )
        self.update()

    def update(self) -> None:
        self.result = R = rankings(self.n.value, h=self.h.value, seed=self.seed.value)
        fig = new_figure((8, 3.4), 80)
        _draw(fig, R)
        self.label.value = (f"GAT rows share {R.distinct1} ordering(s); GATv2 rows use "
                            f"{R.distinct2} of {self.n.value}")  # fmt: skip
        self.image.value = png(fig)


def live_view(n: int = 6, h: int = 16, seed: int = 0):
    """Sliders for n, h and the seed; the two rank matrices side by side."""
    ex = RankingExplorer(n, h, seed)
    ex.widget.explorer = ex
    return ex.widget


def static_view(n: int = 6, h: int = 16, *, seeds: int = 12, dpi: int = 60):
    """HTML animation over ``seeds`` random draws (≤ 40 frames)."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    if not 2 <= int(seeds) <= 40:
        raise ValueError(f"seeds must lie in 2..40; got {seeds}")
    runs = [rankings(n, h=h, seed=s) for s in range(int(seeds))]
    fig = pyplot_figure((7.5, 3.2), dpi)
    axes, ims = _draw(fig, runs[0])
    freeze_layout(fig)

    def frame(s):
        R = runs[s]
        ims[0].set_data(R.rank1)
        ims[1].set_data(R.rank2)
        axes[0].set_title(f"GAT, seed {s}: {R.distinct1} ordering(s)")
        axes[1].set_title(f"GATv2, seed {s}: {R.distinct2} ordering(s)")

    return animation_html(
        FuncAnimation(fig, frame, frames=site_frames(range(len(runs)))), fps=2
    )
