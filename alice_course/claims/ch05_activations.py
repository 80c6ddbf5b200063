"""Checkable claims of Chapter 5, §5.4 activation functions and the "Design variants"
box (book lines 2414-2630), with the errata on tanh and on the sigmoid's limit.

References: ``torch.nn.functional``, ``torch.nn.PReLU``, ``jax.nn``, ``jax.grad``,
SciPy (``expit``, ``erf``, ``minimize_scalar``), NumPy's least squares.
"""

from __future__ import annotations

import math

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng

S = np.linspace(-6.0, 6.0, 2401)


def _jax_tol() -> float:
    """JAX computes in float32 unless ``jax_enable_x64`` is on: compare accordingly."""
    import jax

    return 1e-14 if jax.config.jax_enable_x64 else 1e-6


@claim(
    "C5-20",
    section="5.4",
    lines=(2418, 2428),
    statement="A polynomial activation s^p compounds across layers: after l layers of "
    "s³ the output is s^(3^l), which in float32 overflows to inf by layer 5 for "
    "s = 1.5 and underflows to 0 for s = 0.5.",
)
def _c5_20() -> str:
    from alice_lab.activations import polynomial

    rows = {}
    for s0 in (1.5, 0.5):
        h = np.array([s0], dtype=np.float32)
        with np.errstate(over="ignore", under="ignore"):
            for layer in range(1, 6):
                h = _np(polynomial(h, 3))
                exact = 3**layer * math.log10(s0)  # log10 of s^(3^l)
                if -37 < exact < 38:
                    assert abs(math.log10(float(h[0])) - exact) < 1e-3, (s0, layer)
        rows[s0] = float(h[0])
    assert rows[1.5] == np.inf and rows[0.5] == 0.0, rows
    return f"after 5 layers of s³ in float32: 1.5 → {rows[1.5]}, 0.5 → {rows[0.5]}"


@claim(
    "C5-21",
    section="5.4",
    lines=(2430, 2438),
    statement="The threshold neuron 𝕀[s ≥ 0] has zero derivative wherever it has one, "
    "so gradients teach it nothing; the sigmoid, its smooth stand-in, has non-zero "
    "gradients everywhere.",
)
def _c5_21() -> str:
    import jax
    import torch

    from alice_lab.activations import heaviside, sigmoid

    s = S[S != 0]
    g_jax = np.asarray(jax.vmap(jax.grad(lambda x: heaviside(x)))(jax.numpy.asarray(s)))
    t = torch.tensor(s, requires_grad=True)
    (g_torch,) = torch.autograd.grad(heaviside(t).sum(), t, allow_unused=True,
                                     materialize_grads=True)  # fmt: skip
    assert not g_jax.any() and not g_torch.any()
    g_sig = np.asarray(jax.vmap(jax.grad(lambda x: sigmoid(x)))(jax.numpy.asarray(s)))
    assert (g_sig > 0).all()
    return f"step: all {len(s)} gradients 0; sigmoid: min gradient {g_sig.min():.1e}"


@claim(
    "C5-22",
    section="5.4",
    lines=(2438, 2442),
    statement="The generalised sigmoid σ(as) tends to the step 𝕀[s ≥ 0] as a → ∞ "
    "at every s ≠ 0 (for a = 10⁴ and |s| ≥ 0.01 it is within 1e-12 of it).",
)
def _c5_22() -> str:
    from scipy.special import expit

    from alice_lab.activations import sigmoid

    s = S[np.abs(S) >= 0.01]
    gaps = {
        a: _maxerr(sigmoid(s, a), (s >= 0).astype(float)) for a in (1, 10, 100, 1e4)
    }
    assert gaps[1] > gaps[10] > gaps[100] > gaps[1e4] and gaps[1e4] < 1e-12, gaps
    assert _maxerr(sigmoid(s, 7.0), expit(7.0 * s)) < 1e-15
    return ", ".join(f"a={a:g}: {g:.1e}" for a, g in gaps.items())


