"""Checkable claims of Chapter 2, §2.3 gradient descent and the exercise.

Book lines 882-1160.

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
# 2.3 Gradient descent
# =====================================================================================


@claim(
    "C2-45",
    section="2.3",
    lines=(884, 898),
    statement="Minimising f is the same as maximising −f: arg min f = arg max (−f).",
    equation="E.2.25",
)
def _c2_45() -> str:
    from scipy.optimize import minimize_scalar

    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import quad_1d, xsin2x

    # arg max (−f) on a grid of the library's f, against SciPy's bounded minimiser of
    # the closed form f and against gradient *ascent* on −f (x ← x + η ∇(−f)).
    closed = {
        "x²−1.5x": lambda x: x * x - 1.5 * x,
        "x sin 2x": lambda x: x * np.sin(2 * x),
    }
    dclosed = {
        "x²−1.5x": lambda x: 2 * x - 1.5,
        "x sin 2x": lambda x: np.sin(2 * x) + 2 * x * np.cos(2 * x),
    }
    xs = np.linspace(-3, 3, 6001)
    found = {}
    for name, f in {"x²−1.5x": quad_1d, "x sin 2x": xsin2x}.items():
        neg = -_np(f(xs))
        x_max = float(xs[np.argmax(neg)])
        ref = minimize_scalar(
            closed[name], bounds=(0, 3), method="bounded", options={"xatol": 1e-9}
        )
        # x sin 2x is even: its two global minima sit at ±x*
        assert abs(abs(x_max) - abs(ref.x)) < 2e-3, (name, x_max, ref.x)
        assert abs(float(neg.max()) + ref.fun) < 1e-5, (name, neg.max(), ref.fun)
        # ascent on −f: its gradient is −f′, so the step is x − η f′(x), from near ref.x
        x0 = np.asarray(ref.x + 0.2)
        up = gradient_descent(lambda x, g=dclosed[name]: g(x), x0, lr=0.05, steps=2000)
        assert abs(float(_np(up.x)) - ref.x) < 1e-6, (name, up.x, ref.x)
        found[name] = x_max
    assert abs(found["x²−1.5x"] - 0.75) < 1e-3, found
    return ", ".join(f"arg max −({k}) = {v:.3f}" for k, v in found.items()) + (
        " (= SciPy's arg min)"
    )


@claim(
    "C2-46",
    section="2.3",
    lines=(918, 944),
    statement="A unit direction p is a descent direction when its angle with ∇f lies "
    "between π/2 and 3π/2; −∇f/‖∇f‖ gives the smallest directional "
    "derivative, −‖∇f‖.",
)
def _c2_46() -> str:
    from alice_lab.optim import is_descent_direction, steepest_direction

    g = np.array([1.2, -0.7])
    theta = np.linspace(0, 2 * np.pi, 10_000, endpoint=False)
    P = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    dd = P @ g
    ang = (theta - np.arctan2(g[1], g[0])) % (2 * np.pi)
    by_angle = (ang > np.pi / 2) & (ang < 3 * np.pi / 2)
    ours = _np(is_descent_direction(np.broadcast_to(g, P.shape), P))
    away = np.abs(np.cos(ang)) > 1e-9  # skip the two orthogonal directions
    assert np.array_equal(ours[away], by_angle[away]) and np.array_equal(
        dd[away] < 0, by_angle[away]
    )
    gn = np.linalg.norm(g)
    assert dd.min() >= -gn - 1e-12, f"min directional derivative {dd.min()} < -‖g‖"
    p_star = _np(steepest_direction(g))
    assert np.isclose(p_star @ g, -gn, rtol=1e-14) and np.isclose(
        np.linalg.norm(p_star), 1
    )
    assert abs(dd.min() + gn) < 1e-6, f"sampled minimum {dd.min()} vs {-gn}"
    return (
        f"{int(by_angle.sum())}/10000 sampled directions descend; min D_p f = "
        f"{dd.min():.6f} = −‖g‖"
    )


@claim(
    "C2-47",
    section="2.3",
    lines=(948, 964),
    statement="Gradient descent with a small enough step decreases f: on x² − 1.5x, "
    "x_t − 0.75 = (1 − 2η)ᵗ (x_0 − 0.75), monotone for η < 0.5, one step at "
    "η = 0.5, oscillating for 0.5 < η < 1, divergent for η > 1.",
    equation="E.2.27",
)
def _c2_47() -> str:
    from alice_lab.optim import DivergenceError, gradient_descent
    from alice_lab.testfuncs import dquad_1d, quad_1d

    x0, T = 3.0, 20
    t = np.arange(T + 1)
    for eta in (0.1, 0.5, 0.75):
        path = _np(gradient_descent(dquad_1d, np.array([x0]), lr=eta, steps=T).path)[
            :, 0
        ]
        closed = 0.75 + (1 - 2 * eta) ** t * (x0 - 0.75)
        assert _maxerr(path, closed) < 1e-12, f"η={eta}: path vs closed form"
        fvals = quad_1d(path)
        assert np.all(np.diff(fvals) <= 1e-15), f"η={eta}: f increased"
    p05 = _np(gradient_descent(dquad_1d, np.array([x0]), lr=0.5, steps=1).path)[:, 0]
    assert p05[1] == 0.75, f"η=0.5 should land on 0.75 in one step, got {p05[1]}"
    p075 = 0.75 + (1 - 1.5) ** t * (x0 - 0.75)
    assert np.all(np.diff(np.sign(p075[:5] - 0.75)) != 0), "η=0.75 should oscillate"
    p11 = _np(gradient_descent(dquad_1d, np.array([x0]), lr=1.1, steps=T).path)[:, 0]
    assert np.all(np.diff(quad_1d(p11)) > 0), "η=1.1: f should increase"
    try:
        gradient_descent(dquad_1d, np.array([x0]), lr=1.1, steps=2000)
    except DivergenceError as err:
        step = err.step
    else:
        raise AssertionError("η=1.1 for 2000 steps did not raise DivergenceError")
    return (
        f"closed form matched for η = 0.1, 0.5, 0.75; η = 1.1 diverged at step {step}"
    )


@claim(
    "C2-48",
    section="2.3.1",
    lines=(986, 1006),
    statement="A saddle point is stationary but not an extremum: for x₁² − x₂² the "
    "gradient vanishes at 0, f rises along x₁ and falls along x₂, and "
    "gradient descent escapes from any tiny push along x₂.",
    equation="Figure F.2.3",
)
def _c2_48() -> str:
    from alice_lab.calculus import classify_stationary_point, hessian_fd
    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import saddle_2d, saddle_2d_grad

    zero = np.zeros(2)
    assert np.array_equal(_np(saddle_2d_grad(zero)), [0.0, 0.0])
    t = np.array([-1e-3, 1e-3, 0.5])
    up = saddle_2d(np.stack([t, 0 * t], 1))
    down = saddle_2d(np.stack([0 * t, t], 1))
    assert np.all(up > 0) and np.all(down < 0), (up, down)
    H = _np(hessian_fd(saddle_2d, zero))
    assert _maxerr(H, np.diag([2.0, -2.0])) < 1e-4, f"Hessian {H}"
    kind = classify_stationary_point(H)
    assert "saddle" in str(kind).lower(), f"classified as {kind}"
    stay = _np(gradient_descent(saddle_2d_grad, zero, lr=0.1, steps=50).x)
    go = _np(
        gradient_descent(saddle_2d_grad, np.array([0.0, 1e-8]), lr=0.1, steps=120).x
    )
    assert np.array_equal(stay, zero), f"GD left the saddle from rest: {stay}"
    assert abs(go[1]) > 1.0, f"GD from (0, 1e-8) ended at {go}"
    return (
        f"Hessian eigenvalues {np.round(np.linalg.eigvalsh(H), 4).tolist()}; pushed "
        f"GD x₂ = {go[1]:.2f}"
    )


@claim(
    "C2-49",
    section="2.3.1",
    lines=(1008, 1016),
    statement="A parabola has a single (global) minimum and no saddle points; gradient"
    " descent reaches it from any starting point.",
)
def _c2_49() -> str:
    from alice_lab.optim import gradient_descent

    a, c = 2.0, 1.7
    x0 = _rng(28).uniform(-10, 10, size=(50, 1))
    res = gradient_descent(lambda x: 2 * a * (x - c), x0, lr=0.1, steps=200)
    err = _maxerr(_np(res.x), c)
    assert err < 1e-10, f"50 starts, max distance to the minimiser {err:.1e}"
    return f"50 starts in [-10, 10] -> {c} (max error {err:.0e})"


@claim(
    "C2-50",
    section="2.3.1",
    lines=(1018, 1040),
    statement="f is convex when f(αx₁ + (1 − α)x₂) ≤ αf(x₁) + (1 − α)f(x₂); an upward "
    "parabola satisfies it, x sin 2x does not (e.g. x₁ = 0, x₂ = 2, α = "
    "0.5).",
    equation="E.2.28",
)
def _c2_50() -> str:
    from alice_lab.calculus import check_convexity
    from alice_lab.testfuncs import xsin2x

    rng = _rng(29)
    x1s, x2s = rng.uniform(-5, 5, 200), rng.uniform(-5, 5, 200)
    alphas = np.linspace(0, 1, 11)
    assert check_convexity(lambda x: x**2, x1s, x2s, alphas) is None, (
        "x² flagged non-convex"
    )
    bad = check_convexity(xsin2x, x1s, x2s, alphas)
    assert bad is not None, "no violation found for x sin 2x"
    u, v, al = (float(np.asarray(b)) for b in bad)
    f = lambda x: x * np.sin(2 * x)
    assert f(al * u + (1 - al) * v) > al * f(u) + (1 - al) * f(v), (
        f"reported triple {bad} does not violate the inequality"
    )
    mid, chord = 1 * np.sin(2.0), 0.5 * (0.0 + 2 * np.sin(4.0))
    assert np.isclose(mid, 0.9093, atol=1e-4) and np.isclose(chord, -0.7568, atol=1e-4)
    assert mid > chord
    return f"x sin 2x: f(1) = {mid:.3f} > chord {chord:.3f}; x² had no violation"


def _alice2d_grad_ref(X):
    """Closed-form gradient of sin x1 cos x2 + sin(x1/2) cos(x2/2), written out "
    "again."""
    x1, x2 = X[..., 0], X[..., 1]
    return np.stack(
        [
            np.cos(x1) * np.cos(x2) + 0.5 * np.cos(x1 / 2) * np.cos(x2 / 2),
            -np.sin(x1) * np.sin(x2) - 0.5 * np.sin(x1 / 2) * np.sin(x2 / 2),
        ],
        -1,
    )


