r"""Widget: Bayesian learning of a coin's bias θ (§3.3 in one picture).

A Beta(a, b) prior over θ, coin flips as data (1 = heads), and on a grid of θ: the
prior, the likelihood (rescaled for display), and the posterior normalised with
logsumexp, which matches the conjugate Beta(a + h, b + t). Markers show the ML
estimate h/n, the MAP (the posterior mode) and the posterior mean, which is the
Bayesian predictive p(heads | S). The predictive is also estimated by Monte Carlo from
k posterior samples, next to the value of the book's E.3.10 as printed (which weighs
each sample by its posterior density a second time: an erratum).

- :func:`coin_posterior` computes everything drawn (pure, tested);
- :func:`live_view`: sliders for a, b and k, buttons "heads", "tails", "+10 random",
  "reset", and a toggle that overlays the posterior computed one flip at a time
  (sequential updating) on the batch posterior;
- :func:`static_view`: the posterior after each of 40 flips of a coin with θ = 0.7.

Book: §3.3 (lines 1284-1312).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.probability import (
    beta_bernoulli_posterior,
    grid_posterior,
    map_beta_bernoulli,
    mc_predictive,
)

__all__ = ["CoinPosterior", "coin_posterior", "live_view", "static_view"]

GRID = np.linspace(0.0005, 0.9995, 1000)


@dataclass(frozen=True)
class CoinPosterior:
    """What the widget draws. Densities are on :data:`GRID` (1000 points in (0, 1))."""

    a: float
    b: float
    heads: int
    n: int
    prior: np.ndarray
    likelihood: np.ndarray  # rescaled to peak at the posterior's height
    posterior: np.ndarray
    sequential: np.ndarray  # the posterior built one flip at a time
    conjugate: tuple[float, float]
    ml: float | None
    map: float | None
    mean: float
    mc: float
    printed: float


def _log_beta_kernel(a, b):
    return (a - 1) * np.log(GRID) + (b - 1) * np.log1p(-GRID)


def coin_posterior(a: float, b: float, flips, k: int = 2000, seed: int = 0):
    """Prior Beta(a, b), the flips (0/1), k posterior samples for the MC predictive.

    >>> post = coin_posterior(1, 1, [1, 1, 0])
    >>> post.conjugate, round(post.mean, 4), round(post.map, 4)
    ((3, 2), 0.6, 0.6667)
    """
    from scipy.stats import beta

    flips = np.asarray(flips, dtype=int).reshape(-1)
    if not (a > 0 and b > 0):
        raise ValueError(f"a and b must be > 0; got {a}, {b}")
    a2, b2 = beta_bernoulli_posterior(a, b, flips)
    h, n = int(flips.sum()), flips.size
    dx = GRID[1] - GRID[0]
    log_prior = _log_beta_kernel(a, b)
    log_lik = h * np.log(GRID) + (n - h) * np.log1p(-GRID)
    post = np.exp(grid_posterior(log_lik, log_prior)) / dx
    seq = log_prior
    for x in flips:  # one flip at a time: yesterday's posterior is today's prior
        seq = grid_posterior(np.log(GRID) if x else np.log1p(-GRID), seq)
    seq = (
        np.exp(seq) / dx if n else np.exp(grid_posterior(np.zeros_like(GRID), seq)) / dx
    )
    prior = np.exp(grid_posterior(np.zeros_like(GRID), log_prior)) / dx
    lik = np.exp(log_lik - log_lik.max()) * post.max()
    theta = beta.rvs(a2, b2, size=int(k), random_state=np.random.default_rng(seed))
    mc = float(mc_predictive(lambda t: t, theta))
    printed = float(np.mean(theta * beta.pdf(theta, a2, b2)))
    ml = h / n if n else None
    mode = (
        map_beta_bernoulli(a, b, h, n) if a >= 1 and b >= 1 and n + a + b > 2 else None
    )
    return CoinPosterior(
        float(a),
        float(b),
        h,
        n,
        prior,
        lik,
        post,
        seq,
        (a2, b2),
        ml,
        mode,
        a2 / (a2 + b2),
        mc,
        printed,
    )


def _setup(ax):
    ax.set(xlim=(0, 1), xlabel="θ = p(heads)", ylabel="density")
    ax.grid(alpha=0.3)
    lines = {
        "prior": ax.plot([], [], color="0.5", ls="--", label="prior")[0],
        "likelihood": ax.plot(
            [], [], color="tab:green", ls=":", label="likelihood (scaled)"
        )[0],
        "posterior": ax.plot([], [], color="tab:blue", lw=2, label="posterior")[0],
        "sequential": ax.plot(
            [], [], color="tab:orange", lw=1, ls="-.", label="sequential"
        )[0],
    }
    marks = {
        "ML": ax.axvline(0.5, color="tab:green", lw=1),
        "MAP": ax.axvline(0.5, color="tab:red", lw=1),
        "mean": ax.axvline(0.5, color="tab:blue", lw=1, ls="--"),
    }
    ax.legend(loc="upper left", fontsize=7)
    return lines, marks


def _update(ax, lines, marks, p: CoinPosterior, show_seq: bool) -> str:
    for name in ("prior", "likelihood", "posterior", "sequential"):
        lines[name].set_data(GRID, getattr(p, name))
    lines["sequential"].set_visible(show_seq)
    lines["likelihood"].set_visible(p.n > 0)
    for name, val in (("ML", p.ml), ("MAP", p.map), ("mean", p.mean)):
        marks[name].set_xdata([val, val] if val is not None else [np.nan, np.nan])
    top = max(p.posterior.max(), p.prior.max(), 1.0)
    ax.set_ylim(0, 1.1 * top)
    ax.set_title(f"Beta({p.a:g}, {p.b:g}) prior, {p.heads} heads in {p.n} flips")
    ml = "—" if p.ml is None else f"{p.ml:.3f}"
    mp = "—" if p.map is None else f"{p.map:.3f}"
    return (
        f"posterior Beta{p.conjugate}; ML {ml}, MAP {mp}, predictive p(heads|S) = "
        f"{p.mean:.4f}; MC estimate {p.mc:.4f}; E.3.10 as printed {p.printed:.4f}"
    )


def live_view(a: float = 2.0, b: float = 2.0, seed: int = 0):
    """Prior sliders, flip buttons, the k slider and the sequential overlay.
    ``box.live`` is the LiveFigure and ``box.flips`` the list of flips so far."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    flips: list[int] = []
    rng = np.random.default_rng(seed)
    fig = new_figure((6.5, 3.6), 80)
    ax = fig.subplots()
    lines, marks = _setup(ax)
    controls = {
        "a": w.FloatSlider(
            value=a, min=0.5, max=20, step=0.5, description="prior a", **slider_style()
        ),
        "b": w.FloatSlider(
            value=b, min=0.5, max=20, step=0.5, description="prior b", **slider_style()
        ),
        "k": w.SelectionSlider(
            options=[10, 100, 1000, 10_000, 100_000],
            value=1000,
            description="MC samples k",
            **slider_style(),
        ),
        "sequential": w.Checkbox(value=False, description="overlay sequential"),
    }

    def draw(v):
        p = coin_posterior(v["a"], v["b"], flips, k=v["k"], seed=seed)
        return _update(ax, lines, marks, p, v["sequential"])

    live = LiveFigure(controls, fig, draw)

    def add(values):
        def click(_button=None):
            flips.extend(values() if callable(values) else values)
            live.update()

        return click

    buttons = []
    for label, values in (
        ("heads", [1]),
        ("tails", [0]),
        ("+10 random (θ = 0.7)", lambda: (rng.random(10) < 0.7).astype(int).tolist()),
    ):
        btn = w.Button(description=label)
        btn.on_click(add(values))
        buttons.append(btn)
    reset = w.Button(description="reset")

    def clear(_button=None):
        flips.clear()
        live.update()

    reset.on_click(clear)
    box = w.VBox([w.HBox([*buttons, reset]), live.widget])
    box.live, box.flips, box.buttons = live, flips, (*buttons, reset)
    return box


def static_view(
    n_flips: int = 40,
    a: float = 2.0,
    b: float = 2.0,
    theta: float = 0.7,
    *,
    seed: int = 1,
    frames: int = 21,
    dpi: int = 55,
):
    """The posterior after 0, 1, ..., n_flips flips of a θ = 0.7 coin."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    flips = (np.random.default_rng(seed).random(n_flips) < theta).astype(int)
    fig = new_figure((6.5, 3.6), dpi)
    ax = fig.subplots()
    lines, marks = _setup(ax)
    ax.axvline(theta, color="k", lw=0.8, alpha=0.5)
    _update(ax, lines, marks, coin_posterior(a, b, flips), False)
    freeze_layout(fig)

    def draw(t):
        _update(ax, lines, marks, coin_posterior(a, b, flips[:t]), False)

    steps = np.unique(
        np.round(np.linspace(0, n_flips, min(n_flips + 1, frames))).astype(int)
    )
    return animation_html(fig, draw, steps, fps=4)