@claim(
    "C5-39",
    section="5.4",
    lines=(2442, 2442),
    statement=(
        "σ(as) tends to the step 𝕀[s ≥ 0] as a → ∞ at every s ≠ 0; at s = 0 it "
        "is 1/2 for every slope, so the step's value at 0 is a convention."
    ),
)
def _c5_39() -> str:
    import torch

    from alice_lab.activations import sigmoid

    values = [float(sigmoid(np.zeros(1), a)[0]) for a in (1.0, 1e3, 1e9, 1e300)]
    assert values == [0.5] * 4, values
    assert torch.sigmoid(torch.tensor(1e300 * 0.0)).item() == 0.5
    return f"σ(a·0) = {values[0]} for a up to 1e300"


@claim(
    "C5-23",
    section="5.4",
    lines=(2446, 2450),
    statement="tanh is a sigmoid rescaled to (−1, 1): an odd, increasing function "
    "bounded by ±1, equal to 2σ₂(s) − 1 with the generalised sigmoid of slope 2.",
)
def _c5_23() -> str:
    from scipy.special import expit

    from alice_lab.activations import sigmoid, tanh

    t = _np(tanh(S))
    assert (
        _maxerr(t, np.tanh(S)) < 1e-15
        and _maxerr(sigmoid(S, 2.0), expit(2 * S)) < 1e-15
    )
    assert np.all(np.abs(t) < 1) and np.all(np.diff(t) > 0)
    assert _maxerr(t, -_np(tanh(-S))) == 0.0
    err = _maxerr(t, 2 * _np(sigmoid(S, 2.0)) - 1)
    ref = _maxerr(np.tanh(S), 2 * expit(2 * S) - 1)  # the identity itself, in SciPy
    assert err < 1e-15 and ref < 1e-15, (err, ref)
    return (
        f"tanh, σ₂ = NumPy's tanh, SciPy's expit(2s); range ({t.min():.6f}, "
        f"{t.max():.6f}) on [-6, 6]; 2σ₂ − 1 off by {err:.0e}"
    )


@claim(
    "E5-02",
    section="5.4",
    lines=(2446, 2450),
    statement="tanh(s) = 2σ(2s) − 1; the printed 2σ(s) − 1 is tanh(s/2), a different "
    "function (e.g. 0.462 instead of 0.762 at s = 1).",
    erratum="tanh(s) = 2σ(s) − 1",
)
def _e5_02() -> str:
    from scipy.special import expit

    right = _maxerr(np.tanh(S), 2 * expit(2 * S) - 1)
    printed = 2 * expit(S) - 1
    wrong = _maxerr(np.tanh(S), printed)
    assert right < 1e-15 and _maxerr(printed, np.tanh(S / 2)) < 1e-15
    assert wrong > 0.2, wrong
    return f"2σ(2s) − 1 off by {right:.0e}; the printed form off by up to {wrong:.3f}"


@claim(
    "C5-24",
    section="5.4",
    lines=(2454, 2454),
    statement="ReLUs are sparse: for zero-mean symmetric pre-activations about half "
    "the outputs are exactly 0; a unit whose pre-activation is negative on the whole "
    "dataset is 'dead': its output is constant 0 and it receives zero gradient.",
)
def _c5_24() -> str:
    import torch

    from alice_lab.activations import relu

    rng = _rng(524)
    zeros = float(np.mean(_np(relu(rng.standard_normal(100_000))) == 0))
    assert abs(zeros - 0.5) < 0.01, zeros
    X = torch.tensor(rng.standard_normal((500, 4)))
    layer = torch.nn.Linear(4, 3).double()
    with torch.no_grad():
        layer.bias[0] = -100.0  # unit 0 is dead on this data
    out = torch.relu(layer(X))
    out.sum().backward()
    assert torch.all(out[:, 0] == 0) and torch.all(layer.weight.grad[0] == 0)
    assert torch.any(layer.weight.grad[1:] != 0)
    return f"{zeros:.1%} zeros on N(0, 1) inputs; the dead unit's gradient is 0"


