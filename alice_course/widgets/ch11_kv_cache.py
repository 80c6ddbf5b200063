r"""Widget: the KV cache (Figure F.11.4).

At generation step t a decoder with a cache computes one new attention row (t scores
per head) and one new key and value; without it, the whole t × t causal matrix is
recomputed. :func:`kv_costs` counts both (multiply-adds of the attention scores and
weighted sums, per layer and head: ``2·t·d`` with the cache, ``t(t+1)·d`` without),
the cache's bytes (linear in t) and a causal convolution's buffer (constant);
:func:`reuse_grid` is the picture of F.11.4: 2 = new at step t, 1 = reused, 0 = masked.

- :func:`live_view`: a step slider, "use cache" checkbox, layers/heads/head-dim
  sliders; :func:`static_view`: an animation over the steps.

Book: §11.2.3 (lines 5755-5771).
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
from alice_lab.backend import check_int

__all__ = ["KVCosts", "kv_costs", "live_view", "reuse_grid", "static_view"]


@dataclass(frozen=True)
class KVCosts:
    """Per step t = 1..T: ``cached``/``full`` multiply-adds, cumulative sums,
    ``cache_bytes`` and ``conv_bytes`` (a causal conv with the given kernel)."""

    t: np.ndarray
    cached: np.ndarray
    full: np.ndarray
    cum_cached: np.ndarray
    cum_full: np.ndarray
    cache_bytes: np.ndarray
    conv_bytes: np.ndarray


def kv_costs(
    T: int = 32, *, layers: int = 2, heads: int = 4, head_dim: int = 16,
    kernel: int = 4, itemsize: int = 4,
) -> KVCosts:  # fmt: skip
    """Costs of T generation steps.

    >>> c = kv_costs(4, layers=1, heads=1, head_dim=1)
    >>> c.cached.tolist(), c.full.tolist()
    ([2, 4, 6, 8], [2, 6, 12, 20])
    """
    t = np.arange(1, check_int(T, "T") + 1)
    per = layers * heads * head_dim
    cached = 2 * t * per  # q·k for t keys + weighted sum of t values
    full = t * (t + 1) * per  # the lower triangle of QKᵀ and of A V
    e = heads * head_dim
    return KVCosts(
        t,
        cached,
        full,
        np.cumsum(cached),
        np.cumsum(full),
        layers * t * 2 * e * itemsize,
        np.full(t.shape, layers * (kernel - 1) * e * itemsize),
    )


def reuse_grid(t: int, use_cache: bool = True) -> np.ndarray:
    """(t, t) picture of the causal attention at step t: 2 = computed now, 1 = reused
    from the cache, 0 = masked (future).

    >>> reuse_grid(3).tolist()
    [[1, 0, 0], [1, 1, 0], [2, 2, 2]]
    """
    g = np.tril(np.ones((t, t), int))
    if use_cache:
        g[-1] = 2
    else:
        g = 2 * g
    return g


def _draw(axes, t: int, use_cache: bool, costs: KVCosts) -> str:
    for ax in axes:
        ax.clear()
    axes[0].imshow(reuse_grid(t, use_cache), cmap="Greys", vmin=0, vmax=2.4)
    axes[0].set(
        title=f"step t = {t}: dark = computed now", xlabel="key", ylabel="query"
    )
    axes[1].loglog(costs.t, costs.cum_full, label="no cache (t² per step)")
    axes[1].loglog(costs.t, costs.cum_cached, label="KV cache (t per step)")
    axes[1].axvline(t, color="k", lw=0.8, ls=":")
    axes[1].set(xlabel="step t", ylabel="cumulative multiply-adds")
    axes[1].legend(fontsize=7)
    axes[2].plot(costs.t, costs.cache_bytes / 1024, label="KV cache")
    axes[2].plot(costs.t, costs.conv_bytes / 1024, label="causal conv buffer")
    axes[2].axvline(t, color="k", lw=0.8, ls=":")
    axes[2].set(xlabel="step t", ylabel="KiB", title="memory")
    axes[2].legend(fontsize=7)
    i = t - 1
    step = costs.cached[i] if use_cache else costs.full[i]
    return (
        f"step {t}: {step} multiply-adds ({'cache' if use_cache else 'recompute'}); "
        f"cache {costs.cache_bytes[i] / 1024:.1f} KiB vs conv "
        f"{costs.conv_bytes[i] / 1024:.1f} KiB"
    )


def live_view(T: int = 32):
    """Step slider, use-cache checkbox, layers/heads/head-dim sliders."""
    import ipywidgets as w

    controls = {
        "t": w.IntSlider(value=8, min=1, max=T, description="step t", **slider_style()),
        "cache": w.Checkbox(value=True, description="use cache"),
        "layers": w.IntSlider(
            value=2, min=1, max=12, description="layers", **slider_style()
        ),
        "heads": w.IntSlider(
            value=4, min=1, max=16, description="heads", **slider_style()
        ),
        "d": w.IntSlider(
            value=16, min=4, max=128, step=4, description="head dim", **slider_style()
        ),
    }
    fig = new_figure((11, 3.2))
    axes = fig.subplots(1, 3)

    def draw(v):
        c = kv_costs(T, layers=v["layers"], heads=v["heads"], head_dim=v["d"])
        return _draw(axes, v["t"], v["cache"], c)

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(T: int = 16, dpi: int = 60):
    """An HTML animation over the generation steps 1..T (≤ 40 frames)."""
    if not 1 <= T <= 40:
        raise ValueError(f"T must be between 1 and 40; got {T}")
    costs = kv_costs(T)
    fig = new_figure((11, 3.2), dpi)
    axes = fig.subplots(1, 3)
    title = fig.suptitle("")
    _draw(axes, T, True, costs)
    freeze_layout(fig)

    def draw(t):
        title.set_text(_draw(axes, t, True, costs))

    return animation_html(fig, draw, range(1, T + 1), fps=3)
