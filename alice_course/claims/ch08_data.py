"""Checkable claims of Chapter 8, §8.1: 1-D and 3-D data and convolutions (book lines
3686-3734). Checks compare with torch.nn.functional's conv1d / conv3d,
scipy.ndimage and scipy.signal, and plain arithmetic."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._ch08 import conv1d_index_form, torch_conv1d
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 8.1.1 Beyond images
# =====================================================================================


@claim(
    "C8-01",
    section="8.1.1",
    lines=(3692, 3696),
    statement="A time series or an audio clip is a matrix X ~ (t, c) (c = 1 mono, "
    "c = 2 stereo); a video is a rank-4 tensor X ~ (t, h, w, c).",
)
def _c8_01() -> str:
    import torch

    from alice_lab.sequence import num_samples

    t = num_samples(0.5, 8000)
    time = np.arange(t) / 8000
    mono = np.sin(2 * np.pi * 440 * time)[:, None]
    stereo = np.stack([mono[:, 0], 0.5 * mono[:, 0]], axis=1)
    video = _rng(0).random((6, 8, 8, 3))
    assert mono.shape == (4000, 1) and stereo.shape == (4000, 2), stereo.shape
    assert video.shape == (6, 8, 8, 3) and video[0].shape == (8, 8, 3)
    # torch's layers take them as (b, c, t) and (b, c, t, h, w)
    y1 = torch.nn.Conv1d(2, 4, 3)(torch.tensor(stereo.T[None], dtype=torch.float32))
    y3 = torch.nn.Conv3d(3, 4, 3)(
        torch.tensor(video.transpose(3, 0, 1, 2)[None], dtype=torch.float32)
    )
    assert tuple(y1.shape) == (1, 4, 3998) and tuple(y3.shape) == (1, 4, 4, 6, 6)
    return "mono (4000, 1), stereo (4000, 2), video (6, 8, 8, 3)"


@claim(
    "C8-02",
    section="8.1.1",
    lines=3700,
    statement="A sampling rate counts samples per second: EEG at 240 Hz gives 240 "
    "samples a second, a stock price each minute is 1/60 Hz, video about 24 fps.",
)
def _c8_02() -> str:
    from alice_lab.sequence import num_samples

    got = (num_samples(1, 240), num_samples(60, 1 / 60), num_samples(60, 24))
    assert got == (240, 1, 1440), got
    return f"1 s EEG → {got[0]}, 1 min of prices → {got[1]}, 1 min video → {got[2]}"


@claim(
    "C8-03",
    section="8.1.1",
    lines=3702,
    statement="Three minutes of audio at 44.1 kHz hold 180 · 44100 = 7,938,000 "
    "samples, about 8 million.",
)
def _c8_03() -> str:
    from alice_lab.sequence import num_samples

    n = num_samples(3 * 60, 44.1e3)
    assert n == 180 * 44100 == 7_938_000, n
    assert abs(n - 8e6) / 8e6 < 0.01
    return f"{n:,} samples ({n * 4 / 2**20:.1f} MiB in float32)"


@claim(
    "C8-04",
    section="8.1.1",
    lines=3704,
    statement="Time is not symmetric the way image width is: reversing an up-chirp "
    "gives a down-chirp, a different signal (its spectrogram peak falls instead of "
    "rising).",
)
def _c8_04() -> str:
    from scipy.signal import chirp, spectrogram

    fs = 8000
    tt = np.arange(2 * fs) / fs
    x = chirp(tt, f0=200, t1=2, f1=2000)
    slopes = []
    for sig in (x, x[::-1]):
        f, _, S = spectrogram(sig, fs=fs, nperseg=256)
        peak = f[S.argmax(axis=0)]
        slopes.append(np.polyfit(np.arange(len(peak)), peak, 1)[0])
    assert slopes[0] > 0 > slopes[1], slopes
    return (
        f"peak-frequency slope {slopes[0]:+.1f} Hz/frame forward, "
        f"{slopes[1]:+.1f} reversed"
    )


# =====================================================================================
# 8.1.2 1D and 3D convolutional layers
# =====================================================================================


@claim(
    "C8-05",
    section="8.1.2",
    lines=3712,
    statement="The D in Conv1D/2D/3D counts the axes the kernel slides over, not the "
    "channels: weights have 1, 2 or 3 kernel axes plus the two channel axes.",
)
def _c8_05() -> str:
    import torch

    from alice_lab.conv import conv1d, conv2d, conv3d

    shapes = [
        tuple(torch.nn.Conv1d(3, 5, 3).weight.shape),
        tuple(torch.nn.Conv2d(3, 5, 3).weight.shape),
        tuple(torch.nn.Conv3d(3, 5, 3).weight.shape),
    ]
    assert [len(s) - 2 for s in shapes] == [1, 2, 3], shapes
    # the library's kernels: D sliding axes of size 3, then c = 3 in and c′ = 5 out;
    # each of the D axes of a (1, 7, ..., 7, 3) input shrinks by 2, the channels 3 → 5
    r = _rng(5)
    outs = []
    for D, conv in ((1, conv1d), (2, conv2d), (3, conv3d)):
        X, W = r.standard_normal((1, *[7] * D, 3)), r.standard_normal((*[3] * D, 3, 5))
        outs.append(tuple(_np(conv(X, W)).shape))
        try:
            conv(X, r.standard_normal((*[3] * (D + 1), 3, 5)))
        except ValueError:
            pass
        else:
            raise AssertionError(
                f"conv{D}d accepted a kernel with {D + 1} sliding axes"
            )
    assert outs == [(1, 5, 5), (1, 5, 5, 5), (1, 5, 5, 5, 5)], outs
    return f"torch weights {shapes}; alice_lab on 7-wide inputs: {outs}"


@claim(
    "C8-06",
    section="8.1.2",
    lines=(3716, 3720),
    statement="Conv1D as patches (E.8.1): H_i = W vect(P_k(i)) + b with P_k(i) ~ (s, "
    "c), W ~ (c′, sc), b ~ (c′) maps (t, c) to (t, c′); it is local and equivariant "
    "to (circular) shifts.",
    equation="E.8.1",
)
def _c8_06() -> str:
    import torch

    from alice_lab.conv import conv1d

    r = _rng(1)
    t, c, c_out, s = 20, 3, 4, 5
    k = (s - 1) // 2
    X = r.standard_normal((t, c))
    W = r.standard_normal((c_out, s * c))
    b = r.standard_normal(c_out)
    Xp = np.pad(X, ((k, k), (0, 0)))
    H = np.stack([W @ Xp[i : i + s].reshape(-1) + b for i in range(t)])
    W3 = W.reshape(c_out, s, c).transpose(1, 0, 2)  # (s, c', c)
    ref = torch_conv1d(X, W3, b)
    lib = conv1d(X, W3.transpose(0, 2, 1), b, padding="same")  # W (s, c, c')
    err = max(_maxerr(H, ref), _maxerr(lib, ref))
    assert H.shape == (t, c_out) and err < 1e-12, err
    # circular padding: shift in -> shift out
    circ = lambda Z: np.stack(  # noqa: E731
        [
            W @ np.take(Z, range(i - k, i + k + 1), axis=0, mode="wrap").reshape(-1) + b
            for i in range(t)
        ]
    )
    eq = _maxerr(circ(np.roll(X, 3, axis=0)), np.roll(circ(X), 3, axis=0))
    assert eq < 1e-12, eq
    # locality: output 10 has a zero Jacobian outside rows 8..12
    x = torch.tensor(X, requires_grad=True)
    w = torch.tensor(W3.transpose(1, 2, 0))
    y = torch.nn.functional.conv1d(x.T[None], w, padding="same")[0, :, 10].sum()
    (g,) = torch.autograd.grad(y, x)
    support = np.flatnonzero(np.abs(g.numpy()).sum(1)).tolist()
    assert support == list(range(10 - k, 10 + k + 1)), support
    return (
        f"E.8.1 loop = alice_lab's conv1d = torch's ({err:.0e}); shift-equivariant; "
        f"∂H_10/∂X ≠ 0 on rows {support}"
    )


@claim(
    "C8-07",
    section="8.1.2",
    lines=(3728, 3730),
    statement="The index form E.8.3 with W ~ (s, c′, c) equals the patch form E.8.1 "
    "and torch's conv1d with weight W.transpose(1, 2, 0) ~ (c′, c, s).",
    equation="E.8.3",
)
def _c8_07() -> str:
    r = _rng(2)
    X, W3 = r.standard_normal((15, 3)), r.standard_normal((5, 4, 3))
    H = conv1d_index_form(X, W3, lambda i, k: i - k - 1)
    err = _maxerr(H, torch_conv1d(X, W3))
    assert err < 1e-12, err
    return f"t=15, s=5, c=3, c′=4: max |E.8.3 − torch| = {err:.0e}"


@claim(
    "C8-08",
    section="8.1.2",
    lines=(3732, 3734),
    statement="The 3-D convolution adds a sum over a third kernel axis p′: on X ~ (t, "
    "h, w, c) with W ~ (s, s, s, c′, c) it equals torch's conv3d and "
    "scipy.ndimage.correlate channel by channel, and so does alice_lab's conv3d.",
)
def _c8_08() -> str:
    import torch
    from scipy.ndimage import correlate

    from alice_lab.conv import conv3d

    r = _rng(3)
    X, W = r.standard_normal((4, 5, 6, 2)), r.standard_normal((3, 3, 3, 3, 2))
    Xp = np.pad(X, ((1, 1), (1, 1), (1, 1), (0, 0)))
    H = np.zeros((4, 5, 6, 3))
    for p in range(4):
        for i in range(5):
            for j in range(6):
                H[p, i, j] = np.einsum(
                    "abczd,abcd->z", W, Xp[p : p + 3, i : i + 3, j : j + 3]
                )
    ref = (
        torch.nn.functional.conv3d(
            torch.tensor(X.transpose(3, 0, 1, 2)[None]),
            torch.tensor(W.transpose(3, 4, 0, 1, 2)),
            padding=1,
        )[0]
        .numpy()
        .transpose(1, 2, 3, 0)
    )
    sc = np.stack(
        [
            sum(correlate(X[..., d], W[..., z, d], mode="constant") for d in range(2))
            for z in range(3)
        ],
        axis=-1,
    )
    err = max(
        _maxerr(H, ref),
        _maxerr(H, sc),
        _maxerr(conv3d(X, W.transpose(0, 1, 2, 4, 3), padding=1), ref),
    )
    assert err < 1e-12, err
    return (
        f"(4, 5, 6, 2) → (4, 5, 6, 3): loops = torch conv3d = scipy correlate = "
        f"alice_lab conv3d ({err:.0e})"
    )


# =====================================================================================
# Errata in §8.1
# =====================================================================================


@claim(
    "E8-01",
    section="8.1.1",
    lines=3692,
    statement="In a time series X ~ (t, c), row X_i ~ (c) holds the c measurements at "
    "time i (t is the length).",
    erratum="“the c measurements at time t”",
)
def _e8_01() -> str:
    from alice_lab.sequence import make_windows

    series = np.stack([np.arange(10.0), 10 * np.arange(10.0)], axis=1)  # X_i = (i, 10i)
    assert series[7].tolist() == [7.0, 70.0] and series.shape == (10, 2)
    X, _ = make_windows(series, 4)
    assert X[3, 0].tolist() == [3.0, 30.0]
    return "X_7 = (7, 70): the measurements at time i = 7, not at t = 10"


@claim(
    "C8-53",
    section="8.1.1",
    lines=3700,
    statement=(
        "CD audio is sampled at 44.1 kHz = 44.1 × 10³ Hz = 44,100 samples per "
        "second (the book's 44.1e^3 is e-notation, as its own '44.1 kHz' says)."
    ),
)
def _c8_53() -> str:
    rate = 44.1e3
    wrong = 44.1 * np.e**3
    assert rate == 44_100 and abs(wrong - 885.8) < 0.1
    return f"44.1e3 = {rate:,.0f} Hz; 44.1·e³ would be {wrong:.1f} Hz"


@claim(
    "E8-03",
    section="8.1.1",
    lines=3706,
    statement="Split into syllables, “the cat is on the table” is [the, cat, is, on, "
    "the, ta, ble]: seven pieces that join back into the sentence.",
    erratum="[”the”, “cat”, “i”, “s”, “on”, “the”, “ta”, ble”] (splits 'is', misses a "
    "quote)",
)
def _e8_03() -> str:
    pieces = ["the", "cat", "is", "on", "the", "ta", "ble"]
    sentence = "the cat is on the table"
    assert "".join(pieces) == sentence.replace(" ", "") and len(pieces) == 7
    return "7 syllables; the printed list has 8 (it splits “is”)"


@claim(
    "E8-04",
    section="8.1.2",
    lines=3726,
    statement="In E.8.2/E.8.3 the offset is t(i) = i − k − 1 (as E.7.6), so that i′ = "
    "1..2k+1 reaches rows i − k..i + k of X.",
    erratum="t(i) = i + k − 1",
    equation="E.8.3",
)
def _e8_04() -> str:
    r = _rng(4)
    X, W3 = r.standard_normal((12, 2)), r.standard_normal((5, 3, 2))
    ref = torch_conv1d(X, W3)
    good = _maxerr(conv1d_index_form(X, W3, lambda i, k: i - k - 1), ref)
    bad = _maxerr(conv1d_index_form(X, W3, lambda i, k: i + k - 1), ref)
    assert good < 1e-12 < 0.1 < bad, (good, bad)
    return f"t(i)=i−k−1: error {good:.0e}; printed i+k−1: error {bad:.2f}"
