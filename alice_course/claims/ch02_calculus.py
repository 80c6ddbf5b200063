"""Checkable claims of Chapter 2, §2.2 gradients and Jacobians (book lines 572-880).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, SciPy, PyTorch, JAX, a closed form, or the book's own numbers.
Torch and JAX are imported inside the checks that use them; JAX comparisons run in
float32 with loose tolerances so they hold whether or not ``jax_enable_x64`` is on.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng

# =====================================================================================
# 2.2 Gradients and Jacobians
# =====================================================================================


@claim(
    "C2-30",
    section="2.2.1",
    lines=(582, 592),
    statement="The derivative is the limit of (f(x + h) − f(x)) / h; in floating point"
    " the forward difference first improves as h shrinks (error O(h)), then "
    "worsens (rounding, O(ε/h)): the error against h is V-shaped.",
    equation="E.2.15",
)
def _c2_30() -> str:
    from alice_lab.calculus import derivative

    x, exact = 1.0, np.cos(1.0)
    hs = [1e-1, 1e-3, 1e-5, 1e-8, 1e-10, 1e-12]
    err = {
        h: abs(float(derivative(np.sin, x, h=h, scheme="forward")) - exact) for h in hs
    }
    manual = abs((np.sin(1 + 1e-3) - np.sin(1)) / 1e-3 - exact)
    assert np.isclose(err[1e-3], manual, rtol=1e-6), f"{err[1e-3]} vs {manual}"
    # the digest's recomputed errors (truncation regime, O(h) with slope sin(1)/2)
    for h, ref in [(1e-1, 4.29e-2), (1e-3, 4.21e-4), (1e-5, 4.21e-6)]:
        assert np.isclose(err[h], ref, rtol=0.02), (
            f"h={h:g}: error {err[h]:.3e}, ref {ref:.2e}"
        )
    # the bottom of the V sits near h = sqrt(eps) ~ 1e-8, well below both arms
    bottom = min(err[1e-8], err[1e-10])
    assert err[1e-8] < 5e-8 and bottom < err[1e-5] / 50, f"errors by h: {err}"
    assert err[1e-12] > 10 * bottom, f"no rounding arm: errors by h {err}"
    central = abs(float(derivative(np.sin, x, h=1e-5, scheme="central")) - exact)
    assert central < 1e-10, f"central difference at h=1e-5: {central:.1e}"
    shown = ", ".join(f"{h:g}: {e:.1e}" for h, e in err.items())
    return f"forward error by h: {shown}; central (1e-5) {central:.1e}"


@claim(
    "C2-31",
    section="2.2.1",
    lines=(598, 610),
    statement="∂xᵖ = p x^(p−1), ∂log x = 1/x, ∂sin x = cos x.",
)
def _c2_31() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.calculus import derivative

    xs = np.linspace(0.3, 3.0, 10)
    cases = {
        "x^3": (lambda x: x**3, lambda x: 3 * x**2, lambda x: x**3),
        "x^-1": (lambda x: x**-1.0, lambda x: -(x**-2.0), lambda x: x**-1.0),
        "x^0.5": (lambda x: x**0.5, lambda x: 0.5 * x**-0.5, lambda x: x**0.5),
        "log": (np.log, lambda x: 1 / x, jnp.log),
        "sin": (np.sin, np.cos, jnp.sin),
    }
    worst_fd = worst_ad = 0.0
    for name, (f, df, fj) in cases.items():
        fd = np.array([float(derivative(f, float(x), scheme="central")) for x in xs])
        rel = np.max(np.abs(fd - df(xs)) / (1 + np.abs(df(xs))))
        ad = np.array([float(jax.grad(fj)(jnp.float32(x))) for x in xs])
        rel_ad = np.max(np.abs(ad - df(xs)) / (1 + np.abs(df(xs))))
        assert rel < 1e-7, f"{name}: finite differences off by {rel:.1e}"
        assert rel_ad < 1e-5, f"{name}: jax.grad off by {rel_ad:.1e}"
        worst_fd, worst_ad = max(worst_fd, rel), max(worst_ad, rel_ad)
    return f"central FD within {worst_fd:.0e}, jax.grad (float32) within {worst_ad:.0e}"


@claim(
    "C2-32",
    section="2.2.1",
    lines=(612, 624),
    statement="f(x) = x² − 1.5x has f'(x) = 2x − 1.5: negative left of 0.75 (f "
    "decreases), positive right of it, and the minimum f(0.75) = −0.5625.",
    equation="Figure F.2.1",
)
def _c2_32() -> str:
    import scipy.optimize

    from alice_lab.calculus import derivative
    from alice_lab.testfuncs import quad_1d

    xs = np.linspace(-0.5, 2.0, 11)
    fd = np.array([float(derivative(quad_1d, float(x), scheme="central")) for x in xs])
    assert _maxerr(fd, 2 * xs - 1.5) < 1e-8, (
        f"f' vs 2x-1.5: {_maxerr(fd, 2 * xs - 1.5):.1e}"
    )
    assert np.all(fd[xs < 0.75] < 0) and np.all(fd[xs > 0.75] > 0)
    res = scipy.optimize.minimize_scalar(lambda x: float(quad_1d(np.asarray(x))))
    assert abs(res.x - 0.75) < 1e-6 and abs(res.fun + 0.5625) < 1e-12, (res.x, res.fun)
    return f"argmin {res.x:.6f}, min {res.fun:.6f}; slopes at ±0.5 from it: -1, +1"


@claim(
    "C2-33",
    section="2.2.1",
    lines=(626, 662),
    statement="Derivatives are linear, and obey the product rule (fg)' = f'g + fg' and"
    " the chain rule (f∘g)' = f'(g(x)) g'(x).",
    equation="E.2.16",
)
def _c2_33() -> str:
    from alice_lab.calculus import derivative

    f, df = np.sin, np.cos
    g, dg = (lambda x: x**3), (lambda x: 3 * x**2)
    rules = {
        "sum": (lambda x: f(x) + g(x), lambda x: df(x) + dg(x)),
        "product": (lambda x: f(x) * g(x), lambda x: df(x) * g(x) + f(x) * dg(x)),
        "chain": (lambda x: f(g(x)), lambda x: df(g(x)) * dg(x)),
    }
    worst = {}
    for name, (h, dh) in rules.items():
        errs = [
            abs(float(derivative(h, x, scheme="central")) - dh(x))
            for x in np.linspace(-1.5, 1.5, 9)
        ]
        worst[name] = max(errs)
        assert worst[name] < 1e-7, f"{name} rule: FD error {worst[name]:.1e}"
    return ", ".join(f"{k} rule {v:.0e}" for k, v in worst.items())


def _quartic(x):
    """f(x) = Σ_i x_i⁴/4 + x_0 x_1 + sin(x_2) for x ~ (3), with a closed-form "
    "gradient."""
    return np.sum(x**4) / 4 + x[0] * x[1] + np.sin(x[2])


