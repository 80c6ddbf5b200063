r"""Autoregressive generation: sampling with temperature / top-k / top-p, greedy
decoding, beam search and exhaustive search, and sequence log-probabilities.

A model is a function of the prefix: ``next_logits(prefix) -> (V,)`` logits (or
``next_log_probs(prefix) -> (V,)`` log-probabilities) over the next token, so the
probability of a sequence is the chain rule (eq. E.8.7, line 4190)

.. math:: \log p(x) = \sum_i \log p(x_i \mid x_{:i}).

- *ancestral sampling* draws each token from that distribution (lines 4216-4230);
  temperature divides the logits first (line 4244); top-k keeps the k most likely
  tokens and top-p the smallest set whose probability reaches p, both renormalised;
- *greedy decoding* takes the argmax over the **vocabulary** at each step (the book's
  ``argmax_i`` at line 4238 reuses the position index: an erratum);
- *beam search* keeps the ``k`` best prefixes by summed log-probability, chosen
  deterministically (the book says "sample", line 4250: an imprecision);
- *exhaustive search* enumerates all ``V^T`` continuations (tiny cases only).

Logits may come from any backend; they are copied to NumPy float64 to sample.

Book: §8.4.1-§8.4.3, generative models (lines 4164-4298).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alice_lab.backend import check_int, to_numpy

__all__ = [
    "beam_search",
    "conditional_log_prob",
    "exhaustive_search",
    "generate",
    "greedy_decode",
    "next_token_distribution",
    "sample_next_token",
    "sequence_log_prob",
]


def _logits(x: Any) -> np.ndarray:
    z = np.asarray(to_numpy(x), dtype=np.float64)
    if z.ndim != 1 or z.shape[0] == 0:
        raise ValueError(f"logits must have shape (V,) with V >= 1; got {z.shape}")
    if np.isnan(z).any() or np.isposinf(z).any():
        raise ValueError("logits must not contain NaN or +inf")
    if np.isneginf(z).all():
        raise ValueError("at least one logit must be finite")
    return z


def _check_options(temperature, top_k, top_p, V=None) -> None:
    if not np.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0; got {temperature}")
    if top_k is not None:
        check_int(top_k, "top_k")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must lie in (0, 1] or be None; got {top_p}")


def next_token_distribution(
    logits: Any,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> np.ndarray:
    r"""The distribution :func:`sample_next_token` draws from, ``(V,)`` NumPy.

    ``softmax(z / τ)``, then (top-k) zero all but the ``k`` largest, then (top-p) keep
    the most likely tokens until their mass reaches ``p``; renormalised. ``τ = 0`` is
    the argmax (one-hot). Ties are broken by the lower token id.

    >>> next_token_distribution(np.log([0.5, 0.3, 0.2]), top_k=2).round(3).tolist()
    [0.625, 0.375, 0.0]
    """
    _check_options(temperature, top_k, top_p)
    z = _logits(logits)
    V = z.shape[0]
    order = np.lexsort((np.arange(V), -z))  # descending logits, low id first on ties
    if temperature == 0:
        p = np.zeros(V)
        p[order[0]] = 1.0
        return p
    s = z / temperature
    s = s - s.max()
    p = np.exp(s)
    p /= p.sum()
    keep = np.ones(V, dtype=bool)
    if top_k is not None and top_k < V:
        keep[:] = False
        keep[order[: int(top_k)]] = True
    if top_p is not None:
        q = np.where(keep, p, 0.0)
        q = q / q.sum()
        cum = np.cumsum(q[order])
        n_keep = int(
            np.searchsorted(cum, top_p - 1e-12) + 1
        )  # smallest set with mass >= p
        nucleus = np.zeros(V, dtype=bool)
        nucleus[order[:n_keep]] = True
        keep &= nucleus
    p = np.where(keep, p, 0.0)
    return p / p.sum()


def sample_next_token(
    logits: Any,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    rng: np.random.Generator | None = None,
) -> int:
    """One token drawn from :func:`next_token_distribution` (``temperature=0``:
    greedy). ``rng`` is a NumPy Generator (default: seeded with 0)."""
    p = next_token_distribution(
        logits, temperature=temperature, top_k=top_k, top_p=top_p
    )
    if temperature == 0:
        return int(np.argmax(p))
    rng = np.random.default_rng(0) if rng is None else rng
    return int(rng.choice(p.shape[0], p=p))


def _prompt(prompt) -> list[int]:
    out = [int(t) for t in prompt]
    if any(t < 0 for t in out):
        raise ValueError(f"prompt token ids must be >= 0; got {out}")
    return out


def _steps(n, name="max_new_tokens") -> int:
    return check_int(n, name, low=0)


def generate(
    next_logits: Callable[[list[int]], Any],
    prompt: Sequence[int],
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    rng: np.random.Generator | None = None,
    eos: int | None = None,
) -> list[int]:
    """Autoregressive generation: ``prompt`` + up to ``max_new_tokens`` tokens, each
    sampled from ``next_logits(prefix)``; stops after ``eos`` if given.

    >>> generate(lambda p: np.array([0.0, 5.0]), [0], 3, temperature=0)
    [0, 1, 1, 1]
    """
    _check_options(temperature, top_k, top_p)
    seq = _prompt(prompt)
    rng = np.random.default_rng(0) if rng is None else rng
    for _ in range(_steps(max_new_tokens)):
        tok = sample_next_token(
            next_logits(list(seq)),
            temperature=temperature,
            top_k=top_k,
            top_p=top_p,
            rng=rng,
        )
        seq.append(tok)
        if eos is not None and tok == eos:
            break
    return seq


def _log_probs(fn, prefix) -> np.ndarray:
    lp = np.asarray(to_numpy(fn(list(prefix))), dtype=np.float64)
    if lp.ndim != 1 or lp.shape[0] == 0:
        raise ValueError(
            f"the model must return (V,) log-probabilities; got {lp.shape}"
        )
    return lp


def greedy_decode(
    next_log_probs: Callable[[list[int]], Any],
    prompt: Sequence[int],
    max_new_tokens: int,
) -> tuple[list[int], float]:
    """Argmax over the vocabulary at every step (lowest id on ties); returns the
    sequence and the summed log-probability of the new tokens."""
    seq, total = _prompt(prompt), 0.0
    for _ in range(_steps(max_new_tokens)):
        lp = _log_probs(next_log_probs, seq)
        tok = int(np.argmax(lp))
        seq.append(tok)
        total += float(lp[tok])
    return seq, total


def beam_search(
    next_log_probs: Callable[[list[int]], Any],
    prompt: Sequence[int],
    max_new_tokens: int,
    *,
    beam_width: int = 3,
    stats: dict | None = None,
) -> tuple[list[int], float]:
    """Keep the ``beam_width`` best prefixes by summed log-probability; each step
    scores all ``k·V`` one-token extensions and keeps the top ``k`` (deterministic;
    ties to the lexicographically smaller sequence). ``beam_width=1`` is greedy.

    Returns the best sequence (prompt included) and the log-probability of its new
    tokens. If ``stats`` is a dict, ``stats["candidates"]`` counts scored extensions
    (at most ``T·k·V``).
    """
    check_int(beam_width, "beam_width")
    beams: list[tuple[float, list[int]]] = [(0.0, _prompt(prompt))]
    count = 0
    for _ in range(_steps(max_new_tokens)):
        cands = []
        for score, seq in beams:
            lp = _log_probs(next_log_probs, seq)
            count += lp.shape[0]
            cands.extend((score + float(lp[v]), [*seq, v]) for v in range(lp.shape[0]))
        cands.sort(key=lambda c: (-c[0], c[1]))
        beams = cands[: int(beam_width)]
    if stats is not None:
        stats["candidates"] = count
    best_score, best = beams[0]
    return best, best_score


def exhaustive_search(
    next_log_probs: Callable[[list[int]], Any],
    prompt: Sequence[int],
    length: int,
    vocab_size: int,
    *,
    stats: dict | None = None,
) -> tuple[list[int], float]:
    """The most probable continuation of ``length`` tokens, by enumerating all
    ``V^T`` of them (``stats["leaves"]`` counts them). Tiny cases only."""
    length = _steps(length, "length")
    vocab_size = check_int(vocab_size, "vocab_size")
    if vocab_size**length > 2_000_000:
        raise ValueError(
            f"V^T = {vocab_size}^{length} is too many sequences to enumerate"
        )
    prompt = _prompt(prompt)
    best, best_lp, leaves = None, -np.inf, 0
    for tail in itertools.product(range(vocab_size), repeat=length):
        leaves += 1
        lp = sequence_log_prob(next_log_probs, list(tail), prompt=prompt)
        if lp > best_lp:
            best, best_lp = [*prompt, *tail], lp
    if stats is not None:
        stats["leaves"] = leaves
    return best, float(best_lp)


def sequence_log_prob(
    next_log_probs: Callable[[list[int]], Any],
    x: Sequence[int],
    *,
    prompt: Sequence[int] = (),
) -> float:
    r"""``log p(x | prompt) = Σ_i log p(x_i | prompt, x_{:i})`` (eq. E.8.7 in log space;
    ``prompt`` plays the role of [BOS] or of a conditioning text)."""
    prefix, total = _prompt(prompt), 0.0
    x = _prompt(x)
    if not x:
        raise ValueError("x must hold at least one token; got an empty sequence")
    for tok in x:
        lp = _log_probs(next_log_probs, prefix)
        if not 0 <= tok < lp.shape[0]:
            raise ValueError(
                f"token {tok} is outside the vocabulary [0, {lp.shape[0]})"
            )
        total += float(lp[tok])
        prefix.append(tok)
    return total


def conditional_log_prob(
    next_log_probs: Callable[[list[int]], Any],
    x: Sequence[int],
    c: Sequence[int],
    *,
    bos: Sequence[int] = (),
) -> float:
    """``log p(x | c)`` with one causal model on the concatenation ``[c ‖ x]``
    (lines 4284-4294): ``log p([c ‖ x]) - log p(c)``, both after ``bos``."""
    both = sequence_log_prob(next_log_probs, [*c, *x], prompt=bos)
    return both - sequence_log_prob(next_log_probs, list(c), prompt=bos)
