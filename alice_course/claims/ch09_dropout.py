"""Checkable claims of Chapter 9, §9.3.1: dropout, Monte Carlo dropout, inverted
dropout, spatial dropout, cutout and DropConnect (book lines 4505-4667)."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng

BOX_9_3 = """\
x = torch.randn((16, 2), dtype=torch.float64)
model.train()
y = model(x)
model.eval()
y = model(x)
k = 10
model.train()
y = model(x[:, None, :].repeat(1, k, 1)){sep}.mean(1)
"""


def _box_9_2():
    """The model of Box 9.2 (torch's 0.3 is a *drop* probability)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(
        nn.Dropout(0.3), nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.3), nn.Linear(3, 1)
    ).double()


@claim(
    "C9-29",
    section="9.3.1",
    lines=(4527, 4547),
    statement="Dropout masks have Bernoulli(p) entries (p = keep probability); the "
    "layer has no trainable parameters and one hyper-parameter.",
)
def _c9_29() -> str:
    from torch import nn

    from alice_lab.regularization import dropout_mask

    M = dropout_mask((100_000,), 0.7, rng=0)
    assert set(np.unique(M)) == {0.0, 1.0} and abs(M.mean() - 0.7) < 0.01
    assert sum(p.numel() for p in nn.Dropout(0.3).parameters()) == 0
    return f"mask mean {M.mean():.4f} for p = 0.7; nn.Dropout has 0 parameters"


@claim(
    "C9-30",
    section="9.3.1",
    lines=(4549, 4551),
    statement="In training about a fraction 1 − p of the units is zeroed, and two "
    "forward passes on the same input differ.",
)
def _c9_30() -> str:
    import torch

    from alice_lab.regularization import dropout

    out = dropout(np.ones((300, 300)), keep_prob=0.8, rng=1)
    frac = float((out == 0).mean())
    assert abs(frac - 0.2) < 0.01
    model = _box_9_2().train()
    x = torch.randn(16, 2, dtype=torch.float64)
    assert not torch.equal(model(x), model(x))
    return f"zeroed fraction {frac:.4f} for p = 0.8; two train-mode passes differ"


@claim(
    "C9-31",
    section="9.3.1",
    lines=(4513, 4523),
    statement="Each pass picks one of exponentially many sub-networks: with dropout "
    "on 2 inputs and 3 hidden units there are 2⁵ = 32 masks per example.",
)
def _c9_31() -> str:
    from alice_lab.regularization import dropout_mask

    seen = {tuple(dropout_mask((5,), 0.5, rng=s)) for s in range(2000)}
    assert len(seen) == 32 == 2 ** (2 + 3)
    return "2000 draws visit all 32 masks"


@claim(
    "C9-32",
    section="9.3.1",
    lines=(4555, 4585),
    statement="Box 9.2: Dropout, Linear(2, 3), ReLU, Dropout, Linear(3, 1) — five "
    "modules and 9 + 4 = 13 trainable parameters.",
)
def _c9_32() -> str:
    model = _box_9_2()
    n = sum(p.numel() for p in model.parameters())
    assert len(model) == 5 and n == 13, (len(model), n)
    return f"{len(model)} modules, {n} parameters"


@claim(
    "C9-33",
    section="9.3.1",
    lines=(4587, 4589),
    statement="In inference (eval) mode the output is deterministic.",
)
def _c9_33() -> str:
    import torch

    model = _box_9_2().eval()
    x = torch.randn(16, 2, dtype=torch.float64)
    assert torch.equal(model(x), model(x))
    return "two eval-mode passes are identical"


@claim(
    "C9-34",
    section="9.3.1",
    lines=(4597, 4605),
    statement="Monte Carlo dropout averages k stochastic passes; the spread of the "
    "estimate shrinks like 1/√k (k = 10 → 1000: about 10× smaller).",
)
def _c9_34() -> str:
    import torch

    model = _box_9_2().train()
    x = torch.tensor([[1.0, -0.5]], dtype=torch.float64)
    torch.manual_seed(1)
    with torch.no_grad():
        est = {
            k: [float(model(x.repeat(k, 1)).mean()) for _ in range(200)]
            for k in (10, 1000)
        }
    ratio = np.std(est[10]) / np.std(est[1000])
    assert 5 <= ratio <= 20, ratio
    return f"std(k=10) / std(k=1000) = {ratio:.1f} (√100 = 10)"


