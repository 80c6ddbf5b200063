"""Checkable claims of Chapter 7, §7.2 and "From theory to practice" (book lines
3434-3682): receptive fields, stacking, pooling, blocks, strides, invariance, the
complete CNN, 1×1 / depthwise / separable convolutions, unfold and FFT convolution.
References: torch.nn / torch.nn.functional, scipy.signal, NumPy."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng
from alice_course.claims.ch07_layers import _torch_conv2d


def _torch_cnn(
    blocks: int, base: int, pooling: str, resolution: int = 32, classes: int = 10
):
    """A VGG-like CNN in torch.nn: blocks of (conv3×3-ReLU)×2 + max-pool, channels
    doubling between blocks, then global average pooling (or flattening) and a linear
    head."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    layers, c = [], 3
    for i in range(blocks):
        c_out = base * 2**i
        layers += [
            nn.Conv2d(c, c_out, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(c_out, c_out, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]
        c = c_out
    backbone = nn.Sequential(*layers)
    if pooling == "avg":
        head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes)
        )
    else:
        side = resolution // 2**blocks
        head = nn.Sequential(nn.Flatten(), nn.Linear(c * side * side, classes))
    return nn.Sequential(backbone, head).double()


@claim(
    "C7-21",
    section="7.2.1",
    lines=(3440, 3452),
    statement="The receptive field grows linearly with depth: L stacked s×s "
    "convolutions "
    "see L(s-1)+1 pixels per side (3, 5, 7, 9, 11 for s = 3), measured as the support "
    "of the gradient of one output pixel.",
)
def _c7_21() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab import conv

    sides = []
    for L in range(1, 6):
        X = torch.ones((1, 1, 25, 25), dtype=torch.float64, requires_grad=True)
        H = X
        for _ in range(L):
            H = F.conv2d(H, torch.ones((1, 1, 3, 3), dtype=torch.float64), padding=1)
        H[0, 0, 12, 12].backward()
        rows = np.nonzero(X.grad[0, 0].numpy().any(1))[0]
        sides.append(int(rows.max() - rows.min() + 1))
        assert sides[-1] == conv.receptive_field([3] * L) == 2 * L + 1
    return f"gradient support sides {sides}"


@claim(
    "C7-22",
    section="7.2.1",
    lines=(3454, 3472),
    equation="E.7.8",
    statement="Two stacked convolutions without an activation collapse into one "
    "convolution with a (2s-1)×(2s-1) kernel (exact with 'valid' padding).",
)
def _c7_22() -> str:
    import scipy.signal

    from alice_lab import conv

    r = _rng(20)
    X, K1, K2 = (
        r.standard_normal((12, 12)),
        r.standard_normal((3, 3)),
        r.standard_normal((3, 3)),
    )
    two = conv.conv2d(
        conv.conv2d(X[..., None], K1[:, :, None, None]), K2[:, :, None, None]
    )[..., 0]
    K = scipy.signal.convolve2d(K1, K2, "full")
    one = scipy.signal.correlate2d(X, K, "valid")
    err = _maxerr(two, one)
    assert K.shape == (5, 5) and err < 1e-12, err
    return f"composed kernel {K.shape}; |Δ| = {err:.0e}"


@claim(
    "C7-23",
    section="7.2.1",
    lines=(3482, 3490),
    statement="Global sum and max pooling after a (circular) convolution are invariant "
    "to translations of the input.",
)
def _c7_23() -> str:
    from alice_lab import conv

    r = _rng(21)
    X, W = r.standard_normal((1, 10, 10, 2)), r.standard_normal((3, 3, 2, 4))
    f = lambda A: _torch_conv2d(
        np.pad(A, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="wrap"), W
    )  # noqa: E731
    S = np.roll(X, (4, -3), (1, 2))
    for pool in (conv.global_sum_pool, conv.global_max_pool, conv.global_avg_pool):
        assert _maxerr(pool(f(S)), pool(f(X))) < 1e-12
    assert _maxerr(f(S), f(X)) > 1e-2
    return "sum/max/avg pooled outputs equal to 1e-12 under a (4, -3) shift"


@claim(
    "C7-24",
    section="7.2.1",
    lines=(3492, 3496),
    statement="Global pooling destroys all spatial information: any permutation of the "
    "pixels gives the same pooled vector.",
)
def _c7_24() -> str:
    from alice_lab import conv

    X = _rng(22).standard_normal((6, 6, 3))
    perm = _rng(23).permutation(36)
    Y = X.reshape(36, 3)[perm].reshape(6, 6, 3)
    for pool in (conv.global_sum_pool, conv.global_max_pool):
        assert _maxerr(pool(Y), pool(X)) < 1e-12
        assert (
            _maxerr(
                pool(Y),
                X.reshape(36, 3).sum(0)
                if pool is conv.global_sum_pool
                else X.max((0, 1)),
            )
            < 1e-12
        )
    return "pooled vectors unchanged by a random pixel permutation"