def _quartic_grad(x):
    return x**3 + np.array([x[1], x[0], np.cos(x[2])])


@claim(
    "C2-34",
    section="2.2.2",
    lines=(664, 694),
    statement="The partial derivative along x_i is the derivative along the basis "
    "vector e_i (row i of the identity), and stacking them gives the "
    "gradient.",
    equation="E.2.17",
)
def _c2_34() -> str:
    from alice_lab.calculus import basis, grad_fd, partial

    x = np.array([0.3, -1.2, 0.8])
    for i in range(3):
        assert np.array_equal(_np(basis(3, i)), np.eye(3)[i]), f"e_{i} != eye[{i}]"
    parts = np.array([float(partial(_quartic, x, i)) for i in range(3)])
    manual = np.array(
        [
            (_quartic(x + 1e-6 * np.eye(3)[i]) - _quartic(x - 1e-6 * np.eye(3)[i]))
            / 2e-6
            for i in range(3)
        ]
    )
    g = _np(grad_fd(_quartic, x))
    ref = _quartic_grad(x)
    for name, val in {"partial": parts, "manual FD": manual, "grad_fd": g}.items():
        assert _maxerr(val, ref) < 1e-7, f"{name}: {val} vs {ref}"
    return (
        f"∇f = {np.round(ref, 4).tolist()} by partials along e_i (error "
        f"{_maxerr(g, ref):.0e})"
    )


