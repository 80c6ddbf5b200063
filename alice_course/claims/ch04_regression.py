"""Checkable claims of Chapter 4, §4.1 least-squares regression (book lines 1316-1586).

Each check computes what the book states and compares it with something outside
``alice_lab``: NumPy, SciPy, scikit-learn, PyTorch, a closed form, or the book's own
numbers. Torch is imported inside the checks that use it.
"""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _np, _rng


def _ls_problem(n=40, c=4, seed=0, noise=0.1):
    rng = _rng(seed)
    X = rng.standard_normal((n, c))
    return X, X @ rng.standard_normal(c) + noise * rng.standard_normal(n)


def _ill_conditioned(seed: int, n: int = 200, c: int = 8, smallest: float = 1e-6):
    """X = U diag(s) V^T with singular values from 1 down to ``smallest``."""
    rng = _rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, c)))
    V, _ = np.linalg.qr(rng.standard_normal((c, c)))
    X = (U * np.logspace(0, np.log10(smallest), c)) @ V.T
    return X, rng.standard_normal(n)


# =====================================================================================
# 4.1.1 The squared loss and variants
# =====================================================================================


@claim(
    "C4-01",
    section="4.1.1",
    lines=(1338, 1340),
    statement="The derivative of the squared loss (ŷ − y)² is 2(ŷ − y): linear in the "
    "model's output.",
    equation="E.4.1",
)
def _c4_01() -> str:
    import torch

    from alice_lab.losses import squared_loss

    rng = _rng(1)
    yh, y = rng.normal(size=50) * 3, rng.normal(size=50)
    t = torch.tensor(yh, requires_grad=True)
    squared_loss(t, torch.tensor(y), reduction="sum").backward()
    g = t.grad.numpy()
    assert _maxerr(g, 2 * (yh - y)) < 1e-12, "autograd vs 2(ŷ − y)"
    slope, intercept = np.polyfit(yh - y, g, 1)
    assert abs(slope - 2) < 1e-12 and abs(intercept) < 1e-12
    return f"torch.autograd slope {slope:.12f} in e = ŷ − y, intercept {intercept:.0e}"


@claim(
    "C4-02",
    section="4.1.1",
    lines=(1342, 1352),
    statement="The Gaussian negative log-likelihood is log σ + ½ log 2π + (y − "
    "f)²/2σ²; for any fixed σ² its minimiser over the weights is the least-squares "
    "solution.",
    equation="E.4.2",
)
def _c4_02() -> str:
    import scipy.optimize
    import scipy.stats

    from alice_lab.linear import linear_model
    from alice_lab.losses import gaussian_nll

    X, y = _ls_problem(seed=2)
    w = _rng(3).standard_normal(4)
    pred = linear_model(X, w)
    got = gaussian_nll(pred, y, 0.3, reduction="none")
    want = -scipy.stats.norm.logpdf(y, loc=pred, scale=np.sqrt(0.3))
    assert _maxerr(got, want) < 1e-12, "NLL vs scipy.stats.norm.logpdf"
    w_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    errs = []
    for s2 in (0.05, 1.0, 7.0):
        res = scipy.optimize.minimize(
            lambda v, s2=s2: float(gaussian_nll(X @ v, y, s2)),
            np.zeros(4),
            method="BFGS",
            options={"gtol": 1e-10},
        )
        errs.append(_maxerr(res.x, w_ls))
    assert max(errs) < 1e-5, f"argmin NLL vs lstsq: {errs}"
    return (
        "NLL = −logpdf to 1e-12; argmin over w = lstsq for σ² ∈ {0.05, 1, 7} "
        f"(max err {max(errs):.1e})"
    )


