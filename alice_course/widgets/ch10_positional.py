r"""Widget: the positional-embedding explorer.

Left: three sines :math:`\sin(\omega x)` with a position x marked on each (the
embedding of x is the three values, figure F.10.6 of the book). Middle: the
sinusoidal table :math:`\mathbf{S} \sim (m, e)` with the row of the current position.
Right: the similarity :math:`\mathbf{S}_i \cdot \mathbf{S}_j` against the offset i - j,
the same for every i (the table's Gram matrix is Toeplitz).

- :func:`sine_embedding` and :func:`offset_similarity` compute what is drawn (pure);
- :func:`live_view`: sliders for x, the three ω, e and the base;
- :func:`static_view`: x sweeping from 0 to 4π.

Book: §10.2.2 (lines 5358-5434).
"""

from __future__ import annotations

import numpy as np

from alice_lab.attention import sinusoidal_positions

__all__ = ["live_view", "offset_similarity", "sine_embedding", "static_view"]

OMEGAS = (0.1, 1.0, 10.0)
GRID = np.linspace(0, 4 * np.pi, 2000)


def sine_embedding(x: float, omegas=OMEGAS) -> np.ndarray:
    """``[sin(ω_1 x), ..., sin(ω_r x)]``.

    >>> sine_embedding(6.0).round(4).tolist()
    [0.5646, -0.2794, -0.3048]
    """
    return np.sin(np.asarray(omegas, dtype=float) * float(x))


def offset_similarity(
    m: int = 128, e: int = 32, *, base: float = 10000.0, i: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets ``d = 0..m-1-i`` and :math:`\\mathbf{S}_i\\cdot\\mathbf{S}_{i+d}`; the
    same curve for every i (it equals :math:`\\sum_l \\cos(\\omega_l d)`)."""
    S = sinusoidal_positions(m, e, base=base)
    d = np.arange(m - i)
    return d, S[i + d] @ S[i]


def _axes(fig, m, e, base):
    ax_s, ax_t, ax_g = fig.subplots(1, 3, width_ratios=(1.3, 1, 1))
    lines = [
        ax_s.plot(GRID, np.sin(w * GRID), lw=1, label=f"ω = {w:g}")[0] for w in OMEGAS
    ]
    (dots,) = ax_s.plot([], [], "o", color="tab:red", ms=7, mfc="none", mew=2)
    vline = ax_s.axvline(0, color="tab:red", lw=0.8, ls=":")
    ax_s.set(xlabel="position x", ylabel="sin(ωx)", ylim=(-1.15, 1.15))
    ax_s.legend(fontsize=7, loc="lower left")
    S = sinusoidal_positions(m, e, base=base)
    ax_t.imshow(S, aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
    hline = ax_t.axhline(0, color="k", lw=1)
    ax_t.set(title=f"table S ({m}×{e})", xlabel="feature", ylabel="position")
    d, sim = offset_similarity(m, e, base=base)
    ax_g.plot(d, sim, color="tab:purple")
    ax_g.set(title="S_i·S_{i+d}", xlabel="offset d")
    ax_g.grid(alpha=0.3)
    return ax_s, lines, dots, vline, hline


def _show(parts, x, omegas, m) -> str:
    ax_s, lines, dots, vline, hline = parts
    for ln, w in zip(lines, omegas, strict=True):
        ln.set_data(GRID, np.sin(w * GRID))
        ln.set_label(f"ω = {w:g}")
    emb = sine_embedding(x, omegas)
    dots.set_data([x] * len(omegas), emb)
    vline.set_xdata([x, x])
    hline.set_ydata([min(x, m - 1)] * 2)
    ax_s.set_title(f"x = {x:.2f}: embedding {np.round(emb, 3).tolist()}", fontsize=9)
    return f"embedding of x = {x:.3f}: {np.round(emb, 4).tolist()}"


def live_view(x: float = 6.0):
    """Sliders for x, the three ω (log) and the table's e and base."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((10.0, 3.4), 80)
    state = {"parts": _axes(fig, 128, 32, 10000.0), "table": (32, 10000.0)}
    controls = {
        "x": w.FloatSlider(
            value=x, min=0, max=12.5, step=0.05, description="x", **slider_style()
        ),
        **{
            f"w{i}": w.FloatLogSlider(
                value=om,
                base=10,
                min=-2,
                max=1.5,
                step=0.05,
                description=f"ω{i + 1}",
                **slider_style(),
            )
            for i, om in enumerate(OMEGAS)
        },
        "e": w.IntSlider(
            value=32, min=8, max=128, step=8, description="e", **slider_style()
        ),
        "base": w.FloatLogSlider(
            value=10000,
            base=10,
            min=1,
            max=5,
            step=0.25,
            description="base",
            **slider_style(),
        ),
    }

    def draw(v):
        if (v["e"], v["base"]) != state["table"]:
            fig.clear()
            state["parts"] = _axes(fig, 128, v["e"], v["base"])
            state["table"] = (v["e"], v["base"])
        return _show(state["parts"], v["x"], [v["w0"], v["w1"], v["w2"]], 128)

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(xs=None, *, dpi: int = 55):
    """x sweeping 0 … 4π: the red circles give the embedding; the row moves down S."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    xs = np.round(np.linspace(0, 4 * np.pi, 12), 3) if xs is None else xs
    fig = new_figure((10.0, 3.4), dpi)
    parts = _axes(fig, 128, 32, 10000.0)
    _show(parts, 6.0, OMEGAS, 128)
    freeze_layout(fig)

    def draw(x):
        _show(parts, float(x), OMEGAS, 128)

    return animation_html(fig, draw, xs, fps=3)
