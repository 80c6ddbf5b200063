r"""Widget: the empirical risk as a Monte Carlo estimate of the expected risk.

Data :math:`y = x + \varepsilon`, :math:`\varepsilon \sim \mathcal{N}(0, \sigma^2)`,
the model :math:`f(x) = x` and the squared loss: the expected risk is exactly
:math:`\sigma^2`, and the empirical risk of a dataset of size n scatters around it
with standard deviation :math:`\sigma^2\sqrt{2/n}`. Drawing many datasets shows the
scatter shrink as n grows.

- :func:`empirical_risks` draws the datasets and returns every empirical risk (pure);
- :func:`live_view`: sliders for n (log scale) and σ, a histogram over 300 datasets
  with the ER line and the ±2 standard deviation band;
- :func:`static_view`: the histogram for n from 10 to 10⁴.

Book: §3.2.1, eq. E.3.5 and "a Monte Carlo approximation of the ER" (lines 1234-1240).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.losses import squared_loss
from alice_lab.risk import empirical_risk, sample_linear

__all__ = ["RiskSamples", "empirical_risks", "live_view", "static_view"]


@dataclass(frozen=True)
class RiskSamples:
    """``risks`` (reps,) empirical risks; ``er`` = σ²; ``sd`` = σ²√(2/n)."""

    n: int
    sigma: float
    risks: np.ndarray
    er: float
    sd: float


def _model(X):
    return X[:, 0]


def empirical_risks(n: int, sigma: float = 0.5, reps: int = 300, seed: int = 0):
    """The empirical risk of f(x) = x on ``reps`` independent datasets of size n.

    >>> r = empirical_risks(100, 0.5, reps=50)
    >>> r.risks.shape, r.er, round(r.sd, 4)
    ((50,), 0.25, 0.0354)
    """
    if int(n) < 1 or int(reps) < 1 or not sigma > 0:
        raise ValueError(f"need n, reps >= 1 and sigma > 0; got {n}, {reps}, {sigma}")
    rng = np.random.default_rng(seed)
    risks = np.array(
        [
            float(
                empirical_risk(
                    squared_loss, _model, *sample_linear(int(n), rng, sigma=sigma)
                )
            )
            for _ in range(int(reps))
        ]
    )
    return RiskSamples(
        int(n), float(sigma), risks, sigma**2, float(sigma**2 * np.sqrt(2 / n))
    )


def _draw_hist(ax, r: RiskSamples, xmax: float) -> None:
    ax.clear()
    bins = np.linspace(0, xmax, 41)
    ax.hist(np.clip(r.risks, 0, xmax), bins=bins, color="tab:blue", alpha=0.7)
    ax.axvline(r.er, color="k", lw=2, label="expected risk σ²")
    ax.axvspan(
        r.er - 2 * r.sd,
        r.er + 2 * r.sd,
        color="tab:orange",
        alpha=0.25,
        label="σ² ± 2σ²√(2/n)",
    )
    ax.set(
        xlim=(0, xmax),
        xlabel="empirical risk",
        ylabel="datasets",
        title=f"n = {r.n}, σ = {r.sigma:g}",
    )
    ax.legend(loc="upper right", fontsize=8)


def live_view(n: int = 100, sigma: float = 0.5):
    """Sliders for n (log scale) and σ; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.0, 3.4), 80)
    ax = fig.subplots()
    controls = {
        "n": w.IntSlider(
            value=n, min=10, max=5000, step=10, description="n", **slider_style()
        ),
        "sigma": w.FloatSlider(
            value=sigma, min=0.1, max=1.5, step=0.05, description="σ", **slider_style()
        ),
    }

    def draw(v):
        r = empirical_risks(v["n"], v["sigma"])
        _draw_hist(ax, r, 3 * v["sigma"] ** 2)
        return (
            f"mean of the empirical risks {r.risks.mean():.4f} (ER = {r.er:.4f}); "
            f"their std {r.risks.std():.4f} vs σ²√(2/n) = {r.sd:.4f}"
        )

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(
    ns=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000),
    *,
    sigma: float = 0.5,
    reps: int = 300,
    dpi: int = 60,
):
    """One histogram per dataset size n; the player steps through n."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    runs = {n: empirical_risks(n, sigma, reps) for n in ns}
    fig = new_figure((6.0, 3.4), dpi)
    ax = fig.subplots()
    _draw_hist(ax, runs[ns[0]], 3 * sigma**2)
    freeze_layout(fig)
    return animation_html(
        fig, lambda n: _draw_hist(ax, runs[n], 3 * sigma**2), ns, fps=2
    )
