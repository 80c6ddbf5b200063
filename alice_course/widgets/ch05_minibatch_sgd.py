r"""Widget: mini-batches and the batch size of SGD (§5.3, Figure F.5.2).

Three layers, as every widget in the companion:

- :func:`schedule` lays out which mini-batch every example falls in, epoch after
  epoch (the picture of Figure F.5.2), and :func:`sgd_curves` trains a small MLP on
  two moons with :func:`alice_lab.optim.sgd` for a batch size r, recording the loss on
  the whole dataset after every epoch and the variance of the mini-batch gradient at
  the start (NumPy, unit-tested);
- :func:`live_view` returns core ipywidgets: sliders for r, the learning rate and the
  number of epochs, a shuffle toggle, and a label counting the iterations;
- :func:`static_view` returns an HTML animation whose slider steps r from 1 to n,
  for the built site: small batches mean many cheap, noisy steps per epoch; large ones
  few, precise steps.

Book: §5.3, eq. E.5.8 and Figure F.5.2 (lines 2342-2396).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames

__all__ = [
    "SGDCurves",
    "MinibatchExplorer",
    "batch_sizes",
    "draw_strip",
    "live_view",
    "schedule",
    "sgd_curves",
    "static_view",
]

N = 200  # two moons


def schedule(
    n: int, r: int, epochs: int, *, seed: int | None = 0, drop_last: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The mini-batch sequence of Figure F.5.2.

    Returns
    -------
    order : (epochs, n) int array, the examples in the order SGD visits them (epoch e
        shuffled with ``seed + e``, as :func:`alice_lab.optim.sgd` does).
    batch : (epochs, n) int array, the global number of the mini-batch of each
        position (1, 2, ..., b in epoch 1, b + 1, ..., 2b in epoch 2, ...), 0 for the
        examples ``drop_last`` skips.

    >>> order, batch = schedule(6, 2, 2, seed=None)
    >>> batch.tolist()
    [[1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6]]
    """
    from alice_lab.data import minibatches

    order = np.zeros((epochs, n), dtype=np.int64)
    batch = np.zeros((epochs, n), dtype=np.int64)
    count = 0
    for e in range(int(epochs)):
        pos = 0
        s = None if seed is None else seed + e
        for idx in minibatches(n, r, seed=s, drop_last=drop_last):
            count += 1
            order[e, pos : pos + len(idx)] = idx
            batch[e, pos : pos + len(idx)] = count
            pos += len(idx)
        if pos < n:  # the examples left out by drop_last, in their shuffled order
            rest = np.setdiff1d(np.arange(n), order[e, :pos], assume_unique=False)
            order[e, pos:] = rest
    return order, batch


@dataclass(frozen=True)
class SGDCurves:
    """One SGD run on the moons: ``epoch_loss (epochs + 1,)`` the full-data loss
    before training and after every epoch, ``batch_losses (T,)`` the mini-batch losses,
    ``steps`` = T, ``grad_variance`` the total variance of the mini-batch gradient at
    the initial parameters (over all mini-batches of one epoch), ``accuracy`` final."""

    r: int
    lr: float
    epochs: int
    epoch_loss: np.ndarray
    batch_losses: np.ndarray
    steps: int
    grad_variance: float
    accuracy: float


