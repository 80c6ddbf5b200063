"""A claim's check must be able to fail: break the library function it is about and
the check must raise ``AssertionError``.

For a sample of claims (at least one per chapter and appendix) a plausible wrong version
of the function the claim is about replaces the right one (softmax-free cross-entropy
that overflows, a VJP with its sign flipped, a convolution that flips its kernel,
attention without the 1/√k scale, an online softmax that forgets to rescale, ...). The
mutant is put in every place the check can look the function up: the library module that
defines it, the packages that re-export it and any module that imported it by name (the
claim modules, ``alice_lab.attention.multihead``, ...). Each case also runs the check
unpatched, which must pass, and counts the mutant's calls, which must be non-zero, so a
case cannot pass because the patch missed the check.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from alice_course import claims


@dataclass(frozen=True)
class Mutation:
    claim: str
    module: str  # where the function is defined
    name: str
    mutant: Callable[[Callable], Callable]  # original -> broken version
    why: str


def _exclusive(orig):
    """A scan that returns the exclusive prefixes (shifted by one)."""

    def scan(op, elems, **kw):
        out = orig(op, elems, **kw)
        return [elems[0], *out[:-1]]

    return scan


def _no_momentum(orig):
    def gd(grad_fn, x0, *, lr, momentum=0.0, **kw):
        return orig(grad_fn, x0, lr=lr, momentum=0.0, **kw)

    return gd


def _unstable_cross_entropy(orig):
    """logsumexp without subtracting the maximum: exp overflows for large logits."""

    def ce(logits, labels, *, reduction="mean"):
        Z = np.asarray(logits, dtype=float)
        y = np.asarray(labels)
        with np.errstate(over="ignore", invalid="ignore"):
            lse = np.log(np.sum(np.exp(Z), axis=-1))
        out = lse - Z[np.arange(len(y)), y]
        return out.mean() if reduction == "mean" else out

    return ce


def _online_softmax_without_rescale(orig):
    """Chunked attention that keeps each chunk's own maximum and never rescales."""

    def attn(Q, K, V, *, chunk_size, causal=False, **kw):
        Q, K, V = (np.asarray(M, dtype=float) for M in (Q, K, V))
        S = Q @ K.T / np.sqrt(Q.shape[-1])
        if causal:
            S = np.where(np.tri(*S.shape, dtype=bool), S, -np.inf)
        h, L = 0.0, 0.0
        with np.errstate(invalid="ignore"):
            for j in range(0, K.shape[0], chunk_size):
                s = S[:, j : j + chunk_size]
                m = np.max(s, axis=1, keepdims=True)
                P = np.where(
                    np.isfinite(s), np.exp(s - np.where(np.isfinite(m), m, 0)), 0
                )
                L = L + P.sum(1, keepdims=True)
                h = h + P @ V[j : j + chunk_size]
        return h / L

    return attn


def _unscaled_attention(orig):
    """Attention without the 1/√k of E.10.11: scale the queries back up by √k."""

    def attn(Q, K, V, *args, **kw):
        return orig(Q * np.sqrt(Q.shape[-1]), K, V, *args, **kw)

    return attn


def _flipped_vjp(orig):
    def vjp(f, *primals):
        y, fn = orig(f, *primals)
        return y, lambda v: -fn(v)

    return vjp


def _flipped_kernel(orig):
    def conv2d(X, W, *args, **kw):
        return orig(X, W[::-1, ::-1], *args, **kw)

    return conv2d


def _without_bias(orig):
    def forward(params, X, *args, **kw):
        return orig([{**p, "b": 0 * p["b"]} for p in params], X, *args, **kw)

    return forward


def _transposed_weight(orig):
    def fc(X, W, b, *args, **kw):
        return orig(X, W.T, b, *args, **kw)

    return fc


def _unbiased_batch_norm(orig):
    """Batch norm that divides by the unbiased (n − 1) standard deviation."""

    def bn(x, *args, **kw):
        n = np.asarray(x).shape[0]
        return orig(x, *args, **kw) * np.sqrt((n - 1) / n)

    return bn


