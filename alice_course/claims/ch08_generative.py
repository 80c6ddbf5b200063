"""Checkable claims of Chapter 8, §8.4: generative models, sampling and decoding
(book lines 4164-4298). Checks compare alice_lab.sequence with exhaustive
enumeration, joint probability tables, torch's cross-entropy and softmax, and
Monte Carlo frequencies."""

from __future__ import annotations

import itertools

import numpy as np

from alice_course.claims import claim
from alice_course.claims._ch08 import table_model, tree_log_probs
from alice_course.claims._helpers import _rng


def _joint_model(P):
    """The autoregressive model of a joint table P ~ (V,)*T: its exact conditionals."""

    def next_log_probs(prefix):
        marg = P[tuple(prefix)]
        while marg.ndim > 1:
            marg = marg.sum(-1)
        return np.log(marg / marg.sum())

    return next_log_probs


# =====================================================================================
# 8.4.1 A probabilistic formulation
# =====================================================================================


@claim(
    "C8-42",
    section="8.4.1",
    lines=4170,
    statement="p(x, y) = p(y | x) p(x) = p(x | y) p(y): a generative model targets "
    "p(x) or p(x | y), a discriminative one p(y | x).",
)
def _c8_42() -> str:
    P = _rng(42).random((2, 3))
    P /= P.sum()
    px, py = P.sum(1), P.sum(0)
    a = (P / px[:, None]) * px[:, None]
    b = (P / py[None, :]) * py[None, :]
    assert np.allclose(a, P) and np.allclose(b, P) and abs(P.sum() - 1) < 1e-12
    return "a 2 × 3 joint table factorises both ways"


@claim(
    "C8-43",
    section="8.4.1",
    lines=(4186, 4194),
    statement="The chain rule p(x) = Π_i p(x_i | x_{:i}) is exact, and any "
    "autoregressive model's probabilities sum to 1 over all V^T sequences.",
    equation="E.8.7",
)
def _c8_43() -> str:
    from alice_lab.sequence import sequence_log_prob

    P = _rng(43).random((3, 3, 3))
    P /= P.sum()
    model = _joint_model(P)
    err = max(
        abs(np.exp(sequence_log_prob(model, list(x))) - P[x])
        for x in itertools.product(range(3), repeat=3)
    )
    m2 = table_model(3, 2, 43)
    total = sum(
        np.exp(sequence_log_prob(m2, list(x)))
        for x in itertools.product(range(3), repeat=4)
    )
    assert err < 1e-12 and abs(total - 1) < 1e-12, (err, total)
    return f"random 3×3×3 joint: max error {err:.0e}; 81 sequences sum to {total:.12f}"


@claim(
    "C8-44",
    section="8.4.1",
    lines=(4206, 4212),
    statement="Maximum likelihood of a Categorical(f(x_{:i})) model is minimum "
    "cross-entropy: −log p(x) = Σ_i CE(f(x_{:i}), x_i).",
)
def _c8_44() -> str:
    import torch

    from alice_lab.sequence import sequence_log_prob

    model = table_model(5, 2, 44)
    x = [3, 1, 4, 1, 0, 2]
    logits = torch.tensor(np.stack([model(x[:i]) for i in range(len(x))]))
    ce = float(
        torch.nn.functional.cross_entropy(logits, torch.tensor(x), reduction="sum")
    )
    nll = -sequence_log_prob(model, x)
    assert abs(nll - ce) < 1e-12, (nll, ce)
    return f"−log p(x) = {nll:.6f} = torch cross_entropy(sum) = {ce:.6f}"


# =====================================================================================
# 8.4.2 Sampling in an autoregressive model
# =====================================================================================


@claim(
    "C8-45",
    section="8.4.2",
    lines=(4220, 4230),
    statement="Ancestral sampling (x_1 ~ p(x_1), then x_2 ~ p(x_2 | x_1), …) draws "
    "whole sequences from p(x).",
)
def _c8_45() -> str:
    from alice_lab.sequence import generate, sequence_log_prob

    model = table_model(3, 2, 45)
    rng = np.random.default_rng(45)
    n = 6000
    counts: dict = {}
    for _ in range(n):
        x = tuple(generate(lambda p: model(p), [], 3, rng=rng))
        counts[x] = counts.get(x, 0) + 1
    gap = max(
        abs(counts.get(x, 0) / n - np.exp(sequence_log_prob(model, list(x))))
        for x in itertools.product(range(3), repeat=3)
    )
    assert gap < 0.02, gap
    return f"{n} samples, 27 sequences: max |frequency − p(x)| = {gap:.4f}"


