"""Checkable claims of Chapter 8, §8.2: variable-length inputs, text, embeddings and
long sequences (book lines 3736-3958). Checks compare alice_lab.text and alice_lab.conv
with torch's pad_sequence / nn.Embedding / conv1d / max_pool1d, Python's
collections.Counter and re, a plain-Python byte-pair encoder, and gradients taken by
torch.autograd."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from alice_course.claims import claim
from alice_course.claims._ch08 import conv_stack_support, torch_conv1d
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 8.2.1 Dealing with variable-length inputs
# =====================================================================================


@claim(
    "C8-09",
    section="8.2.1",
    lines=(3742, 3748),
    statement="Convolutions and pooling accept any length; after a global pooling "
    "over the length, inputs of length 37 and 50 give vectors of the same shape (c′).",
)
def _c8_09() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.conv import conv1d, global_avg_pool, max_pool1d

    r = _rng(9)
    W, b = r.standard_normal((5, 3, 8)), r.standard_normal(8)  # (s, c, c′), (c′)
    wt, bt = torch.from_numpy(W.transpose(2, 1, 0).copy()), torch.from_numpy(b)
    shapes, errs = [], []
    for t in (37, 50):
        X = r.standard_normal((1, t, 3))  # (b, t, c), channels last
        H = np.maximum(_np(conv1d(X, W, b, padding=2)), 0)
        P = _np(max_pool1d(H, 2))
        h = _np(global_avg_pool(P, spatial_dims=1))
        # torch, channels first: conv1d -> relu -> max_pool1d -> mean over the length
        x = torch.from_numpy(X.transpose(0, 2, 1).copy())
        Ht = F.relu(F.conv1d(x, wt, bt, padding=2))
        Pt = F.max_pool1d(Ht, 2)
        errs += [
            _maxerr(H, Ht.transpose(1, 2)),
            _maxerr(P, Pt.transpose(1, 2)),
            _maxerr(h, Pt.mean(-1)),
        ]
        shapes.append((H.shape[1:], P.shape[1:], h.shape[1:]))
    assert max(errs) < 1e-12, errs
    assert shapes == [((37, 8), (18, 8), (8,)), ((50, 8), (25, 8), (8,))], shapes
    return (
        f"alice_lab conv1d, max_pool1d, global_avg_pool = torch's ({max(errs):.0e}); "
        "lengths 37, 50 → feature maps (18, 8), (25, 8) → pooled (8,), (8,)"
    )


@claim(
    "C8-10",
    section="8.2.1",
    lines=(3750, 3754),
    statement="Zero-padding b sequences to the longest gives one (b, max t_i, c) "
    "array; for two sequences, (2, t_1, c).",
)
def _c8_10() -> str:
    from alice_lab.text import pad_sequences

    r = _rng(10)
    X1, X2 = r.standard_normal((7, 3)), r.standard_normal((4, 3))
    B = pad_sequences([X1, X2])
    assert B.shape == (2, 7, 3)
    assert np.array_equal(B[1], np.vstack([X2, np.zeros((3, 3))]))
    return "t_1 = 7, t_2 = 4, c = 3 → (2, 7, 3), the second padded with 3 zero rows"


@claim(
    "C8-11",
    section="8.2.1",
    lines=(3754, 3790),
    statement="Padding is exact for one 'same' convolution on the real positions, but "
    "after conv-ReLU-conv the last k real outputs change (the bias leaks into the "
    "pad); multiplying by the mask after every layer makes it exact again.",
)
def _c8_11() -> str:
    from alice_lab.conv import conv1d

    r = _rng(11)
    s, k, t2, t1 = 5, 2, 6, 10
    W1, b1 = r.standard_normal((s, 2, 4)), r.standard_normal(4)  # (s, c, c′)
    W2, b2 = r.standard_normal((s, 4, 3)), r.standard_normal(3)
    X2 = r.standard_normal((t2, 2))
    Xpad = np.vstack([X2, np.zeros((t1 - t2, 2))])
    mask = (np.arange(t1) < t2)[:, None].astype(float)

    def layer(X, W, b):  # alice_lab's 'same' convolution, channels last
        return _np(conv1d(X, W, b, padding="same"))

    def net(X, remask):
        H = np.maximum(layer(X, W1, b1), 0)
        if remask:
            H = H * mask[: len(H)]
        return layer(H, W2, b2)

    # torch's conv1d on the unpadded sequence is the reference (W in torch's (s, c′, c))
    ref1 = torch_conv1d(X2, W1.transpose(0, 2, 1), b1)
    ref2 = torch_conv1d(
        np.maximum(ref1, 0), W2.transpose(0, 2, 1), b2
    )  # the two-layer net, torch
    one = max(_maxerr(layer(Xpad, W1, b1)[:t2], ref1), _maxerr(layer(X2, W1, b1), ref1))
    diff = np.abs(net(Xpad, False)[:t2] - ref2).max(axis=1)
    exact = max(_maxerr(net(Xpad, True)[:t2], ref2), _maxerr(net(X2, False), ref2))
    assert one < 1e-12 and exact < 1e-12, (one, exact)
    assert (diff[: t2 - k] < 1e-12).all() and (diff[t2 - k :] > 1e-6).all(), diff
    return (
        f"alice_lab conv1d vs torch on the unpadded sequence: 1 layer {one:.0e}; "
        f"2 layers: last {k} positions off by up to {diff.max():.2f}; "
        f"re-masked: {exact:.0e}"
    )


@claim(
    "C8-12",
    section="8.2.1",
    lines=(3756, 3780),
    statement="Box 8.1: pad_sequence on random sequences of lengths 3, 5, 2 with 8 "
    "channels (batch_first) gives shape (3, 5, 8), zeros after each sequence.",
)
def _c8_12() -> str:
    import torch
    from torch.nn.utils.rnn import pad_sequence

    from alice_lab.text import pad_sequences

    torch.manual_seed(0)
    seqs = [torch.randn(3, 8), torch.randn(5, 8), torch.randn(2, 8)]
    P = pad_sequence(seqs, batch_first=True)
    ours = pad_sequences([s.numpy() for s in seqs])
    assert tuple(P.shape) == (3, 5, 8) and np.array_equal(P.numpy(), ours)
    assert not P[2, 2:].any()
    return "torch pad_sequence → (3, 5, 8) = alice_lab.text.pad_sequences"


@claim(
    "C8-13",
    section="8.2.1",
    lines=(3782, 3790),
    statement="The mask M has ones on the first t_b entries of row b and zeros after; "
    "the masked mean Σ_i M_i H_i / Σ_i M_i equals the mean of the unpadded sequence.",
)
def _c8_13() -> str:
    from alice_lab.text import length_mask, masked_mean_pool, pad_sequences

    M = length_mask([5, 3], 5)
    assert M.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]
    r = _rng(13)
    H = [r.standard_normal((5, 4)), r.standard_normal((3, 4))]
    got = masked_mean_pool(pad_sequences(H), M)
    err = _maxerr(got, np.stack([h.mean(0) for h in H]))
    naive = _maxerr(pad_sequences(H).mean(1)[1], H[1].mean(0))
    assert err < 1e-12 < naive, (err, naive)
    return f"masked mean = unpadded mean ({err:.0e}); plain mean off by {naive:.2f}"


# =====================================================================================
# 8.2.2 CNNs for text data
# =====================================================================================


@claim(
    "C8-14",
    section="8.2.2",
    lines=3820,
    statement="A vocabulary keeps the most frequent tokens up to a chosen size; every "
    "other token maps to an out-of-vocabulary id.",
)
def _c8_14() -> str:
    from alice_lab.text import WordTokenizer, pydoc_corpus

    text = pydoc_corpus(50_000)
    tok = WordTokenizer(text, vocab_size=100)
    top = Counter(re.findall(r"\w+|[^\w\s]", text)).most_common(1)[0][0]
    assert tok.vocab_size == 100 and tok.vocab[2] == top
    ids = tok.encode("the flibbertigibbet")
    assert ids[1] == tok.oov_id and ids[0] != tok.oov_id
    share = np.mean(np.array(tok.encode(text)) == tok.oov_id)
    return f"V = 100 on 50k chars: top word {top!r}; {share:.0%} of words map to [OOV]"


@claim(
    "C8-15",
    section="8.2.2",
    lines=(3822, 3830),
    statement="A subword tokenizer gives fewer ids than characters and decodes back "
    "exactly (tiktoken's [2028, 374, 74252, 287, 0] for “This is perplexing!” needs "
    "a downloaded file; our BPE is trained offline on Python's docs).",
    equation="E.8.4",
)
def _c8_15() -> str:
    from alice_lab.text import BPETokenizer, pydoc_corpus

    text = pydoc_corpus(100_000)
    tok = BPETokenizer.train(text, 256 + 200)
    s = "This is perplexing!"
    ids = tok.encode(s)
    held = pydoc_corpus(200_000)[150_000:]
    ratio = len(held.encode()) / len(tok.encode(held))
    assert tok.decode(ids) == s and len(ids) < len(s) and ratio > 1.5, ratio
    return (
        f"{len(s)} chars → {len(ids)} ids {tok.token_strings(ids)}; "
        f"{ratio:.2f} bytes/token on held-out text"
    )


@claim(
    "C8-16",
    section="8.2.2",
    lines=3836,
    statement="Every id lies in [0, V); special tokens such as [BOS] get reserved ids "
    "that encoding plain text never produces.",
)
def _c8_16() -> str:
    from alice_lab.text import WordTokenizer, pydoc_corpus

    text = pydoc_corpus(30_000)
    tok = WordTokenizer(text, vocab_size=200)
    ids = np.array(tok.encode(text))
    assert ids.min() >= 0 and ids.max() < tok.vocab_size
    assert tok.bos_id not in set(ids.tolist()) and tok.vocab[tok.bos_id] == "[BOS]"
    return (
        f"{len(ids)} ids in [0, {tok.vocab_size}); [BOS] = {tok.bos_id} never produced"
    )


def _merge_pair(ids: list[int], pair: tuple[int, int], new: int) -> list[int]:
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _reference_bpe(text: str, n_merges: int) -> dict[tuple[int, int], int]:
    """Plain-Python byte-level BPE training (minbpe's basic loop, with
    collections.Counter): merge the most frequent adjacent pair, ties to the
    smallest."""
    ids, merges = list(text.encode("utf-8")), {}
    for r in range(n_merges):
        counts = Counter(zip(ids, ids[1:], strict=False))
        if not counts or max(counts.values()) < 2:
            break
        pair = min(counts, key=lambda p: (-counts[p], p))
        merges[pair] = 256 + r
        ids = _merge_pair(ids, pair, 256 + r)
    return merges


def _reference_encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """minbpe's encoder: repeatedly merge the present pair of lowest rank."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pairs = set(zip(ids, ids[1:], strict=False))
        pair = min(pairs, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = _merge_pair(ids, pair, merges[pair])
    return ids


@claim(
    "C8-17",
    section="8.2.2",
    lines=3850,
    statement="Subword tokens follow frequencies, not place value: a byte-level BPE "
    "trained on numbers among which 52 and 251 are common and 2512 never occurs keeps "
    "“ 52” as one token but splits “ 2512” into “ 251” + “2”.",
)
def _c8_17() -> str:
    from alice_lab.text import BPETokenizer

    r = _rng(17)
    nums = r.zipf(1.5, 3000)  # a long-tailed background of numbers
    words = [str(n) for n in nums[nums < 10_000]] + ["52"] * 300 + ["251"] * 200
    r.shuffle(words)
    text = " ".join(words)
    assert "2512" not in text
    tok = BPETokenizer.train(text, 256 + 40)
    ref = _reference_bpe(text, 40)
    assert tok.merges == list(ref), "merges differ from the plain-Python BPE"
    pieces = {}
    for s in (" 52", " 2512", " 52 and 2512, not 25 12"):
        ids = tok.encode(s)
        assert ids == _reference_encode(s, ref) and tok.decode(ids) == s, s
        pieces[s] = tok.token_strings(ids)
    assert pieces[" 52"] == [" 52"] and pieces[" 2512"] == [" 251", "2"], pieces
    return (
        f"40 merges on {len(text)} chars of numbers (= a plain-Python BPE): "
        f"' 52' → {pieces[' 52']}; ' 2512' → {pieces[' 2512']}"
    )


@claim(
    "C8-18",
    section="8.2.2",
    lines=3852,
    statement="One-hot vectors are V-dimensional with a single 1: density 1/V.",
)
def _c8_18() -> str:
    from alice_lab.text import one_hot

    V = 1000
    ids = _rng(18).integers(0, V, 64)
    oh = one_hot(ids, V)
    assert np.array_equal(oh, np.eye(V)[ids]) and oh.mean() == 1 / V
    return f"V = {V}: each row sums to 1, density {oh.mean():.4f}"


@claim(
    "C8-19",
    section="8.2.2",
    lines=(3854, 3862),
    statement="LookUp(x) stacks rows E_{x_1}, …, E_{x_m} of E ~ (n, e) into (m, e): "
    "the same as one_hot(x) E and torch.nn.Embedding; its gradient touches only the "
    "rows in x, adding up for repeated ids.",
)
def _c8_19() -> str:
    import torch

    from alice_lab.text import Embedding, embedding_lookup, one_hot

    r = _rng(19)
    emb = Embedding(16, 5, rng=r)
    x = np.array([3, 7, 3, 0])
    ref = torch.nn.Embedding(16, 5, dtype=torch.float64)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(emb.E))
    y = ref(torch.tensor(x))
    g = r.standard_normal((4, 5))
    (y * torch.tensor(g)).sum().backward()
    err = max(
        _maxerr(embedding_lookup(emb.E, x), y.detach()),
        _maxerr(one_hot(x, 16) @ emb.E, y.detach()),
        _maxerr(emb.backward(x, g), ref.weight.grad),
    )
    rows = np.flatnonzero(np.abs(ref.weight.grad.numpy()).sum(1)).tolist()
    assert err < 1e-12 and rows == [0, 3, 7], (err, rows)
    return f"(4,) → (4, 5) = one-hot @ E = nn.Embedding ({err:.0e}); grad rows {rows}"


