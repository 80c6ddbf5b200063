"""Checkable claims of Chapter 6, §6.4.1-6.4.2: vector-Jacobian products and how the
frameworks implement reverse mode (book lines 2952-3180)."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng
from alice_course.claims.ch06_setup import _x64

# =====================================================================================
# 6.4.1 Vector-Jacobian products
# =====================================================================================


@contextlib.contextmanager
def _torch_forward_ad():
    """torch's forward mode (jvp, jacfwd, hessian) loads its decompositions with
    torch.jit.script on first use, which warns that TorchScript is deprecated; the
    warning is about torch's internals, not about these checks."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=".*torch.jit.script", category=DeprecationWarning
        )
        yield


_W = _rng(60).standard_normal((3, 5))  # W ~ (c', c), deliberately not square
_x = _rng(61).standard_normal(5)


@claim(
    "C6-17",
    section="6.4.1",
    lines=(2956, 2956),
    statement="For a scalar f the JVP along v is the directional derivative ⟨∇f, v⟩; "
    "in general the JVP and the VJP are transposes: ⟨u, J v⟩ = ⟨Jᵀu, v⟩.",
)
def _c6_17() -> str:
    from alice_lab.autodiff import grad, jvp, vjp
    from alice_lab.calculus import directional_derivative

    f = lambda x: np.sum(np.tanh(_W @ x) ** 2)  # noqa: E731
    g = lambda x: np.sin(_W @ x) * x[:3]  # noqa: E731
    r = _rng(17)
    worst, worst_fd = 0.0, 0.0
    for _ in range(3):
        v, u = r.standard_normal(5), r.standard_normal(3)
        _, t = jvp(f, _x, v)
        worst = max(worst, abs(float(t) - grad(f)(_x) @ v))
        worst_fd = max(
            worst_fd, abs(float(t) - float(directional_derivative(f, _x, v)))
        )
        _, Jv = jvp(g, _x, v)
        _, vjp_fn = vjp(g, _x)
        worst = max(worst, abs(u @ Jv - vjp_fn(u) @ v))
    assert worst < 1e-12 and worst_fd < 1e-8, (worst, worst_fd)
    return (
        f"jvp = ∇f·v and ⟨u, Jv⟩ = ⟨Jᵀu, v⟩ within {worst:.0e}; finite differences "
        f"within {worst_fd:.0e}"
    )


@claim(
    "C6-18",
    section="6.4.1",
    lines=(2958, 2984),
    equation="E.6.5, E.6.6",
    statement="vjp_f(v) = vᵀ ∂f(x), one per argument: the input VJP vᵀ∂_x f and the "
    "weight VJP vᵀ∂_w f (shaped like x and like w).",
)
def _c6_18() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    from alice_lab.autodiff import jacobian, vjp

    f = lambda W, x, xp=np: xp.tanh(W @ x)  # noqa: E731
    v = _rng(18).standard_normal(3)
    _, vjp_fn = vjp(f, _W, _x)
    gW, gx = vjp_fn(v)
    JW, Jx = jacobian(lambda W: f(W, _x), _W), jacobian(lambda x: f(_W, x), _x)
    with _x64():
        jW, jx = jax.jit(
            lambda W, x, v: jax.vjp(lambda W, x: f(W, x, jnp), W, x)[1](v)
        )(_W, _x, v)
    tW, tx = torch.func.vjp(
        lambda W, x: f(W, x, torch), torch.tensor(_W), torch.tensor(_x)
    )[1](torch.tensor(v))
    assert gW.shape == _W.shape and gx.shape == _x.shape
    err = max(
        _maxerr(gx, v @ Jx),
        _maxerr(gW, np.tensordot(v, JW, axes=1)),
        _maxerr(gW, jW),
        _maxerr(gx, jx),
        _maxerr(gW, tW.numpy()),
        _maxerr(gx, tx.numpy()),
    )
    assert err < 1e-13, f"{err:.1e}"
    return (
        f"input VJP {gx.shape}, weight VJP {gW.shape} = vᵀJ = jax.vjp = torch.func.vjp"
    )


