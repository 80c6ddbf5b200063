"""Drawing helpers shared by the chapter-12 widgets: a fixed layout, edges as one
LineCollection, nodes as one scatter (cheap to update frame by frame). Figures outside
pyplot and PNG rendering come from :mod:`alice_course.widgets._anim`."""

from __future__ import annotations

import numpy as np


def layout(A: np.ndarray, seed: int = 0) -> np.ndarray:
    """(n, 2) node positions from networkx's spring layout with a fixed seed."""
    import networkx as nx

    pos = nx.spring_layout(nx.from_numpy_array(A), seed=seed)
    return np.array([pos[i] for i in range(len(A))])


def draw_graph(ax, A, pos, values, *, cmap="viridis", vmin=None, vmax=None, size=80):
    """Edges in grey, nodes coloured by ``values``; returns the node scatter."""
    from matplotlib.collections import LineCollection

    i, j = np.nonzero(np.triu(A, k=1))
    ax.add_collection(
        LineCollection(
            np.stack([pos[i], pos[j]], axis=1), colors="0.7", lw=0.8, zorder=1
        )
    )
    sc = ax.scatter(pos[:, 0], pos[:, 1], c=values, cmap=cmap, vmin=vmin, vmax=vmax,
                    s=size, edgecolors="k", linewidths=0.5, zorder=2)  # fmt: skip
    ax.set(xticks=[], yticks=[], aspect="equal")
    ax.margins(0.08)
    return sc


def pyplot_figure(figsize, dpi):
    """A pyplot figure (for animations, which close it through pyplot)."""
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, dpi=dpi, layout="constrained")