@claim(
    "C5-25",
    section="5.4",
    lines=(2456, 2464),
    statement="LeakyReLU with α = 0.01 has slope 0.01 for s < 0, so no unit dies; "
    "PReLU trains α and adds one parameter per unit (torch.nn.PReLU(c′) has c′), with "
    "∂/∂α = s·𝕀[s < 0].",
    equation="E.5.9",
)
def _c5_25() -> str:
    import torch

    from alice_lab.activations import PReLU, leaky_relu, prelu_grad_alpha

    s = torch.tensor(S[S < 0], requires_grad=True)
    (g,) = torch.autograd.grad(leaky_relu(s, 0.01).sum(), s)
    assert torch.allclose(g, torch.full_like(g, 0.01), rtol=0, atol=1e-16)
    rng = _rng(525)
    X = torch.tensor(rng.standard_normal((64, 6)))
    theirs, ours = torch.nn.PReLU(6).double(), PReLU(6).double()
    assert (
        sum(p.numel() for p in theirs.parameters())
        == sum(p.numel() for p in ours.parameters())
        == 6
    )
    theirs(X).sum().backward()
    ours(X).sum().backward()
    formula = _np(prelu_grad_alpha(X.numpy())).sum(axis=0)
    assert _maxerr(theirs.weight.grad, formula) < 1e-12
    assert _maxerr(ours.alpha.grad, formula) < 1e-12
    return f"leaky slope {g[0].item():g}; PReLU(6): 6 parameters, ∂/∂α matches torch"


@claim(
    "C5-26",
    section="5.4",
    lines=(2466, 2476),
    statement="The softplus log(1 + eˢ) is positive everywhere, equals log 2 at 0 (it "
    "misses the origin), exceeds ReLU by at most log 2 (at s = 0) and has the sigmoid "
    "as its derivative.",
    equation="E.5.10",
)
def _c5_26() -> str:
    import jax
    import torch

    from alice_lab.activations import relu, softplus

    sp = _np(softplus(S))
    gap = sp - _np(relu(S))
    assert np.all(sp > 0) and float(softplus(0.0)) == math.log(2)
    assert np.all(gap > 0) and np.all(gap <= math.log(2)) and S[np.argmax(gap)] == 0
    d = np.asarray(jax.vmap(jax.grad(lambda x: softplus(x)))(jax.numpy.asarray(S)))
    assert _maxerr(d, 1 / (1 + np.exp(-S))) < _jax_tol()
    t = torch.nn.functional.softplus(torch.tensor(S), threshold=1e6).numpy()
    j = np.asarray(jax.nn.softplus(jax.numpy.asarray(S)))
    assert _maxerr(sp, t) < 1e-14 and _maxerr(sp, j) < 10 * _jax_tol()
    return f"softplus(0) = {float(softplus(0.0)):.6f} = log 2; min {sp.min():.2e}"


@claim(
    "C5-27",
    section="5.4",
    lines=(2476, 2484),
    statement="ELU passes through the origin, is bounded below by −1 (its limit at "
    "−∞) and, with α = 1, has derivative 1 on both sides of 0.",
    equation="E.5.11",
)
def _c5_27() -> str:
    import torch

    from alice_lab.activations import elu

    assert float(elu(0.0)) == 0.0 and float(elu(-50.0)) == -1.0 + math.exp(-50)
    e = _np(elu(S))
    assert np.all(e > -1)
    h = 1e-7
    left, right = (float(elu(0.0)) - float(elu(-h))) / h, (float(elu(h)) - 0.0) / h
    assert abs(left - 1) < 1e-6 and abs(right - 1) < 1e-12, (left, right)
    t = torch.nn.functional.elu(torch.tensor(S), alpha=1.0).numpy()
    assert _maxerr(e, t) < 1e-15
    return f"ELU(0) = 0, ELU(−6) = {e[0]:.4f}; slopes at 0: {left:.6f}, {right:.6f}"


