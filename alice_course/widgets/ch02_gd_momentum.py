r"""Widget: gradient descent, with and without momentum, on the chapter-2 function.

Three layers, as every widget in the companion:

- :func:`momentum_paths` and :func:`contour_grid` compute what is drawn (plain NumPy,
  unit-tested);
- :func:`live_view` returns an ipywidgets control built from core widgets only (sliders,
  a label and a PNG image), so it runs in Jupyter and Colab with no extra front-end;
- :func:`static_view` returns a self-contained HTML animation (matplotlib's
  ``to_jshtml``) whose slider steps through the iterations with no kernel: that is what
  the built site shows.

The function is
:math:`f(\mathbf{x}) = \sin x_1\cos x_2 + \sin\frac{x_1}{2}\cos\frac{x_2}{2}`
on :math:`[0, 10]^2` and the update is the book's momentum,
:math:`\mathbf{g}_t = -\eta\nabla f(\mathbf{x}_{t-1}) + \lambda\mathbf{g}_{t-1}`,
:math:`\mathbf{x}_t = \mathbf{x}_{t-1} + \mathbf{g}_t` (λ = 0: plain gradient descent).
Gradient descent is unconstrained, so some paths leave the box; the plots show the box.

Book: §2.3.2 (momentum, lines 1066-1098); "From theory to practice" (lines 1128-1160).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.optim import DivergenceError, gradient_descent
from alice_lab.testfuncs import alice2d, alice2d_grad

__all__ = [
    "MomentumExplorer",
    "MomentumPaths",
    "contour_grid",
    "frame_indices",
    "live_view",
    "momentum_paths",
    "static_view",
    "summary",
]

BOX = (0.0, 10.0)
DEFAULT_STARTS = np.array(
    [[x1, x2] for x2 in (1.5, 5.0, 8.5) for x1 in (1.5, 5.0, 8.5)]
)


# --- layer 1: what is drawn -------------------------------------------------------


@dataclass(frozen=True)
class MomentumPaths:
    """Runs of gradient descent from k starts, padded to a common length.

    Attributes
    ----------
    paths : (k, steps + 1, 2) array, ``paths[i, t]`` = :math:`\\mathbf{x}_t` from
        start i (NaN after a divergence).
    grad_norms : (k, steps + 1) array, :math:`\\lVert\\nabla f(\\mathbf{x}_t)\\rVert`.
    f_final : (k,) array, f at the last finite iterate.
    diverged_at : (k,) int array, the step at which a run diverged, or -1.
    iterations : (k,) int array, the first t with ``grad_norms[i, t] < tol``, or -1.
    """

    lr: float
    momentum: float
    steps: int
    tol: float
    starts: np.ndarray
    paths: np.ndarray
    grad_norms: np.ndarray
    f_final: np.ndarray
    diverged_at: np.ndarray
    iterations: np.ndarray

    @property
    def diverged(self) -> np.ndarray:
        """(k,) bool: which runs diverged."""
        return self.diverged_at >= 0

    @property
    def final(self) -> np.ndarray:
        """(k, 2): the last finite iterate of each run."""
        return np.stack([p[~np.isnan(p[:, 0])][-1] for p in self.paths])


def _run_one(grad_fn: Callable, x0: np.ndarray, lr: float, momentum: float, steps: int):
    """One start; on divergence, the path up to the last finite iterate and its step."""
    try:
        res = gradient_descent(grad_fn, x0, lr=lr, momentum=momentum, steps=steps)
        return np.asarray(res.path), np.asarray(res.grad_norms), -1
    except DivergenceError as err:
        res = gradient_descent(
            grad_fn, x0, lr=lr, momentum=momentum, steps=err.step - 1
        )
        return np.asarray(res.path), np.asarray(res.grad_norms), err.step


def momentum_paths(
    starts: Any,
    *,
    lr: float,
    momentum: float,
    steps: int,
    tol: float = 1e-6,
    f: Callable = alice2d,
    grad_fn: Callable = alice2d_grad,
) -> MomentumPaths:
    r"""Gradient descent with momentum λ from every start, with divergence reported.

    Parameters
    ----------
    starts : (k, 2) array (or (2,) for one start), NumPy.
    lr, momentum, steps : :math:`\eta`, :math:`\lambda \in [0, 1)` and the number of
        updates, as in :func:`alice_lab.optim.gradient_descent`.
    tol : the gradient norm counted as "converged" in ``iterations``.
    f, grad_fn : the function and its gradient, vectorised over rows; the exercise
        function by default.

    Returns
    -------
    MomentumPaths with ``paths (k, steps + 1, 2)``. A run that diverges does not raise:
    its ``diverged_at`` is the failing step and its path is NaN from there on.

    Book: §2.3.2, momentum (lines 1066-1078).

    >>> momentum_paths([[2.0, 2.0]], lr=0.1, momentum=0.3, steps=5).paths.shape
    (1, 6, 2)
    """
    X0 = np.array(starts, dtype=np.float64)
    if X0.ndim == 1:
        X0 = X0[None, :]
    if X0.ndim != 2 or X0.shape[1] != 2 or X0.shape[0] == 0:
        raise ValueError(f"starts must have shape (k, 2) with k >= 1; got {X0.shape}")
    k = X0.shape[0]
    try:
        res = gradient_descent(grad_fn, X0, lr=lr, momentum=momentum, steps=steps)
        paths = np.swapaxes(np.asarray(res.path), 0, 1)  # (T+1, k, 2) -> (k, T+1, 2)
        norms = np.asarray(res.grad_norms).T  # (T+1, k) -> (k, T+1)
        diverged_at = np.full(k, -1)
    except DivergenceError:  # rerun start by start so the others still get drawn
        steps = int(steps)
        paths = np.full((k, steps + 1, 2), np.nan)
        norms = np.full((k, steps + 1), np.nan)
        diverged_at = np.full(k, -1)
        for i in range(k):
            p, g, at = _run_one(grad_fn, X0[i], lr, momentum, steps)
            paths[i, : len(p)], norms[i, : len(g)], diverged_at[i] = p, g, at
    last = np.stack([p[~np.isnan(p[:, 0])][-1] for p in paths])
    below = norms < tol  # NaN compares False
    iterations = np.where(below.any(axis=1), below.argmax(axis=1), -1)
    return MomentumPaths(
        float(lr),
        float(momentum),
        int(steps),
        float(tol),
        X0,
        paths,
        norms,
        np.asarray(f(last)),
        diverged_at,
        iterations,
    )


def contour_grid(n: int = 200, *, f: Callable = alice2d, box: tuple = BOX):
    """The background: f on an ``n × n`` grid over ``box``², as ``(X1, X2, F)``, each
    ``(n, n)`` (``F[i, j] = f(X1[i, j], X2[i, j])``).

    >>> [a.shape for a in contour_grid(5)]
    [(5, 5), (5, 5), (5, 5)]
    """
    if int(n) < 2:
        raise ValueError(f"n must be at least 2; got {n}")
    t = np.linspace(box[0], box[1], int(n))
    X1, X2 = np.meshgrid(t, t)
    F = np.asarray(f(np.stack([X1.ravel(), X2.ravel()], axis=-1))).reshape(X1.shape)
    return X1, X2, F


def summary(run: MomentumPaths, i: int = 0) -> str:
    """One line about run ``i``: final point, f there, iterations (or divergence)."""
    x = run.final[i]
    head = f"η={run.lr:.3g}, λ={run.momentum:.2f}: "
    if run.diverged[i]:
        return (
            head + f"diverged at step {run.diverged_at[i]} (last x = ({x[0]:.3f}, "
            f"{x[1]:.3f})); lower η or λ"
        )
    it = run.iterations[i]
    conv = (
        f"‖∇f‖ < {run.tol:g} after {it} iterations"
        if it >= 0
        else f"‖∇f‖ = {run.grad_norms[i, -1]:.2e} after {run.steps} iterations"
    )
    return (
        head + f"x_T = ({x[0]:.3f}, {x[1]:.3f}), f(x_T) = {run.f_final[i]:.4f}, " + conv
    )


def _background(ax, grid) -> None:
    X1, X2, F = grid
    ax.contourf(X1, X2, F, levels=14, cmap="viridis")
    ax.contour(
        X1,
        X2,
        F,
        levels=14,
        colors="white",
        linewidths=0.4,
        alpha=0.5,
        negative_linestyles="solid",
    )
    ax.set(xlim=BOX, ylim=BOX, xlabel="$x_1$", ylabel="$x_2$", aspect="equal")


def _background_image(grid, pixels: int = 200) -> np.ndarray:
    """The contour background rendered once to an RGBA array: an animation then draws a
    single image per frame instead of dozens of contour collections."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1), dpi=pixels)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    _background(ax, grid)
    ax.set_axis_off()
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()  # (pixels, pixels, 4), top row first


