"""Checks of lab 10 (chapter 10: a multi-view model with a transformer block).

Exercises: scaled dot-product attention with a mask, the causal mask, multi-head
attention from weight matrices, and a multi-view classifier that is invariant to the
order of its views. The reference solutions call the textbook library
(``alice_lab.attention``); every check compares with PyTorch's own kernels
(``torch.nn.functional.scaled_dot_product_attention``, ``torch.nn.MultiheadAttention``
with the same weights) on seeded inputs chosen to expose the classic mistakes: n ≠ m
and d ≠ dv (a transposed product fails loudly), a missing 1/√d, the softmax over the
queries instead of the keys, a mask multiplied in or applied after the softmax, the
book's printed causal mask (−∞ below the diagonal), heads split without a transpose.

Book: §10.1.2-10.1.3 (lines 5098-5180), §10.2.1 (permutation equivariance), "From
theory to practice" (lines 5566-5602); masks: §11.1.1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register

# --- 10.1: scaled dot-product attention with a mask ----------


def _attention_ref():
    from alice_lab.attention import scaled_dot_product_attention

    def attention(Q, K, V, mask=None):
        return scaled_dot_product_attention(Q, K, V, mask=mask)

    return attention


@register(
    "lab10.1", name="attention", exercise="10.1", points=3, reference=_attention_ref
)
def check_attention(attention: Callable) -> tuple[bool, str]:
    """attention(Q, K, V, mask=None): Q (b, n, d), K (b, m, d), V (b, m, dv) torch
    tensors; mask a boolean (n, m) tensor, True where attention is allowed."""
    import torch
    import torch.nn.functional as F

    def case(n, m, d, dv, mask_kind, seed):
        g = torch.Generator().manual_seed(seed)
        Q, K, V = (
            torch.randn(2, t, s, generator=g, dtype=torch.float64)
            for t, s in ((n, d), (m, d), (m, dv))
        )
        Q = 3 * Q  # large enough scores that a missing 1/√d shows
        mask = None
        if mask_kind == "causal":
            mask = torch.ones(n, m, dtype=torch.bool).tril()
        elif mask_kind == "random":
            mask = torch.rand(n, m, generator=g) < 0.6
            mask[:, 0] = True
        args = (Q.clone(), K.clone(), V.clone())
        got = attention(*args) if mask is None else attention(*args, mask=mask.clone())
        return lambda: _compare(
            f"attention (n={n}, m={m}, d={d}, dv={dv}, mask: {mask_kind})",
            got,
            lambda: F.scaled_dot_product_attention(Q, K, V, attn_mask=mask).numpy(),
            rtol=1e-9,
            atol=1e-10,
        )

    return _chain(
        case(4, 6, 8, 3, "none", 0),
        case(5, 5, 4, 4, "causal", 1),
        case(5, 7, 8, 2, "random", 2),
        ok="matches torch's scaled_dot_product_attention with and without masks",
    )


def _attention_variant(Q, K, V, mask=None, *, scale=None, axis=-1, mask_by="scores"):
    """Attention written with einsum, with knobs that turn it into common mistakes:
    the ``scale`` of the scores (default 1/√d), the softmax ``axis``, and how a
    boolean mask is used: -inf on the "scores", "multiplied" into them, or
    multiplied into the weights "after" the softmax."""
    import torch

    scale = Q.shape[-1] ** -0.5 if scale is None else scale
    S = torch.einsum("...nd,...md->...nm", Q, K) * scale
    if mask is not None and mask_by == "scores":
        S = torch.where(mask, S, -torch.inf)
    elif mask is not None and mask_by == "multiplied":
        S = S * mask
    W = torch.nan_to_num(torch.softmax(S, dim=axis))
    if mask is not None and mask_by == "after":
        W = W * mask
    return torch.einsum("...nm,...mv->...nv", W, V)


@mutant("lab10.1", "missing 1/√d")
def _att_no_scale(Q, K, V, mask=None):
    return _attention_variant(Q, K, V, mask, scale=1.0)


@mutant("lab10.1", "softmax over the wrong axis (the queries)")
def _att_wrong_axis(Q, K, V, mask=None):
    return _attention_variant(Q, K, V, mask, axis=-2)


@mutant("lab10.1", "multiplicative mask (scores * mask)")
def _att_mult_mask(Q, K, V, mask=None):
    return _attention_variant(Q, K, V, mask, mask_by="multiplied")


@mutant("lab10.1", "mask applied after the softmax")
def _att_post_mask(Q, K, V, mask=None):
    return _attention_variant(Q, K, V, mask, mask_by="after")


# --- 10.2: the causal mask ----------


def _causal_ref():
    import torch

    from alice_lab.attention import causal_mask as library_mask

    def causal_mask(n):
        return library_mask(n, like=torch.zeros(()))

    return causal_mask


@register(
    "lab10.2", name="causal_mask", exercise="10.2", points=2, reference=_causal_ref
)
def check_causal_mask(causal_mask: Callable) -> tuple[bool, str]:
    """causal_mask(n) -> (n, n) float tensor to ADD to the scores: 0 where token i may
    see token j (j <= i), -inf (or a huge negative number) where it may not."""
    from alice_lab.backend import to_numpy

    def case(n):
        def step():
            M = np.asarray(to_numpy(causal_mask(n)), dtype=np.float64)
            if M.shape != (n, n):
                return (
                    False,
                    f"causal_mask({n}) has shape {M.shape}; expected ({n}, {n})",
                )
            lower = np.tril(np.ones((n, n), dtype=bool))
            if not np.all(M[lower] == 0):
                i, j = np.argwhere(lower & (M != 0))[0]
                return False, (
                    f"causal_mask({n})[{i}, {j}] = {M[i, j]}; token {i} may see token "
                    f"{j} (j <= i), so the additive mask must be 0 there"
                )
            if n > 1 and not np.all(M[~lower] <= -1e9):
                i, j = np.argwhere(~lower & (M > -1e9))[0]
                return False, (
                    f"causal_mask({n})[{i}, {j}] = {M[i, j]}; token {i} must not see "
                    f"the later token {j}: the mask must be -inf there"
                )
            S = np.random.default_rng(n).standard_normal((n, n)) + M
            S = S - S.max(1, keepdims=True)
            W = np.exp(S) / np.exp(S).sum(1, keepdims=True)
            return _compare(
                f"softmax(S + causal_mask({n})), upper triangle",
                np.triu(W, 1),
                lambda: np.zeros((n, n)),
                rtol=0,
                atol=1e-300,
            )

        return step

    return _chain(
        case(1),
        case(4),
        case(7),
        ok="additive: 0 on and below the diagonal, -inf above",
    )


@mutant("lab10.2", "multiplicative 0/1 mask (ones on and below the diagonal)")
def _cm_mult(n):
    import torch

    return torch.ones(n, n).tril()


@mutant("lab10.2", "the book's printed triangle (-inf below the diagonal)")
def _cm_book(n):
    import torch

    return torch.full((n, n), float("-inf")).tril(-1)


@mutant("lab10.2", "the diagonal masked too")
def _cm_diag(n):
    import torch

    return torch.full((n, n), float("-inf")).triu(0)


@mutant("lab10.2", "zeros instead of -inf (exp(0) = 1 masks nothing)")
def _cm_zero(n):
    import torch

    return torch.zeros(n, n)


# --- 10.3: multi-head attention ----------


def _mha_ref():
    from alice_lab.attention import multi_head_attention

    def mha(x, params, heads, causal=False):
        return multi_head_attention(x, params, heads=heads, causal=causal)

    return mha


def _mha_params(e: int, seed: int) -> dict:
    """Seeded weights Wq, Wk, Wv, Wo (e, e), float64, in the book's x @ W layout."""
    import torch

    g = torch.Generator().manual_seed(seed)
    return {
        w: torch.randn(e, e, generator=g, dtype=torch.float64) / math.sqrt(e)
        for w in ("Wq", "Wk", "Wv", "Wo")
    }