@claim(
    "C8-46",
    section="8.4.2",
    lines=4244,
    statement="Temperature: a low τ tends to the argmax, a high τ to the uniform "
    "distribution, and the entropy grows with τ.",
)
def _c8_46() -> str:
    import torch

    from alice_lab.sequence import next_token_distribution

    z = np.array([1.0, 2.5, -0.3, 2.2, 0.4])
    cold = next_token_distribution(z, temperature=1e-3)
    hot = next_token_distribution(z, temperature=1e4)
    taus = np.geomspace(0.05, 50, 30)
    H = [
        -np.sum(p * np.log(p + 1e-300))
        for p in (next_token_distribution(z, temperature=t) for t in taus)
    ]
    ref = torch.softmax(torch.tensor(z) / 0.7, -1).numpy()
    assert np.allclose(cold, np.eye(5)[1]) and np.allclose(hot, 0.2, atol=1e-3)
    assert np.all(np.diff(H) > 0) and np.allclose(
        next_token_distribution(z, temperature=0.7), ref
    )
    return (
        f"τ = 1e-3 → one-hot at 1; τ = 1e4 → uniform; entropy {H[0]:.3f} → {H[-1]:.3f}"
    )


@claim(
    "C8-47",
    section="8.4.2",
    lines=(4246, 4248),
    statement="Greedy decoding can miss the most probable sequence: with p(A) = 0.6, "
    "p(B) = 0.4, p(·|A) = (0.34, 0.33, 0.33), p(·|B) = (0.9, 0.05, 0.05) it picks A "
    "then A (0.204) while B then A has 0.36.",
)
def _c8_47() -> str:
    from alice_lab.sequence import exhaustive_search, greedy_decode

    g, g_lp = greedy_decode(tree_log_probs, [], 2)
    e, e_lp = exhaustive_search(tree_log_probs, [], 2, 3)
    assert g == [0, 0] and abs(np.exp(g_lp) - 0.204) < 1e-9
    assert e == [1, 0] and abs(np.exp(e_lp) - 0.36) < 1e-9
    return f"greedy {g} p = {np.exp(g_lp):.3f} < best {e} p = {np.exp(e_lp):.3f}"


@claim(
    "C8-48",
    section="8.4.2",
    lines=4250,
    statement="Beam search keeps the top k of the k·V extensions by product "
    "probability (= by summed log-probability): k = 1 is greedy, k = 2 finds 0.36 in "
    "the tree, and k ≥ V^{T−1} equals exhaustive search.",
)
def _c8_48() -> str:
    from alice_lab.sequence import beam_search, exhaustive_search, greedy_decode

    b2, lp2 = beam_search(tree_log_probs, [], 2, beam_width=2)
    assert b2 == [1, 0] and abs(np.exp(lp2) - 0.36) < 1e-9
    for seed in range(3):
        m = table_model(3, 2, 480 + seed)
        assert beam_search(m, [0], 4, beam_width=1)[0] == greedy_decode(m, [0], 4)[0]
        # the most probable continuation, enumerated here from the table itself
        brute = max(
            itertools.product(range(3), repeat=4),
            key=lambda x, m=m: sum(m([0, *x[:i]])[x[i]] for i in range(4)),
        )
        assert (
            beam_search(m, [0], 4, beam_width=27)[0]
            == exhaustive_search(m, [0], 4, 3)[0]
            == [0, *brute]
        )
    # ranking by products = ranking by summed logs
    r = _rng(48)
    probs = r.random((20, 3))
    assert np.array_equal(
        np.argsort(-probs.prod(1), kind="stable"),
        np.argsort(-np.log(probs).sum(1), kind="stable"),
    )
    return "k = 2 finds [B, A] (0.36); k = 1 = greedy; k = 27 = exhaustive (3 models)"


@claim(
    "C8-49",
    section="8.4.2",
    lines=4252,
    statement="Finding the most probable sequence is a search over a tree with V^T "
    "leaves; beam search scores at most T·k·V candidates.",
)
def _c8_49() -> str:
    from alice_lab.sequence import beam_search, exhaustive_search

    m = table_model(4, 2, 49)
    ex, bs = {}, {}
    exhaustive_search(m, [], 5, 4, stats=ex)
    beam_search(m, [], 5, beam_width=3, stats=bs)
    assert ex["leaves"] == 4**5 and bs["candidates"] <= 5 * 3 * 4
    return f"V = 4, T = 5: {ex['leaves']} leaves vs {bs['candidates']} beam candidates"


