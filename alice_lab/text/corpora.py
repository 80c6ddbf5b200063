"""A labelled text corpus built offline from Python's documentation.

:func:`topic_sentences` cuts the ``pydoc_data`` help topics into sentences and labels
each one by the kind of topic it comes from: **statements** (``if``, ``for``,
``try``, ``import``, …) against **types and objects** (sequences, mappings, numbers,
string methods, …). It stands in for IMDB in the book's exercise (lines 4314-4322):
same shape of problem (variable-length text, one label), no download.
"""

from __future__ import annotations

import re

import numpy as np

from alice_lab.text.tokenizers import pydoc_topics

__all__ = ["STATEMENT_TOPICS", "TYPE_TOPICS", "topic_sentences"]

STATEMENT_TOPICS = (
    "assert",
    "assignment",
    "augassign",
    "break",
    "class",
    "compound",
    "continue",
    "del",
    "for",
    "function",
    "global",
    "if",
    "import",
    "nonlocal",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
)
TYPE_TOPICS = (
    "bltin-code-objects",
    "bltin-ellipsis-object",
    "bltin-null-object",
    "bltin-type-objects",
    "booleans",
    "dict",
    "floating",
    "imaginary",
    "integers",
    "lists",
    "numbers",
    "numeric-types",
    "sequence-types",
    "specialattrs",
    "string-methods",
    "strings",
    "typesfunctions",
    "typesmapping",
    "typesmethods",
    "typesmodules",
    "typesseq",
    "typesseq-mutable",
)
CLASS_NAMES = ("statements", "types and objects")


def _sentences(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def topic_sentences(
    *, min_words: int = 5, max_words: int = 60, balance: bool = True, seed: int = 0
) -> tuple[list[str], np.ndarray]:
    """Sentences and labels (0 = statements, 1 = types and objects), shuffled.

    Sentences with fewer than ``min_words`` or more than ``max_words`` words are
    dropped; ``balance`` keeps as many of each class as the smaller one has.
    """
    topics = pydoc_topics()
    groups = []
    for names in (STATEMENT_TOPICS, TYPE_TOPICS):
        sents = []
        for name in names:
            for s in _sentences(topics.get(name, "")):
                if min_words <= len(s.split()) <= max_words:
                    sents.append(s)
        groups.append(sents)
    rng = np.random.default_rng(seed)
    if balance:
        n = min(len(g) for g in groups)
        groups = [
            [g[i] for i in sorted(rng.choice(len(g), n, replace=False))] for g in groups
        ]
    texts = [s for g in groups for s in g]
    labels = np.concatenate([np.full(len(g), k) for k, g in enumerate(groups)])
    order = rng.permutation(len(texts))
    return [texts[i] for i in order], labels[order]