def _torch_mha(x, params: dict, heads: int, causal: bool) -> np.ndarray:
    """torch.nn.MultiheadAttention (no biases) with ``params`` copied in; it stores
    the weights transposed (y = x @ W.T)."""
    import torch

    e = x.shape[-1]
    ref = torch.nn.MultiheadAttention(
        e, heads, bias=False, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        ref.in_proj_weight.copy_(
            torch.cat([params[w].T for w in ("Wq", "Wk", "Wv")], dim=0)
        )
        ref.out_proj.weight.copy_(params["Wo"].T)
    kw = {}
    if causal:
        n = x.shape[1]
        kw = {
            "attn_mask": torch.nn.Transformer.generate_square_subsequent_mask(
                n, dtype=torch.float64
            ),
            "is_causal": True,
        }
    with torch.no_grad():
        return ref(x, x, x, need_weights=False, **kw)[0].numpy()


@register("lab10.3", name="mha", exercise="10.3", points=3, reference=_mha_ref)
def check_mha(mha: Callable) -> tuple[bool, str]:
    """mha(x, params, heads, causal=False): x (b, n, e); params Wq, Wk, Wv (e, h·k),
    Wo (h·k, e), used as x @ W (the book's convention); compared with
    torch.nn.MultiheadAttention holding the same weights."""
    import torch

    def case(e, heads, n, causal, seed):
        params = _mha_params(e, seed)
        g = torch.Generator().manual_seed(seed + 100)
        x = 2 * torch.randn(3, n, e, generator=g, dtype=torch.float64)
        mine = {k: v.clone() for k, v in params.items()}
        got = mha(x.clone(), mine, heads, causal=causal)
        return lambda: _compare(
            f"mha (e={e}, heads={heads}, n={n}, causal={causal})",
            got,
            lambda: _torch_mha(x, params, heads, causal),
            rtol=1e-9,
            atol=1e-10,
        )

    return _chain(
        case(8, 2, 5, False, 0),
        case(12, 3, 6, True, 1),
        ok="equals torch.nn.MultiheadAttention with the same weights",
    )


def _mha_variant(
    x, params, heads, causal=False, *, transpose=True, scale_by_head=True, project=True
):
    """Multi-head attention from the library's head helpers, with knobs that turn it
    into common mistakes: heads split by a plain reshape to (b, h, n, k), scores
    scaled by 1/√e, the output projection left out."""
    from alice_lab.attention import boolean_causal_mask, merge_heads, split_heads

    def heads_of(w):
        t = x @ params[w]
        return (
            split_heads(t, heads)
            if transpose
            else t.reshape(t.shape[0], heads, t.shape[1], -1)
        )

    Q, K, V = map(heads_of, ("Wq", "Wk", "Wv"))
    d = Q.shape[-1] if scale_by_head else x.shape[-1]
    mask = boolean_causal_mask(x.shape[1], like=x) if causal else None
    H = merge_heads(_attention_variant(Q, K, V, mask, scale=d**-0.5))
    return H @ params["Wo"] if project else H


@mutant("lab10.3", "heads split without the transpose (view(b, h, n, k))")
def _mha_bad_split(x, params, heads, causal=False):
    return _mha_variant(x, params, heads, causal, transpose=False)


@mutant("lab10.3", "scaled by 1/√e instead of 1/√(e/h)")
def _mha_scale_e(x, params, heads, causal=False):
    return _mha_variant(x, params, heads, causal, scale_by_head=False)


@mutant("lab10.3", "output projection W_o forgotten")
def _mha_no_wo(x, params, heads, causal=False):
    return _mha_variant(x, params, heads, causal, project=False)


@mutant("lab10.3", "causal flag ignored")
def _mha_no_causal(x, params, heads, causal=False):
    return _mha_variant(x, params, heads, causal=False)


# --- 10.4: the multi-view model ----------


def _multiview_ref():
    from torch import nn

    from alice_lab.transformer import TransformerBlock

    class MultiViewModel(nn.Module):
        """Each view embedded on its own by a small CNN, one transformer block across
        the views, the mean over the views, a linear head."""

        def __init__(self, e=32, heads=4, n_classes=10):
            super().__init__()
            self.embed_view = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1),
                nn.GELU(),
                nn.Conv2d(8, 16, 3, stride=2, padding=1),  # 8×8 -> 4×4
                nn.GELU(),
                nn.Flatten(),
                nn.Linear(16 * 4 * 4, e),
            )
            self.mix = TransformerBlock(e, heads)
            self.classify = nn.Linear(e, n_classes)

        def tokens(self, x):
            """(b, v, h, w, c) -> (b, v, e), one token per view."""
            views = x.flatten(0, 1).movedim(-1, 1)  # (b·v, c, h, w)
            return self.embed_view(views).unflatten(0, x.shape[:2])

        def forward(self, x):
            return self.classify(self.mix(self.tokens(x)).mean(dim=1))

    return MultiViewModel


