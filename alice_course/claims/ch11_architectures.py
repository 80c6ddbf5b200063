"""Checkable claims of Chapter 11, §11.2.4-11.3: image tokens and the ViT, multimodal
sequences, the parallel block, multi-query attention, Mixer, gated units and MONet
(book lines 5773-5919). References: einops, torch.nn.Conv2d / functional, NumPy
loops."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


@claim(
    "C11-24",
    section="11.2.4",
    lines=(5781, 5781),
    statement="Pixels as tokens are too many: a 64×64 image gives 4096 tokens, 8×8 "
    "patches give 64, and the quadratic attention cost drops by p⁴ = 4096.",
)
def _c11_24() -> str:
    from alice_lab.transformer import patchify

    x = np.zeros((64, 64, 3))
    n_pix, n_patch = patchify(x, 1).shape[0], patchify(x, 8).shape[0]
    assert (n_pix, n_patch) == (4096, 64) and (n_pix / n_patch) ** 2 == 8**4
    ratio = (n_pix // n_patch) ** 2
    return f"{n_pix} pixel tokens vs {n_patch} patch tokens: attention ×{ratio}"


@claim(
    "C11-25",
    section="11.2.4",
    lines=(5789, 5789),
    statement="Each p×p patch of a c-channel image flattens to p²c numbers: "
    "(h/p)(w/p) tokens of size p²c, in the order of a loop over patch rows, then "
    "columns.",
)
def _c11_25() -> str:
    from alice_lab.transformer import patchify

    x = _rng(25).standard_normal((2, 12, 8, 3))
    P = patchify(x, 4)
    loop = np.stack(
        [
            x[:, i : i + 4, j : j + 4].reshape(2, -1)
            for i in range(0, 12, 4)
            for j in range(0, 8, 4)
        ],
        axis=1,
    )
    assert P.shape == (2, 6, 48) and np.array_equal(P, loop)
    return f"(2, 12, 8, 3) with p=4 -> {P.shape}, equal to a loop over patches"


@claim(
    "C11-26",
    section="11.2.4",
    lines=(5795, 5795),
    statement="A linear projection of the patches is a convolution whose stride equals "
    "its kernel size (torch Conv2d, after permuting the weight's (c, p, p) order).",
)
def _c11_26() -> str:
    import torch

    from alice_lab.transformer import patch_embed

    r = _rng(26)
    x, W, b = (
        r.standard_normal((2, 8, 8, 3)),
        r.standard_normal((48, 5)),
        r.standard_normal(5),
    )
    conv = torch.nn.Conv2d(3, 5, 4, stride=4).double()
    with torch.no_grad():
        conv.weight.copy_(torch.as_tensor(W.reshape(4, 4, 3, 5).transpose(3, 2, 0, 1)))
        conv.bias.copy_(torch.as_tensor(b))
    want = conv(torch.as_tensor(x).permute(0, 3, 1, 2)).flatten(2).transpose(1, 2)
    err = _maxerr(patch_embed(x, W, b, 4), want.detach().numpy())
    assert err < 1e-12, err
    return f"patchify @ W + b vs Conv2d(3, 5, 4, stride=4): {err:.1e}"


@claim(
    "C11-27",
    section="11.2.4",
    lines=(5799, 5823),
    statement="Box 11.2: rearrange('b c (h ph) (w pw) -> b (h w) (ph pw c)') on 32 RGB "
    "64×64 images with 8×8 patches gives (32, 64, 192), channels innermost; our "
    "channels-last patchify gives the same array.",
)
def _c11_27() -> str:
    import torch
    from einops import rearrange

    from alice_lab.transformer import patchify

    xb = torch.randn(32, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    P = rearrange(xb, "b c (h ph) (w pw) -> b (h w) (ph pw c)", ph=8, pw=8)
    assert tuple(P.shape) == (32, 64, 192)
    assert torch.equal(P[0, 0, :3], xb[0, :, 0, 0])
    assert torch.equal(patchify(xb.permute(0, 2, 3, 1), 8), P)
    return "einops (32, 64, 192); patches[0, 0, :3] = xb[0, :, 0, 0]; = patchify"


@claim(
    "C11-28",
    section="11.2.4",
    lines=(5797, 5797),
    statement="The ViT has trainable positional embeddings (n + 1, e) and a class "
    "token "
    "(e,); its prediction reads the class token's output only.",
)
def _c11_28() -> str:
    import torch

    from alice_lab.transformer import ViT

    torch.manual_seed(0)
    vit = ViT(8, 2, 1, 10, e=16, heads=2).eval()
    names = {n: tuple(p.shape) for n, p in vit.named_parameters()}
    assert names["pos"] == (17, 16) and names["cls"] == (16,), names
    x = torch.randn(2, 8, 8, 1)
    h = vit.tokens(x)
    for blk in vit.blocks:
        h = blk(h)
    torch.testing.assert_close(vit.head(vit.ln(h[:, 0])), vit(x))
    return "pos (17, 16), cls (16,); logits = head(LN(h_cls))"


@claim(
    "C11-29",
    section="11.2.4",
    lines=(5833, 5839),
    statement="A multimodal sequence concatenates the modalities' tokens into "
    "(n_img + n_txt, e); without positional or modality embeddings a block is "
    "permutation equivariant over the joint sequence.",
)
def _c11_29() -> str:
    import torch

    from alice_lab.transformer import (
        concat_modalities,
        from_torch_encoder_layer,
        transformer_block,
    )

    r = _rng(29)
    img, txt = r.standard_normal((16, 8)), r.standard_normal((5, 8))
    S = concat_modalities(img, txt)
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    layer = layer.double().eval()
    P = from_torch_encoder_layer(layer)
    perm = r.permutation(21)
    out = layer(torch.as_tensor(S[None])).detach().numpy()[0]
    err = _maxerr(transformer_block(S[perm], P, heads=2, norm="post"), out[perm])
    assert S.shape == (21, 8) and err < 1e-10, err
    return f"joint sequence {S.shape}; block(PS) − P·torch_block(S): {err:.1e}"


@claim(
    "C11-30",
    section="11.3",
    lines=(5845, 5857),
    statement="The parallel block H + MLP(H) + MHA(H) can fuse the first projections "
    "of "
    "both branches into one matrix product with identical results; it is a different "
    "model from the sequential block.",
)
def _c11_30() -> str:
    from alice_lab.attention import multi_head_attention as mha
    from alice_lab.transformer import init_block_params, mlp_block, parallel_block

    r = _rng(30)
    P = init_block_params(8, 2, 16, rng=r)
    X = r.standard_normal((5, 8))
    a = parallel_block(X, P, heads=2)
    b = parallel_block(X, P, heads=2, fused=True)
    m = P["mlp"]
    hand = X + np.maximum(X @ m["W1"], 0) @ m["W2"] + mha(X, P["attn"], heads=2)
    seq = X + mha(X, P["attn"], heads=2)
    seq = seq + mlp_block(seq, m["W1"], m["W2"], phi="relu")
    err = max(_maxerr(a, b), _maxerr(a, hand))
    assert err < 1e-12 and _maxerr(a, seq) > 1e-3, err
    return f"fused vs unfused {err:.1e}; parallel vs sequential {_maxerr(a, seq):.2f}"


@claim(
    "C11-31",
    section="11.3",
    lines=(5857, 5857),
    statement="Multi-query attention shares one key and one value projection across "
    "heads: it is MHA with tied per-head K/V weights, h·e·k + e·k + e·v + h·v·o "
    "parameters, and an h times smaller KV cache.",
)
def _c11_31() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.attention import multi_query_attention

    e, h, k = 6, 3, 2
    r = _rng(31)
    X = r.standard_normal((5, e))
    Wq, Wk, Wv = (
        r.standard_normal((h, e, k)),
        r.standard_normal((e, k)),
        r.standard_normal((e, k)),
    )
    Wo = r.standard_normal((h * k, e))
    P = {"Wq": np.concatenate(list(Wq), axis=1), "Wk": Wk, "Wv": Wv, "Wo": Wo}
    got = multi_query_attention(X, P, heads=h)
    t = torch.as_tensor
    q = torch.stack([t(X @ Wq[i]) for i in range(h)])  # (h, n, k)
    kk, vv = t(X @ Wk).expand(h, -1, -1), t(X @ Wv).expand(h, -1, -1)
    ref = F.scaled_dot_product_attention(q, kk, vv).transpose(0, 1).reshape(5, h * k)
    err = _maxerr(got, ref.numpy() @ Wo)
    params = Wq.size + Wk.size + Wv.size + Wo.size
    assert err < 1e-12 and params == h * e * k + e * k + e * k + h * k * e, err
    return f"vs torch SDPA with shared K, V: {err:.1e}; {params} parameters; cache ÷{h}"


@claim(
    "C11-32",
    section="11.3",
    lines=(5859, 5859),
    statement="A Mixer block needs a fixed sequence length: its token MLP has weights "
    "(n, p) and (p, n), so its parameter count depends on n and another length fails.",
)
def _c11_32() -> str:
    from alice_lab.transformer import mixer_block, mixer_param_count

    r = _rng(32)
    tok = {"W1": r.standard_normal((16, 8)), "W2": r.standard_normal((8, 16))}
    ch = {"W1": r.standard_normal((4, 8)), "W2": r.standard_normal((8, 4))}
    try:
        mixer_block(r.standard_normal((17, 4)), tok, ch)
    except ValueError as err:
        msg = str(err)
    else:
        raise AssertionError("a Mixer built for n=16 accepted n=17")
    assert mixer_param_count(16, 4, 8, 8) != mixer_param_count(17, 4, 8, 8)
    return f"n=17 on an n=16 Mixer: ValueError ({msg[:40]}…)"


@claim(
    "C11-33",
    section="11.3",
    lines=(5861, 5867),
    statement="Mixer = channel MLP + residual, then token MLP on Hᵀ + residual, "
    "transposed back; unlike attention it is not permutation equivariant.",
)
def _c11_33() -> str:
    import torch

    from alice_lab.transformer import mixer_block

    r = _rng(33)
    n, e = 5, 4
    tok = {"W1": r.standard_normal((n, 6)), "W2": r.standard_normal((6, n))}
    ch = {"W1": r.standard_normal((e, 7)), "W2": r.standard_normal((7, e))}
    H = r.standard_normal((n, e))
    t, g = torch.as_tensor, torch.nn.functional.gelu
    H1 = torch.einsum(
        "np,pe->ne", g(torch.einsum("ne,ep->np", t(H), t(ch["W1"]))), t(ch["W2"])
    ) + t(H)
    H2 = (
        torch.einsum(
            "eq,qn->ne", g(torch.einsum("ne,nq->eq", H1, t(tok["W1"]))), t(tok["W2"])
        )
        + H1
    )
    got = mixer_block(H, tok, ch)
    err = _maxerr(got, H2.numpy())
    perm = r.permutation(n)
    gap = _maxerr(mixer_block(H[perm], tok, ch), got[perm])
    assert err < 1e-10 and gap > 1e-3, (err, gap)
    return f"vs torch einsum {err:.1e}; mixer(PH) − P·mixer(H) = {gap:.2f}"


@claim(
    "C11-34",
    section="11.3",
    lines=(5873, 5873),
    statement="S2-MLP mixes tokens by shifting channel groups: a fixed linear map with "
    "zero fill, equivariant to (non-wrapping) translations but not to permutations.",
)
def _c11_34() -> str:
    from alice_lab.transformer import shift_channel_groups

    r = _rng(34)
    H = r.standard_normal((6, 4))
    S = shift_channel_groups(H, (1, -1))
    want = np.zeros_like(H)
    want[1:, :2], want[:-1, 2:] = H[:-1, :2], H[1:, 2:]
    A, B = r.standard_normal((6, 4)), r.standard_normal((6, 4))
    lin = _maxerr(
        shift_channel_groups(2 * A + B, (1, -1)),
        2 * shift_channel_groups(A, (1, -1)) + shift_channel_groups(B, (1, -1)),
    )
    perm = r.permutation(6)
    assert np.array_equal(S, want) and lin < 1e-12
    assert not np.allclose(shift_channel_groups(H[perm], (1, -1)), S[perm])
    return "shift = roll with zero fill; linear; not permutation equivariant"


@claim(
    "C11-35",
    section="11.3",
    lines=(5887, 5901),
    equation="E.11.11",
    statement="GLU σ(XA) ⊙ XB is a gated unit φ₁(X) ⊙ φ₂(X) of shape (n, p) (torch's "
    "F.glu on [XB, XA]); with A = 0 the gate is exactly 1/2.",
)
def _c11_35() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab.transformer import glu

    r = _rng(35)
    X, A, B = (
        r.standard_normal((4, 3)),
        r.standard_normal((3, 5)),
        r.standard_normal((3, 5)),
    )
    g = glu(X, A, B)
    ref = F.glu(torch.cat([torch.as_tensor(X @ B), torch.as_tensor(X @ A)], -1)).numpy()
    err = _maxerr(g, ref)
    assert g.shape == (4, 5) and err < 1e-12
    assert np.array_equal(glu(X, 0 * A, B), 0.5 * (X @ B))
    return f"vs torch F.glu {err:.1e}; A = 0 gives 0.5·XB"


def _monet(seed=36):
    r = _rng(seed)
    e, m, k = 6, 8, 2
    mats = {
        "A": r.standard_normal((e, m)),
        "B1": r.standard_normal((e, k)),
        "B2": r.standard_normal((k, m)),
        "D": r.standard_normal((e, m)),
        "E": r.standard_normal((m, e)),
    }
    return r.standard_normal((5, e)), mats


@claim(
    "C11-36",
    section="11.3",
    lines=(5907, 5913),
    statement="A MONet block has no activation: it is a degree-2 polynomial, "
    "H(tX) = t²·E(AX ⊙ BX) + t·E(DX); H(2X) − 2H(X) = 2E(AX ⊙ BX).",
)
def _c11_36() -> str:
    from alice_lab.transformer import monet_block

    X, M = _monet()
    H = monet_block(X, **M)
    quad = ((X @ M["A"]) * (X @ M["B1"] @ M["B2"])) @ M["E"]
    lin = X @ M["D"] @ M["E"]
    errs = [
        _maxerr(monet_block(t * X, **M), t * t * quad + t * lin) for t in (2.0, 3.0)
    ]
    errs.append(_maxerr(monet_block(2 * X, **M) - 2 * H, 2 * quad))
    assert max(errs) < 1e-9, errs
    return f"t = 2, 3 and H(2X) − 2H(X): max error {max(errs):.1e}"


@claim(
    "C11-37",
    section="11.3",
    lines=(5913, 5919),
    statement="MONet's B = B₁B₂ has rank ≤ r with r·(e + m) parameters instead of e·m; "
    "token mixing comes from a token shift in odd blocks.",
)
def _c11_37() -> str:
    from alice_lab.transformer import monet_block

    X, M = _monet()
    rank = np.linalg.matrix_rank(M["B1"] @ M["B2"])
    assert rank <= 2 and M["B1"].size + M["B2"].size < 6 * 8
    shifted = monet_block(X, **M, shift=True)
    plain = monet_block(X, **M)
    assert not np.allclose(shifted, plain)
    X2 = X.copy()
    X2[4] += 1.0  # the shift moves token 4's first half to row 5, its second to row 3
    diff = np.abs(monet_block(X2, **M, shift=True) - shifted).sum(1)
    assert diff[3] > 0 and diff[0] == 0, diff
    return f"rank(B₁B₂) = {rank} ≤ 2; shifted block mixes neighbouring tokens"


@claim(
    "E11-07",
    section="11.3",
    lines=(5913, 5913),
    statement="In the row convention X (n, e) MONet's projections act on channels, "
    "H = ((XA) ⊙ (XB) + XD)E; read literally, AX would mix tokens (A of shape (·, n)) "
    "and break permutation equivariance.",
    erratum="H = E(AX ⊙ BX + DX)",
)
def _e11_07() -> str:
    from alice_lab.transformer import monet_block

    X, M = _monet()
    perm = _rng(37).permutation(5)
    err = _maxerr(monet_block(X[perm], **M), monet_block(X, **M)[perm])
    r = _rng(38)
    A, B, D = (r.standard_normal((5, 5)) for _ in range(3))
    E = np.eye(5)

    def literal(Z):
        return E @ ((A @ Z) * (B @ Z) + D @ Z)

    gap = _maxerr(literal(X[perm]), literal(X)[perm])
    assert err < 1e-12 and gap > 1e-3, (err, gap)
    return (
        f"channel form equivariant ({err:.1e}); literal token form is not ({gap:.2f})"
    )
