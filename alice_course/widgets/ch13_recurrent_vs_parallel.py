r"""Widget: causal linear attention read two ways, as a recurrence with a constant-size
memory and as one masked matrix product.

At token i the recurrent form holds :math:`\mathbf{S}_i` (e, v) and
:math:`\mathbf{z}_i` (e); its output equals row i of the parallel form. A KV cache for
softmax attention would hold i·(c + v) numbers by then; the linear memory stays at
e·v + e.

- :func:`state_at` computes the memory, both outputs and the memory counts (pure);
- :func:`live_view`: a slider for the token index i;
- :func:`static_view`: i running over the sequence.

Book: §13.1.2 (lines 6359-6381).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_lab.recurrent import (
    causal_linear_attention_parallel,
    causal_linear_attention_recurrent,
)

__all__ = ["LinearState", "live_view", "state_at", "static_view"]


@dataclass(frozen=True)
class LinearState:
    """The memory after token ``i`` (1-based) and the two outputs for that token."""

    i: int
    S: np.ndarray  # (e, v)
    z: np.ndarray  # (e,)
    h_recurrent: np.ndarray  # (v,)
    h_parallel: np.ndarray  # (v,)
    linear_memory: int
    kv_cache_memory: int

    @property
    def gap(self) -> float:
        return float(np.abs(self.h_recurrent - self.h_parallel).max())


def _data(n: int = 24, c: int = 4, v: int = 5, seed: int = 0):
    r = np.random.default_rng(seed)
    return (
        r.standard_normal((n, c)),
        r.standard_normal((n, c)),
        r.standard_normal((n, v)),
    )


def state_at(i: int, *, n: int = 24, seed: int = 0) -> LinearState:
    """Run the recurrence up to token ``i`` (1 <= i <= n) on seeded random Q, K, V.

    >>> s = state_at(3); s.S.shape, s.gap < 1e-12
    ((4, 5), True)
    """
    if not 1 <= int(i) <= int(n):
        raise ValueError(f"i must lie in 1..{n}; got {i}")
    Q, K, V = _data(n, seed=seed)
    H, (S, z) = causal_linear_attention_recurrent(
        Q[:i], K[:i], V[:i], return_state=True
    )
    par = causal_linear_attention_parallel(Q, K, V)
    e, v = S.shape
    return LinearState(
        int(i), S, z, H[-1], par[i - 1], e * v + e, int(i) * (Q.shape[1] + v)
    )


def _axes(fig, n):
    ax_S, ax_z, ax_m = fig.subplots(1, 3, width_ratios=(1.2, 0.8, 1.2))
    img = ax_S.imshow(np.zeros((4, 5)), cmap="RdBu_r", vmin=-12, vmax=12)
    ax_S.set(title="memory S_i (e × v)", xlabel="value feature", ylabel="key feature")
    bars = ax_z.bar(range(4), np.zeros(4), color="tab:orange")
    ax_z.set(title="normaliser z_i", ylim=(0, 40), xlabel="key feature")
    ax_m.set(
        xlim=(1, n),
        ylim=(0, n * 9 * 1.05),
        xlabel="token i",
        ylabel="numbers stored",
        title="memory at token i",
    )
    (lin,) = ax_m.plot([], [], color="tab:blue", label="linear attention (e·v + e)")
    (kv,) = ax_m.plot([], [], color="tab:red", label="KV cache (i·(c + v))")
    ax_m.legend(fontsize=7, loc="upper left")
    return img, bars, lin, kv


def _show(artists, st: LinearState) -> str:
    img, bars, lin, kv = artists
    img.set_data(st.S)
    for b, h in zip(bars, st.z, strict=True):
        b.set_height(h)
    t = np.arange(1, st.i + 1)
    lin.set_data(t, np.full(t.shape, st.linear_memory))
    kv.set_data(t, t * (st.kv_cache_memory // st.i))
    return (
        f"token {st.i}: |h(recurrent) − h(parallel)| = {st.gap:.1e}; memory "
        f"{st.linear_memory} numbers vs KV cache {st.kv_cache_memory}"
    )


def live_view(i: int = 5, n: int = 24):
    """A slider for the token index; ``box.live`` is the LiveFigure."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    fig = new_figure((10.0, 3.2), 80)
    artists = _axes(fig, n)
    controls = {
        "i": w.IntSlider(value=i, min=1, max=n, description="token i", **slider_style())
    }
    live = LiveFigure(controls, fig, lambda v: _show(artists, state_at(v["i"], n=n)))
    live.widget.live = live
    return live.widget


def static_view(n: int = 24, *, dpi: int = 55):
    """The token index running from 1 to n (one frame per token)."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    fig = new_figure((10.0, 3.2), dpi)
    artists = _axes(fig, n)
    title = fig.suptitle("")
    _show(artists, state_at(1, n=n))
    freeze_layout(fig)

    def draw(i):
        title.set_text(_show(artists, state_at(int(i), n=n)))

    return animation_html(fig, draw, range(1, n + 1), fps=3)