# =====================================================================================
# 8.4.3 Conditional modeling
# =====================================================================================


@claim(
    "C8-50",
    section="8.4.3",
    lines=(4264, 4284),
    statement="Conditioning by concatenation: one causal model on [c ‖ x] gives "
    "log p(x | c) = log p([c ‖ x]) − log p(c), the product of the conditionals "
    "p(x_i | x_{:i}, c).",
)
def _c8_50() -> str:
    from alice_lab.sequence import conditional_log_prob

    model = table_model(4, 3, 50)
    c, x, bos = [2, 3], [1, 0, 3], [0]
    direct = sum(
        model(bos + c + x[:i])[x[i]] for i in range(len(x))
    )  # Σ_i log p(x_i | bos, c, x_{:i}) from the table itself
    got = conditional_log_prob(model, x, c, bos=bos)
    assert abs(got - direct) < 1e-12, (got, direct)
    return f"log p(x | c) = {got:.6f} (difference of two sequence log-probs)"


@claim(
    "C8-51",
    section="8.4.3",
    lines=(4288, 4294),
    statement="A prompt is just a prefix: a causal word model given “The capital of "
    "France” continues with “is”, then “Paris”.",
)
def _c8_51() -> str:
    from alice_lab.sequence import generate

    vocab = ["The", "capital", "of", "France", "is", "Paris", "."]
    nxt = {"France": "is", "is": "Paris", "Paris": "."}

    def logits(prefix):
        z = np.full(len(vocab), -5.0)
        z[vocab.index(nxt.get(vocab[prefix[-1]], "."))] = 5.0
        return z

    prompt = [vocab.index(w) for w in ["The", "capital", "of", "France"]]
    out = [vocab[i] for i in generate(logits, prompt, 2, temperature=0)]
    assert out[-2:] == ["is", "Paris"], out
    return " ".join(out)


# =====================================================================================
# Errata in §8.4
# =====================================================================================


@claim(
    "E8-09",
    section="8.4.2",
    lines=4238,
    statement="Greedy decoding takes x_i = argmax_v f(x_{:i})_v, an argmax over the "
    "vocabulary (token values v), not over the position i.",
    erratum="x_i = argmax_i f(x_{:i}) (reuses the position index)",
)
def _e8_09() -> str:
    from alice_lab.sequence import greedy_decode

    model = table_model(6, 1, 9)
    seq, _ = greedy_decode(model, [2], 3)
    for i in range(1, 4):
        assert seq[i] == int(np.argmax(model(seq[:i])))  # index into the V logits
    return f"each token is the argmax over V = 6 logits: {seq}"


@claim(
    "E8-10",
    section="8.4.2",
    lines=4246,
    statement="Ancestral sampling draws each token at random; greedy decoding takes "
    "the argmax. They are different decoders: greedy is deterministic, sampling "
    "matches p(x_1).",
    erratum="presents “greedy decoding” as another name for ancestral sampling",
)
def _e8_10() -> str:
    from alice_lab.sequence import generate

    model = table_model(3, 1, 10)
    rng = np.random.default_rng(10)
    first = [generate(model, [], 1, rng=rng)[0] for _ in range(3000)]
    freq = np.bincount(first, minlength=3) / 3000
    p1 = np.exp(model([]))
    greedy = {generate(model, [], 1, temperature=0)[0] for _ in range(5)}
    assert len(greedy) == 1 and np.abs(freq - p1).max() < 0.03 and (freq > 0).sum() > 1
    return (
        f"sampled frequencies {freq.round(3)} ≈ p {p1.round(3)}; greedy always {greedy}"
    )


@claim(
    "C8-54",
    section="8.4.2",
    lines=4250,
    statement=(
        "Beam search keeps the top-k continuations at each step (the book's "
        "'sample' means pick): it is deterministic, repeated runs give the same"
        " beams."
    ),
)
def _c8_54() -> str:
    from alice_lab.sequence import beam_search

    m = table_model(5, 2, 11)
    runs = {tuple(beam_search(m, [1], 5, beam_width=3)[0]) for _ in range(4)}
    assert len(runs) == 1
    return f"4 runs, one result {runs.pop()}"
