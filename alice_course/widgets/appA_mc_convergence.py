r"""Widget: a Monte Carlo estimate converging to an expectation (E.A.7).

Samples :math:`x_i \sim \mathcal{N}(0, 1)` and the running average
:math:`\frac1t\sum_{i \le t} f(x_i)` for f in {x, x², sin x, the lottery's w}, against
the exact value (0, 1, 0 and 1.5), with the band :math:`\pm 2\,\mathrm{sd}(f)/\sqrt t`
that the error stays inside about 95% of the time.

- :func:`mc_run` computes the running estimate, the exact value and the band (pure);
- :func:`live_view`: a log slider for n, a dropdown for f, a seed;
- :func:`static_view`: the estimate for f = x² growing up to n = 10⁴.

Book: §A.4, eqs. E.A.6-E.A.7 (lines 6945-6959).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.backend import check_int
from alice_lab.probability import expectation, running_mean

__all__ = ["FUNCTIONS", "MCRun", "live_view", "mc_run", "static_view"]

#: name -> (f, exact expectation, standard deviation of f(x))
FUNCTIONS = {
    "x": (lambda x: x, 0.0, 1.0),
    "x²": (lambda x: x**2, 1.0, np.sqrt(2.0)),
    "sin x": (np.sin, 0.0, np.sqrt((1 - np.exp(-2.0)) / 2)),
    "lottery w": (lambda w: w, 1.5, np.sqrt(2.7 - 1.5**2)),
}


@dataclass(frozen=True)
class MCRun:
    """``estimate`` (n,) running averages; ``exact``; ``band`` (n,) = 2 sd / √t."""

    name: str
    estimate: np.ndarray
    exact: float
    band: np.ndarray


def _samples(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if name == "lottery w":
        w, p = np.array([1.0, 2.0, 3.0]), np.array([0.6, 0.3, 0.1])
        assert float(expectation(w, p)) == FUNCTIONS[name][1]
        return rng.choice(w, size=n, p=p)
    return rng.standard_normal(n)


def mc_run(name: str = "x²", n: int = 1000, seed: int = 0) -> MCRun:
    """The running MC estimate of E[f(x)] after 1..n samples.

    >>> r = mc_run("x", 4, seed=0)
    >>> r.estimate.shape, r.exact
    ((4,), 0.0)
    """
    if name not in FUNCTIONS:
        raise ValueError(f"name must be one of {list(FUNCTIONS)}; got {name!r}")
    n = check_int(n, "n")
    f, exact, sd = FUNCTIONS[name]
    x = _samples(name, n, np.random.default_rng(seed))
    t = np.arange(1, n + 1)
    return MCRun(
        name, np.asarray(running_mean(f(x))), float(exact), 2 * sd / np.sqrt(t)
    )


def _axes(fig):
    ax = fig.subplots()
    ax.set(xscale="log", xlabel="number of samples t", ylabel="estimate")
    ax.grid(alpha=0.3)
    (est,) = ax.plot([], [], color="tab:blue", label="running MC estimate")
    (hi,) = ax.plot([], [], color="tab:orange", lw=0.8, label="exact ± 2 sd/√t")
    (lo,) = ax.plot([], [], color="tab:orange", lw=0.8)
    ex = ax.axhline(0.0, color="k", lw=1, label="exact")
    ax.legend(loc="upper right", fontsize=8)
    return ax, est, hi, lo, ex


def _show(ax, est, hi, lo, ex, r: MCRun, n_max: int) -> str:
    t = np.arange(1, len(r.estimate) + 1)
    est.set_data(t, r.estimate)
    hi.set_data(t, r.exact + r.band)
    lo.set_data(t, r.exact - r.band)
    ex.set_ydata([r.exact, r.exact])
    ax.set_xlim(1, n_max)
    ax.set_ylim(r.exact - 2.5, r.exact + 2.5)
    ax.set_title(f"E[{r.name}]: estimate {r.estimate[-1]:+.4f} after {len(t)} samples")
    return (
        f"after {len(t)} samples: {r.estimate[-1]:.4f} vs exact {r.exact}; error "
        f"{abs(r.estimate[-1] - r.exact):.4f}, band ±{r.band[-1]:.4f}"
    )


def live_view(name: str = "x²", n: int = 1000, seed: int = 0):
    """A slider for n, a dropdown for f and a seed; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.5, 3.4), 80)
    ax, est, hi, lo, ex = _axes(fig)
    controls = {
        "name": w.Dropdown(options=list(FUNCTIONS), value=name, description="f"),
        "n": w.IntSlider(
            value=n, min=10, max=100_000, step=10, description="n", **slider_style()
        ),
        "seed": w.IntSlider(
            value=seed, min=0, max=20, description="seed", **slider_style()
        ),
    }

    def draw(v):
        return _show(ax, est, hi, lo, ex, mc_run(v["name"], v["n"], v["seed"]), v["n"])

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(name: str = "x²", n: int = 10_000, frames: int = 12, *, dpi: int = 55):
    """The estimate growing over log-spaced sample counts up to n."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    run = mc_run(name, n, seed=0)
    fig = new_figure((6.5, 3.4), dpi)
    ax, est, hi, lo, ex = _axes(fig)
    _show(ax, est, hi, lo, ex, run, n)
    freeze_layout(fig)
    counts = np.unique(np.round(np.geomspace(10, n, frames)).astype(int))

    def draw(t):
        part = MCRun(run.name, run.estimate[:t], run.exact, run.band[:t])
        _show(ax, est, hi, lo, ex, part, n)

    return animation_html(fig, draw, counts, fps=3)