@claim(
    "C5-28",
    section="5.4",
    lines=(2486, 2502),
    statement="ReLU, GELU and SiLU are s·β(s) with β the step, the Gaussian CDF Φ and "
    "the sigmoid: GELU(s) = s·Φ(s) and SiLU(s) = s·σ(s), as torch and JAX compute "
    "them.",
)
def _c5_28() -> str:
    import jax
    import torch
    from scipy.special import erf, expit

    from alice_lab.activations import gelu, relu, silu

    Phi = 0.5 * (1 + erf(S / math.sqrt(2)))
    g, s_ = _np(gelu(S)), _np(silu(S))
    assert _maxerr(_np(relu(S)), S * (S >= 0)) == 0
    assert _maxerr(g, S * Phi) < 1e-15 and _maxerr(s_, S * expit(S)) < 1e-15
    F, jnn, js = torch.nn.functional, jax.nn, jax.numpy.asarray(S)
    assert _maxerr(g, F.gelu(torch.tensor(S), approximate="none").numpy()) < 1e-15
    assert _maxerr(g, np.asarray(jnn.gelu(js, approximate=False))) < 10 * _jax_tol()
    assert _maxerr(s_, F.silu(torch.tensor(S)).numpy()) < 1e-15
    assert _maxerr(s_, np.asarray(jnn.silu(js))) < 10 * _jax_tol()
    return "GELU = s·Φ(s), SiLU = s·σ(s), as in torch (1e-15) and jax.nn"


@claim(
    "C5-29",
    section="5.4",
    lines=(2502, 2502),
    statement="The 'minor details' between these variants include monotonicity: SiLU "
    "dips to ≈ −0.2785 at s ≈ −1.2785 and GELU to ≈ −0.1700 at s ≈ −0.7518 before "
    "rising, while ReLU, LeakyReLU, softplus and ELU are monotone.",
)
def _c5_29() -> str:
    from scipy.optimize import minimize_scalar

    from alice_lab import activations as A

    mins = {}
    for name in ("silu", "gelu"):
        f = A.get(name)
        res = minimize_scalar(lambda x, f=f: float(f(np.array([x]))[0]), bounds=(-3, 0),
                              method="bounded", options={"xatol": 1e-10})  # fmt: skip
        mins[name] = (res.x, res.fun)
        assert np.any(np.diff(_np(f(S))) < 0), name
    assert (
        abs(mins["silu"][0] + 1.27846) < 1e-4 and abs(mins["silu"][1] + 0.27846) < 1e-4
    )
    assert (
        abs(mins["gelu"][0] + 0.75179) < 1e-4 and abs(mins["gelu"][1] + 0.16997) < 1e-4
    )
    for name in ("relu", "leaky_relu", "softplus", "elu"):
        assert np.all(np.diff(_np(A.get(name)(S))) >= 0), name
    return "; ".join(f"{k} min {v:.5f} at {x:.5f}" for k, (x, v) in mins.items())


@claim(
    "C5-31",
    section="5.4",
    lines=(2566, 2576),
    statement="Trainable-Swish σ(as + b)(cs + d) has 4 parameters; (1, 0, 1, 0) is the "
    "SiLU, (β, 0, 1, 0) the Swish-β, and a → ∞ with (b, c, d) = (0, 1, 0) gives the "
    "ReLU.",
    equation="E.5.12",
)
def _c5_31() -> str:
    import torch

    from alice_lab.activations import TrainableSwish, trainable_swish

    F = torch.nn.functional
    t = torch.tensor(S)
    assert sum(p.numel() for p in TrainableSwish().parameters()) == 4
    assert _maxerr(trainable_swish(S), F.silu(t).numpy()) < 1e-15
    assert (
        _maxerr(trainable_swish(S, 2.5, 0, 1, 0), (t * torch.sigmoid(2.5 * t)).numpy())
        < 1e-15
    )
    gaps = [
        _maxerr(trainable_swish(S, a, 0, 1, 0), F.relu(t).numpy())
        for a in (1, 10, 100, 1000)
    ]
    assert all(np.diff(gaps) < 0) and gaps[-1] < 1e-3, gaps
    return (
        "max |swish_a − ReLU|: "
        + ", ".join(f"{g:.1e}" for g in gaps)
        + " (a = 1 … 1000)"
    )


