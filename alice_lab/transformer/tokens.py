r"""Tokens: image patches, class and register tokens, mean pooling, multimodal
sequences.

An image ``(b, h, w, c)`` (the book's channels-last layout) becomes ``n = (h/p)(w/p)``
tokens of length ``p·p·c``: patches in row-major order (left to right, then top to
bottom), each flattened as ``(ph, pw, c)``, the order of Box 11.2's einops pattern
``'b c (h ph) (w pw) -> b (h w) (ph pw c)'``. A linear projection of the patches is the
same as a convolution with kernel size = stride = p (line 5795).

Book: §11.2.4 (lines 5773-5839), Box 11.2 (5799-5823); mean pooling, class and
register tokens §10.3 (lines 5522-5564).
"""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401  (doctests)

from alice_lab.backend import array_namespace, check_int

__all__ = [
    "add_class_token",
    "add_register_tokens",
    "concat_modalities",
    "drop_register_tokens",
    "mean_pool",
    "patch_embed",
    "patchify",
    "patchify_einops",
    "unpatchify",
]


def _image_shape(x: Any, p: int) -> tuple[bool, int, int, int, int]:
    if x.ndim not in (3, 4):
        raise ValueError(
            "expected an image (h, w, c) or a batch (b, h, w, c); got shape "
            f"{tuple(x.shape)}"
        )
    single = x.ndim == 3
    b = 1 if single else x.shape[0]
    h, w, c = x.shape[-3:]
    p = check_int(p, "patch size p")
    if h % p or w % p:
        raise ValueError(
            f"image size {h}×{w} is not divisible by the patch size {p}: expected "
            f"height and width multiples of {p}"
        )
    return single, b, h, w, c


