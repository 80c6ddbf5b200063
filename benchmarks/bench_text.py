"""Embedding lookup and padding against PyTorch's kernels (Book §8.2.1-§8.2.2)."""

from __future__ import annotations

import numpy as np

from alice_lab import text as T
from benchmarks.harness import Bench, benchmark

VOCAB, DIM, BATCH, LENGTH = 50_000, 128, 64, 256


@benchmark(
    "embedding lookup",
    reference="torch.nn.functional.embedding",
    shape=(BATCH, LENGTH, DIM),
    dtype="float32",
)
def _lookup(rng: np.random.Generator) -> Bench:
    import torch

    E = rng.standard_normal((VOCAB, DIM)).astype("float32")
    ids = rng.integers(0, VOCAB, (BATCH, LENGTH))
    def reference(E, ids):  # from_numpy shares memory: no copy is timed
        return torch.nn.functional.embedding(
            torch.from_numpy(ids), torch.from_numpy(E)
        ).numpy()

    return Bench(
        alice=lambda E, ids: T.embedding_lookup(E, ids),
        reference=reference,
        args=(E, ids),
        checks={"repeated ids": (E, np.zeros((4, 9), dtype=np.int64))},
        rtol=0.0,
    )


@benchmark(
    "pad_sequences",
    reference="torch.nn.utils.rnn.pad_sequence",
    shape=(BATCH, LENGTH, DIM),
    dtype="float32",
)
def _pad(rng: np.random.Generator) -> Bench:
    import torch
    from torch.nn.utils.rnn import pad_sequence

    seqs = [
        rng.standard_normal((int(n), DIM)).astype("float32")
        for n in rng.integers(1, LENGTH + 1, BATCH)
    ]
    return Bench(
        alice=lambda seqs: T.pad_sequences(seqs),
        reference=lambda seqs: pad_sequence(
            [torch.from_numpy(s) for s in seqs], batch_first=True
        ).numpy(),
        args=(seqs,),
        rtol=0.0,
    )