@claim(
    "C6-19",
    section="6.4.1",
    lines=(2986, 2992),
    equation="E.6.7, E.6.8",
    statement="A reverse-mode system needs only the VJPs of its primitives: two VJP "
    "calls per primitive and no Jacobian ever built give the same gradients as "
    "autograd.",
)
def _c6_19() -> str:
    import torch

    from alice_lab.autodiff import functional, trace

    widths = (6, 5, 4, 3)
    fs, x, ws = trace.random_trace(widths, seed=19)
    real = functional.jacobian_from_vjps

    def forbidden(*args, **kwargs):
        raise AssertionError("reverse mode built a Jacobian")

    trace.jacobian_from_vjps = forbidden  # any Jacobian built now fails the check
    try:
        rev = trace.reverse_mode(fs, x, ws)
    finally:
        trace.jacobian_from_vjps = real
    tws = [torch.tensor(w, requires_grad=True) for w in ws[:-1]]
    h = torch.tensor(x)
    for (ci, co), w in zip(
        zip(widths[:-1], widths[1:], strict=False), tws, strict=True
    ):
        h = torch.tanh(h @ w[: ci * co].reshape(ci, co) + w[ci * co :])
    (h**2).sum().backward()
    err = max(_maxerr(g, t.grad.numpy()) for g, t in zip(rev.grads, tws, strict=False))
    assert rev.cost.jacobians_built == 0 and rev.cost.vjp_calls == 2 * len(fs)
    assert err < 1e-13, f"{err:.1e}"
    return f"{rev.cost.vjp_calls} VJP calls, 0 Jacobians, = torch.autograd ({err:.0e})"


@claim(
    "C6-20",
    section="6.4.1",
    lines=(3006, 3016),
    statement="Stacking the VJPs of the output basis vectors rebuilds the Jacobian "
    "one row at a time (c′ calls); stacking JVPs of the input basis gives it one "
    "column at a time (c calls): jax.jacrev and jax.jacfwd.",
)
def _c6_20() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import jacobian_from_jvps, jacobian_from_vjps

    f = lambda x, xp=np: xp.tanh(_W @ x) * x[:3]  # noqa: E731
    rows, cols = jacobian_from_vjps(f, _x), jacobian_from_jvps(f, _x)
    with _x64():
        fj = lambda x: f(x, jnp)  # noqa: E731

        @jax.jit
        def three(x):
            _, vjp_fn = jax.vjp(fj, x)
            return jax.vmap(vjp_fn)(jnp.eye(3))[0], jax.jacrev(fj)(x), jax.jacfwd(fj)(x)

        stacked, rev, fwd = (np.asarray(a) for a in three(jnp.asarray(_x)))
    assert (rows.calls, cols.calls) == (3, 5), (rows.calls, cols.calls)
    err = max(_maxerr(rows.matrix, m) for m in (cols.matrix, stacked, rev, fwd))
    assert err < 1e-13, f"{err:.1e}"
    return (
        f"(3, 5) Jacobian: 3 VJP calls (rows) or 5 JVP calls (columns), = jax "
        f"({err:.0e})"
    )


@claim(
    "C6-46",
    section="6.4.1",
    lines=(3006, 3014),
    statement=(
        "The rows of ∂_x f are the VJPs of the c′ basis vectors of the output "
        "space: for c′ = 3 ≠ c = 5 three calls build it, and an input-sized "
        "vector is not a valid cotangent."
    ),
)
def _c6_46() -> str:
    from alice_lab.autodiff import vjp

    y, vjp_fn = vjp(lambda x: _W @ x, _x)
    J = np.stack([vjp_fn(e) for e in np.eye(y.size)])
    assert vjp_fn.calls == 3 and J.shape == (3, 5), (vjp_fn.calls, J.shape)
    assert _maxerr(J, _W) == 0.0
    try:
        vjp_fn(np.eye(5)[0])
    except ValueError as err:
        msg = str(err)
    else:
        raise AssertionError("a cotangent of the input's size was accepted")
    return (
        f"3 VJPs of output basis vectors give W exactly; a size-5 vector: {msg[:40]}…"
    )