@claim(
    "C8-20",
    section="8.2.2",
    lines=(3866, 3872),
    statement="The figure's lookup table has n = 16 rows: any list of m ids in 0..15 "
    "becomes an (m, e) matrix.",
    equation="Figure F.8.4",
)
def _c8_20() -> str:
    import torch

    emb = torch.nn.Embedding(16, 4)
    out = emb(torch.tensor([1, 15, 15, 2, 9]))
    assert tuple(out.shape) == (5, 4) and tuple(emb.weight.shape) == (16, 4)
    try:
        emb(torch.tensor([16]))
    except IndexError:
        pass
    else:  # pragma: no cover
        raise AssertionError("id 16 should be out of range for n = 16")
    return "n = 16, e = 4: 5 ids → (5, 4); id 16 is rejected"


def _text_cnn(n, e):
    import torch

    from alice_lab.text.torch_models import TextCNN

    torch.manual_seed(0)
    return TextCNN(n, e)


@claim(
    "C8-21",
    section="8.2.2",
    lines=(3878, 3914),
    statement="Box 8.2's text CNN maps (b, m) → (b, m, e) → (b, e, m) → (b, 32, m) → "
    "(b, 32, m//2) → (b, 64, m//2) → (b, 64) → (b, 10), with n·e + 160e + 10986 "
    "parameters (12394 for n = 16, e = 8).",
)
def _c8_21() -> str:
    import torch

    model = _text_cnn(16, 8)
    shapes = {}
    for name in ("emb", "conv1", "conv2", "head"):
        getattr(model, name).register_forward_hook(
            lambda mod, inp, out, name=name: shapes.__setitem__(name, tuple(out.shape))
        )
    y = model(torch.randint(0, 16, (4, 21)))
    n_params = sum(p.numel() for p in model.parameters())
    assert shapes == {
        "emb": (4, 21, 8),
        "conv1": (4, 32, 21),
        "conv2": (4, 64, 10),
        "head": (4, 10),
    }, shapes
    assert tuple(y.shape) == (4, 10) and n_params == 16 * 8 + 160 * 8 + 10986 == 12394
    return f"m = 21: {shapes}; {n_params} parameters"