@claim(
    "C5-32",
    section="5.4",
    lines=(2580, 2594),
    statement="Non-parametric activations Σ αᵢφᵢ(s) are linear in α: with ReLU bases "
    "(APL) they are piecewise linear with kinks only at the hinges; with Gaussian "
    "kernels (KAF) least squares on α fits a smooth curve, and gradient descent on α "
    "converges to that same solution.",
    equation="E.5.13",
)
def _c5_32() -> str:
    from alice_lab.activations import apl, kaf
    from alice_lab.optim import gradient_descent

    rng = _rng(532)
    hinges = np.array([-2.0, -0.5, 1.0, 2.5])
    y = _np(apl(S, rng.standard_normal(4), hinges))
    second = np.abs(np.diff(y, 2)) > 1e-9
    kinks = S[1:-1][second]
    assert all(np.min(np.abs(hinges - k)) < 0.01 for k in kinks) and len(kinks) >= 4
    grid = np.linspace(-3, 3, 13)
    s = np.linspace(-3, 3, 400)
    target = np.sin(2 * s) * np.exp(-0.1 * s**2)
    K = np.stack([_np(kaf(s, e, grid, 2.0)) for e in np.eye(13)], axis=1)  # (400, 13)
    alpha_ls, *_ = np.linalg.lstsq(K, target, rcond=None)
    fit = _maxerr(_np(kaf(s, alpha_ls, grid, 2.0)), target)
    assert fit < 0.02, fit
    A, b = K.T @ K / len(s), K.T @ target / len(s)
    lr = 1.0 / np.linalg.eigvalsh(A).max()
    gd = gradient_descent(lambda a: a @ A - b, np.zeros(13), lr=lr, steps=20000)
    gap = _maxerr(_np(gd.x), alpha_ls)
    assert gap < 1e-6, gap
    where = np.round(kinks, 2).tolist()
    return f"APL kinks at {where}; KAF fit error {fit:.1e}; GD → LS ({gap:.0e})"


@claim(
    "C5-33",
    section="5.4",
    lines=(2602, 2612),
    statement="The GLU σ(W₁x) ⊙ (W₂x) has 2cc′ parameters and equals torch's F.glu of "
    "[W₂x, W₁x] (torch gates the second half).",
    equation="E.5.14",
)
def _c5_33() -> str:
    import torch

    from alice_lab.activations import GLU, glu

    rng = _rng(533)
    X, W1, W2 = (
        rng.standard_normal((10, 6)),
        rng.standard_normal((6, 4)),
        rng.standard_normal((6, 4)),
    )
    x = torch.tensor(X)
    ref = torch.nn.functional.glu(
        torch.cat([x @ torch.tensor(W2), x @ torch.tensor(W1)], -1), dim=-1
    )
    err = _maxerr(glu(X, W1, W2), ref.numpy())
    assert err < 1e-14, err
    n = sum(p.numel() for p in GLU(6, 4).parameters())
    assert n == 2 * 6 * 4, n
    return f"GLU(6, 4): {n} parameters; F.glu agrees to {err:.0e}"


@claim(
    "C5-34",
    section="5.4",
    lines=(2618, 2618),
    statement="SwiGLU replaces the GLU's sigmoid gate with a Swish: SiLU(W₁x) ⊙ (W₂x).",
)
def _c5_34() -> str:
    import torch

    from alice_lab.activations import swiglu

    rng = _rng(534)
    X, W1, W2 = (
        rng.standard_normal((10, 6)),
        rng.standard_normal((6, 4)),
        rng.standard_normal((6, 4)),
    )
    x = torch.tensor(X)
    ref = torch.nn.functional.silu(x @ torch.tensor(W1)) * (x @ torch.tensor(W2))
    err = _maxerr(swiglu(X, W1, W2), ref.numpy())
    assert err < 1e-14, err
    return f"matches F.silu(XW₁) ⊙ XW₂ to {err:.0e}"


