r"""Widget: the XOR problem, a line against a hidden layer (Figure F.5.1).

Three layers, as every widget in the companion:

- :func:`line_accuracy`, :func:`best_line_accuracy`, :func:`train_mlp` and
  :func:`decision_grid` compute what is drawn (NumPy, unit-tested);
- :func:`live_view` returns core ipywidgets: sliders for a line
  :math:`w_1 x_1 + w_2 x_2 + b = 0` with its accuracy on the four XOR points (it never
  exceeds 3/4), and an MLP mode with a width, an activation and a "train" button that
  draws the learned decision regions;
- :func:`static_view` returns an HTML animation for the built site: on the left the
  line turns through every direction (with the best offset for each) and its accuracy
  stays at or below 3/4; on the right an MLP with two hidden ReLU units learns the
  regions step by step.

The data: the book's four points :math:`\{0, 1\}^2` with label 1 when exactly one
coordinate is 1, and for training a cloud of 50 noisy copies of each.

Book: §5.1, Figure F.5.1 (lines 2208-2214); §5.2 (lines 2238-2244).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_course.widgets.ch02_gd_momentum import frame_indices
from alice_lab.backend import check_int

__all__ = [
    "CORNERS",
    "LABELS",
    "MLPRun",
    "XORPlayground",
    "best_line_accuracy",
    "best_offset",
    "decision_grid",
    "line_accuracy",
    "live_view",
    "static_view",
    "train_mlp",
    "xor_cloud",
]

CORNERS = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
LABELS = np.array([0, 1, 1, 0])
BOX = (-0.5, 1.5)


def xor_cloud(per_corner: int = 50, noise: float = 0.12, seed: int = 0):
    """Noisy copies of the four XOR points: X (4 r, 2), y (4 r,) in {0, 1}.

    >>> X, y = xor_cloud(2, noise=0.0)
    >>> X[:4].tolist(), y[:4].tolist()
    ([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], [0, 1, 1, 0])
    """
    rng = np.random.default_rng(seed)
    idx = np.tile(np.arange(4), int(per_corner))
    return CORNERS[idx] + noise * rng.standard_normal((len(idx), 2)), LABELS[idx]


# --- layer 1: what is drawn --------------------------------------------------------


def line_accuracy(w1: float, w2: float, b: float, X: Any = CORNERS, y: Any = LABELS):
    r"""The accuracy of the linear classifier "class 1 when
    :math:`w_1 x_1 + w_2 x_2 + b > 0`" on (X, y).

    >>> line_accuracy(1.0, 1.0, -0.5)  # (0, 1), (1, 0) and (1, 1) on the positive side
    0.75
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"expected X (n, 2) and y (n,); got {X.shape} and {y.shape}")
    return float(np.mean((X @ np.array([w1, w2]) + b > 0) == (y == 1)))