# --- layer 2: the live view -------------------------------------------------------


class MomentumExplorer:
    """The live view's state: sliders, a label, a PNG image of the figure.

    ``widget`` is the ipywidgets box to display; :meth:`update` recomputes everything
    from the slider values (the sliders call it), so tests can set ``.value`` and read
    ``label.value``, ``path_line.get_data()`` and ``norm_line.get_data()``.
    """

    def __init__(self, lr=0.1, momentum=0.3, steps=100, start=(2.0, 2.0), grid_n=120):
        import ipywidgets as w

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.lr = w.FloatLogSlider(
            value=lr,
            base=10,
            min=-3,
            max=0,
            step=0.05,
            description="step size η",
            readout_format=".3f",
            **opts,
        )
        self.momentum = w.FloatSlider(
            value=momentum,
            min=0.0,
            max=0.99,
            step=0.01,
            description="momentum λ",
            **opts,
        )
        self.steps = w.IntSlider(
            value=steps, min=1, max=1000, step=1, description="steps", **opts
        )
        self.x1 = w.FloatSlider(
            value=start[0], min=0.0, max=10.0, step=0.1, description="start x₁", **opts
        )
        self.x2 = w.FloatSlider(
            value=start[1], min=0.0, max=10.0, step=0.1, description="start x₂", **opts
        )
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((9, 4), 80)
        ax, self.norm_ax = self.figure.subplots(1, 2, width_ratios=(1, 1.2))
        _background(ax, contour_grid(grid_n))
        ax.set_title("the path over f (darker = lower)")
        (self.path_line,) = ax.plot(
            [], [], "-", color="tab:red", lw=1.5, marker=".", ms=3
        )
        (self.start_dot,) = ax.plot([], [], "o", color="white", mec="k", ms=7)
        (self.end_dot,) = ax.plot([], [], "*", color="tab:red", mec="k", ms=12)
        (self.norm_line,) = self.norm_ax.semilogy([], [], color="tab:red")
        self.norm_ax.set(
            xlabel="iteration t",
            ylabel=r"$\Vert\nabla f(x_t)\Vert$",
            title="gradient norm",
        )
        self.norm_ax.grid(True, which="both", alpha=0.3)
        self.run: MomentumPaths | None = None
        for s in self.sliders:
            s.observe(self._on_change, names="value")
        controls = w.HBox(
            [w.VBox([self.lr, self.momentum, self.steps]), w.VBox([self.x1, self.x2])]
        )
        self.widget = w.VBox([controls, self.label, self.image])
        self.update()

    @property
    def sliders(self):
        return (self.lr, self.momentum, self.steps, self.x1, self.x2)

    def _on_change(self, change) -> None:
        self.update()

    def compute(self) -> MomentumPaths:
        return momentum_paths(
            [[self.x1.value, self.x2.value]],
            lr=self.lr.value,
            momentum=self.momentum.value,
            steps=self.steps.value,
        )

    def update(self) -> None:
        """Recompute from the sliders; redraw the lines, the label and the image."""
        self.run = run = self.compute()
        path, norms = run.paths[0], run.grad_norms[0]
        self.path_line.set_data(path[:, 0], path[:, 1])
        self.start_dot.set_data(path[:1, 0], path[:1, 1])
        end = run.final[0]
        self.end_dot.set_data([end[0]], [end[1]])
        t = np.arange(len(norms))
        ok = np.isfinite(norms) & (norms > 0)
        self.norm_line.set_data(t[ok], norms[ok])
        self.norm_ax.set_xlim(0, max(run.steps, 1))
        if ok.any():
            lo, hi = norms[ok].min(), norms[ok].max()
            self.norm_ax.set_ylim(max(lo, 1e-16) / 2, hi * 2)
        self.label.value = summary(run)
        self.image.value = png_bytes(self.figure)