def _grid_starts() -> np.ndarray:
    g = np.arange(0.5, 10.0, 1.0)
    return np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)


@claim(
    "C2-51",
    section="2.3.1",
    lines=(1048, 1048),
    statement="On a non-convex function gradient descent still reaches a stationary "
    "point, but which one depends on the start: the lab function from a 10 ×"
    " 10 grid of starts ends at several different stationary points.",
)
def _c2_51() -> str:
    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import alice2d, alice2d_grad

    res = gradient_descent(alice2d_grad, _grid_starts(), lr=0.1, steps=3000)
    ends = _np(res.x)
    gnorm = np.linalg.norm(_alice2d_grad_ref(ends), axis=1)
    assert gnorm.max() < 1e-6, f"max final gradient norm {gnorm.max():.1e}"
    inside = ends[np.all((ends >= 0) & (ends <= 10), axis=1)]
    distinct = np.unique(np.round(inside, 3), axis=0)
    assert len(distinct) >= 2, f"only {len(distinct)} distinct endpoints"
    digest = np.array(
        [
            (1.638, 3.510),
            (1.638, 9.057),
            (4.411, 6.283),
            (5.148, 0.000),
            (7.921, 2.773),
            (7.921, 9.793),
        ]
    )
    dist = np.abs(distinct[:, None, :] - digest[None]).max(-1).min(0)
    assert len(distinct) == 6 and dist.max() < 2e-3, f"endpoints {distinct.tolist()}"
    fvals = np.round(np.asarray(alice2d(distinct)), 4)
    return (
        f"max ‖∇f‖ {gnorm.max():.0e}; {len(distinct)} endpoints in the box, f = "
        f"{sorted(fvals.tolist())}"
    )