@claim(
    "C4-03",
    section="4.1.1",
    lines=(1356, 1360),
    statement="The Huber loss is ½e² for |e| ≤ 1 and |e| − ½ beyond: continuous, with "
    "a continuous derivative (±1) at |e| = 1, below ½e² outside; it is torch's "
    "huber_loss(δ=1) and smooth_l1_loss(β=1).",
    equation="E.4.3",
)
def _c4_03() -> str:
    import torch

    from alice_lab.losses import huber_loss

    e = np.linspace(-4, 4, 8001)
    h = huber_loss(e, np.zeros_like(e), reduction="none")
    te = torch.tensor(e)
    for ref in (
        torch.nn.functional.huber_loss(
            te, torch.zeros_like(te), delta=1.0, reduction="none"
        ),
        torch.nn.functional.smooth_l1_loss(
            te, torch.zeros_like(te), beta=1.0, reduction="none"
        ),
    ):
        assert _maxerr(h, ref.numpy()) < 1e-15
    for side in (1.0, -1.0):
        left = huber_loss(np.array([side * (1 - 1e-9)]), np.zeros(1))
        right = huber_loss(np.array([side * (1 + 1e-9)]), np.zeros(1))
        assert abs(float(left) - 0.5) < 1e-8 and abs(float(right) - 0.5) < 1e-8
    t = torch.tensor([1 - 1e-7, 1 + 1e-7, -1 + 1e-7, -1 - 1e-7], requires_grad=True)
    huber_loss(t, torch.zeros(4, dtype=t.dtype), reduction="sum").backward()
    assert _maxerr(t.grad.numpy(), [1, 1, -1, -1]) < 1e-6, t.grad
    out = np.abs(e) > 1
    assert np.all(h[out] < 0.5 * e[out] ** 2)
    return "both branches = 0.5 at |e| = 1, slopes ±1 on both sides; matches torch"


@claim(
    "C4-04",
    section="4.1.1",
    lines=(1354, 1356),
    statement="The absolute and Huber losses limit the influence of outliers: one "
    "corrupted point moves their fitted line far less than the least-squares line.",
    equation="E.4.3",
)
def _c4_04() -> str:
    import scipy.optimize

    from alice_lab.losses import absolute_loss, huber_loss, squared_loss

    rng = _rng(4)
    x = np.linspace(-1, 1, 20)
    y = 2.0 * x + 0.5 + 0.05 * rng.standard_normal(20)
    y_out = y.copy()
    y_out[-1] += 30.0  # one badly mislabeled point
    A = np.column_stack([x, np.ones_like(x)])

    def fit(loss, target):
        res = scipy.optimize.minimize(
            lambda v: float(loss(A @ v, target)),
            np.zeros(2),
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20_000},
        )
        return res.x[0]

    moved = {
        name: abs(fit(fn, y_out) - fit(fn, y))
        for name, fn in (
            ("squared", squared_loss),
            ("absolute", absolute_loss),
            ("Huber", huber_loss),
        )
    }
    assert moved["Huber"] < moved["squared"] / 10, moved
    assert moved["absolute"] < moved["squared"] / 10, moved
    return "slope moved by " + ", ".join(f"{k} {v:.3f}" for k, v in moved.items())


@claim(
    "C4-05",
    section="4.1.1",
    lines=(1362, 1362),
    statement="Gradient descent from a random start never lands exactly on the kink "
    "of |e|, so the derivative of the absolute loss is always defined along the way.",
)
def _c4_05() -> str:
    import scipy.optimize

    rng = _rng(5)
    X = rng.normal(size=(30, 3))
    y = X @ rng.normal(size=3) + 0.3 * rng.normal(size=30)
    w, hits = rng.normal(size=3), 0
    for t in range(1, 5001):  # least absolute deviations, subgradient steps 0.5/√t
        e = X @ w - y
        hits += int(np.any(e == 0.0))
        w = w - 0.5 / np.sqrt(t) * (X.T @ np.sign(e)) / 30
    assert hits == 0, f"{hits} iterates hit e = 0 exactly"
    best = scipy.optimize.minimize(
        lambda v: np.mean(np.abs(X @ v - y)),
        w,
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12},
    ).fun
    gap = np.mean(np.abs(X @ w - y)) - best
    assert 0 <= gap < 5e-3, gap
    return (
        f"5000 steps on 30 residuals: 0 exact kinks; loss {gap:.1e} above the optimum"
    )


# =====================================================================================
# 4.1.2 The least-squares model
# =====================================================================================


