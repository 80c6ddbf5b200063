r"""Widget: the early-stopping monitor.

A one-hidden-layer MLP (NumPy, back-propagation by hand) is trained on a tiny subset of
the digits (60 images), so it overfits quickly: the training loss keeps falling while
the validation loss turns up. For a patience k and a rule — ``"best"`` (no improvement
on the best validation score for k epochs, the usual rule) or ``"book"`` (the printed
test, "no better than each of the last k epochs") — the widget marks where training
stops and the epoch whose weights are restored.

Three layers: :func:`training_curves` and :func:`stopping_points` (pure, unit-tested),
:func:`live_view` (core ipywidgets), :func:`static_view` (an HTML animation over k).

Book: §9.2.2 (lines 4387-4403).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from alice_lab.regularization import EarlyStopping

__all__ = ["Curves", "live_view", "static_view", "stopping_points", "training_curves"]


@dataclass(frozen=True)
class Curves:
    train_loss: np.ndarray  # (epochs,)
    val_loss: np.ndarray
    val_acc: np.ndarray


@functools.lru_cache(maxsize=4)
def training_curves(epochs: int = 120, *, n_train: int = 60, seed: int = 0) -> Curves:
    """Full-batch gradient descent on ``n_train`` digits; losses and accuracy per epoch
    (validation: 400 other digits).

    >>> training_curves(3).val_loss.shape
    (3,)
    """
    from alice_lab.data import load_digits
    from alice_lab.layers import mlp_forward, mlp_init, mlp_value_and_grad
    from alice_lab.losses import cross_entropy

    X, y = load_digits()
    X = X / 16.0
    idx = np.random.default_rng(seed).permutation(len(X))
    tr, va = idx[:n_train], idx[n_train : n_train + 400]
    params = mlp_init([64, 128, 10], seed=seed)
    out: dict[str, list[float]] = {"tl": [], "vl": [], "va": []}
    for _ in range(epochs):
        loss, grads = mlp_value_and_grad(params, X[tr], y[tr])
        params = [
            {k: p[k] - 0.5 * g[k] for k in p}
            for p, g in zip(params, grads, strict=True)
        ]
        logits = mlp_forward(params, X[va])
        out["tl"].append(float(loss))
        out["vl"].append(float(cross_entropy(logits, y[va])))
        out["va"].append(float((logits.argmax(1) == y[va]).mean()))
    return Curves(np.array(out["tl"]), np.array(out["vl"]), np.array(out["va"]))


def stopping_points(
    scores: np.ndarray, patience: int, *, mode: str = "min", rule: str = "best"
) -> tuple[int | None, int]:
    """(stop epoch or None, restored epoch), both 1-based, for a history of scores.

    >>> stopping_points(np.array([3.0, 2.0, 2.5, 2.6]), 2)
    (4, 2)
    """
    es = EarlyStopping(patience, mode=mode, rule=rule)
    for s in scores:
        if es.step(float(s)):
            break
    return es.stopped_epoch, es.best_epoch


def _draw(ax, c: Curves, patience: int, rule: str, metric: str) -> str:
    ax.cla()
    t = np.arange(1, len(c.val_loss) + 1)
    if metric == "loss":
        ax.plot(t, c.train_loss, color="tab:blue", label="training loss")
        ax.plot(t, c.val_loss, color="tab:orange", label="validation loss")
        scores, mode = c.val_loss, "min"
    else:
        ax.plot(t, c.val_acc, color="tab:orange", label="validation accuracy")
        scores, mode = c.val_acc, "max"
    stop, best = stopping_points(scores, patience, mode=mode, rule=rule)
    ax.axvline(best, color="tab:green", lw=2, label=f"restored epoch {best}")
    if stop is not None:
        ax.axvline(stop, color="tab:red", ls="--", label=f"stop at epoch {stop}")
    ax.set(
        xlabel="epoch", ylabel=metric, title=f"patience k = {patience}, rule '{rule}'"
    )
    ax.legend(fontsize=8)
    tail = f"stops at {stop}" if stop is not None else "never stops"
    return (
        f"k = {patience}, rule {rule!r}, metric {metric}: {tail}, restores epoch {best}"
    )


def live_view(patience: int = 5):
    """Patience slider, rule and metric dropdowns; the curves with the markers."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.5, 3.6), 80)
    ax = fig.subplots()
    controls = {
        "k": w.IntSlider(
            value=patience, min=1, max=30, description="patience k", **slider_style()
        ),
        "rule": w.Dropdown(options=["best", "book"], value="best", description="rule"),
        "metric": w.Dropdown(
            options=["loss", "accuracy"], value="loss", description="metric"
        ),
    }
    curves = training_curves()

    def draw(v):
        return _draw(ax, curves, v["k"], v["rule"], v["metric"])

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.live = live
    return box


def static_view(epochs: int = 120, *, dpi: int = 55):
    """The stop and restore markers as the patience grows from 1 to 15."""
    from alice_course.widgets._anim import animation_html, new_figure

    fig = new_figure((6.5, 3.6), dpi)
    ax = fig.subplots()
    curves = training_curves(epochs)
    ks = [1, 2, 3, 5, 8, 12, 15]

    def draw(k):
        _draw(ax, curves, int(k), "best", "loss")

    draw(ks[0])
    return animation_html(fig, draw, ks, fps=2)
