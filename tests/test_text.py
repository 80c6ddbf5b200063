"""alice_lab.text against independent references: torch's pad_sequence and
nn.Embedding, a plain-Python BPE written here from the algorithm's definition, a
hand-checked merge table, round trips on Python's documentation, and bad input."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from alice_lab import text as T


@pytest.fixture(scope="module")
def corpus():
    return T.pydoc_corpus(60_000)


# --- tokenizers -------------------------------------------------------------------


def test_pydoc_corpus_is_offline_text():
    full = T.pydoc_corpus()
    assert len(full) > 300_000
    assert "assert" in full and T.pydoc_corpus(50) == full[:50]
    with pytest.raises(ValueError, match="max_chars"):
        T.pydoc_corpus(0)


def test_char_tokenizer_round_trip_and_vocabulary(corpus):
    tok = T.CharTokenizer(corpus)
    assert tok.vocab_size == len(set(corpus))
    ids = tok.encode(corpus)
    assert len(ids) == len(corpus) and tok.decode(ids) == corpus
    assert max(ids) == tok.vocab_size - 1 and min(ids) == 0
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tok.encode("ß€")
    with pytest.raises(ValueError, match=r"\[0, "):
        tok.decode([tok.vocab_size])
    with pytest.raises(ValueError, match="non-empty"):
        T.CharTokenizer("")


def test_word_tokenizer_keeps_the_most_frequent_words(corpus):
    V = 50
    tok = T.WordTokenizer(corpus, vocab_size=V)
    assert tok.vocab_size == V
    counts = Counter(__import__("re").findall(r"\w+|[^\w\s]", corpus))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: V - 2]
    assert tok.vocab[2:] == [w for w, _ in top]
    ids = tok.encode("the zzzqqq the")
    assert ids[1] == tok.oov_id and ids[0] == ids[2] != tok.oov_id
    assert tok.bos_id not in tok.encode(corpus[:5000])
    assert all(0 <= i < V for i in tok.encode(corpus[:5000]))
    with pytest.raises(ValueError, match="vocab_size"):
        T.WordTokenizer(corpus, vocab_size=2)


def _reference_bpe(text: str, n_merges: int) -> list[tuple[int, int]]:
    """BPE from its definition, in plain Python: count pairs, merge the most frequent
    (smallest pair on ties), left to right without overlaps."""
    ids = list(text.encode("utf-8"))
    merges = []
    for r in range(n_merges):
        counts = Counter(zip(ids, ids[1:], strict=False))
        if not counts or max(counts.values()) < 2:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == best:
                out.append(256 + r)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return merges


def test_bpe_hand_checked_example():
    # Wikipedia's example: aa -> Z, ab -> Y, ZY -> X gives "XdXac"
    tok = T.BPETokenizer.train("aaabdaaabac", 259)
    assert tok.merges == [(97, 97), (97, 98), (256, 257)]
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.token_strings([258]) == ["aaab"]
    # overlapping pairs merge left to right
    aa = T.BPETokenizer([(97, 97)])
    assert aa.encode("aaa") == [256, 97] and aa.encode("aaaa") == [256, 256]


def test_bpe_matches_reference_and_round_trips(corpus):
    text = corpus[:8000]
    tok = T.BPETokenizer.train(text, 256 + 40)
    assert tok.merges == _reference_bpe(text, 40)
    assert tok.vocab_size == 296
    sample = corpus[20_000:30_000] + " héllo ✓ naïve"
    ids = tok.encode(sample)
    assert tok.decode(ids) == sample
    assert len(ids) < len(sample.encode("utf-8"))  # it compresses
    too_small = r"vocab_size must be an int >= 256 \(the byte"
    with pytest.raises(ValueError, match=too_small):
        T.BPETokenizer.train(text, 100)
    with pytest.raises(ValueError, match="out-of-vocabulary"):
        tok.decode([296])
    with pytest.raises(ValueError, match="not defined"):
        T.BPETokenizer([(300, 1)])


# --- padding and masks ------------------------------------------------------------


def test_pad_sequences_matches_torch_box_8_1():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    seqs = [torch.randn(n, 8, generator=g, dtype=torch.float64) for n in (3, 5, 2)]
    ref = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True).numpy()
    got = T.pad_sequences([s.numpy() for s in seqs])
    assert got.shape == (3, 5, 8) and np.array_equal(got, ref)
    left = T.pad_sequences([s.numpy() for s in seqs], side="left")
    assert np.array_equal(left[2, 3:], seqs[2].numpy()) and not left[2, :3].any()
    assert T.pad_sequences([[1], [2, 3]], max_len=4, padding_value=-1).tolist() == [
        [1, -1, -1, -1],
        [2, 3, -1, -1],
    ]


def test_pad_sequences_bad_input():
    with pytest.raises(ValueError, match="at least one sequence"):
        T.pad_sequences([])
    with pytest.raises(ValueError, match="non-empty"):
        T.pad_sequences([[1, 2], []])
    with pytest.raises(ValueError, match="all sequences must have shape"):
        T.pad_sequences([np.zeros((2, 3)), np.zeros((2, 4))])
    with pytest.raises(ValueError, match="side"):
        T.pad_sequences([[1]], side="middle")
    with pytest.raises(ValueError, match="max_len"):
        T.pad_sequences([[1, 2, 3]], max_len=2)


def test_length_mask_and_masked_mean(backend):
    M = T.length_mask([5, 3], 5)
    assert M.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]
    rng = np.random.default_rng(1)
    H = [rng.standard_normal((n, 4)) for n in (5, 3, 1)]
    P = backend.asarray(T.pad_sequences(H, padding_value=7.0))
    mask = T.length_mask([5, 3, 1], like=P)
    got = backend.to_numpy(T.masked_mean_pool(P, mask))
    ref = np.stack([h.mean(0) for h in H])
    np.testing.assert_allclose(got, ref, atol=1e-12)
    with pytest.raises(ValueError, match="positive"):
        T.length_mask([3, 0])
    with pytest.raises(ValueError, match=r"expected H \(b, t, c\)"):
        T.masked_mean_pool(P, mask[:, :2])


# --- embeddings -------------------------------------------------------------------


def test_embedding_lookup_is_one_hot_matmul_and_torch(backend):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    E = rng.standard_normal((16, 6))
    ids = np.array([[3, 1, 3, 15], [0, 0, 7, 2]])
    emb = torch.nn.Embedding(16, 6, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(E))
    ref = emb(torch.from_numpy(ids)).detach().numpy()
    got = backend.to_numpy(T.embedding_lookup(backend.asarray(E), backend.asarray(ids)))
    assert got.shape == (2, 4, 6)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    oh = T.one_hot(ids, 16)
    assert oh.shape == (2, 4, 16) and (oh.sum(-1) == 1).all()
    np.testing.assert_allclose(oh @ E, ref, atol=1e-12)


def test_embedding_backward_matches_torch_scatter_add():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    layer = T.Embedding(10, 4, rng=rng)
    ids = np.array([2, 5, 2, 2, 9])
    g = rng.standard_normal((5, 4))
    ref = torch.nn.Embedding(10, 4, dtype=torch.float64)
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(layer.E))
    (ref(torch.from_numpy(ids)) * torch.from_numpy(g)).sum().backward()
    dE = layer.backward(ids, g)
    np.testing.assert_allclose(dE, ref.weight.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(dE[2], g[[0, 2, 3]].sum(0))  # repeated id adds up
    assert not dE[[0, 1, 3, 4, 6, 7, 8]].any()


def test_embedding_bad_ids():
    E = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        T.embedding_lookup(E, np.array([1, 4]))
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        T.embedding_lookup(E, np.array([-1]))
    with pytest.raises(ValueError, match="non-empty"):
        T.embedding_lookup(E, np.array([], dtype=int))
    with pytest.raises(ValueError, match="integers"):
        T.embedding_lookup(E, np.array([1.0]))
    with pytest.raises(ValueError, match=r"\(n, e\)"):
        T.embedding_lookup(np.zeros(4), np.array([1]))


def test_nearest_neighbors_matches_sklearn():
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(4)
    E, q = rng.standard_normal((30, 5)), rng.standard_normal(5)
    for metric in ("euclidean", "cosine"):
        nn = NearestNeighbors(n_neighbors=4, metric=metric).fit(E)
        ref = nn.kneighbors(q[None], return_distance=False)[0]
        assert T.nearest_neighbors(E, q, 4, metric=metric).tolist() == ref.tolist()


# --- the torch text CNN of Box 8.2 ------------------------------------------------


def test_text_cnn_mask_makes_padding_invisible():
    torch = pytest.importorskip("torch")
    from alice_lab.text.torch_models import CausalConv1d, TextCNN

    torch.manual_seed(0)
    model = TextCNN(16, 8).double()
    assert sum(p.numel() for p in model.parameters()) == 12394
    seqs = [torch.randint(0, 16, (n,)) for n in (12, 6, 8)]
    X = torch.tensor(T.pad_sequences([s.numpy() for s in seqs]))
    M = torch.tensor(T.length_mask([12, 6, 8]))
    with torch.no_grad():
        batch = model(X, M)
        alone = torch.cat([model(s[None]) for s in seqs])
        unmasked = model(X)
    np.testing.assert_allclose(batch.numpy(), alone.numpy(), atol=1e-12)
    assert not np.allclose(unmasked[1].numpy(), alone[1].numpy())
    with pytest.raises(ValueError, match=r"\(b, m\)"):
        model(X[None])
    # the causal layer: output i never sees inputs after i
    layer = CausalConv1d(2, 3, 3, dilation=2).double()
    x = torch.randn(1, 2, 10, dtype=torch.float64)
    x2 = x.clone()
    x2[..., 6:] += 1.0
    with torch.no_grad():
        y, y2 = layer(x), layer(x2)
    assert y.shape == (1, 3, 10) and torch.equal(y[..., :6], y2[..., :6])
    assert not torch.equal(y[..., 6:], y2[..., 6:])
