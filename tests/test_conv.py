"""alice_lab.conv against torch.nn.functional (layouts converted), on every backend:
conv1d/2d/3d over a seeded draw of (stride, padding, dilation, groups), the loop,
Toeplitz and FFT forms against the default, translation equivariance, pooling, and
gradients through the generic code against F.conv2d's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from alice_lab import conv as C

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _combos(seed: int, n: int, d: int):
    """A seeded sample of (stride, padding, dilation, groups) combinations."""
    r = np.random.default_rng(seed)
    pads = ["same", "valid", 0, 1, 2]
    out = []
    for _ in range(n):
        stride = tuple(int(v) for v in r.integers(1, 4, size=d))
        dil = tuple(int(v) for v in r.integers(1, 3, size=d))
        pad = pads[int(r.integers(len(pads)))]
        if pad == "same":
            stride = (1,) * d  # torch refuses 'same' with stride > 1
        groups = int(r.choice([1, 2, 4]))
        out.append((stride, pad, dil, groups))
    return out


COMBOS_2D = _combos(0, 7, 2)
COMBOS_1D = _combos(1, 4, 1)
COMBOS_3D = _combos(2, 2, 3)


def _nchw(X):
    """Channels last -> torch's channels first, written with torch alone (the references
    below must not lean on alice_lab's own layout helpers)."""
    return torch.as_tensor(X).movedim(-1, 1)


def _nhwc(Y):
    """torch's channels first -> channels last, as NumPy."""
    return Y.movedim(1, -1).numpy()


def _oihw(W):
    """Kernel (s_1, ..., s_d, c_in, c_out) -> torch's (c_out, c_in, s_1, ..., s_d)."""
    return torch.as_tensor(W).movedim((-1, -2), (0, 1))


def test_layout_helpers_match_torch_permutes(rng):
    X, W = rng.standard_normal((2, 5, 4, 3)), rng.standard_normal((3, 2, 3, 6))
    np.testing.assert_array_equal(C.to_torch_layout(X), _nchw(X).numpy())
    np.testing.assert_array_equal(C.from_torch_layout(_nchw(X).numpy()), X)
    np.testing.assert_array_equal(C.to_torch_weight(W), _oihw(W).numpy())
    np.testing.assert_array_equal(C.from_torch_weight(_oihw(W).numpy()), W)


def _torch_conv(X, W, b, d, stride, pad, dil, groups):
    f = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]
    Xt = _nchw(X)
    Wt = _oihw(W)
    out = f(
        Xt,
        Wt,
        torch.as_tensor(b),
        stride=stride,
        padding=pad,
        dilation=dil,
        groups=groups,
    )
    return _nhwc(out)


