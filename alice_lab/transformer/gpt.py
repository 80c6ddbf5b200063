r"""A small GPT: a decoder-only character model, its training loop, and generation
with or without the KV cache.

With the cache, each new token runs the model on that one token: its query attends to
the keys and values of every earlier token, which are kept, not recomputed (one new row
of the causal attention matrix per step). Without it, the whole prefix is recomputed
each step. Both give the same logits (up to rounding) and so the same tokens, greedy or
sampled with the same seed; the tests check it.

Book: §11.2.3 (KV cache, lines 5755-5771) and "From theory to practice" (line 5941,
a GPT-like model in the spirit of minGPT).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from alice_lab._compat import renamed
from alice_lab.backend import check_int, to_numpy
from alice_lab.sequence import generate as _generate
from alice_lab.transformer.models import DecoderOnly

__all__ = ["GPT", "TrainResult", "gpt_generate", "lm_batches", "train_gpt"]


class GPT(DecoderOnly):
    """``GPT(vocab, e=32, heads=4, depth=2, context=64)``: (b, n) ids -> (b, n, vocab)
    logits; n ≤ context, otherwise ValueError."""


@torch.no_grad()
def gpt_generate(
    model: DecoderOnly,
    prompt: list[int],
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    rng: Any = None,
    use_cache: bool = True,
    return_logits: bool = False,
):
    """Autoregressive generation from a decoder-only model: prompt + ``max_new_tokens``
    sampled tokens (list of ints).

    The loop and the sampling are chapter 8's :func:`alice_lab.sequence.generate`
    (temperature 0 = greedy); what is the model's is the next-token logits. With
    ``use_cache`` the model sees one new token per step; when the text outgrows the
    context, both paths slide a window over the last ``context`` tokens (the cache is
    rebuilt, since every position moves). ``rng`` is a NumPy Generator or a seed (None:
    a fresh unseeded generator). ``return_logits`` also returns the (max_new_tokens, V)
    logits of every step.

    Book: §8.4.1 (sampling) and §11.2.3 (the KV cache, lines 5755-5771).
    """
    if len(prompt) == 0:
        raise ValueError("the prompt must hold at least one token")
    model.eval()
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    device = next(model.parameters()).device
    caches = None
    all_logits = []

    def next_logits(tokens: list[int]) -> np.ndarray:
        nonlocal caches
        if use_cache and caches is not None and len(tokens) <= model.context:
            x = torch.tensor([tokens[-1:]], device=device)
            logits = model(x, caches)[0, -1]
        else:
            caches = model.new_caches() if use_cache else None
            window = tokens[-model.context :]
            logits = model(torch.tensor([window], device=device), caches)[0, -1]
            if len(tokens) >= model.context:
                caches = None  # the next step slides the window: recompute
        row = to_numpy(logits).astype(np.float64)
        all_logits.append(row)
        return row

    tokens = _generate(
        next_logits,
        prompt,
        max_new_tokens,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        rng=rng,
    )
    return (tokens, np.stack(all_logits)) if return_logits else tokens


#: the name before ``gpt_generate``, for one release (chapter 11's notebook, lab 11)
generate = renamed(
    "alice_lab.transformer.generate",
    gpt_generate,
    "alice_lab.transformer.gpt_generate",
    "alice_lab.sequence.generate is chapter 8's loop for any next-token function",
)


def lm_batches(data: np.ndarray, batch: int, n: int, rng: np.random.Generator):
    """Random windows of a token array: inputs (batch, n) and targets shifted by one."""
    if len(data) <= n + 1:
        raise ValueError(
            f"need more than {n + 1} tokens to cut windows of {n}; got {len(data)}"
        )
    starts = rng.integers(0, len(data) - n - 1, size=batch)
    x = np.stack([data[s : s + n] for s in starts])
    y = np.stack([data[s + 1 : s + n + 1] for s in starts])
    return torch.as_tensor(x), torch.as_tensor(y)


@dataclass
class TrainResult:
    model: GPT
    losses: list[float] = field(default_factory=list)
    val_loss: float = float("nan")
    unigram_entropy: float = float("nan")


def train_gpt(
    ids: list[int] | np.ndarray,
    vocab: int,
    *,
    steps: int = 300,
    batch: int = 32,
    context: int = 64,
    e: int = 64,
    heads: int = 4,
    depth: int = 2,
    lr: float = 3e-3,
    seed: int = 0,
) -> TrainResult:
    """Train a :class:`GPT` with AdamW on next-character prediction (90/10 split).
    Returns the model, the training losses, a validation loss and the unigram entropy
    of the training text (the loss of a model that ignores the context), in nats."""
    torch.manual_seed(seed)
    data = np.asarray(ids, dtype=np.int64)
    cut = int(0.9 * len(data))
    train, val = data[:cut], data[cut:]
    counts = np.bincount(train, minlength=vocab) / len(train)
    entropy = float(-(counts[counts > 0] * np.log(counts[counts > 0])).sum())
    model = GPT(vocab, e=e, heads=heads, depth=depth, context=context)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = np.random.default_rng(seed)
    out = TrainResult(model, unigram_entropy=entropy)
    model.train()
    for _ in range(check_int(steps, "steps", low=0)):
        x, y = lm_batches(train, batch, context, rng)
        loss = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.losses.append(float(loss.detach()))
    model.eval()
    with torch.no_grad():
        x, y = lm_batches(val, 16, min(context, len(val) - 2), np.random.default_rng(1))
        out.val_loss = float(
            F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        )
    return out
