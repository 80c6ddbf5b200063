r"""Widget: batch-norm statistics — batch size and the running average.

Left: the histogram of the batch means of many mini-batches of size n drawn from
N(μ = 2, σ = 3); their spread is σ/√n, so small batches give noisy statistics (line
4787). Right: the running mean of :class:`alice_lab.normalization.BatchNorm` fed with
those batches, for a weight λ on the old value (the book's
:math:`\widehat{\mu}\gets\lambda\widehat{\mu}+(1-\lambda)\mu`; torch's momentum is
1 − λ), against the closed form of its expectation :math:`(1-\lambda^t)\mu`. The
printed λ = 0.01 (erratum, line 4777) copies the last batch; λ = 0.9 averages.

Three layers: :func:`bn_statistics` (pure, unit-tested), :func:`live_view` (core
ipywidgets) and :func:`static_view` (an HTML animation over the batch size).

Book: §9.3.2 (lines 4761-4787).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.normalization import BatchNorm

__all__ = ["BNStatistics", "bn_statistics", "live_view", "static_view"]

MU, SIGMA = 2.0, 3.0


@dataclass(frozen=True)
class BNStatistics:
    batch_size: int
    lam: float
    batch_means: np.ndarray  # (n_batches,)
    running: np.ndarray  # (steps + 1,) running mean, starting at 0
    expected: np.ndarray  # (steps + 1,) (1 - lam^t) * MU

    @property
    def spread(self) -> float:
        return float(self.batch_means.std())


def bn_statistics(
    batch_size: int,
    lam: float = 0.9,
    *,
    steps: int = 50,
    n_batches: int = 400,
    seed: int = 0,
) -> BNStatistics:
    """Batch means for ``batch_size`` and the running mean with weight ``lam`` on the
    old value (``BatchNorm(momentum=1 - lam)``).

    >>> bn_statistics(8, 0.0, steps=2).running.shape
    (3,)
    """
    if batch_size < 2 or not 0 <= lam < 1:
        raise ValueError(
            f"need batch_size >= 2 and 0 <= lam < 1; got {batch_size}, {lam}"
        )
    rng = np.random.default_rng(seed)
    means = rng.normal(MU, SIGMA, (n_batches, batch_size)).mean(1)
    bn = BatchNorm(1, momentum=1.0 - lam)
    running = [0.0]
    for _ in range(steps):
        bn(rng.normal(MU, SIGMA, (batch_size, 1)))
        running.append(float(bn.running_mean[0]))
    t = np.arange(steps + 1)
    return BNStatistics(
        int(batch_size), float(lam), means, np.array(running), (1 - lam**t) * MU
    )


def _draw(axes, s: BNStatistics, lam_ref: float = 0.01) -> str:
    ax1, ax2 = axes
    ax1.cla()
    ax1.hist(
        s.batch_means, bins=np.linspace(MU - 8, MU + 8, 41), color="tab:blue", alpha=0.7
    )
    ax1.axvline(MU, color="k", lw=1)
    ax1.set(
        xlabel="batch mean μ",
        ylabel="count",
        xlim=(MU - 8, MU + 8),
        title=f"n = {s.batch_size}: spread {s.spread:.2f} (σ/√n = "
        f"{SIGMA / np.sqrt(s.batch_size):.2f})",
    )
    ax2.cla()
    ref = bn_statistics(s.batch_size, lam_ref, steps=len(s.running) - 1)
    ax2.plot(ref.running, color="tab:red", lw=1, label=f"λ = {lam_ref} (book's value)")
    ax2.plot(s.running, color="tab:blue", lw=1.5, label=f"λ = {s.lam:.2f}")
    ax2.plot(s.expected, "k--", lw=1, label="(1 − λᵗ)μ")
    ax2.set(
        xlabel="step t",
        ylabel="running mean",
        ylim=(-3, 7),
        title="running mean, weight λ on the old value",
    )
    ax2.legend(fontsize=7, loc="lower right")
    return (
        f"n = {s.batch_size}: batch-mean spread {s.spread:.3f}; λ = {s.lam:.2f}: "
        f"final running mean {s.running[-1]:.3f} (μ = {MU})"
    )


def live_view(batch_size: int = 8, lam: float = 0.9):
    """Batch-size and λ sliders; the histogram and the running-mean curves."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((9, 3.4), 80)
    axes = fig.subplots(1, 2)
    controls = {
        "n": w.SelectionSlider(
            options=[2, 4, 8, 16, 32, 64, 128, 256],
            value=batch_size,
            description="batch size",
            **slider_style(),
        ),
        "lam": w.FloatSlider(
            value=lam,
            min=0.0,
            max=0.99,
            step=0.01,
            description="λ (weight on old)",
            **slider_style(),
        ),
    }

    def draw(v):
        return _draw(axes, bn_statistics(v["n"], v["lam"]))

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.live = live
    return box


def static_view(lam: float = 0.9, *, dpi: int = 55):
    """The histogram narrowing as the batch size doubles from 2 to 256."""
    from alice_course.widgets._anim import animation_html, new_figure

    fig = new_figure((9, 3.4), dpi)
    axes = fig.subplots(1, 2)
    sizes = [2, 4, 8, 16, 32, 64, 128, 256]

    def draw(n):
        _draw(axes, bn_statistics(int(n), lam))

    draw(sizes[0])
    return animation_html(fig, draw, sizes, fps=2)