@claim(
    "C4-62",
    section="4.1.2",
    lines=(1372, 1374),
    statement=(
        "With c input features the graph of f(x) = wᵀx + b is a flat set of "
        "dimension c in R^(c+1): a line for c = 1, a plane for c = 2, a "
        "hyperplane in general."
    ),
)
def _c4_62() -> str:
    from alice_lab.linear import linear_model

    dims = {}
    for c in (1, 2, 3, 5):
        rng = _rng(10 + c)
        w, b = rng.normal(size=c), rng.normal()
        X = rng.normal(size=(50, c))
        G = np.column_stack([X, linear_model(X, w, b)])  # points (x, f(x)) in R^(c+1)
        dims[c] = int(np.linalg.matrix_rank(G - G.mean(axis=0), tol=1e-9))
        assert dims[c] == c, f"c = {c}: the graph spans {dims[c]} dimensions"
    return "graph dimension = c: " + ", ".join(f"c={c}→{d}" for c, d in dims.items())


@claim(
    "C4-07",
    section="4.1.2",
    lines=(1374, 1378),
    statement="The bias trick: appending a constant 1 to x and b to w gives the same "
    "output, [x; 1]ᵀ[w; b] = wᵀx + b.",
)
def _c4_07() -> str:
    from alice_lab.linear import add_bias_column, linear_model

    rng = _rng(7)
    X, w, b = rng.normal(size=(30, 4)), rng.normal(size=4), 1.7
    ref = np.einsum("nc,c->n", X, w) + b  # wᵀx + b, row by row
    lhs = linear_model(X, w, b)
    Xb = add_bias_column(X)
    rhs = Xb @ np.append(w, b)
    assert _maxerr(Xb, np.hstack([X, np.ones((30, 1))])) == 0
    err = max(_maxerr(lhs, ref), _maxerr(rhs, ref))
    assert err < 1e-13, err
    return f"[x; 1]ᵀ[w; b] = wᵀx + b = linear_model, max difference {err:.1e}"


@claim(
    "C4-08",
    section="4.1.2",
    lines=(1388, 1408),
    statement="The batched model f(X) = Xw + 1b maps X ~ (n, c) to (n,), row i equal "
    "to wᵀxᵢ + b; Box 4.1's one line X @ w + b does it in PyTorch.",
    equation="E.4.5",
)
def _c4_08() -> str:
    import torch

    from alice_lab.linear import linear_model

    rng = _rng(8)
    X, w, b = rng.normal(size=(25, 3)), rng.normal(size=3), -0.4
    out = linear_model(X, w, b)
    assert out.shape == (25,)
    rows = np.array([w @ X[i] + b for i in range(25)])
    box = (torch.tensor(X) @ torch.tensor(w) + b).numpy()
    assert _maxerr(out, rows) < 1e-14 and _maxerr(out, box) < 1e-14
    return f"shape {out.shape}; row by row and torch Box 4.1 agree to 1e-14"


@claim(
    "C4-09",
    section="4.1.2",
    lines=(1410, 1410),
    statement="Permutation equivariance: permuting the rows of X permutes the rows of "
    "f(X) the same way, and the least-squares solution does not depend on the order "
    "of the rows.",
)
def _c4_09() -> str:
    from alice_lab.linear import least_squares, linear_model

    X, y = _ls_problem(seed=9)
    w = _rng(19).normal(size=4)
    perm = _rng(29).permutation(len(y))
    P = np.eye(len(y))[perm]
    assert _maxerr(linear_model(P @ X, w, 0.3), P @ linear_model(X, w, 0.3)) < 1e-13
    d = _maxerr(least_squares(X[perm], y[perm]), least_squares(X, y))
    assert d < 1e-12, d
    return f"f(PX) = P f(X); LS weights change by {d:.1e} under a row permutation"


# =====================================================================================
# 4.1.3 Solving the least-squares problem
# =====================================================================================


