r"""Widget: sampling the next token with temperature, top-k and top-p.

- :func:`next_char_logits` gives real logits: the log-frequencies of the characters
  that follow a context in Python's documentation (``pydoc_data``), a tiny
  character-level language model; :func:`sampling_view` computes what is drawn (the
  softmax at temperature τ, the renormalised top-k / top-p distribution, entropies);
- :func:`live_view`: sliders τ, k, p and a context dropdown, bar chart + samples;
- :func:`static_view`: an animation over τ, without and with top-k / top-p.

Book: §8.4.2, sampling in an autoregressive model (lines 4214-4252); temperature
(line 4244) refers to the softmax temperature of §4.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from alice_course.widgets._anim import (
    LiveFigure,
    animation_html,
    freeze_layout,
    new_figure,
    slider_style,
)
from alice_lab.sequence import next_token_distribution, sample_next_token

__all__ = [
    "SamplingView",
    "live_view",
    "next_char_logits",
    "sampling_view",
    "static_view",
]

CONTEXTS = ("th", "in", "de", "re", "fo")


@lru_cache(maxsize=16)
def next_char_logits(context: str = "th", *, n: int = 12, max_chars: int = 200_000):
    """The ``n`` most frequent characters after ``context`` in Python's docs, and
    their log-frequencies (logits of a count-based model). Returns (chars, logits)."""
    from alice_lab.text import pydoc_corpus

    if not context:
        raise ValueError("context must be a non-empty string")
    text = pydoc_corpus(max_chars)
    k = len(context)
    counts = Counter(
        text[i + k] for i in range(len(text) - k) if text.startswith(context, i)
    )
    if not counts:
        raise ValueError(f"context {context!r} does not occur in the corpus")
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    chars = tuple(c for c, _ in top)
    logits = np.log(np.array([v for _, v in top], dtype=float))
    return chars, logits


@dataclass(frozen=True)
class SamplingView:
    """What the widget draws: ``full`` = softmax(z / τ), ``kept`` = the distribution
    after top-k / top-p, renormalised; their entropies (nats) and the kept count."""

    temperature: float
    top_k: int | None
    top_p: float | None
    full: np.ndarray
    kept: np.ndarray
    entropy_full: float
    entropy_kept: float

    @property
    def n_kept(self) -> int:
        return int((self.kept > 0).sum())


def _entropy(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


def sampling_view(logits, temperature=1.0, top_k=None, top_p=None) -> SamplingView:
    """Compute both distributions (τ = 0 is greedy: one-hot at the argmax).

    >>> v = sampling_view(np.log([0.5, 0.3, 0.2]), top_k=2)
    >>> v.n_kept, round(float(v.kept[0]), 3)
    (2, 0.625)
    """
    full = next_token_distribution(logits, temperature=temperature)
    kept = next_token_distribution(
        logits, temperature=temperature, top_k=top_k, top_p=top_p
    )
    return SamplingView(
        float(temperature), top_k, top_p, full, kept, _entropy(full), _entropy(kept)
    )


def _label(v: SamplingView, chars) -> str:
    return (
        f"τ = {v.temperature:.2f}, top-k = {v.top_k or 'off'}, top-p = "
        f"{v.top_p if v.top_p is not None else 'off'}: {v.n_kept}/{len(chars)} "
        f"characters kept, entropy {v.entropy_full:.2f} → {v.entropy_kept:.2f} nats"
    )


def _setup(ax, chars):
    x = np.arange(len(chars))
    full = ax.bar(x - 0.2, np.zeros(len(chars)), 0.4, color="0.7", label="softmax(z/τ)")
    kept = ax.bar(
        x + 0.2, np.zeros(len(chars)), 0.4, color="tab:blue", label="sampled from"
    )
    ax.set_xticks(x, [repr(c)[1:-1].replace(" ", "␣") for c in chars])
    ax.set(ylim=(0, 1.02), xlabel="next character", ylabel="probability")
    ax.legend(loc="upper right", fontsize=8)
    return full, kept


def _update(bars, v: SamplingView):
    for bar_set, p in zip(bars, (v.full, v.kept), strict=True):
        for b, h in zip(bar_set, p, strict=True):
            b.set_height(h)


def live_view(context: str = "th", temperature: float = 1.0):
    """Sliders τ (log scale), top-k, top-p; a context dropdown; the two distributions
    as bars and 30 characters sampled from the kept one. Core widgets only."""
    import ipywidgets as w

    opts = slider_style()
    controls = {
        "context": w.Dropdown(
            options=list(CONTEXTS), value=context, description="after"
        ),
        "temperature": w.FloatLogSlider(
            value=temperature,
            base=10,
            min=-1.5,
            max=1,
            step=0.05,
            description="temperature τ",
            **opts,
        ),
        "top_k": w.IntSlider(value=12, min=1, max=12, description="top-k", **opts),
        "top_p": w.FloatSlider(
            value=1.0, min=0.05, max=1.0, step=0.05, description="top-p", **opts
        ),
    }
    fig = new_figure((7, 3.2), 80)
    ax = fig.subplots()
    state = {"context": None, "bars": None}

    def draw(values) -> str:
        chars, z = next_char_logits(values["context"])
        if state["context"] != values["context"]:
            ax.clear()
            state["bars"] = _setup(ax, chars)
            state["context"] = values["context"]
        k = values["top_k"] if values["top_k"] < len(chars) else None
        p = values["top_p"] if values["top_p"] < 1 else None
        v = sampling_view(z, values["temperature"], k, p)
        _update(state["bars"], v)
        ax.set_title(f"next character after {values['context']!r}")
        rng = np.random.default_rng(0)
        draws = "".join(
            chars[
                sample_next_token(
                    z, temperature=v.temperature, top_k=k, top_p=p, rng=rng
                )
            ]
            for _ in range(30)
        )
        return _label(v, chars) + f" | samples: {draws!r}"

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.explorer = live
    return box


def static_view(context: str = "th", *, frames: int = 12, dpi: int = 55):
    """Animation over τ from 0.1 to 5: left, plain temperature sampling; right, the
    same with top-k = 4 and top-p = 0.9 (what is left, renormalised)."""
    chars, z = next_char_logits(context)
    taus = np.geomspace(0.1, 5, int(frames))
    fig = new_figure((9, 3.2), dpi)
    axes = fig.subplots(1, 2, sharey=True)
    bars = [_setup(ax, chars) for ax in axes]
    axes[0].set_title("temperature only")
    axes[1].set_title("temperature + top-k = 4 + top-p = 0.9")
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(tau):
        _update(bars[0], sampling_view(z, tau))
        v = sampling_view(z, tau, 4, 0.9)
        _update(bars[1], v)
        title.set_text(
            f"next character after {context!r}, τ = {tau:.2f} "
            f"(entropy {v.entropy_full:.2f} nats)"
        )

    return animation_html(fig, draw, taus, fps=4)
