"""alice_lab.sequence against independent references: exhaustive enumeration of all
sequences, chi-square tests of sampling frequencies against the renormalised
top-k / top-p distribution, torch's cross-entropy and conv1d, least squares."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import log_softmax, softmax

from alice_lab import sequence as S


def table_model(V: int, order: int, seed: int):
    """A random autoregressive model: the next-token logits depend on the last
    ``order`` tokens (a lookup table, with a [BOS]-like start state)."""
    rng = np.random.default_rng(seed)
    table = {}

    def next_log_probs(prefix):
        key = tuple(prefix[-order:])
        if key not in table:
            table[key] = rng.standard_normal(V) * 2
        return log_softmax(table[key])

    return next_log_probs


def tree_model(prefix):
    """The counterexample of the notebook (C8.47): greedy takes A (0.6) and ends at
    0.6·0.34 = 0.204, while B then B has 0.4·0.9 = 0.36."""
    if len(prefix) == 0:
        return np.log([0.6, 0.4, 1e-12])
    first = {0: [0.34, 0.33, 0.33], 1: [0.9, 0.05, 0.05], 2: [1 / 3] * 3}[prefix[0]]
    return np.log(first)


# --- sampling ---------------------------------------------------------------------


def _reference_filter(z, temperature, top_k, top_p):
    """Top-k / top-p written out with a Python loop over the sorted tokens."""
    p = softmax(np.asarray(z) / temperature)
    order = sorted(range(len(z)), key=lambda i: (-z[i], i))
    kept = order[: top_k or len(z)]
    if top_p is not None:
        mass = sum(p[i] for i in kept)
        nucleus, acc = [], 0.0
        for i in kept:
            nucleus.append(i)
            acc += p[i] / mass
            if acc >= top_p - 1e-12:
                break
        kept = nucleus
    q = np.zeros(len(z))
    q[kept] = p[kept]
    return q / q.sum()


@pytest.mark.parametrize(
    "temperature,top_k,top_p",
    [
        (1.0, None, None),
        (0.7, 3, None),
        (1.5, None, 0.8),
        (1.0, 4, 0.9),
        (0.5, 1, None),
    ],
)
def test_distribution_matches_reference(temperature, top_k, top_p):
    z = np.array([1.0, 3.0, -0.5, 2.0, 0.0, 2.5])
    got = S.next_token_distribution(
        z, temperature=temperature, top_k=top_k, top_p=top_p
    )
    ref = _reference_filter(z, temperature, top_k, top_p)
    np.testing.assert_allclose(got, ref, atol=1e-12)


@pytest.mark.parametrize("top_k,top_p", [(3, None), (None, 0.75), (None, None)])
def test_empirical_frequencies_chi_square(top_k, top_p):
    z = np.log([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
    q = _reference_filter(z, 1.0, top_k, top_p)
    rng = np.random.default_rng(5)
    n = 8000
    draws = [
        S.sample_next_token(z, top_k=top_k, top_p=top_p, rng=rng) for _ in range(n)
    ]
    counts = np.bincount(draws, minlength=6)
    assert not counts[q == 0].any()  # nothing outside the kept set
    kept = q > 0
    pval = stats.chisquare(counts[kept], n * q[kept]).pvalue
    assert pval > 1e-3, (counts, q)


def test_temperature_limits_and_torch_logits():
    torch = pytest.importorskip("torch")
    z = np.array([0.3, 1.2, -0.4, 1.1])
    cold = S.next_token_distribution(torch.tensor(z), temperature=1e-3)
    np.testing.assert_allclose(cold, [0, 1, 0, 0], atol=1e-12)
    hot = S.next_token_distribution(z, temperature=1e4)
    np.testing.assert_allclose(hot, 0.25, atol=1e-3)
    ref = torch.softmax(torch.tensor(z) / 0.6, -1).numpy()
    np.testing.assert_allclose(S.next_token_distribution(z, temperature=0.6), ref)
    assert S.sample_next_token(torch.tensor(z), temperature=0) == 1


def test_bad_sampling_options():
    z = np.zeros(3)
    with pytest.raises(ValueError, match="temperature must be"):
        S.sample_next_token(z, temperature=-0.1)
    for k in (0, -1, 1.5):
        with pytest.raises(ValueError, match="top_k must be an int >= 1"):
            S.sample_next_token(z, top_k=k)
    for p in (0.0, 1.2, -0.5):
        with pytest.raises(ValueError, match=r"top_p must lie in \(0, 1\]"):
            S.sample_next_token(z, top_p=p)
    with pytest.raises(ValueError, match=r"shape \(V,\)"):
        S.sample_next_token(np.zeros(0))
    with pytest.raises(ValueError, match="temperature"):
        S.generate(lambda p: z, [0], 2, temperature=-1)


def test_generate_contract():
    model = table_model(5, 1, 0)
    out = S.generate(model, [1, 2], 6, temperature=0)
    greedy, _ = S.greedy_decode(model, [1, 2], 6)
    assert out == greedy and out[:2] == [1, 2] and len(out) == 8
    a = S.generate(model, [0], 10, top_k=2, rng=np.random.default_rng(1))
    b = S.generate(model, [0], 10, top_k=2, rng=np.random.default_rng(1))
    assert a == b and all(0 <= t < 5 for t in a)
    assert (
        S.generate(model, [0], 10, rng=np.random.default_rng(2), eos=a[1])[-1] == a[1]
    )


# --- search -----------------------------------------------------------------------


def test_greedy_misses_the_most_likely_sequence():
    g, g_lp = S.greedy_decode(tree_model, [], 2)
    e, e_lp = S.exhaustive_search(tree_model, [], 2, 3)
    b, b_lp = S.beam_search(tree_model, [], 2, beam_width=2)
    assert g == [0, 0] and np.exp(g_lp) == pytest.approx(0.204)
    assert e == b == [1, 0] and np.exp(e_lp) == pytest.approx(0.36)
    assert b_lp == pytest.approx(e_lp) and g_lp < e_lp


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beam_search_against_enumeration(seed):
    V, T = 3, 4
    model = table_model(V, 2, seed)
    e, e_lp = S.exhaustive_search(model, [0], T, V, stats=(st := {}))
    assert st["leaves"] == V**T
    b, b_lp = S.beam_search(model, [0], T, beam_width=V ** (T - 1), stats=(bs := {}))
    assert b == e and b_lp == pytest.approx(e_lp)
    one, one_lp = S.beam_search(model, [0], T, beam_width=1)
    assert (one, pytest.approx(one_lp)) == S.greedy_decode(model, [0], T)
    S.beam_search(model, [0], T, beam_width=2, stats=(bs := {}))
    assert bs["candidates"] <= T * 2 * V
    # every brute-force score agrees with the search's log-probability
    best = max(
        itertools.product(range(V), repeat=T),
        key=lambda x: S.sequence_log_prob(model, list(x), prompt=[0]),
    )
    assert [0, *best] == e
    with pytest.raises(ValueError, match="beam_width"):
        S.beam_search(model, [0], T, beam_width=0)


def test_chain_rule_normalises_and_matches_torch_cross_entropy():
    torch = pytest.importorskip("torch")
    V, T = 3, 4
    model = table_model(V, 3, 7)
    total = sum(
        np.exp(S.sequence_log_prob(model, list(x)))
        for x in itertools.product(range(V), repeat=T)
    )
    assert total == pytest.approx(1.0, abs=1e-12)
    x = [2, 0, 1, 1]
    logits = np.stack([model(x[:i]) for i in range(T)])
    ce = torch.nn.functional.cross_entropy(
        torch.tensor(logits), torch.tensor(x), reduction="sum"
    )
    assert -S.sequence_log_prob(model, x) == pytest.approx(float(ce), abs=1e-12)
    c = [1, 2]
    cond = S.conditional_log_prob(model, x, c)
    direct = sum(model(c + x[:i])[x[i]] for i in range(len(x)))  # Σ log p(x_i|c, x_:i)
    assert cond == pytest.approx(direct, abs=1e-12)
    with pytest.raises(ValueError, match="empty"):
        S.sequence_log_prob(model, [])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        S.sequence_log_prob(model, [0, 5])


# --- forecasting ------------------------------------------------------------------


def test_windows_match_sliding_window_view():
    rng = np.random.default_rng(0)
    s = rng.standard_normal((40, 2))
    X, y = S.make_windows(s, 12)
    ref = np.lib.stride_tricks.sliding_window_view(s, 12, axis=0)  # (29, 2, 12)
    assert X.shape == (28, 12, 2)
    np.testing.assert_array_equal(X, np.moveaxis(ref, 2, 1)[:28])
    np.testing.assert_array_equal(y, s[12:])
    X3, y3 = S.make_windows(s[:, 0], 5, horizon=3)
    assert X3.shape == (33, 5, 1) and y3[0, 0] == s[7, 0]
    with pytest.raises(ValueError, match="no window"):
        S.make_windows(s[:5], 5)
    with pytest.raises(ValueError, match="T >= 1"):
        S.make_windows(np.zeros(0), 1)


def test_linear_ar2_recovers_a_sine_and_rolls_out():
    w = 0.3
    s = np.sin(w * np.arange(200))
    X, y = S.make_windows(s, 2)
    coef = np.linalg.lstsq(X[:, :, 0], y[:, 0], rcond=None)[0]
    np.testing.assert_allclose(coef, [-1.0, 2 * np.cos(w)], atol=1e-8)
    roll = S.autoregressive_rollout(lambda buf: buf[:, 0] @ coef, s[-2:], 50)
    truth = np.sin(w * np.arange(200, 250))
    np.testing.assert_allclose(roll[:, 0], truth, atol=1e-7)


def test_shift_targets_and_sequence_mse(backend):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((5, 3)), rng.standard_normal(3)
    Y = backend.to_numpy(S.shift_targets(backend.asarray(X), backend.asarray(y)))
    np.testing.assert_array_equal(Y, np.vstack([X[1:], y]))
    Yh = rng.standard_normal((5, 3))
    got = float(
        backend.to_numpy(S.sequence_mse(backend.asarray(Yh), backend.asarray(Y)))
    )
    assert got == pytest.approx(sum(((Yh[i] - Y[i]) ** 2).sum() for i in range(5)))
    with pytest.raises(ValueError, match="same shape"):
        S.sequence_mse(Yh, Y[:4])


def _torch_causal_conv(w):
    torch = pytest.importorskip("torch")
    W = torch.tensor(w)  # (c', c, s): left-pad by s - 1

    def f(X):
        x = torch.tensor(X.T[None])  # (1, c, t)
        x = torch.nn.functional.pad(x, (W.shape[-1] - 1, 0))
        return torch.nn.functional.conv1d(x, W)[0].numpy().T

    return f


def test_is_causal_and_generate_causal_schedule():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    w = rng.standard_normal((1, 1, 3))
    causal = _torch_causal_conv(w)
    same = lambda X: (
        torch.nn.functional.conv1d(  # noqa: E731
            torch.tensor(X.T[None]), torch.tensor(w), padding=1
        )[0]
        .numpy()
        .T
    )
    X = rng.standard_normal((8, 1))
    assert S.is_causal(causal, X) and not S.is_causal(same, X)
    gen, log = S.generate_causal(causal, [[1.0], [2.0]], 4, context=4)
    assert [r for _, r in log] == [2, 3, 4, 4]
    assert log[0][0][:, 0].tolist() == [1.0, 2.0, 0.0, 0.0]
    assert log[3][0][:, 0].tolist() == [2.0, *gen[:3, 0].tolist()]
    # the output read at a known position does not depend on the padding content
    a = causal(np.array([[1.0], [2.0], [0.0], [0.0]]))
    b = causal(np.array([[1.0], [2.0], [9.0], [-3.0]]))
    assert a[1, 0] == b[1, 0] and a[2, 0] != b[2, 0]


def test_num_samples():
    assert S.num_samples(180, 44_100) == 7_938_000
    assert S.num_samples(60, 1 / 60) == 1 and S.num_samples(1, 240) == 240
    with pytest.raises(ValueError, match="rate"):
        S.num_samples(1, 0)