@claim(
    "C4-10",
    section="4.1.3",
    lines=(1426, 1432),
    statement="Up to the dropped constant, Xᵀ(Xw − y) is the gradient of least "
    "squares: it equals n/2 times the autograd gradient of E.4.4 and vanishes at the "
    "same w.",
)
def _c4_10() -> str:
    import torch

    from alice_lab.linear import ls_gradient, ls_loss

    X, y = _ls_problem(seed=10)
    w = _rng(11).normal(size=4)
    wt = torch.tensor(w, requires_grad=True)
    ls_loss(torch.tensor(X), torch.tensor(y), wt).backward()
    book = ls_gradient(X, y, w)
    ratio = book / wt.grad.numpy()
    assert np.allclose(ratio, len(y) / 2, rtol=1e-10), ratio
    return f"book gradient / autograd = {ratio.mean():.6f} = n/2 with n = {len(y)}"


@claim(
    "C4-11",
    section="4.1.3",
    lines=(1434, 1438),
    statement="Least squares is convex in w: its Hessian (2/n) XᵀX is positive "
    "semi-definite (a paraboloid in weight space).",
)
def _c4_11() -> str:
    import torch

    from alice_lab.linear import ls_loss

    X, y = _ls_problem(seed=14)
    Xt, yt = torch.tensor(X), torch.tensor(y)
    H = torch.autograd.functional.hessian(
        lambda v: ls_loss(Xt, yt, v), torch.zeros(4, dtype=torch.float64)
    )
    H = H.numpy()
    assert _maxerr(H, 2 / len(y) * X.T @ X) < 1e-12
    eig = np.linalg.eigvalsh(H)
    assert eig.min() >= -1e-12, eig
    return f"Hessian = (2/n) XᵀX, eigenvalues {eig.min():.3f} … {eig.max():.3f} ≥ 0"


@claim(
    "C4-12",
    section="4.1.3",
    lines=(1440, 1478),
    statement="At w* = (XᵀX)⁻¹Xᵀy the normal equations Xᵀ(Xw* − y) = 0 hold; the "
    "inverse, a solver, the SVD, numpy.linalg.lstsq and scikit-learn's "
    "LinearRegression give the same w*.",
    equation="E.4.7",
)
def _c4_12() -> str:
    from sklearn.linear_model import LinearRegression

    from alice_lab.linear import least_squares, ls_gradient

    X, y = _ls_problem(seed=15)
    ref = np.linalg.lstsq(X, y, rcond=None)[0]
    sk = LinearRegression(fit_intercept=False).fit(X, y).coef_
    errs = {
        m: _maxerr(least_squares(X, y, method=m), ref)
        for m in ("inv", "solve", "lstsq")
    }
    errs["sklearn"] = _maxerr(sk, ref)
    assert max(errs.values()) < 1e-10, errs
    g = np.abs(ls_gradient(X, y, ref)).max()
    assert g < 1e-10, g
    return f"max |Xᵀ(Xw* − y)| = {g:.1e}; all five agree to {max(errs.values()):.0e}"


@claim(
    "C4-13",
    section="4.1.3",
    lines=(1448, 1470),
    statement="On an ill-conditioned XᵀX (κ ≈ 1e12) a linear solver satisfies the "
    "normal equations far more accurately than multiplying by the explicit inverse.",
)
def _c4_13() -> str:
    from alice_lab.linear import least_squares, normal_equations

    ratios = []
    for seed in range(3):
        X, y = _ill_conditioned(seed)
        A, b = normal_equations(X, y)
        kappa = np.linalg.cond(A)
        assert 1e11 < kappa < 1e13, kappa
        res = {
            m: np.linalg.norm(A @ least_squares(X, y, method=m) - b) / np.linalg.norm(b)
            for m in ("solve", "inv")
        }
        ratios.append(res["inv"] / res["solve"])
    assert min(ratios) > 100, ratios
    return "relative residual of inv / solve: " + ", ".join(f"{r:.0e}" for r in ratios)


