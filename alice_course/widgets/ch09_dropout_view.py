r"""Widget: the dropout playground — Monte Carlo dropout on the network of Box 9.2.

The network is the book's 2 → 3 → 1 model with (inverted) dropout on the two inputs
and on the three hidden units, with fixed seeded weights. For a keep probability p the
widget samples k masks, runs the k stochastic forward passes and shows

* the histogram of the k outputs (what Monte Carlo dropout averages),
* the MC mean, the inference-mode output (dropout removed) and the *exact* expectation
  over all 2⁵ = 32 masks — they differ because of the ReLU (the "layer by layer"
  replacement of line 4607 is only an approximation),
* how many of the 32 sub-networks the k passes visited.

Three layers: :func:`dropout_predictions` (pure NumPy, unit-tested), :func:`live_view`
(core ipywidgets), :func:`static_view` (an HTML animation over p).

Book: §9.3.1 (lines 4505-4651), Figure F.9.3, Boxes 9.2-9.3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.regularization import dropout_mask, exact_dropout_expectation

__all__ = ["DropoutPredictions", "dropout_predictions", "live_view", "static_view"]

_R = np.random.default_rng(9)
W1, B1 = _R.normal(size=(2, 3)), _R.normal(size=3) * 0.5
W2, B2 = _R.normal(size=3), 0.1
X0 = np.array([1.0, -0.5])


def forward(x: np.ndarray, m1: np.ndarray, m2: np.ndarray, keep_prob: float) -> float:
    """Box 9.2's model with inverted dropout masks ``m1 (2,)``, ``m2 (3,)``."""
    h = np.maximum((m1 * x / keep_prob) @ W1 + B1, 0.0)
    return float((m2 * h / keep_prob) @ W2 + B2)


@dataclass(frozen=True)
class DropoutPredictions:
    keep_prob: float
    samples: np.ndarray  # (k,) stochastic outputs
    mc_mean: float
    eval_output: float  # dropout removed (inverted dropout at inference)
    exact: float  # expectation over all 32 masks
    visited: int  # distinct sub-networks among the k passes


def dropout_predictions(
    keep_prob: float, k: int = 200, *, x: np.ndarray = X0, seed: int = 0
) -> DropoutPredictions:
    """Sample ``k`` masks and compute everything the widget draws.

    >>> float(dropout_predictions(1.0, 5).samples.std())
    0.0
    """
    if not 0 < keep_prob <= 1 or k < 1:
        raise ValueError(f"need 0 < keep_prob <= 1 and k >= 1; got {keep_prob}, {k}")
    rng = np.random.default_rng(seed)
    masks = [
        (dropout_mask((2,), keep_prob, rng), dropout_mask((3,), keep_prob, rng))
        for _ in range(k)
    ]
    samples = np.array([forward(x, m1, m2, keep_prob) for m1, m2 in masks])
    exact = exact_dropout_expectation(
        lambda m: forward(x, m[0], m[1], keep_prob), [2, 3], keep_prob
    )
    visited = len({tuple(np.concatenate(m)) for m in masks})
    return DropoutPredictions(
        float(keep_prob),
        samples,
        float(samples.mean()),
        forward(x, np.ones(2), np.ones(3), 1.0),
        float(exact),
        visited,
    )


def _draw(ax, r: DropoutPredictions) -> str:
    ax.cla()
    ax.hist(
        r.samples, bins=30, color="tab:blue", alpha=0.7, label="k stochastic passes"
    )
    for value, color, name in (
        (r.mc_mean, "tab:blue", "MC mean"),
        (r.eval_output, "tab:red", "eval mode"),
        (r.exact, "k", "exact E over 32 masks"),
    ):
        ax.axvline(
            value, color=color, lw=2, ls="--" if color == "k" else "-", label=name
        )
    ax.set(
        xlabel="output y",
        ylabel="count",
        title=f"keep probability p = {r.keep_prob:.2f}",
    )
    ax.legend(fontsize=8, loc="upper right")
    return (
        f"p = {r.keep_prob:.2f}: MC mean {r.mc_mean:.3f}, eval {r.eval_output:.3f}, "
        f"exact {r.exact:.3f}; {r.visited}/32 sub-networks visited"
    )


def live_view(keep_prob: float = 0.7, k: int = 200):
    """Sliders for p and k and a seed; the histogram and the three reference lines."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.5, 3.6), 80)
    ax = fig.subplots()
    controls = {
        "p": w.FloatSlider(
            value=keep_prob,
            min=0.1,
            max=1.0,
            step=0.05,
            description="keep prob p",
            **slider_style(),
        ),
        "k": w.IntSlider(
            value=k, min=1, max=2000, description="passes k", **slider_style()
        ),
        "seed": w.IntSlider(
            value=0, min=0, max=20, description="seed", **slider_style()
        ),
    }

    def draw(v):
        return _draw(ax, dropout_predictions(v["p"], v["k"], seed=v["seed"]))

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.live = live
    return box


def static_view(k: int = 300, *, frames: int = 10, dpi: int = 55):
    """The histogram as p goes from 0.2 to 1 (no kernel needed)."""
    from alice_course.widgets._anim import animation_html, new_figure

    fig = new_figure((6.5, 3.6), dpi)
    ax = fig.subplots()
    ps = np.round(np.linspace(0.2, 1.0, frames), 3)

    def draw(p):
        _draw(ax, dropout_predictions(float(p), k))

    draw(ps[0])
    return animation_html(fig, draw, ps, fps=2)
