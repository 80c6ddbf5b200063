"""Checkable claims of Chapter 9, §9.4: residual connections, block designs, unrolled
paths and the ODE view (book lines 4837-5027). References: torch.func, SciPy's
solve_ivp, closed-form solutions."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _tanh_layer(seed: int, c: int = 4, scale: float = 1.0):
    W = _rng(seed).normal(size=(c, c)) * scale
    return lambda x: np.tanh(x @ W)


@claim(
    "C9-59",
    section="9.4.1",
    lines=(4843, 4855),
    statement="A deeper model contains the shallower one: if the extra block is the "
    "identity the outputs agree, and a residual block with zero weights is exactly "
    "the identity.",
)
def _c9_59() -> str:
    from alice_lab.residual import residual

    f1 = _tanh_layer(0)
    x = _rng(1).normal(size=(3, 4))
    g1 = f1(x)
    g2 = residual(lambda h: np.tanh(h @ np.zeros((4, 4))), f1(x))
    assert np.array_equal(g1, g2)
    return "g₂(x) = g₁(x) exactly with a zero-weight residual block"


@claim(
    "C9-61",
    section="9.4.1",
    lines=(4869, 4881),
    statement="r(x) = f(x) + x, so the block's f learns the residual r(x) − x.",
)
def _c9_61() -> str:
    import torch

    from alice_lab.residual import residual

    torch.manual_seed(0)
    f = torch.nn.Linear(4, 4).double()
    x = torch.randn(5, 4, dtype=torch.float64)
    with torch.no_grad():
        r = residual(f, x)
        err = float((r - x - f(x)).abs().max())
    assert err < 1e-15
    return f"|r(x) − x − f(x)| = {err:.0e}"


@claim(
    "C9-62",
    section="9.4.1",
    lines=(4883, 4889),
    statement="The sum needs f(x) and x of the same shape; otherwise a 1×1 convolution "
    "projects the skip path to the new number of channels.",
)
def _c9_62() -> str:
    import torch

    from alice_lab.residual import residual

    x = torch.randn(2, 3, 5, 5)
    f = torch.nn.Conv2d(3, 8, 3, padding=1)
    try:
        residual(f, x)
    except ValueError:
        pass
    else:
        raise AssertionError("mismatched shapes were added")
    out = residual(f, x, torch.nn.Conv2d(3, 8, 1))
    assert tuple(out.shape) == (2, 8, 5, 5)
    return "3 → 8 channels: plain sum raises, 1×1 projection works"


@claim(
    "C9-63",
    section="9.4.1",
    lines=(4883, 4883),
    statement="A zero-initialised scale in the last batch norm of the residual path "
    "makes the block exactly the identity at initialisation (de and Smith, 2020).",
)
def _c9_63() -> str:
    import torch

    from alice_lab.residual import BasicBlock

    torch.manual_seed(0)
    block = BasicBlock(4, post_relu=False, zero_init=True)
    x = torch.randn(2, 4, 6, 6)
    with torch.no_grad():
        err = float((block(x) - x).abs().max())
    assert err == 0.0
    return "block(x) = x exactly"


@claim(
    "C9-64",
    section="9.4.1",
    lines=(4891, 4905),
    statement="The VJP of a residual block is vjp_f(v) + v: the skip adds the adjoint "
    "unchanged.",
)
def _c9_64() -> str:
    import torch

    from alice_lab.residual import residual

    torch.manual_seed(1)
    W = torch.randn(5, 5, dtype=torch.float64)
    x, v = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)

    def f(z):
        return torch.tanh(W @ z)

    _, vjp_r = torch.func.vjp(lambda z: residual(f, z), x)
    J = torch.autograd.functional.jacobian(f, x)
    err = float((vjp_r(v)[0] - (J.T @ v + v)).abs().max())
    assert err < 1e-14, err
    return f"|vjp_r(v) − (J_fᵀv + v)| = {err:.1e}"


@claim(
    "C9-65",
    section="9.4.1",
    lines=(4905, 4905),
    statement="Through 50 stacked blocks the skip connections keep the input "
    "gradient alive (norm of order 1 or more), while a plain stack of the same "
    "layers makes it vanish.",
)
def _c9_65() -> str:
    import torch

    torch.manual_seed(2)
    Ws = [torch.randn(8, 8, dtype=torch.float64) * 0.1 for _ in range(50)]
    x = torch.randn(8, dtype=torch.float64)
    norms = {}
    for name, res in (("plain", False), ("residual", True)):
        J = torch.autograd.functional.jacobian(lambda z, res=res: _stack(z, Ws, res), x)
        norms[name] = float(torch.linalg.matrix_norm(J, ord=2))
    assert norms["residual"] > 0.5 and norms["plain"] < 1e-10, norms
    return f"‖∂h/∂x‖₂: residual {norms['residual']:.2f}, plain {norms['plain']:.1e}"


def _stack(z, Ws, res):
    import torch

    for W in Ws:
        z = torch.tanh(W @ z) + z if res else torch.tanh(W @ z)
    return z


@claim(
    "C9-66",
    section="9.4.1",
    lines=(4909, 4921),
    statement="With h = ReLU(BN(Conv(x))) + x the block can only increase its input: "
    "h ≥ x elementwise.",
)
def _c9_66() -> str:
    import torch

    from alice_lab.residual import NaiveResBlock

    torch.manual_seed(3)
    x = torch.randn(4, 3, 8, 8)
    with torch.no_grad():
        d = NaiveResBlock(3)(x) - x
    assert bool((d >= 0).all())
    return f"min(h − x) = {float(d.min()):.1f}"


@claim(
    "C9-77",
    section="9.4.1",
    lines=(4921, 4921),
    statement=(
        "ReLU's output is non-negative (zero on negative inputs), so h ≥ x, "
        "with equality wherever the pre-activation is negative."
    ),
)
def _c9_77() -> str:
    import torch

    from alice_lab.residual import NaiveResBlock

    torch.manual_seed(3)
    x = torch.randn(4, 3, 8, 8)
    with torch.no_grad():
        d = NaiveResBlock(3)(x) - x
    frac = float((d == 0).double().mean())
    assert 0.2 < frac < 0.8, frac
    return f"h = x on {100 * frac:.0f}% of the entries"


@claim(
    "C9-67",
    section="9.4.1",
    lines=(4923, 4931),
    statement="The original two-convolution block, "
    "h = BN(Conv(ReLU(BN(Conv(x))))) + x, "
    "can also decrease values.",
)
def _c9_67() -> str:
    import torch

    from alice_lab.residual import BasicBlock

    torch.manual_seed(4)
    x = torch.randn(4, 3, 8, 8)
    with torch.no_grad():
        d = BasicBlock(3, post_relu=False)(x) - x
    assert bool((d < 0).any())
    return f"fraction of decreased entries {float((d < 0).double().mean()):.2f}"


@claim(
    "E9-18",
    section="9.4.1",
    lines=(4927, 4927),
    erratum="the block's formula ends with the sum",
    statement="He et al. (2016) apply a ReLU after the sum, so their block's output "
    "is non-negative; the formula without it is the pre-activation style.",
)
def _e9_18() -> str:
    import torch

    from alice_lab.residual import BasicBlock

    torch.manual_seed(5)
    x = torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        with_relu = BasicBlock(3, post_relu=True)(x)
        without = BasicBlock(3, post_relu=False)(x)
    assert bool((with_relu >= 0).all()) and bool((without < 0).any())
    return "post-sum ReLU: output ≥ 0; without it: negative entries"


@claim(
    "C9-68",
    section="9.4.1",
    lines=(4935, 4947),
    statement="Depthwise convolutions free parameters (49c vs 49c² for 7×7) that the "
    "channel expansion spends: bottleneck c = 256 (64 inside) has 69,632 weights, a "
    "ConvNeXt block at c = 96 has 78,432.",
)
def _c9_68() -> str:
    import torch

    from alice_lab.residual import BottleneckBlock, ConvNeXtBlock

    dw = torch.nn.Conv2d(96, 96, 7, groups=96, bias=False).weight.numel()
    full = torch.nn.Conv2d(96, 96, 7, bias=False).weight.numel()
    assert dw == 49 * 96 and full == 49 * 96 * 96
    bott = sum(
        m.weight.numel()
        for m in BottleneckBlock(256).modules()
        if isinstance(m, torch.nn.Conv2d)
    )
    nxt = ConvNeXtBlock(96, bias=False)
    weights = sum(m.weight.numel() for m in (nxt.dw, nxt.up, nxt.down))
    assert bott == 69_632 and weights == 78_432, (bott, weights)
    return f"depthwise {dw} vs full {full}; bottleneck {bott:,}; ConvNeXt {weights:,}"


@claim(
    "E9-17",
    section="9.4.1",
    lines=(4941, 4947),
    erratum="the inverted-bottleneck design is called 'ResNeXt' and cited to "
    "liu2022convnet",
    statement="The block described (depthwise conv first, channels expanded 4× then "
    "reduced, LN, GELU) is ConvNeXt (Liu et al., 2022); ResNeXt (Xie et al., 2017) "
    "keeps a narrow bottleneck with grouped 3×3 convolutions.",
)
def _e9_17() -> str:
    import torch

    from alice_lab.residual import ConvNeXtBlock

    nxt = ConvNeXtBlock(64)
    widest = nxt.up.out_features
    resnext_mid = torch.nn.Conv2d(128, 128, 3, groups=32)  # ResNeXt-50 (32×4d) stage 1
    assert widest == 4 * 64 and nxt.dw.groups == 64 and resnext_mid.groups == 32
    assert resnext_mid.out_channels < 256  # narrow middle, out of c = 256
    return (
        f"ConvNeXt: c → {widest} → c, depthwise; ResNeXt: 256 → 128 (32 groups) → 256"
    )


@claim(
    "C9-69",
    section="9.4.2",
    lines=(4951, 4975),
    statement="Two stacked blocks unroll as h₂ = f₂(f₁(x) + x) + f₁(x) + x.",
)
def _c9_69() -> str:
    from alice_lab.residual import residual

    f1, f2 = _tanh_layer(6), _tanh_layer(7)
    x = _rng(8).normal(size=(3, 4))
    h2 = residual(f2, residual(f1, x))
    err = _maxerr(h2, f2(f1(x) + x) + f1(x) + x)
    assert err < 1e-14, err
    return f"difference {err:.1e} (rounding)"


@claim(
    "C9-70",
    section="9.4.2",
    lines=(4977, 4989),
    statement="The number of paths grows exponentially: L linear blocks give 2ᴸ path "
    "products summing to ∏(I + Fᵢ) (L = 4 → 16).",
)
def _c9_70() -> str:
    from alice_lab.residual import residual_paths

    rng = _rng(9)
    Fs = [rng.normal(size=(3, 3)) * 0.3 for _ in range(4)]
    paths = residual_paths(Fs)
    net = np.linalg.multi_dot([np.eye(3) + F for F in reversed(Fs)])
    err = _maxerr(sum(P for _, P in paths), net)
    assert len(paths) == 16 and err < 1e-12, (len(paths), err)
    return f"{len(paths)} paths, |Σ paths − ∏(I + Fᵢ)| = {err:.1e}"


@claim(
    "C9-72",
    section="9.4.2",
    lines=(5015, 5027),
    statement="An Euler step x_t = x_{t−1} + h f(x_{t−1}) is a residual block: a "
    "weight-tied ResNet is Euler's method, first order (error halves with h).",
)
def _c9_72() -> str:
    from alice_lab.residual import euler, weight_tied_resnet

    x0 = np.array([1.0])
    f = lambda x, t: -x  # noqa: E731
    assert np.array_equal(weight_tied_resnet(f, x0, 10, 0.1), euler(f, x0, 1.0, 0.1))
    # closed form of Euler on x' = -x: x_n = (1 - h)^n x_0
    assert abs(euler(f, x0, 1.0, 0.1)[0] - 0.9**10) < 1e-14
    errs = [abs(euler(f, x0, 1.0, h)[0] - np.exp(-1.0)) for h in (0.1, 0.05, 0.025)]
    ratios = [errs[1] / errs[0], errs[2] / errs[1]]
    assert all(0.45 <= r <= 0.55 for r in ratios) and abs(errs[0] - 0.0192) < 1e-4
    return "errors " + ", ".join(f"{e:.4f}" for e in errs) + " vs e⁻¹"


@claim(
    "C9-73",
    section="9.4.2",
    lines=(5027, 5027),
    statement="Neural ODEs integrate with better solvers: with the same number of "
    "steps RK4 is far more accurate than Euler (SciPy's solve_ivp as reference).",
)
def _c9_73() -> str:
    from scipy.integrate import solve_ivp

    from alice_lab.residual import euler, rk4

    A = np.array([[-0.1, 1.0], [-1.0, -0.1]])  # damped rotation
    x0 = np.array([1.0, 0.0])
    ref = solve_ivp(lambda t, x: A @ x, (0, 5), x0, rtol=1e-11, atol=1e-12).y[:, -1]
    e_euler = _maxerr(euler(lambda x, t: A @ x, x0, 5.0, 0.1), ref)
    e_rk4 = _maxerr(rk4(lambda x, t: A @ x, x0, 5.0, 0.1), ref)
    assert e_rk4 < 1e-5 and e_euler > 100 * e_rk4, (e_euler, e_rk4)
    return f"50 steps: Euler error {e_euler:.1e}, RK4 {e_rk4:.1e}"