@claim(
    "C8-22",
    section="8.2.2",
    lines=3928,
    statement="Gradient descent trains the embedding matrix with the model: one plain "
    "SGD step changes exactly the rows of E whose ids are in the batch.",
)
def _c8_22() -> str:
    import torch

    model = _text_cnn(16, 8)
    x = torch.tensor([[1, 4, 4, 9, 1, 2, 9, 4]])
    before = model.emb.weight.detach().clone()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.nn.functional.cross_entropy(model(x), torch.tensor([3])).backward()
    opt.step()
    changed = torch.nonzero((model.emb.weight != before).any(1)).flatten().tolist()
    assert changed == [1, 2, 4, 9], changed
    return f"batch ids {{1, 2, 4, 9}} → rows changed {changed}"


# =====================================================================================
# 8.2.3 Dealing with long sequences
# =====================================================================================


@claim(
    "C8-24",
    section="8.2.3",
    lines=3942,
    statement="Stacking L plain convolutions of size s grows the receptive field only "
    "linearly: 1 + L(s − 1).",
)
def _c8_24() -> str:
    from alice_lab.conv import receptive_field

    Ls, out = (1, 2, 3, 4, 5), []
    for s in (3, 5):
        got = []
        for L in Ls:
            lo, hi, i = conv_stack_support(s, [1] * L, causal=False)
            assert hi - i == i - lo, (s, L, lo, hi, i)  # centred on the output
            got.append(hi - lo + 1)
        closed = [1 + L * (s - 1) for L in Ls]
        lib = [receptive_field([s] * L) for L in Ls]
        assert got == closed == lib, (s, got, closed, lib)
        out.append(f"s = {s}: {got}")
    return (
        f"L = 1..5 stacked alice_lab conv1d, gradient support {'; '.join(out)} "
        "= 1 + L(s − 1) = alice_lab.conv.receptive_field"
    )