@claim(
    "C7-25",
    section="7.2.1",
    lines=(3498, 3528),
    statement="2×2 max-pooling maps (h, w, c) to (h/2, w/2, c), each channel on its "
    "own; "
    "it equals F.max_pool2d (Figure: a (4, 4, 1) image becomes (2, 2, 1)).",
    equation="Figure F.7.2",
)
def _c7_25() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab import conv

    X = np.array([[1, 3, 2, 0], [4, 2, 1, 5], [0, 1, 7, 2], [6, 2, 3, 1]], float)[
        ..., None
    ]
    P = conv.max_pool2d(X)
    assert P.shape == (2, 2, 1) and P[..., 0].tolist() == [[4, 5], [6, 7]]
    Y = _rng(24).standard_normal((2, 8, 6, 3))
    ref = (
        F.max_pool2d(torch.as_tensor(Y).permute(0, 3, 1, 2), 2)
        .permute(0, 2, 3, 1)
        .numpy()
    )
    assert _maxerr(conv.max_pool2d(Y), ref) < 1e-15
    assert (
        _maxerr(conv.max_pool2d(Y)[..., 1], conv.max_pool2d(Y[..., 1:2])[..., 0]) == 0
    )
    return "[[4, 5], [6, 7]] on the 4×4 example; = F.max_pool2d; per channel"


@claim(
    "C7-26",
    section="7.2.1",
    lines=(3530, 3538),
    statement="A ConvBlock (convolutions, activations, then max-pooling) halves the "
    "spatial resolution: (h, w, c) → (h/2, w/2, c').",
)
def _c7_26() -> str:
    import torch
    from torch import nn

    from alice_lab import conv

    torch.manual_seed(0)
    block = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)
    ).double()
    X = _rng(25).standard_normal((2, 16, 12, 3))
    ref = (
        block(torch.as_tensor(X).permute(0, 3, 1, 2))
        .permute(0, 2, 3, 1)
        .detach()
        .numpy()
    )
    W = conv.from_torch_weight(block[0].weight).detach().numpy()
    ours = conv.max_pool2d(
        np.maximum(conv.conv2d(X, W, block[0].bias.detach().numpy(), padding="same"), 0)
    )
    assert ours.shape == (2, 8, 6, 8) and _maxerr(ours, ref) < 1e-12
    return "(2, 16, 12, 3) → (2, 8, 6, 8), = torch.nn block"