@claim(
    "C2-35",
    section="2.2.2",
    lines=(694, 708),
    statement="The gradient of a function (d) → () is a vector of shape (d).",
    equation="E.2.19",
)
def _c2_35() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.calculus import grad_fd

    shapes = []
    for d in (1, 3, 7):
        x = _rng(d).normal(size=d)
        shapes.append(
            (
                tuple(_np(grad_fd(lambda v: np.sum(v**2), x)).shape),
                tuple(jax.grad(lambda v: jnp.sum(v**2))(jnp.asarray(x)).shape),
            )
        )
        assert shapes[-1] == ((d,), (d,)), f"d={d}: gradient shapes {shapes[-1]}"
    return f"gradient shapes {[s[0] for s in shapes]} (grad_fd and jax.grad)"


@claim(
    "C2-36",
    section="2.2.2",
    lines=(710, 738),
    statement="The directional derivative along any v equals ⟨∇f(x), v⟩, so the "
    "gradient gives every directional derivative.",
    equation="E.2.21",
)
def _c2_36() -> str:
    from alice_lab.calculus import directional_derivative

    rng = _rng(22)
    worst = 0.0
    for _ in range(5):
        x, v = rng.normal(size=3), rng.normal(size=3)
        dd = float(directional_derivative(_quartic, x, v))
        manual = (_quartic(x + 1e-5 * v) - _quartic(x - 1e-5 * v)) / 2e-5
        ref = float(_quartic_grad(x) @ v)
        rel = abs(dd - ref) / abs(ref)
        assert rel < 1e-6 and abs(manual - ref) / abs(ref) < 1e-6, (
            f"{dd}, {manual} vs {ref}"
        )
        worst = max(worst, rel)
    return f"5 random (x, v): relative error ≤ {worst:.1e}"


def _g_vec(x):
    """g : (3) -> (4)."""
    return np.tanh(
        np.array([x[0] + x[1], x[1] * x[2], x[0] - x[2], x[0] * x[1] * x[2]])
    )


def _f_vec(y):
    """f : (4) -> (2)."""
    return np.array([np.sin(y[0]) * y[1], y[2] ** 2 + np.exp(y[3])])


@claim(
    "C2-37",
    section="2.2.3",
    lines=(742, 758),
    statement="The Jacobian of f : (d) → (o) has shape (o, d); with o = 1 it is the "
    "gradient and with d = o = 1 the derivative.",
    equation="E.2.22",
)
def _c2_37() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.calculus import derivative, grad_fd, jacobian_fd

    x = np.array([0.2, -0.4, 0.9])
    J = _np(jacobian_fd(_g_vec, x))
    Jj = np.asarray(
        jax.jacobian(
            lambda v: jnp.tanh(
                jnp.stack([v[0] + v[1], v[1] * v[2], v[0] - v[2], v[0] * v[1] * v[2]])
            )
        )(jnp.asarray(x.astype(np.float32)))
    )
    assert J.shape == Jj.shape == (4, 3), f"Jacobian shapes {J.shape}, {Jj.shape}"
    assert _maxerr(J, Jj) < 1e-5, f"FD vs jax.jacobian: {_maxerr(J, Jj):.1e}"
    Jg = _np(jacobian_fd(_quartic, x))
    assert Jg.shape == (3,) and _maxerr(Jg, _np(grad_fd(_quartic, x))) < 1e-8
    J11 = _np(jacobian_fd(lambda v: np.sin(v), np.array([0.7])))
    d11 = float(derivative(np.sin, 0.7, scheme="central"))
    assert (
        J11.shape == (1, 1)
        and abs(J11[0, 0] - d11) < 1e-8
        and abs(d11 - np.cos(0.7)) < 1e-9
    )
    return f"(3)->(4): {J.shape}; (3)->(): {Jg.shape} = gradient; (1)->(1): {J11.shape}"


