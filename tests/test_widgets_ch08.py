"""Chapter 8 widgets, three layers each: the pure functions against independent
computations (counts in the corpus, torch gradients, the BPE reference), the live
views driven through their controls, and the static HTML animations."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from alice_course.widgets import (
    ch08_causal_conv as causal_conv,
    ch08_sampling as sampling,
    ch08_tokenizer_view as tokenizer_view,
)
from alice_lab.text import pydoc_corpus


def _core_only(widget) -> None:
    assert widget._view_module in ("@jupyter-widgets/controls", "@jupyter-widgets/base")
    for child in getattr(widget, "children", ()):
        _core_only(child)


def _check_static(html, frames: int) -> None:
    import matplotlib.pyplot as plt

    assert re.search(r'<input[^>]*type="range"', html)
    found = len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", html))
    assert found == frames
    assert "https://" not in html and "http://" not in html.replace(
        "http://www.w3.org", ""
    )
    assert plt.get_fignums() == []


# --- sampling ---------------------------------------------------------------------


def test_next_char_logits_are_corpus_counts():
    chars, z = sampling.next_char_logits("th", n=5)
    text = pydoc_corpus(200_000)
    counts = Counter(m.group(1) for m in re.finditer(r"(?=th(.))", text, re.S))
    top = counts.most_common(5)
    assert list(chars) == [c for c, _ in top]
    np.testing.assert_allclose(np.exp(z), [n for _, n in top])
    with pytest.raises(ValueError, match="non-empty"):
        sampling.next_char_logits("")


def test_sampling_view_renormalises_and_orders_entropy():
    z = np.log([0.5, 0.2, 0.15, 0.1, 0.05])
    v = sampling.sampling_view(z, 1.0, 2, None)
    np.testing.assert_allclose(v.kept, [0.5 / 0.7, 0.2 / 0.7, 0, 0, 0])
    np.testing.assert_allclose(v.full, [0.5, 0.2, 0.15, 0.1, 0.05])
    assert v.n_kept == 2 and v.entropy_kept < v.entropy_full
    # 0.5 + 0.2 < 0.8 <= 0.5 + 0.2 + 0.15 < 0.9 <= ... + 0.1
    assert sampling.sampling_view(z, 1.0, None, 0.8).n_kept == 3
    assert sampling.sampling_view(z, 1.0, None, 0.9).n_kept == 4
    hot, cold = sampling.sampling_view(z, 5.0), sampling.sampling_view(z, 0.2)
    assert hot.entropy_full > cold.entropy_full
    with pytest.raises(ValueError, match="temperature"):
        sampling.sampling_view(z, -1.0)


def test_sampling_live_view_follows_controls():
    box = sampling.live_view()
    _core_only(box)
    live = box.explorer
    assert "12/12 characters kept" in live.label.value
    live.controls["top_k"].value = 3
    assert "3/12 characters kept" in live.label.value
    live.controls["top_p"].value = 0.05
    assert "1/12 characters kept" in live.label.value
    assert live.image.value[:4] == b"\x89PNG"


def test_sampling_static_view():
    _check_static(sampling.static_view(frames=5).data, 5)


# --- causal / dilated receptive fields ------------------------------------------


def _torch_support(L, s, base, causal, t=32, out=None):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = torch.zeros(1, 1, t, dtype=torch.float64, requires_grad=True)
    h = x
    for lvl in range(L):
        d = base**lvl
        w = torch.ones(1, 1, s, dtype=torch.float64)
        if causal:
            h = F.conv1d(F.pad(h, ((s - 1) * d, 0)), w, dilation=d)
        else:
            h = F.conv1d(h, w, dilation=d, padding=(s - 1) // 2 * d)
    out = (t - 1 if causal else t // 2) if out is None else out
    (g,) = torch.autograd.grad(h[0, 0, out], x)
    return g[0, 0].numpy() != 0


@pytest.mark.parametrize(
    "L,s,base,causal",
    [(3, 2, 2, True), (4, 2, 2, True), (2, 3, 1, False), (3, 3, 2, False)],
)
def test_receptive_field_matches_torch_gradient_support(L, s, base, causal):
    rf = causal_conv.receptive_field_graph(
        L, s, dilation_base=base, causal=causal, t=64
    )
    np.testing.assert_array_equal(rf.active[0], _torch_support(L, s, base, causal, 64))
    assert rf.active[0].sum() == rf.size == 1 + (s - 1) * sum(base**i for i in range(L))


def test_receptive_field_bad_input():
    with pytest.raises(ValueError, match="odd"):
        causal_conv.receptive_field_graph(2, 2, causal=False)
    with pytest.raises(ValueError, match=">= 1"):
        causal_conv.receptive_field_graph(0)
    with pytest.raises(ValueError, match="out_index"):
        causal_conv.receptive_field_graph(2, t=8, out_index=8)


def test_causal_conv_live_and_static():
    box = causal_conv.live_view()
    _core_only(box)
    live = box.explorer
    assert "receptive field 1 + (s−1)·Σd = 16" in live.label.value
    live.controls["dilation_base"].value = 1
    assert "= 5 steps" in live.label.value
    live.controls["causal"].value = False  # kernel 2 becomes 3 (centred)
    assert "centred, s = 3" in live.label.value
    _check_static(causal_conv.static_view(max_layers=3).data, 3)


# --- tokenizer view ---------------------------------------------------------------


def test_segment_pieces_rebuild_the_text():
    s = "This is perplexing!"
    for n in (0, 50, 300):
        pieces, ids = tokenizer_view.segment(s, "bpe", n)
        assert "".join(pieces) == s and len(pieces) == len(ids)
    assert len(tokenizer_view.segment(s, "bpe", 0)[0]) == len(s.encode())
    assert len(tokenizer_view.segment(s, "bpe", 300)[0]) < len(s)
    assert tokenizer_view.segment("the cat", "word")[0][0] == "the"
    with pytest.raises(ValueError, match="kind"):
        tokenizer_view.segment(s, "sentencepiece")
    with pytest.raises(ValueError, match="n_merges"):
        tokenizer_view.segment(s, "bpe", 10_000)


def test_compression_grows_with_merges():
    ns, ratio = tokenizer_view.compression_curve(points=4)
    assert ns[0] == 0 and ratio[0] == pytest.approx(1.0)
    assert np.all(np.diff(ratio) > 0) and ratio[-1] > 1.5


def test_tokenizer_live_and_static():
    box = tokenizer_view.live_view()
    _core_only(box)
    live = box.explorer
    assert live.label.value.startswith("19 characters → 10 ids")
    live.controls["kind"].value = "char"
    assert "19 characters → 19 ids" in live.label.value
    _check_static(tokenizer_view.static_view(steps=3).data, 3)