@claim(
    "C9-35",
    section="9.3.1",
    lines=(4607, 4613),
    statement="Layer by layer, E[Dropout(X)] = pX (without rescaling).",
)
def _c9_35() -> str:
    from alice_lab.regularization import dropout

    X = _rng(0).normal(size=(1, 4))
    draws = dropout(np.repeat(X, 100_000, axis=0), keep_prob=0.6, rng=2, inverted=False)
    err = _maxerr(draws.mean(0), 0.6 * X[0])
    assert err < 0.01, err
    return f"MC mean over 10⁵ masks vs pX: {err:.1e}"


@claim(
    "C9-36",
    section="9.3.1",
    lines=(4615, 4623),
    statement="Inverted dropout divides by p in training (unbiased: E[M⊙X/p] = X) and "
    "is the identity at inference, as torch.nn.Dropout.",
)
def _c9_36() -> str:
    import torch

    from alice_lab.regularization import dropout

    X = np.ones((400, 400))
    mine = dropout(X, drop_prob=0.3, rng=3)
    torch.manual_seed(0)
    layer = torch.nn.Dropout(0.3)
    ref = layer(torch.as_tensor(X)).numpy()
    assert set(np.unique(mine)) == set(np.unique(ref)) == {0.0, 1 / 0.7}
    assert abs(mine.mean() - 1) < 0.01 and abs(ref.mean() - 1) < 0.01
    layer.eval()
    assert torch.equal(layer(torch.as_tensor(X)), torch.as_tensor(X))
    assert np.array_equal(dropout(X, drop_prob=0.3, training=False), X)
    m1, m2 = mine.mean(), ref.mean()
    return f"values {{0, {1 / 0.7:.4f}}} as torch; means {m1:.4f}, {m2:.4f}"


@claim(
    "C9-37",
    section="9.3.1",
    lines=(4607, 4607),
    statement="Replacing the masks by their expectation layer by layer is exact for a "
    "linear network but only an approximation with a ReLU (Jensen's gap).",
)
def _c9_37() -> str:
    from alice_lab.regularization import exact_dropout_expectation

    p = 0.7
    W1 = np.array([[1.0, -2.0, 0.5], [-1.0, 1.0, 2.0]])
    W2 = np.array([1.0, 1.0, 1.0])
    x = np.array([1.0, 1.0])
    gaps = {}
    for name, phi in (("linear", lambda h: h), ("relu", lambda h: np.maximum(h, 0))):
        exact = exact_dropout_expectation(
            lambda m, phi=phi: phi((m[0] * x / p) @ W1) * m[1] / p @ W2, [2, 3], p
        )
        evaluated = phi(x @ W1) @ W2
        gaps[name] = abs(float(exact - evaluated))
    assert gaps["linear"] < 1e-12 and gaps["relu"] > 0.1, gaps
    return f"|exact − eval| linear {gaps['linear']:.1e}, ReLU {gaps['relu']:.3f}"


@claim(
    "C9-38",
    section="9.3.1",
    lines=(4625, 4651),
    statement="Box 9.3's vectorised MC dropout: (16, 2) → repeat (16, 10, 2) → model "
    "(16, 10, 1) → mean over the repeats (16, 1).",
)
def _c9_38() -> str:
    import torch

    model = _box_9_2().train()
    x = torch.randn(16, 2, dtype=torch.float64)
    rep = x[:, None, :].repeat(1, 10, 1)
    out = model(rep)
    assert tuple(rep.shape) == (16, 10, 2) and tuple(out.shape) == (16, 10, 1)
    assert tuple(out.mean(1).shape) == (16, 1)
    return "shapes (16, 2) → (16, 10, 2) → (16, 10, 1) → (16, 1)"


@claim(
    "E9-10",
    section="9.3.1",
    lines=(4647, 4649),
    erratum="`.mean(1)` printed on a line of its own",
    statement="As printed, Box 9.3 is a syntax error; `.mean(1)` continues the "
    "previous line: y = model(x[:, None, :].repeat(1, k, 1)).mean(1).",
)
def _e9_10() -> str:
    import torch

    try:
        compile(BOX_9_3.format(sep="\n" + " " * 22), "box9_3", "exec")
    except SyntaxError:
        pass
    else:
        raise AssertionError("the printed Box 9.3 compiles")
    scope = {"torch": torch, "model": _box_9_2()}
    exec(compile(BOX_9_3.format(sep=""), "box9_3", "exec"), scope)
    assert tuple(scope["y"].shape) == (16, 1)
    return "printed: SyntaxError; joined: y has shape (16, 1)"