@claim(
    "C2-38",
    section="2.2.3",
    lines=(758, 772),
    statement="Chain rule for Jacobians: ∂[f(g(x))] = ∂f(g(x)) ∂g(x), an (o, h) by (h,"
    " d) matrix product.",
    equation="E.2.23",
)
def _c2_38() -> str:
    from alice_lab.calculus import jacobian_fd

    x = np.array([0.2, -0.4, 0.9])
    Jfg = _np(jacobian_fd(lambda v: _f_vec(_g_vec(v)), x))
    Jf = _np(jacobian_fd(_f_vec, _g_vec(x)))
    Jg = _np(jacobian_fd(_g_vec, x))
    assert Jf.shape == (2, 4) and Jg.shape == (4, 3) and Jfg.shape == (2, 3)
    err = _maxerr(Jfg, Jf @ Jg)
    assert err < 1e-7, f"chain rule mismatch {err:.1e}"
    import torch

    xt = torch.tensor(x, requires_grad=True)
    Jt = torch.autograd.functional.jacobian(
        lambda v: torch.stack(
            [
                torch.sin(torch.tanh(v[0] + v[1])) * torch.tanh(v[1] * v[2]),
                torch.tanh(v[0] - v[2]) ** 2
                + torch.exp(torch.tanh(v[0] * v[1] * v[2])),
            ]
        ),
        xt,
    ).numpy()
    assert _maxerr(Jt, Jf @ Jg) < 1e-7, f"vs torch jacobian {_maxerr(Jt, Jf @ Jg):.1e}"
    return f"(2,4)(4,3) = (2,3); error {err:.1e} (FD), torch agrees"


@claim(
    "C2-39",
    section="2.2.3",
    lines=(772, 788),
    statement="The first-order Taylor approximation f(x0) + ⟨∂f(x0), x − x0⟩ has an "
    "error that vanishes faster than ‖x − x0‖ (quadratically for smooth f).",
)
def _c2_39() -> str:
    from alice_lab.calculus import linearize

    x0 = np.array([0.3, -1.2, 0.8])
    u = _rng(23).normal(size=3)
    u /= np.linalg.norm(u)
    f_lin = linearize(_quartic, x0, grad=_quartic_grad(x0))
    rs = np.array([1e-1, 1e-2, 1e-3])
    errs = np.array([abs(_quartic(x0 + r * u) - float(f_lin(x0 + r * u))) for r in rs])
    by_hand = np.array(
        [
            abs(_quartic(x0 + r * u) - _quartic(x0) - r * (_quartic_grad(x0) @ u))
            for r in rs
        ]
    )
    assert np.allclose(errs, by_hand, rtol=1e-6, atol=1e-15), (errs, by_hand)
    ratios = errs / rs
    slope = np.polyfit(np.log10(rs), np.log10(errs), 1)[0]
    assert np.all(np.diff(ratios) < 0) and ratios[-1] < 1e-2, f"error/‖Δ‖ = {ratios}"
    assert 1.9 < slope < 2.1, f"log-log slope {slope:.2f}"
    return f"error/‖Δ‖ = {', '.join(f'{r:.1e}' for r in ratios)}; slope {slope:.2f}"


@claim(
    "C2-40",
    section="2.2.3",
    lines=(790, 812),
    statement="Box 2.6: for f(x) = x² − 1.5x linearised at 0.5, f(0.51) = −0.5049 and "
    "the linearisation gives −0.5050; the gap is exactly h² = 10⁻⁴.",
    equation="Box 2.6",
)
def _c2_40() -> str:
    from alice_lab.calculus import linearize
    from alice_lab.testfuncs import dquad_1d, quad_1d

    f = lambda x: x**2 - 1.5 * x
    df = lambda x: 2 * x - 1.5
    x = 0.5
    f_lin = lambda p: f(x) + df(x) * (p - x)  # the box names this argument h
    assert (f(x), df(x)) == (-0.5, -0.5), (f(x), df(x))
    a, b = f(x + 0.01), f_lin(x + 0.01)
    assert np.isclose(a, -0.5049, atol=1e-12) and np.isclose(b, -0.505, atol=1e-12), (
        a,
        b,
    )
    assert np.isclose(a - b, 1e-4, atol=1e-15), f"gap {a - b}"
    ours = float(
        linearize(quad_1d, np.asarray(x), grad=dquad_1d(np.asarray(x)))(
            np.asarray(x + 0.01)
        )
    )
    assert np.isclose(ours, b, atol=1e-15), f"linearize gives {ours}"
    return f"f(0.51) = {a:.4f}, f_lin(0.51) = {b:.4f}, gap {a - b:.1e}"


@claim(
    "C2-41",
    section="2.2.3",
    lines=(816, 830),
    statement="The Jacobian of Wx with respect to x is W itself, of shape (o, d).",
)
def _c2_41() -> str:
    from alice_lab.calculus import jacobian_fd

    rng = _rng(24)
    W, x = rng.normal(size=(3, 4)), rng.normal(size=4)
    J = _np(jacobian_fd(lambda v: W @ v, x))
    assert J.shape == (3, 4) and _maxerr(J, W) < 1e-8, f"{_maxerr(J, W):.1e}"
    return f"∂_x[Wx] = W up to {_maxerr(J, W):.0e}"


