r"""MLP-Mixer and other token mixers without attention, and the MONet block.

The Mixer block (line 5867) alternates a channel MLP on the rows of H (n, e) and a token
MLP on its columns:

.. math:: \mathbf{H} \leftarrow \mathrm{MLP}(\mathbf{H}) + \mathbf{H}, \qquad
   \mathbf{H} \leftarrow [\mathrm{MLP}(\mathbf{H}^\top) + \mathbf{H}^\top]^\top

(normalisation omitted, as in the book; ``norm=True`` adds a layer norm before each MLP
as in the MLP-Mixer paper). The token MLP's weights have a side of length n, so the
sequence length is fixed and the block is *not* permutation equivariant.

Book: §11.3 (lines 5859-5885, 5907-5919).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from alice_lab._compat import renamed
from alice_lab.backend import array_namespace
from alice_lab.normalization import layer_norm
from alice_lab.transformer.blocks import mlp_block

__all__ = ["mixer_block", "mixer_param_count", "monet_block", "shift_channel_groups"]


def mixer_block(
    H: Any, token_mlp: dict, channel_mlp: dict, *, norm: bool = False, phi="gelu"
) -> Any:
    r"""One Mixer block on H (..., n, e), in the book's order (channel MLP first).

    token_mlp: ``W1 (n, p_t)``, ``W2 (p_t, n)`` (optional b1, b2); channel_mlp:
    ``W1 (e, p)``, ``W2 (p, e)``. A length other than the n the token MLP was built
    for raises ValueError. Returns (..., n, e).

    >>> n, e = 3, 2
    >>> tok = {"W1": np.ones((n, 4)), "W2": np.ones((4, n))}
    >>> ch = {"W1": np.ones((e, 4)), "W2": np.ones((4, e))}
    >>> mixer_block(np.zeros((n, e)), tok, ch).shape
    (3, 2)
    """
    xp = array_namespace(H)
    n = token_mlp["W1"].shape[0]
    if H.ndim < 2 or H.shape[-2] != n or H.shape[-1] != channel_mlp["W1"].shape[0]:
        raise ValueError(
            f"this Mixer block was built for sequences of length n={n} with "
            f"e={channel_mlp['W1'].shape[0]} channels: expected (..., {n}, "
            f"{channel_mlp['W1'].shape[0]}); got {tuple(H.shape)}"
        )

    def mlp(A, p):
        A = layer_norm(A) if norm else A
        return mlp_block(A, p["W1"], p["W2"], p.get("b1"), p.get("b2"), phi=phi)

    H = mlp(H, channel_mlp) + H
    Ht = xp.matrix_transpose(H)
    return xp.matrix_transpose(mlp(Ht, token_mlp) + Ht)


def mixer_param_count(n: int, e: int, p_token: int, p_channel: int) -> int:
    """Bias-free weights of a Mixer block: 2·n·p_token + 2·e·p_channel (depends on n).

    >>> mixer_param_count(16, 32, 64, 128)
    10240
    """
    return 2 * n * p_token + 2 * e * p_channel


def shift_channel_groups(H: Any, shifts: tuple[int, ...]) -> Any:
    """S2-MLP-style token mixing: split the channels of H (..., n, e) into
    ``len(shifts)`` equal groups and move group g by ``shifts[g]`` tokens (zero fill).
    A fixed linear map of the tokens: no parameters; MONet's token shift (line 5919).
    (RWKV's token shift, a learned blend of each token with the one before, is
    :func:`alice_lab.recurrent.token_shift`.) Book: lines 5873, 5919.

    >>> H = np.arange(3.0)[:, None] * np.ones((1, 2))
    >>> shift_channel_groups(H, (1, 0))[:, 0].tolist()
    [0.0, 0.0, 1.0]
    """
    xp = array_namespace(H)
    e = H.shape[-1]
    g = len(shifts)
    if g == 0 or e % g:
        raise ValueError(f"{e} channels cannot be split into {g} equal groups")
    w = e // g
    out = []
    n = H.shape[-2]
    for i, s in enumerate(shifts):
        G = H[..., i * w : (i + 1) * w]
        if s == 0:
            out.append(G)
            continue
        if abs(s) >= n:
            out.append(xp.zeros_like(G))
            continue
        pad = xp.zeros_like(G[..., : abs(s), :])
        out.append(
            xp.concat([pad, G[..., : n - s, :]], axis=-2)
            if s > 0
            else xp.concat([G[..., -s:, :], pad], axis=-2)
        )
    return xp.concat(out, axis=-1)


#: the name before ``shift_channel_groups``, for one release: warns
token_shift = renamed(
    "alice_lab.transformer.token_shift",
    shift_channel_groups,
    "alice_lab.transformer.shift_channel_groups",
    "alice_lab.recurrent.token_shift is RWKV's token shift",
)


def monet_block(
    X: Any, A: Any, B1: Any, B2: Any, D: Any, E: Any, *, shift: bool = False
) -> Any:
    r"""The MONet (multilinear operator) block
    :math:`\mathbf{H} = \mathbf{E}(\mathbf{A}\mathbf{X}\odot\mathbf{B}\mathbf{X} +
    \mathbf{D}\mathbf{X})` in the row convention (the projections act on channels:
    ``((X A) * (X B1 B2) + X D) E``) with a low-rank B = B1 B2. No activation: a
    degree-2 polynomial of X. ``shift=True`` first applies a token shift (odd blocks).

    X (..., n, e); A (e, m); B1 (e, r); B2 (r, m); D (e, m); E (m, e').
    Book: §11.3 (lines 5907-5919).
    """
    if A.shape[0] != X.shape[-1] or B1.shape[1] != B2.shape[0] or A.shape != D.shape:
        raise ValueError(
            f"expected X (..., e), A and D (e, m), B1 (e, r), B2 (r, m); got X "
            f"{tuple(X.shape)}, A {tuple(A.shape)}, B1 {tuple(B1.shape)}, "
            f"B2 {tuple(B2.shape)}, D {tuple(D.shape)}"
        )
    if shift:
        X = shift_channel_groups(X, (1, -1) if X.shape[-1] % 2 == 0 else (0,))
    return ((X @ A) * ((X @ B1) @ B2) + X @ D) @ E


_ = np  # doctests use np
