r"""Widget: how a sentence is cut into tokens by character, word and BPE tokenizers.

- :func:`trained_bpe` learns byte-pair merges on Python's documentation once;
  because training is greedy, the tokenizer with the first ``n`` merges is the one
  trained with ``n`` merges, so a slider can move through them; :func:`segment` cuts
  a text into token strings and ids; :func:`compression_curve` gives bytes per token
  against the number of merges on held-out text;
- :func:`live_view`: a text box, a tokenizer dropdown and a merges slider;
- :func:`static_view`: an animation over the number of merges (F.8.2 / F.8.3).

Book: §8.2.2, tokenization (lines 3794-3850).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from alice_course.widgets._anim import (
    LiveFigure,
    animation_html,
    freeze_layout,
    new_figure,
    slider_style,
)
from alice_lab.text import BPETokenizer, CharTokenizer, WordTokenizer, pydoc_corpus

__all__ = [
    "compression_curve",
    "live_view",
    "segment",
    "static_view",
    "trained_bpe",
]

SENTENCES = ("the cat is on the table", "This is perplexing!", "52 vs 2512")
_COLOURS = ("#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99")


@lru_cache(maxsize=4)
def trained_bpe(max_merges: int = 300, train_chars: int = 80_000) -> BPETokenizer:
    """A byte-level BPE with ``max_merges`` merges learned on Python's docs."""
    return BPETokenizer.train(pydoc_corpus(train_chars), 256 + int(max_merges))


def segment(text: str, kind: str = "bpe", n_merges: int = 100):
    """``(pieces, ids)``: the token strings and ids of ``text`` for ``kind`` in
    ``"char"``, ``"word"``, ``"bpe"`` (with the first ``n_merges`` merges).

    >>> segment("abc", "char")[0]
    ['a', 'b', 'c']
    """
    if kind == "char":
        tok = CharTokenizer(text)
        ids = tok.encode(text)
        return [tok.decode([i]) for i in ids], ids
    if kind == "word":
        tok = WordTokenizer(pydoc_corpus(80_000), vocab_size=2000)
        ids = tok.encode(text)
        return [tok.vocab[i] for i in ids], ids
    if kind == "bpe":
        full = trained_bpe()
        if not 0 <= n_merges <= len(full.merges):
            raise ValueError(
                f"n_merges must lie in [0, {len(full.merges)}]; got {n_merges}"
            )
        tok = BPETokenizer(full.merges[: int(n_merges)])
        ids = tok.encode(text)
        return tok.token_strings(ids), ids
    raise ValueError(f"kind must be 'char', 'word' or 'bpe'; got {kind!r}")


@lru_cache(maxsize=4)
def compression_curve(points: int = 13, held_chars: int = 20_000):
    """(merges, bytes per token) on held-out text, for ``points`` merge counts."""
    full = trained_bpe()
    held = pydoc_corpus(200_000)[-held_chars:]
    ns = np.linspace(0, len(full.merges), int(points)).astype(int)
    ratio = [
        len(held.encode()) / len(BPETokenizer(full.merges[:n]).encode(held)) for n in ns
    ]
    return ns, np.array(ratio)


def _draw_spans(ax, rows) -> None:
    ax.clear()
    ax.set_axis_off()
    ax.set(xlim=(0, 40), ylim=(-len(rows) + 0.3, 1))
    for r, (label, pieces) in enumerate(rows):
        ax.text(0, -r + 0.45, label, fontsize=8, color="0.35")
        x = 0.0
        for j, p in enumerate(pieces):
            shown = p.replace(" ", "␣")
            ax.text(
                x,
                -r,
                shown,
                family="monospace",
                fontsize=10,
                bbox={"fc": _COLOURS[j % len(_COLOURS)], "ec": "none", "pad": 1.5},
            )
            x += 0.42 * len(shown) + 0.3


def live_view(
    text: str = "This is perplexing!", kind: str = "bpe", n_merges: int = 100
):
    """Text box + dropdown + merges slider; coloured token spans and the ids."""
    import ipywidgets as w

    controls = {
        "text": w.Text(value=text, description="text"),
        "kind": w.Dropdown(
            options=["char", "word", "bpe"], value=kind, description="tokenizer"
        ),
        "n_merges": w.IntSlider(
            value=n_merges,
            min=0,
            max=300,
            step=10,
            description="BPE merges",
            **slider_style(),
        ),
    }
    fig = new_figure((8, 1.6), 80)
    ax = fig.subplots()

    def draw(v) -> str:
        if not v["text"]:
            return "type some text"
        pieces, ids = segment(v["text"], v["kind"], v["n_merges"])
        _draw_spans(ax, [(f"{v['kind']}: {len(ids)} tokens", pieces)])
        return f"{len(v['text'])} characters → {len(ids)} ids: {ids[:30]}"

    live = LiveFigure(controls, fig, draw)
    box = live.widget
    box.explorer = live
    return box


def static_view(steps: int = 10, *, dpi: int = 55):
    """Frames over the number of merges (0 = bytes, up to 300): the book's example
    sentences segmented, and the compression on held-out text."""
    ns, ratio = compression_curve()
    frames = np.linspace(0, len(trained_bpe().merges), int(steps)).astype(int)
    fig = new_figure((10, 3.4), dpi)
    ax_t, ax_c = fig.subplots(1, 2, width_ratios=(2.2, 1))
    ax_c.plot(ns, ratio, "-o", ms=3, color="tab:blue")
    ax_c.set(
        xlabel="BPE merges", ylabel="bytes per token (held-out)", title="compression"
    )
    (dot,) = ax_c.plot([], [], "o", color="tab:red", ms=8)
    freeze_layout(fig)

    def draw(n):
        rows = [(f"{n} merges: {s!r}", segment(s, "bpe", n)[0]) for s in SENTENCES]
        _draw_spans(ax_t, rows)
        dot.set_data([n], [np.interp(n, ns, ratio)])

    return animation_html(fig, draw, frames, fps=2)
