r"""Tokenizers trained from scratch on offline text: characters, words, byte pairs.

A tokenizer turns a string into a list of integer ids in ``[0, vocab_size)`` (the
book's list of indices, eq. E.8.4) and back. Three granularities, as in §8.2.2:

- :class:`CharTokenizer`: one id per distinct character of the training text;
- :class:`WordTokenizer`: the ``vocab_size - 2`` most frequent words and punctuation
  marks, plus an out-of-vocabulary token ``[OOV]`` and a beginning-of-sequence token
  ``[BOS]`` (book lines 3820, 3836);
- :class:`BPETokenizer`: byte-level byte-pair encoding (as in Karpathy's minbpe, the
  book's pointer at line 4324): 256 byte tokens, then repeated merges of the most
  frequent adjacent pair. Byte level means that no string is out of vocabulary.

The training text is Python's own documentation, :func:`pydoc_corpus` (shipped with
CPython in ``pydoc_data.topics``), so nothing is downloaded.

Book: §8.2.2, CNNs for text data (lines 3792-3850).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from alice_lab.backend import check_int

__all__ = [
    "BPETokenizer",
    "CharTokenizer",
    "WordTokenizer",
    "pydoc_corpus",
    "pydoc_topics",
    "word_split",
]

_WORD = re.compile(r"\w+|[^\w\s]")


def pydoc_topics() -> dict[str, str]:
    """The help topics of Python's documentation, ``{name: text}`` (79 topics, about
    465k characters), from the standard library's ``pydoc_data.topics``."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distributions strip pydoc_data
        import codecs
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            import this  # the Zen of Python, stored rot13-encoded
        return {"zen": codecs.decode(this.s, "rot13")}
    return dict(sorted(topics.items()))


def pydoc_corpus(max_chars: int | None = None) -> str:
    """Offline English text: all of ``pydoc_data.topics`` joined in name order.

    ``max_chars`` keeps only the first characters (for fast runs).

    >>> len(pydoc_corpus(100))
    100
    """
    text = "\n".join(pydoc_topics().values())
    if max_chars is not None:
        text = text[: check_int(max_chars, "max_chars")]
    return text


def word_split(text: str) -> list[str]:
    """Split into words (runs of letters, digits, ``_``) and single punctuation marks.

    >>> word_split("the cat, on the table!")
    ['the', 'cat', ',', 'on', 'the', 'table', '!']
    """
    return _WORD.findall(text)


def _check_text(text, what="text") -> str:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a str; got {type(text).__name__}")
    return text


def _check_ids(ids, vocab_size: int) -> list[int]:
    ids = (
        [int(i) for i in np.asarray(ids).reshape(-1).tolist()]
        if not isinstance(ids, list)
        else [int(i) for i in ids]
    )
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise ValueError(
            f"token ids must lie in [0, {vocab_size}); "
            f"got out-of-vocabulary ids {bad[:5]}"
        )
    return ids


class CharTokenizer:
    """One token per distinct character of ``text``, ids in sorted character order.

    >>> tok = CharTokenizer("hello")
    >>> tok.encode("hole"), tok.decode([3, 2])
    ([1, 3, 2, 0], 'ol')
    """

    def __init__(self, text: str):
        _check_text(text)
        if not text:
            raise ValueError("CharTokenizer needs a non-empty training text; got ''")
        self.chars = sorted(set(text))
        self._id = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        _check_text(text)
        missing = sorted({c for c in text if c not in self._id})
        if missing:
            raise ValueError(
                f"characters outside the vocabulary of {self.vocab_size}: {missing[:5]}"
            )
        return [self._id[c] for c in text]

    def decode(self, ids) -> str:
        return "".join(self.chars[i] for i in _check_ids(ids, self.vocab_size))