@functools.lru_cache(maxsize=64)
def sgd_curves(
    r: int, lr: float = 0.2, epochs: int = 20, *, seed: int = 0, shuffle: bool = True
) -> SGDCurves:
    """Train a 2-16-2 ReLU MLP on 200 two-moons points with mini-batches of ``r``.

    >>> c = sgd_curves(50, epochs=2)
    >>> c.steps, c.epoch_loss.shape
    (8, (3,))
    """
    from alice_lab.data import make_moons, minibatches
    from alice_lab.layers import mlp_forward, mlp_init, mlp_value_and_grad
    from alice_lab.optim import sgd, tree_leaves

    r = int(r)
    if not 1 <= r <= N:
        raise ValueError(f"r must lie in 1..{N}; got {r}")
    X, y = make_moons(N, noise=0.15, seed=0)
    params = mlp_init([2, 16, 2], seed=seed)
    grads = [
        np.concatenate(
            [g.ravel() for g in tree_leaves(mlp_value_and_grad(params, X[i], y[i])[1])]
        )
        for i in minibatches(N, r, seed=seed)
    ]
    variance = float(np.sum(np.var(np.stack(grads), axis=0))) if len(grads) > 1 else 0.0
    losses = [float(mlp_value_and_grad(params, X, y)[0])]

    def after_epoch(step, p, value):
        if step % -(-N // r) == 0:
            losses.append(float(mlp_value_and_grad(p, X, y)[0]))

    res = sgd(
        mlp_value_and_grad,
        params,
        X,
        y,
        lr=lr,
        batch_size=r,
        epochs=epochs,
        seed=seed if shuffle else None,
        callback=after_epoch,
    )
    acc = float(np.mean(np.argmax(mlp_forward(res.params, X), axis=1) == y))
    return SGDCurves(
        r,
        float(lr),
        int(epochs),
        np.asarray(losses),
        res.losses,
        res.steps,
        variance,
        acc,
    )


def batch_sizes() -> tuple[int, ...]:
    """The batch sizes the static view steps through, 1 to n.

    >>> batch_sizes()[0], batch_sizes()[-1]
    (1, 200)
    """
    return (1, 2, 5, 10, 20, 50, 100, 200)


def strip_boundaries(batch: np.ndarray, max_lines: int = 40) -> list:
    """Segments between consecutive mini-batches of each epoch row (none when there
    are more than ``max_lines`` per row: they would hide the picture)."""
    segs = []
    for e, row in enumerate(batch):
        cuts = np.flatnonzero(np.diff(row) != 0) + 0.5
        if len(cuts) <= max_lines:
            segs += [[(c, e - 0.5), (c, e + 0.5)] for c in cuts]
    return segs


def draw_strip(ax, order: np.ndarray, batch: np.ndarray, title: str) -> tuple:
    """Figure F.5.2 as an image: row e is epoch e, colour = the example's original
    index (so each reshuffle looks different), red lines between mini-batches."""
    from matplotlib.collections import LineCollection

    im = ax.imshow(
        order,
        aspect="auto",
        cmap="viridis",
        vmin=0,
        vmax=order.shape[1] - 1,
        interpolation="nearest",
    )
    lines = ax.add_collection(
        LineCollection(strip_boundaries(batch), colors="red", lw=2)
    )
    ax.set(
        yticks=range(order.shape[0]),
        yticklabels=[f"epoch {e + 1}" for e in range(order.shape[0])],
        xlabel="position in the epoch (colour: index of the example)",
        title=title,
    )
    return im, lines


# --- layer 2: the live view --------------------------------------------------------


class MinibatchExplorer:
    """The live view's state; ``widget`` is the box, :meth:`update` redraws."""

    def __init__(
        self, r: int = 20, lr: float = 0.2, epochs: int = 20, shuffle: bool = True
    ):
        import ipywidgets as w

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.r = w.IntSlider(value=r, min=1, max=N, description="batch size r", **opts)
        self.lr = w.FloatLogSlider(
            value=lr,
            base=10,
            min=-3,
            max=0.5,
            step=0.05,
            description="step size η",
            **opts,
        )
        self.epochs = w.IntSlider(
            value=epochs, min=1, max=60, description="epochs", **opts
        )
        self.shuffle = w.Checkbox(value=shuffle, description="shuffle every epoch")
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((9, 3.6), 80)
        self.ax_strip, self.ax_loss = self.figure.subplots(1, 2)
        self.current: SGDCurves | None = None
        for c in (self.r, self.lr, self.epochs, self.shuffle):
            c.observe(lambda change: self.update(), names="value")
        self.widget = w.VBox(
            [
                w.HBox(
                    [w.VBox([self.r, self.lr]), w.VBox([self.epochs, self.shuffle])]
                ),
                self.label,
                self.image,
            ]
        )
        self.update()

    def update(self) -> None:
        r, shuffle = self.r.value, self.shuffle.value
        self.current = c = sgd_curves(
            r, self.lr.value, self.epochs.value, shuffle=shuffle
        )
        self.ax_strip.clear()
        order, batch = schedule(N, r, 3, seed=0 if shuffle else None)
        b = int(batch[0].max())
        draw_strip(
            self.ax_strip, order, batch, f"r = {r}: b = {b} mini-batches per epoch"
        )
        self.ax_loss.clear()
        self.ax_loss.plot(np.arange(len(c.epoch_loss)), c.epoch_loss, "o-", ms=3)
        self.ax_loss.set(
            xlabel="epoch",
            ylabel="loss on all 200 points",
            yscale="log",
            title="cross-entropy after each epoch",
        )
        self.label.value = (
            f"r = {r}: {c.steps // c.epochs} steps per epoch, {c.steps} in all; final "
            f"loss {c.epoch_loss[-1]:.3f}, accuracy {c.accuracy:.2f}; variance of the "
            f"mini-batch gradient at the start {c.grad_variance:.2e}"
        )
        self.image.value = png_bytes(self.figure)


def live_view(r: int = 20, lr: float = 0.2, epochs: int = 20, shuffle: bool = True):
    """Core-ipywidgets view of mini-batch SGD; ``box.explorer`` is the
    :class:`MinibatchExplorer` behind it."""
    explorer = MinibatchExplorer(r, lr, epochs, shuffle)
    box = explorer.widget
    box.explorer = explorer
    return box


# --- layer 3: the static view ------------------------------------------------------


def static_view(
    sizes: tuple[int, ...] | None = None,
    *,
    lr: float = 0.2,
    epochs: int = 20,
    dpi: int = 60,
    fps: int = 1,
):
    """An HTML animation (no kernel): one frame per batch size r, with the mini-batch
    strip of three epochs and the loss per epoch (the other sizes faint)."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    sizes = batch_sizes() if sizes is None else tuple(sizes)
    runs = [sgd_curves(r, lr, epochs) for r in sizes]
    strips = [schedule(N, r, 3, seed=0) for r in sizes]
    fig = new_figure((9, 3.4), dpi)
    ax_strip, ax_loss = fig.subplots(1, 2)
    im, bounds = draw_strip(ax_strip, *strips[0], "")
    x = np.arange(epochs + 1)
    for run in runs:
        ax_loss.plot(x, run.epoch_loss, color="0.8", lw=1)
    (line,) = ax_loss.plot([], [], "o-", color="tab:red", ms=3)
    ax_loss.set(xlabel="epoch", ylabel="loss on all points", yscale="log")
    title_l, title_r = ax_strip.set_title(""), ax_loss.set_title("")
    freeze_layout(fig)

    def draw(k):
        run = runs[k]
        im.set_data(strips[k][0])
        bounds.set_segments(strip_boundaries(strips[k][1]))
        title_l.set_text(
            f"r = {run.r}: {run.steps // run.epochs} mini-batches per epoch"
        )
        line.set_data(x, run.epoch_loss)
        title_r.set_text(
            f"r = {run.r}: {run.steps} steps, final loss {run.epoch_loss[-1]:.3f}"
        )

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(runs))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
