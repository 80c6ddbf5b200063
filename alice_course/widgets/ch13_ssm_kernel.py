r"""Widget: a diagonal SSM's eigenvalue, its convolution kernel and its stability.

A complex pair :math:`\lambda = r e^{\pm i\theta}` gives the real impulse response
:math:`\mathrm{Re}(\lambda^k)` (the long-convolution kernel), and the state under a
constant input, which stays bounded for r < 1 and blows up for r > 1. The same outputs
come from the recurrence, the FFT convolution and the parallel scan.

- :func:`ssm_response` computes the kernel, the state norm and the three outputs (pure);
- :func:`live_view`: sliders for |λ| (0-1.1) and the phase θ;
- :func:`static_view`: |λ| sweeping from 0.5 to 1.05.

Book: §13.3.1 (convolutional view, lines 6543-6567) and §13.3.3 (|λ| < 1, line 6711).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.recurrent import diagonal_ssm

__all__ = ["SSMResponse", "live_view", "ssm_response", "static_view"]


@dataclass(frozen=True)
class SSMResponse:
    radius: float
    theta: float
    kernel: np.ndarray  # (n,) Re(λ^k), k = 0..n-1
    state_norm: np.ndarray  # (n,) |s_i| for a constant input
    max_gap: float  # largest difference between recurrence, conv and scan outputs

    @property
    def stable(self) -> bool:
        return self.radius < 1


def ssm_response(radius: float, theta: float = 0.3, n: int = 200) -> SSMResponse:
    """Kernel and state norm of the 2-state diagonal SSM with λ = r e^{±iθ}.

    >>> r = ssm_response(0.9, 0.3); r.stable, r.max_gap < 1e-9
    (True, True)
    """
    if not 0 <= radius <= 1.2 or n < 2:
        raise ValueError(f"need 0 <= radius <= 1.2 and n >= 2; got {radius}, {n}")
    lam = radius * np.exp(np.array([1j, -1j]) * theta)
    B = np.ones((2, 1), dtype=complex)
    C = np.full((1, 2), 0.5 + 0j)
    X = np.ones((n, 1))
    outs = [
        diagonal_ssm(X, lam, B, C, method=m)[:, 0]
        for m in ("recurrent", "conv", "scan")
    ]
    S = diagonal_ssm(X, lam, B)
    scale = max(1.0, float(np.abs(outs[0]).max()))
    gap = max(float(np.abs(o - outs[0]).max()) for o in outs) / scale
    kernel = np.real(lam[0] ** np.arange(n))
    return SSMResponse(float(radius), float(theta), kernel, np.abs(S).max(axis=1), gap)


def _axes(fig):
    ax_c, ax_k, ax_s = fig.subplots(1, 3, width_ratios=(0.8, 1.2, 1.2))
    t = np.linspace(0, 2 * np.pi, 200)
    ax_c.plot(np.cos(t), np.sin(t), color="0.5", lw=0.8)
    (pts,) = ax_c.plot([], [], "o", color="tab:red")
    ax_c.set(
        xlim=(-1.3, 1.3), ylim=(-1.3, 1.3), aspect="equal", title="λ and unit circle"
    )
    (kline,) = ax_k.plot([], [], color="tab:blue")
    ax_k.set(
        xlim=(0, 200),
        ylim=(-1.5, 1.5),
        xlabel="lag k",
        ylabel="Re(λ^k)",
        title="convolution kernel",
    )
    (sline,) = ax_s.semilogy([], [], color="tab:purple")
    ax_s.set(
        xlim=(0, 200),
        ylim=(1e-1, 1e6),
        xlabel="step i",
        ylabel="max |s_i|",
        title="state under constant input",
    )
    return pts, kline, sline


def _show(artists, r: SSMResponse) -> str:
    pts, kline, sline = artists
    pts.set_data(
        [r.radius * np.cos(r.theta)] * 2,
        [r.radius * np.sin(r.theta), -r.radius * np.sin(r.theta)],
    )
    k = np.arange(len(r.kernel))
    kline.set_data(k, np.clip(r.kernel, -1.5, 1.5))
    sline.set_data(k, np.clip(r.state_norm, 1e-1, 1e6))
    verdict = "stable" if r.stable else "unstable (|λ| ≥ 1)"
    return (
        f"|λ| = {r.radius:.2f}, θ = {r.theta:.2f}: {verdict}; recurrence, FFT "
        f"convolution and scan agree to {r.max_gap:.0e}"
    )


def live_view(radius: float = 0.95, theta: float = 0.3):
    """Sliders for |λ| and θ; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((10.0, 3.2), 80)
    artists = _axes(fig)
    controls = {
        "radius": w.FloatSlider(
            value=radius,
            min=0.0,
            max=1.1,
            step=0.01,
            description="|λ|",
            **slider_style(),
        ),
        "theta": w.FloatSlider(
            value=theta,
            min=0.0,
            max=float(np.pi),
            step=0.05,
            description="θ",
            **slider_style(),
        ),
    }
    live = LiveFigure(
        controls, fig, lambda v: _show(artists, ssm_response(v["radius"], v["theta"]))
    )
    live.widget.live = live
    return live.widget


def static_view(radii=None, theta: float = 0.3, *, dpi: int = 55):
    """|λ| sweeping from 0.5 to 1.05 at a fixed phase."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    radii = np.round(np.linspace(0.5, 1.05, 12), 3) if radii is None else radii
    fig = new_figure((10.0, 3.2), dpi)
    artists = _axes(fig)
    title = fig.suptitle("")
    _show(artists, ssm_response(float(radii[0]), theta))
    freeze_layout(fig)

    def draw(r):
        title.set_text(_show(artists, ssm_response(float(r), theta)))

    return animation_html(fig, draw, list(radii), fps=3)