@claim(
    "E6-04",
    section="6.4.1",
    lines=(3026, 3042),
    equation="E.6.9",
    erratum="vjp_{f,x}(v) = vᵀWᵀ = [Wv]ᵀ",
    statement="For f(x, W) = Wx with W ~ (c′, c) the input VJP is vᵀW = [Wᵀv]ᵀ, of "
    "shape (c): the printed Wv is not even defined when c ≠ c′ and is wrong for a "
    "non-symmetric square W.",
)
def _e6_04() -> str:
    import torch

    from alice_lab.autodiff import vjp

    v = _rng(21).standard_normal(3)
    _, vjp_fn = vjp(lambda x: _W @ x, _x)
    got = vjp_fn(v)
    xt = torch.tensor(_x, requires_grad=True)
    (torch.tensor(_W) @ xt).backward(torch.tensor(v))
    assert got.shape == (5,) and _maxerr(got, _W.T @ v) < 1e-15
    assert _maxerr(got, xt.grad.numpy()) < 1e-15
    try:
        _W @ v
    except ValueError:
        pass
    else:
        raise AssertionError("W v should not be defined for W (3, 5), v (3)")
    S = _rng(22).standard_normal((4, 4))
    u = _rng(23).standard_normal(4)
    _, vjp_sq = vjp(lambda x: S @ x, u)
    gap = _maxerr(vjp_sq(u), S @ u)
    assert _maxerr(vjp_sq(u), S.T @ u) < 1e-15 and gap > 0.1, gap
    return (
        f"vjp = Wᵀv (torch agrees); Wv undefined for (3, 5); square W: off by {gap:.2f}"
    )


@claim(
    "C6-22",
    section="6.4.1",
    lines=(3030, 3034),
    statement="The weight Jacobian of Wx is a rank-3 tensor of shape (c′, c′, c).",
)
def _c6_22() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import jacobian

    J = jacobian(lambda W: W @ _x, _W)
    with _x64():
        Jj = np.asarray(jax.jit(jax.jacrev(lambda W: W @ _x))(jnp.asarray(_W)))
    assert J.shape == Jj.shape == (3, 3, 5), J.shape
    want = np.einsum("ij,k->ijk", np.eye(3), _x)  # ∂(Wx)_i/∂W_jk = [i = j] x_k
    assert _maxerr(J, want) == 0.0 and _maxerr(J, Jj) < 1e-15
    return f"∂_W(Wx) has shape {J.shape}, = [i=j] x_k"


@claim(
    "C6-23",
    section="6.4.1",
    lines=(3044, 3064),
    equation="E.6.10",
    statement="The weight VJP of Wx is the outer product v xᵀ (shaped like W), since "
    "∂(vᵀWx)/∂W_ij = v_i x_j.",
)
def _c6_23() -> str:
    from alice_lab.autodiff import vjp
    from alice_lab.calculus import grad_fd

    v = _rng(23).standard_normal(3)
    _, vjp_fn = vjp(lambda W: W @ _x, _W)
    got = vjp_fn(v)
    fd = grad_fd(lambda W: v @ W @ _x, _W)
    assert got.shape == _W.shape
    exact, numeric = _maxerr(got, np.outer(v, _x)), _maxerr(got, fd)
    assert exact < 1e-15 and numeric < 1e-8, (exact, numeric)
    return f"vjp_W(v) = v xᵀ exactly; finite differences of vᵀWx within {numeric:.0e}"


@claim(
    "C6-24",
    section="6.4.1",
    lines=(3066, 3068),
    statement="Batched, for Y = XW with X ~ (n, c), W ~ (c, c′) and upstream V ~ (n, "
    "c′): dX = VWᵀ and dW = XᵀV, the sum of the per-example outer products.",
)
def _c6_24() -> str:
    import torch

    from alice_lab.autodiff import vjp

    r = _rng(24)
    X, W, V = (
        r.standard_normal((6, 4)),
        r.standard_normal((4, 3)),
        r.standard_normal((6, 3)),
    )
    _, vjp_fn = vjp(lambda X, W: X @ W, X, W)
    dX, dW = vjp_fn(V)
    Xt, Wt = torch.tensor(X, requires_grad=True), torch.tensor(W, requires_grad=True)
    (Xt @ Wt).backward(torch.tensor(V))
    per_example = sum(np.outer(X[i], V[i]) for i in range(6))
    err = max(
        _maxerr(dX, V @ W.T),
        _maxerr(dW, X.T @ V),
        _maxerr(dW, per_example),
        _maxerr(dX, Xt.grad.numpy()),
        _maxerr(dW, Wt.grad.numpy()),
    )
    assert err < 1e-14, f"{err:.1e}"
    return f"dX = VWᵀ {dX.shape}, dW = XᵀV {dW.shape}; torch agrees ({err:.0e})"