def best_offset(theta: float, X: Any = CORNERS, y: Any = LABELS) -> tuple[float, float]:
    """For the direction (cos θ, sin θ), the offset b with the best accuracy (trying
    every gap between consecutive projections), and that accuracy.

    >>> best_offset(np.pi / 4)[1]
    0.75
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    w = np.array([np.cos(theta), np.sin(theta)])
    p = np.sort(X @ w)
    cuts = np.concatenate([[p[0] - 1.0], (p[1:] + p[:-1]) / 2, [p[-1] + 1.0]])
    accs = [line_accuracy(w[0], w[1], -t, X, y) for t in cuts]
    k = int(np.argmax(accs))
    return float(-cuts[k]), float(accs[k])


def best_line_accuracy(X: Any = CORNERS, y: Any = LABELS, n_dirs: int = 720) -> float:
    """The best accuracy of any line (and either orientation) on (X, y), by brute force
    over ``n_dirs`` directions in [0, 2π); 3/4 on the four XOR points.

    >>> best_line_accuracy()
    0.75
    """
    thetas = np.linspace(0, 2 * np.pi, int(n_dirs), endpoint=False)
    return max(best_offset(t, X, y)[1] for t in thetas)


@dataclass(frozen=True)
class MLPRun:
    """An MLP trained on the XOR cloud by full-batch gradient descent.

    ``snapshots[k]`` are the parameters after ``steps_at[k]`` steps; ``losses`` the
    cross-entropy at every step; ``accuracy`` the final one on the four corners.
    """

    hidden: int
    activation: str
    snapshots: list
    steps_at: np.ndarray
    losses: np.ndarray
    accuracy: float


def train_mlp(
    hidden: int = 2,
    activation: str = "relu",
    *,
    steps: int = 300,
    lr: float = 0.5,
    seed: int = 0,
    n_snapshots: int = 30,
) -> MLPRun:
    """Train a 2-``hidden``-2 MLP (cross-entropy) on :func:`xor_cloud` with plain
    gradient descent, keeping ``n_snapshots`` evenly spread copies of the parameters.

    >>> run = train_mlp(4, steps=200)
    >>> run.accuracy
    1.0
    """
    from alice_lab.layers import mlp_forward, mlp_init, mlp_value_and_grad
    from alice_lab.optim import sgd_step

    hidden = check_int(hidden, "hidden")
    X, y = xor_cloud(seed=seed)
    params = mlp_init([2, hidden, 2], seed=seed, scheme="he")
    keep = set(frame_indices(steps, n_snapshots).tolist())
    snaps, at, losses = [], [], []
    for t in range(int(steps) + 1):
        value, grads = mlp_value_and_grad(params, X, y, phi=activation)
        losses.append(float(value))
        if t in keep:
            snaps.append(params)
            at.append(t)
        if t < steps:
            params = sgd_step(params, grads, lr=lr)
    pred = np.argmax(mlp_forward(params, CORNERS, phi=activation), axis=1)
    acc = float(np.mean(pred == LABELS))
    return MLPRun(
        int(hidden), activation, snaps, np.asarray(at), np.asarray(losses), acc
    )


def decision_grid(params: Any, activation: str = "relu", n: int = 80):
    """The MLP's probability of class 1 on an ``n × n`` grid over the box:
    ``(X1, X2, P)``, each (n, n).

    >>> [a.shape for a in decision_grid(train_mlp(2, steps=1).snapshots[0], n=5)]
    [(5, 5), (5, 5), (5, 5)]
    """
    from alice_lab.functional import softmax
    from alice_lab.layers import mlp_forward

    t = np.linspace(*BOX, int(n))
    X1, X2 = np.meshgrid(t, t)
    grid = np.column_stack([X1.ravel(), X2.ravel()])
    P = softmax(mlp_forward(params, grid, phi=activation), axis=-1)[:, 1]
    return X1, X2, P.reshape(X1.shape)


# --- drawing helpers ---------------------------------------------------------------


def _points(ax) -> None:
    ax.plot(
        *CORNERS[LABELS == 0].T, "s", color="tab:green", ms=11, mec="k", label="class 0"
    )
    ax.plot(
        *CORNERS[LABELS == 1].T, "o", color="tab:red", ms=11, mec="k", label="class 1"
    )
    ax.set(xlim=BOX, ylim=BOX, aspect="equal", xlabel="x₁", ylabel="x₂")


def _line_xy(w1: float, w2: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Two far-apart points of the line w1 x1 + w2 x2 + b = 0 (for plotting)."""
    w = np.array([w1, w2])
    norm = np.linalg.norm(w)
    if norm == 0:
        return np.array([np.nan, np.nan]), np.array([np.nan, np.nan])
    p0 = -b * w / norm**2  # closest point to the origin
    d = np.array([-w[1], w[0]]) / norm
    ends = p0 + np.outer([-10.0, 10.0], d)
    return ends[:, 0], ends[:, 1]


# --- layer 2: the live view --------------------------------------------------------