def _inverse_temperature(orig):
    def dist(logits, *, temperature=1.0, **kw):
        t = temperature if temperature == 0 else 1.0 / temperature
        return orig(logits, temperature=t, **kw)

    return dist


def _sum_not_mean(orig):
    def ce(logits, labels, *, reduction="mean"):
        return orig(
            logits, labels, reduction="sum" if reduction == "mean" else reduction
        )

    return ce


def _unnormalised_gcn(orig):
    """A GC layer that squares the propagation matrix (two hops, still equivariant)."""

    def gcn(A, X, W, b=None, *, activation=None):
        return orig(A @ A, X, W, b, activation=activation)

    return gcn


def _rw_pe_off_by_one(orig):
    def pe(A, k):
        return orig(A, k + 1)[:, 1:]

    return pe


def _misaligned_values(orig):
    """Linear attention whose keys are paired with the wrong values."""

    def attn(Q, K, V, *args, **kw):
        return orig(Q, K[::-1], V, *args, **kw)

    return attn


def _ridge_instead(orig):
    def ls(X, y, **kw):
        return orig(X, y, **{**kw, "ridge": 5.0})

    return ls


def _wrong_frequency(orig):
    def f(x):
        return x * np.sin(x)

    return f


def _quadratic_linear_attention(orig):
    """The same numbers through the n × n matrix φ(Q)φ(K)ᵀ: quadratic cost."""
    from alice_lab.recurrent.linear_attention import elu_plus_one

    def attn(Q, K, V, *args, **kw):
        A = elu_plus_one(Q) @ elu_plus_one(K).T  # (n, n)
        return (A @ V) / (A @ (V[:, :1] * 0 + 1))

    return attn


def _sum_pool_as_average(orig):
    """The book's slip: call the sum "global average pooling"."""
    from alice_lab.conv import global_sum_pool

    return lambda X, **kw: global_sum_pool(X, **kw)


def _rows_reversed(orig):
    def ml(X, W, b=None):
        return orig(X, W[::-1], b)

    return ml


def _bias_dropped(orig):
    def lm(X, w, b=0.0):
        return orig(X, w, 0.0)

    return lm


def _half_rate_tanh(orig):
    """tanh(s/2) = 2σ(s) − 1: the sigmoid rescaled with the wrong slope."""

    def tanh(s):
        return orig(s / 2)

    return tanh


def _transposed_recurrence(orig):
    def rnn(X, A, B, *args, **kw):
        return orig(X, A.T, B, *args, **kw)

    return rnn


def _frequencies_doubled(orig):
    def freqs(*args, **kw):
        return 2 * orig(*args, **kw)

    return freqs


def _flipped_taps(orig):
    def conv1d(X, W, *args, **kw):
        return orig(X, W[::-1], *args, **kw)

    return conv1d


def _dilation_ignored(orig):
    """A 1-D convolution that reads neighbouring steps whatever its dilation."""

    def conv(X, W, b=None, **kw):
        return orig(X, W, b, **{**kw, "dilation": 1})

    return conv


