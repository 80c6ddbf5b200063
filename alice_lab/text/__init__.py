"""Text for 1-D models: tokenizers, padded batches, masks and embeddings (Chapter 8).

Book: §8.2.1-§8.2.2 (lines 3740-3938). Torch modules (the book's Box 8.2 text CNN)
live in :mod:`alice_lab.text.torch_models`, imported on demand.
"""

from alice_lab.text.batching import (
    Embedding,
    embedding_lookup,
    length_mask,
    masked_mean_pool,
    nearest_neighbors,
    one_hot,
    pad_sequences,
)
from alice_lab.text.corpora import topic_sentences
from alice_lab.text.tokenizers import (
    BPETokenizer,
    CharTokenizer,
    WordTokenizer,
    pydoc_corpus,
    pydoc_topics,
    word_split,
)

__all__ = [
    "BPETokenizer",
    "CharTokenizer",
    "Embedding",
    "WordTokenizer",
    "embedding_lookup",
    "length_mask",
    "masked_mean_pool",
    "nearest_neighbors",
    "one_hot",
    "pad_sequences",
    "pydoc_corpus",
    "pydoc_topics",
    "topic_sentences",
    "word_split",
]