@claim(
    "C8-25",
    section="8.2.3",
    lines=3944,
    statement="Dilation d uses every d-th input: a dilated conv equals a plain conv "
    "with the kernel zero-upsampled to size d(s − 1) + 1; d = 1 is the plain conv.",
)
def _c8_25() -> str:
    from alice_lab.conv import conv1d

    r = _rng(25)
    X, W3 = r.standard_normal((30, 2)), r.standard_normal((3, 4, 2))  # W3 (s, c', c)
    W = W3.transpose(0, 2, 1)  # the library's (s, c, c')
    errs = []
    for d in (1, 2, 4):
        Wd = np.zeros((d * 2 + 1, 4, 2))
        Wd[::d] = W3
        ref = torch_conv1d(X, W3, dilation=d, padding=0)  # torch's dilated kernel
        errs += [
            _maxerr(conv1d(X, W, dilation=d), ref),  # the library's dilation
            _maxerr(conv1d(X, Wd.transpose(0, 2, 1)), ref),  # zero-upsampled, plain
            _maxerr(torch_conv1d(X, Wd, padding=0), ref),
        ]
    assert max(errs) < 1e-12, errs
    return (
        f"d = 1, 2, 4: alice_lab's dilated conv1d = plain conv with the zero-upsampled "
        f"kernel = torch's dilation ({max(errs):.0e})"
    )


