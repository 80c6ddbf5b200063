"""Normalization layers against torch.nn / torch.nn.functional, closed forms, and across
backends (book §9.3.2)."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import normalization as nz
from alice_lab.normalization import per_example

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _t(x):
    return torch.as_tensor(np.asarray(x), dtype=torch.float64)


def _nchw(x):  # (b, h, w, c) -> (b, c, h, w)
    return _t(x).permute(0, 3, 1, 2)


@pytest.fixture
def X4():
    return np.random.default_rng(0).normal(2.0, 3.0, (4, 5, 6, 6))  # (b, h, w, c)


def test_layer_norm_parity_across_backends(backend):
    X = np.random.default_rng(1).normal(size=(3, 4, 7))
    g, b = np.linspace(0.5, 2, 7), np.linspace(-1, 1, 7)
    ref = F.layer_norm(_t(X), (7,), _t(g), _t(b), eps=1e-5).numpy()
    out = nz.layer_norm(backend.asarray(X), backend.asarray(g), backend.asarray(b))
    np.testing.assert_allclose(backend.to_numpy(out), ref, atol=1e-12)


def test_rms_norm_parity_across_backends(backend):
    X = np.random.default_rng(2).normal(size=(5, 8))
    g = np.linspace(0.5, 2, 8)
    ref = F.rms_norm(_t(X), (8,), _t(g), eps=1e-6).numpy()
    out = nz.rms_norm(backend.asarray(X), backend.asarray(g))
    np.testing.assert_allclose(backend.to_numpy(out), ref, atol=1e-12)


def test_batch_norm_parity_across_backends(backend, X4):
    g, b = np.linspace(0.5, 2, 6), np.linspace(-1, 1, 6)
    ref = F.batch_norm(_nchw(X4), None, None, _t(g), _t(b), training=True, eps=1e-5)
    out = nz.batch_norm(backend.asarray(X4), backend.asarray(g), backend.asarray(b))
    np.testing.assert_allclose(
        backend.to_numpy(out), ref.permute(0, 2, 3, 1).numpy(), atol=1e-12
    )


def test_group_and_instance_norm_parity(backend, X4):
    for groups in (1, 2, 3, 6):
        ref = F.group_norm(_nchw(X4), groups, eps=1e-5).permute(0, 2, 3, 1).numpy()
        out = nz.group_norm(backend.asarray(X4), groups)
        np.testing.assert_allclose(backend.to_numpy(out), ref, atol=1e-12)
    ref = F.instance_norm(_nchw(X4), eps=1e-5).permute(0, 2, 3, 1).numpy()
    out = nz.instance_norm(backend.asarray(X4))
    np.testing.assert_allclose(backend.to_numpy(out), ref, atol=1e-12)


def test_layer_norm_variant_a_equals_torch_layernorm_chw(X4):
    ln = torch.nn.LayerNorm([6, 5, 6], elementwise_affine=False, dtype=torch.float64)
    ref = ln(_nchw(X4)).permute(0, 2, 3, 1).detach().numpy()
    np.testing.assert_allclose(nz.layer_norm(X4, axes=(1, 2, 3)), ref, atol=1e-12)
    np.testing.assert_allclose(nz.group_norm(X4, 1), ref, atol=1e-12)


def test_batchnorm_running_stats_match_torch_bn2d(X4):
    rng = np.random.default_rng(3)
    bn = nz.BatchNorm(6, momentum=0.1)
    ref = torch.nn.BatchNorm2d(6, momentum=0.1, dtype=torch.float64)
    for _ in range(5):
        x = rng.normal(1.0, 2.0, (4, 5, 6, 6))
        out = bn(x)
        r = ref(_nchw(x)).permute(0, 2, 3, 1).detach().numpy()
        np.testing.assert_allclose(out, r, atol=1e-12)
    np.testing.assert_allclose(bn.running_mean, ref.running_mean.numpy(), atol=1e-12)
    np.testing.assert_allclose(bn.running_var, ref.running_var.numpy(), atol=1e-12)
    bn.eval()
    ref.eval()
    r = ref(_nchw(X4)).permute(0, 2, 3, 1).detach().numpy()
    np.testing.assert_allclose(bn(X4), r, atol=1e-12)


def test_batchnorm_cumulative_average_matches_torch_momentum_none():
    rng = np.random.default_rng(4)
    bn = nz.BatchNorm(3, momentum=None)
    ref = torch.nn.BatchNorm1d(3, momentum=None, dtype=torch.float64)
    batches = [rng.normal(size=(8, 3)) for _ in range(4)]
    for x in batches:
        bn(x)
        ref(_t(x))
    np.testing.assert_allclose(bn.running_mean, ref.running_mean.numpy(), atol=1e-12)
    np.testing.assert_allclose(
        bn.running_mean, np.mean([x.mean(0) for x in batches], axis=0), atol=1e-12
    )


def test_running_var_uses_unbiased_variance_and_wrong_conventions_fail():
    x = np.random.default_rng(5).normal(size=(4, 2))
    bn = nz.BatchNorm(2, momentum=1.0)
    bn(x)
    np.testing.assert_allclose(bn.running_var, x.var(0, ddof=1), atol=1e-12)
    assert not np.allclose(bn.running_var, x.var(0, ddof=0))
    # the book's EMA with weight 0.9 on the old value = torch momentum 0.1
    run = nz.running_average(np.zeros(2), x.mean(0), momentum=0.1)
    np.testing.assert_allclose(run, 0.1 * x.mean(0))


def test_torch_modules_match_torch_nn():
    torch.manual_seed(0)
    x = torch.randn(8, 5, dtype=torch.float64)
    mine = nz.BatchNormModule(5).double()
    ref = torch.nn.BatchNorm1d(5, dtype=torch.float64)
    for _ in range(3):
        torch.testing.assert_close(mine(x * 2 + 1), ref(x * 2 + 1))
    torch.testing.assert_close(mine.running_var, ref.running_var)
    mine.eval()
    ref.eval()
    torch.testing.assert_close(mine(x), ref(x))
    assert {n for n, _ in mine.named_buffers()} >= {"running_mean", "running_var"}
    assert sum(p.numel() for p in mine.parameters()) == 10
    torch.testing.assert_close(
        nz.LayerNormModule(5).double()(x), torch.nn.LayerNorm(5, dtype=torch.float64)(x)
    )
    torch.testing.assert_close(
        nz.RMSNormModule(5).double()(x),
        torch.nn.RMSNorm(5, eps=1e-6, dtype=torch.float64)(x),
    )
    # gradients flow through the generic code like through torch's kernel
    xa = x.clone().requires_grad_(True)
    xb = x.clone().requires_grad_(True)
    (nz.layer_norm(xa) ** 3).sum().backward()
    (F.layer_norm(xb, (5,)) ** 3).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad)


def test_affine_output_has_mean_beta_and_variance_alpha_squared():
    X = np.random.default_rng(6).normal(5, 3, (1000, 2))
    out = nz.batch_norm(X, np.array([2.0, 0.5]), np.array([1.0, -1.0]), eps=0.0)
    np.testing.assert_allclose(out.mean(0), [1.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(out.var(0), [4.0, 0.25], atol=1e-12)


def test_scalers_match_sklearn():
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    X = np.random.default_rng(7).normal(size=(20, 3))
    X[:, 2] = 4.0
    np.testing.assert_allclose(
        nz.minmax_scale(X), MinMaxScaler().fit_transform(X), atol=1e-12
    )
    np.testing.assert_allclose(
        nz.standard_scale(X), StandardScaler().fit_transform(X), atol=1e-12
    )


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="gamma"):
        nz.layer_norm(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="running_mean"):
        nz.batch_norm(np.ones((2, 3)), training=False)
    with pytest.raises(ValueError, match="divisor"):
        nz.group_norm(np.ones((2, 3, 3, 4)), 3)
    with pytest.raises(ValueError, match="more than 1 value"):
        nz.BatchNorm(3)(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"\(b, \.\.\., c\)"):
        nz.batch_stats(np.ones(3))


def test_channels_last_module_against_bn2d_groupnorm_instancenorm_modules(X4):
    torch.manual_seed(1)
    x = _t(X4)  # (b, h, w, c)
    mine = nz.BatchNormModule(6).double()
    ref = torch.nn.BatchNorm2d(6, dtype=torch.float64)
    for k in range(3):
        torch.testing.assert_close(
            mine(x * (k + 1)),
            ref((x * (k + 1)).permute(0, 3, 1, 2)).permute(0, 2, 3, 1),
        )
    torch.testing.assert_close(mine.running_mean, ref.running_mean)
    torch.testing.assert_close(mine.running_var, ref.running_var)
    mine.eval()
    ref.eval()
    torch.testing.assert_close(mine(x), ref(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1))
    gn = torch.nn.GroupNorm(3, 6, dtype=torch.float64)
    with torch.no_grad():
        gn.weight.uniform_(0.5, 2)
        gn.bias.normal_()
        out = nz.group_norm(x, 3, gn.weight, gn.bias)
        torch.testing.assert_close(out, gn(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1))
        inorm = torch.nn.InstanceNorm2d(6, affine=True, dtype=torch.float64)
        inorm.weight.uniform_(0.5, 2)
        out = nz.instance_norm(x, inorm.weight, inorm.bias)
        torch.testing.assert_close(
            out, inorm(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
        )


def test_batch_norm_and_rms_norm_gradients_match_torch_kernels():
    torch.manual_seed(2)
    x = torch.randn(6, 4, dtype=torch.float64)
    g = torch.rand(4, dtype=torch.float64) + 0.5
    w = torch.randn(6, 4, dtype=torch.float64)  # a fixed cotangent
    for mine, ref in (
        (
            lambda z: nz.batch_norm(z, g),
            lambda z: F.batch_norm(z, None, None, g, training=True),
        ),
        (lambda z: nz.rms_norm(z, g), lambda z: F.rms_norm(z, (4,), g, eps=1e-6)),
        (
            lambda z: nz.group_norm(z[:, None, :], 2, g),
            lambda z: F.group_norm(z[:, :, None], 2, g).permute(0, 2, 1),
        ),
    ):
        a = x.clone().requires_grad_(True)
        b = x.clone().requires_grad_(True)
        (mine(a) * w.reshape(mine(a).shape)).sum().backward()
        (ref(b) * w.reshape(ref(b).shape)).sum().backward()
        torch.testing.assert_close(a.grad, b.grad)


# --- layer norm: the torch path beside the generic one -------------------------------


def _ln_inputs(shape, dtype=torch.float64, seed=3):
    gen = torch.Generator().manual_seed(seed)
    c = shape[-1]
    x = torch.randn(shape, generator=gen, dtype=dtype) * 3 + 2
    g = torch.rand(c, generator=gen, dtype=dtype) + 0.5
    b = torch.randn(c, generator=gen, dtype=dtype)
    return x, g, b


def _grads(fn, *inputs, cotangent):
    leaves = [t.detach().clone().requires_grad_(True) for t in inputs]
    (fn(*leaves) * cotangent).sum().backward()
    return [t.grad for t in leaves]


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_torch_path_equals_generic_path_and_torch_kernel(affine):
    x, g, b = _ln_inputs((4, 5, 16))
    if not affine:
        g = b = None
    fast = nz.layer_norm(x, g, b)
    generic = per_example._layer_norm_generic(x, g, b, 1e-5, (2,))
    kernel = F.layer_norm(x, (16,), g, b, eps=1e-5)
    torch.testing.assert_close(fast, generic, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(fast, kernel, rtol=1e-12, atol=1e-12)
    if not affine:
        return
    w = torch.randn(4, 5, 16, dtype=torch.float64)  # a fixed cotangent
    g_fast = _grads(lambda *a: nz.layer_norm(*a), x, g, b, cotangent=w)
    g_gen = _grads(
        lambda *a: per_example._layer_norm_generic(*a, 1e-5, (2,)), x, g, b, cotangent=w
    )
    g_ker = _grads(lambda x, g, b: F.layer_norm(x, (16,), g, b), x, g, b, cotangent=w)
    for fast_grad, gen_grad, ker_grad in zip(g_fast, g_gen, g_ker, strict=True):
        torch.testing.assert_close(fast_grad, gen_grad, rtol=1e-10, atol=1e-12)
        torch.testing.assert_close(fast_grad, ker_grad, rtol=1e-10, atol=1e-12)


def test_layer_norm_torch_path_over_several_trailing_axes_and_float32():
    x, _, _ = _ln_inputs((3, 4, 5, 6))
    g = torch.rand(4, 5, 6, dtype=torch.float64) + 0.5
    fast = nz.layer_norm(x, g, axes=(1, 2, 3))
    torch.testing.assert_close(
        fast,
        per_example._layer_norm_generic(x, g, None, 1e-5, (1, 2, 3)),
        rtol=0,
        atol=1e-12,
    )
    x32, g32, b32 = _ln_inputs((8, 32), dtype=torch.float32)
    torch.testing.assert_close(
        nz.layer_norm(x32, g32, b32),
        per_example._layer_norm_generic(x32, g32, b32, 1e-5, (1,)),
        rtol=1e-5,
        atol=1e-5,
    )
    assert nz.layer_norm(x32, g32, b32).dtype == torch.float32


def test_layer_norm_gradcheck_through_the_dispatch():
    x, g, b = (t.requires_grad_(True) for t in _ln_inputs((3, 7)))
    assert torch.autograd.gradcheck(lambda *a: nz.layer_norm(*a), (x, g, b))


def test_layer_norm_takes_the_torch_path_on_torch_tensors(monkeypatch):
    def no_generic(*args, **kwargs):
        raise AssertionError("the generic layer norm ran")

    monkeypatch.setattr(per_example, "_layer_norm_generic", no_generic)
    x, g, b = _ln_inputs((4, 8))
    nz.layer_norm(x, g, b)  # the torch path: no error
    nz.layer_norm(x, axes=(0, 1))  # every axis is trailing too
    generic_inputs = [
        lambda: nz.layer_norm(x.numpy(), g.numpy(), b.numpy()),  # NumPy
        lambda: nz.layer_norm(x, axes=0),  # not the trailing axis
        lambda: nz.layer_norm(x, g.float(), b),  # gamma of another dtype
        lambda: nz.layer_norm(x, g.numpy()),  # gamma not a tensor
    ]
    for call in generic_inputs:
        with pytest.raises(AssertionError, match="generic layer norm ran"):
            call()


def test_layer_norm_generic_path_still_serves_numpy(monkeypatch):
    def no_torch(*args, **kwargs):
        raise AssertionError("the torch layer norm ran")

    monkeypatch.setattr(per_example, "_layer_norm_torch", no_torch)
    X = np.random.default_rng(4).normal(size=(3, 6))
    out = nz.layer_norm(X, eps=0.0)
    np.testing.assert_allclose(out.mean(1), 0, atol=1e-12)
    with pytest.raises(AssertionError, match="torch layer norm ran"):
        nz.layer_norm(_t(X))