@claim(
    "C6-25",
    section="6.4.1",
    lines=(3070, 3108),
    equation="E.6.11",
    statement="An element-wise activation has a diagonal Jacobian, diag(φ′(x)) with "
    "exact zeros elsewhere, so its VJP is v ⊙ φ′(x); for ReLU φ′(x) = [x > 0].",
)
def _c6_25() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import jacobian, relu, sigmoid, vjp

    x, v = _rng(25).standard_normal(6), _rng(26).standard_normal(6)
    s = 0.5 * (np.tanh(x / 2) + 1)
    cases = {
        "tanh": (np.tanh, 1 - np.tanh(x) ** 2, jnp.tanh),
        "sigmoid": (sigmoid, s * (1 - s), jax.nn.sigmoid),
        "relu": (relu, (x > 0).astype(float), jax.nn.relu),
    }
    for name, (phi, dphi, phi_j) in cases.items():
        J = jacobian(phi, x)
        assert np.array_equal(J - np.diag(np.diag(J)), np.zeros((6, 6))), name
        with _x64():
            Jj = np.asarray(jax.jit(jax.jacrev(phi_j))(jnp.asarray(x)))
        assert _maxerr(np.diag(J), dphi) < 1e-15 and _maxerr(J, Jj) < 1e-15, name
        assert _maxerr(vjp(phi, x)[1](v), v * dphi) < 1e-15, name
    return "tanh, sigmoid, ReLU: diagonal Jacobians (= jax.jacrev), VJP = v ⊙ φ′(x)"


# =====================================================================================
# 6.4.2 Implementing a reverse-mode system
# =====================================================================================


@claim(
    "C6-26",
    section="6.4.2",
    lines=(3120, 3134),
    equation="Box 6.2",
    statement="torch.func.grad of the sum of squares, applied to a random vector of "
    "length 10, returns a gradient of shape torch.Size([10]), equal to 2x (as do "
    "jax.grad and the engine's grad).",
)
def _c6_26() -> str:
    import jax
    import jax.numpy as jnp
    import torch
    from torch import func

    def f(x):
        return (x**2).sum()

    torch.manual_seed(0)
    x = torch.randn(10, dtype=torch.float64)
    g = func.grad(f)(x)
    assert g.shape == torch.Size([10]), g.shape
    from alice_lab.autodiff import grad

    with _x64():
        gj = np.asarray(jax.jit(jax.grad(f))(jnp.asarray(x.numpy())))
    ge = grad(f)(x.numpy())
    err = max(
        _maxerr(g.numpy(), 2 * x.numpy()), _maxerr(gj, 2 * x.numpy()), _maxerr(ge, gj)
    )
    assert err < 1e-15, f"{err:.1e}"
    return f"torch.func.grad(f)(x).shape = {g.shape}; = 2x = jax.grad = engine"


@claim(
    "C6-27",
    section="6.4.2",
    lines=(3136, 3152),
    statement="As higher-order functions, vjp: (ℝᶜ → ℝᶜ′) → ℝᶜ → (ℝᶜ′ → ℝᶜ) returns "
    "f(x) and a function of v; grad: (ℝᶜ → ℝ) → (ℝᶜ → ℝᶜ).",
    equation="E.6.12, E.6.13",
)
def _c6_27() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.autodiff import grad, vjp

    y, vjp_fn = vjp(lambda x: np.tanh(_W @ x), _x)
    out = vjp_fn(np.ones(3))
    gfun = grad(lambda x: np.sum(x**3))
    assert callable(vjp_fn) and y.shape == (3,) and out.shape == (5,)
    assert callable(gfun) and gfun(_x).shape == (5,)
    with _x64():
        yj, vjp_j = jax.vjp(lambda x: jnp.tanh(_W @ x), jnp.asarray(_x))
        (outj,) = vjp_j(jnp.ones(3))
        gj = jax.grad(lambda x: jnp.sum(x**3))
        assert callable(gj) and gj(jnp.asarray(_x)).shape == (5,)
    assert _maxerr(y, yj) < 1e-15 and _maxerr(out, outj) < 1e-14
    return (
        "vjp(f, x) → (f(x) (3,), vjp_fn: (3,) → (5,)); grad(f): (5,) → (5,), as in JAX"
    )