@register(
    "lab10.4",
    name="MultiViewModel",
    exercise="10.4",
    points=4,
    reference=_multiview_ref,
)
def check_multiview(MultiViewModel: Callable) -> tuple[bool, str]:
    """MultiViewModel(e=32, heads=4, n_classes=10), an nn.Module mapping views
    (b, v, 8, 8, 1) to logits (b, 10), for any v, invariant to the order of the
    views."""
    import torch

    torch.manual_seed(0)
    model = MultiViewModel(e=32, heads=4, n_classes=10).double().eval()
    g = torch.Generator().manual_seed(1)
    out = {}

    def shapes():
        for v in (1, 3, 5):
            x = torch.rand(2, v, 8, 8, 1, generator=g, dtype=torch.float64)
            y = model(x)
            if tuple(y.shape) != (2, 10):
                return False, (
                    f"for views of shape {tuple(x.shape)} the output has shape "
                    f"{tuple(y.shape)}; expected (2, 10)"
                )
            out[v] = (x, y)
        return True, ""

    def invariance():
        x, y = out[5]
        for perm in ([4, 3, 2, 1, 0], [1, 0, 2, 4, 3]):
            with torch.no_grad():
                yp = model(x[:, perm])
            # the difference, not the logits: the expected value (zero) is the same
            # for every model, so the grader can judge it without the student's model
            ok, msg = _compare(
                f"model(x[:, {perm}]) - model(x) (views reordered)",
                yp - y.detach(),
                lambda: np.zeros((2, 10)),
                rtol=0,
                atol=1e-9,
            )
            if not ok:
                return False, msg + " — the model must not depend on the views' order"
        return True, ""

    def views_interact():
        # a transformer block lets views interact: the pooled output is not a plain
        # average of per-view outputs
        x, _ = out[3]
        with torch.no_grad():
            joint = model(x)
            alone = torch.stack([model(x[:, [i]]) for i in range(3)]).mean(0)
        gap = float((joint - alone).abs().max())
        if gap < 1e-6:
            return False, (
                "the output for 3 views is the average of the outputs for each view "
                "alone: nothing mixes the views (add the transformer block)"
            )
        return True, ""

    return _chain(
        shapes,
        invariance,
        views_interact,
        ok="(b, v, 8, 8, 1) -> (b, 10) for v = 1, 3, 5; invariant to the "
        "views' order; the views interact",
    )