@claim(
    "C4-14",
    section="4.1.3",
    lines=(1486, 1488),
    statement="The pseudoinverse X† = (XᵀX)⁻¹Xᵀ satisfies X†X = I and equals "
    "numpy.linalg.pinv; the hat matrix M = XX† is symmetric, idempotent, of trace c, "
    "and ŷ = My are the least-squares predictions.",
)
def _c4_14() -> str:
    from alice_lab.linear import hat_matrix, least_squares, pseudoinverse

    X, y = _ls_problem(n=30, c=5, seed=16)
    Xd = pseudoinverse(X)
    assert _maxerr(Xd @ X, np.eye(5)) < 1e-12
    assert _maxerr(Xd, np.linalg.pinv(X)) < 1e-12
    M = hat_matrix(X)
    assert _maxerr(M, M.T) < 1e-12 and _maxerr(M @ M, M) < 1e-12
    assert abs(np.trace(M) - 5) < 1e-10
    assert _maxerr(M @ y, X @ least_squares(X, y)) < 1e-10
    return f"X†X = I, ‖X† − pinv‖ < 1e-12, trace M = {np.trace(M):.6f}, M² = M = Mᵀ"


@claim(
    "C4-15",
    section="4.1.3",
    lines=(1488, 1488),
    statement="Collinearity: when one feature is a multiple of another, X loses rank "
    "and XᵀX is singular, while the ridge system XᵀX + λI stays solvable.",
)
def _c4_15() -> str:
    from alice_lab.linear import least_squares

    X, y = _ls_problem(seed=17)
    Xc = np.column_stack([X, 3.0 * X[:, 1]])
    rank = np.linalg.matrix_rank(Xc)
    kappa = np.linalg.cond(Xc.T @ Xc)
    assert rank == 4 < Xc.shape[1] and kappa > 1e15, (rank, kappa)
    w = least_squares(Xc, y, method="solve", ridge=1e-2)
    assert np.isfinite(w).all()
    from sklearn.linear_model import Ridge

    sk = Ridge(alpha=1e-2, fit_intercept=False).fit(Xc, y).coef_
    assert _maxerr(w, sk) < 1e-8
    return (
        f"rank {rank} < c = 5, κ(XᵀX) = {kappa:.1e}; ridge (λ = 0.01) finite, = sklearn"
    )


def _figure_4_2(c: int = 3, steps: int = 15_000):
    from alice_lab.data import make_linear_regression
    from alice_lab.linear import least_squares, ls_gd

    X, y, _ = make_linear_regression(10, c, seed=0)
    # seed=1: the start must not be the generator's own w (both would draw from seed 0)
    return X, y, ls_gd(X, y, lr=1e-3, steps=steps, seed=1), least_squares(X, y)


@claim(
    "C4-16",
    section="4.1.3",
    lines=(1492, 1550),
    statement="With the small step η = 0.001 of Box 4.3, gradient descent on the "
    "Figure F.4.2 data (n = 10, wᵢ ~ N(0, 1), ε ~ N(0, 0.01)) lowers the loss at "
    "every step and reaches the closed-form weights.",
    equation="Box 4.3, Figure F.4.2",
)
def _c4_16() -> str:
    out = []
    for c in (1, 3, 5):
        X, y, run, w_star = _figure_4_2(c)
        losses = _np(run.losses)
        assert np.all(np.diff(losses) <= 1e-15), f"c = {c}: the loss went up"
        d = np.linalg.norm(_np(run.w) - w_star)
        assert d < 1e-9, f"c = {c}: ‖w_GD − w*‖ = {d}"
        out.append(f"c={c}: ‖w_GD − w*‖ = {d:.0e}")
    return "15000 steps, monotone; " + ", ".join(out)


@claim(
    "E4-03",
    section="4.1.3",
    lines=(1540, 1548),
    statement="The loss curve of Figure F.4.2 comes from gradient descent (Box 4.3): "
    "the closed form (Box 4.2) gives one number, the level the curve descends to.",
    erratum="the caption says the figure runs “code from Box 4.2” (the closed form)",
    equation="Figure F.4.2",
)
def _e4_03() -> str:
    from alice_lab.linear import ls_loss

    X, y, run, w_star = _figure_4_2(3)
    losses = _np(run.losses)
    closed = float(ls_loss(X, y, w_star))
    assert losses.shape == (15_001,) and losses[0] > 10 * closed
    assert abs(losses[-1] - closed) < 1e-12 * max(1.0, closed)
    return f"GD curve {losses[0]:.4f} → {losses[-1]:.6f}; closed-form loss {closed:.6f}"