def _future_leak(orig):
    """A "causal" convolution padded on both sides (centred), so ``y_t`` sees the
    future: the same length and weights, but not causal."""
    from alice_lab.conv.patches import convnd

    def causal(X, W, b=None, *, dilation=1):
        p = (W.shape[0] - 1) * dilation
        return convnd(X, W, b, d=1, padding=((p // 2, p - p // 2),), dilation=dilation)

    return causal


def _average_for_max(orig):
    """Max-pooling that averages its windows."""
    from alice_lab.conv.pooling import avg_pool1d

    def pool(X, size=2, stride=None, **kw):
        return avg_pool1d(X, size, stride, **kw)

    return pool


def _rollback_to_t_minus_k(orig):
    """The printed rollback: to epoch t − k instead of the best epoch."""

    def epoch(scores, patience, **kw):
        stop, best = orig(scores, patience, **kw)
        return stop, (best if stop is None else stop - patience)

    return epoch


def _flipped_sigmoid(orig):
    def sigmoid(s):
        return orig(-s)

    return sigmoid


def _columns_simplex(orig):
    """The normalisation checked along the first axis instead of the last."""

    def is_simplex(x, axis=-1, **kw):
        return orig(x, axis=0, **kw)

    return is_simplex


def _bessel_by_default(orig):
    """The unbiased 1/(n − 1) variance where maximum likelihood gives 1/n."""

    def mle(x, ddof=0):
        return orig(x, ddof=1)

    return mle


def _slope_without_log_error(orig):
    """The slope fitted to the raw errors instead of their logarithm."""

    def slope(ms, errors):
        m = np.log(np.asarray(ms, dtype=float))
        return float(np.polyfit(m, np.asarray(errors, dtype=float), 1)[0])

    return slope


MUTATIONS = [
    Mutation("C1-11", "alice_lab.tensors", "is_simplex", _columns_simplex, "axis 0"),
    Mutation(
        "CA-24", "alice_lab.probability", "mle_gaussian", _bessel_by_default, "1/(n−1)"
    ),
    Mutation(
        "EB-03",
        "alice_lab.approximation",
        "loglog_slope",
        _slope_without_log_error,
        "log forgotten on the error",
    ),
    Mutation("C2-45", "alice_lab.testfuncs", "xsin2x", _wrong_frequency, "x sin x"),
    Mutation(
        "C2-58", "alice_lab.optim", "gradient_descent", _no_momentum, "momentum ignored"
    ),
    Mutation(
        "C3-18",
        "alice_lab.losses",
        "cross_entropy",
        _sum_not_mean,
        "sum instead of mean",
    ),
    Mutation(
        "C4-27",
        "alice_lab.linear",
        "least_squares",
        _ridge_instead,
        "ridge-regularised fit",
    ),
    Mutation(
        "C4-51",
        "alice_lab.losses",
        "cross_entropy",
        _unstable_cross_entropy,
        "no max-subtraction (overflows)",
    ),
    Mutation(
        "C5-04", "alice_lab.layers", "mlp_forward", _without_bias, "biases dropped"
    ),
    Mutation(
        "C6-23",
        "alice_lab.autodiff.functional",
        "vjp",
        _flipped_vjp,
        "VJP sign flipped",
    ),
    Mutation(
        "C7-02",
        "alice_lab.conv.patches",
        "conv2d",
        _flipped_kernel,
        "kernel flipped (true convolution)",
    ),
    Mutation(
        "C7-05",
        "alice_lab.layers",
        "fully_connected",
        _transposed_weight,
        "W transposed",
    ),
    Mutation(
        "C8-25", "alice_lab.conv.patches", "conv1d", _flipped_taps, "taps reversed"
    ),
    Mutation(
        "C8-06", "alice_lab.conv.patches", "conv1d", _flipped_taps, "taps reversed"
    ),
    Mutation(
        "C8-09",
        "alice_lab.conv.pooling",
        "max_pool1d",
        _average_for_max,
        "max-pooling that averages",
    ),
    Mutation(
        "C8-11", "alice_lab.conv.patches", "conv1d", _flipped_taps, "taps reversed"
    ),
    Mutation(
        "C8-26",
        "alice_lab.conv.patches",
        "conv1d",
        _dilation_ignored,
        "dilation ignored",
    ),
    Mutation(
        "C8-34",
        "alice_lab.conv.patches",
        "causal_conv1d",
        _dilation_ignored,
        "dilation ignored",
    ),
    Mutation(
        "C8-33",
        "alice_lab.conv.patches",
        "causal_conv1d",
        _future_leak,
        "centred padding: the output sees the future",
    ),
    Mutation(
        "C8-08", "alice_lab.conv.patches", "conv3d", _flipped_kernel, "kernel flipped"
    ),
    Mutation(
        "C8-46",
        "alice_lab.sequence.decoding",
        "next_token_distribution",
        _inverse_temperature,
        "z·τ instead of z/τ",
    ),
    Mutation(
        "C9-42",
        "alice_lab.normalization",
        "batch_norm",
        _unbiased_batch_norm,
        "unbiased variance",
    ),
    Mutation(
        "E9-06",
        "alice_lab.regularization",
        "early_stopping_epoch",
        _rollback_to_t_minus_k,
        "rolls back to t − k",
    ),
    Mutation(
        "E10-02",
        "alice_lab.attention.scoring",
        "scaled_dot_product_attention",
        _unscaled_attention,
        "no 1/√k",
    ),
    Mutation(
        "C11-20",
        "alice_lab.attention.chunked",
        "chunked_attention",
        _online_softmax_without_rescale,
        "online softmax without rescaling",
    ),
    Mutation(
        "C12-18",
        "alice_lab.graphs.layers",
        "gcn_layer",
        _unnormalised_gcn,
        "propagates with Â² (equivariant but wrong)",
    ),
    Mutation("C12-27", "alice_lab.functional", "sigmoid", _flipped_sigmoid, "σ(−s)"),
    Mutation(
        "C12-38",
        "alice_lab.graphs.graph_transformer",
        "random_walk_pe",
        _rw_pe_off_by_one,
        "RW-PE starts at R²",
    ),
    Mutation(
        "C13-04",
        "alice_lab.recurrent.linear_attention",
        "linear_attention",
        _misaligned_values,
        "keys paired with the wrong values",
    ),
    Mutation(
        "C13-05",
        "alice_lab.recurrent.linear_attention",
        "linear_attention",
        _quadratic_linear_attention,
        "computed through the n × n matrix",
    ),
    Mutation(
        "E8-06",
        "alice_lab.conv.pooling",
        "global_avg_pool",
        _sum_pool_as_average,
        "the sum called an average",
    ),
    Mutation(
        "C4-31",
        "alice_lab.linear",
        "multi_linear",
        _rows_reversed,
        "rows of W reversed",
    ),
    Mutation(
        "C4-07", "alice_lab.linear", "linear_model", _bias_dropped, "bias dropped"
    ),
    Mutation("C5-23", "alice_lab.activations", "tanh", _half_rate_tanh, "tanh(s/2)"),
    Mutation(
        "C7-20", "alice_lab.conv.patches", "conv2d", _flipped_kernel, "kernel flipped"
    ),
    Mutation(
        "C10-34",
        "alice_lab.attention.positional",
        "frequencies",
        _frequencies_doubled,
        "every frequency doubled",
    ),
    Mutation(
        "C10-16",
        "alice_lab.attention.scoring",
        "scaled_dot_product_attention",
        _unscaled_attention,
        "no 1/√k",
    ),
    Mutation(
        "C13-08",
        "alice_lab.recurrent.cells",
        "elman_rnn",
        _transposed_recurrence,
        "Aᵀ in the recurrence",
    ),
    Mutation(
        "C13-21",
        "alice_lab.recurrent.scan",
        "associative_scan",
        _exclusive,
        "exclusive instead of inclusive scan",
    ),
]


def _patch_everywhere(monkeypatch, module: str, name: str, mutant: Callable) -> int:
    """Replace ``module.name`` and every module global bound to the same object."""
    claims.all_claims()  # every claim module imported, so its globals exist
    orig = getattr(importlib.import_module(module), name)
    patched = 0
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith(("alice_lab", "alice_course")) or mod is None:
            continue
        if vars(mod).get(name) is orig:  # no getattr: lazy modules would import
            monkeypatch.setattr(mod, name, mutant)
            patched += 1
    return patched


@pytest.mark.parametrize("m", MUTATIONS, ids=[f"{m.claim}-{m.name}" for m in MUTATIONS])
def test_check_fails_on_mutant(m: Mutation, monkeypatch) -> None:
    check = claims.get(m.claim).check
    check()  # the right implementation passes
    orig = getattr(importlib.import_module(m.module), m.name)
    calls = []
    broken = m.mutant(orig)

    def counted(*args, **kw):
        calls.append(1)
        return broken(*args, **kw)

    assert _patch_everywhere(monkeypatch, m.module, m.name, counted) >= 1
    with pytest.raises(AssertionError):
        check()
    assert calls, f"{m.claim}'s check never called the mutated {m.name}"


def test_every_chapter_sampled() -> None:
    chapters = {claims.get(m.claim).chapter for m in MUTATIONS}
    assert {str(c) for c in range(1, 14)} | {"A", "B"} <= chapters, sorted(chapters)
