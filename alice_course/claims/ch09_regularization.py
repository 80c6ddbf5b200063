"""Checkable claims of Chapter 9, §9.1-§9.2: ImageNet, weight regularization, early
stopping and data augmentation (book lines 4329-4497). Ids follow the digest's numbering
(C9.n → ``C9-nn``)."""

from __future__ import annotations

import numpy as np

from alice_course.claims import claim
from alice_course.claims._helpers import _maxerr, _rng


def _diabetes():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    return X, y - y.mean()


def _ridge(X, y, lam):
    return np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)


# =====================================================================================
# 9.1 The ImageNet challenge
# =====================================================================================


@claim(
    "C9-02",
    section="9.1",
    lines=(4333, 4333),
    statement="ImageNet top-5 errors: 28% (2010), 26% (2011), 15.3% for AlexNet "
    "(2012), "
    "more than 10 points below the best non-neural entry.",
)
def _c9_02() -> str:
    errors = {2010: 28.0, 2011: 26.0, 2012: 15.3}
    assert errors[2011] - errors[2012] >= 10, errors
    assert errors[2010] > errors[2011] > errors[2012]
    return f"26 - 15.3 = {errors[2011] - errors[2012]:.1f} points"


@claim(
    "C9-03",
    section="9.1",
    lines=(4339, 4339),
    statement="AlexNet has 5 convolutional and 3 fully-connected layers, about 60M "
    "parameters (61,100,840 in the usual single-tower version).",
)
def _c9_03() -> str:
    import torch
    from torch import nn

    meta = {"device": torch.device("meta")}
    convs = [(3, 64, 11), (64, 192, 5), (192, 384, 3), (384, 256, 3), (256, 256, 3)]
    layers = [nn.Conv2d(a, b, k, **meta) for a, b, k in convs]
    layers += [
        nn.Linear(a, b, **meta)
        for a, b in [(256 * 6 * 6, 4096), (4096, 4096), (4096, 1000)]
    ]
    n = sum(p.numel() for m in layers for p in m.parameters())
    n_conv = sum(isinstance(m, nn.Conv2d) for m in layers)
    assert n_conv == 5 and len(layers) - n_conv == 3
    assert n == 61_100_840 and 55e6 < n < 65e6, n
    return f"{n:,} parameters"


@claim(
    "C9-04",
    section="9.1",
    lines=(4339, 4339),
    statement="Top models have up to hundreds of layers: ResNet-152 stacks 3+8+36+3 "
    "bottleneck blocks of 3 convolutions, plus the stem and the classifier = 152.",
)
def _c9_04() -> str:
    blocks = (3, 8, 36, 3)
    n = 3 * sum(blocks) + 1 + 1
    assert n == 152, n
    return f"3·{sum(blocks)} + 2 = {n} weighted layers"


# =====================================================================================
# 9.2.1 Weight regularization
# =====================================================================================


@claim(
    "C9-05",
    section="9.2.1",
    lines=(4347, 4351),
    statement="λ = 0 leaves the loss unchanged (ridge = least squares) and λ → ∞ "
    "drives the solution to the minimiser of R (w → 0 for ℓ2).",
)
def _c9_05() -> str:
    X, y = _diabetes()
    w_ols = np.linalg.lstsq(X, y, rcond=None)[0]
    err = _maxerr(_ridge(X, y, 0.0), w_ols)
    big = float(np.linalg.norm(_ridge(X, y, 1e12)))
    assert err < 1e-6 and big < 1e-6, (err, big)
    return f"|ridge(0) − lstsq| = {err:.1e}; ‖w(10¹²)‖ = {big:.1e}"


