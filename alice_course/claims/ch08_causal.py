"""Checkable claims of Chapter 8, §8.3: forecasting and causal models (book lines
3960-4162). Checks compare alice_lab.sequence and alice_lab.conv with NumPy's sliding
windows, least squares, closed-form sines, and torch conv1d / autograd Jacobians."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._ch08 import (
    conv_stack_support,
    linear_map_matrix,
    torch_conv1d,
)
from alice_course.claims._helpers import _maxerr, _np, _rng


def _causal(W3, b=None, d=1):
    """A causal conv layer (left padding), channels-last, as a NumPy function."""
    s = W3.shape[0]
    return lambda X: torch_conv1d(X, W3, b, padding=0, dilation=d, left=(s - 1) * d)


def _causal_net(seed=0, c=1, hidden=4):
    """Two causal conv layers with a tanh between: (t, c) -> (t, c)."""
    r = _rng(seed)
    W1, b1 = r.standard_normal((3, hidden, c)), r.standard_normal(hidden)
    W2, b2 = r.standard_normal((2, c, hidden)), r.standard_normal(c)
    f1, f2 = _causal(W1, b1), _causal(W2, b2, d=2)
    return lambda X: f2(np.tanh(f1(X)))


# =====================================================================================
# 8.3.1 Forecasting sequences
# =====================================================================================


@claim(
    "C8-27",
    section="8.3.1",
    lines=(3974, 3980),
    statement="A series of length T gives T − t pairs (X, y): every window X ~ (t, c) "
    "with the next element y ~ (c) as its target.",
)
def _c8_27() -> str:
    from alice_lab.sequence import make_windows

    s = _rng(27).standard_normal((100, 2))
    X, y = make_windows(s, 12)
    ref = np.lib.stride_tricks.sliding_window_view(s, 12, axis=0)[:-1]
    assert X.shape == (88, 12, 2) and np.array_equal(X, ref.transpose(0, 2, 1))
    assert np.array_equal(y, s[12:])
    return "T = 100, t = 12 → X (88, 12, 2), y (88, 2), y[i] = series[i + 12]"


@claim(
    "C8-28",
    section="8.3.1",
    lines=(3986, 4012),
    statement="A one-step forecaster run autoregressively (drop the oldest value, "
    "append the prediction: a FIFO buffer) predicts as far as we like; a linear AR(2) "
    "model fitted by least squares on a sine recovers x_{n+1} = 2cos(ω)x_n − x_{n−1} "
    "and its roll-out follows the sine.",
    equation="E.8.5",
)
def _c8_28() -> str:
    from alice_lab.sequence import autoregressive_rollout, make_windows

    w = 0.3
    s = np.sin(w * np.arange(300))
    X, y = make_windows(s, 2)
    coef = np.linalg.lstsq(X[:, :, 0], y[:, 0], rcond=None)[0]
    err_c = _maxerr(coef, [-1.0, 2 * np.cos(w)])
    roll = autoregressive_rollout(lambda buf: buf[:, 0] @ coef, s[-2:], 100)
    err_r = _maxerr(roll[:, 0], np.sin(w * np.arange(300, 400)))
    assert err_c < 1e-8 and err_r < 1e-6, (err_c, err_r)
    return f"coefficients off by {err_c:.0e}; 100-step roll-out off by {err_r:.0e}"


@claim(
    "C8-29",
    section="8.3.2",
    lines=4018,
    statement="A non-causal model reads left zero-padding as data: padding a short "
    "window at the start changes its prediction when the pad values change.",
)
def _c8_29() -> str:
    r = _rng(29)
    w = r.standard_normal(6)  # a linear forecaster over a window of 6
    x = r.standard_normal(4)
    p0 = w @ np.concatenate([np.zeros(2), x])
    p1 = w @ np.concatenate([np.ones(2), x])
    assert abs(p0 - p1) > 1e-3
    return f"prediction {p0:.3f} with zero pad, {p1:.3f} with ones"


@claim(
    "C8-30",
    section="8.3.2",
    lines=(4020, 4024),
    statement="A causal layer's output H_i depends only on X_{:i}: the Jacobian ∂H/∂X "
    "is (block) lower-triangular, and changing X_6 leaves H_{:6} unchanged.",
)
def _c8_30() -> str:
    import torch
    import torch.nn.functional as F

    r = _rng(30)
    w = torch.tensor(r.standard_normal((1, 1, 3)))

    def f(x):  # x (t,)
        return F.conv1d(F.pad(x[None, None], (2, 0)), w)[0, 0]

    x = torch.tensor(r.standard_normal(10))
    J = torch.autograd.functional.jacobian(f, x).numpy()
    assert np.allclose(J, np.tril(J)) and np.abs(np.diag(J)).min() > 0
    x2 = x.clone()
    x2[6] += 1.0
    d = (f(x2) - f(x)).abs().numpy()
    assert d[:6].max() == 0 and d[6] > 0
    return "∂H/∂X is lower-triangular (10 × 10); perturbing X_6 moves H_6.. only"


@claim(
    "C8-31",
    section="8.3.2",
    lines=4026,
    statement="A kernel of size 1 is causal; a centred kernel of size 3 is not.",
)
def _c8_31() -> str:
    from alice_lab.sequence import is_causal

    r = _rng(31)
    X = r.standard_normal((8, 2))
    W1 = r.standard_normal((1, 3, 2))
    k1 = is_causal(lambda Z: torch_conv1d(Z, W1), X)
    W3 = r.standard_normal((3, 3, 2))
    k3 = is_causal(lambda Z: torch_conv1d(Z, W3), X)
    assert k1 and not k3
    return "s = 1: causal; s = 3 ('same'): not causal"


@claim(
    "C8-32",
    section="8.3.2",
    lines=(4030, 4038),
    statement="Masking the future taps, W ⊙ M, makes a convolution causal; it equals "
    "left-padding by k and a 'valid' convolution with the k + 1 past taps.",
)
def _c8_32() -> str:
    from alice_lab.sequence import is_causal

    r = _rng(32)
    s, k = 5, 2
    X, W3 = r.standard_normal((12, 2)), r.standard_normal((s, 3, 2))
    M = (np.arange(s) <= k).astype(float)[:, None, None]  # taps at i' > i are zeroed
    masked = torch_conv1d(X, W3 * M)
    padded = torch_conv1d(X, W3[: k + 1], padding=0, left=k)
    err = _maxerr(masked, padded)
    assert err < 1e-12 and is_causal(lambda Z: torch_conv1d(Z, W3 * M), X), err
    return f"masked 'same' conv = left-pad + valid conv with k + 1 = 3 taps ({err:.0e})"


@claim(
    "C8-33",
    section="8.3.2",
    lines=4052,
    statement="With one channel the matrix of a causal convolution is lower-"
    "triangular, and the weights in use drop from (2k + 1)cc′ to (k + 1)cc′.",
)
def _c8_33() -> str:
    from alice_lab.conv import causal_conv1d, conv1d

    r = _rng(33)
    k, t = 2, 9
    # one channel: the (t, t) matrix of alice_lab's causal conv, from basis inputs
    w = r.standard_normal((k + 1, 1, 1))  # (k + 1, c, c′): the past taps and x_i
    T = linear_map_matrix(lambda X: _np(causal_conv1d(X, w)), t, 1)
    T_ref = linear_map_matrix(lambda X: torch_conv1d(X, w, padding=0, left=k), t, 1)
    band = np.tri(t) - np.tri(t, k=-(k + 1))  # j ∈ [i − k, i]
    assert _maxerr(T, T_ref) < 1e-12 and np.array_equal(T != 0, band > 0), T
    # c = 3 → c′ = 4: the causal kernel is the 'same' kernel of size 2k + 1 with its k
    # future taps masked; count the weights each matrix actually uses
    c, c_out = 3, 4
    W = r.standard_normal((2 * k + 1, c, c_out))  # (s, c, c′); tap k multiplies x_i
    A = linear_map_matrix(lambda X: _np(causal_conv1d(X, W[: k + 1])), t, c)
    F = linear_map_matrix(lambda X: _np(conv1d(X, W, padding="same")), t, c)
    W3 = W.transpose(0, 2, 1)  # torch_conv1d's (s, c′, c)
    A_ref = linear_map_matrix(
        lambda X: torch_conv1d(X, W3[: k + 1], padding=0, left=k), t, c
    )
    F_ref = linear_map_matrix(lambda X: torch_conv1d(X, W3), t, c)
    err = max(_maxerr(A, A_ref), _maxerr(F, F_ref))
    future = np.kron(np.triu(np.ones((t, t)), 1), np.ones((c_out, c))) > 0
    assert err < 1e-12 and not A[future].any() and F[future].any(), err
    row = slice(t // 2 * c_out, (t // 2 + 1) * c_out)  # an interior output position
    used = [(int(np.count_nonzero(M[row])), len(np.unique(M[M != 0]))) for M in (F, A)]
    assert used == [((2 * k + 1) * c * c_out,) * 2, ((k + 1) * c * c_out,) * 2], used
    return (
        f"alice_lab causal_conv1d: {t} × {t} matrix lower-triangular, band k + 1 = "
        f"{k + 1} (= torch's); c = 3, c′ = 4: a position uses {used[1][0]} weights "
        f"instead of the 'same' conv's {used[0][0]} ({used[1][1]} vs {used[0][1]} "
        "distinct values in the whole matrix)"
    )


@claim(
    "C8-34",
    section="8.3.2",
    lines=(4038, 4046),
    statement="A causal stack with dilations 1, 2, 4, … sees 1 + k·Σ d_l past steps; "
    "for two taps per layer (k = 1) that is 2^L: 2, 4, 8, 16, 32.",
    equation="Figure F.8.6",
)
def _c8_34() -> str:
    from alice_lab.conv import receptive_field

    def field(s, dils):  # measured on stacked alice_lab causal_conv1d layers
        lo, hi, i = conv_stack_support(s, dils, causal=True)
        assert hi == i, (s, dils, hi, i)  # nothing from the future
        return hi - lo + 1

    dils = [[2**j for j in range(L)] for L in range(1, 6)]
    got = [field(2, d) for d in dils]
    lib = [receptive_field([2] * len(d), dilations=d) for d in dils]
    k3 = field(3, [1, 2, 4])
    assert got == lib == [2**L for L in range(1, 6)], (got, lib)
    assert k3 == 1 + 2 * (1 + 2 + 4) == receptive_field([3] * 3, dilations=[1, 2, 4])
    return (
        f"alice_lab causal_conv1d stacks, gradient support: k = 1: {got} = 2^L = "
        f"alice_lab.conv.receptive_field; k = 2, d = 1, 2, 4: {k3}"
    )


@claim(
    "C8-35",
    section="8.3.2",
    lines=(4054, 4060),
    statement="Without pooling, a causal model keeps the length: (t, c) → (t, c).",
)
def _c8_35() -> str:
    f = _causal_net(35)
    X = _rng(35).standard_normal((17, 1))
    assert f(X).shape == (17, 1)
    return "(17, 1) → (17, 1)"


@claim(
    "C8-36",
    section="8.3.2",
    lines=(4054, 4066),
    statement="A causal model is prefix-consistent: f(X)[:i] = f(X[:i]) for every i.",
)
def _c8_36() -> str:
    f = _causal_net(36)
    X = _rng(36).standard_normal((12, 1))
    full = f(X)
    err = max(_maxerr(full[:i], f(X[:i])) for i in range(1, 13))
    assert err < 1e-12, err
    return f"t = 12, all prefixes: max difference {err:.0e}"


@claim(
    "C8-37",
    section="8.3.2",
    lines=(4066, 4074),
    statement="The targets of a causal forecaster are the inputs shifted by one with "
    "the true next value appended: Y = [X_{2:t}; y].",
)
def _c8_37() -> str:
    from alice_lab.sequence import make_windows, shift_targets

    s = np.arange(20.0)[:, None]
    X, y = make_windows(s, 5)
    Y = shift_targets(X[3], y[3])
    assert np.array_equal(Y, np.vstack([X[3][1:], y[3][None]]))
    assert Y[:, 0].tolist() == [4.0, 5.0, 6.0, 7.0, 8.0]
    return "window 3..7 → targets 4..8"


@claim(
    "C8-38",
    section="8.3.2",
    lines=(4110, 4120),
    statement="The loss of a causal model is a sum of t per-position squared errors "
    "(eq. E.8.6), so every position sends a gradient back.",
    equation="E.8.6",
)
def _c8_38() -> str:
    import torch

    from alice_lab.sequence import sequence_mse

    r = _rng(38)
    Yh, Y = r.standard_normal((6, 2)), r.standard_normal((6, 2))
    loss = sequence_mse(Yh, Y)
    ref = sum(((Yh[i] - Y[i]) ** 2).sum() for i in range(6))
    Yt = torch.tensor(Yh, requires_grad=True)
    sequence_mse(Yt, torch.tensor(Y)).backward()
    nz = int((Yt.grad.abs().sum(1) > 0).sum())
    assert abs(loss - ref) < 1e-12 and nz == 6
    return f"loss {loss:.4f} = Σ of 6 terms; gradient non-zero at {nz}/6 positions"


@claim(
    "C8-39",
    section="8.3.2",
    lines=(4134, 4146),
    statement="With a context of 4 and 2 known values, only output 2 of f([x1, x2, 0, "
    "0]) is usable: it does not depend on what fills the padding, outputs 3-4 do.",
)
def _c8_39() -> str:
    f = _causal_net(39)
    r = _rng(39)
    a = f(np.array([[0.5], [-1.0], [0.0], [0.0]]))
    b = f(np.vstack([[[0.5], [-1.0]], r.standard_normal((2, 1))]))
    assert abs(a[1, 0] - b[1, 0]) < 1e-12 and np.abs(a[2:] - b[2:]).min() > 1e-6
    return f"output 2: {a[1, 0]:.4f} both times; outputs 3-4 change"


@claim(
    "C8-40",
    section="8.3.2",
    lines=(4146, 4160),
    statement="Generation reads position 2 (→ x̂3), 3 (→ x̂4), 4 (→ x̂5); then the "
    "buffer drops x1 (FIFO) and reads position 4 again (→ x̂6).",
)
def _c8_40() -> str:
    from alice_lab.sequence import generate_causal

    f = _causal_net(40)
    gen, log = generate_causal(f, [[0.5], [-1.0]], 4, context=4)
    reads = [r for _, r in log]
    last = log[3][0][:, 0].tolist()
    assert reads == [2, 3, 4, 4] and last == [-1.0, *gen[:3, 0].tolist()]
    step = f(log[3][0])[3]
    assert _maxerr(step, gen[3]) < 1e-12
    return f"read positions {reads}; last buffer [x2, x̂3, x̂4, x̂5]"


@claim(
    "C8-41",
    section="8.3.2",
    lines=4160,
    statement="Teacher forcing trains on real values only: every training input is a "
    "window of the true series, never a model output.",
)
def _c8_41() -> str:
    from alice_lab.sequence import make_windows, shift_targets

    s = _rng(41).standard_normal((30, 1))
    X, y = make_windows(s, 6)
    targets = np.stack([shift_targets(X[i], y[i]) for i in range(len(X))])
    idx = np.arange(len(X))[:, None] + np.arange(6)
    assert np.array_equal(X, s[idx]) and np.array_equal(targets, s[idx + 1])
    return f"{len(X)} windows; all inputs and targets are slices of the series"


@claim(
    "C8-52",
    section="8.3.2",
    lines=4324,
    statement="As the chapter's closing footnote suggests, padding emulates a causal "
    "1-D convolution in PyTorch: (s − 1)·d zeros on the left (F.pad) before an "
    "unpadded conv1d equal the masked-weight definition.",
)
def _c8_52() -> str:
    import torch

    from alice_lab.text.torch_models import CausalConv1d

    r = _rng(48)
    X = r.standard_normal((15, 2))
    layer = CausalConv1d(2, 3, 3, dilation=2).double()
    W3 = layer.conv.weight.detach().numpy().transpose(2, 0, 1)  # (s, c', c)
    b = layer.conv.bias.detach().numpy()
    y = layer(torch.tensor(X.T[None]))[0].detach().numpy().T
    # masked definition: a centred kernel of size 5 whose future taps are zero
    Wm = np.concatenate([W3, np.zeros((2, 3, 2))])
    ref = torch_conv1d(X, Wm, b, dilation=2, padding=4)
    padded = torch_conv1d(X, W3, b, padding=0, dilation=2, left=4)  # F.pad + conv1d
    err = max(_maxerr(y, ref), _maxerr(padded, ref))
    assert err < 1e-12, err
    X2 = X.copy()
    X2[10] += 1.0  # a change at step 10 leaves steps 0..9 alone
    moved = torch_conv1d(X2, W3, b, padding=0, dilation=2, left=4)
    assert _maxerr(moved[:10], padded[:10]) == 0 and _maxerr(moved[10], padded[10]) > 0
    return f"F.pad((s−1)·d, 0) + conv1d = masked conv ({err:.0e}), and it is causal"
