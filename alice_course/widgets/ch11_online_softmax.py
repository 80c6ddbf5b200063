r"""Widget: the online softmax, one block of keys and values at a time.

For one query q and keys/values split in blocks, the running statistics after block i
are the maximum m, the denominator :math:`L = \sum_j e^{s_j - m}` and the numerator
:math:`\mathbf{h} = \sum_j e^{s_j - m}\mathbf{v}_j` over the blocks seen so far; the
estimate h / L reaches the exact attention output after the last block. With
``stable=False`` (the book's formulas, lines 5711-5735, no maximum) large scores
overflow to inf and the estimate becomes NaN.

- :func:`online_steps` computes every intermediate state (unit-tested against the
  full softmax);
- :func:`live_view`: sliders for the block index, block size and score scale, a
  "stable" checkbox; :func:`static_view`: an animation over the blocks.

Book: §11.2.2 (lines 5695-5741).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import (
    LiveFigure,
    animation_html,
    freeze_layout,
    new_figure,
    slider_style,
)

__all__ = ["OnlineSteps", "live_view", "online_steps", "static_view"]


@dataclass(frozen=True)
class OnlineSteps:
    """States after each block: ``m``, ``L`` (b,), ``h`` (b, dv), ``estimate`` (b, dv),
    ``error`` (b,) = max |estimate − exact|; ``scores`` (n,), ``exact`` (dv,),
    ``bounds``: block boundaries (b + 1,)."""

    scores: np.ndarray
    bounds: np.ndarray
    m: np.ndarray
    L: np.ndarray
    h: np.ndarray
    estimate: np.ndarray
    exact: np.ndarray
    error: np.ndarray
    stable: bool


def online_steps(
    n: int = 24, block: int = 4, scale: float = 1.0, stable: bool = True, seed: int = 0
) -> OnlineSteps:
    """Run the online softmax on one seeded query against n keys (d = 4, dv = 3).

    >>> s = online_steps(12, 4)
    >>> bool(s.error[-1] < 1e-12), len(s.L)
    (True, 3)
    """
    if int(block) < 1 or int(n) < 1:
        raise ValueError(f"n and block must be positive; got n={n}, block={block}")
    r = np.random.default_rng(seed)
    q, K, V = r.standard_normal(4), r.standard_normal((n, 4)), r.standard_normal((n, 3))
    s = scale * (K @ q)
    p = np.exp(s - s.max())
    exact = p @ V / p.sum()
    bounds = np.arange(0, n + block, block).clip(max=n)
    bounds = np.unique(bounds)
    m, L, h = -np.inf, 0.0, np.zeros(3)
    ms, Ls, hs, est = [], [], [], []
    with np.errstate(over="ignore", invalid="ignore"):
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            sb = s[a:b]
            if stable:
                new = max(m, sb.max())
                P = np.exp(sb - new)
                L = L * np.exp(m - new) + P.sum()
                h = h * np.exp(m - new) + P @ V[a:b]
                m = new
            else:
                P = np.exp(sb)
                L, h = L + P.sum(), h + P @ V[a:b]
            ms.append(m)
            Ls.append(L)
            hs.append(h.copy())
            est.append(h / L)
    est = np.array(est)
    err = np.abs(est - exact).max(axis=1)
    return OnlineSteps(
        s, bounds, np.array(ms), np.array(Ls), np.array(hs), est, exact, err, stable
    )


def _draw(axes, st: OnlineSteps, i: int) -> str:
    i = int(np.clip(i, 0, len(st.L) - 1))
    for ax in axes:
        ax.clear()
    n = len(st.scores)
    seen = np.arange(n) < st.bounds[i + 1]
    colors = np.where(seen, "tab:blue", "lightgray").astype(object)
    colors[st.bounds[i] : st.bounds[i + 1]] = "tab:orange"
    axes[0].bar(np.arange(n), st.scores, color=colors)
    axes[0].set(
        xlabel="key j", ylabel="score s_j", title=f"block {i + 1} of {len(st.L)}"
    )
    err = np.where(np.isfinite(st.error), st.error, np.nan)
    axes[1].semilogy(np.arange(1, len(err) + 1), np.maximum(err, 1e-17), "o-")
    axes[1].axvline(i + 1, color="tab:orange", lw=1)
    axes[1].set(
        xlabel="blocks processed", ylabel="max |h/L − exact|", ylim=(1e-17, 1e2)
    )
    axes[1].set_title("stable (running max)" if st.stable else "book formula (no max)")
    overflow = not np.isfinite(st.L[i]) or np.isnan(st.estimate[i]).any()
    m_txt = f"{st.m[i]:.3g}" if st.stable else "none (book formula)"
    label = (
        f"after block {i + 1}: m = {m_txt}, "
        f"L = {st.L[i]:.4g}, "
        f"error = {st.error[i]:.2e}"
    )
    return label + (" — OVERFLOW (inf/NaN)" if overflow else "")


def live_view(block: int = 4, scale: float = 1.0, stable: bool = True):
    """Sliders: block index, block size, score scale (log); checkbox stable."""
    import ipywidgets as w

    controls = {
        "i": w.IntSlider(
            value=0, min=0, max=23, description="block index", **slider_style()
        ),
        "block": w.IntSlider(
            value=block, min=1, max=12, description="block size", **slider_style()
        ),
        "scale": w.FloatLogSlider(
            value=scale, base=10, min=0, max=3, description="scale", **slider_style()
        ),
        "stable": w.Checkbox(value=stable, description="stable"),
    }
    fig = new_figure((9, 3.2))
    axes = fig.subplots(1, 2)

    def draw(v):
        st = online_steps(24, v["block"], v["scale"], v["stable"])
        return _draw(axes, st, v["i"])

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(n: int = 24, block: int = 3, scale: float = 1.0, dpi: int = 60):
    """An HTML animation over the blocks (stable version), no kernel needed."""
    st = online_steps(n, block, scale, True)
    fig = new_figure((9, 3.2), dpi)
    axes = fig.subplots(1, 2)
    title = fig.suptitle("")
    _draw(axes, st, 0)
    freeze_layout(fig)

    def draw(i):
        title.set_text(_draw(axes, st, i))

    return animation_html(fig, draw, range(len(st.L)), fps=2)
