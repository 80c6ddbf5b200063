r"""Widget: the receptive field of a stack of k graph convolutions (§12.2.3).

Pick a node i and a depth k: the highlighted nodes are :math:`\mathcal{N}^k(i)`, the
non-zero pattern of row i of :math:`(\mathbf{A}+\mathbf{I})^k`, i.e. the nodes whose
features can change :math:`\mathbf{H}_i` after k layers. At k = the graph's diameter
every node is reached (karate club: 5; the 4×4 patch grid: 6).

Three layers: :func:`receptive_fields` (pure), :func:`live_view`, :func:`static_view`.
Book: §12.2.3, Definition "Graph receptive field" (lines 6143-6147).
"""

from __future__ import annotations

import numpy as np

from alice_course.widgets._anim import (
    freeze_layout,
    new_figure,
    png_bytes as png,
    site_frames,
)
from alice_course.widgets._graph_draw import draw_graph, layout, pyplot_figure

__all__ = ["GRAPHS", "graph", "live_view", "receptive_fields", "static_view"]

GRAPHS = ("karate", "grid")


def graph(name: str = "karate") -> np.ndarray:
    """The karate club (34 nodes) or the 4×4 patch grid (16 nodes)."""
    from alice_lab.graphs import karate_club, patch_grid_adjacency

    if name == "karate":
        return karate_club()[0]
    if name == "grid":
        return patch_grid_adjacency(4)
    raise ValueError(f"graph must be one of {GRAPHS}; got {name!r}")


def receptive_fields(A: np.ndarray, node: int, k_max: int) -> np.ndarray:
    """(k_max + 1, n) boolean: row k marks the nodes within k hops of ``node``
    (:math:`(\\mathbf{A}+\\mathbf{I})^k > 0`, computed by repeated products).

    >>> A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> receptive_fields(A, 0, 2).sum(1).tolist()
    [1, 2, 3]
    """
    n = len(A)
    if not 0 <= node < n:
        raise ValueError(f"node must lie in 0..{n - 1}; got {node}")
    S = (np.asarray(A) != 0) | np.eye(n, dtype=bool)
    reach = np.zeros(n, bool)
    reach[node] = True
    out = [reach]
    for _ in range(int(k_max)):
        reach = (S[reach].any(axis=0)) | reach
        out.append(reach)
    return np.stack(out)


def _caption(fields: np.ndarray, k: int, node: int) -> str:
    n, got = fields.shape[1], int(fields[k].sum())
    full = int(np.argmax(fields.all(axis=1))) if fields[-1].all() else None
    tail = f"; global from k = {full}" if full is not None else ""
    return f"node {node}, k = {k}: {got}/{n} nodes in the receptive field{tail}"


class FieldExplorer:
    """Live view state: graph dropdown, node and k sliders, a label, a PNG image."""

    def __init__(self, name="karate", node=0, k=1):
        import ipywidgets as w

        self.name = w.Dropdown(options=list(GRAPHS), value=name, description="graph")
        self.node = w.IntSlider(value=node, min=0, max=33, description="node i")
        self.k = w.IntSlider(value=k, min=0, max=8, description="layers k")
        self.label, self.image = w.Label(), w.Image(format="png")
        for c in (self.name, self.node, self.k):
            c.observe(lambda _: self.update(), names="value")
        self.widget = w.VBox(
            [w.HBox([self.name, self.node, self.k]), self.label, self.image]
        )
        self.update()

    def update(self) -> None:
        A = graph(self.name.value)
        node = min(self.node.value, len(A) - 1)
        self.fields = receptive_fields(A, node, 8)
        fig = new_figure((4.5, 4), 80)
        ax = fig.subplots()
        vals = self.fields[self.k.value].astype(float)
        vals[node] = 2.0
        draw_graph(ax, A, layout(A), vals, cmap="YlOrRd", vmin=0, vmax=2)
        self.label.value = _caption(self.fields, self.k.value, node)
        self.image.value = png(fig)


def live_view(name: str = "karate", node: int = 0, k: int = 1):
    """Pick the graph, the node and the depth; the reached nodes are coloured."""
    ex = FieldExplorer(name, node, k)
    ex.widget.explorer = ex
    return ex.widget


def static_view(name: str = "karate", node: int = 16, *, dpi: int = 60):
    """HTML animation over k = 0 .. diameter + 1 (≤ 40 frames)."""
    import networkx as nx
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    A = graph(name)
    k_max = nx.diameter(nx.from_numpy_array(A)) + 1
    fields = receptive_fields(A, node, k_max)
    fig = pyplot_figure((4.6, 4.2), dpi)
    ax = fig.subplots()
    vals0 = fields[0].astype(float)
    sc = draw_graph(ax, A, layout(A), vals0, cmap="YlOrRd", vmin=0, vmax=2)
    title = ax.set_title("", fontsize=9)
    freeze_layout(fig)

    def frame(k):
        vals = fields[k].astype(float)
        vals[node] = 2.0
        sc.set_array(vals)
        title.set_text(_caption(fields, k, node))

    return animation_html(
        FuncAnimation(fig, frame, frames=site_frames(range(k_max + 1))), fps=1
    )