@claim(
    "E6-05",
    section="6.4.2",
    lines=(3154, 3156),
    erratum="these ideas are implemented 'in jax.grad and jax.jvp respectively'",
    statement="The VJP signature is jax.vjp and the gradient signature jax.grad (in "
    "that order); jax.jvp is forward mode: it maps an input-space tangent to an "
    "output-space one, and jax.grad(f)(x) = jax.vjp(f, x)[1](1.0)[0].",
)
def _e6_05() -> str:
    import jax
    import jax.numpy as jnp

    with _x64():
        x = jnp.asarray(_x)
        f = lambda x: jnp.sum(jnp.tanh(_W @ x) ** 2)  # noqa: E731
        g = jax.grad(f)(x)
        (g_vjp,) = jax.vjp(f, x)[1](1.0)
        assert _maxerr(g, g_vjp) < 1e-15
        F = lambda x: jnp.tanh(_W @ x)  # noqa: E731
        _, vjp_fn = jax.vjp(F, x)
        _, t = jax.jvp(F, (x,), (jnp.ones(5),))
        assert vjp_fn(jnp.ones(3))[0].shape == (5,) and t.shape == (3,)
        try:
            jax.jvp(F, (x,), (jnp.ones(3),))
        except (TypeError, ValueError):
            pass
        else:
            raise AssertionError("jax.jvp accepted an output-space vector")
    return (
        "jax.vjp: (3,) → (5,); jax.jvp: (5,) → (3,); "
        "jax.grad(f) = jax.vjp(f, x)[1](1.0)"
    )


@claim(
    "C6-28",
    section="6.4.2",
    lines=(3156, 3156),
    statement="Composing the transformations gives second derivatives: the Hessian is "
    "jacfwd(jacrev(f)), for f(x) = xᵀAx it is A + Aᵀ, and a Hessian-vector product is "
    "the JVP of the gradient.",
)
def _c6_28() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    A = _rng(28).standard_normal((4, 4))
    x0, v = _rng(29).standard_normal(4), _rng(30).standard_normal(4)
    with _x64():
        f = lambda x: x @ jnp.asarray(A) @ x  # noqa: E731

        @jax.jit
        def second(x, v):
            hvp = jax.jvp(jax.grad(f), (x,), (v,))[1]
            return jax.hessian(f)(x), jax.jacfwd(jax.jacrev(f))(x), hvp

        H, H2, hvp = (np.asarray(a) for a in second(jnp.asarray(x0), jnp.asarray(v)))
    with _torch_forward_ad():
        Ht = torch.func.hessian(lambda x: x @ torch.tensor(A) @ x)(
            torch.tensor(x0)
        ).numpy()
        hvp_t = torch.func.jvp(
            torch.func.grad(lambda x: x @ torch.tensor(A) @ x),
            (torch.tensor(x0),),
            (torch.tensor(v),),
        )[1].numpy()
    err = max(
        _maxerr(H, A + A.T),
        _maxerr(H2, H),
        _maxerr(Ht, H),
        _maxerr(hvp, H @ v),
        _maxerr(hvp_t, hvp),
    )
    assert err < 1e-13, f"{err:.1e}"
    return (
        "hessian = jacfwd(jacrev) = A + Aᵀ; HVP = jvp(grad) = Hv (JAX and torch.func, "
        f"{err:.0e})"
    )


