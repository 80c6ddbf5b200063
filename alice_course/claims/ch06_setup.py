"""Checkable claims of Chapter 6, §6.1: the AD problem, numerical and symbolic
differentiation (book lines 2662-2744).

Each check computes with ``alice_lab.autodiff`` and compares with JAX, PyTorch,
SymPy, finite differences or a closed form. JAX runs in float64 inside
``alice_lab.backend.parity_precision()``, so the checks hold whatever the global
setting (and on JAX versions without ``jax.enable_x64``).
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _x64():
    from alice_lab.backend import parity_precision

    return parity_precision()


def _fc(c, c_out, seed):
    """A primitive f(x, w) = tanh(W x + b) with w = [vect(W); b] flat, p = c c' + c'."""
    r = _rng(seed)
    x, w = r.standard_normal(c), r.standard_normal(c * c_out + c_out)

    def f(x, w, xp=np):
        W = w[: c * c_out].reshape(c_out, c)
        return xp.tanh(W @ x + w[c * c_out :])

    return f, x, w


# =====================================================================================
# 6.1 Problem setup
# =====================================================================================


@claim(
    "C6-01",
    section="6.1",
    lines=(2672, 2682),
    statement="A primitive y = f(x, w) with x ~ (c), w ~ (p), y ~ (c′) has an input "
    "Jacobian of shape (c′, c) and a weight Jacobian of shape (c′, p).",
)
def _c6_01() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import jacobian

    c, c_out = 5, 3
    f, x, w = _fc(c, c_out, 1)
    Jx = jacobian(lambda z: f(z, w), x)
    Jw = jacobian(lambda v: f(x, v), w)
    with _x64():
        fj = lambda x, w: f(x, w, jnp)  # noqa: E731
        Jx_j = np.asarray(jax.jit(jax.jacrev(fj, argnums=0))(x, w))
        Jw_j = np.asarray(jax.jit(jax.jacrev(fj, argnums=1))(x, w))
    assert Jx.shape == Jx_j.shape == (3, 5), Jx.shape
    assert Jw.shape == Jw_j.shape == (3, 18), Jw.shape
    err = max(_maxerr(Jx, Jx_j), _maxerr(Jw, Jw_j))
    assert err < 1e-12, f"engine vs jax.jacrev: {err:.1e}"
    return (
        f"c=5, c′=3, p=18: ∂x f {Jx.shape}, ∂w f {Jw.shape}; = jax.jacrev ({err:.0e})"
    )


@claim(
    "C6-02",
    section="6.1",
    lines=(2688, 2694),
    statement="For the batched layer XW + b with X ~ (n, c), W ~ (c, c′), b ~ (c′) "
    "the input Jacobian has shape (n, c′, n, c) and the weight Jacobian (n, c′, c, "
    "c′): rank 4 (the bias Jacobian is (n, c′, c′)).",
)
def _c6_02() -> str:
    import torch

    from alice_lab.autodiff import jacobian

    n, c, c_out = 4, 3, 2
    r = _rng(2)
    X, W, b = (
        r.standard_normal((n, c)),
        r.standard_normal((c, c_out)),
        r.standard_normal(c_out),
    )
    JX = jacobian(lambda Z: Z @ W + b, X)
    JW = jacobian(lambda V: X @ V + b, W)
    Jb = jacobian(lambda v: X @ W + v, b)
    tJ = torch.func.jacrev(lambda X, W, b: X @ W + b, argnums=(0, 1, 2))(
        torch.tensor(X), torch.tensor(W), torch.tensor(b)
    )
    shapes = [J.shape for J in (JX, JW, Jb)]
    assert shapes == [(4, 2, 4, 3), (4, 2, 3, 2), (4, 2, 2)], shapes
    assert shapes == [tuple(J.shape) for J in tJ]
    err = max(_maxerr(a, b.numpy()) for a, b in zip((JX, JW, Jb), tJ, strict=True))
    assert err < 1e-13, f"vs torch.func.jacrev: {err:.1e}"
    return f"shapes {shapes} (engine and torch.func.jacrev, {err:.0e})"


@claim(
    "C6-03",
    section="6.1",
    lines=(2694, 2694),
    statement="Flattened, those Jacobians are (nc′, nc) and (nc′, cc′); the input "
    "Jacobian is block-diagonal (J[i, :, j, :] = [i = j] Wᵀ), so only 1/n of it is "
    "non-zero, and materialising it for n = 32, c = c′ = 1024 takes 2³⁰ ≈ 1.07e9 "
    "floats, 4.3 GB in float32: better never built.",
)
def _c6_03() -> str:
    from alice_lab.autodiff import jacobian

    n, c, c_out = 5, 4, 3
    r = _rng(3)
    X, W, b = (
        r.standard_normal((n, c)),
        r.standard_normal((c, c_out)),
        r.standard_normal(c_out),
    )
    JX = jacobian(lambda Z: Z @ W + b, X)
    JW = jacobian(lambda V: X @ V + b, W)
    assert JX.reshape(n * c_out, n * c).shape == (15, 20)
    assert JW.reshape(n * c_out, c * c_out).shape == (15, 12)
    for i in range(n):
        for j in range(n):
            want = W.T if i == j else np.zeros((c_out, c))
            assert np.array_equal(JX[i, :, j, :], want), f"block ({i}, {j})"
    frac = np.count_nonzero(JX) / JX.size
    assert frac == 1 / n, frac
    floats = (32 * 1024) * (32 * 1024)
    assert floats == 1_073_741_824
    gb = floats * 4 / 1e9
    assert abs(gb - 4.29) < 0.01, gb
    return f"block-diagonal, {frac:.0%} non-zero for n=5; n=32, c=1024: {gb:.2f} GB"


# =====================================================================================
# 6.1.1 Problem statement
# =====================================================================================


@claim(
    "C6-04",
    section="6.1.1",
    lines=(2702, 2710),
    statement="The program ends with y = Σ h_l, a scalar; the gradient of the sum is "
    "the all-ones vector (the 1ᵀ that starts reverse mode).",
)
def _c6_04() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import grad

    h = _rng(4).standard_normal(7)
    g = grad(lambda z: z.sum())(h)
    with _x64():
        gj = np.asarray(jax.grad(jnp.sum)(jnp.asarray(h)))
    assert np.array_equal(g, np.ones(7)) and np.array_equal(gj, np.ones(7)), g
    return "∇(Σh) = 1 (engine and jax.grad)"


@claim(
    "C6-05",
    section="6.1.1",
    lines=(2712, 2718),
    statement="All weight gradients {∂_{w_i} y} of a chain of primitives: forward "
    "mode and reverse mode give the same numbers as torch.autograd and jax.grad.",
)
def _c6_05() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    from alice_lab.autodiff import trace

    worst = 0.0
    for seed, widths in enumerate([(4, 5, 3), (3, 4, 4, 2), (5, 3, 4, 3, 2)]):
        fs, x, ws = trace.random_trace(widths, seed=seed)
        fwd = trace.forward_mode(fs, x, ws)
        rev = trace.reverse_mode(fs, x, ws)
        tws = [torch.tensor(w, requires_grad=True) for w in ws]
        h = torch.tensor(x)
        for (ci, co), w in zip(
            zip(widths[:-1], widths[1:], strict=False), tws[:-1], strict=True
        ):
            h = torch.tanh(h @ w[: ci * co].reshape(ci, co) + w[ci * co :])
        (h**2).sum().backward()

        def y_of(ws_, widths=widths, x=x):
            h = jnp.asarray(x)
            for (ci, co), w in zip(
                zip(widths[:-1], widths[1:], strict=False), ws_[:-1], strict=True
            ):
                h = jnp.tanh(h @ w[: ci * co].reshape(ci, co) + w[ci * co :])
            return jnp.sum(h**2)

        with _x64():
            gj = jax.jit(jax.grad(y_of))([jnp.asarray(w) for w in ws])
        for a, b_, t, j in zip(fwd.grads[:-1], rev.grads, tws, gj, strict=False):
            for other in (b_, t.grad.numpy(), j):  # (the loss has no weights)
                worst = max(worst, _maxerr(a, other))
    assert worst < 1e-10, f"largest disagreement {worst:.1e}"
    return f"3 random chains of 3-5 primitives: all four agree within {worst:.0e}"


# =====================================================================================
# 6.1.2 Numerical and symbolic differentiation
# =====================================================================================


@claim(
    "C6-06",
    section="6.1.2",
    lines=(2722, 2724),
    statement="Numerical differentiation costs 2 function calls per scalar parameter "
    "(central differences); its error falls like h² until rounding takes over, so the "
    "error against h is V-shaped with its bottom near h ≈ 1e-5 in float64.",
)
def _c6_06() -> str:
    from alice_lab.autodiff.numerical import fd_error_curve, numerical_grad

    for p in (1, 10, 50):
        x = _rng(p).standard_normal(p)
        g, calls = numerical_grad(lambda z: np.sum(np.tanh(z) ** 2), x)
        exact = 2 * np.tanh(x) * (1 - np.tanh(x) ** 2)
        assert calls == 2 * p, (p, calls)
        assert _maxerr(g, exact) < 1e-9
    curve = fd_error_curve(np.sin, np.cos, 1.0, np.logspace(-14, -1, 53))
    slope = curve.slope(1e-4, 1e-2)
    assert abs(slope - 2) < 0.1, f"slope {slope:.2f}"
    assert 1e-7 <= curve.best_h <= 1e-4, curve.best_h
    rounding = curve.error[curve.h <= 1e-12].max()
    assert rounding > 100 * curve.error.min(), "no rounding arm"
    return (
        f"calls = 2p; log-log slope {slope:.2f} on [1e-4, 1e-2]; best h "
        f"{curve.best_h:.0e}; error at h=1e-12 {rounding:.0e} vs min "
        f"{curve.error.min():.0e}"
    )


@claim(
    "C6-07",
    section="6.1.2",
    lines=(2726, 2744),
    equation="Box 6.1",
    statement="SymPy differentiates f(x) = a sin(x) + b x sin(x) to a cos(x) + b x "
    "cos(x) + b sin(x) (the box's printed output drops the * signs).",
)
def _c6_07() -> str:
    import sympy as sp

    from alice_lab.autodiff.symbolic import box_6_1

    box = box_6_1()
    x, a, b = box["x"], box["a"], box["b"]
    want = a * sp.cos(x) + b * x * sp.cos(x) + b * sp.sin(x)
    assert sp.simplify(box["df"] - want) == 0, box["df"]
    assert str(box["df"]) == "a*cos(x) + b*x*cos(x) + b*sin(x)", str(box["df"])
    num = sp.lambdify((x, a, b), box["df"])(0.7, 1.5, -2.0)
    from alice_lab.autodiff import grad

    ad = float(grad(lambda t: 1.5 * np.sin(t) - 2.0 * t * np.sin(t))(np.array(0.7)))
    assert abs(num - ad) < 1e-14, (num, ad)
    return f"sp.diff → {box['df']}; at (x, a, b) = (0.7, 1.5, −2) = engine {ad:.6f}"


@claim(
    "C6-08",
    section="6.1.2",
    lines=(2728, 2730),
    statement="The symbolic result repeats sin(x) and cos(x): common-subexpression "
    "elimination finds them; for nested functions the expression swells (f_k = "
    "sin(f_{k−1}) f_{k−1}: 2k program steps, 2ᵏ⁺¹ − 2 expression operations, a "
    "derivative of 2048 operations at k = 6, 70 after CSE).",
)
def _c6_08() -> str:
    import sympy as sp

    from alice_lab.autodiff.symbolic import (
        box_6_1,
        expression_swell,
        shared_subexpressions,
    )

    box = box_6_1()
    shared, _ = shared_subexpressions([box["f"], box["df"]])
    pieces = [v for _, v in shared]
    x = box["x"]
    assert sp.sin(x) in pieces and sp.cos(x) in pieces, pieces
    rows = expression_swell(6)
    assert [r.f_ops for r in rows] == [2 ** (k + 1) - 2 for k in range(1, 7)]
    assert (rows[-1].df_ops, rows[-1].cse_ops) == (2048, 70), rows[-1]
    return f"CSE shares {pieces}; k = 1..6 derivative sizes {[r.df_ops for r in rows]}"