def _mv_variant(kind: str):
    """The reference model with one mistake: "first" pools the first view only,
    "pos" adds a learned embedding per view position, "axis" averages over the
    features, "baseline" leaves out the transformer block."""
    import torch
    from torch import nn

    Base = _multiview_ref()

    class Wrong(Base):
        def __init__(self, e=32, heads=4, n_classes=10):
            super().__init__(e, heads, n_classes)
            self.pos = nn.Parameter(torch.randn(8, e))

        def forward(self, x):
            H = self.tokens(x)
            if kind == "pos":
                H = H + self.pos[: H.shape[1]]
            if kind != "baseline":
                H = self.mix(H)
            pooled = {"first": H[:, 0], "axis": H.mean(dim=2)}.get(kind, H.mean(dim=1))
            return self.classify(pooled)

    return Wrong


@mutant("lab10.4", "pools the first view only (H[:, 0])")
def _mv_first(*a, **k):
    return _mv_variant("first")(*a, **k)


@mutant("lab10.4", "adds a learned embedding per view position")
def _mv_pos(*a, **k):
    return _mv_variant("pos")(*a, **k)


@mutant("lab10.4", "mean over the feature axis instead of the views")
def _mv_axis(*a, **k):
    return _mv_variant("axis")(*a, **k)


@mutant("lab10.4", "the averaging baseline (no transformer block)")
def _mv_baseline(*a, **k):
    return _mv_variant("baseline")(*a, **k)
