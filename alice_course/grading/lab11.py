"""Checks of lab 11 (chapter 11: a ViT, a Mixer and a small GPT).

Exercises: patch tokenisation of images (11.1), causal scaled dot-product attention
(11.2), the Mixer block (11.3) and one decoding step with a KV cache (11.4). Every check
compares with an independent computation (einops, torch's
``scaled_dot_product_attention``, torch einsum) on seeded inputs chosen to expose the
classic mistakes: non-square images and patch grids (patches in column-major order or
features in (c, ph, pw) order fail), a head size other than 1 (a missing 1/√d fails),
scores that are not symmetric (softmax over the wrong axis fails), n ≠ e (a token MLP
on the wrong axis fails loudly) and several decoding steps in a row (a cache that is
not appended to fails). The reference solutions call ``alice_lab`` (patchify, the
attention kernel, the Mixer block); each check's mutants are knobs of one written-out
variant.

Book: §11.1.1 (lines 5613-5629), §11.2.3 (5755-5771), §11.2.4 (5781-5823), §11.3
(5859-5885), "From theory to practice" (5921-5941).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register


def _gelu(x):
    from scipy.special import erf

    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _sdpa_causal(Q, K, V):
    """Causal attention by torch's kernel, as a NumPy array (an expected value)."""
    import torch
    import torch.nn.functional as F

    t = torch.as_tensor
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), is_causal=True).numpy()


def _torch_mixer(H, tok, ch):
    """The Mixer block with torch's GELU and einsum (an expected value)."""
    import torch

    t, g = torch.as_tensor, torch.nn.functional.gelu
    H1 = torch.einsum("np,pe->ne", g(t(H) @ t(ch["W1"])), t(ch["W2"])) + t(H)
    H2 = torch.einsum("eq,qn->ne", g(H1.T @ t(tok["W1"])), t(tok["W2"])) + H1
    return H2.numpy()


def _copied(params: dict) -> dict:
    """A fresh dict of copied arrays, so the student's code cannot alter the inputs the
    expected value is computed from."""
    return {k: np.array(v, copy=True) for k, v in params.items()}


# --- 11.1 patches --------------------------------------------------------------------


def _patchify_ref():
    """The library's patchify (``alice_lab.transformer.tokens``)."""
    from alice_lab.transformer.tokens import patchify as library_patchify

    def patchify(x, p):
        return library_patchify(x, p)

    return patchify


def _patches(x, p, pattern):
    """``x`` cut into p×p patches laid out by the einops ``pattern``'s right side."""
    from einops import rearrange

    return rearrange(x, f"b (h ph) (w pw) c -> {pattern}", ph=p, pw=p)


@register(
    "lab11.1", name="patchify", exercise="11.1", points=2, reference=_patchify_ref
)
def check_patchify(patchify: Callable) -> tuple[bool, str]:
    """patchify(x (b, h, w, c), p) -> (b, (h/p)(w/p), p·p·c), as einops'
    'b (h ph) (w pw) c -> b (h w) (ph pw c)'."""
    from einops import rearrange

    def case(b, h, w, c, p, seed):
        x = np.random.default_rng(seed).standard_normal((b, h, w, c))
        return lambda: _compare(
            f"patches of a {h}×{w}×{c} image with p={p}",
            patchify(x.copy(), p),
            lambda: rearrange(x, "b (h ph) (w pw) c -> b (h w) (ph pw c)", ph=p, pw=p),
            rtol=0,
            atol=0,
        )

    return _chain(
        case(2, 8, 8, 1, 2, 0),  # the digits' shape
        case(3, 8, 12, 3, 4, 1),  # non-square, 3 channels
        case(1, 6, 4, 2, 2, 2),
        ok="patches in row-major order, each flattened as (ph, pw, c)",
    )


@mutant("lab11.1", "patches in the wrong (column-major) order")
def _patch_column_major(x, p):
    return _patches(x, p, "b (w h) (ph pw c)")


@mutant("lab11.1", "features flattened as (c, ph, pw) (PyTorch's channel-first order)")
def _patch_channel_first(x, p):
    return _patches(x, p, "b (h w) (c ph pw)")


@mutant("lab11.1", "plain reshape without the transpose (strips, not squares)")
def _patch_reshape_only(x, p):
    return np.reshape(x, (len(x), -1, p * p * x.shape[-1]))


# --- 11.2 causal attention -----------------------------------------------------------


def _causal_ref():
    """The library's scaled dot-product attention with its causal mask."""
    from alice_lab.attention.scoring import scaled_dot_product_attention

    def causal_attention(Q, K, V):
        return scaled_dot_product_attention(Q, K, V, causal=True)

    return causal_attention


