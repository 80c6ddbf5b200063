r"""Widget: the computational graph of a small expression, and its backward pass.

Every Tensor that needs a gradient remembers the primitive and the arguments that
produced it (PyTorch keeps the same information in ``grad_fn``). This widget draws
that graph, leaves on the left and the output on the right, and replays the backward
pass in topological order: at each step one node receives its complete adjoint and
passes it on to its arguments.

- :func:`engine_graph` and :func:`torch_graph` turn a result into nodes and edges with
  a layered layout, :func:`backward_steps` lists the adjoints known after each step
  (pure functions, unit-tested);
- :func:`live_view`: a dropdown of expressions, a slider for the input, a step slider
  for the backward pass;
- :func:`static_view`: an HTML animation of the backward pass on one expression.

Book: §6.4.2 and Figure F.6.3 (line 3178, where the text's rendered part numbers
it F.6.1); "From theory to practice" (line 3240).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.autodiff import backward_pass, toposort
from alice_lab.autodiff.engine import Tensor

__all__ = [
    "PRESETS",
    "Graph",
    "GraphExplorer",
    "backward_steps",
    "build",
    "engine_graph",
    "live_view",
    "static_view",
    "torch_graph",
]


def _diamond(x: float):
    a = Tensor(x, requires_grad=True, name="a")
    b = a * a
    b.name = "b = a·a"
    c = a + b
    c.name = "c = a + b"
    return c, [a]


def _neuron(x: float):
    xs = Tensor(x, requires_grad=True, name="x")
    w = Tensor(0.8, requires_grad=True, name="w")
    b = Tensor(-0.3, requires_grad=True, name="b")
    s = w * xs
    s.name = "w·x"
    z = s + b
    z.name = "z = w·x + b"
    y = np.tanh(z)
    y.name = "y = tanh(z)"
    return y, [xs, w, b]


def _box61(x: float):
    xs = Tensor(x, requires_grad=True, name="x")
    h = np.sin(xs)
    h.name = "h = sin x"
    p = 1.5 * h
    p.name = "a·h"
    q = -2.0 * xs
    q.name = "b·x"
    r = q * h
    r.name = "b·x·h"
    y = p + r
    y.name = "y"
    return y, [xs]


def _exp_diamond(x: float):
    xs = Tensor(x, requires_grad=True, name="x")
    a = np.exp(xs)
    a.name = "a = eˣ"
    b = a * a
    b.name = "a·a"
    y = a + b
    y.name = "y = a + a·a"
    return y, [xs]


#: expressions to draw: name -> builder(x) returning (output, leaves)
PRESETS: dict[str, Callable] = {
    "diamond: c = a + a·a": _diamond,
    "diamond behind a node: y = eˣ + eˣ·eˣ": _exp_diamond,
    "neuron: tanh(w·x + b)": _neuron,
    "Box 6.1: a sin x + b x sin x (a=1.5, b=-2)": _box61,
}


def build(preset: str, x: float = 1.5):
    """``(output, leaves)`` of a preset evaluated at ``x``."""
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {list(PRESETS)}; got {preset!r}")
    return PRESETS[preset](float(x))


@dataclass
class Graph:
    """Nodes (label, value, layer, row) and edges (from, to, multiplicity)."""

    labels: list[str]
    values: list[float]
    layers: list[int]
    rows: list[float]
    edges: list[tuple[int, int, int]]
    index: dict[int, int] = field(default_factory=dict)  # id(node) -> position

    def position(self, i: int) -> tuple[float, float]:
        return float(self.layers[i]), float(self.rows[i])


def _layout(parents: list[list[int]]) -> tuple[list[int], list[float]]:
    """Layer = longest path from a leaf; rows spread evenly within a layer."""
    n = len(parents)
    layer = [0] * n
    for i in range(n):  # nodes come in topological order (inputs first)
        if parents[i]:
            layer[i] = 1 + max(layer[j] for j in parents[i])
    rows = [0.0] * n
    for lay in set(layer):
        members = [i for i in range(n) if layer[i] == lay]
        for k, i in enumerate(members):
            rows[i] = k - (len(members) - 1) / 2
    return layer, rows


def engine_graph(root: Tensor) -> Graph:
    """The graph of an engine Tensor: one node per Tensor requiring a gradient.

    >>> g = engine_graph(build("diamond: c = a + a·a")[0]); g.labels
    ['a', 'b = a·a', 'c = a + b']
    """
    order = toposort(root)[::-1]  # inputs first
    index = {id(t): i for i, t in enumerate(order)}
    parents, edges = [], []
    for i, t in enumerate(order):
        ps = [index[id(p)] for p in t.parents]
        parents.append(sorted(set(ps)))
        edges += [(j, i, ps.count(j)) for j in sorted(set(ps))]
    layers, rows = _layout(parents)
    labels = [t.name or (t.prim.name if t.prim else "leaf") for t in order]
    values = [float(np.sum(t.data)) for t in order]
    return Graph(labels, values, layers, rows, edges, index)


def torch_graph(out) -> Graph:
    """The graph PyTorch records: ``grad_fn`` nodes (``MulBackward0``, ...) and the
    ``AccumulateGrad`` nodes that write leaves' ``.grad``, walked through
    ``next_functions``; drawn inputs first."""
    seen, order, stack = set(), [], [(out.grad_fn, False)]
    while stack:  # iterative post-order: inputs before the nodes that use them
        fn, done = stack.pop()
        if done:
            order.append(fn)
            continue
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        stack.append((fn, True))
        stack.extend((nxt, False) for nxt, _ in fn.next_functions if nxt is not None)
    index = {id(fn): i for i, fn in enumerate(order)}
    parents, edges = [], []
    for i, fn in enumerate(order):
        ps = [index[id(nxt)] for nxt, _ in fn.next_functions if nxt is not None]
        parents.append(sorted(set(ps)))
        edges += [(j, i, ps.count(j)) for j in sorted(set(ps))]
    layers, rows = _layout(parents)
    labels = [type(fn).__name__ for fn in order]
    return Graph(labels, [float("nan")] * len(order), layers, rows, edges, index)


def backward_steps(root: Tensor) -> list[dict[int, float]]:
    """Adjoints known after each step of the backward pass (graph positions ->
    value); step 0 holds only the seed 1 at the output."""
    g = engine_graph(root)
    final = backward_pass(root, np.ones_like(root.data))
    steps, known = [], {}
    for node in toposort(root):  # output first
        known = dict(known)
        known[g.index[id(node)]] = float(np.sum(final[node]))
        steps.append(known)
    return steps


# --- drawing --------------------------------------------------------------------------


def _draw(ax, g: Graph, known: dict[int, float], title: str) -> None:
    ax.cla()
    for j, i, mult in g.edges:
        (x0, y0), (x1, y1) = g.position(j), g.position(i)
        skip = x1 - x0 > 1 and y0 == y1  # would run behind the nodes in between
        ax.annotate(
            "",
            xy=(x1 - 0.15, y1),
            xytext=(x0 + 0.15, y0),
            arrowprops={
                "arrowstyle": "->",
                "color": "0.4",
                "lw": 1.2,
                "connectionstyle": f"arc3,rad={-0.8 if skip else 0.0}",
            },
        )
        if mult > 1:
            ax.text(
                (x0 + x1) / 2,
                (y0 + y1) / 2 - 0.15,
                f"used ×{mult}",
                fontsize=8,
                color="0.3",
                ha="center",
                va="top",
            )
    for i, label in enumerate(g.labels):
        x, y = g.position(i)
        done = i in known
        ax.scatter(
            [x],
            [y],
            s=900,
            color="tab:red" if done else "white",
            edgecolors="k",
            zorder=3,
        )
        value = "" if np.isnan(g.values[i]) else f"\n= {g.values[i]:.3g}"
        ax.text(x, y + 0.32, label + value, ha="center", va="bottom", fontsize=8)
        if done:
            ax.text(
                x,
                y - 0.32,
                f"ḡ = {known[i]:.3g}",
                ha="center",
                va="top",
                fontsize=8,
                color="tab:red",
            )
    lo, hi = min(g.rows) - 1, max(g.rows) + 1.4
    ax.set(xlim=(-0.6, max(g.layers) + 0.6), ylim=(lo, hi), title=title)
    ax.set_axis_off()


# --- layer 2: the live view -----------------------------------------------------------


class GraphExplorer:
    """``preset`` dropdown, ``x`` slider, ``step`` slider (0 = forward values only)."""

    def __init__(self, preset: str | None = None, x: float = 1.5):
        import ipywidgets as w

        self.preset = w.Dropdown(
            options=list(PRESETS),
            value=preset or next(iter(PRESETS)),
            description="expression",
            layout={"width": "420px"},
        )
        self.x = w.FloatSlider(
            value=x,
            min=-2,
            max=2,
            step=0.1,
            description="input",
            continuous_update=False,
        )
        self.step = w.IntSlider(value=0, min=0, max=1, description="backward step")
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((7, 3.8), 80)
        self.ax = self.figure.subplots()
        self.preset.observe(lambda c: self.recompute(), names="value")
        self.x.observe(lambda c: self.recompute(), names="value")
        self.step.observe(lambda c: self.update(), names="value")
        self.widget = w.VBox(
            [self.preset, w.HBox([self.x, self.step]), self.label, self.image]
        )
        self.recompute()

    def recompute(self) -> None:
        self.root, self.leaves = build(self.preset.value, self.x.value)
        self.graph = engine_graph(self.root)
        self.steps = backward_steps(self.root)
        self.step.max = len(self.steps)
        self.update()

    def update(self) -> None:
        k = self.step.value
        known = self.steps[k - 1] if k else {}
        _draw(self.ax, self.graph, known, f"backward step {k} of {len(self.steps)}")
        grads = backward_pass(self.root, np.ones_like(self.root.data))
        leaf_text = ", ".join(
            f"∂/∂{t.name} = {float(np.sum(grads[t])):.4g}"
            for t in self.leaves
            if t in grads
        )
        self.label.value = (
            f"output {float(self.root.data):.4g}; after the full backward pass: "
            + leaf_text
        )
        self.image.value = png_bytes(self.figure)


def live_view(preset: str | None = None, x: float = 1.5):
    """The viewer's box (core ipywidgets); ``box.explorer`` is the state."""
    explorer = GraphExplorer(preset=preset, x=x)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view ---------------------------------------------------------


def static_view(
    preset: str = "diamond behind a node: y = eˣ + eˣ·eˣ", x: float = 0.5, dpi: int = 70
):
    """An HTML animation of the backward pass through one preset (no kernel needed)."""
    import matplotlib as mpl
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    root, _ = build(preset, x)
    g, steps = engine_graph(root), backward_steps(root)
    fig = new_figure((7, 3.8), dpi)
    ax = fig.subplots()

    def draw(k):
        known = steps[k - 1] if k else {}
        _draw(ax, g, known, f"{preset}: backward step {k} of {len(steps)}")

    draw(0)
    freeze_layout(fig)
    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(steps) + 1)), interval=800, blit=False
    )
    with mpl.rc_context({"animation.frame_format": "png"}):
        return animation_html(anim, fps=2)