def _check_against_torch(backend, rng, d, combo, spatial):
    stride, pad, dil, groups = combo
    X = rng.standard_normal((2, *spatial, 4))
    W = rng.standard_normal((*((3,) * d), 4 // groups, 8))
    b = rng.standard_normal(8)
    expected = _torch_conv(X, W, b, d, stride, pad, dil, groups)
    got = C.convnd(
        backend.asarray(X),
        backend.asarray(W),
        backend.asarray(b),
        d=d,
        stride=stride,
        padding=pad,
        dilation=dil,
        groups=groups,
    )
    assert type(got) is type(backend.asarray(X))
    np.testing.assert_allclose(backend.to_numpy(got), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("combo", COMBOS_2D, ids=str)
def test_conv2d_matches_torch(backend, rng, combo):
    _check_against_torch(backend, rng, 2, combo, (9, 8))


@pytest.mark.parametrize("combo", COMBOS_1D, ids=str)
def test_conv1d_matches_torch(backend, rng, combo):
    _check_against_torch(backend, rng, 1, combo, (13,))


@pytest.mark.parametrize("combo", COMBOS_3D, ids=str)
def test_conv3d_matches_torch(backend, rng, combo):
    _check_against_torch(backend, rng, 3, combo, (6, 7, 6))


def test_unbatched_and_named_wrappers(rng):
    X, W = rng.standard_normal((7, 6, 3)), rng.standard_normal((3, 3, 3, 5))
    H = C.conv2d(X, W, padding="same")
    assert H.shape == (7, 6, 5)
    np.testing.assert_allclose(H, C.conv2d(X[None], W, padding="same")[0])
    x, w = rng.standard_normal((10, 2)), rng.standard_normal((3, 2, 4))
    np.testing.assert_allclose(C.conv1d(x, w), C.convnd(x, w, d=1))
    v, k = rng.standard_normal((1, 4, 5, 6, 2)), rng.standard_normal((3, 3, 3, 2, 2))
    expected = _torch_conv(v, k, np.zeros(2), 3, 1, 1, 1, 1)
    np.testing.assert_allclose(C.conv3d(v, k, padding=1), expected, atol=1e-12)


@pytest.mark.parametrize("combo", COMBOS_2D[:3], ids=str)
def test_loop_fft_and_toeplitz_agree_with_the_default(backend, rng, combo):
    stride, pad, dil, groups = combo
    X, W = (
        rng.standard_normal((2, 6, 5, 4)),
        rng.standard_normal((3, 3, 4 // groups, 4)),
    )
    kw = dict(stride=stride, padding=pad, dilation=dil, groups=groups)
    ref = _torch_conv(X, W, np.zeros(4), 2, stride, pad, dil, groups)
    for f in (C.conv2d_loop, C.fft_conv2d):
        got = f(backend.asarray(X), backend.asarray(W), **kw)
        np.testing.assert_allclose(backend.to_numpy(got), ref, rtol=1e-10, atol=1e-10)
    if groups == 1:
        M = C.conv_matrix(
            backend.asarray(W), (6, 5, 4), stride=stride, padding=pad, dilation=dil
        )
        got = backend.to_numpy(M) @ X[1].reshape(-1)
        np.testing.assert_allclose(got, ref[1].reshape(-1), rtol=1e-10, atol=1e-10)


def test_fft_conv1d_long_kernel_and_torch_gradcheck(rng):
    x, w = rng.standard_normal((1, 300, 1)), rng.standard_normal((101, 1, 1))
    full = np.correlate(np.pad(x[0, :, 0], 100), w[:, 0, 0], mode="valid")
    np.testing.assert_allclose(
        C.fft_conv1d(x, w, padding=100)[0, :, 0], full, atol=1e-10
    )
    xt = torch.tensor(rng.standard_normal((1, 9, 2)), requires_grad=True)
    wt = torch.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda a, b: C.fft_conv1d(a, b, padding=1), (xt, wt)
    )


def test_toeplitz_matrix_is_the_books_example():
    T = C.toeplitz_matrix(np.array([1.0, 2.0, 3.0]), 4)
    np.testing.assert_array_equal(
        T, [[2, 3, 0, 0], [1, 2, 3, 0], [0, 1, 2, 3], [0, 0, 1, 2]]
    )
    import scipy.linalg

    np.testing.assert_array_equal(T, scipy.linalg.toeplitz([2, 1, 0, 0], [2, 3, 0, 0]))
    assert C.toeplitz_matrix(np.array([1.0, 2.0, 3.0]), 6, "valid").shape == (4, 6)


def test_translation_equivariance(rng):
    X, W = rng.standard_normal((16, 16, 2)), rng.standard_normal((3, 3, 2, 3))
    dy, dx = 3, -2
    # circular padding: exact everywhere
    Xw = np.pad(X, ((1, 1), (1, 1), (0, 0)), mode="wrap")
    Xsw = np.pad(np.roll(X, (dy, dx), (0, 1)), ((1, 1), (1, 1), (0, 0)), mode="wrap")
    np.testing.assert_allclose(
        C.conv2d(Xsw, W), np.roll(C.conv2d(Xw, W), (dy, dx), (0, 1))
    )
    # zero padding: only away from the borders
    H, Hs = (
        C.conv2d(X, W, padding="same"),
        C.conv2d(np.roll(X, (dy, dx), (0, 1)), W, padding="same"),
    )
    inner = (slice(5, 11), slice(5, 11))
    np.testing.assert_allclose(Hs[inner], np.roll(H, (dy, dx), (0, 1))[inner])
    assert np.abs(Hs - np.roll(H, (dy, dx), (0, 1))).max() > 1e-3


@pytest.mark.parametrize("size, stride, padding", [(2, None, 0), (3, 2, 1), (3, 1, 0)])
def test_pooling_matches_torch(backend, rng, size, stride, padding):
    X = rng.standard_normal((2, 9, 8, 3))
    Xt = _nchw(X)
    st = size if stride is None else stride
    for ours, theirs in ((C.max_pool2d, F.max_pool2d), (C.avg_pool2d, F.avg_pool2d)):
        got = ours(backend.asarray(X), size, stride, padding=padding)
        ref = _nhwc(theirs(Xt, size, st, padding))
        np.testing.assert_allclose(backend.to_numpy(got), ref, rtol=1e-12)
    x = rng.standard_normal((2, 11, 3))
    ref1 = _nhwc(F.max_pool1d(_nchw(x), 2))
    np.testing.assert_allclose(backend.to_numpy(C.max_pool1d(backend.asarray(x))), ref1)
    g = backend.asarray(X)
    np.testing.assert_allclose(backend.to_numpy(C.global_avg_pool(g)), X.mean((1, 2)))
    np.testing.assert_allclose(backend.to_numpy(C.global_max_pool(g)), X.max((1, 2)))
    np.testing.assert_allclose(backend.to_numpy(C.global_sum_pool(g)), X.sum((1, 2)))


def test_max_pool3d_matches_torch(rng):
    X = rng.standard_normal((1, 4, 6, 6, 2))
    ref = _nhwc(F.max_pool3d(_nchw(X), 2))
    np.testing.assert_allclose(C.max_pool3d(X), ref)


@pytest.mark.parametrize("groups, stride, dilation", [(1, 1, 1), (2, 2, 1), (4, 1, 2)])
def test_gradients_match_torch_conv2d(rng, groups, stride, dilation):
    X = rng.standard_normal((2, 7, 6, 4))
    W = rng.standard_normal((3, 3, 4 // groups, 4))
    b = rng.standard_normal(4)
    G = rng.standard_normal(
        C.conv2d(X, W, stride=stride, padding=1, dilation=dilation, groups=groups).shape
    )
    grads = []
    for ours in (True, False):
        Xt, Wt, bt = (torch.tensor(a, requires_grad=True) for a in (X, W, b))
        if ours:
            H = C.conv2d(
                Xt, Wt, bt, stride=stride, padding=1, dilation=dilation, groups=groups
            )
        else:
            H = F.conv2d(
                _nchw(Xt),
                _oihw(Wt),
                bt,
                stride=stride,
                padding=1,
                dilation=dilation,
                groups=groups,
            ).movedim(1, -1)
        (H * torch.as_tensor(G)).sum().backward()
        grads.append([t.grad.numpy() for t in (Xt, Wt, bt)])
    for a, e in zip(*grads, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10)


def test_jax_grad_through_conv2d_matches_torch(rng):
    jax = pytest.importorskip("jax")
    X, W = rng.standard_normal((1, 6, 6, 2)), rng.standard_normal((3, 3, 2, 3))
    gW = jax.grad(
        lambda w: (C.conv2d(jax.numpy.asarray(X), w, padding="same") ** 2).sum()
    )(jax.numpy.asarray(W))
    Wt = torch.tensor(W, requires_grad=True)
    out = F.conv2d(_nchw(X), _oihw(Wt), padding="same")
    (out**2).sum().backward()
    np.testing.assert_allclose(np.asarray(gW), Wt.grad.numpy(), rtol=1e-10)


def test_causal_conv1d_sees_only_the_past(backend, rng):
    X, W = rng.standard_normal((1, 12, 2)), rng.standard_normal((3, 2, 2))
    Y = backend.to_numpy(
        C.causal_conv1d(backend.asarray(X), backend.asarray(W), dilation=2)
    )
    assert Y.shape == (1, 12, 2)
    Xc = X.copy()
    Xc[:, 7:] += 10.0  # change the future of t = 6
    Yc = C.causal_conv1d(Xc, W, dilation=2)
    np.testing.assert_allclose(Yc[:, :7], Y[:, :7])
    assert np.abs(Yc[:, 7:] - Y[:, 7:]).min() > 0
    ref = F.conv1d(
        F.pad(_nchw(X), (4, 0)),
        _oihw(W),
        dilation=2,
    )
    np.testing.assert_allclose(Y, _nhwc(ref), atol=1e-12)


def test_1x1_depthwise_and_separable(backend, rng):
    X = rng.standard_normal((2, 6, 5, 4))
    W1, Wd = rng.standard_normal((4, 6)), rng.standard_normal((3, 3, 4))
    Xt = _nchw(X)
    ref1 = _nhwc(F.conv2d(Xt, torch.as_tensor(W1.T[:, :, None, None])))
    got1 = C.conv1x1(backend.asarray(X), backend.asarray(W1))
    np.testing.assert_allclose(backend.to_numpy(got1), ref1, atol=1e-12)
    refd = F.conv2d(
        Xt, torch.as_tensor(Wd.transpose(2, 0, 1)[:, None]), padding=1, groups=4
    )
    gotd = C.depthwise_conv2d(backend.asarray(X), backend.asarray(Wd))
    np.testing.assert_allclose(backend.to_numpy(gotd), _nhwc(refd), atol=1e-12)
    gots = C.depthwise_separable_conv2d(
        backend.asarray(X), backend.asarray(Wd), backend.asarray(W1)
    )
    refs = _nhwc(F.conv2d(refd, torch.as_tensor(W1.T[:, :, None, None])))
    np.testing.assert_allclose(backend.to_numpy(gots), refs, atol=1e-12)


def test_patches_and_layouts(backend, rng):
    X = rng.standard_normal((2, 5, 6, 3))
    P = backend.to_numpy(C.patches(backend.asarray(X), 3, padding=1))
    assert P.shape == (2, 5, 6, 3, 3, 3)
    Xp = np.pad(X, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for i, j in itertools.product(range(5), range(6)):
        np.testing.assert_array_equal(P[1, i, j], Xp[1, i : i + 3, j : j + 3])
    # torch's unfold orders a patch (c, s, s); ours is (s, s, c)
    U = F.unfold(_nchw(X), 3, padding=1).numpy()  # (b, c*9, L)
    U = U.reshape(2, 3, 3, 3, 5, 6).transpose(0, 4, 5, 2, 3, 1)
    np.testing.assert_array_equal(P, U)
    T = C.to_torch_layout(backend.asarray(X))
    assert tuple(T.shape) == (2, 3, 5, 6)
    np.testing.assert_array_equal(backend.to_numpy(C.from_torch_layout(T)), X)
    W = rng.standard_normal((3, 1, 2, 5))
    np.testing.assert_array_equal(C.from_torch_weight(C.to_torch_weight(W)), W)
    assert C.to_torch_weight(W).shape == (5, 2, 3, 1)


def test_receptive_field_formula_and_gradient_support():
    assert [C.receptive_field([3] * L) for L in range(1, 6)] == [3, 5, 7, 9, 11]
    assert C.receptive_field([3, 3, 3], dilations=[1, 2, 4]) == 15
    assert C.receptive_field([3, 2, 3], strides=[1, 2, 1]) == 8
    W = torch.ones((3, 3, 1, 1), dtype=torch.float64)

    def net(X):
        H = C.conv2d(X, W, padding="same")
        H = C.max_pool2d(H, 2)
        return C.conv2d(H, W, padding="same")

    mask = C.empirical_receptive_field(net, (16, 16, 1), position=(4, 4))
    rows, cols = np.nonzero(mask)
    assert rows.max() - rows.min() + 1 == C.receptive_field([3, 2, 3], [1, 2, 1])


# --- bad input --------------------------------------------------------------------


def test_channel_mismatch_is_a_value_error(rng):
    with pytest.raises(ValueError, match="channel mismatch.*3 channels.*expects.*= 4"):
        C.conv2d(rng.standard_normal((1, 5, 5, 3)), rng.standard_normal((3, 3, 4, 2)))
    with pytest.raises(ValueError, match="channel mismatch"):
        C.conv1d(
            rng.standard_normal((1, 5, 4)), rng.standard_normal((3, 1, 2)), groups=2
        )
    with pytest.raises(ValueError, match="not divisible by groups"):
        C.conv2d(
            rng.standard_normal((5, 5, 4)), rng.standard_normal((3, 3, 2, 3)), groups=2
        )


def test_kernel_larger_than_padded_input_is_a_value_error(rng):
    with pytest.raises(
        ValueError, match="kernel larger than the padded input.*spans 5"
    ):
        C.conv2d(rng.standard_normal((1, 4, 4, 1)), rng.standard_normal((5, 5, 1, 1)))
    with pytest.raises(ValueError, match="kernel larger"):
        C.conv1d(
            rng.standard_normal((3, 1)), rng.standard_normal((3, 1, 1)), dilation=2
        )
    assert C.conv2d(
        rng.standard_normal((4, 4, 1)), rng.standard_normal((5, 5, 1, 1)), padding=1
    ).shape == (2, 2, 1)


def test_even_kernel_with_same_padding_is_a_value_error(rng):
    with pytest.raises(ValueError, match="odd kernel sizes s = 2k\\+1.*\\(4, 3\\)"):
        C.conv2d(
            rng.standard_normal((6, 6, 1)),
            rng.standard_normal((4, 3, 1, 1)),
            padding="same",
        )
    with pytest.raises(ValueError, match="odd kernel"):
        C.fft_conv1d(
            rng.standard_normal((6, 1)), rng.standard_normal((2, 1, 1)), padding="same"
        )


def test_empty_input_is_a_value_error(rng):
    with pytest.raises(ValueError, match="empty input X of shape \\(0, 5, 5, 1\\)"):
        C.conv2d(np.zeros((0, 5, 5, 1)), rng.standard_normal((3, 3, 1, 1)))
    with pytest.raises(ValueError, match="empty input"):
        C.conv1d(np.zeros((0, 2)), rng.standard_normal((1, 2, 1)))
    with pytest.raises(ValueError, match="empty kernel"):
        C.conv2d(np.zeros((3, 3, 1)), np.zeros((1, 1, 1, 0)))
    with pytest.raises(ValueError, match="empty input"):
        C.global_avg_pool(np.zeros((2, 0, 3, 1)))


def test_other_bad_shapes(rng):
    with pytest.raises(ValueError, match=r"expects X of shape \(b, h, w, c\)"):
        C.conv2d(np.zeros((5, 5)), np.zeros((3, 3, 1, 1)))
    with pytest.raises(ValueError, match="kernel W of shape"):
        C.conv2d(np.zeros((5, 5, 1)), np.zeros((3, 3, 1)))
    with pytest.raises(ValueError, match="bias must have shape"):
        C.conv2d(np.zeros((5, 5, 1)), np.zeros((3, 3, 1, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="padding must be"):
        C.conv2d(np.zeros((5, 5, 1)), np.zeros((3, 3, 1, 2)), padding="full")
    with pytest.raises(ValueError, match=r"stride must be an int >= 1 .*; got 0"):
        C.conv2d(np.zeros((5, 5, 1)), np.zeros((3, 3, 1, 2)), stride=0)


def test_locally_connected2d_uses_one_matrix_per_pixel(rng):
    X = rng.standard_normal((2, 5, 4, 3))
    W = rng.standard_normal((5, 4, 3, 3, 3, 2))
    H = C.locally_connected2d(X, W)
    Xp = np.pad(X, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.einsum("nabc,abcz->nz", Xp[:, 2:5, 1:4], W[2, 1])
    np.testing.assert_allclose(H[:, 2, 1], ref, atol=1e-12)
    np.testing.assert_allclose(H[1], C.locally_connected2d(X[1], W))
    with pytest.raises(ValueError, match="one matrix per pixel"):
        C.locally_connected2d(X, W[:4])