@claim(
    "C8-26",
    section="8.2.3",
    lines=3946,
    statement="Dilation adds no parameters, and with rates 1, 2, 4, … the receptive "
    "field of kernel-3 layers grows exponentially: 3, 7, 15, 31, 63.",
)
def _c8_26() -> str:
    import torch

    counts = {torch.nn.Conv1d(4, 4, 3, dilation=d).weight.numel() for d in (1, 2, 8)}
    from alice_lab.conv import receptive_field

    got, lib = [], []
    for L in range(1, 6):
        lo, hi, _ = conv_stack_support(3, [2**j for j in range(L)], causal=False)
        got.append(hi - lo + 1)
        lib.append(receptive_field([3] * L, dilations=[2**j for j in range(L)]))
    assert got == lib == [3, 7, 15, 31, 63] and counts == {48}, (got, lib, counts)
    return (
        f"receptive fields of dilated alice_lab conv1d stacks {got} (gradient "
        "support); 48 weights whatever the dilation"
    )


# =====================================================================================
# Errata in §8.2
# =====================================================================================


@claim(
    "E8-06",
    section="8.2.1",
    lines=3748,
    statement="h = Σ_i H_i is global *sum* pooling: it removes the length from the "
    "shape but not from the scale; only the mean (average pooling) does both.",
    erratum="calls the sum “global average pooling”",
)
def _e8_06() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.conv import global_avg_pool, global_sum_pool

    # one row of features repeated t times: the same content at two lengths
    row = _rng(806).standard_normal(4)
    H1, H2 = (np.tile(row, (1, t, 1)) for t in (37, 50))  # (1, t, c)
    sums = [_np(global_sum_pool(H, spatial_dims=1))[0] for H in (H1, H2)]
    means = [_np(global_avg_pool(H, spatial_dims=1))[0] for H in (H1, H2)]
    # torch's average pooling over the whole length, channels first
    refs = [
        F.adaptive_avg_pool1d(torch.from_numpy(H).transpose(1, 2), 1)[0, :, 0].numpy()
        for H in (H1, H2)
    ]
    assert _maxerr(means[0], refs[0]) < 1e-12 and _maxerr(means[1], refs[1]) < 1e-12
    assert _maxerr(sums[0], 37 * row) < 1e-12 and _maxerr(sums[1], 50 * row) < 1e-12
    assert _maxerr(means[0], means[1]) < 1e-12 and _maxerr(sums[0], sums[1]) > 1
    return (
        "same features, t = 37 vs 50: global sum pooling gives 37x vs 50x the row, "
        "the average (= torch's adaptive_avg_pool1d) the row both times"
    )