@register(
    "lab11.2",
    name="causal_attention",
    exercise="11.2",
    points=3,
    reference=_causal_ref,
)
def check_causal_attention(causal_attention: Callable) -> tuple[bool, str]:
    """causal_attention(Q (n, d), K (n, d), V (n, v)) -> (n, v) with the additive
    causal mask, as torch's scaled_dot_product_attention(..., is_causal=True)."""

    def case(n, d, v, seed, scale=1.0):
        r = np.random.default_rng(seed)
        Q, K, V = (
            scale * r.standard_normal((n, d)),
            r.standard_normal((n, d)),
            r.standard_normal((n, v)),
        )
        return lambda: _compare(
            f"causal attention (n={n}, d={d}, scores ×{scale:g})",
            causal_attention(Q.copy(), K.copy(), V.copy()),
            lambda: _sdpa_causal(Q, K, V),
            rtol=1e-7,
            atol=1e-9,
        )

    return _chain(
        case(5, 4, 3, 0),
        case(7, 16, 2, 1),
        case(6, 8, 4, 2, scale=1000.0),  # large scores: needs a stable softmax
        ok="masked inside the softmax, scaled by 1/√d, rows over the keys",
    )


def _attention(Q, K, V, *, scaled=True, mask="additive", axis=-1, stable=True):
    """Causal attention written out, with knobs that turn it into common mistakes:
    ``mask="after"`` zeroes the weights after the softmax, ``mask="literal"`` is the
    book's printed QKᵀ ⊙ M, ``axis=0`` normalises over the queries, ``stable=False``
    exponentiates without subtracting the maximum."""
    from alice_lab.attention.masks import literal_book_causal_attention

    if mask == "literal":
        return literal_book_causal_attention(Q, K, V)
    scores = np.einsum("qd,kd->qk", Q, K)
    if scaled:
        scores = scores / np.sqrt(Q.shape[-1])
    below = np.tril(np.ones(scores.shape, dtype=bool))
    if mask == "additive":
        scores = np.where(below, scores, -np.inf)
    if stable:
        scores = scores - scores.max(axis=axis, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(scores) / np.exp(scores).sum(axis=axis, keepdims=True)
    if mask == "after":
        weights = weights * below
    return weights @ V


@mutant("lab11.2", "multiplicative causal mask after the softmax")
def _mask_after_softmax(Q, K, V):
    return _attention(Q, K, V, mask="after")


@mutant("lab11.2", "missing 1/√d scaling")
def _no_scale(Q, K, V):
    return _attention(Q, K, V, scaled=False)


@mutant("lab11.2", "softmax over the wrong axis (queries)")
def _wrong_axis(Q, K, V):
    return _attention(Q, K, V, axis=0)


@mutant("lab11.2", "the book's literal mask QKᵀ ⊙ M (−∞ below the diagonal, 1 above)")
def _literal_mask(Q, K, V):
    return _attention(Q, K, V, mask="literal")


@mutant("lab11.2", "unstable softmax (no max subtracted)")
def _unstable(Q, K, V):
    return _attention(Q, K, V, stable=False)


# --- 11.3 Mixer block ----------------------------------------------------------------


def _mixer_ref():
    """The library's Mixer block (``alice_lab.transformer.mixer``)."""
    from alice_lab.transformer.mixer import mixer_block as library_mixer_block

    def mixer_block(H, token_mlp, channel_mlp):
        return library_mixer_block(H, token_mlp, channel_mlp)

    return mixer_block


@register(
    "lab11.3", name="mixer_block", exercise="11.3", points=2, reference=_mixer_ref
)
def check_mixer_block(mixer_block: Callable) -> tuple[bool, str]:
    """mixer_block(H (n, e), token_mlp {W1 (n, p), W2 (p, n)}, channel_mlp {W1 (e, q),
    W2 (q, e)}) -> (n, e): channel MLP + residual, then token MLP on Hᵀ + residual."""

    def case(n, e, seed):
        r = np.random.default_rng(seed)
        tok = {"W1": r.standard_normal((n, 6)) / 2, "W2": r.standard_normal((6, n)) / 2}
        ch = {"W1": r.standard_normal((e, 5)) / 2, "W2": r.standard_normal((5, e)) / 2}
        H = r.standard_normal((n, e))
        return lambda: _compare(
            f"Mixer block on H ({n}, {e})",
            mixer_block(H.copy(), _copied(tok), _copied(ch)),
            lambda: _torch_mixer(H, tok, ch),
            rtol=1e-7,
            atol=1e-9,
        )

    return _chain(
        case(6, 4, 0),
        case(
            5, 5, 1
        ),  # square: a token MLP applied on the wrong axis has the right shape
        ok="channel MLP, then token MLP on the transpose, each with its residual",
    )


def _mixing(H, params, *, axis):
    """One MLP of the block, mixing along ``axis`` of H (-1 channels, -2 tokens):
    GELU(H W1) W2 over that axis, no residual."""
    moved = np.moveaxis(H, axis, -1)
    return np.moveaxis(_gelu(moved @ params["W1"]) @ params["W2"], -1, axis)


def _mixer_variant(H, token_mlp, channel_mlp, *, token_axis=-2, residual=1.0,
                   token_first=False):  # fmt: skip
    """A Mixer block with knobs for common mistakes: the token MLP on the channel axis
    (``token_axis=-1``), no residuals (``residual=0``), token mixing first."""
    steps = [(channel_mlp, -1), (token_mlp, token_axis)]
    for params, axis in steps[::-1] if token_first else steps:
        H = _mixing(H, params, axis=axis) + residual * H
    return H


@mutant("lab11.3", "token MLP applied to H instead of Hᵀ (wrong axis)")
def _mixer_wrong_axis(H, token_mlp, channel_mlp):
    return _mixer_variant(H, token_mlp, channel_mlp, token_axis=-1)


@mutant("lab11.3", "residual connections missing")
def _mixer_no_residual(H, token_mlp, channel_mlp):
    return _mixer_variant(H, token_mlp, channel_mlp, residual=0.0)


@mutant("lab11.3", "token mixing first, then channel mixing")
def _mixer_swapped(H, token_mlp, channel_mlp):
    return _mixer_variant(H, token_mlp, channel_mlp, token_first=True)


# --- 11.4 a decoding step with a KV cache --------------------------------------------


def _kv_ref():
    """The cache grown with ``np.vstack``, then the library's attention of the one
    query over every cached key."""
    from alice_lab.attention.scoring import scaled_dot_product_attention

    def cached_attention_step(q, k, v, cache):
        for key, new in (("K", k), ("V", v)):
            old = cache.get(key, np.empty((0, len(new))))
            cache[key] = np.vstack([old, new])
        return scaled_dot_product_attention(q[None], cache["K"], cache["V"])[0]

    return cached_attention_step


@register(
    "lab11.4",
    name="cached_attention_step",
    exercise="11.4",
    points=3,
    reference=_kv_ref,
)
def check_cached_attention_step(step: Callable) -> tuple[bool, str]:
    """cached_attention_step(q (d,), k (d,), v (dv,), cache: dict) -> (dv,): append k, v
    to cache["K"] (t, d) and cache["V"] (t, dv), attend with q over all t tokens."""

    def case(n, d, dv, seed):
        r = np.random.default_rng(seed)
        Q, K, V = (
            r.standard_normal((n, d)),
            r.standard_normal((n, d)),
            r.standard_normal((n, dv)),
        )

        def run():
            cache: dict = {}
            rows = [
                step(Q[i].copy(), K[i].copy(), V[i].copy(), cache) for i in range(n)
            ]
            ok, msg = _compare(
                f"outputs of {n} cached decoding steps (d={d})",
                np.stack([np.asarray(x) for x in rows]),
                lambda: _sdpa_causal(Q, K, V),
                rtol=1e-7,
                atol=1e-9,
            )
            if ok and np.shape(cache.get("K")) != (n, d):
                return (
                    False,
                    f"cache['K'] has shape {np.shape(cache.get('K'))}; "
                    f"expected {(n, d)}",
                )
            return ok, msg

        return run

    return _chain(
        case(6, 4, 3, 0),
        case(5, 9, 2, 1),
        ok="each step appends one key and value and attends over the whole cache",
    )


def _kv_variant(q, k, v, cache, *, attend_first=False, keep=True, scaled=True):
    """One decoding step with knobs for common mistakes: attending before the append
    (the first step then returns v), overwriting the cache (``keep=False``), no 1/√d."""
    old = {key: cache[key] for key in ("K", "V") if key in cache}
    for key, new in (("K", k), ("V", v)):
        rows = [*old.get(key, ())] if keep else []
        cache[key] = np.stack([*rows, new])
    if attend_first and not old:
        return v
    K, V = (old["K"], old["V"]) if attend_first else (cache["K"], cache["V"])
    scores = K @ q / (np.sqrt(len(q)) if scaled else 1.0)
    weights = np.exp(scores - scores.max())
    return weights @ V / weights.sum()


@mutant("lab11.4", "attends before appending (misses the current token)")
def _kv_before_append(q, k, v, cache):
    return _kv_variant(q, k, v, cache, attend_first=True)


@mutant("lab11.4", "cache overwritten instead of appended")
def _kv_overwrite(q, k, v, cache):
    return _kv_variant(q, k, v, cache, keep=False)


@mutant("lab11.4", "missing 1/√d scaling")
def _kv_no_scale(q, k, v, cache):
    return _kv_variant(q, k, v, cache, scaled=False)