@claim(
    "C9-06",
    section="9.2.1",
    lines=(4353, 4357),
    equation="E.9.1",
    statement="MAP with a Gaussian prior N(0, τ²I) is ℓ2 regularization: for linear "
    "regression with noise σ² the MAP is (XᵀX + (σ²/τ²)I)⁻¹Xᵀy; a Laplace prior "
    "gives ‖w‖₁/b.",
)
def _c9_06() -> str:
    from scipy.optimize import minimize
    from scipy.stats import laplace, multivariate_normal, norm

    rng = _rng(0)
    X, w_true = rng.normal(size=(30, 3)), np.array([1.0, -2.0, 0.5])
    y = X @ w_true + 0.5 * rng.normal(size=30)
    sigma, tau = 0.5, 0.3

    def neg_log_post(w):
        return -(
            norm.logpdf(y, X @ w, sigma).sum()
            + multivariate_normal.logpdf(w, np.zeros(3), tau**2)
        )

    w_map = minimize(neg_log_post, np.zeros(3), tol=1e-12).x
    closed = _ridge(X, y, sigma**2 / tau**2)
    err = _maxerr(w_map, closed)
    assert err < 1e-5, err
    w = rng.normal(size=4)
    lp = laplace.logpdf(w, scale=2.0).sum()
    assert abs(-lp - (np.abs(w).sum() / 2.0 + 4 * np.log(4.0))) < 1e-12
    return f"MAP (scipy) vs closed-form ridge: {err:.1e}"


@claim(
    "C9-07",
    section="9.2.1",
    lines=(4361, 4361),
    statement="ℓ2 regularization favours smaller weights: ‖w_ridge(λ)‖ decreases "
    "monotonically with λ (load_diabetes).",
)
def _c9_07() -> str:
    from sklearn.linear_model import Ridge

    X, y = _diabetes()
    lams = np.logspace(-4, 3, 15)
    norms = [
        np.linalg.norm(Ridge(alpha=a, fit_intercept=False).fit(X, y).coef_)
        for a in lams
    ]
    assert np.all(np.diff(norms) < 0), norms
    return f"‖w‖ from {norms[0]:.0f} to {norms[-1]:.2f}"


@claim(
    "C9-08",
    section="9.2.1",
    lines=(4363, 4363),
    statement="∇L_reg = ∇L + 2λw for the ℓ2 penalty.",
)
def _c9_08() -> str:
    import torch

    from alice_lab.regularization import l2_grad

    rng = _rng(1)
    X, y, w0, lam = (
        rng.normal(size=(20, 4)),
        rng.normal(size=20),
        rng.normal(size=4),
        0.7,
    )
    w = torch.tensor(w0, requires_grad=True)
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    (((Xt @ w - yt) ** 2).mean() + lam * (w**2).sum()).backward()
    grad_L = 2 * X.T @ (X @ w0 - y) / 20
    err = _maxerr(l2_grad(grad_L, w0, lam), w.grad)
    assert err < 1e-12, err
    return f"formula vs torch.autograd: {err:.1e}"


@claim(
    "C9-09",
    section="9.2.1",
    lines=(4365, 4365),
    statement="Weight decay alone shrinks the weights geometrically: with ∇L = 0, "
    "gradient descent on λ‖w‖² gives w_t = (1 − 2ηλ)ᵗ w₀.",
)
def _c9_09() -> str:
    import torch

    w = torch.tensor([1.0, -3.0], dtype=torch.float64, requires_grad=True)
    eta, lam = 0.1, 0.25
    opt = torch.optim.SGD([w], lr=eta)
    for _ in range(10):
        opt.zero_grad()
        (lam * (w**2).sum()).backward()
        opt.step()
    ref = (1 - 2 * eta * lam) ** 10 * np.array([1.0, -3.0])
    err = _maxerr(w.detach(), ref)
    assert err < 1e-12, err
    return f"(1 − 2ηλ)¹⁰ = {(1 - 2 * eta * lam) ** 10:.4f}"