@claim(
    "C6-29",
    section="6.4.2",
    lines=(3120, 3156),
    statement="torch.func replicates JAX's interface: grad, vjp, jvp, jacrev, jacfwd, "
    "vmap and hessian exist in both and give the same numbers.",
    equation="Box 6.2",
)
def _c6_29() -> str:
    import jax
    import jax.numpy as jnp
    import torch
    from torch import func

    names = ["grad", "vjp", "jvp", "jacrev", "jacfwd", "vmap", "hessian"]
    assert all(hasattr(func, n) and hasattr(jax, n) for n in names)
    Xb = _rng(31).standard_normal((7, 5))
    with _x64():
        fj = lambda x: jnp.sum(jnp.sin(_W @ x) ** 2)  # noqa: E731
        xj = jnp.asarray(_x)

        @jax.jit
        def everything(xj, Xb):
            return {
                "grad": jax.grad(fj)(xj),
                "vjp": jax.vjp(lambda x: jnp.sin(_W @ x), xj)[1](jnp.ones(3))[0],
                "jvp": jax.jvp(fj, (xj,), (jnp.ones(5),))[1],
                "jacrev": jax.jacrev(lambda x: jnp.sin(_W @ x))(xj),
                "jacfwd": jax.jacfwd(lambda x: jnp.sin(_W @ x))(xj),
                "vmap": jax.vmap(fj)(Xb),
                "hessian": jax.hessian(fj)(xj),
            }

        J = everything(xj, jnp.asarray(Xb))
    Wt, xt = torch.tensor(_W), torch.tensor(_x)
    ft = lambda x: (torch.sin(Wt @ x) ** 2).sum()  # noqa: E731
    with _torch_forward_ad():
        T = {
            "grad": func.grad(ft)(xt),
            "vjp": func.vjp(lambda x: torch.sin(Wt @ x), xt)[1](
                torch.ones(3, dtype=torch.float64)
            )[0],
            "jvp": func.jvp(ft, (xt,), (torch.ones(5, dtype=torch.float64),))[1],
            "jacrev": func.jacrev(lambda x: torch.sin(Wt @ x))(xt),
            "jacfwd": func.jacfwd(lambda x: torch.sin(Wt @ x))(xt),
            "vmap": func.vmap(ft)(torch.tensor(Xb)),
            "hessian": func.hessian(ft)(xt),
        }
    err = max(_maxerr(np.asarray(J[n]), T[n].numpy()) for n in names)
    assert err < 1e-12, f"{err:.1e}"
    return f"{', '.join(names)}: torch.func = JAX within {err:.0e}"


@claim(
    "C6-30",
    section="6.4.2",
    lines=(3158, 3176),
    statement="'Purifying' a module: torch.func.functional_call(model, dict of "
    "parameters, x) equals model(x), and torch.func.grad of the functional loss "
    "equals the .grad fields that loss.backward() fills.",
)
def _c6_30() -> str:
    import torch
    from torch import func

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)
    ).double()
    x, y = torch.randn(5, 4, dtype=torch.float64), torch.tensor([0, 1, 1, 0, 1])
    params = {k: v.detach() for k, v in model.named_parameters()}
    same = torch.equal(func.functional_call(model, params, (x,)), model(x))

    def loss(p):
        return torch.nn.functional.cross_entropy(
            func.functional_call(model, p, (x,)), y
        )

    grads = func.grad(loss)(params)
    torch.nn.functional.cross_entropy(model(x), y).backward()
    err = max(
        float((grads[k] - p.grad).abs().max()) for k, p in model.named_parameters()
    )
    assert same and err < 1e-14, (same, err)
    return f"functional_call == model(x); func.grad == .grad for {len(params)} tensors"


@claim(
    "C6-31",
    section="6.4.2",
    lines=(3176, 3180),
    statement="Tape-based reverse mode (PyTorch, and our Tensor): every computed "
    "tensor records the operation that made it (grad_fn), backward() fills .grad of "
    "the leaves that require it (intermediates only with retain_grad()), and "
    "backward() on a non-scalar without a seed gradient is an error.",
)
def _c6_31() -> str:
    import torch

    from alice_lab.autodiff import Tensor

    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    h = a * 2
    y = (h.exp() + a).sum()
    assert h.grad_fn is not None and y.grad_fn is not None and a.grad_fn is None
    y.backward()
    with warnings.catch_warnings():  # reading .grad of a non-leaf warns: it is None
        warnings.simplefilter("ignore")
        assert a.grad is not None and h.grad is None and not h.retains_grad
    try:
        (a * 2).backward()
    except RuntimeError as err:
        torch_msg = str(err).splitlines()[0]
    else:
        raise AssertionError("torch accepted backward() on a non-scalar")
    ae = Tensor(a.detach().numpy(), requires_grad=True)
    he = ae * 2
    ye = (np.exp(he) + ae).sum()
    assert he.prim.name == "mul" and ye.prim.name == "sum" and ae.prim is None
    ye.backward()
    assert he.grad is None and _maxerr(ae.grad, a.grad.numpy()) < 1e-15
    try:
        (ae * 2).backward()
    except ValueError:
        pass
    else:
        raise AssertionError("the engine accepted backward() on a non-scalar")
    return f"grad_fn / prim recorded; .grad on leaves only; torch: '{torch_msg[:45]}…'"