@claim(
    "C4-17",
    section="4.1.3",
    lines=(1494, 1500),
    statement="With the test ‖w_{t+1} − w_t‖² < ε, larger steps (below 2/λ_max(XᵀX)) "
    "converge in fewer iterations; beyond 2/λ_max gradient descent diverges.",
    equation="E.4.8",
)
def _c4_17() -> str:
    from alice_lab.linear import ls_gd

    X, y, _, _ = _figure_4_2(3, steps=1)
    lam_max = np.linalg.eigvalsh(X.T @ X).max()
    iters = []
    for frac in (0.05, 0.2, 0.5, 0.9):
        run = ls_gd(X, y, lr=frac / lam_max, steps=20_000, eps=1e-20, stop=True)
        assert run.converged_at is not None, frac
        iters.append(run.converged_at)
    assert iters == sorted(iters, reverse=True) and iters[0] > iters[-1], iters
    blow = _np(ls_gd(X, y, lr=2.1 / lam_max, steps=200).losses)
    assert blow[-1] > 1e6 * blow[0], (blow[0], blow[-1])
    return (
        "iterations for η = (0.05, 0.2, 0.5, 0.9)/λ_max: "
        + ", ".join(map(str, iters))
        + f"; at 2.1/λ_max the loss grows to {blow[-1]:.1e}"
    )


@claim(
    "C4-18",
    section="4.1.3",
    lines=(1502, 1524),
    statement="Box 4.3 adds η Xᵀ(y − Xw): the sign is “+” because Xᵀ(y − Xw) is minus "
    "the gradient.",
)
def _c4_18() -> str:
    from alice_lab.linear import ls_gradient

    X, y = _ls_problem(seed=18)
    w = _rng(18).normal(size=4)
    d = _maxerr(X.T @ (y - X @ w), -ls_gradient(X, y, w))
    assert d < 1e-12
    return f"Xᵀ(y − Xw) + ∇LS = {d:.0e}"