@claim(
    "C7-27",
    section="7.2.1",
    lines=(3546, 3556),
    equation="E.7.9",
    statement="VGG-style design: the same 3×3 kernel everywhere, channels constant "
    "within a block and doubled between blocks (16, 16, 32, 32, 64, 64).",
)
def _c7_27() -> str:
    import torch

    net = _torch_cnn(3, 16, "avg")
    chans = [m.out_channels for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    ks = {m.kernel_size for m in net.modules() if isinstance(m, torch.nn.Conv2d)}
    assert chans == [16, 16, 32, 32, 64, 64] and ks == {(3, 3)}
    return f"channels {chans}, kernels {ks}"


@claim(
    "C7-28",
    section="7.2.1",
    lines=(3558, 3558),
    statement="A convolution with stride 2 computes one output pixel every 2: it "
    "equals "
    "the stride-1 output sub-sampled [::2, ::2].",
)
def _c7_28() -> str:
    from alice_lab import conv

    r = _rng(26)
    X, W = r.standard_normal((9, 10, 2)), r.standard_normal((3, 3, 2, 3))
    s2 = conv.conv2d(X, W, stride=2, padding=1)
    assert _maxerr(s2, conv.conv2d(X, W, padding=1)[::2, ::2]) < 1e-12
    assert _maxerr(s2, _torch_conv2d(X, W, stride=2, padding=1)) < 1e-12
    return f"stride 2 output {s2.shape} = stride-1 output [::2, ::2] = torch"


@claim(
    "C7-29",
    section="7.2.1",
    lines=(3562, 3566),
    statement="f is equivariant if f(Tx) = T f(x) and invariant if f(Tx) = f(x); "
    "averaging "
    "any f over a group (here {identity, horizontal flip}) makes it exactly invariant.",
)
def _c7_29() -> str:
    r = _rng(27)
    W1, W2 = r.standard_normal((5 * 6, 16)), r.standard_normal((16, 1))
    mlp = lambda x: np.tanh(x.reshape(len(x), -1) @ W1) @ W2  # noqa: E731
    flip = lambda x: x[:, :, ::-1]  # noqa: E731
    avg = lambda x: (mlp(x) + mlp(flip(x))) / 2  # noqa: E731
    X = r.standard_normal((4, 5, 6))
    gap = _maxerr(mlp(flip(X)), mlp(X))
    assert gap > 1e-2 and _maxerr(avg(flip(X)), avg(X)) < 1e-14
    return f"plain MLP changes by {gap:.2f} under a flip; the group average by 0"


@claim(
    "C7-30",
    section="7.2.2",
    lines=(3582, 3596),
    equation="E.7.10-E.7.12",
    statement="The output resolution depends only on the number of max-pools (32×32 "
    "with "
    "3 blocks → 4×4), the channels only on the last convolution; global average "
    "pooling is the mean over positions, giving a (c') vector.",
)
def _c7_30() -> str:
    import torch

    from alice_lab import conv

    net = _torch_cnn(3, 8, "avg")
    X = torch.as_tensor(_rng(28).standard_normal((2, 3, 32, 32)))
    H = net[0](X)
    assert tuple(H.shape) == (2, 32, 4, 4)
    Hl = conv.from_torch_layout(H).detach().numpy()
    gap = net[1][0](H).flatten(1).detach().numpy()
    assert (
        _maxerr(conv.global_avg_pool(Hl), gap) < 1e-12
        and _maxerr(gap, Hl.mean((1, 2))) < 1e-12
    )
    return (
        "backbone (2, 32, 32, 3) → (2, 4, 4, 32); GAP = nn.AdaptiveAvgPool2d(1) = mean"
    )


@claim(
    "C7-31",
    section="7.2.2",
    lines=(3598, 3624),
    statement="With global pooling the CNN accepts any resolution (10 logits for 32×32 "
    "and 48×48 inputs); with flattening instead its head is tied to one resolution.",
    equation="Figure F.7.4",
)
def _c7_31() -> str:
    import torch

    avg, flat = _torch_cnn(2, 8, "avg"), _torch_cnn(2, 8, "flatten", resolution=32)
    for n in (32, 48):
        assert tuple(avg(torch.zeros(1, 3, n, n, dtype=torch.float64)).shape) == (1, 10)
    assert tuple(flat(torch.zeros(1, 3, 32, 32, dtype=torch.float64)).shape) == (1, 10)
    try:
        flat(torch.zeros(1, 3, 48, 48, dtype=torch.float64))
    except RuntimeError:
        pass
    else:
        raise AssertionError("the flattening CNN accepted a 48×48 input")
    return "GAP: (1, 10) at 32 and 48; flatten: shape error at 48"


@claim(
    "C7-32",
    section="7.2.2",
    lines=(3614, 3618),
    statement="A CNN trains like the earlier models: softmax cross-entropy and "
    "back-propagation bring the loss down on the 8×8 digits.",
)
def _c7_32() -> str:
    import torch
    from sklearn.datasets import load_digits
    from torch import nn

    X, y = load_digits(return_X_y=True)
    X = torch.as_tensor(X[:256] / 16.0, dtype=torch.float32).reshape(-1, 1, 8, 8)
    y = torch.as_tensor(y[:256])
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(256, 10),
    )
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(25):
        loss = nn.functional.cross_entropy(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    assert losses[-1] < 0.5 * losses[0], (losses[0], losses[-1])
    return f"loss {losses[0]:.2f} → {losses[-1]:.2f} in 25 full-batch Adam steps"


@claim(
    "C7-33",
    section="7.2.2",
    lines=(3630, 3642),
    statement="A 1×1 convolution is a fully-connected layer applied to every pixel on "
    "its own: H_ijz = Σ_t W_zt X_ijt.",
)
def _c7_33() -> str:
    from alice_lab import conv

    r = _rng(29)
    X, W = r.standard_normal((5, 6, 4)), r.standard_normal((4, 7))
    a = conv.conv1x1(X, W)
    assert _maxerr(a, np.einsum("hwc,cz->hwz", X, W)) < 1e-12
    assert _maxerr(a, _torch_conv2d(X, W[None, None])) < 1e-12
    return "= einsum = F.conv2d with a (7, 4, 1, 1) weight"


@claim(
    "C7-34",
    section="7.2.2",
    lines=(3644, 3656),
    statement="A depthwise convolution (W ~ (s, s, c)) maps each channel on its own: "
    "it "
    "is groupwise with groups = c, and its Jacobian is block-diagonal over channels.",
)
def _c7_34() -> str:
    import torch
    import torch.nn.functional as F

    from alice_lab import conv

    r = _rng(30)
    X, W = r.standard_normal((6, 6, 3)), r.standard_normal((3, 3, 3))
    ref = F.conv2d(
        torch.as_tensor(X).permute(2, 0, 1)[None],
        torch.as_tensor(W).permute(2, 0, 1)[:, None],
        padding=1,
        groups=3,
    )
    assert _maxerr(conv.depthwise_conv2d(X, W), ref[0].permute(1, 2, 0).numpy()) < 1e-12
    J = torch.autograd.functional.jacobian(
        lambda x: conv.depthwise_conv2d(x, torch.as_tensor(W)), torch.as_tensor(X)
    ).numpy()  # (6, 6, 3, 6, 6, 3)
    cross = np.abs(J).sum((0, 1, 3, 4))
    assert np.all(cross[~np.eye(3, dtype=bool)] == 0) and np.all(np.diag(cross) > 0)
    return "= F.conv2d(groups=3); channel-to-channel Jacobian diagonal"


@claim(
    "C7-35",
    section="7.2.2",
    lines=(3656, 3656),
    statement="Groupwise convolution sits between the two: groups = 1 is the standard "
    "convolution, groups = c the depthwise one (group size 1).",
)
def _c7_35() -> str:
    from alice_lab import conv

    r = _rng(31)
    X = r.standard_normal((5, 5, 4))
    W = r.standard_normal((3, 3, 2, 6))
    assert (
        _maxerr(
            conv.conv2d(X, W, padding=1, groups=2),
            _torch_conv2d(X, W, padding=1, groups=2),
        )
        < 1e-12
    )
    W1 = r.standard_normal((3, 3, 4, 6))
    assert (
        _maxerr(
            conv.conv2d(X, W1, padding=1, groups=1), _torch_conv2d(X, W1, padding=1)
        )
        < 1e-12
    )
    return "groups 1, 2 = torch"


@claim(
    "C7-36",
    section="7.2.2",
    lines=(3658, 3658),
    statement="A depthwise-separable convolution has s²c + cc' weights instead of "
    "s²cc': "
    "4672 vs 36864 for s = 3, c = c' = 64.",
)
def _c7_36() -> str:
    from torch import nn

    from alice_lab import conv

    dw = nn.Conv2d(64, 64, 3, groups=64, bias=False)
    pw = nn.Conv2d(64, 64, 1, bias=False)
    full = nn.Conv2d(64, 64, 3, bias=False)
    n_sep = sum(p.numel() for m in (dw, pw) for p in m.parameters())
    n_full = sum(p.numel() for p in full.parameters())
    assert n_sep == conv.separable_params(64, 64, 3) == 4672 and n_full == 36864
    return f"{n_sep} vs {n_full} (ratio {n_full / n_sep:.1f})"


@claim(
    "C7-37",
    section="7.2.2",
    lines=(3674, 3676),
    statement="A convolution from scratch with unfold (patches) and one matrix product "
    "equals the library's F.conv2d.",
)
def _c7_37() -> str:
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(0)
    X = torch.randn(2, 3, 9, 8, generator=g, dtype=torch.float64)
    W = torch.randn(5, 3, 3, 3, generator=g, dtype=torch.float64)
    U = F.unfold(X, 3, padding=1)  # (b, c·s·s, L)
    H = (W.reshape(5, -1) @ U).reshape(2, 5, 9, 8)
    err = float((H - F.conv2d(X, W, padding=1)).abs().max())
    assert err < 1e-12, err
    from alice_lab import conv

    P = conv.patches(conv.from_torch_layout(X).numpy(), 3, padding=1)
    ours = P.reshape(2, 9, 8, -1) @ conv.from_torch_weight(W).numpy().reshape(-1, 5)
    assert _maxerr(ours, conv.from_torch_layout(H).numpy()) < 1e-12
    return f"unfold @ W = F.conv2d (|Δ| = {err:.0e}); our channels-last patches too"


@claim(
    "C7-38",
    section="7.2.2",
    lines=(3678, 3682),
    statement="Convolution is a product in the frequency domain: FFT convolution with "
    "zero-padding to n + s - 1 equals np.convolve, and the layer's cross-correlation "
    "equals its FFT version.",
)
def _c7_38() -> str:
    from alice_lab import conv

    r = _rng(32)
    x, w = r.standard_normal(200), r.standard_normal(31)
    n = len(x) + len(w) - 1
    full = np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(w, n), n)
    assert _maxerr(full, np.convolve(x, w, "full")) < 1e-10
    X, W = r.standard_normal((2, 64, 3)), r.standard_normal((15, 3, 2))
    ref = np.stack(  # the layer's cross-correlation, one np.correlate per channel pair
        [
            np.stack(
                [
                    sum(
                        np.correlate(np.pad(X[i, :, c], 7), W[:, c, z], "valid")
                        for c in range(3)
                    )
                    for z in range(2)
                ],
                axis=-1,
            )
            for i in range(2)
        ]
    )
    err = _maxerr(conv.fft_conv1d(X, W, padding=7), ref)
    assert err < 1e-10, err
    return f"FFT = np.convolve; fft_conv1d = np.correlate per channel (|Δ| = {err:.0e})"
