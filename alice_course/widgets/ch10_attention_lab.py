r"""Widget: the attention lab — scores, softmax and output of one self-attention
layer, with and without the :math:`1/\sqrt{k}` scaling.

Queries and keys are drawn with entries :math:`\mathcal{N}(0, \sigma^2)` in k
dimensions. Without the scaling the scores have standard deviation
:math:`\sqrt{k}\sigma^2`, so as k or σ grows the softmax saturates: every row becomes
(nearly) one-hot and its entropy falls to 0. With the scaling the spread is
:math:`\sigma^2` whatever k.

- :func:`attention_panels` computes everything drawn (pure, unit-tested);
- :func:`live_view`: sliders n, k, σ (log) and a "scale by 1/√k" checkbox;
- :func:`static_view`: σ growing, the scaled and unscaled attention side by side.

Book: §10.1.2 (lines 5098-5158), figure F.10.2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.attention import attention_weights, dot_scores

__all__ = ["AttentionPanels", "attention_panels", "live_view", "static_view"]


@dataclass(frozen=True)
class AttentionPanels:
    """Q, K ``(n, k)``, V ``(n, v)``, the scores ``(n, n)``, the attention matrix,
    the output ``(n, v)``, the mean row entropy (nats) and its maximum log n."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    entropy: float
    max_entropy: float


def attention_panels(
    n: int = 6,
    k: int = 8,
    sigma: float = 1.0,
    *,
    scale: bool = True,
    v: int = 4,
    seed: int = 0,
) -> AttentionPanels:
    """One self-attention layer on random queries, keys and values.

    >>> p = attention_panels(5, 4, 1.0)
    >>> p.weights.shape, bool(np.allclose(p.weights.sum(1), 1))
    ((5, 5), True)
    """
    if not (2 <= n <= 64 and 1 <= k <= 512 and sigma > 0):
        raise ValueError(
            f"need 2 <= n <= 64, 1 <= k <= 512, sigma > 0; got n={n}, k={k}, "
            f"sigma={sigma}"
        )
    r = np.random.default_rng(seed)
    Q, K = sigma * r.standard_normal((2, n, k))
    V = r.standard_normal((n, v))
    s = None if scale else False
    S = dot_scores(Q, K, scale=s)
    W = attention_weights(Q, K, scale=s)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.sum(np.where(W > 0, W * np.log(W), 0.0), axis=1)
    return AttentionPanels(Q, K, V, S, W, W @ V, float(ent.mean()), float(np.log(n)))


def _draw(axes, p: AttentionPanels, title: str):
    ax_s, ax_w = axes
    for ax in axes:
        ax.clear()
    lim = max(float(np.abs(p.scores).max()), 1e-9)
    ax_s.imshow(p.scores, cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax_s.set(
        title=f"{title}: scores (|max| {lim:.1f})", xlabel="key j", ylabel="query i"
    )
    ax_w.imshow(p.weights, cmap="viridis", vmin=0, vmax=1)
    ax_w.set(
        title=f"softmax, entropy {p.entropy:.2f}/{p.max_entropy:.2f}", xlabel="key j"
    )


def live_view(n: int = 6, k: int = 16, sigma: float = 1.0):
    """Sliders n, k, σ and the scaling checkbox; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((8.0, 3.6), 80)
    axes = fig.subplots(1, 2)
    controls = {
        "n": w.IntSlider(value=n, min=2, max=12, description="n", **slider_style()),
        "k": w.IntSlider(value=k, min=1, max=256, description="k", **slider_style()),
        "sigma": w.FloatLogSlider(
            value=sigma,
            base=10,
            min=-1,
            max=0.7,
            step=0.05,
            description="σ",
            **slider_style(),
        ),
        "scale": w.Checkbox(value=True, description="scale by 1/√k"),
    }

    def draw(val):
        p = attention_panels(val["n"], val["k"], val["sigma"], scale=val["scale"])
        _draw(axes, p, "scaled" if val["scale"] else "unscaled")
        return (
            f"mean row entropy {p.entropy:.3f} nats (uniform: {p.max_entropy:.3f}); "
            f"largest weight per row on average {p.weights.max(1).mean():.2f}"
        )

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(sigmas=None, *, n: int = 6, k: int = 64, dpi: int = 55):
    """σ growing (log-spaced): unscaled attention collapses to one-hot rows, scaled
    attention much later."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    sigmas = np.round(np.geomspace(0.2, 3.0, 12), 3) if sigmas is None else sigmas
    fig = new_figure((8.0, 4.4), dpi)
    axes = fig.subplots(2, 2)
    _draw(axes[0], attention_panels(n, k, 1.0, scale=True), "scaled")
    _draw(axes[1], attention_panels(n, k, 1.0, scale=False), "unscaled")
    title = fig.suptitle("σ = 1")
    freeze_layout(fig)

    def draw(s):
        _draw(axes[0], attention_panels(n, k, float(s), scale=True), "scaled")
        _draw(axes[1], attention_panels(n, k, float(s), scale=False), "unscaled")
        title.set_text(f"k = {k}, σ = {float(s):.2f}")

    return animation_html(fig, draw, sigmas, fps=3)