def live_view(
    lr: float = 0.1,
    momentum: float = 0.3,
    steps: int = 100,
    start: tuple[float, float] = (2.0, 2.0),
):
    """An ipywidgets box: sliders for η (log scale), λ, steps and the start point; a
    label with the final point, f and the iteration count; the path over a contour of
    f and the gradient norm. Core widgets only (works in Colab).

    The :class:`MomentumExplorer` behind it is ``box.explorer``.
    """
    explorer = MomentumExplorer(lr=lr, momentum=momentum, steps=steps, start=start)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view -----------------------------------------------------


def frame_indices(steps: int, max_frames: int = 60) -> np.ndarray:
    """The iterations shown by the animation: at most ``max_frames``, 0 and ``steps``
    included, evenly spread.

    >>> frame_indices(4).tolist()
    [0, 1, 2, 3, 4]
    """
    n = min(int(steps) + 1, int(max_frames))
    return np.unique(np.round(np.linspace(0, int(steps), n)).astype(int))


def static_view(
    lr: float = 0.1,
    momentums: tuple[float, ...] = (0.0, 0.9),
    steps: int = 60,
    starts: Any = DEFAULT_STARTS,
    *,
    max_frames: int = 60,
    dpi: int = 60,
    fps: int = 8,
):
    """An HTML animation (no kernel needed): one panel per momentum, every start's path
    growing over a contour of f; the built-in slider scrubs through the iterations.

    Returns an ``IPython.display.HTML``; its figure is never registered with pyplot, so
    nothing else is drawn in the notebook.
    """
    import matplotlib as mpl
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    runs = [
        momentum_paths(starts, lr=lr, momentum=lam, steps=steps) for lam in momentums
    ]
    frames = frame_indices(steps, max_frames)
    background = _background_image(contour_grid(100))
    fig = new_figure((4.0 * len(runs), 4.4), dpi)
    axes = np.atleast_1d(fig.subplots(1, len(runs)))
    artists = []
    for ax, run in zip(axes, runs, strict=True):
        ax.imshow(background, extent=(*BOX, *BOX), interpolation="bilinear")
        # few ticks and no mathtext: text layout is most of the cost of a frame
        ax.set(
            xlim=BOX,
            ylim=BOX,
            xticks=[0, 5, 10],
            yticks=[0, 5, 10],
            aspect="equal",
            xlabel="x₁",
            ylabel="x₂",
        )
        name = "plain GD" if run.momentum == 0 else "momentum"
        ax.set_title(f"{name}: η={run.lr:g}, λ={run.momentum:g}", fontsize=10)
        ax.plot(run.starts[:, 0], run.starts[:, 1], "o", color="white", mec="k", ms=5)
        lines = [ax.plot([], [], "-", color="tab:red", lw=1.3)[0] for _ in run.starts]
        (heads,) = ax.plot([], [], "o", color="tab:red", mec="k", ms=5)
        artists.append((run, lines, heads))
    title = fig.suptitle(f"iteration t = {steps}")
    freeze_layout(fig)

    def draw(t):
        for run, lines, heads in artists:
            for line, path in zip(lines, run.paths, strict=True):
                line.set_data(path[: t + 1, 0], path[: t + 1, 1])
            heads.set_data(run.paths[:, t, 0], run.paths[:, t, 1])
        title.set_text(f"iteration t = {t}")

    anim = FuncAnimation(
        fig, draw, frames=site_frames(frames), interval=1000 / fps, blit=False
    )
    # smooth colours: jpeg frames weigh about half as much as png
    with mpl.rc_context({"animation.frame_format": "jpeg"}):
        return animation_html(anim, fps=fps)