@claim(
    "C9-10",
    section="9.2.1",
    lines=(4365, 4369),
    statement="For plain (S)GD, ℓ2 regularization and weight decay coincide: "
    "torch.optim.SGD(weight_decay=2λ) = gradient descent on L + λ‖w‖² = the decoupled "
    "update w − η∇L − 2ηλw.",
)
def _c9_10() -> str:
    import torch

    from alice_lab.regularization import decoupled_decay_step, sgd_l2_step

    A, b = np.diag([1.0, 5.0]), np.array([1.0, 1.0])
    lam, eta = 0.2, 0.05
    w = torch.tensor([2.0, 2.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([w], lr=eta, weight_decay=2 * lam)
    u = v = np.array([2.0, 2.0])
    for _ in range(30):
        opt.zero_grad()
        (0.5 * w @ torch.as_tensor(A) @ w - torch.as_tensor(b) @ w).backward()
        opt.step()
        u = sgd_l2_step(u, A @ u - b, lr=eta, lam=lam)
        v = decoupled_decay_step(v, eta * (A @ v - b), lam=2 * eta * lam)
    err = max(_maxerr(u, w.detach()), _maxerr(v, w.detach()))
    assert err < 1e-12, err
    return f"max difference {err:.1e}"


@claim(
    "C9-11",
    section="9.2.1",
    lines=(4365, 4369),
    statement="With Adam, ℓ2 in the gradient differs from decoupled weight decay "
    "(AdamW); alice_lab's Adam/AdamW equal torch.optim.Adam/AdamW.",
)
def _c9_11() -> str:
    import torch

    from alice_lab.optim import adam

    A, b = np.diag([1.0, 100.0]), np.array([1.0, 1.0])
    finals = {}
    for decoupled, cls in ((False, torch.optim.Adam), (True, torch.optim.AdamW)):
        w = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)
        opt = cls([w], lr=0.05, weight_decay=0.5)
        for _ in range(20):
            opt.zero_grad()
            (0.5 * w @ torch.as_tensor(A) @ w - torch.as_tensor(b) @ w).backward()
            opt.step()
        mine = adam(
            lambda v: A @ v - b,
            np.array([1.0, 1.0]),
            lr=0.05,
            steps=20,
            weight_decay=0.5,
            decoupled=decoupled,
        )[-1]
        assert _maxerr(mine, w.detach()) < 1e-12
        finals[decoupled] = w.detach().numpy()
    gap = _maxerr(finals[False], finals[True])
    assert gap > 1e-3, gap
    return f"Adam+L2 vs AdamW after 20 steps differ by {gap:.3f}"


@claim(
    "C9-12",
    section="9.2.1",
    lines=(4373, 4375),
    statement="ℓ1 favours sparse solutions: Lasso on load_diabetes sets some "
    "coefficients exactly to zero, ridge with the same strength none.",
)
def _c9_12() -> str:
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Lasso, Ridge

    X, y = load_diabetes(return_X_y=True)
    zl = int(np.sum(Lasso(alpha=1.0).fit(X, y).coef_ == 0))
    zr = int(np.sum(Ridge(alpha=1.0).fit(X, y).coef_ == 0))
    assert zl >= 1 and zr == 0, (zl, zr)
    return f"Lasso zeros {zl}/10, ridge zeros {zr}/10"


@claim(
    "C9-13",
    section="9.2.1",
    lines=(4375, 4379),
    equation="E.9.2",
    statement="Writing w = a⊙b, the balanced factorisation |aᵢ| = |bᵢ| = √|wᵢ| gives "
    "‖a‖² + ‖b‖² = 2‖w‖₁, and every other factorisation gives more.",
)
def _c9_13() -> str:
    rng = _rng(2)
    w = rng.normal(size=6)
    a = np.sqrt(np.abs(w))
    b = np.sign(w) * np.sqrt(np.abs(w))
    assert _maxerr(a * b, w) < 1e-15
    base = (a**2).sum() + (b**2).sum()
    assert abs(base - 2 * np.abs(w).sum()) < 1e-12
    for _ in range(200):
        s = np.exp(rng.normal(size=6))
        assert (a * s) @ (a * s) + (b / s) @ (b / s) >= base - 1e-12
    return f"‖a‖²+‖b‖² = {base:.4f} = 2‖w‖₁"


@claim(
    "C9-14",
    section="9.2.1",
    lines=(4381, 4385),
    equation="E.9.3",
    statement="Constrained form: projected gradient descent in a small ℓ1 ball "
    "lands on "
    "an axis (an exact zero), in an ℓ2 ball it does not.",
)
def _c9_14() -> str:
    from scipy.optimize import minimize

    from alice_lab.regularization import project_l1_ball, project_l2_ball

    A, b = np.array([[1.0, 0.2], [0.2, 1.0]]), np.array([2.0, 0.6])
    mu = 0.5
    out = {}
    for name, proj in (("l1", project_l1_ball), ("l2", project_l2_ball)):
        w = np.zeros(2)
        for _ in range(2000):
            w = proj(w - 0.1 * (A @ w - b), mu)
        out[name] = w
    assert np.sum(out["l1"] == 0) == 1 and np.all(out["l2"] != 0), out
    cons = {"type": "ineq", "fun": lambda w: mu**2 - w @ w}
    ref = minimize(lambda w: 0.5 * w @ A @ w - b @ w, np.zeros(2), constraints=cons).x
    assert _maxerr(ref, out["l2"]) < 1e-5
    return f"ℓ1: {np.round(out['l1'], 4)}, ℓ2: {np.round(out['l2'], 4)} (= SLSQP)"


@claim(
    "C9-74",
    section="9.2.1",
    lines=(4363, 4365),
    statement="A gradient step of size η on L + λ‖w‖² multiplies w by 1 − 2ηλ, a decay "
    "proportional to λ; with ∇L = 0 the weights shrink as (1 − 2ηλ)^t, exponentially "
    "fast. torch.optim.SGD's weight_decay=wd is this decay with wd = 2λ.",
)
def _c9_74() -> str:
    import torch

    eta, lam, steps = 0.1, 0.3, 25
    w0 = torch.tensor([1.5, -2.0], dtype=torch.float64)
    w = w0.clone().requires_grad_(True)
    opt = torch.optim.SGD([w], lr=eta, weight_decay=2 * lam)
    v = w0.clone().requires_grad_(True)  # plain GD on the penalty, through autograd
    for _ in range(steps):
        opt.zero_grad()
        (0.0 * w).sum().backward()
        opt.step()
        (g,) = torch.autograd.grad(lam * (v**2).sum(), v)
        v = (v - eta * g).detach().requires_grad_(True)
    closed = (1 - 2 * eta * lam) ** steps * w0
    err = max(_maxerr(w.detach(), closed), _maxerr(v.detach(), closed))
    assert err < 1e-14, err
    return (
        f"{steps} steps, η = {eta}, λ = {lam}: w = {1 - 2 * eta * lam:.2f}^{steps}·w₀ "
        f"by autograd and by SGD(weight_decay=2λ) (|Δ| = {err:.0e})"
    )


@claim(
    "E9-03",
    section="9.2.1",
    lines=(4373, 4373),
    erratum="R(w) = ‖w‖₁ = Σᵢ |xᵢ|",
    statement="The ℓ1 penalty sums the weights: ‖w‖₁ = Σᵢ |wᵢ|.",
)
def _e9_03() -> str:
    from alice_lab.regularization import l1_penalty

    r = _rng(3)
    w, x = r.normal(size=7), r.normal(size=7)
    assert abs(float(l1_penalty(w)) - np.linalg.norm(w, 1)) < 1e-14
    printed = float(np.abs(x).sum())  # Σᵢ |xᵢ|: the same for every w
    assert abs(printed - float(l1_penalty(w))) > 0.1
    assert float(l1_penalty(2 * w)) == 2 * float(l1_penalty(w))  # it depends on w
    return (
        f"l1_penalty(w) = numpy.linalg.norm(w, 1) = {float(l1_penalty(w)):.3f}; "
        f"Σ|xᵢ| = {printed:.3f} does not depend on w"
    )


@claim(
    "C9-75",
    section="9.2.1",
    lines=(4377, 4377),
    statement=(
        "min over a⊙b = w of ‖a‖² + ‖b‖² is exactly 2‖w‖₁ (AM-GM): the book's ≈"
        " ('almost equivalent' problems) hides a factor 2 that λ absorbs."
    ),
)
def _c9_75() -> str:
    from scipy.optimize import minimize_scalar

    w = 1.7
    best = minimize_scalar(
        lambda a: a**2 + (w / a) ** 2,
        bounds=(0.01, 10),
        method="bounded",
        options={"xatol": 1e-10},
    ).fun
    assert abs(best - 2 * abs(w)) < 1e-8, best
    return f"min_a a² + (w/a)² = {best:.6f} = 2|w| for w = {w}"


@claim(
    "E9-05",
    section="9.2.1",
    lines=(4385, 4385),
    erratum="μ depends proportionally on λ",
    statement="The constraint radius μ of the equivalent constrained problem "
    "decreases as λ grows (a bigger penalty is a smaller ball).",
)
def _e9_05() -> str:
    from sklearn.linear_model import Ridge

    X, y = _diabetes()
    mus = [
        np.linalg.norm(Ridge(alpha=a, fit_intercept=False).fit(X, y).coef_)
        for a in (0.01, 0.1, 1.0, 10.0)
    ]
    assert all(m1 > m2 for m1, m2 in zip(mus, mus[1:], strict=False)), mus
    return "μ(λ) = ‖w*(λ)‖ for λ = 0.01…10: " + ", ".join(f"{m:.0f}" for m in mus)


# =====================================================================================
# 9.2.2 Early stopping
# =====================================================================================


@claim(
    "C9-15",
    section="9.2.2",
    lines=(4389, 4393),
    statement="The loss-change test (L(w_t) − L(w_{t−1}))² ≤ ε fires on a flat loss "
    "and not on a moving one.",
)
def _c9_15() -> str:
    from alice_lab.regularization import has_converged

    assert has_converged([2.0, 1.0, 1.0 + 1e-6], 1e-10)
    assert not has_converged([2.0, 1.0, 1.1], 1e-10)
    return "Δ = 1e-6 stops (Δ² = 1e-12 ≤ 1e-10), Δ = 0.1 does not"


@claim(
    "C9-78",
    section="9.2.2",
    lines=(4389, 4391),
    statement=(
        "The loss-change test is a proxy for ∇L ≈ 0: with a tiny step the loss "
        "barely moves while ‖∇L‖ is large, so it can stop far from a stationary"
        " point."
    ),
)
def _c9_78() -> str:
    import torch

    w = torch.tensor([3.0], dtype=torch.float64, requires_grad=True)
    loss0 = (w**2).sum()
    (g,) = torch.autograd.grad(loss0, w)
    w1 = w.detach() - 1e-7 * g
    change = float((w1**2).sum() - loss0.detach()) ** 2
    assert change < 1e-10 and float(g.abs()) > 1, (change, g)
    return f"(ΔL)² = {change:.1e} while |∇L| = {float(g.abs()):.0f}"


@claim(
    "C9-16",
    section="9.2.2",
    lines=(4395, 4401),
    statement="Early stopping with patience k and rollback: on validation accuracies "
    "[.5, .6, .7, .65, .66, .64] with k = 3 training stops at epoch 6 and restores "
    "epoch 3 = t − k.",
)
def _c9_16() -> str:
    from alice_lab.regularization import early_stopping_epoch

    scores = [0.5, 0.6, 0.7, 0.65, 0.66, 0.64]
    got = early_stopping_epoch(scores, 3)
    # written out independently: stop when the best is k epochs old
    best = int(np.argmax(scores)) + 1
    stop = next(t for t in range(1, 7) if t - (int(np.argmax(scores[:t])) + 1) >= 3)
    assert got == (stop, best) == (6, 3), got
    return f"stop at {got[0]}, roll back to {got[1]}"


@claim(
    "E9-06",
    section="9.2.2",
    lines=(4397, 4399),
    erratum="“If a_t ≤ a_i → Stop training ∀ i = t−1, t−2, …, t−k”, then roll back "
    "to “the last epoch that showed improvement, corresponding to the epoch number "
    "t−k”",
    statement="With the printed test (stop when a_t is no better than each of the "
    "previous k scores) the epoch to roll back to is the best one so far, which need "
    "not be t − k: on [.5, .6, .8, .7, .6] with k = 3 the test fires at t = 5, the "
    "best epoch is 3, and epoch t − k = 2 scored only .6. Rolling back to t − k fits "
    "the usual rule, stop once the best score is k epochs old.",
)
def _e9_06() -> str:
    from alice_lab.regularization import early_stopping_epoch

    a, k = [0.5, 0.6, 0.8, 0.7, 0.6], 3
    # the printed test, written out: a_t <= a_i for every i = t-1, ..., t-k
    fires = [
        t
        for t in range(k + 1, len(a) + 1)
        if all(a[t - 1] <= a[i - 1] for i in range(t - k, t))
    ]
    t = fires[0]
    best = int(np.argmax(a[:t])) + 1
    assert (t, best) == (5, 3) and a[t - k - 1] < a[best - 1], (t, best)
    assert early_stopping_epoch(a, k, rule="book") == (t, best)
    # the usual rule on random histories: when it fires at t, the best epoch is t - k
    r = _rng(6)
    for _ in range(200):
        h = list(r.random(12))
        stop, kept = early_stopping_epoch(h, k)
        if stop is not None:
            assert kept == stop - k == int(np.argmax(h[:stop])) + 1, (h, stop, kept)
    return f"printed test stops at t = {t}; best epoch {best}, not t − k = {t - k}"


@claim(
    "C9-17",
    section="9.2.2",
    lines=(4401, 4401),
    statement="Early stopping can monitor any metric, even a non-differentiable one "
    "such as the macro F1 score.",
)
def _c9_17() -> str:
    from sklearn.metrics import f1_score

    from alice_lab.regularization import EarlyStopping

    y = np.array([0, 1, 2, 2, 1, 0])
    preds = [
        [0, 0, 0, 0, 0, 0],
        [0, 1, 2, 0, 1, 0],
        [0, 1, 2, 2, 1, 0],
        [0, 1, 1, 2, 1, 0],
        [0, 2, 1, 2, 1, 0],
    ]
    es = EarlyStopping(2)
    for p in preds:
        if es.step(f1_score(y, p, average="macro")):
            break
    assert es.best_epoch == 3 and es.stopped_epoch == 5 and es.best_score == 1.0
    return "macro-F1 history peaks at epoch 3; stopped at 5"


# =====================================================================================
# 9.2.3 Data augmentation
# =====================================================================================


@claim(
    "C9-19",
    section="9.2.3",
    lines=(4409, 4413),
    statement="Gaussian-noise augmentation acts like ℓ2: "
    "E[(w·(x+ε) − y)²] = (w·x − y)² "
    "+ σ²‖w‖², and least squares on many noisy copies ≈ ridge with λ = nσ².",
)
def _c9_19() -> str:
    from sklearn.linear_model import LinearRegression, Ridge

    from alice_lab.augmentation import gaussian_noise

    rng = _rng(4)
    X = rng.normal(size=(20, 3))
    y = X @ np.array([1.0, -1.0, 2.0]) + 0.1 * rng.normal(size=20)
    sigma, copies = 0.5, 2000
    Xa = gaussian_noise(np.tile(X, (copies, 1)), sigma, rng=5)
    w_aug = LinearRegression(fit_intercept=False).fit(Xa, np.tile(y, copies)).coef_
    w_ridge = Ridge(alpha=20 * sigma**2, fit_intercept=False).fit(X, y).coef_
    err = _maxerr(w_aug, w_ridge)
    assert err < 1e-2, err
    return f"noisy least squares vs ridge(λ = nσ²): {err:.1e}"


@claim(
    "C9-20",
    section="9.2.3",
    lines=(4415, 4419),
    equation="E.9.4",
    statement="A parametric transformation is the identity at c = 0: a 0° rotation and "
    "a flip with probability 0 leave the image unchanged; 90° equals numpy.rot90.",
)
def _c9_20() -> str:
    from alice_lab.augmentation import random_hflip, random_rotation

    x = _rng(6).normal(size=(2, 6, 6, 3))
    assert np.array_equal(random_rotation(x, angle=0.0), x)
    assert np.array_equal(random_hflip(x, p=0.0), x)
    r = random_rotation(x, angle=90.0)
    err = _maxerr(r, np.rot90(x, axes=(1, 2)))
    assert err < 1e-9, err
    return f"rotation by 90° vs numpy.rot90: {err:.1e}"


@claim(
    "C9-21",
    section="9.2.3",
    lines=(4419, 4421),
    statement="Each epoch sees a fresh random transformation: different seeds give "
    "different augmented batches, the same seed the same one.",
)
def _c9_21() -> str:
    from alice_lab.augmentation import random_rotation

    x = _rng(7).normal(size=(4, 8, 8, 1))
    a, b = random_rotation(x, rng=1), random_rotation(x, rng=2)
    assert not np.allclose(a, b) and np.array_equal(a, random_rotation(x, rng=1))
    return f"two seeds differ by up to {_maxerr(a, b):.2f}"


@claim(
    "C9-22",
    section="9.2.3",
    lines=(4421, 4421),
    statement="RandAugment applies a small number (2-3) of transformations drawn from "
    "a large set, all with one shared magnitude.",
)
def _c9_22() -> str:
    from alice_lab.augmentation import random_rotation, random_shift

    ops = {
        "rotate": lambda x, m, r: random_rotation(x, 10 * m, r),
        "shift": lambda x, m, r: random_shift(x, int(m), r),
        "noise": lambda x, m, r: x + 0.1 * m * r.standard_normal(x.shape),
        "flip": lambda x, m, r: x[:, :, ::-1],
    }
    rng = _rng(8)
    x = rng.normal(size=(2, 8, 8, 1))
    chosen = [str(o) for o in rng.choice(sorted(ops), size=2, replace=False)]
    magnitude = 2.0
    out = x
    for name in chosen:
        out = ops[name](out, magnitude, rng)
    assert len(chosen) == 2 and len(set(chosen)) == 2 and out.shape == x.shape
    return f"ops {chosen} with magnitude {magnitude}"


@claim(
    "C9-26",
    section="9.2.3",
    lines=(4457, 4471),
    statement="Mixup: λ = 1 gives (x₁, y₁), λ = 0 gives (x₂, y₂); mixed labels stay "
    "on the simplex and the cross-entropy is linear in the target.",
)
def _c9_26() -> str:
    import torch

    from alice_lab.augmentation import mixup

    rng = _rng(9)
    x, y = rng.normal(size=(5, 4)), np.eye(5)
    x1, y1, _ = mixup(x, y, lam=1.0, rng=0)
    assert np.array_equal(x1, x) and np.array_equal(y1, y)
    xm, ym, lam = mixup(x, y, rng=3)
    assert np.allclose(ym.sum(1), 1) and (ym >= 0).all() and 0 <= lam <= 1
    logits = torch.as_tensor(rng.normal(size=(5, 5)))
    ce = torch.nn.functional.cross_entropy
    perm_target = torch.as_tensor((ym - lam * y) / (1 - lam))
    lhs = ce(logits, torch.as_tensor(ym))
    rhs = lam * ce(logits, torch.as_tensor(y)) + (1 - lam) * ce(logits, perm_target)
    assert abs(float(lhs - rhs)) < 1e-12
    return f"λ = {lam:.3f}; CE(mixed) = λCE₁ + (1−λ)CE₂ (torch)"


@claim(
    "C9-27",
    section="9.2.3",
    lines=(4473, 4481),
    statement="CutMix pastes a fixed-size patch of x₁ into x₂: a 32×32 patch in a "
    "64×64×3 image covers 32·32·3 entries, taken from x₁; the rest is x₂.",
)
def _c9_27() -> str:
    from alice_lab.augmentation import cutmix

    rng = _rng(10)
    x1, x2 = rng.normal(size=(64, 64, 3)), rng.normal(size=(64, 64, 3))
    x, _, M = cutmix(x1, np.eye(2)[0], x2, np.eye(2)[1], (32, 32), rng=1)
    M3 = np.broadcast_to(M, x.shape) == 1
    assert M3.sum() == 32 * 32 * 3
    assert np.array_equal(x[M3], x1[M3]) and np.array_equal(x[~M3], x2[~M3])
    return "patch entries from x₁: 3072, rest from x₂"


@claim(
    "C9-28",
    section="9.2.3",
    lines=(4485, 4485),
    statement="CutMix mixes the labels with a weight λ (random in [0, 1] in the book).",
)
def _c9_28() -> str:
    from alice_lab.augmentation import cutmix

    x = np.zeros((8, 8, 1))
    lams = [
        cutmix(x, np.eye(2)[0], x, np.eye(2)[1], (2, 2), lam="random", rng=s)[1][0]
        for s in range(50)
    ]
    assert all(0 <= v <= 1 for v in lams) and np.std(lams) > 0.1
    return f"random λ over 50 draws: mean {np.mean(lams):.2f}, std {np.std(lams):.2f}"


@claim(
    "E9-07",
    section="9.2.3",
    lines=(4485, 4485),
    erratum=(
        "a patch of fixed shape (e.g., 32×32), with the labels mixed by a "
        "random coefficient λ"
    ),
    statement=(
        "In CutMix (Yun et al., 2019) λ is random but it sets the area of the "
        "pasted patch, and the label weights are the two images' area "
        "fractions; a fixed-shape patch with an independent random λ mixes "
        "labels that do not match the pixels."
    ),
)
def _e9_07() -> str:
    from alice_lab.augmentation import cutmix

    x = np.zeros((16, 16, 1))
    _, y, M = cutmix(x, np.eye(2)[0], x, np.eye(2)[1], (4, 8), rng=2)
    assert y[0] == M.mean() == 32 / 256, (y, M.mean())
    return f"label weight {y[0]} = 4·8/16² "


@claim(
    "E9-01",
    section="9.1",
    lines=(4333, 4335),
    erratum="'top-5% error', and accuracies 'upward of 95%' next to a top-1 figure",
    statement="The numbers are top-5 errors (the true class among the 5 best guesses), "
    "not 'top-5%'; top-5 error ≤ top-1 error always, so >95% is a top-5 accuracy.",
)
def _e9_01() -> str:
    import torch

    logits = torch.as_tensor(_rng(11).normal(size=(500, 10)))
    labels = torch.as_tensor(_rng(12).integers(0, 10, 500))
    top5 = logits.topk(5, dim=1).indices
    err5 = 1 - float((top5 == labels[:, None]).any(1).double().mean())
    err1 = 1 - float((top5[:, 0] == labels).double().mean())
    assert err5 <= err1
    return (
        f"random guesses, 10 classes: top-1 error {err1:.3f} ≥ top-5 error {err5:.3f}"
    )
