"""Checkable claims of Chapter 9, §9.3.2: batch normalization (training, inference,
running statistics), layer normalization and its variants, RMSNorm (book lines
4669-4835). References: torch.nn / torch.nn.functional and scikit-learn."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng


def _t(x):
    import torch

    return torch.as_tensor(np.asarray(x), dtype=torch.float64)


@claim(
    "C9-41",
    section="9.3.2",
    lines=(4671, 4671),
    statement="Min-max scaling maps each column to [0, 1]; standard scaling to zero "
    "mean and unit variance (as scikit-learn's scalers).",
)
def _c9_41() -> str:
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    from alice_lab.normalization import minmax_scale, standard_scale

    X = _rng(0).normal(3, 2, (50, 4))
    e1 = _maxerr(minmax_scale(X), MinMaxScaler().fit_transform(X))
    e2 = _maxerr(standard_scale(X), StandardScaler().fit_transform(X))
    assert e1 < 1e-12 and e2 < 1e-12, (e1, e2)
    return f"vs sklearn: {e1:.1e}, {e2:.1e}"


@claim(
    "C9-42",
    section="9.3.2",
    lines=(4679, 4683),
    statement="Batch norm normalises with the biased (1/n) variance of E.9.9, as "
    "torch's batch_norm; torch's running_var stores the unbiased n/(n−1) version.",
)
def _c9_42() -> str:
    import torch

    from alice_lab.normalization import batch_norm

    X = _rng(1).normal(2, 3, (8, 5))
    ref = torch.nn.functional.batch_norm(_t(X), None, None, training=True)
    err = _maxerr(batch_norm(X), ref)
    bn = torch.nn.BatchNorm1d(5, momentum=1.0, dtype=torch.float64)
    bn(_t(X))
    e2 = _maxerr(bn.running_var, X.var(0, ddof=1))
    assert err < 1e-12 and e2 < 1e-12 and _maxerr(bn.running_var, X.var(0)) > 0.1
    return f"output vs torch {err:.1e}; running_var = unbiased ({e2:.1e})"


@claim(
    "C9-43",
    section="9.3.2",
    lines=(4691, 4703),
    statement="After normalisation every column has mean 0 and variance σ²/(σ²+ε) "
    "(exactly 1 with ε = 0).",
)
def _c9_43() -> str:
    from alice_lab.normalization import batch_norm

    X = _rng(2).normal(-4, 0.5, (100, 3))
    Y = batch_norm(X, eps=0.0)
    assert np.abs(Y.mean(0)).max() < 1e-12 and np.abs(Y.var(0) - 1).max() < 1e-12
    eps = 0.1
    Z = batch_norm(X, eps=eps)
    err = _maxerr(Z.var(0), X.var(0) / (X.var(0) + eps))
    assert err < 1e-12
    return f"ε = 0: mean {Y.mean(0).max():.0e}, var 1; ε = 0.1: σ²/(σ²+ε) ({err:.0e})"


@claim(
    "C9-44",
    section="9.3.2",
    lines=(4705, 4717),
    statement="The affine step α⊙X′ + β gives column means β "
    "(α = (2, 0.5), β = (1, −1) → means (1, −1)).",
)
def _c9_44() -> str:
    from alice_lab.normalization import batch_norm

    X = _rng(3).normal(5, 3, (500, 2))
    Y = batch_norm(X, np.array([2.0, 0.5]), np.array([1.0, -1.0]), eps=0.0)
    assert _maxerr(Y.mean(0), [1.0, -1.0]) < 1e-12
    return f"means {np.round(Y.mean(0), 12).tolist()}"


@claim(
    "E9-12",
    section="9.3.2",
    lines=(4717, 4717),
    erratum="the resulting matrix has mean βᵢ and variance αᵢ",
    statement="After the affine step column i has variance αᵢ² (standard deviation "
    "|αᵢ|): α = (2, 0.5) gives variances (4, 0.25).",
)
def _e9_12() -> str:
    import torch

    X = _rng(3).normal(5, 3, (500, 2))
    Y = torch.nn.functional.batch_norm(
        _t(X), None, None, _t([2.0, 0.5]), _t([1.0, -1.0]), training=True, eps=1e-12
    )
    var = _np(Y).var(0)
    assert _maxerr(var, [4.0, 0.25]) < 1e-10, var
    return f"torch batch_norm: variances {np.round(var, 12).tolist()}"


@claim(
    "C9-45",
    section="9.3.2",
    lines=(4705, 4709),
    statement="α and β start at 1 and 0, so a fresh layer only standardises.",
)
def _c9_45() -> str:
    import torch

    from alice_lab.normalization import BatchNorm

    ref = torch.nn.BatchNorm1d(4)
    mine = BatchNorm(4)
    assert torch.all(ref.weight == 1) and torch.all(ref.bias == 0)
    assert np.all(mine.gamma == 1) and np.all(mine.beta == 0)
    return "torch BatchNorm1d and alice_lab BatchNorm: weight 1, bias 0"


@claim(
    "C9-46",
    section="9.3.2",
    lines=(4729, 4733),
    statement="A batch-norm layer on c features has 2c trainable parameters; the "
    "running statistics are buffers, not parameters.",
)
def _c9_46() -> str:
    import torch

    bn = torch.nn.BatchNorm1d(7)
    n = sum(p.numel() for p in bn.parameters())
    buffers = {k for k, _ in bn.named_buffers()}
    assert n == 14 and {"running_mean", "running_var", "num_batches_tracked"} == buffers
    return f"{n} parameters; buffers {sorted(buffers)}"


@claim(
    "C9-47",
    section="9.3.2",
    lines=(4733, 4745),
    statement="Batch norm after a linear layer makes its bias redundant: in training "
    "mode BN(XW + b) = BN(XW).",
)
def _c9_47() -> str:
    from alice_lab.normalization import batch_norm

    rng = _rng(4)
    X, W, b = rng.normal(size=(16, 3)), rng.normal(size=(3, 4)), rng.normal(size=4) * 5
    err = _maxerr(batch_norm(X @ W + b), batch_norm(X @ W))
    assert err < 1e-12, err
    return f"|BN(XW+b) − BN(XW)| = {err:.1e}"


@claim(
    "C9-48",
    section="9.3.2",
    lines=(4749, 4759),
    statement="For images, each channel's statistics pool n·h·w values: batch_norm on "
    "(b, h, w, c) equals torch.nn.BatchNorm2d on (b, c, h, w).",
)
def _c9_48() -> str:
    import torch

    from alice_lab.normalization import batch_norm

    X = _rng(5).normal(1, 2, (4, 6, 6, 3))
    bn = torch.nn.BatchNorm2d(3, dtype=torch.float64)
    ref = bn(_t(X).permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
    err = _maxerr(batch_norm(X), ref.detach())
    assert err < 1e-12, err
    return f"vs BatchNorm2d (NCHW): {err:.1e}"


@claim(
    "C9-49",
    section="9.3.2",
    lines=(4761, 4765),
    statement="In training mode an example's output depends on the rest of its "
    "mini-batch; in inference mode it does not.",
)
def _c9_49() -> str:
    import torch

    bn = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    X = _t(_rng(6).normal(size=(8, 3)))
    X2 = X.clone()
    X2[1] += 10.0
    train_change = float((bn(X)[0] - bn(X2)[0]).abs().max().detach())
    bn.eval()
    eval_change = float((bn(X)[0] - bn(X2)[0]).abs().max().detach())
    assert train_change > 0.1 and eval_change == 0.0
    return f"change of example 0: train {train_change:.3f}, eval {eval_change}"


@claim(
    "C9-50",
    section="9.3.2",
    lines=(4767, 4769),
    statement="Option 1: recompute the statistics on the whole training set — with "
    "momentum=None torch keeps the cumulative average, which for equal batches is "
    "the mean over all the data.",
)
def _c9_50() -> str:
    import torch

    from alice_lab.normalization import BatchNorm

    data = _rng(7).normal(3, 2, (64, 4))
    ref = torch.nn.BatchNorm1d(4, momentum=None, dtype=torch.float64)
    mine = BatchNorm(4, momentum=None)
    for batch in np.split(data, 8):
        ref(_t(batch))
        mine(batch)
    err = max(
        _maxerr(ref.running_mean, data.mean(0)),
        _maxerr(mine.running_mean, data.mean(0)),
    )
    assert err < 1e-12, err
    return f"running_mean vs full-data mean: {err:.1e}"


@claim(
    "C9-51",
    section="9.3.2",
    lines=(4771, 4781),
    statement="The running mean is an exponential moving average: from 0 with a "
    "constant batch mean μ it is (1 − λᵗ)μ (λ the weight on the old value); "
    "alice_lab's BatchNorm equals torch's after 5 steps.",
)
def _c9_51() -> str:
    import torch

    from alice_lab.normalization import BatchNorm

    rng = _rng(8)
    ref = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    mine = BatchNorm(3)
    for _ in range(5):
        x = rng.normal(2, 3, (10, 3))
        ref(_t(x))
        mine(x)
    err = max(
        _maxerr(mine.running_mean, ref.running_mean),
        _maxerr(mine.running_var, ref.running_var),
    )
    const = BatchNorm(1)
    for _ in range(5):
        const(np.array([[0.0], [2.0]]))
    closed = (1 - 0.9**5) * 1.0
    assert err < 1e-12 and abs(float(const.running_mean[0]) - closed) < 1e-12
    return f"vs torch {err:.1e}; μ̂₅ = {closed:.5f} = (1 − 0.9⁵)·1"


@claim(
    "E9-13",
    section="9.3.2",
    lines=(4777, 4777),
    erratum="μ̂ ← λμ̂ + (1 − λ)μ with 'λ set to a small value, e.g. λ = 0.01'",
    statement="With this formula λ weighs the old value and must be close to 1 "
    "(0.9-0.99; torch's momentum = 0.1 is λ = 0.9); λ = 0.01 just copies the last "
    "batch.",
)
def _e9_13() -> str:
    import torch

    def ema(lam, steps=5):
        m = 0.0
        for _ in range(steps):
            m = lam * m + (1 - lam) * 1.0
        return m

    assert abs(ema(0.01) - 0.9999999999) < 1e-12 and abs(ema(0.9) - 0.40951) < 1e-12
    bn = torch.nn.BatchNorm1d(1, dtype=torch.float64)  # momentum = 0.1
    for _ in range(5):
        bn(_t([[0.0], [2.0]]))
    assert abs(float(bn.running_mean[0]) - ema(0.9)) < 1e-12
    return (
        f"after 5 steps: λ = 0.01 → {ema(0.01):.10f}, λ = 0.9 → {ema(0.9):.5f} (torch)"
    )


@claim(
    "C9-79",
    section="9.3.2",
    lines=(4729, 4729),
    statement=(
        "Batch norm's ε, the small term against division by zero, matters on a "
        "low-variance feature: it changes the output scale."
    ),
)
def _c9_79() -> str:
    import torch

    X = _t(_rng(9).normal(0, 0.01, (64, 1)))
    s = [
        float(torch.nn.functional.batch_norm(X, None, None, training=True, eps=e).std())
        for e in (1e-5, 1e-3)
    ]
    assert s[0] / s[1] > 2, s
    return f"output std {s[0]:.3f} (ε = 1e-5) vs {s[1]:.3f} (ε = 1e-3)"


@claim(
    "C9-52",
    section="9.3.2",
    lines=(4785, 4787),
    statement="Small mini-batches give noisy statistics (Var of the batch mean = σ²/n) "
    "and a batch of one example is impossible in training mode.",
)
def _c9_52() -> str:
    import torch

    rng = _rng(10)
    v = {n: rng.normal(0, 2, (20000, n)).mean(1).var() for n in (4, 64)}
    ratio = v[4] / v[64]
    assert 12 < ratio < 20, ratio
    try:
        torch.nn.BatchNorm1d(3)(torch.randn(1, 3))
    except ValueError as err:
        assert "more than 1 value per channel" in str(err)
    else:
        raise AssertionError("BatchNorm1d accepted a batch of one")
    return f"Var(μ) n=4 / n=64 = {ratio:.1f} (16 expected); batch of 1 raises"


@claim(
    "C9-53",
    section="9.3.2",
    lines=(4787, 4787),
    statement="Train and inference mode disagree: after a few updates the same batch "
    "gives different outputs in the two modes.",
)
def _c9_53() -> str:
    import torch

    bn = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    X = _t(_rng(11).normal(4, 2, (16, 3)))
    for _ in range(3):
        bn(X)
    gap = float((bn(X) - bn.eval()(X)).abs().max().detach())
    assert gap > 0.1, gap
    return f"max |train − eval| = {gap:.3f}"


@claim(
    "C9-54",
    section="9.3.2",
    lines=(4789, 4797),
    statement="Layer norm standardises each row on its own (so it ignores the rest of "
    "the batch), as torch.nn.functional.layer_norm.",
)
def _c9_54() -> str:
    import torch

    from alice_lab.normalization import layer_norm

    X = _rng(12).normal(3, 2, (6, 10))
    Y = layer_norm(X, eps=0.0)
    ref = torch.nn.functional.layer_norm(_t(X), (10,), eps=0.0)
    X2 = X.copy()
    X2[1:] *= 7
    err = _maxerr(Y, ref)
    assert err < 1e-12 and np.abs(Y.mean(1)).max() < 1e-12
    assert _maxerr(layer_norm(X2, eps=0.0)[0], Y[0]) == 0.0
    return f"vs torch {err:.1e}; row 0 unchanged when the others change"


@claim(
    "E9-14",
    section="9.3.2",
    lines=(4791, 4795),
    erratum="μᵢ = (1/c) Σⱼ X_{ji} (indices swapped)",
    statement="Layer norm's row statistics are μᵢ = (1/c) Σⱼ X_{ij} and "
    "σᵢ² = (1/c) Σⱼ (X_{ij} − μᵢ)²; the printed X_{ji} would be column statistics "
    "(batch norm).",
)
def _e9_14() -> str:
    import torch

    X = _rng(13).normal(size=(4, 6))
    ref = _np(torch.nn.functional.layer_norm(_t(X), (6,), eps=0.0))
    row = (X - X.mean(1, keepdims=True)) / X.std(1, keepdims=True)
    assert _maxerr(ref, row) < 1e-12
    swapped = X.mean(0)  # Σ_j X_{ji} for each i: a column mean, length c = 6
    assert swapped.shape == (6,) and X.mean(1).shape == (4,)
    return "torch layer_norm = row statistics Σⱼ X_ij; X_ji gives c column means"


@claim(
    "C9-55",
    section="9.3.2",
    lines=(4799, 4811),
    statement="Variants on images: LN over (h, w, c) (variant A) = GroupNorm with one "
    "group; GroupNorm with c groups = InstanceNorm (torch).",
)
def _c9_55() -> str:
    import torch

    from alice_lab.normalization import group_norm, instance_norm, layer_norm

    X = _rng(14).normal(size=(3, 5, 5, 4))
    Xt = _t(X).permute(0, 3, 1, 2)
    F = torch.nn.functional
    back = lambda y: _np(y.permute(0, 2, 3, 1))
    errs = [
        _maxerr(layer_norm(X, axes=(1, 2, 3)), back(F.layer_norm(Xt, (4, 5, 5)))),
        _maxerr(group_norm(X, 1), back(F.group_norm(Xt, 1))),
        _maxerr(group_norm(X, 2), back(F.group_norm(Xt, 2))),
        _maxerr(instance_norm(X), back(F.instance_norm(Xt))),
        _maxerr(group_norm(X, 4), back(F.instance_norm(Xt))),
    ]
    assert max(errs) < 1e-12, errs
    return f"max difference vs torch {max(errs):.1e}"


@claim(
    "C9-56",
    section="9.3.2",
    lines=(4813, 4821),
    statement="nn.LayerNorm(normalized_shape=[3, 32, 32]) has elementwise α and β of "
    "shape (3, 32, 32): 2·3·32·32 = 6144 parameters.",
)
def _c9_56() -> str:
    import torch

    ln = torch.nn.LayerNorm([3, 32, 32])
    n = sum(p.numel() for p in ln.parameters())
    assert n == 6144 and tuple(ln.weight.shape) == (3, 32, 32)
    return f"{n} parameters"


@claim(
    "C9-57",
    section="9.3.2",
    lines=(4823, 4835),
    equation="E.9.12",
    statement="RMSNorm divides by the root mean square, so (with α = 1) its output has "
    "unit RMS; it equals torch.nn.RMSNorm.",
)
def _c9_57() -> str:
    import torch

    from alice_lab.normalization import rms_norm

    X = _rng(15).normal(2, 3, (5, 8))
    g = np.linspace(0.5, 1.5, 8)
    ref = torch.nn.functional.rms_norm(_t(X), (8,), _t(g), eps=1e-6)
    err = _maxerr(rms_norm(X, g), ref)
    rms = np.sqrt((rms_norm(X, eps=0.0) ** 2).mean(1))
    assert err < 1e-12 and np.abs(rms - 1).max() < 1e-12
    return f"vs torch {err:.1e}; RMS of the output = 1"


@claim(
    "C9-58",
    section="9.3.2",
    lines=(4835, 4835),
    statement="On zero-mean inputs with β = 0, layer norm and RMSNorm coincide.",
)
def _c9_58() -> str:
    import torch

    X = _rng(16).normal(size=(4, 9))
    X = X - X.mean(1, keepdims=True)
    F = torch.nn.functional
    err = _maxerr(
        F.layer_norm(_t(X), (9,), eps=1e-6), F.rms_norm(_t(X), (9,), eps=1e-6)
    )
    assert err < 1e-12, err
    return f"|LN − RMSNorm| = {err:.1e} (torch)"