def _spd(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(seed)
    M = rng.normal(size=(d, d))
    return M @ M.T + d * np.eye(d) * 0.2, rng.normal(size=d)


@claim(
    "C2-52",
    section="2.3.1",
    lines=(1050, 1050),
    statement="On a convex function gradient descent reaches a global minimum whatever"
    " the start: for ½xᵀAx − bᵀx with A positive definite, every run ends at"
    " A⁻¹b.",
)
def _c2_52() -> str:
    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import convex_quadratic

    A, b = _spd(5, 30)
    f, grad = convex_quadratic(A, b)
    x0 = _rng(31).normal(size=(20, 5)) * 10
    lr = 1.0 / np.linalg.eigvalsh(A).max()
    res = gradient_descent(grad, x0, lr=lr, steps=3000)
    x_star = np.linalg.solve(A, b)
    err = _maxerr(_np(res.x), x_star[None])
    assert err < 1e-8, f"max distance to solve(A, b): {err:.1e}"
    fmin = float(f(x_star))
    assert np.allclose(_np(f(res.x)), fmin, atol=1e-12)
    return f"20 starts -> A⁻¹b (error {err:.0e}), f* = {fmin:.4f}"


@claim(
    "C2-53",
    section="2.3.1",
    lines=(1052, 1052),
    statement="Strict convexity makes the minimiser unique; a convex but not strictly "
    "convex f such as x₁² has a whole line of minimisers, and where GD stops"
    " depends on the start.",
)
def _c2_53() -> str:
    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import convex_quadratic

    A, b = _spd(3, 32)
    _, grad = convex_quadratic(A, b)
    x0 = _rng(33).normal(size=(15, 3)) * 5
    lr = 1.0 / np.linalg.eigvalsh(A).max()
    ends = _np(gradient_descent(grad, x0, lr=lr, steps=3000).x)
    spread = float(np.ptp(ends, axis=0).max())
    assert spread < 1e-9, f"strictly convex: endpoints spread by {spread:.1e}"
    flat = _np(
        gradient_descent(
            lambda x: x * np.array([2.0, 0.0]), x0[:, :2], lr=0.1, steps=500
        ).x
    )
    assert np.abs(flat[:, 0]).max() < 1e-12, "x1 should reach 0"
    assert np.array_equal(flat[:, 1], x0[:, 1]), "x2 should stay where it started"
    return (
        f"strictly convex spread {spread:.0e}; x₁² minimisers spread over "
        f"x₂ ∈ [{flat[:, 1].min():.2f}, {flat[:, 1].max():.2f}]"
    )


@claim(
    "C2-54",
    section="2.3.2",
    lines=(1064, 1064),
    statement="With the best step size (exact line search) on a convex quadratic, "
    "consecutive gradients are orthogonal.",
)
def _c2_54() -> str:
    import scipy.optimize

    from alice_lab.optim import exact_line_search_quadratic
    from alice_lab.testfuncs import convex_quadratic

    A, b = _spd(5, 34)
    f, grad = convex_quadratic(A, b)
    x = _rng(35).normal(size=5) * 3
    g0 = _np(grad(x))
    eta = float(exact_line_search_quadratic(A, b, x))
    best = scipy.optimize.minimize_scalar(
        lambda e: float(f(x - e * g0)),
        bounds=(0, 10),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert abs(best.x - eta) < 1e-6, f"line-search step {eta} vs scipy {best.x}"
    cosines = []
    for _ in range(10):
        g = _np(grad(x))
        x = x - float(exact_line_search_quadratic(A, b, x)) * g
        g_new = _np(grad(x))
        cosines.append(float(g @ g_new / (np.linalg.norm(g) * np.linalg.norm(g_new))))
    worst = max(abs(c) for c in cosines)
    assert worst < 1e-10, f"|cos(g_t, g_t+1)| up to {worst:.1e}"
    return f"η* = {eta:.4f} (scipy {best.x:.4f}); 10 steps, |cos| ≤ {worst:.0e}"


def _momentum_by_hand(grad_fn, x0, etas, lam):
    """The book's recursion with a step-size sequence: returns xs, gs, grads."""
    x, g = np.array(x0, dtype=float), np.zeros_like(np.asarray(x0, dtype=float))
    xs, gs, grads = [x], [g], []
    for eta in etas:
        grads.append(grad_fn(x))
        g = -eta * grads[-1] + lam * g
        x = x + g
        xs.append(x)
        gs.append(g)
    return np.array(xs), np.array(gs), np.array(grads)


@claim(
    "C2-55",
    section="2.3.2",
    lines=(1066, 1078),
    statement="Momentum: g_t = −η∇f(x_{t−1}) + λg_{t−1}, x_t = x_{t−1} + g_t with g_0 "
    "= 0; with λ = 0 it is exactly plain gradient descent.",
)
def _c2_55() -> str:
    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import alice2d_grad

    x0 = np.array([2.3, 4.1])
    plain = _np(gradient_descent(alice2d_grad, x0, lr=0.1, steps=50).path)
    lam0 = _np(gradient_descent(alice2d_grad, x0, lr=0.1, momentum=0.0, steps=50).path)
    xs, _, _ = _momentum_by_hand(_alice2d_grad_ref, x0, [0.1] * 50, 0.0)
    gd = [x0]
    for _ in range(50):
        gd.append(gd[-1] - 0.1 * _alice2d_grad_ref(gd[-1]))
    assert np.array_equal(plain, lam0), "momentum=0 differs from plain GD"
    assert _maxerr(xs, gd) == 0.0 and _maxerr(plain, gd) < 1e-14
    xm, gm, _ = _momentum_by_hand(_alice2d_grad_ref, x0, [0.1] * 50, 0.3)
    ours = _np(gradient_descent(alice2d_grad, x0, lr=0.1, momentum=0.3, steps=50).path)
    assert _maxerr(ours, xm) < 1e-13, (
        f"momentum path vs recursion {_maxerr(ours, xm):.1e}"
    )
    assert np.allclose(xm[1], gd[1]), "with g_0 = 0 the first step is a plain GD step"
    return (
        f"λ=0 path = GD path over 50 steps; λ=0.3 path matches the recursion "
        f"({_maxerr(ours, xm):.0e})"
    )


@claim(
    "C2-56",
    section="2.3.2",
    lines=(1080, 1098),
    statement="Unrolled with a constant step, g_t = −η Σ_{n=1..t} λ^(n−1) ∇f(x_{t−n}):"
    " the gradient from n steps back is damped by λ^(n−1).",
)
def _c2_56() -> str:
    from alice_lab.optim import momentum_unrolled

    eta, lam, T = 0.05, 0.6, 12
    _, gs, grads = _momentum_by_hand(
        _alice2d_grad_ref, np.array([2.3, 4.1]), [eta] * T, lam
    )
    closed = np.array(
        [
            -eta * sum(lam ** (n - 1) * grads[t - n] for n in range(1, t + 1))
            for t in range(1, T + 1)
        ]
    )
    ours = _np(momentum_unrolled(grads, eta, lam))
    assert _maxerr(closed, gs[1:]) < 1e-14, (
        f"closed form vs recursion {_maxerr(closed, gs[1:]):.1e}"
    )
    assert _maxerr(ours, gs[1:]) < 1e-14, "momentum_unrolled vs recursion"
    # the weight of the gradient n steps back, read off by perturbing it
    bump = grads.copy()
    bump[T - 4] += np.array([1.0, 0.0])
    delta = _np(momentum_unrolled(bump, eta, lam))[-1] - ours[-1]
    assert np.isclose(delta[0], -eta * lam**3, rtol=1e-10), (
        f"weight {delta[0]}, λ³η = {eta * lam**3}"
    )
    return (
        f"T = {T}: closed form = recursion ({_maxerr(closed, gs[1:]):.0e}); weight at "
        f"n = 4 is −ηλ³"
    )


@claim(
    "C2-57",
    section="2.3.2",
    lines=(1086, 1096),
    statement="Figure set-up: x sin 2x (even) has stationary points 0 (min), ±1.0144 "
    "(max), ±2.4566 (min), ±3.9893 (max), ±5.5428 (min); momentum GD (λ = "
    "0.3) from 1 + ε goes left for ε < 0.0144 and right for ε > 0.0144.",
    equation="Figure F.2.4",
)
def _c2_57() -> str:
    import scipy.optimize

    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import dxsin2x, xsin2x

    df = lambda x: np.sin(2 * x) + 2 * x * np.cos(2 * x)
    xs = np.linspace(0.01, 6, 6000)
    sign = np.sign(df(xs))
    roots = [
        scipy.optimize.brentq(df, xs[i], xs[i + 1])
        for i in np.nonzero(np.diff(sign))[0]
    ]
    ref = [1.0144, 2.4566, 3.9893, 5.5428]
    assert np.allclose(roots, ref, atol=1e-4), f"stationary points {roots}"
    f = lambda x: x * np.sin(2 * x)
    vals = [f(r) for r in roots]
    assert np.allclose(vals, [0.9099, -2.4072, 3.9584, -5.5204], atol=1e-4), vals
    assert df(0.0) == 0.0 and np.allclose(f(-xs), f(xs)), "x sin 2x should be even"
    second = np.array([(df(r + 1e-5) - df(r - 1e-5)) / 2e-5 for r in roots])
    assert np.array_equal(np.sign(second), [-1, 1, -1, 1]), f"f'' signs {second}"
    ends = {}
    for eps in (0.01, 0.05):
        res = gradient_descent(
            dxsin2x, np.asarray(1.0 + eps), lr=0.01, momentum=0.3, steps=2000
        )
        ends[eps] = float(_np(res.x))
    assert abs(ends[0.01]) < 1e-6 and abs(ends[0.05] - 2.4566) < 1e-4, (
        f"endpoints {ends}"
    )
    assert abs(float(_np(xsin2x(np.asarray(ends[0.05])))) + 2.4072) < 1e-4
    switch = roots[0] - 1
    return (
        f"max at {roots[0]:.4f} -> switch ε ≈ {switch:.4f}; ε=0.01 -> "
        f"{ends[0.01]:.1e}, ε=0.05 -> {ends[0.05]:.4f}"
    )


def _iters_to(grad_norms: np.ndarray, tol: float) -> np.ndarray:
    """First index t with ‖∇f(x_t)‖ < tol, per start (−1 if never)."""
    below = grad_norms < tol
    first = np.argmax(below, axis=0)
    return np.where(below.any(axis=0), first, -1)


@claim(
    "C2-58",
    section="2.3.2",
    lines=(1098, 1098),
    statement="Momentum can speed up gradient descent: with η = 0.01 and λ = 0.3 the "
    "median number of iterations to ‖∇f‖ < 10⁻⁶ over the lab's 10 × 10 starts drops "
    "by about 1/(1 − λ) ≈ 1.43, the factor by which momentum lengthens a steady step "
    "(the update is PyTorch's SGD with momentum); it is no guarantee (on x sin 2x with "
    "η = 0.1 momentum is slower).",
)
def _c2_58() -> str:
    import torch

    from alice_lab.optim import gradient_descent
    from alice_lab.testfuncs import alice2d_grad, dxsin2x

    X0 = _grid_starts()
    # the update against PyTorch's SGD(momentum=λ, dampening=0): v ← λv + ∇f, x ← x − ηv
    xt = torch.tensor(X0[:7], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([xt], lr=0.01, momentum=0.3)
    for _ in range(40):
        opt.zero_grad()
        xt.grad = torch.from_numpy(_alice2d_grad_ref(xt.detach().numpy()))
        opt.step()
    ours = gradient_descent(alice2d_grad, X0[:7], lr=0.01, momentum=0.3, steps=40)
    err = _maxerr(ours.x, xt.detach())
    assert err < 1e-12, f"momentum path differs from torch.optim.SGD by {err:.1e}"
    med = {}
    for lam in (0.0, 0.3):
        res = gradient_descent(alice2d_grad, X0, lr=0.01, momentum=lam, steps=3000)
        its = _iters_to(_np(res.grad_norms), 1e-6)
        assert np.all(its >= 0), (
            f"λ={lam}: {int((its < 0).sum())} starts did not converge"
        )
        med[lam] = float(np.median(its))
    ratio = med[0.0] / med[0.3]
    assert abs(ratio - 1 / (1 - 0.3)) < 0.05 * (1 / (1 - 0.3)), f"medians {med}"
    one_d = {}
    for eps, eta in ((0.01, 0.01), (0.1, 0.1)):
        for lam in (0.0, 0.3):
            res = gradient_descent(
                dxsin2x, np.asarray(1.0 + eps), lr=eta, momentum=lam, steps=2000
            )
            one_d[(eps, eta, lam)] = int(
                _iters_to(_np(res.grad_norms)[:, None], 1e-6)[0]
            )
    assert one_d[(0.01, 0.01, 0.3)] < one_d[(0.01, 0.01, 0.0)], one_d
    assert one_d[(0.1, 0.1, 0.3)] > one_d[(0.1, 0.1, 0.0)], one_d
    return (
        f"2-D medians GD {med[0.0]:.0f} vs momentum {med[0.3]:.0f} "
        f"(ratio {ratio:.2f}, 1/(1 − λ) = {1 / 0.7:.2f}); x sin 2x: η=0.01 "
        f"{one_d[(0.01, 0.01, 0.0)]} vs {one_d[(0.01, 0.01, 0.3)]}, η=0.1 "
        f"{one_d[(0.1, 0.1, 0.0)]} vs {one_d[(0.1, 0.1, 0.3)]}"
    )


@claim(
    "C2-59",
    section="2.3.2",
    lines=(1100, 1100),
    statement="Momentum stores the previous step, one extra number per parameter: it "
    "doubles the optimiser's memory (PyTorch's SGD keeps a momentum buffer "
    "the size of each parameter; plain SGD keeps none).",
)
def _c2_59() -> str:
    import torch

    torch.manual_seed(0)
    sizes = {}
    for momentum in (0.0, 0.9):
        model = torch.nn.Linear(5, 3)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
        model(torch.randn(4, 5)).pow(2).sum().backward()
        opt.step()
        bufs = [opt.state[p].get("momentum_buffer") for p in model.parameters()]
        n_params = sum(p.numel() for p in model.parameters())
        n_state = sum(b.numel() for b in bufs if b is not None)
        sizes[momentum] = (n_params, n_state)
    assert sizes[0.0][1] == 0, f"plain SGD kept {sizes[0.0][1]} numbers of state"
    assert sizes[0.9][1] == sizes[0.9][0], f"momentum state {sizes[0.9]}"
    return f"{sizes[0.9][0]} parameters: momentum buffer {sizes[0.9][1]}, plain SGD 0"


# =====================================================================================
# From theory to practice (lab)
# =====================================================================================


@claim(
    "C2-60",
    section="2.4",
    lines=(1134, 1150),
    statement="The lab function f(x) = sin x₁ cos x₂ + sin(x₁/2) cos(x₂/2) has the "
    "hand-written gradient (cos x₁ cos x₂ + ½cos(x₁/2)cos(x₂/2), −sin x₁ sin"
    " x₂ − ½sin(x₁/2)sin(x₂/2)), as finite differences and autodiff confirm.",
)
def _c2_60() -> str:
    import jax
    import jax.numpy as jnp

    from alice_lab.testfuncs import alice2d, alice2d_grad

    X = _rng(36).uniform(0, 10, size=(1000, 2))
    f_ref = np.sin(X[:, 0]) * np.cos(X[:, 1]) + np.sin(X[:, 0] / 2) * np.cos(
        X[:, 1] / 2
    )
    assert _maxerr(alice2d(X), f_ref) < 1e-15, "alice2d differs from the formula"
    h = 1e-6
    fd = np.stack(
        [(alice2d(X + h * e) - alice2d(X - h * e)) / (2 * h) for e in np.eye(2)], 1
    )
    G = _np(alice2d_grad(X))
    err = _maxerr(G, fd)
    assert err < 1e-8, f"hand gradient vs central FD: {err:.1e}"
    f1 = lambda x: (
        jnp.sin(x[0]) * jnp.cos(x[1]) + jnp.sin(0.5 * x[0]) * jnp.cos(0.5 * x[1])
    )
    Gj = np.asarray(jax.vmap(jax.grad(f1))(jnp.asarray(X[:50].astype(np.float32))))
    assert _maxerr(Gj, G[:50]) < 1e-5, f"vs jax.grad {_maxerr(Gj, G[:50]):.1e}"
    return f"1000 points: max |∇f − FD| = {err:.1e}; jax.grad agrees (float32)"


@claim(
    "C2-61",
    section="2.4",
    lines=(1130, 1138),
    statement="On [0, 10]² the lab function has several minima and maxima; the lowest "
    "value, about −1.7602, is near (4.41, 6.28) and the highest, about "
    "1.7602, near (1.87, 0).",
)
def _c2_61() -> str:
    from alice_lab.testfuncs import alice2d

    g = np.linspace(0, 10, 1001)
    X1, X2 = np.meshgrid(g, g, indexing="ij")
    F = np.asarray(alice2d(np.stack([X1, X2], -1).reshape(-1, 2))).reshape(X1.shape)
    i, j = np.unravel_index(F.argmin(), F.shape), np.unravel_index(F.argmax(), F.shape)
    lo = (float(g[i[0]]), float(g[i[1]]))
    hi = (float(g[j[0]]), float(g[j[1]]))
    assert np.isclose(F.min(), -1.7602, atol=1e-4) and np.allclose(
        lo, (4.41, 6.28), atol=0.011
    )
    assert np.isclose(F.max(), 1.7602, atol=1e-4) and np.allclose(
        hi, (1.87, 0.0), atol=0.011
    )
    c = F[1:-1, 1:-1]
    nbrs = [
        F[1 + a : F.shape[0] - 1 + a, 1 + b : F.shape[1] - 1 + b]
        for a in (-1, 0, 1)
        for b in (-1, 0, 1)
        if (a, b) != (0, 0)
    ]
    n_min = int(np.all([c < n for n in nbrs], axis=0).sum())
    n_max = int(np.all([c > n for n in nbrs], axis=0).sum())
    assert n_min >= 2 and n_max >= 2, f"interior local minima {n_min}, maxima {n_max}"
    return (
        f"min {F.min():.4f} at {lo}, max {F.max():.4f} at {hi}; "
        f"{n_min} interior local minima, {n_max} maxima on the grid"
    )


def _alice_single(x):
    """The lab function on one point x ~ (2), written for any namespace via methods."""
    import math

    return math.sin(x[0]) * math.cos(x[1]) + math.sin(0.5 * x[0]) * math.cos(0.5 * x[1])


@claim(
    "C2-62",
    section="2.4",
    lines=(1148, 1148),
    statement="The vectorised lab function maps X ~ (n, 2) to f(X) ~ (n) with [f(X)]_i"
    " = f(X_i), in NumPy, PyTorch and JAX.",
)
def _c2_62() -> str:
    import jax.numpy as jnp
    import torch

    from alice_lab.testfuncs import alice2d

    X = _rng(37).uniform(0, 10, size=(64, 2))
    loop = np.array([_alice_single(X[i]) for i in range(64)])
    outs = {
        "numpy": np.asarray(alice2d(X)),
        "torch": alice2d(torch.as_tensor(X)).numpy(),
        "jax": np.asarray(alice2d(jnp.asarray(X.astype(np.float32)))),
    }
    for name, out in outs.items():
        tol = 1e-5 if name == "jax" else 1e-14
        assert out.shape == (64,) and _maxerr(out, loop) < tol, (
            f"{name}: {_maxerr(out, loop):.1e}"
        )
    return "(64, 2) -> (64,) equal to the row loop in NumPy, torch and JAX"


@claim(
    "C2-63",
    section="2.4",
    lines=(1126, 1160),
    statement="vmap turns the single-point function into the vectorised one: jax.vmap "
    "and torch.func.vmap of f(x ~ (2)) equal f(X ~ (n, 2)).",
)
def _c2_63() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    from alice_lab.testfuncs import alice2d

    X = _rng(38).uniform(0, 10, size=(32, 2))
    ref = np.asarray(alice2d(X))
    f_j = lambda x: (
        jnp.sin(x[0]) * jnp.cos(x[1]) + jnp.sin(0.5 * x[0]) * jnp.cos(0.5 * x[1])
    )
    f_t = lambda x: (
        torch.sin(x[0]) * torch.cos(x[1])
        + torch.sin(0.5 * x[0]) * torch.cos(0.5 * x[1])
    )
    vj = np.asarray(jax.vmap(f_j)(jnp.asarray(X.astype(np.float32))))
    vt = torch.func.vmap(f_t)(torch.as_tensor(X)).numpy()
    assert vj.shape == vt.shape == (32,), (vj.shape, vt.shape)
    assert _maxerr(vj, ref) < 1e-5 and _maxerr(vt, ref) < 1e-14, (
        _maxerr(vj, ref),
        _maxerr(vt, ref),
    )
    return (
        f"jax.vmap (float32) within {_maxerr(vj, ref):.0e}, torch.func.vmap within "
        f"{_maxerr(vt, ref):.0e}"
    )


@claim(
    "C2-64",
    section="2.4",
    lines=(1126, 1126),
    statement="JAX and PyTorch mirror NumPy's interface: the same creation, indexing, "
    "broadcasting, matmul, reduction, einsum and exponential calls give the "
    "same numbers.",
)
def _c2_64() -> str:
    import jax
    import jax.numpy as jnp
    import torch

    rng = _rng(39)
    A = rng.normal(size=(3, 4)).astype(np.float32)
    B = rng.normal(size=(4, 2)).astype(np.float32)
    S = (0.3 * rng.normal(size=(3, 3))).astype(np.float32)

    def ops(xp, A, B, S, expm):
        return {
            "arange": xp.arange(6).reshape(2, 3) * 1.0,
            "index": A[1, 1:3],
            "broadcast": A + A[:, :1],
            "matmul": A @ B,
            "sum": A.sum(axis=0),
            "mean": A.mean(),
            "einsum": xp.einsum("ij,jk->ik", A, B),
            "exp": xp.exp(S),
            "expm": expm(S),
        }

    import scipy.linalg

    ref = ops(np, A, B, S, scipy.linalg.expm)
    tj = ops(jnp, jnp.asarray(A), jnp.asarray(B), jnp.asarray(S), jax.scipy.linalg.expm)
    tt = ops(
        torch,
        torch.as_tensor(A),
        torch.as_tensor(B),
        torch.as_tensor(S),
        torch.linalg.matrix_exp,
    )
    worst = 0.0
    for k, r in ref.items():
        for name, out in (("jax", tj[k]), ("torch", tt[k])):
            e = _maxerr(_np(out), r)
            assert _np(out).shape == np.shape(r) and e < 1e-5, f"{name} {k}: {e:.1e}"
            worst = max(worst, e)
    return (
        f"{len(ref)} operations agree across NumPy, JAX and torch (float32, ≤ "
        f"{worst:.0e})"
    )


# =====================================================================================
# Errata
# =====================================================================================


@claim(
    "E2-01",
    section="2.3.2",
    lines=(1080, 1084),
    statement="Unrolling momentum with a varying step gives g_t = −η_t∇f(x_{t−1}) − "
    "λη_{t−1}∇f(x_{t−2}) + λ²g_{t−2}: the t−2 term carries η_{t−1}; writing "
    "η_t there is right only for a constant step.",
    erratum="g_t = −η_t∇f(x_{t−1}) − λη_t∇f(x_{t−2}) + λ²g_{t−2}",
)
def _e2_01() -> str:
    lam, T = 0.3, 8
    etas = 0.2 * 0.5 ** np.arange(T)  # η_1, ..., η_T: a decaying schedule
    _, gs, grads = _momentum_by_hand(_alice2d_grad_ref, np.array([2.3, 4.1]), etas, lam)
    eta = lambda t: etas[t - 1]
    grad_at = lambda s: grads[s]  # ∇f(x_s)
    t = 5
    correct = (
        -eta(t) * grad_at(t - 1)
        - lam * eta(t - 1) * grad_at(t - 2)
        + lam**2 * gs[t - 2]
    )
    printed = (
        -eta(t) * grad_at(t - 1) - lam * eta(t) * grad_at(t - 2) + lam**2 * gs[t - 2]
    )
    err_c, err_p = _maxerr(correct, gs[t]), _maxerr(printed, gs[t])
    assert err_c < 1e-15, f"η_(t-1) form off by {err_c:.1e}"
    assert err_p > 1e-4, f"η_t form unexpectedly matches ({err_p:.1e})"
    _, gs_c, grads_c = _momentum_by_hand(
        _alice2d_grad_ref, np.array([2.3, 4.1]), [0.1] * T, lam
    )
    printed_c = (
        -0.1 * grads_c[t - 1] - lam * 0.1 * grads_c[t - 2] + lam**2 * gs_c[t - 2]
    )
    assert _maxerr(printed_c, gs_c[t]) < 1e-15, (
        "constant step: printed form should hold"
    )
    return (
        f"step schedule: η_(t−1) form error {err_c:.0e}, η_t form error {err_p:.1e}; "
        f"equal for constant η"
    )