@claim(
    "E8-07",
    section="8.2.2",
    equation="Box 8.2",
    lines=(3880, 3912),
    statement=(
        "Box 8.2 needs exactly one batch axis, x ~ (b, m): transpose(1, 2) and "
        "mean(2) count axes from the left, so the generic (*, m) of its "
        "comments fails with two batch axes."
    ),
    erratum="comments with a generic batch (*, m)",
)
def _e8_07() -> str:
    import torch

    model = _text_cnn(16, 8)
    assert tuple(
        model.conv2(
            torch.nn.functional.max_pool1d(
                torch.relu(
                    model.conv1(
                        model.emb(torch.randint(0, 16, (2, 11))).transpose(1, 2)
                    )
                ),
                2,
            )
        ).shape
    ) == (2, 64, 5)
    x = torch.randint(0, 16, (2, 3, 12))  # two batch axes: the box's code breaks
    h = model.emb(x).transpose(1, 2)  # (2, 12, 3, 8): not channels-first any more
    try:
        model.conv1(h)
    except RuntimeError:
        broke = True
    else:  # pragma: no cover
        broke = False
    assert broke and tuple(h.shape) == (2, 12, 3, 8)
    return "m = 11 → pooled length 5 = ⌊11/2⌋; a (2, 3, m) batch fails in conv1"
