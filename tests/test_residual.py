"""Residual connections (book §9.4): identity, VJP, paths, Euler view, block designs."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import residual as rs

torch = pytest.importorskip("torch")


def test_residual_is_f_plus_x_across_backends(backend):
    x = backend.asarray(np.linspace(-1, 1, 6).reshape(2, 3))
    out = rs.residual(lambda z: 2 * z * z, x)
    xn = np.linspace(-1, 1, 6).reshape(2, 3)
    np.testing.assert_allclose(backend.to_numpy(out), 2 * xn * xn + xn)
    zero = rs.Residual(lambda z: 0 * z)(x)
    np.testing.assert_array_equal(backend.to_numpy(zero), xn)


def test_shape_mismatch_needs_a_projection():
    x = np.ones((2, 3))
    W = np.ones((3, 4))
    with pytest.raises(ValueError, match="projection"):
        rs.residual(lambda z: z @ W, x)
    P = np.eye(3, 4)
    np.testing.assert_allclose(
        rs.residual(lambda z: z @ W, x, lambda z: z @ P), x @ W + x @ P
    )


def test_residual_vjp_is_vjp_f_plus_v():
    torch.manual_seed(0)
    W = torch.randn(4, 4, dtype=torch.float64)
    x = torch.randn(4, dtype=torch.float64)
    v = torch.randn(4, dtype=torch.float64)

    def f(z):
        return torch.tanh(W @ z)

    _, vjp_r = torch.func.vjp(lambda z: rs.residual(f, z), x)
    _, vjp_f = torch.func.vjp(f, x)
    torch.testing.assert_close(vjp_r(v)[0], vjp_f(v)[0] + v)


def test_paths_sum_to_the_network():
    rng = np.random.default_rng(0)
    Fs = [rng.normal(size=(3, 3)) * 0.5 for _ in range(4)]
    paths = rs.residual_paths(Fs)
    assert len(paths) == 16
    net = np.eye(3)
    for F in Fs:
        net = (np.eye(3) + F) @ net
    np.testing.assert_allclose(sum(P for _, P in paths), net, atol=1e-12)


def test_euler_is_a_weight_tied_resnet_and_first_order():
    f = lambda x, t: -x  # noqa: E731
    x0 = np.array([1.0])
    for h in (0.1, 0.05):
        n = int(round(1 / h))
        np.testing.assert_array_equal(
            rs.weight_tied_resnet(f, x0, n, h), rs.euler(f, x0, 1.0, h)
        )
    errs = [abs(rs.euler(f, x0, 1.0, h)[0] - np.exp(-1)) for h in (0.1, 0.05, 0.025)]
    np.testing.assert_allclose(errs, [0.0192, 0.0094, 0.0046], atol=2e-4)
    assert 0.45 <= errs[1] / errs[0] <= 0.55
    assert abs(rs.rk4(f, x0, 1.0, 0.1)[0] - np.exp(-1)) < 1e-6
    from scipy.integrate import solve_ivp

    ref = solve_ivp(lambda t, x: -x, (0, 1), x0, rtol=1e-10, atol=1e-12).y[0, -1]
    assert abs(rs.rk4(f, x0, 1.0, 0.01)[0] - ref) < 1e-9


def test_block_designs():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 6, 6)
    naive = rs.NaiveResBlock(4)
    assert bool((naive(x) - x >= 0).all())
    basic = rs.BasicBlock(4, post_relu=False)
    assert bool((basic(x) - x < 0).any())
    ident = rs.BasicBlock(4, post_relu=False, zero_init=True)
    torch.testing.assert_close(ident(x), x)
    proj = rs.BasicBlock(4, 8, stride=2)
    assert tuple(proj(x).shape) == (2, 8, 3, 3)
    bott = rs.BottleneckBlock(256)
    convs = sum(
        m.weight.numel() for m in bott.modules() if isinstance(m, torch.nn.Conv2d)
    )
    assert convs == rs.bottleneck_param_count(256, 64) == 69632
    nxt = rs.ConvNeXtBlock(96, bias=False)
    weights = nxt.dw.weight.numel() + nxt.up.weight.numel() + nxt.down.weight.numel()
    assert weights == rs.convnext_param_count(96) == 78432
    assert tuple(nxt(torch.randn(1, 96, 5, 5)).shape) == (1, 96, 5, 5)
