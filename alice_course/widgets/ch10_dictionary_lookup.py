r"""Widget: soft versus hard dictionary lookup.

Five keys in the plane, each storing a colour (its value). A query is compared with
every key by the dot product; hard attention returns the colour of the best-matching
key (a "closest key" dictionary), soft attention a blend,
:math:`\sum_j \mathrm{softmax}_j(\beta\,\mathbf{q}^\top\mathbf{k}_j)\,\mathbf{v}_j`.
The inverse temperature β morphs one into the other: β → 0 gives the average colour,
β → ∞ the hard lookup. The argmax has no useful gradient; the softmax does.

- :func:`lookup` computes the weights, the output colour and the gradient norm (pure);
- :func:`live_view`: sliders for the query and β, a soft/hard toggle;
- :func:`static_view`: β growing from 0.01 to 100.

Book: §10.1.3, "An explanation of the terminology" and Box 10.1 (lines 5182-5214).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.attention import hard_attention, tempered_attention

__all__ = ["KEYS", "VALUES", "Lookup", "live_view", "lookup", "static_view"]

KEYS = (
    np.array([[1.0, 0.0], [0.31, 0.95], [-0.81, 0.59], [-0.81, -0.59], [0.31, -0.95]])
    * 2.0
)
VALUES = np.array(
    [
        [0.89, 0.1, 0.11],
        [0.99, 0.7, 0.1],
        [0.2, 0.7, 0.2],
        [0.15, 0.45, 0.9],
        [0.6, 0.2, 0.75],
    ]
)  # RGB colours


@dataclass(frozen=True)
class Lookup:
    """The query ``(2,)``, β, the weights ``(5,)``, the output colour ``(3,)``, the
    index of the closest key and the norm of d(output)/d(query)."""

    query: np.ndarray
    beta: float
    hard: bool
    weights: np.ndarray
    colour: np.ndarray
    argmax: int
    grad_norm: float


def lookup(
    qx: float = 0.5, qy: float = 0.2, beta: float = 1.0, *, hard: bool = False
) -> Lookup:
    """Soft (or hard) lookup of the query (qx, qy) among :data:`KEYS`.

    >>> lk = lookup(2.0, 0.0, 1e4)
    >>> lk.argmax, float(lk.weights.round(3)[0])
    (0, 1.0)
    """
    if beta < 0:
        raise ValueError(f"beta must be >= 0; got {beta}")
    q = np.array([[qx, qy]], dtype=float)
    s = beta * (KEYS @ q[0])
    j = int(np.argmax(s))
    if hard:
        w = np.eye(len(KEYS))[j]
        out = hard_attention(q, KEYS, VALUES, scale=False)[0]
        grad = 0.0  # piecewise constant in q
    else:
        w = np.exp(s - s.max())
        w /= w.sum()
        out = tempered_attention(q, KEYS, VALUES, beta, scale=False)[0]
        # d out / d q = beta * sum_j w_j (v_j - out) k_j^T
        J = beta * ((VALUES - out).T * w) @ KEYS
        grad = float(np.linalg.norm(J))
    return Lookup(q[0], float(beta), hard, w, np.clip(out, 0, 1), j, grad)


def _axes(fig):
    from matplotlib.patches import Rectangle

    ax_p, ax_b = fig.subplots(1, 2, width_ratios=(1.1, 1))
    ax_p.scatter(KEYS[:, 0], KEYS[:, 1], c=VALUES, s=220, edgecolors="k", zorder=3)
    for i, k in enumerate(KEYS):
        ax_p.annotate(f"k{i}", k, xytext=(8, 8), textcoords="offset points")
    ax_p.set(xlim=(-3, 3), ylim=(-3, 3), aspect="equal", xlabel="x", ylabel="y")
    (star,) = ax_p.plot([], [], "*", ms=18, mec="k", color="white", zorder=4)
    patch = ax_p.add_patch(Rectangle((1.6, 1.9), 1.2, 0.9, ec="k", zorder=4))
    ax_p.text(1.6, 2.85, "output", fontsize=8)
    bars = ax_b.bar(range(len(KEYS)), np.zeros(len(KEYS)), color=VALUES, edgecolor="k")
    ax_b.set(
        ylim=(0, 1.05),
        xticks=range(len(KEYS)),
        xticklabels=[f"k{i}" for i in range(len(KEYS))],
        ylabel="weight",
    )
    return ax_p, ax_b, star, patch, bars


def _show(parts, lk: Lookup) -> str:
    ax_p, ax_b, star, patch, bars = parts
    star.set_data([lk.query[0]], [lk.query[1]])
    patch.set_facecolor(lk.colour)
    for b, h in zip(bars, lk.weights, strict=True):
        b.set_height(h)
    mode = "hard (argmax)" if lk.hard else f"soft, β = {lk.beta:.3g}"
    ax_b.set_title(f"{mode}: weights")
    ax_p.set_title("keys (colour = value), query ★")
    return (
        f"{mode}: closest key k{lk.argmax}; output colour "
        f"{np.round(lk.colour, 2).tolist()}; ‖∂output/∂q‖ = {lk.grad_norm:.3g}"
    )


def live_view(qx: float = 0.5, qy: float = 0.2, beta: float = 1.0):
    """Sliders qx, qy, β (log), a soft/hard toggle; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((8.0, 3.6), 80)
    parts = _axes(fig)
    controls = {
        "qx": w.FloatSlider(
            value=qx, min=-2.5, max=2.5, step=0.05, description="qx", **slider_style()
        ),
        "qy": w.FloatSlider(
            value=qy, min=-2.5, max=2.5, step=0.05, description="qy", **slider_style()
        ),
        "beta": w.FloatLogSlider(
            value=beta,
            base=10,
            min=-2,
            max=2,
            step=0.05,
            description="β",
            **slider_style(),
        ),
        "mode": w.ToggleButtons(options=["soft", "hard"], value="soft"),
    }

    def draw(v):
        return _show(
            parts, lookup(v["qx"], v["qy"], v["beta"], hard=v["mode"] == "hard")
        )

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(betas=None, *, query=(0.9, 0.6), dpi: int = 55):
    """β from 0.01 to 100: the output goes from the average to the closest colour."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    betas = np.round(np.geomspace(0.01, 100, 13), 4) if betas is None else betas
    fig = new_figure((8.0, 3.6), dpi)
    parts = _axes(fig)
    _show(parts, lookup(*query, 1.0))
    freeze_layout(fig)

    def draw(b):
        _show(parts, lookup(*query, float(b)))

    return animation_html(fig, draw, betas, fps=3)