@claim(
    "C2-42",
    section="2.2.3",
    lines=(844, 844),
    statement="The Jacobian of Wx with respect to W ~ (o, d) has shape (o, o, d), or "
    "(o, od) for the vectorised W.",
)
def _c2_42() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.calculus import jacobian_fd

    rng = _rng(25)
    o, d = 3, 4
    W, x = rng.normal(size=(o, d)), rng.normal(size=d)
    xj = jnp.asarray(x.astype(np.float32))
    Jj = np.asarray(jax.jacobian(lambda M: M @ xj)(jnp.asarray(W.astype(np.float32))))
    Jfd = _np(jacobian_fd(lambda M: M @ x, W))
    Jvec = np.asarray(
        jax.jacobian(lambda w: w.reshape(o, d) @ xj)(
            jnp.asarray(W.ravel().astype(np.float32))
        )
    )
    assert Jj.shape == Jfd.shape == (o, o, d), f"{Jj.shape}, {Jfd.shape}"
    assert Jvec.shape == (o, o * d) and _maxerr(Jj.reshape(o, o * d), Jvec) < 1e-6
    assert _maxerr(Jfd, Jj) < 1e-5, f"FD vs jax: {_maxerr(Jfd, Jj):.1e}"
    return f"∂_W[Wx] ~ {Jj.shape}; vectorised ~ {Jvec.shape}"


@claim(
    "C2-43",
    section="2.2.3",
    lines=(846, 878),
    statement="∂y_i/∂W_kj = x_j if i = k and 0 otherwise: the explicit Jacobian holds "
    "only od non-zeros out of o²d, each x_j repeated o times.",
    equation="E.2.24",
)
def _c2_43() -> str:
    import torch

    from alice_lab.calculus import jacobian_linear_wrt_W

    o, d = 3, 4
    rng = _rng(26)
    W, x = rng.normal(size=(o, d)), rng.normal(size=d)
    J = _np(jacobian_linear_wrt_W(x, o))
    explicit = np.array(
        [
            [[x[j] if i == k else 0.0 for j in range(d)] for k in range(o)]
            for i in range(o)
        ]
    )
    Jt = torch.autograd.functional.jacobian(
        lambda M: M @ torch.as_tensor(x), torch.as_tensor(W)
    ).numpy()
    assert J.shape == (o, o, d) and np.array_equal(J, explicit), "J[i,k,j] != δ_ik x_j"
    assert _maxerr(Jt, explicit) < 1e-15, "torch's Jacobian differs"
    assert np.array_equal(J.reshape(o, o * d), np.kron(np.eye(o), x[None])), "kron form"
    nnz = int(np.count_nonzero(J))
    assert nnz == o * d and J.size == o * o * d == 36, (nnz, J.size)
    return f"{nnz} non-zeros of {J.size} (o=3, d=4); reshape = I ⊗ xᵀ"


@claim(
    "C2-44",
    section="2.2.3",
    lines=(874, 880),
    statement="In practice only products with the Jacobian are needed: vᵀ∂_W[Wx] is "
    "the outer product v xᵀ ~ (o, d), computed without building the (o, o, "
    "d) tensor.",
)
def _c2_44() -> str:
    import torch

    from alice_lab.calculus import jacobian_linear_wrt_W, vjp_linear_wrt_W

    o, d = 3, 4
    rng = _rng(27)
    W, x, v = rng.normal(size=(o, d)), rng.normal(size=d), rng.normal(size=o)
    J = _np(jacobian_linear_wrt_W(x, o))
    via_J = np.einsum("i,ikj->kj", v, J)
    direct = _np(vjp_linear_wrt_W(v, x))
    Wt = torch.tensor(W, requires_grad=True)
    (torch.as_tensor(v) @ (Wt @ torch.as_tensor(x))).backward()
    outer = np.outer(v, x)
    for name, val in {
        "einsum with J": via_J,
        "vjp": direct,
        "torch backward": Wt.grad,
    }.items():
        assert _maxerr(_np(val), outer) < 1e-14, f"{name} differs from v xᵀ"
    return (
        f"vᵀJ = v xᵀ ~ {outer.shape} (stored {outer.size} numbers instead of {J.size})"
    )