def patchify(x: Any, p: int) -> Any:
    r"""Non-overlapping p×p patches, flattened: (b, h, w, c) -> (b, (h/p)(w/p), p·p·c)
    (or (h, w, c) -> (n, p·p·c)). Patch t = (i, j) with t = i·(w/p) + j; inside a patch
    the feature index is ``(di·p + dj)·c + channel``.

    Book: §11.2.4 (lines 5781-5797), Box 11.2.

    >>> patchify(np.zeros((2, 8, 8, 3)), 4).shape
    (2, 4, 48)
    """
    xp = array_namespace(x)
    single, b, h, w, c = _image_shape(x, p)
    X = xp.reshape(x, (b, h // p, p, w // p, p, c))
    X = xp.permute_dims(X, (0, 1, 3, 2, 4, 5))  # b, hi, wi, ph, pw, c
    X = xp.reshape(X, (b, (h // p) * (w // p), p * p * c))
    return X[0] if single else X


def unpatchify(P: Any, p: int, h: int, w: int) -> Any:
    """The inverse of :func:`patchify`: (b, n, p·p·c) -> (b, h, w, c).

    >>> x = np.arange(32.).reshape(1, 4, 4, 2)
    >>> bool((unpatchify(patchify(x, 2), 2, 4, 4) == x).all())
    True
    """
    xp = array_namespace(P)
    single = P.ndim == 2
    P3 = P[None] if single else P
    b, n, f = P3.shape
    if h % p or w % p or n != (h // p) * (w // p) or f % (p * p):
        raise ValueError(
            f"expected (b, {(h // p) * (w // p)}, p·p·c) patches of a {h}×{w} image "
            f"with p={p}; got {tuple(P.shape)}"
        )
    c = f // (p * p)
    X = xp.reshape(P3, (b, h // p, w // p, p, p, c))
    X = xp.reshape(xp.permute_dims(X, (0, 1, 3, 2, 4, 5)), (b, h, w, c))
    return X[0] if single else X


def patchify_einops(x: Any, p: int, *, layout: str = "b h w c") -> Any:
    """Box 11.2 with einops: ``layout="b c h w"`` is the book's (PyTorch) layout,
    ``"b h w c"`` ours. Output (b, n, p·p·c) with features ordered (ph, pw, c)."""
    from einops import rearrange

    if layout == "b c h w":
        if x.shape[-1] % p or x.shape[-2] % p:
            raise ValueError(f"image size {tuple(x.shape[-2:])} not divisible by {p}")
        return rearrange(x, "b c (h ph) (w pw) -> b (h w) (ph pw c)", ph=p, pw=p)
    if layout == "b h w c":
        _image_shape(x, p)
        return rearrange(x, "b (h ph) (w pw) c -> b (h w) (ph pw c)", ph=p, pw=p)
    raise ValueError(f"layout must be 'b c h w' or 'b h w c'; got {layout!r}")


def patch_embed(x: Any, W: Any, b: Any, p: int) -> Any:
    """Patch tokens projected to e: ``patchify(x, p) @ W + b``, W (p·p·c, e).

    Equal to ``torch.nn.Conv2d(c, e, p, stride=p)`` once its weight (e, c, p, p) is
    permuted to (p, p, c, e) and reshaped (line 5795).
    """
    P = patchify(x, p)
    if W.ndim != 2 or W.shape[0] != P.shape[-1]:
        raise ValueError(
            f"expected W ({P.shape[-1]}, e) for {p}×{p} patches of {x.shape[-1]} "
            f"channels; got {tuple(W.shape)}"
        )
    return P @ W + b


def add_class_token(X: Any, c: Any, *, position: str = "last") -> Any:
    r"""Append (book, E: line 5546, position ``"last"``) or prepend (ViT,
    ``"first"``) a class token c (e,) to X (..., n, e): (..., n + 1, e).

    >>> add_class_token(np.zeros((2, 3, 4)), np.ones(4)).shape
    (2, 4, 4)
    """
    xp = array_namespace(X)
    if c.shape != (X.shape[-1],):
        raise ValueError(
            f"expected a class token of shape ({X.shape[-1]},); got {tuple(c.shape)}"
        )
    C = xp.broadcast_to(c, (*X.shape[:-2], 1, X.shape[-1]))
    if position not in ("first", "last"):
        raise ValueError(f"position must be 'first' or 'last'; got {position!r}")
    return xp.concat([C, X] if position == "first" else [X, C], axis=-2)


def mean_pool(H: Any) -> Any:
    r"""Mean pooling over the tokens, :math:`\frac1n\sum_i\mathbf{H}_i`:
    (..., n, e) -> (..., e). Permutation invariant. Book: §10.3.1 (line 5526).

    >>> mean_pool(np.array([[1.0, 2.0], [3.0, 6.0]])).tolist()
    [2.0, 4.0]
    """
    if H.ndim < 2:
        raise ValueError(f"expected tokens (..., n, e); got shape {tuple(H.shape)}")
    xp = array_namespace(H)
    return xp.mean(H, axis=-2)


def add_register_tokens(X: Any, R: Any) -> Any:
    """Append r register tokens R (r, e) to X (..., n, e): (..., n + r, e)."""
    xp = array_namespace(X)
    if R.ndim != 2 or R.shape[1] != X.shape[-1]:
        raise ValueError(f"expected registers (r, {X.shape[-1]}); got {tuple(R.shape)}")
    return xp.concat([X, xp.broadcast_to(R, (*X.shape[:-2], *R.shape))], axis=-2)


def drop_register_tokens(H: Any, r: int) -> Any:
    """Discard the last r tokens (the registers): (..., n + r, e) -> (..., n, e)."""
    if not 0 <= r <= H.shape[-2]:
        raise ValueError(f"cannot drop {r} registers from {H.shape[-2]} tokens")
    return H[..., : H.shape[-2] - r, :]


def concat_modalities(*token_seqs: Any, modality_embeddings: Any = None) -> Any:
    """One sequence from several modalities' tokens (n_i, e): (Σ n_i, e). Optional
    ``modality_embeddings`` (k, e) adds row i to every token of modality i.

    Book: §11.2.4, Figure F.11.6 (lines 5827-5839).
    """
    xp = array_namespace(*token_seqs)
    e = {t.shape[-1] for t in token_seqs}
    if len(e) != 1:
        raise ValueError(
            f"every modality must have the same token size; got {sorted(e)}"
        )
    if modality_embeddings is not None:
        token_seqs = tuple(t + modality_embeddings[i] for i, t in enumerate(token_seqs))
    return xp.concat(list(token_seqs), axis=-2)
