r"""Widget: the KL divergence between two Gaussians, in both directions.

:math:`\mathrm{KL}(p \Vert q) = \int p \log(p/q)` is not symmetric: for
:math:`p = \mathcal{N}(\mu_1, \sigma_1^2)` and
:math:`q = \mathcal{N}(\mu_2, \sigma_2^2)` the two directions differ as soon as
:math:`\sigma_1 \ne \sigma_2`. Each value is computed in closed form and estimated by
Monte Carlo from n samples (E.A.7), and the integrand :math:`p\log(p/q)` is drawn
under the densities.

- :func:`kl_pair` computes densities, integrand, closed forms and MC estimates (pure);
- :func:`live_view`: sliders for :math:`\mu_1, \sigma_1, \mu_2, \sigma_2` and n;
- :func:`static_view`: q sliding past p, with :math:`\sigma_2 = 2\sigma_1`.

Book: §A.5 (lines 6961-6967).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.probability import kl_mc, kl_normal, normal_logpdf

__all__ = ["KLPair", "kl_pair", "live_view", "static_view"]

X = np.linspace(-8.0, 8.0, 1601)


@dataclass(frozen=True)
class KLPair:
    """Densities ``p``, ``q`` and the integrand ``p log(p/q)`` on :data:`X`;
    ``kl_pq``, ``kl_qp`` in closed form; ``mc_pq``, ``mc_qp`` their MC estimates."""

    p: np.ndarray
    q: np.ndarray
    integrand: np.ndarray
    kl_pq: float
    kl_qp: float
    mc_pq: float
    mc_qp: float


def kl_pair(mu1=0.0, s1=1.0, mu2=1.0, s2=2.0, n: int = 5000, seed: int = 0) -> KLPair:
    """Both KL directions between N(mu1, s1²) and N(mu2, s2²).

    >>> r = kl_pair(0.0, 1.0, 1.0, 2.0)
    >>> round(r.kl_pq, 4), round(r.kl_qp, 4)
    (0.4431, 1.3069)
    """
    if not (s1 > 0 and s2 > 0) or int(n) < 2:
        raise ValueError(f"need s1, s2 > 0 and n >= 2; got {s1}, {s2}, {n}")
    lp = np.asarray(normal_logpdf(X, float(mu1), float(s1) ** 2))
    lq = np.asarray(normal_logpdf(X, float(mu2), float(s2) ** 2))
    rng = np.random.default_rng(seed)
    xp_, xq_ = rng.normal(mu1, s1, int(n)), rng.normal(mu2, s2, int(n))

    def logp(x):
        return normal_logpdf(x, float(mu1), float(s1) ** 2)

    def logq(x):
        return normal_logpdf(x, float(mu2), float(s2) ** 2)

    return KLPair(
        np.exp(lp),
        np.exp(lq),
        np.exp(lp) * (lp - lq),
        kl_normal(mu1, s1**2, mu2, s2**2),
        kl_normal(mu2, s2**2, mu1, s1**2),
        kl_mc(logp, logq, xp_).mean,
        kl_mc(logq, logp, xq_).mean,
    )


def _axes(fig):
    ax = fig.subplots()
    ax.set(xlim=(-6, 6), xlabel="x", ylabel="density")
    ax.grid(alpha=0.3)
    lines = {
        "p": ax.plot([], [], color="tab:blue", label="p")[0],
        "q": ax.plot([], [], color="tab:orange", label="q")[0],
        "integrand": ax.plot([], [], color="tab:green", ls="--", label="p log(p/q)")[0],
    }
    ax.legend(loc="upper right", fontsize=8)
    return ax, lines


def _show(ax, lines, r: KLPair) -> str:
    for name, line in lines.items():
        line.set_data(X, getattr(r, name))
    lo = min(r.integrand.min(), 0.0)
    ax.set_ylim(lo - 0.05, max(r.p.max(), r.q.max(), r.integrand.max()) * 1.15)
    ax.set_title(f"KL(p‖q) = {r.kl_pq:.3f}   KL(q‖p) = {r.kl_qp:.3f}")
    return (
        f"KL(p‖q) = {r.kl_pq:.4f} (MC {r.mc_pq:.4f}); KL(q‖p) = {r.kl_qp:.4f} "
        f"(MC {r.mc_qp:.4f})"
    )


def live_view(mu1=0.0, s1=1.0, mu2=1.0, s2=2.0, n: int = 5000):
    """Sliders for both Gaussians and n; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((6.5, 3.4), 80)
    ax, lines = _axes(fig)
    opts = slider_style()
    controls = {
        "mu1": w.FloatSlider(
            value=mu1, min=-3, max=3, step=0.1, description="μ₁", **opts
        ),
        "s1": w.FloatSlider(
            value=s1, min=0.2, max=3, step=0.1, description="σ₁", **opts
        ),
        "mu2": w.FloatSlider(
            value=mu2, min=-3, max=3, step=0.1, description="μ₂", **opts
        ),
        "s2": w.FloatSlider(
            value=s2, min=0.2, max=3, step=0.1, description="σ₂", **opts
        ),
        "n": w.IntSlider(
            value=n, min=100, max=50_000, step=100, description="MC n", **opts
        ),
    }

    def draw(v):
        return _show(ax, lines, kl_pair(v["mu1"], v["s1"], v["mu2"], v["s2"], v["n"]))

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(mus=None, *, dpi: int = 55):
    """q = N(μ₂, 2²) sliding from −3 to 3 past p = N(0, 1)."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    mus = np.round(np.linspace(-3, 3, 13), 2) if mus is None else mus
    fig = new_figure((6.5, 3.4), dpi)
    ax, lines = _axes(fig)
    _show(ax, lines, kl_pair(0.0, 1.0, 0.0, 2.0))
    freeze_layout(fig)
    return animation_html(
        fig, lambda m: _show(ax, lines, kl_pair(0.0, 1.0, float(m), 2.0)), mus, fps=4
    )