@claim(
    "C4-19",
    section="4.1.3",
    lines=(1528, 1536),
    statement="Once the weights are fixed, the σ² maximising the Gaussian likelihood "
    "is the mean squared residual; on the F.4.2 generator with many points it "
    "recovers the noise variance 0.01.",
    equation="E.4.9",
)
def _c4_19() -> str:
    import scipy.optimize

    from alice_lab.data import make_linear_regression
    from alice_lab.linear import least_squares, ls_noise_variance
    from alice_lab.losses import gaussian_nll

    X, y = _ls_problem(seed=19)
    w = least_squares(X, y)
    s2 = float(ls_noise_variance(X, y, w))
    res = scipy.optimize.minimize_scalar(
        lambda v: float(gaussian_nll(X @ w, y, v)),
        bounds=(1e-4, 1.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert abs(res.x - s2) < 1e-7 * max(1.0, s2), (res.x, s2)
    Xb, yb, _ = make_linear_regression(100_000, 3, seed=1)
    big = float(ls_noise_variance(Xb, yb, least_squares(Xb, yb)))
    assert abs(big - 0.01) < 0.0005, big
    return f"argmin NLL σ² = {res.x:.6f} = {s2:.6f}; n = 1e5: σ*² = {big:.5f} ≈ 0.01"


# =====================================================================================
# 4.1.4 Some computational considerations
# =====================================================================================


@claim(
    "C4-20",
    section="4.1.4",
    lines=(1554, 1554),
    statement="κ(XᵀX) = κ(X)² in the 2-norm; in float32 the error of solving the "
    "normal equations grows with κ.",
)
def _c4_20() -> str:
    from alice_lab.linear import condition_number, least_squares

    X, y = _ls_problem(seed=20)
    k = float(condition_number(X))
    assert abs(float(condition_number(X.T @ X)) / k**2 - 1) < 1e-8
    assert abs(k / np.linalg.cond(X) - 1) < 1e-10
    errors = []
    for smallest in (1e-1, 1e-2, 1e-3):
        Xi, yi = _ill_conditioned(1, smallest=smallest)
        ref = np.linalg.lstsq(Xi, yi, rcond=None)[0]
        w32 = least_squares(Xi.astype(np.float32), yi.astype(np.float32))
        errors.append(np.linalg.norm(w32 - ref) / np.linalg.norm(ref))
    assert errors[0] < errors[1] < errors[2], errors
    return "float32 relative error for κ(X) = 10, 100, 1000: " + ", ".join(
        f"{e:.1e}" for e in errors
    )


@claim(
    "C4-21",
    section="4.1.4",
    lines=(1554, 1554),
    statement="Cost of the closed form: XᵀX takes on the order of c²n operations (nc² "
    "multiply-adds, counted one by one), the solve on the order of c³.",
)
def _c4_21() -> str:
    from alice_lab.linalg import matmul_naive

    counts = {}
    for n, c in ((20, 3), (40, 3), (20, 6)):
        X = _rng(n + c).normal(size=(n, c))
        _, mults = matmul_naive(X.T, X, count_flops=True)
        assert mults == n * c * c, (n, c, mults)  # nc² multiply-adds = 2nc² flops
        counts[(n, c)] = mults
    assert (
        counts[(40, 3)] == 2 * counts[(20, 3)]
        and counts[(20, 6)] == 4 * counts[(20, 3)]
    )
    return (
        f"multiply-adds of XᵀX for (n, c): {counts} = nc² (linear in n, quadratic in c)"
    )


@claim(
    "C4-22",
    section="4.1.4",
    lines=(1556, 1556),
    statement="Computing Xw first makes the gradient Xᵀ(Xw − y) linear in n and c; "
    "forming XᵀX first gives the same vector at a cost quadratic in c.",
)
def _c4_22() -> str:
    from alice_lab.linalg import matmul_naive
    from alice_lab.linear import gradient_flops, ls_gradient

    X, y = _ls_problem(n=30, c=5, seed=22)
    w = _rng(23).normal(size=5)
    a = ls_gradient(X, y, w)
    b = (X.T @ X) @ w - X.T @ y
    assert _maxerr(a, b) < 1e-12
    Xw, f1 = matmul_naive(X, w[:, None], count_flops=True)
    _, f2 = matmul_naive(X.T, Xw - y[:, None], count_flops=True)
    assert 2 * (f1 + f2) + 30 == gradient_flops(30, 5)  # 2 flops per multiply-add
    ratio = gradient_flops(1000, 512, order="XtX first") / gradient_flops(1000, 512)
    assert ratio > 200
    return (
        f"same vector (diff {_maxerr(a, b):.0e}); n = 1000, c = 512: forming XᵀX "
        f"first costs {ratio:.0f}× more"
    )


@claim(
    "C4-61",
    section="4.1.4",
    lines=(1554, 1556),
    statement="A 1024 × 1024 RGB image has c = 3·1024² = 3,145,728 features, millions "
    "(the book rounds it to c ≈ 10⁷); at that size XᵀX alone has c² ≈ 10¹³ entries "
    "(about 40 TB in float32), while Xw for a batch of 32 costs 32·c ≈ 10⁸ "
    "multiply-adds.",
)
def _c4_61() -> str:
    import torch

    batch = torch.empty((32, 3, 1024, 1024), device="meta")  # shapes only, no memory
    n, c = batch.flatten(1).shape
    assert (n, c) == (32, 3 * 1024**2) and 10**6 < c < 10**7, (n, c)
    gram_bytes = 4 * c**2
    assert 10**13 < gram_bytes < 10**14 and 10**8 < n * c < 10**9
    return (
        f"c = {c:,} per image; XᵀX in float32: {gram_bytes / 1e12:.0f} TB; "
        f"Xw: {n * c:,} multiply-adds"
    )


# =====================================================================================
# 4.1.5 Regularizing the least-squares solution
# =====================================================================================


@claim(
    "C4-24",
    section="4.1.5",
    lines=(1564, 1576),
    statement="Adding λI improves conditioning: κ(XᵀX + λI) falls as λ grows, "
    "‖w_ridge(λ)‖ shrinks, λ = 0 gives least squares, and the solution is "
    "scikit-learn's Ridge(alpha=λ).",
)
def _c4_24() -> str:
    from sklearn.linear_model import Ridge

    from alice_lab.linear import least_squares

    X, y = _ill_conditioned(2, n=60, c=6, smallest=1e-4)
    lams = np.logspace(-8, 2, 11)
    conds = [np.linalg.cond(X.T @ X + lam * np.eye(6)) for lam in lams]
    norms = [np.linalg.norm(least_squares(X, y, ridge=lam)) for lam in lams]
    assert all(a > b for a, b in zip(conds, conds[1:], strict=False)), conds
    assert all(a > b for a, b in zip(norms, norms[1:], strict=False)), norms
    w0, ref = least_squares(X, y, ridge=0.0), np.linalg.lstsq(X, y, rcond=None)[0]
    assert _maxerr(w0, ref) < 1e-6 * np.linalg.norm(ref)  # κ(XᵀX) = 1e8 here
    for lam in (1e-3, 1.0):
        sk = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(X, y).coef_
        assert _maxerr(least_squares(X, y, ridge=lam), sk) < 1e-8
    return (
        f"κ from {conds[0]:.1e} to {conds[-1]:.1e}, "
        f"‖w‖ from {norms[0]:.1f} to {norms[-1]:.3f}"
    )


@claim(
    "E4-05",
    section="4.1.5",
    lines=(1576, 1582),
    statement=(
        "w* = (XᵀX + λI)⁻¹Xᵀy minimises ½‖y − Xw‖² + (λ/2)‖w‖²; with the "
        "printed constants, (2/n)‖y − Xw‖² + (λ/2)‖w‖², the same λ gives "
        "another minimiser, (XᵀX + (nλ/4)I)⁻¹Xᵀy."
    ),
    erratum="LS-Reg(w) = (2/n)‖y − Xw‖² + (λ/2)‖w‖² as the problem solved by line 1568",
)
def _e4_05() -> str:
    import torch

    from alice_lab.linear import least_squares, ridge_loss

    X, y = _ls_problem(seed=25)
    n, lam = len(y), 0.7
    w = least_squares(X, y, ridge=lam)
    Xt, yt = torch.tensor(X), torch.tensor(y)

    def grad(f, v):
        t = torch.tensor(v, requires_grad=True)
        f(t).backward()
        return t.grad.numpy()

    right = np.linalg.norm(grad(lambda t: ridge_loss(Xt, yt, t, lam), w))
    printed = np.linalg.norm(
        grad(lambda t: 2 / n * ((yt - Xt @ t) ** 2).sum() + lam / 2 * (t**2).sum(), w)
    )
    assert right < 1e-10 and printed > 1e-3, (right, printed)
    w_printed = least_squares(X, y, ridge=n * lam / 4)
    at_printed = np.linalg.norm(
        grad(
            lambda t: 2 / n * ((yt - Xt @ t) ** 2).sum() + lam / 2 * (t**2).sum(),
            w_printed,
        )
    )
    assert at_printed < 1e-10
    return (
        f"‖∇‖ at w*: {right:.0e} for ½‖·‖² + λ/2‖w‖², "
        f"{printed:.2f} for the printed 2/n form"
    )


@claim(
    "C4-26",
    section="4.1.5",
    lines=(1584, 1586),
    statement="Ridge regression is the MAP estimate under a Gaussian prior w ~ N(0, "
    "τ²I) and Gaussian noise of variance σ², with λ = σ²/τ².",
)
def _c4_26() -> str:
    import scipy.optimize
    import scipy.stats

    from alice_lab.linear import least_squares

    X, y = _ls_problem(seed=26, noise=0.5)
    sigma2, tau2 = 0.25, 0.1

    def neg_log_posterior(w):
        lik = scipy.stats.norm.logpdf(y, loc=X @ w, scale=np.sqrt(sigma2)).sum()
        prior = scipy.stats.norm.logpdf(w, scale=np.sqrt(tau2)).sum()
        return -(lik + prior)

    res = scipy.optimize.minimize(
        neg_log_posterior, np.zeros(4), method="BFGS", options={"gtol": 1e-10}
    )
    w_ridge = least_squares(X, y, ridge=sigma2 / tau2)
    d = _maxerr(res.x, w_ridge)
    assert d < 1e-5, d
    return f"MAP (BFGS on the log posterior) vs ridge with λ = σ²/τ²: {d:.1e}"
