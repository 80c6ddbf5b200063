"""Checkable claims of Chapter 6, §6.4.3-6.4.4 and "From theory to practice":
activation functions and gradient flow, subgradients, the exercises (book lines
3182-3250). The book prints §6.4.3 and §6.4.4 as "6.1.3" and "6.1.4"; the ids here
use the corrected numbers."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng
from alice_course.claims.ch06_setup import _x64

# =====================================================================================
# 6.4.3 Choosing an activation function
# =====================================================================================


@claim(
    "C6-32",
    section="6.4.3",
    lines=(3184, 3188),
    statement="Each activation scales the adjoint by φ′: through l stacked sigmoids "
    "|dy/dx| ≤ 0.25ˡ (vanishing), through l maps φ(s) = 1.5s it is 1.5ˡ (exploding), "
    "through ReLUs on positive inputs it stays exactly 1.",
)
def _c6_32() -> str:
    import torch

    from alice_lab.autodiff.gradient_flow import chain_derivative

    out = {}
    for l in (1, 5, 10, 20):
        sig = chain_derivative("sigmoid", l, x0=0.3)
        t = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
        h = t
        for _ in range(l):
            h = torch.sigmoid(h)
        (g,) = torch.autograd.grad(h, t)
        assert 0 < sig <= 0.25**l and abs(sig - float(g)) <= 1e-15 * abs(float(g)), l
        lin = chain_derivative("linear x1.5", l)
        assert abs(lin - 1.5**l) < 1e-12 * 1.5**l, (l, lin)
        assert chain_derivative("relu", l, x0=0.7) == 1.0
        out[l] = sig
    shown = ", ".join(f"l={l}: {v:.1e}" for l, v in out.items())
    return f"sigmoid chain derivative {shown} (≤ 0.25ˡ, = torch); 1.5ˡ; ReLU 1"


@claim(
    "C6-33",
    section="6.4.3",
    lines=(3190, 3190),
    statement="Finite precision makes vanishing gradients exactly zero: 0.25ˡ leaves "
    "float32's normal range at l = 64 and becomes 0 at l = 75 (float64: 0 at l = "
    "538); a 100-layer sigmoid chain has an exactly zero gradient in float32.",
)
def _c6_33() -> str:
    import torch

    from alice_lab.autodiff.gradient_flow import chain_derivative, underflow_depth

    f32, f64 = underflow_depth(0.25, "float32"), underflow_depth(0.25, "float64")
    assert f32 == (64, 75) and f64[1] == 538, (f32, f64)
    assert np.float32(2.0**-126) == np.finfo(np.float32).smallest_normal
    g32 = chain_derivative("sigmoid", 100, dtype="float32")
    g64 = chain_derivative("sigmoid", 100, dtype="float64")
    t = torch.tensor(0.0, requires_grad=True)
    h = t
    for _ in range(100):
        h = torch.sigmoid(h)
    (gt,) = torch.autograd.grad(h, t)
    assert g32 == 0.0 and float(gt) == 0.0 and g64 > 0.0, (g32, float(gt), g64)
    return (
        "float32: subnormal from l=64, zero at 75; float64 zero at 538; 100 sigmoids: "
        f"float32 0.0, float64 {g64:.1e}"
    )


@claim(
    "C6-34",
    section="6.4.3",
    lines=(3192, 3202),
    equation="Figure F.6.4 (a)",
    statement="σ′(s) = σ(s)(1 − σ(s)) takes values in [0, 0.25], with its maximum "
    "0.25 at s = 0 and → 0 as |s| grows.",
)
def _c6_34() -> str:
    import sympy as sp

    from alice_lab.autodiff import grad, sigmoid

    s = sp.Symbol("s")
    sig = 1 / (1 + sp.exp(-s))
    assert sp.simplify(sp.diff(sig, s) - sig * (1 - sig)) == 0
    xs = np.linspace(-12, 12, 2401)
    d = np.array([float(grad(sigmoid)(np.array(x))) for x in xs[::40]])
    dense = 0.5 * (np.tanh(xs / 2) + 1)
    dense = dense * (1 - dense)
    assert dense.max() == 0.25 and xs[dense.argmax()] == 0.0
    assert dense.min() >= 0 and dense[0] < 1e-5 and dense[-1] < 1e-5
    assert _maxerr(d, dense[::40]) < 1e-16
    return f"max σ′ = {dense.max()} at s = 0; σ′(±12) = {dense[0]:.1e}"


@claim(
    "C6-35",
    section="6.4.3",
    lines=(3204, 3204),
    statement="The only functions with φ′(s) = 1 everywhere are the identity plus a "
    "constant, s + C: no non-linear activation can avoid scaling the adjoints.",
)
def _c6_35() -> str:
    import sympy as sp

    s = sp.Symbol("s")
    phi = sp.Function("phi")
    sol = sp.dsolve(sp.Eq(phi(s).diff(s), 1), phi(s))
    C1 = sp.Symbol("C1")
    assert sp.simplify(sol.rhs - (s + C1)) == 0, sol
    return f"dsolve(φ′ = 1) → {sol.rhs}"


@claim(
    "C6-36",
    section="6.4.3",
    lines=(3206, 3208),
    equation="Figure F.6.4 (b)",
    statement="ReLU′ is 0 or 1, so a ReLU masks the adjoint without rescaling it: "
    "through a deep ReLU network with orthogonal weights the adjoint norm never "
    "grows, while through sigmoids it collapses.",
)
def _c6_36() -> str:
    from alice_lab.autodiff import grad, relu
    from alice_lab.autodiff.gradient_flow import adjoint_norms

    x = _rng(36).standard_normal(1000)
    d = grad(lambda z: relu(z).sum())(x)
    assert set(np.unique(d)) <= {0.0, 1.0} and np.array_equal(d, (x > 0).astype(float))
    r = adjoint_norms(30, activation="relu", orthogonal=True)
    s = adjoint_norms(30, activation="sigmoid", orthogonal=True)
    assert np.all(np.diff(r) >= -1e-12), r
    assert s[0] < 1e-12 * s[-1], s[0]
    return (
        f"ReLU′ ∈ {{0, 1}}; 30 layers: adjoint norm ReLU {r[-1]:.2f} → {r[0]:.1e}, "
        f"sigmoid {s[-1]:.2f} → {s[0]:.0e}"
    )


@claim(
    "C6-37",
    section="6.4.3",
    lines=(3210, 3210),
    statement="ReLU's derivative can be read from its output ([relu(x) > 0] = [x > "
    "0]), so the input can be overwritten: nn.ReLU(inplace=True) after a linear layer "
    "gives the same gradients as nn.ReLU().",
)
def _c6_37() -> str:
    import torch

    x = _rng(37).standard_normal(1000)
    assert np.array_equal(np.maximum(x, 0) > 0, x > 0)
    grads = []
    for inplace in (False, True):
        torch.manual_seed(0)
        lin = torch.nn.Linear(6, 5).double()
        net = torch.nn.Sequential(
            lin, torch.nn.ReLU(inplace=inplace), torch.nn.Linear(5, 1).double()
        )
        net(torch.randn(8, 6, dtype=torch.float64)).sum().backward()
        grads.append(lin.weight.grad.clone())
    assert torch.equal(grads[0], grads[1])
    return (
        "mask from the output = mask from the input; inplace=True: identical gradients"
    )


@claim(
    "E6-06",
    section="6.4.3",
    lines=(3210, 3210),
    erratum="PyTorch's 'in_place parameter'",
    statement="PyTorch's argument is inplace (nn.ReLU(inplace=True)); in_place is not "
    "accepted.",
)
def _e6_06() -> str:
    import inspect

    import torch

    assert "inplace" in inspect.signature(torch.nn.ReLU).parameters
    try:
        torch.nn.ReLU(in_place=True)
    except TypeError as err:
        msg = str(err)
    else:
        raise AssertionError("nn.ReLU accepted in_place=")
    return f"nn.ReLU(in_place=True) → TypeError: {msg[:50]}"


# =====================================================================================
# 6.4.4 Subdifferentiability and AD
# =====================================================================================


@claim(
    "C6-38",
    section="6.4.4",
    lines=(3214, 3214),
    statement="In practice the kink of ReLU is never hit: the pre-activations of a "
    "randomly initialised float32 MLP on the digits data contain no exact zero.",
)
def _c6_38() -> str:
    from sklearn.datasets import load_digits

    from alice_lab.autodiff.mlp import init_mlp

    X = (load_digits().data / 16).astype(np.float32)
    (W1, b1), (W2, b2) = init_mlp([64, 128, 10], seed=0, dtype=np.float32)
    Z1 = X @ W1 + b1
    Z2 = np.maximum(Z1, 0) @ W2 + b2
    zeros = int(np.sum(Z1 == 0) + np.sum(Z2 == 0))
    assert zeros == 0, zeros
    return f"{Z1.size + Z2.size:,} pre-activations on 1797 digits, exact zeros: {zeros}"


@claim(
    "C6-39",
    section="6.4.4",
    lines=(3218, 3226),
    statement="A subgradient z at x satisfies f(y) ≥ f(x) + z(y − x) for all y: for "
    "|x| at 0 every z ∈ [−1, 1] is one (±1.01 are not); where f is differentiable (x² "
    "at x₀) the derivative 2x₀ is the only one.",
)
def _c6_39() -> str:
    from alice_lab.autodiff.subgradients import is_subgradient, subdifferential

    assert all(is_subgradient(np.abs, 0.0, z) for z in np.linspace(-1, 1, 41))
    assert not is_subgradient(np.abs, 0.0, 1.01) and not is_subgradient(
        np.abs, 0.0, -1.01
    )
    assert subdifferential(np.abs, 0.0) == (-1.0, 1.0)
    x0 = 0.7
    lo, hi = subdifferential(lambda x: x**2, x0)
    assert lo <= 2 * x0 <= hi and hi - lo <= 0.011, (lo, hi)  # the grid step is 0.005
    return f"∂|x|(0) = [−1, 1]; ∂x²(0.7) = [{lo}, {hi}] ∋ 1.4 (grid resolution)"


@claim(
    "C6-40",
    section="6.4.4",
    lines=(3228, 3230),
    statement="The subdifferential of ReLU is {0} for s < 0, {1} for s > 0 and the "
    "whole interval [0, 1] at s = 0.",
)
def _c6_40() -> str:
    from alice_lab.autodiff.subgradients import subdifferential

    relu = lambda s: np.maximum(s, 0.0)  # noqa: E731
    at = {s0: subdifferential(relu, s0) for s0 in (-1.0, 0.0, 1.0)}
    assert at == {-1.0: (0.0, 0.0), 0.0: (0.0, 1.0), 1.0: (1.0, 1.0)}, at
    return f"∂ReLU: {at}"


@claim(
    "C6-41",
    section="6.4.4",
    lines=(3232, 3232),
    statement="Implementations pick ReLU′(0) = 0: torch.relu, jax.nn.relu and the "
    "engine's relu all return 0 at 0.",
)
def _c6_41() -> str:
    import jax
    import torch

    from alice_lab.autodiff import grad, relu

    t0 = torch.tensor(0.0, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.relu(t0), t0)
    gj = float(jax.grad(jax.nn.relu)(0.0))
    ge = float(grad(relu)(np.array(0.0)))
    assert (float(gt), gj, ge) == (0.0, 0.0, 0.0), (float(gt), gj, ge)
    return "ReLU′(0): torch 0, JAX 0, engine 0"


@claim(
    "C6-42",
    section="6.4.4",
    lines=(3232, 3232),
    statement="Subgradient descent on f(x) = |x − 3| from 0 with steps 1/(t + 1) "
    "converges (|x_T − 3| < 0.05 after 10⁴ steps); with a constant step it keeps "
    "oscillating around 3 in a band as wide as the step.",
)
def _c6_42() -> str:
    from alice_lab.autodiff.subgradients import subgradient_descent

    sub = lambda x: np.sign(x - 3)  # noqa: E731  (the subgradient 0 at the kink)
    path = subgradient_descent(sub, 0.0, 10_000, lambda t: 1 / (t + 1))
    const = subgradient_descent(sub, 0.0, 300, 0.3)
    band = float(np.ptp(const[-100:]))
    assert abs(path[-1] - 3) < 0.05, path[-1]
    assert 0.2 < band <= 0.3 + 1e-12 and np.all(np.abs(const[-100:] - 3) <= 0.3 + 1e-12)
    return f"diminishing steps: x_T = {path[-1]:.4f}; constant 0.3: band {band:.2f}"


@claim(
    "C6-43",
    section="6.4.4",
    lines=(3234, 3234),
    statement="At a kink, AD returns whatever the implementation implies: relu(x), "
    "max(x, 0), (x + |x|)/2 and relu(x) − relu(−x) = x give different 'derivatives' "
    "at 0 (all valid subgradients of ReLU, but 0 for the identity x, whose derivative "
    "is 1).",
)
def _c6_43() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    from alice_lab.autodiff.subgradients import RELU_VARIANTS, ad_derivative_at

    engine = {k: ad_derivative_at(f) for k, f in RELU_VARIANTS.items()}
    jax_fns = {
        "relu": jax.nn.relu,
        "maximum": lambda x: jnp.maximum(x, 0.0),
        "(x+|x|)/2": lambda x: (x + jnp.abs(x)) / 2,
        "relu(x)-relu(-x)": lambda x: jax.nn.relu(x) - jax.nn.relu(-x),
    }
    jx = {k: float(jax.grad(f)(0.0)) for k, f in jax_fns.items()}
    torch_fns = {
        "relu": torch.relu,
        "clamp": lambda x: torch.clamp(x, min=0),
        "(x+|x|)/2": lambda x: (x + x.abs()) / 2,
        "relu(x)-relu(-x)": lambda x: torch.relu(x) - torch.relu(-x),
    }
    tx = {}
    for k, f in torch_fns.items():
        t = torch.tensor(0.0, requires_grad=True)
        tx[k] = float(torch.autograd.grad(f(t), t)[0])
    values = set(engine.values()) | set(jx.values()) | set(tx.values())
    assert len(values) >= 2 and values <= {0.0, 0.5, 1.0}, values
    assert engine["relu(x) - relu(-x)  (= x)"] == jx["relu(x)-relu(-x)"] == 0.0
    assert tx["relu(x)-relu(-x)"] == 0.0 and jx["maximum"] == 0.5
    return f"engine {engine}; JAX {jx}; torch {tx}"


# =====================================================================================
# From theory to practice
# =====================================================================================


@claim(
    "C6-44",
    section="6.5",
    lines=(3238, 3240),
    statement="A reverse-mode system on a DAG must accumulate over shared uses and "
    "visit nodes in topological order: for b = a·a, c = a + b, dc/da = 1 + 2a; "
    "overwriting instead of adding, or a breadth-first order on a = eˣ, y = a + a·a, "
    "gives wrong gradients.",
)
def _c6_44() -> str:
    import torch

    from alice_lab.autodiff import Tensor, backward_pass
    from alice_lab.autodiff.pitfalls import backward_overwrite, backward_unsorted

    a0 = 1.7
    a = Tensor(a0, requires_grad=True)
    c = a + a * a
    c.backward()
    at = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    (at + at * at).backward()
    assert a.grad == 1 + 2 * a0 == float(at.grad), (a.grad, float(at.grad))
    wrong_overwrite = float(backward_overwrite(c)[a])
    x = Tensor(0.5, requires_grad=True)
    ea = np.exp(x)
    y = ea + ea * ea
    right = float(backward_pass(y, np.ones(()))[x])
    wrong_order = float(backward_unsorted(y)[x])
    want = (1 + 2 * np.exp(0.5)) * np.exp(0.5)
    assert abs(right - want) < 1e-14 and abs(wrong_order - want) > 1
    assert abs(wrong_overwrite - (1 + 2 * a0)) > 1
    return (
        f"dc/da = {float(a.grad):.1f} (torch {float(at.grad):.1f}); overwriting gives "
        f"{wrong_overwrite:.1f}; breadth-first dy/dx {wrong_order:.3f} vs {right:.3f}"
    )


@claim(
    "C6-45",
    section="6.5",
    lines=(3242, 3248),
    statement="The trainable Swish σ(as + b)(cs + d) written as a new primitive "
    "(torch.autograd.Function with hand-written VJPs, and jax.custom_vjp) passes "
    "gradient checks and matches the gradients autograd derives for the module.",
)
def _c6_45() -> str:
    import jax.numpy as jnp
    import torch
    from jax.test_util import check_grads

    from alice_lab.autodiff import frameworks as fw

    r = _rng(45)
    s = torch.tensor(r.standard_normal((5, 3)), requires_grad=True)
    params = [
        torch.tensor(v, dtype=torch.float64, requires_grad=True)
        for v in (1.2, -0.3, 0.8, 0.1)
    ]
    assert torch.autograd.gradcheck(
        fw.TrainableSwishFunction.apply, (s, *params), eps=1e-6, atol=1e-4
    )
    grads = []
    for custom in (False, True):
        act = fw.SwishFunctionDemo(
            1.2, -0.3, 0.8, 0.1, custom=custom, dtype=torch.float64
        )
        act(s).pow(2).sum().backward()
        grads.append(torch.stack([p.grad for p in act.parameters()]))
    assert torch.allclose(grads[0], grads[1], rtol=1e-12, atol=1e-14)
    with _x64():
        check_grads(
            fw.trainable_swish_jax,
            (jnp.asarray(s.detach().numpy()), *(jnp.asarray(p.item()) for p in params)),
            order=1,
            modes=["rev"],
        )
    return (
        "gradcheck passes; Function == module (autograd); jax.custom_vjp passes "
        "check_grads"
    )