class WordTokenizer:
    """Word-level tokenizer with a fixed vocabulary: ``[OOV]`` (id 0), ``[BOS]`` (id 1),
    then the ``vocab_size - 2`` most frequent words of ``text``, ties broken by the word
    itself, so the vocabulary is deterministic. Unknown words map to ``oov_id``;
    ``encode`` never returns ``bos_id`` (it is added by the caller, book line 3836).

    Decoding joins words with spaces, so it is lossy about white space.

    >>> tok = WordTokenizer("a b b c c c", vocab_size=4)
    >>> tok.vocab, tok.encode("c a d")
    (['[OOV]', '[BOS]', 'c', 'b'], [2, 0, 0])
    """

    OOV, BOS = "[OOV]", "[BOS]"
    oov_id, bos_id = 0, 1

    def __init__(self, text: str, vocab_size: int = 1000, *, lower: bool = False):
        _check_text(text)
        vocab_size = check_int(
            vocab_size, "vocab_size", low=3, why="two special tokens + words"
        )
        self.lower = lower
        words = word_split(text.lower() if lower else text)
        if not words:
            raise ValueError(
                "WordTokenizer needs a training text with at least one word"
            )
        counts = Counter(words)
        ranked = sorted(counts, key=lambda w: (-counts[w], w))[: vocab_size - 2]
        self.vocab = [self.OOV, self.BOS, *ranked]
        self.counts = counts
        self._id = {w: i for i, w in enumerate(self.vocab)}

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        _check_text(text)
        words = word_split(text.lower() if self.lower else text)
        return [self._id.get(w, self.oov_id) for w in words]

    def decode(self, ids) -> str:
        return " ".join(self.vocab[i] for i in _check_ids(ids, self.vocab_size))


def _merge(ids: np.ndarray, pair: tuple[int, int], new: int) -> np.ndarray:
    """Replace each non-overlapping ``pair`` (left to right) by ``new``."""
    a, b = pair
    if len(ids) < 2:
        return ids
    hit = np.flatnonzero((ids[:-1] == a) & (ids[1:] == b))
    if len(hit) == 0:
        return ids
    if a == b:  # runs such as 'aaa': keep every other match, left to right
        keep, last = [], -2
        for i in hit.tolist():
            if i > last + 1:
                keep.append(i)
                last = i
        hit = np.asarray(keep)
    out = ids.copy()
    out[hit] = new
    drop = np.zeros(len(ids), dtype=bool)
    drop[hit + 1] = True
    return out[~drop]


def _pair_counts(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct adjacent pairs ``(k, 2)`` in lexicographic order and their counts."""
    keys = ids[:-1].astype(np.int64) * (1 << 32) + ids[1:]
    uniq, counts = np.unique(keys, return_counts=True)
    return np.stack([uniq >> 32, uniq & ((1 << 32) - 1)], axis=1), counts


class BPETokenizer:
    """Byte-level byte-pair encoding (minbpe's basic tokenizer, without a regex
    pre-split). Build it with :meth:`train`.

    Token ``i < 256`` is the byte ``i``; token ``256 + r`` is the ``r``-th merge
    ``merges[r] = (a, b)``. Training repeatedly merges the most frequent adjacent pair;
    ties go to the smallest pair ``(a, b)``. Encoding applies the merges in training
    order, which gives the same result as minbpe's lowest-rank-first loop.

    >>> tok = BPETokenizer.train("aaabdaaabac", 259)
    >>> tok.merges
    [(97, 97), (97, 98), (256, 257)]
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """

    def __init__(self, merges: list[tuple[int, int]] | None = None):
        self.merges: list[tuple[int, int]] = [
            tuple(map(int, m)) for m in (merges or [])
        ]
        self.vocab: list[bytes] = [bytes([i]) for i in range(256)]
        for r, (a, b) in enumerate(self.merges):
            if not (0 <= a < 256 + r and 0 <= b < 256 + r):
                raise ValueError(
                    f"merge {r} = {(a, b)} uses a token not defined before it"
                )
            self.vocab.append(self.vocab[a] + self.vocab[b])

    @classmethod
    def train(cls, text: str, vocab_size: int) -> BPETokenizer:
        """Learn ``vocab_size - 256`` merges from ``text`` (fewer if every pair is
        unique before that)."""
        _check_text(text)
        vocab_size = check_int(vocab_size, "vocab_size", low=256, why="the byte tokens")
        ids = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)
        merges: list[tuple[int, int]] = []
        for r in range(vocab_size - 256):
            if len(ids) < 2:
                break
            pairs, counts = _pair_counts(ids)
            if counts.max() < 2:
                break
            best = pairs[int(np.argmax(counts))]  # first max = smallest pair on ties
            pair = (int(best[0]), int(best[1]))
            merges.append(pair)
            ids = _merge(ids, pair, 256 + r)
        return cls(merges)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        _check_text(text)
        ids = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)
        for r, pair in enumerate(self.merges):
            ids = _merge(ids, pair, 256 + r)
        return ids.tolist()

    def decode(self, ids) -> str:
        raw = b"".join(self.vocab[i] for i in _check_ids(ids, self.vocab_size))
        return raw.decode("utf-8", errors="replace")

    def token_strings(self, ids) -> list[str]:
        """Each token as text (for showing a segmentation)."""
        return [
            self.vocab[i].decode("utf-8", errors="replace")
            for i in _check_ids(ids, self.vocab_size)
        ]