class XORPlayground:
    """The live view's state. ``widget`` is the box to display; :meth:`update` redraws
    from the controls (tests set ``.value`` and read ``label.value`` and the line data).
    """

    def __init__(self, w1=1.0, w2=1.0, b=-0.5, hidden=3, activation="relu", steps=300):
        import ipywidgets as w

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.w1 = w.FloatSlider(
            value=w1, min=-3, max=3, step=0.05, description="w₁", **opts
        )
        self.w2 = w.FloatSlider(
            value=w2, min=-3, max=3, step=0.05, description="w₂", **opts
        )
        self.b = w.FloatSlider(
            value=b, min=-3, max=3, step=0.05, description="b", **opts
        )
        self.hidden = w.IntSlider(
            value=hidden, min=1, max=16, description="hidden units", **opts
        )
        self.activation = w.Dropdown(
            options=["relu", "tanh", "sigmoid", "gelu", "identity"],
            value=activation,
            description="φ",
        )
        self.steps = steps
        self.train_button = w.Button(description="train the MLP")
        self.label = w.Label()
        self.mlp_label = w.Label(value="MLP: press 'train'")
        self.image = w.Image(format="png")
        self.figure = new_figure((8.5, 4), 80)
        self.ax_line, self.ax_mlp = self.figure.subplots(1, 2)
        _points(self.ax_line)
        (self.line,) = self.ax_line.plot([], [], "-", color="tab:blue", lw=2)
        _points(self.ax_mlp)
        self.ax_mlp.set_title("MLP decision regions")
        self.run: MLPRun | None = None
        self._mesh = None
        for s in (self.w1, self.w2, self.b):
            s.observe(lambda change: self.update(), names="value")
        self.train_button.on_click(lambda button: self.train())
        self.widget = w.VBox(
            [
                w.HBox(
                    [
                        w.VBox([self.w1, self.w2, self.b]),
                        w.VBox([self.hidden, self.activation, self.train_button]),
                    ]
                ),
                self.label,
                self.mlp_label,
                self.image,
            ]
        )
        self.update()

    def train(self) -> MLPRun:
        """Train the MLP with the current width and activation; draw its regions."""
        self.run = run = train_mlp(
            self.hidden.value, self.activation.value, steps=self.steps
        )
        X1, X2, P = decision_grid(run.snapshots[-1], run.activation)
        if self._mesh is not None:
            self._mesh.remove()
        self._mesh = self.ax_mlp.contourf(
            X1, X2, P, levels=[0, 0.5, 1], colors=["#cfe8cf", "#f5c6c6"], zorder=0
        )
        self.mlp_label.value = (
            f"MLP 2-{run.hidden}-2 ({run.activation}), {self.steps} steps: accuracy "
            f"{run.accuracy:.2f} on the four points, final loss {run.losses[-1]:.3f}"
        )
        self.update()
        return run

    def update(self) -> None:
        w1, w2, b = self.w1.value, self.w2.value, self.b.value
        self.line.set_data(*_line_xy(w1, w2, b))
        acc = line_accuracy(w1, w2, b)
        self.ax_line.set_title(f"line: accuracy {acc:.2f}")
        self.label.value = (
            f"line {w1:+.2f}·x₁ {w2:+.2f}·x₂ {b:+.2f} = 0: accuracy {acc:.2f} on the "
            f"four XOR points (no line does better than 0.75)"
        )
        self.image.value = png_bytes(self.figure)


def live_view(w1=1.0, w2=1.0, b=-0.5, hidden=3, activation="relu", steps=300):
    """Core-ipywidgets view: line sliders with the accuracy readout, and an MLP you can
    train; the :class:`XORPlayground` behind it is ``box.playground``."""
    playground = XORPlayground(w1, w2, b, hidden, activation, steps)
    box = playground.widget
    box.playground = playground
    return box


# --- layer 3: the static view ------------------------------------------------------


def static_view(
    *,
    hidden: int = 3,
    steps: int = 300,
    max_frames: int = 40,
    dpi: int = 60,
    fps: int = 6,
):
    """An HTML animation (no kernel): a line sweeping every direction with its best
    offset (accuracy ≤ 3/4) beside an MLP with ``hidden`` ReLU units learning XOR."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    run = train_mlp(hidden, "relu", steps=steps, n_snapshots=max_frames)
    thetas = np.linspace(0, 2 * np.pi, len(run.snapshots), endpoint=False)
    offsets = [best_offset(t) for t in thetas]
    fig = new_figure((8.0, 4.2), dpi)
    ax_line, ax_mlp = fig.subplots(1, 2)
    for ax in (ax_line, ax_mlp):
        _points(ax)
        ax.set(xticks=[0, 1], yticks=[0, 1])
    (line,) = ax_line.plot([], [], "-", color="tab:blue", lw=2)
    image = ax_mlp.imshow(
        np.zeros((60, 60)),
        extent=(*BOX, *BOX),
        origin="lower",
        cmap="RdYlGn_r",
        vmin=0,
        vmax=1,
        alpha=0.45,
    )
    title_l = ax_line.set_title("")
    title_r = ax_mlp.set_title("")
    freeze_layout(fig)

    def draw(k):
        w = np.array([np.cos(thetas[k]), np.sin(thetas[k])])
        b, acc = offsets[k]
        line.set_data(*_line_xy(w[0], w[1], b))
        title_l.set_text(f"best line at {np.degrees(thetas[k]):.0f}°: acc {acc:.2f}")
        _, _, P = decision_grid(run.snapshots[k], "relu", n=60)
        image.set_data(P)
        title_r.set_text(f"MLP 2-{hidden}-2, step {run.steps_at[k]}")

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(run.snapshots))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
