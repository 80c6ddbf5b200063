"""Checkable claims of Chapter 7, §7.1 (book lines 3264-3432): from fully-connected to
local, locally-connected and convolutional layers, the Toeplitz form, the offset and
the index form, filters; and the chapter's errata. References: torch.nn.functional,
scipy.signal / scipy.ndimage, scipy.linalg and plain NumPy."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _torch_conv2d(X, W, b=None, **kw):
    """F.conv2d on channels-last NumPy arrays (the independent reference)."""
    import torch
    import torch.nn.functional as F

    Xt = torch.as_tensor(X if X.ndim == 4 else X[None]).permute(0, 3, 1, 2)
    Wt = torch.as_tensor(W).permute(3, 2, 0, 1)
    bt = None if b is None else torch.as_tensor(b)
    out = F.conv2d(Xt, Wt, bt, **kw).permute(0, 2, 3, 1).numpy()
    return out if X.ndim == 4 else out[0]


@claim(
    "C7-01",
    section="7.1.1",
    lines=(3266, 3266),
    statement="An image is a tensor (h, w, c) and a mini-batch (b, h, w, c); PyTorch "
    "stores the same batch channels-first, (b, c, h, w), and the two convert both "
    "ways.",
)
def _c7_01() -> str:
    import torch

    from alice_lab import conv

    X = _rng(0).standard_normal((4, 5, 6, 3))
    T = conv.to_torch_layout(torch.as_tensor(X))
    assert tuple(T.shape) == (4, 3, 5, 6), T.shape
    assert torch.equal(T, torch.as_tensor(X).permute(0, 3, 1, 2))
    assert np.array_equal(conv.from_torch_layout(T).numpy(), X)
    return "(4, 5, 6, 3) ↔ torch (4, 3, 5, 6), round trip exact"


@claim(
    "C7-02",
    section="7.1.1",
    lines=(3266, 3266),
    statement="Channels have no order: permuting the input channels together with the "
    "kernel's input-channel axis leaves a convolution unchanged.",
)
def _c7_02() -> str:
    from alice_lab import conv

    r = _rng(1)
    X, W = r.standard_normal((6, 6, 3)), r.standard_normal((3, 3, 3, 4))
    p = [2, 0, 1]
    err = _maxerr(conv.conv2d(X[..., p], W[:, :, p, :]), _torch_conv2d(X, W))
    assert err < 1e-12, err
    return f"max |Δ| = {err:.1e} vs torch"


@claim(
    "C7-03",
    section="7.1.1",
    lines=(3272, 3276),
    equation="E.7.1-E.7.2",
    statement="vect(x) is x.reshape(-1) in row-major order (length ∏ iⱼ), the same in "
    "NumPy and torch, and unvect undoes it.",
)
def _c7_03() -> str:
    import torch

    from alice_lab import conv

    X = np.arange(24.0).reshape(2, 3, 4)
    v = conv.vect(X)
    assert v.shape == (24,) and np.array_equal(
        v, torch.as_tensor(X).reshape(-1).numpy()
    )
    assert np.array_equal(conv.unvect(v, X.shape), X)
    return "vect((2, 3, 4)) has 24 entries = torch reshape(-1); unvect round trip"


@claim(
    "C7-04",
    section="7.1.1",
    lines=(3280, 3280),
    statement="A fully-connected layer from a 1024×1024 RGB image to one of the same "
    "size has (1024·1024·3)² ≈ 9.9·10¹² weights, of the order of 10¹³; in general "
    "(hw)²cc'.",
)
def _c7_04() -> str:
    import math

    from alice_lab import conv

    n = conv.fc_image_params(1024, 1024, 3, 3)
    assert n == (1024 * 1024 * 3) ** 2 == 9_895_604_649_984, n
    assert round(math.log10(n)) == 13
    import torch

    small = torch.nn.Linear(4 * 4 * 3, 4 * 4 * 3, bias=False).weight.numel()
    assert small == conv.fc_image_params(4, 4, 3, 3)
    return f"{n:.3e} weights; a 4×4×3 nn.Linear has {small} = (hw)²cc'"


@claim(
    "C7-05",
    section="7.1.1",
    lines=(3282, 3288),
    statement="On a 4-pixel image with one channel the fully-connected layer is a "
    "dense 4×4 matrix: its Jacobian is W itself, so every output depends on every "
    "input (16 weights).",
)
def _c7_05() -> str:
    import torch

    from alice_lab.layers import fully_connected

    # the book's h = W x on 4 one-channel pixels; fully_connected computes x Wᵀ row-wise
    W = _rng(705).standard_normal((4, 4))

    def layer(x):
        return np.asarray(fully_connected(x[None, :], W.T, np.zeros(4), phi=None))[0]

    x0, eps = _rng(7).standard_normal(4), 1e-6
    J = np.stack(
        [(layer(x0 + eps * e) - layer(x0 - eps * e)) / (2 * eps) for e in np.eye(4)], 1
    )
    lin = torch.nn.Linear(4, 4, bias=False).double()
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(W))
    J_torch = torch.autograd.functional.jacobian(lin, torch.from_numpy(x0)).numpy()
    err = max(_maxerr(J, W), _maxerr(J, J_torch))
    assert err < 1e-8 and int((np.abs(J) > 1e-8).sum()) == 16, (err, J)
    return (
        f"finite-difference Jacobian of fully_connected on 4 pixels = W = torch's "
        f"(error {err:.0e}), 16 of 16 entries non-zero"
    )


@claim(
    "C7-06",
    section="7.1.2",
    lines=(3290, 3308),
    equation="E.7.3",
    statement="The patch P_k(i, j) has shape (2k+1, 2k+1, c) and holds exactly the "
    "pixels at Chebyshev distance ≤ k from (i, j).",
)
def _c7_06() -> str:
    from alice_lab import conv

    X = np.arange(9 * 9 * 2.0).reshape(9, 9, 2)
    for k in range(4):
        P = conv.extract_patch(X, 4, 4, k)
        assert P.shape == (2 * k + 1, 2 * k + 1, 2), (k, P.shape)
        ii, jj = np.meshgrid(range(9), range(9), indexing="ij")
        mask = np.maximum(abs(ii - 4), abs(jj - 4)) <= k
        assert sorted(P[..., 0].ravel()) == sorted(X[..., 0][mask])
        d = conv.pixel_distance((4, 4), (4 + k, 4 - k))
        assert d == k
    return "k = 0..3: shapes (2k+1, 2k+1, 2), index sets = Chebyshev balls"


@claim(
    "C7-07",
    section="7.1.2",
    lines=(3308, 3308),
    statement="A patch exists only for pixels at least k steps from the border; "
    "closer than that one must pad the image first.",
)
def _c7_07() -> str:
    from alice_lab import conv

    X = np.ones((5, 5, 1))
    try:
        conv.extract_patch(X, 0, 2, 1)
    except ValueError:
        pass
    else:
        raise AssertionError("a border patch was extracted without padding")
    P = conv.extract_patch(conv.zero_pad(X, 1), 1, 3, 1)
    assert P.shape == (3, 3, 1) and P[0].sum() == 0 and np.pad(X, 1)[0].sum() == 0
    return "border patch refused; after zero-padding it has a zero row"


@claim(
    "C7-08",
    section="7.1.2",
    lines=(3312, 3318),
    statement="A local layer (here a convolution) gives outputs at (i, j) that depend "
    "only on P_k(i, j): ∂H_ij/∂X_i'j' = 0 whenever the distance exceeds k.",
)
def _c7_08() -> str:
    import torch

    from alice_lab import conv

    W = torch.as_tensor(_rng(2).standard_normal((3, 3, 1, 1)))
    X = torch.as_tensor(_rng(3).standard_normal((8, 8, 1)), dtype=torch.float64)
    J = torch.autograd.functional.jacobian(
        lambda x: conv.conv2d(x, W, padding="same"), X
    )
    J = J[..., 0, :, :, 0].numpy()  # (8, 8, 8, 8)
    ii, jj = np.meshgrid(range(8), range(8), indexing="ij")
    for i, j in [(0, 0), (3, 4), (7, 2)]:
        far = np.maximum(abs(ii - i), abs(jj - j)) > 1
        assert np.all(J[i, j][far] == 0) and np.any(J[i, j][~far] != 0)
    return "torch Jacobian zero outside the 3×3 patch of each output"


@claim(
    "C7-09",
    section="7.1.2",
    lines=(3320, 3324),
    statement="A locally-connected layer has hw·s²cc' weights: s²/(hw) times the "
    "(hw)²cc' of a fully-connected layer.",
)
def _c7_09() -> str:
    from fractions import Fraction

    from alice_lab import conv

    h, w, c, c2, s = 32, 24, 3, 8, 3
    lc, fc = (
        conv.locally_connected_params(h, w, c, c2, s),
        conv.fc_image_params(h, w, c, c2),
    )
    assert Fraction(lc, fc) == Fraction(s * s, h * w)
    r = _rng(4)
    X, Wl = r.standard_normal((h, w, c)), r.standard_normal((h, w, s, s, c, c2))
    assert Wl.size == lc
    H = conv.locally_connected2d(X, Wl)
    Xp = np.pad(X, ((1, 1), (1, 1), (0, 0)))
    ref = np.einsum("abc,abcz->z", Xp[5:8, 7:10], Wl[5, 7])
    assert _maxerr(H[5, 7], ref) < 1e-12
    return f"lc/fc = {Fraction(lc, fc)} = s²/(hw); pixel (5, 7) = its own patch × W_57"


@claim(
    "C7-10",
    section="7.1.2",
    lines=(3326, 3328),
    statement="For k = 1 and four pixels the locally-connected layer is a banded 4×4 "
    "matrix with 2 + 3 + 3 + 2 = 10 free weights.",
)
def _c7_10() -> str:
    import torch

    from alice_lab import conv

    Wl = _rng(5).standard_normal((4, 1, 3, 1, 1, 1)) + 3.0  # per-pixel 3-tap filters
    f = lambda x: conv.locally_connected2d(x, torch.as_tensor(Wl))  # noqa: E731
    J = torch.autograd.functional.jacobian(
        f, torch.ones((4, 1, 1), dtype=torch.float64)
    )
    M = J.reshape(4, 4).numpy()
    assert (
        np.count_nonzero(M) == 10
        and np.all(np.triu(M, 2) == 0)
        and np.all(np.tril(M, -2) == 0)
    )
    return "10 non-zeros on the tridiagonal band"


@claim(
    "C7-11",
    section="7.1.2",
    lines=(3330, 3334),
    statement="Shortened filters at the border are the same as zero-padding: a kernel "
    "2k+1 needs exactly k zero rows and columns per side to keep (h, w); without "
    "padding the output is (h-2k, w-2k).",
)
def _c7_11() -> str:
    from alice_lab import conv

    r = _rng(6)
    for k in range(4):
        X, W = (
            r.standard_normal((9, 10, 2)),
            r.standard_normal((2 * k + 1, 2 * k + 1, 2, 3)),
        )
        same, valid = (
            conv.conv2d(X, W, padding="same"),
            conv.conv2d(X, W, padding="valid"),
        )
        assert same.shape == (9, 10, 3) and valid.shape == (9 - 2 * k, 10 - 2 * k, 3)
        assert _maxerr(same, _torch_conv2d(X, W, padding=k)) < 1e-12
    w = r.standard_normal(3)
    x = r.standard_normal(4)
    short = np.array(
        [
            [w[1], w[2], 0, 0],
            [w[0], w[1], w[2], 0],
            [0, w[0], w[1], w[2]],
            [0, 0, w[0], w[1]],
        ]
    )
    assert _maxerr(short @ x, np.correlate(np.pad(x, 1), w, "valid")) < 1e-12
    return (
        "k = 0..3: 'same' keeps (9, 10) (= torch padding=k), 'valid' gives (9-2k, "
        "10-2k)"
    )


@claim(
    "C7-12",
    section="7.1.3",
    lines=(3336, 3352),
    statement="Weight sharing gives translation equivariance: with circular padding "
    "conv(shift(X)) = shift(conv(X)) exactly; a locally-connected layer is not "
    "equivariant.",
)
def _c7_12() -> str:
    import scipy.ndimage as ndi

    from alice_lab import conv

    r = _rng(7)
    X, W = r.standard_normal((12, 12, 1)), r.standard_normal((3, 3, 1, 1))
    circ = lambda A: conv.conv2d(np.pad(A, ((1, 1), (1, 1), (0, 0)), mode="wrap"), W)  # noqa: E731
    ref = ndi.correlate(X[..., 0], W[:, :, 0, 0], mode="wrap")
    assert _maxerr(circ(X)[..., 0], ref) < 1e-12
    S = lambda A: np.roll(A, (3, -2), (0, 1))  # noqa: E731
    err = _maxerr(circ(S(X)), S(circ(X)))
    assert err < 1e-12, err
    Wl = r.standard_normal((12, 12, 3, 3, 1, 1))
    lc = lambda A: conv.locally_connected2d(
        np.pad(A, ((1, 1), (1, 1), (0, 0)), mode="wrap"), Wl, padding="valid"
    )  # noqa: E731,E501
    gap = _maxerr(lc(S(X)), S(lc(X)))
    assert gap > 1e-3, gap
    return f"conv: |Δ| = {err:.0e} (= scipy wrap); locally-connected: |Δ| = {gap:.2f}"


@claim(
    "C7-13",
    section="7.1.3",
    lines=(3352, 3360),
    equation="E.7.4",
    statement="A convolution has s²cc' weights and c' biases, whatever the resolution: "
    "1/(hw) of a locally-connected layer's weights.",
)
def _c7_13() -> str:
    import torch

    from alice_lab import conv

    m = torch.nn.Conv2d(3, 8, 5)
    n = sum(p.numel() for p in m.parameters())
    assert n == conv.conv_params(3, 8, 5) == 5 * 5 * 3 * 8 + 8
    for h, w in [(8, 8), (32, 48)]:
        lc = conv.locally_connected_params(h, w, 3, 8, 5)
        assert lc == h * w * conv.conv_params(3, 8, 5, bias=False)
    return f"nn.Conv2d(3, 8, 5) has {n} parameters = s²cc' + c'"


@claim(
    "C7-14",
    section="7.1.3",
    lines=(3362, 3374),
    statement="Box 7.1: F.conv2d on a (16, 3, 32, 32) batch with 64 filters of 5×5 and "
    "'same' padding gives (16, 64, 32, 32); the channels-last version gives "
    "(16, 32, 32, 64) with the same numbers.",
)
def _c7_14() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab import conv

    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 3, 32, 32, generator=g, dtype=torch.float64)
    w = torch.randn(64, 3, 5, 5, generator=g, dtype=torch.float64)
    out = F.conv2d(x, w, padding="same")
    assert tuple(out.shape) == (16, 64, 32, 32)
    ours = conv.conv2d(
        conv.from_torch_layout(x).numpy(),
        conv.from_torch_weight(w).numpy(),
        padding="same",
    )
    assert ours.shape == (16, 32, 32, 64)
    err = _maxerr(ours, conv.from_torch_layout(out).numpy())
    assert err < 1e-10, err
    return (
        f"shapes (16, 64, 32, 32) / (16, 32, 32, 64); max |Δ| = {err:.0e}; w has "
        f"{w.numel()} entries"
    )


@claim(
    "C7-15",
    section="7.1.3",
    lines=(3378, 3386),
    equation="E.7.5",
    statement="A 1-D convolution with 3 taps is multiplication by the Toeplitz matrix "
    "[[W₂,W₃,0,0],[W₁,W₂,W₃,0],[0,W₁,W₂,W₃],[0,0,W₁,W₂]] (constant diagonals); in 2-D "
    "vect(conv(X)) = M vect(X).",
)
def _c7_15() -> str:
    import scipy.linalg

    from alice_lab import conv

    w = np.array([0.5, -1.0, 2.0])
    T = conv.toeplitz_matrix(w, 4)
    assert np.array_equal(
        T, scipy.linalg.toeplitz([w[1], w[0], 0, 0], [w[1], w[2], 0, 0])
    )
    x = _rng(8).standard_normal(4)
    assert _maxerr(T @ x, np.correlate(np.pad(x, 1), w, "valid")) < 1e-12
    r = _rng(9)
    X, W = r.standard_normal((5, 4, 2)), r.standard_normal((3, 3, 2, 3))
    M = conv.conv_matrix(W, X.shape, padding=1)
    err = _maxerr(M @ X.reshape(-1), _torch_conv2d(X, W, padding=1).reshape(-1))
    assert err < 1e-12, err
    return f"T = scipy.linalg.toeplitz(...); 2-D: |M vect(X) - torch| = {err:.0e}"


@claim(
    "C7-16",
    section="7.1.3",
    lines=(3386, 3386),
    statement="Without bias a convolution is linear, conv(aX + bY) = a conv(X) + b "
    "conv(Y), "
    "and its vector-Jacobian product is multiplication by Mᵀ.",
)
def _c7_16() -> str:
    import torch

    from alice_lab import conv

    r = _rng(10)
    X, Y, W = (
        r.standard_normal((6, 5, 2)),
        r.standard_normal((6, 5, 2)),
        r.standard_normal((3, 3, 2, 2)),
    )
    f = lambda A: _torch_conv2d(A, W, padding=1)  # noqa: E731
    assert _maxerr(f(2 * X - 3 * Y), 2 * f(X) - 3 * f(Y)) < 1e-12
    M = conv.conv_matrix(W, X.shape, padding=1)
    Xt = torch.tensor(X, requires_grad=True)
    G = r.standard_normal((6, 5, 2))
    (
        conv.conv2d(Xt, torch.as_tensor(W), padding=1) * torch.as_tensor(G)
    ).sum().backward()
    err = _maxerr(Xt.grad.numpy().reshape(-1), M.T @ G.reshape(-1))
    assert err < 1e-12, err
    return f"linear to 1e-12; autograd VJP = Mᵀg (|Δ| = {err:.0e})"


@claim(
    "C7-17",
    section="7.1.3",
    lines=(3392, 3398),
    equation="E.7.6",
    statement="The offset t(i) = i - k - 1 maps i' = 1..2k+1 onto i-k..i+k (1-based).",
)
def _c7_17() -> str:
    from alice_lab import conv

    for k in range(4):
        for i in range(k + 1, 12):
            got = [i2 + conv.offset(i, k) for i2 in range(1, 2 * k + 2)]
            assert got == list(range(i - k, i + k + 1)), (i, k, got)
    return "k = 0..3, all i: i' + t(i) runs over i-k..i+k"


@claim(
    "C7-18",
    section="7.1.3",
    lines=(3406, 3418),
    equation="E.7.7",
    statement="The index form H_ijz = Σ W_{i'j'dz} X_{i'+t(i), j'+t(j), d} (loops) "
    "equals "
    "the patch form W·vect(P_k(i, j)) and F.conv2d.",
)
def _c7_18() -> str:
    from alice_lab import conv

    r = _rng(11)
    X, W = r.standard_normal((6, 7, 3)), r.standard_normal((3, 3, 3, 4))
    loops = conv.conv2d_loop(X, W, padding=1)
    k = 1
    Xp = np.pad(X, ((k, k), (k, k), (0, 0)))
    H = np.zeros((6, 7, 4))
    for i in range(1, 7):  # 1-based, the book's indices
        for j in range(1, 8):
            for i2 in range(1, 2 * k + 2):
                for j2 in range(1, 2 * k + 2):
                    # padded 1-based index i' + t(i) + k, so 0-based i' + t(i) + k - 1
                    row = Xp[
                        i2 + conv.offset(i, k) + k - 1, j2 + conv.offset(j, k) + k - 1
                    ]
                    H[i - 1, j - 1] += row @ W[i2 - 1, j2 - 1]
    patch = np.einsum("hwabd,abdz->hwz", conv.patches(X, 3, padding=1), W)
    ref = _torch_conv2d(X, W, padding=1)
    err = max(_maxerr(H, ref), _maxerr(loops, ref), _maxerr(patch, ref))
    assert err < 1e-12, err
    return f"book loops = conv2d_loop = patches·W = torch (|Δ| = {err:.0e})"


@claim(
    "C7-19",
    section="7.1.3",
    lines=(3424, 3428),
    statement="The ridge filter [[-1,-1,-1],[-1,8,-1],[-1,-1,-1]] sums to 0, so a "
    "constant image gives 0 away from the border; it is symmetric, so correlating and "
    "convolving with it agree.",
)
def _c7_19() -> str:
    import scipy.signal

    from alice_lab import conv

    R = conv.FILTERS["ridge"]
    assert R.sum() == 0
    H = conv.conv2d(np.full((8, 8, 1), 3.7), R[:, :, None, None])
    assert np.abs(H).max() < 1e-12
    X = _rng(12).standard_normal((8, 8))
    a = scipy.signal.correlate2d(X, R, "same")
    b = scipy.signal.convolve2d(X, R, "same")
    assert _maxerr(a, b) < 1e-12
    return f"response to a constant = {np.abs(H).max():.0e}; correlate2d = convolve2d"


@claim(
    "C7-20",
    section="7.1.3",
    lines=(3430, 3432),
    statement="An activation map H[:, :, i] keeps the image's spatial layout: shape "
    "(h, w) with 'same' padding, one map per output channel.",
)
def _c7_20() -> str:
    from alice_lab import conv

    X, W = _rng(13).standard_normal((10, 12, 3)), _rng(14).standard_normal((3, 3, 3, 5))
    H = conv.conv2d(X, W, padding="same")
    ref = _torch_conv2d(X, W, padding=1)  # (10, 12, 5), channels last
    maps = [H[:, :, i] for i in range(5)]
    assert all(m.shape == (10, 12) for m in maps)
    # map i is the image filtered by kernel i alone, pixel for pixel
    err = max(_maxerr(maps[i], ref[:, :, i]) for i in range(5))
    assert err < 1e-12, err
    return f"5 maps of shape (10, 12), each = torch's map for its filter ({err:.0e})"


@claim(
    "C7-39",
    section="7.1.3",
    lines=(3420, 3420),
    statement="Read with signal processing's conventions, the layer is a discrete "
    "convolution apart from a sign change of the kernel's index (a cross-correlation): "
    "it equals scipy's correlate2d, and convolve2d once the kernel is flipped; with "
    "the kernel unflipped the two differ for an asymmetric kernel such as Sobel-x.",
)
def _c7_39() -> str:
    import scipy.signal

    from alice_lab import conv

    X, S = _rng(16).standard_normal((9, 9)), conv.FILTERS["sobel x"]
    H = conv.conv2d(X[..., None], S[:, :, None, None], padding="same")[..., 0]
    assert _maxerr(H, scipy.signal.correlate2d(X, S, "same")) < 1e-12
    assert _maxerr(H, scipy.signal.convolve2d(X, S[::-1, ::-1], "same")) < 1e-12
    gap = _maxerr(H, scipy.signal.convolve2d(X, S, "same"))
    assert gap > 1.0, gap
    return (
        f"= scipy correlate2d = convolve2d with the flipped kernel; unflipped "
        f"convolve2d differs by {gap:.1f}"
    )


@claim(
    "C7-40",
    section="7.1.3",
    lines=(3338, 3346),
    statement="The same content at pixels (5, 2) and (39, 81) gives the same output "
    "under weight sharing (F.conv2d), and different outputs under a locally-connected "
    "layer whose matrices W_{5,2} and W_{39,81} differ.",
)
def _c7_40() -> str:
    from alice_lab import conv

    r = _rng(33)
    X = np.zeros((42, 84, 2))
    content = r.standard_normal((3, 3, 2))
    spots = [(4, 1), (38, 80)]  # the book's (5, 2) and (39, 81), 0-based centres
    for i, j in spots:
        X[i - 1 : i + 2, j - 1 : j + 2] = content
    W = r.standard_normal((3, 3, 2, 4))
    ref = _torch_conv2d(X, W, padding=1)
    assert _maxerr(ref[spots[0]], ref[spots[1]]) < 1e-12
    assert _maxerr(conv.conv2d(X, W, padding=1), ref) < 1e-12
    # locally connected: a different (c', s²c) matrix at each of the two pixels
    W52, W3981 = r.standard_normal((2, 4, 18))
    patch = content.reshape(-1)
    gap = _maxerr(W52 @ patch, W3981 @ patch)
    assert gap > 1e-2, gap
    return (
        f"F.conv2d: equal outputs at (5, 2) and (39, 81); locally connected: "
        f"|Δ| = {gap:.2f}"
    )


# --- errata -------------------------------------------------------------------------


@claim(
    "E7-01",
    section="7.1.3",
    lines=(3376, 3376),
    statement="The object-oriented convolution of PyTorch is torch.nn.Conv2d "
    "(lower-case d).",
    erratum="torch.nn.Conv2D",
)
def _e7_01() -> str:
    import torch

    assert hasattr(torch.nn, "Conv2d") and not hasattr(torch.nn, "Conv2D")
    m = torch.nn.Conv2d(3, 64, 5, padding="same", bias=False)
    assert tuple(m(torch.zeros(1, 3, 8, 8)).shape) == (1, 64, 8, 8)
    return "torch.nn.Conv2d exists, torch.nn.Conv2D does not"


@claim(
    "E7-02",
    section="7.1.3",
    lines=(3390, 3410),
    equation="E.7.7",
    statement=(
        "The shape W ~ (s, s, c, c') and the index W_{i',j',z,d} of E.7.7 "
        "disagree (the index puts the output channel third, an axis of size c):"
        " either the shape is (s, s, c', c), as Chapter 8's (s, c', c) reads "
        "it, or the index is W_{i',j',d,z}; we keep the shape and index W[i', "
        "j', d, z]."
    ),
    erratum="“an equivalent weight tensor W of shape (s,s,c,c′)” (line 3390), "
    "indexed W_{i′,j′,z,d} in E.7.7 (line 3410)",
)
def _e7_02() -> str:
    from alice_lab import conv

    r = _rng(15)
    X, W = r.standard_normal((5, 5, 3)), r.standard_normal((3, 3, 3, 4))
    ref = _torch_conv2d(X, W, padding=1)
    assert _maxerr(conv.conv2d(X, W, padding=1), ref) < 1e-12
    try:
        conv.conv2d(X, np.swapaxes(W, 2, 3), padding=1)  # read as (s, s, c', c)
    except ValueError:
        pass
    else:
        raise AssertionError("a (s, s, c', c) kernel was accepted for c != c'")
    return "(s, s, c, c') with W[i', j', d, z] = torch; the swapped layout is refused"


@claim(
    "E7-05",
    section="7.2.1",
    lines=(3556, 3556),
    statement="VGG (Simonyan & Zisserman, not the cited GoogLeNet paper) keeps 3×3 "
    "filters, i.e. s = 3 and k = 1 in the book's s = 2k + 1; k = 3 would be 7×7.",
    erratum="VGG \\cite{szegedy2015going}, filter size constant (e.g., k = 3)",
)
def _e7_05() -> str:
    import torch

    for k, s in [(1, 3), (3, 7)]:
        m = torch.nn.Conv2d(1, 1, 2 * k + 1, padding=k)
        assert m.weight.shape[-1] == s and tuple(m(torch.zeros(1, 1, 9, 9)).shape) == (
            1,
            1,
            9,
            9,
        )
    return "k = 1 ↔ 3×3 (VGG), k = 3 ↔ 7×7"
