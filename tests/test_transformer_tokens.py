"""Patch tokens, class/register tokens, ViT and Mixer: patchify against a plain loop,
einops (Box 11.2) and a strided Conv2d; the torch models' shapes, parameters and
errors for image sizes that the patch size does not divide."""

from __future__ import annotations

import numpy as np
import pytest

import alice_lab.transformer as T


def _loop_patchify(x, p):
    b, h, w, c = x.shape
    out = []
    for i in range(h // p):
        for j in range(w // p):
            out.append(x[:, i * p : (i + 1) * p, j * p : (j + 1) * p, :].reshape(b, -1))
    return np.stack(out, axis=1)


def test_patchify_matches_a_loop_and_einops(backend):
    x = np.random.default_rng(0).standard_normal((2, 8, 12, 3))
    want = _loop_patchify(x, 4)
    got = T.patchify(backend.asarray(x), 4)
    assert tuple(got.shape) == (2, 6, 48)
    np.testing.assert_array_equal(backend.to_numpy(got), want)
    np.testing.assert_array_equal(T.patchify_einops(x, 4), want)
    np.testing.assert_array_equal(T.patchify(x[0], 4), want[0])
    np.testing.assert_array_equal(T.unpatchify(want, 4, 8, 12), x)


def test_box_11_2_shape_and_element_order():
    import torch

    xb = torch.randn(32, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    P = T.patchify_einops(xb, 8, layout="b c h w")
    assert tuple(P.shape) == (32, 64, 192)
    assert torch.equal(P[0, 0, :3], xb[0, :, 0, 0])  # channels innermost
    ours = T.patchify(xb.permute(0, 2, 3, 1), 8)  # channels-last
    assert torch.equal(ours, P)


def test_patch_embedding_is_a_strided_convolution():
    import torch

    r = np.random.default_rng(1)
    x = r.standard_normal((2, 8, 8, 3))
    W, b = r.standard_normal((4 * 4 * 3, 5)), r.standard_normal(5)
    conv = torch.nn.Conv2d(3, 5, 4, stride=4).double()
    with torch.no_grad():  # (p, p, c, e) -> (e, c, p, p)
        conv.weight.copy_(torch.as_tensor(W.reshape(4, 4, 3, 5).transpose(3, 2, 0, 1)))
        conv.bias.copy_(torch.as_tensor(b))
    want = conv(torch.as_tensor(x).permute(0, 3, 1, 2)).flatten(2).transpose(1, 2)
    np.testing.assert_allclose(
        T.patch_embed(x, W, b, 4), want.detach().numpy(), rtol=1e-12
    )
    pe = T.PatchEmbed(3, 5, 4).double()
    xt = torch.as_tensor(x)
    np.testing.assert_allclose(
        pe(xt).detach().numpy(),
        pe.as_conv()(xt.permute(0, 3, 1, 2))
        .flatten(2)
        .transpose(1, 2)
        .detach()
        .numpy(),
        rtol=1e-12,
    )


def test_image_sizes_not_divisible_by_the_patch_raise():
    import torch

    with pytest.raises(ValueError, match="10×8 is not divisible by the patch size 4"):
        T.patchify(np.zeros((10, 8, 1)), 4)
    with pytest.raises(ValueError, match="expected an image"):
        T.patchify(np.zeros((8, 8)), 2)
    with pytest.raises(ValueError, match="not divisible"):
        T.ViT(10, 4, 1, 10)
    with pytest.raises(ValueError, match="not divisible"):
        T.PatchEmbed(1, 8, 3)(torch.zeros(1, 8, 8, 1))
    vit = T.ViT(8, 2, 1, 10)
    with pytest.raises(ValueError, match="expected 16 patches; got 4"):
        vit(torch.zeros(1, 4, 4, 1))


def test_class_and_register_tokens():
    X = np.arange(24.0).reshape(2, 3, 4)
    c = -np.ones(4)
    last = T.add_class_token(X, c)
    first = T.add_class_token(X, c, position="first")
    assert last.shape == first.shape == (2, 4, 4)
    np.testing.assert_array_equal(last[:, -1], [c, c])
    np.testing.assert_array_equal(first[:, 0], [c, c])
    R = np.zeros((2, 4))
    XR = T.add_register_tokens(X, R)
    assert XR.shape == (2, 5, 4)
    np.testing.assert_array_equal(T.drop_register_tokens(XR, 2), X)
    with pytest.raises(ValueError, match="class token of shape"):
        T.add_class_token(X, np.ones(3))
    M = T.concat_modalities(np.zeros((4, 4)), np.ones((3, 4)))
    assert M.shape == (7, 4)
    with pytest.raises(ValueError, match="same token size"):
        T.concat_modalities(np.zeros((4, 4)), np.ones((3, 5)))


def test_vit_has_learned_positions_a_class_token_and_registers():
    import torch

    torch.manual_seed(0)
    vit = T.ViT(8, 2, 1, 10, e=16, heads=2, registers=3)
    assert tuple(vit.pos.shape) == (17, 16) and tuple(vit.cls.shape) == (16,)
    x = torch.randn(5, 8, 8, 1)
    assert tuple(vit.tokens(x).shape) == (5, 20, 16)
    assert tuple(vit(x).shape) == (5, 10)
    # without positions the class-token output ignores the order of the patches
    flat = T.ViT(8, 2, 1, 10, e=16, heads=2, pos="none").eval()
    P = T.patchify(x, 2)
    perm = torch.randperm(16)
    shuffled = T.unpatchify(P[:, perm], 2, 8, 8)
    torch.testing.assert_close(flat(shuffled), flat(x), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(vit.eval()(shuffled), vit(x), atol=1e-4)


def test_mixer_model_shapes_and_fixed_length():
    import torch

    torch.manual_seed(0)
    mixer = T.Mixer(8, 2, 1, 10, e=16)
    assert tuple(mixer(torch.randn(3, 8, 8, 1)).shape) == (3, 10)
    with pytest.raises(ValueError, match="mixes exactly 16 tokens; got 4"):
        mixer(torch.randn(3, 4, 4, 1))