@claim(
    "C9-76",
    section="9.3.1",
    lines=(4529, 4585),
    statement=(
        "The book's p is the keep probability, while torch.nn.Dropout(p) drops "
        "with probability p: Box 9.2's Dropout(0.3) keeps 70% of the units, the"
        " book's p = 0.7."
    ),
)
def _c9_76() -> str:
    import torch

    from alice_lab.regularization import dropout

    torch.manual_seed(0)
    kept = float((torch.nn.Dropout(0.3)(torch.ones(200_000)) != 0).double().mean())
    mine = float((dropout(np.ones(200_000), keep_prob=0.7, rng=0) != 0).mean())
    assert abs(kept - 0.7) < 0.01 and abs(mine - 0.7) < 0.01, (kept, mine)
    return f"kept fraction: torch Dropout(0.3) {kept:.3f}, keep_prob=0.7 {mine:.3f}"


@claim(
    "E9-09",
    section="9.3.1",
    lines=(4551, 4551),
    erratum="approximately (1 − p)% of the units are dropped",
    statement="A fraction 1 − p of the units is dropped (100(1 − p) percent), not "
    "(1 − p) percent.",
)
def _e9_09() -> str:
    from alice_lab.regularization import dropout

    p = 0.9
    frac = float((dropout(np.ones(100_000), keep_prob=p, rng=5) == 0).mean())
    assert abs(frac - (1 - p)) < 0.005 and frac > (1 - p) / 100 * 5
    return f"p = 0.9 drops {100 * frac:.1f}% of the units, not 0.1%"


@claim(
    "C9-39",
    section="9.3.1",
    lines=(4653, 4653),
    statement="Spatial dropout drops whole channels (as torch.nn.Dropout2d); cutout "
    "zeroes one square patch.",
)
def _c9_39() -> str:
    import torch

    from alice_lab.augmentation import cutout
    from alice_lab.regularization import spatial_dropout

    X = np.ones((64, 5, 5, 8))
    mine = spatial_dropout(X, drop_prob=0.5, rng=0)
    torch.manual_seed(0)
    ref = torch.nn.Dropout2d(0.5)(torch.ones(64, 8, 5, 5, dtype=torch.float64)).numpy()
    for maps in (mine.transpose(0, 3, 1, 2).reshape(64, 8, 25), ref.reshape(64, 8, 25)):
        assert np.all(maps.min(-1) == maps.max(-1)) and set(np.unique(maps)) == {0, 2}
    co = cutout(np.ones((1, 10, 10, 3)), 4, rng=1)
    assert (co == 0).sum() == 4 * 4 * 3
    return "every channel map all-zero or all-2 (alice_lab and Dropout2d); cutout 4×4"


@claim(
    "E9-11",
    section="9.3.1",
    lines=(4653, 4653),
    erratum="cutout drops spatial patches of a single channel",
    statement="Cutout (DeVries and Taylor, 2017) masks a square region of the input "
    "on all channels.",
)
def _e9_11() -> str:
    from alice_lab.augmentation import cutout

    co = cutout(np.ones((2, 12, 12, 3)), 5, rng=4)
    zeros = co == 0
    assert np.array_equal(zeros[..., 0], zeros[..., 2]) and zeros.sum() == 2 * 25 * 3
    return "the zeroed square is the same on the 3 channels"


@claim(
    "C9-40",
    section="9.3.1",
    lines=(4655, 4667),
    statement="DropConnect masks single weights, (M⊙W)x + b; its mean is pWx + b.",
)
def _c9_40() -> str:
    from alice_lab.regularization import dropconnect_linear

    rng = _rng(6)
    W, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    mean = np.mean(
        [dropconnect_linear(x, W, b, keep_prob=0.6, rng=s) for s in range(20000)],
        axis=0,
    )
    err = _maxerr(mean, 0.6 * W @ x + b)
    assert err < 0.05, err
    return f"MC mean vs pWx + b: {err:.1e}"