@claim(
    "C5-35",
    section="5.4",
    lines=(2622, 2622),
    statement="A maxout unit outputs the largest of k projections: with k = 2 and one "
    "projection fixed at 0 it is the ReLU of the other; each unit is a convex, "
    "piecewise-linear function of the input.",
)
def _c5_35() -> str:
    from alice_lab.layers import maxout

    rng = _rng(535)
    X, W, b = (
        rng.standard_normal((200, 3)),
        rng.standard_normal((4, 3, 2)),
        rng.standard_normal((4, 2)),
    )
    relu_like = maxout(X, np.stack([W[0], 0 * W[0]]), np.stack([b[0], 0 * b[0]]))
    assert _maxerr(relu_like, np.maximum(X @ W[0] + b[0], 0)) < 1e-15
    U, V = rng.standard_normal((500, 3)), rng.standard_normal((500, 3))
    lam = rng.uniform(size=(500, 1))
    lhs = _np(maxout(lam * U + (1 - lam) * V, W, b))
    rhs = lam * _np(maxout(U, W, b)) + (1 - lam) * _np(maxout(V, W, b))
    assert np.all(lhs <= rhs + 1e-12)
    return "k=2 with a zero projection = ReLU; convexity held on 500 random segments"


@claim(
    "C5-36",
    section="5.4",
    lines=(2622, 2628),
    statement="A KAN layer h_i = Σ_j φ_ij(x_j) replaces each weight by a function; "
    "with φ_ij(x) = W_ij·x it is the bias-free linear layer h = xW.",
)
def _c5_36() -> str:
    from alice_lab.layers import gaussian_basis, kan_layer

    rng = _rng(536)
    X, W = rng.standard_normal((20, 5)), rng.standard_normal((5, 3))
    err = _maxerr(kan_layer(X, W[:, :, None], lambda Z: Z[..., None]), np.matmul(X, W))
    assert err < 1e-14, err
    grid = np.linspace(-2, 2, 7)
    alpha = rng.standard_normal((5, 3, 7))
    h = _np(kan_layer(X, alpha, gaussian_basis(grid, 1.0)))
    phi = lambda j, i, x: np.sum(alpha[j, i] * np.exp(-((x - grid) ** 2)))  # φ_ij(x)
    loop = np.array(
        [
            [sum(phi(j, i, X[n, j]) for j in range(5)) for i in range(3)]
            for n in range(20)
        ]
    )
    assert _maxerr(h, loop) < 1e-12
    return f"linear φ: KAN = xW ({err:.0e}); Gaussian φ matches a loop over i, j"


@claim(
    "C5-37",
    section="5.4",
    lines=(2596, 2628),
    statement="Richer activations cost parameters: on top of an FC layer's (c + 1)c′, "
    "PReLU adds c′, a shared Trainable-Swish 4, a per-unit KAF with n kernels c′n, and "
    "a KAN layer has c·c′·n in place of the weights.",
)
def _c5_37() -> str:
    import torch

    from alice_lab.activations import KAF, PReLU, TrainableSwish
    from alice_lab.layers import fc_param_count

    c, cp, n = 8, 6, 10
    count = lambda m: sum(p.numel() for p in m.parameters())
    got = {
        "FC": fc_param_count(c, cp),
        "PReLU": count(PReLU(cp)),
        "Swish": count(TrainableSwish()),
        "KAF": count(KAF(np.linspace(-2, 2, n), num_units=cp)),
        "KAN": c * cp * n,
    }
    assert got == {"FC": 54, "PReLU": 6, "Swish": 4, "KAF": 60, "KAN": 480}, got
    assert count(torch.nn.PReLU(cp)) == got["PReLU"]
    return ", ".join(f"{k} {v}" for k, v in got.items())
