r"""Widget: the Gaussian density :math:`\mathcal{N}(x; \mu, \sigma^2)` and its CDF.

A density is not a probability: for small :math:`\sigma` its peak
:math:`1/\sqrt{2\pi\sigma^2}` passes 1 (3.99 at :math:`\sigma = 0.1`), while the area
under it stays 1. The CDF, the integral from :math:`-\infty`, is drawn next to it.

- :func:`gaussian_curve` computes the curve, its peak, its area and its CDF (pure);
- :func:`live_view`: sliders for :math:`\mu` and :math:`\sigma` (0.05 to 3);
- :func:`static_view`: :math:`\sigma` shrinking from 3 to 0.05.

Book: §A.2 "densities are not constrained to be less than one" (line 6913); §A.3, the
Gaussian (lines 6925-6927).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.probability import normal_pdf, numeric_cdf

__all__ = ["GaussianCurve", "gaussian_curve", "live_view", "static_view"]

X = np.linspace(-12.0, 12.0, 24_001)


@dataclass(frozen=True)
class GaussianCurve:
    r"""The pdf and CDF on ``x`` (:data:`X` merged with a fine grid of
    :math:`\mu \pm 12\sigma`, so the CDF's integral starts where no mass is left),
    the peak height and the trapezoid area."""

    mu: float
    sigma: float
    x: np.ndarray
    pdf: np.ndarray
    cdf: np.ndarray
    peak: float
    area: float


def gaussian_curve(mu: float = 0.0, sigma: float = 1.0) -> GaussianCurve:
    """The density of N(mu, sigma²) and its CDF on a fine grid.

    >>> c = gaussian_curve(0.0, 0.1)
    >>> round(c.peak, 3), round(c.area, 6)
    (3.989, 1.0)
    """
    if not 0 < sigma <= 4 or not -4 <= mu <= 4:
        raise ValueError(
            f"need 0 < sigma <= 4 and |mu| <= 4; got mu={mu}, sigma={sigma}"
        )
    x = np.union1d(X, np.linspace(mu - 12 * sigma, mu + 12 * sigma, 4001))
    pdf = np.asarray(normal_pdf(x, float(mu), float(sigma) ** 2))
    cdf = np.asarray(numeric_cdf(pdf, x))
    return GaussianCurve(
        float(mu), float(sigma), x, pdf, cdf, float(pdf.max()), float(cdf[-1])
    )


def _axes(fig):
    ax_p, ax_c = fig.subplots(1, 2)
    ax_p.set(xlim=(-5, 5), xlabel="x", ylabel="p(x)", title="density")
    ax_c.set(xlim=(-5, 5), ylim=(-0.05, 1.05), xlabel="x", ylabel="P(x)", title="CDF")
    ax_p.axhline(1.0, color="tab:red", lw=0.8, ls=":", label="height 1")
    for ax in (ax_p, ax_c):
        ax.grid(alpha=0.3)
    (pdf_line,) = ax_p.plot([], [], color="tab:blue")
    (cdf_line,) = ax_c.plot([], [], color="tab:blue")
    ax_p.legend(loc="upper right", fontsize=8)
    return ax_p, pdf_line, cdf_line


def _show(ax_p, pdf_line, cdf_line, c: GaussianCurve) -> str:
    pdf_line.set_data(c.x, c.pdf)
    cdf_line.set_data(c.x, c.cdf)
    for coll in list(ax_p.collections):
        coll.remove()
    ax_p.fill_between(c.x, c.pdf, color="tab:blue", alpha=0.2)
    ax_p.set_ylim(0, max(1.2, 1.1 * c.peak))
    ax_p.set_title(
        f"N(μ={c.mu:.2f}, σ={c.sigma:.2f}): peak {c.peak:.3f}, area {c.area:.4f}"
    )
    side = "above" if c.peak > 1 else "below"
    return f"peak height {c.peak:.4f} ({side} 1); area {c.area:.6f}"


def live_view(mu: float = 0.0, sigma: float = 1.0):
    """Sliders for μ and σ; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((9.0, 3.4), 80)
    ax_p, pdf_line, cdf_line = _axes(fig)
    controls = {
        "mu": w.FloatSlider(
            value=mu, min=-3, max=3, step=0.1, description="μ", **slider_style()
        ),
        "sigma": w.FloatSlider(
            value=sigma, min=0.05, max=3, step=0.05, description="σ", **slider_style()
        ),
    }

    def draw(v):
        return _show(ax_p, pdf_line, cdf_line, gaussian_curve(v["mu"], v["sigma"]))

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(sigmas=None, *, dpi: int = 55):
    """σ shrinking from 3 to 0.05 (log-spaced): the peak passes 1, the area stays."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    sigmas = np.round(np.geomspace(3.0, 0.05, 12), 3) if sigmas is None else sigmas
    fig = new_figure((8.0, 3.2), dpi)
    ax_p, pdf_line, cdf_line = _axes(fig)
    _show(ax_p, pdf_line, cdf_line, gaussian_curve(0.0, 1.0))
    freeze_layout(fig)

    def draw(s):
        _show(ax_p, pdf_line, cdf_line, gaussian_curve(0.0, float(s)))

    return animation_html(fig, draw, sigmas, fps=3)
