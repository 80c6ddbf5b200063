"""alice_lab.losses (chapter 4) against torch.nn.functional, SciPy and scikit-learn, on
every backend; gradients through them against the closed forms; the stability of the
logit-based losses at extreme logits; and clear errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats

from alice_lab import losses as L
from alice_lab.losses import categorical as CE

torch = pytest.importorskip("torch")
F = torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


def _t(x):
    return torch.tensor(np.asarray(x))


# --- regression losses ---------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_match_torch(rng, reduction):
    yh, y = rng.normal(size=40) * 3, rng.normal(size=40)
    cases = [
        (
            L.squared_loss(yh, y, reduction=reduction),
            F.mse_loss(_t(yh), _t(y), reduction=reduction),
        ),
        (
            L.absolute_loss(yh, y, reduction=reduction),
            F.l1_loss(_t(yh), _t(y), reduction=reduction),
        ),
        (
            L.huber_loss(yh, y, reduction=reduction),
            F.smooth_l1_loss(_t(yh), _t(y), beta=1.0, reduction=reduction),
        ),
        (
            L.huber_loss(yh, y, delta=2.5, reduction=reduction),
            F.huber_loss(_t(yh), _t(y), delta=2.5, reduction=reduction),
        ),
    ]
    for got, want in cases:
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-14)


def test_huber_is_the_books_piecewise_formula():
    e = np.linspace(-3, 3, 601)
    book = np.where(np.abs(e) <= 1, 0.5 * e**2, np.abs(e) - 0.5)  # E.4.3
    np.testing.assert_allclose(
        L.huber_loss(e, np.zeros_like(e), reduction="none"), book
    )


def test_gaussian_nll_matches_scipy_and_torch(rng):
    yh, y = rng.normal(size=20), rng.normal(size=20)
    for s2 in (0.3, rng.uniform(0.1, 2.0, size=20)):
        got = L.gaussian_nll(yh, y, s2, reduction="none")
        want = -scipy.stats.norm.logpdf(y, loc=yh, scale=np.sqrt(s2))
        np.testing.assert_allclose(got, want, rtol=1e-13)
        var = _t(np.broadcast_to(s2, y.shape).copy())
        torch_nll = F.gaussian_nll_loss(_t(yh), _t(y), var, full=True)
        assert float(L.gaussian_nll(yh, y, s2)) == pytest.approx(
            float(torch_nll), rel=1e-13
        )


def test_regression_parity(backend, rng):
    yh, y = rng.normal(size=12), rng.normal(size=12)
    bh, b = backend.asarray(yh), backend.asarray(y)
    for fn in (L.squared_loss, L.absolute_loss, L.huber_loss, L.prediction_error):
        kwargs = {} if fn is L.prediction_error else {"reduction": "none"}
        np.testing.assert_allclose(
            backend.to_numpy(fn(bh, b, **kwargs)), fn(yh, y, **kwargs), rtol=1e-15
        )
    got = L.gaussian_nll(bh, b, 0.5)
    np.testing.assert_allclose(
        backend.to_numpy(got), L.gaussian_nll(yh, y, 0.5), rtol=1e-15
    )


def test_regression_loss_gradients_match_closed_forms(rng):
    yh, y = rng.normal(size=30) * 2, rng.normal(size=30)
    e = yh - y
    for fn, want in [
        (L.squared_loss, 2 * e),  # linear in the prediction (L1340)
        (L.absolute_loss, np.sign(e)),
        (L.huber_loss, np.clip(e, -1, 1)),
    ]:
        t = _t(yh).requires_grad_(True)
        fn(t, _t(y), reduction="sum").backward()
        np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-14)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: L.squared_loss(np.zeros(3), np.zeros(4)), "same shape"),
        (lambda: L.squared_loss(np.zeros((3, 1)), np.zeros(3)), "same shape"),
        (lambda: L.squared_loss(np.zeros(3, dtype=int), np.zeros(3)), "real floating"),
        (
            lambda: L.absolute_loss(np.zeros(3), np.zeros(3), reduction="avg"),
            "reduction",
        ),
        (lambda: L.huber_loss(np.zeros(3), np.zeros(3), delta=0.0), "delta must be"),
        (lambda: L.gaussian_nll(np.zeros(3), np.zeros(3), -1.0), "sigma2 must be > 0"),
        (
            lambda: L.gaussian_nll(np.zeros(3), np.zeros(3), np.ones(2)),
            "sigma2 must be",
        ),
    ],
)
def test_regression_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- classification losses -----------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_classification_losses_match_torch(rng, reduction):
    z, y = rng.normal(size=(9, 4)) * 3, rng.integers(0, 4, size=9)
    soft = sp.softmax(rng.normal(size=(9, 4)), axis=1)
    Y = np.eye(4)[y]
    probs = sp.softmax(z, axis=1)
    cases = [
        (
            L.cross_entropy(z, y, reduction=reduction),
            F.cross_entropy(_t(z), _t(y), reduction=reduction),
        ),
        (
            L.cross_entropy_onehot(z, Y, reduction=reduction),
            F.cross_entropy(_t(z), _t(Y), reduction=reduction),
        ),
        (
            L.cross_entropy_onehot(z, soft, reduction=reduction),
            F.cross_entropy(_t(z), _t(soft), reduction=reduction),
        ),
        (
            L.nll_loss(sp.log_softmax(z, axis=1), y, reduction=reduction),
            F.nll_loss(_t(sp.log_softmax(z, axis=1)), _t(y), reduction=reduction),
        ),
        (
            L.cross_entropy_probs(probs, y, reduction=reduction),
            F.cross_entropy(_t(z), _t(y), reduction=reduction),
        ),
        (
            L.cross_entropy_probs(probs, Y, reduction=reduction),
            F.cross_entropy(_t(z), _t(y), reduction=reduction),
        ),
    ]
    for got, want in cases:
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_losses_match_torch(rng, reduction):
    z = rng.normal(size=50) * 4
    t = rng.integers(0, 2, size=50).astype(float)
    t[:5] = rng.uniform(size=5)  # soft targets are allowed
    p = sp.expit(z)
    got = L.binary_cross_entropy(p, t, reduction=reduction)
    want = F.binary_cross_entropy(_t(p), _t(t), reduction=reduction)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
    got = L.binary_cross_entropy_with_logits(z, t, reduction=reduction)
    want = F.binary_cross_entropy_with_logits(_t(z), _t(t), reduction=reduction)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-13)


def test_binary_cross_entropy_with_logits_is_exact_at_200():
    z = np.array([200.0, -200.0, 200.0, -200.0, 0.0])
    t = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    got = L.binary_cross_entropy_with_logits(z, t, reduction="none")
    tail = np.log1p(np.exp(-200.0))  # 1.4e-87: the loss of a right, very sure answer
    assert got.tolist() == [200.0, 200.0, tail, tail, np.log(2)]
    for dtype in ("float32", "float64"):
        g = L.binary_cross_entropy_with_logits(
            z.astype(dtype), t.astype(dtype), reduction="none"
        )
        want = [200, 200, tail, tail, np.log(2)]  # e^-200 underflows to 0 in float32
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-30)
    # through probabilities: sigmoid(200) rounds to 1, log(1 - 1) = -inf; torch clamps
    with np.errstate(divide="ignore"):
        via_p = L.binary_cross_entropy(sp.expit(z), t, reduction="none")
    assert np.isinf(via_p[0])  # but σ(-200) = 1.4e-87 is representable: log is fine
    assert via_p[1] == pytest.approx(200.0, rel=1e-15)
    torch_p = F.binary_cross_entropy(torch.sigmoid(_t(z)), _t(t), reduction="none")
    assert torch_p[0].item() == 100.0  # clamped at -100, not the true 200


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_stays_exact_at_logits_1e4(dtype):
    rng = np.random.default_rng(1)
    z = rng.uniform(-1e4, 1e4, size=(6, 5)).astype(dtype)
    y = rng.integers(0, 5, size=6)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(z)
        naive = -np.log(e[np.arange(6), y] / e.sum(axis=1))
    assert not np.isfinite(naive).all()
    got = L.cross_entropy(z, y, reduction="none")
    want = F.cross_entropy(_t(z.astype(np.float64)), _t(y), reduction="none").numpy()
    assert np.isfinite(got).all() and got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float32" else 1e-14)
    onehot = L.cross_entropy_onehot(z, np.eye(5, dtype=dtype)[y], reduction="none")
    np.testing.assert_allclose(onehot, want, rtol=1e-6 if dtype == "float32" else 1e-14)


def test_brier_score_matches_sklearn(rng):
    from sklearn.metrics import brier_score_loss

    p1 = rng.uniform(size=30)
    y = rng.integers(0, 2, size=30)
    P = np.stack([1 - p1, p1], axis=1)
    assert float(L.brier_score(P, y)) == pytest.approx(
        2 * brier_score_loss(y, p1), rel=1e-13
    )
    P3 = sp.softmax(rng.normal(size=(30, 3)), axis=1)
    y3 = rng.integers(0, 3, size=30)
    sk = brier_score_loss(y3, P3, labels=[0, 1, 2], scale_by_half=False)
    assert float(L.brier_score(P3, y3)) == pytest.approx(sk, rel=1e-13)


def test_classification_parity(backend, rng):
    z, y = rng.normal(size=(7, 3)), rng.integers(0, 3, size=7)
    P, Y = sp.softmax(z, axis=1), np.eye(3)[y]
    zb, yb, Pb, Yb = (backend.asarray(a) for a in (z, y, P, Y))
    pairs = [
        (L.cross_entropy_onehot(zb, Yb), L.cross_entropy_onehot(z, Y)),
        (L.cross_entropy_probs(Pb, yb), L.cross_entropy_probs(P, y)),
        (L.nll_loss(backend.asarray(np.log(P)), yb), L.nll_loss(np.log(P), y)),
        (L.brier_score(Pb, yb), L.brier_score(P, y)),
        (
            L.binary_cross_entropy(Pb[:, 0], Yb[:, 0]),
            L.binary_cross_entropy(P[:, 0], Y[:, 0]),
        ),
        (
            L.binary_cross_entropy_with_logits(zb[:, 0], Yb[:, 0]),
            L.binary_cross_entropy_with_logits(z[:, 0], Y[:, 0]),
        ),
        (
            L.cross_entropy(zb, yb, reduction="none"),
            L.cross_entropy(z, y, reduction="none"),
        ),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-14)


def test_gradients_through_the_losses_are_the_closed_forms(rng):
    """d CE / d logits = softmax - one-hot (over n), d BCE / d z = σ(z) - y."""
    z, y = rng.normal(size=(6, 4)), rng.integers(0, 4, size=6)
    zt = _t(z).requires_grad_(True)
    L.cross_entropy(zt, _t(y)).backward()
    np.testing.assert_allclose(
        zt.grad.numpy(), (sp.softmax(z, axis=1) - np.eye(4)[y]) / 6, rtol=1e-12
    )
    s, t = rng.normal(size=8) * 5, rng.integers(0, 2, size=8).astype(float)
    st = _t(s).requires_grad_(True)
    L.binary_cross_entropy_with_logits(st, _t(t), reduction="sum").backward()
    np.testing.assert_allclose(st.grad.numpy(), sp.expit(s) - t, rtol=1e-12, atol=1e-15)
    jax = pytest.importorskip("jax")
    g = jax.grad(
        lambda a: L.binary_cross_entropy_with_logits(
            a, jax.numpy.asarray(t), reduction="sum"
        )
    )(jax.numpy.asarray(s))
    np.testing.assert_allclose(np.asarray(g), sp.expit(s) - t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: L.binary_cross_entropy(np.array([1.2]), np.array([1.0])),
            r"probabilities in \[0, 1\]",
        ),
        (
            lambda: L.binary_cross_entropy(np.array([np.nan]), np.array([1.0])),
            "got NaN",
        ),
        (
            lambda: L.binary_cross_entropy(np.array([0.5]), np.array([-1.0])),
            r"targets y in \[0, 1\]",
        ),
        (
            lambda: L.binary_cross_entropy_with_logits(np.zeros(3), np.zeros(2)),
            "same shape",
        ),
        (
            lambda: L.cross_entropy_probs(np.array([[-0.5, 1.5]]), np.array([0])),
            r"probabilities in \[0, 1\]",
        ),
        (
            lambda: L.cross_entropy_probs(np.array([[0.5, 0.7]]), np.array([0])),
            "rows in the simplex",
        ),
        (
            lambda: L.brier_score(np.array([[0.5, 0.7]]), np.array([0])),
            "rows in the simplex",
        ),
        (
            lambda: L.cross_entropy_probs(np.array([[0.5, 0.5]]), np.array([2])),
            r"labels must lie in 0..1",
        ),
        (
            lambda: L.cross_entropy_probs(np.array([[0.5, 0.5]]), np.array([0.0])),
            "integer class labels",
        ),
        (
            lambda: L.cross_entropy_probs(np.full((2, 2), 0.5), np.array([0])),
            r"labels must have shape",
        ),
        (
            lambda: L.nll_loss(np.zeros((2, 2)), np.array([[1.0, 1.0], [0.0, 1.0]])),
            "single 1 per row",
        ),
        (
            lambda: L.cross_entropy_onehot(np.zeros((2, 3)), np.ones((2, 3))),
            "rows of the simplex",
        ),
        (
            lambda: L.cross_entropy_onehot(np.zeros((2, 3)), np.ones((2, 2)) / 2),
            r"targets must have shape",
        ),
        (
            lambda: L.brier_score(np.zeros(3), np.array([0])),
            r"probs must have shape \(n, m\)",
        ),
        (
            lambda: L.cross_entropy(
                np.zeros((2, 3)), np.array([0, 1]), reduction="max"
            ),
            "reduction",
        ),
    ],
)
def test_classification_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- cross-entropy: the torch path beside the generic one ----------------------------

SPECIAL_ROWS = np.array(  # with the label of each row in SPECIAL_LABELS
    [
        [-np.inf, -np.inf, -np.inf],  # nothing to normalise: NaN
        [np.inf, 0.0, 1.0],  # a finite label beside +inf: probability 0, loss +inf
        [np.inf, 0.0, 1.0],  # the label is the +inf logit: inf - inf, NaN
        [np.inf, np.inf, 0.0],
        [np.inf, np.nan, 0.0],  # a NaN anywhere: NaN
        [np.nan, 0.0, 1.0],
        [-np.inf, 0.0, 1.0],  # a -inf label: +inf
        [-np.inf, 0.0, 1.0],
        [1e300, 1e300, -1e300],  # logsumexp - z_y would give 0 instead of log 2
        [1e4, -1e4, 0.0],
    ]
)
SPECIAL_LABELS = np.array([0, 1, 0, 2, 2, 1, 0, 1, 0, 1])
SPECIAL_LOSSES = [np.nan, np.inf, np.nan, np.inf, np.nan, np.nan, np.inf]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_cross_entropy_torch_path_equals_generic_path_and_torch_kernel(rng, dtype):
    z = torch.tensor(rng.normal(scale=3, size=(64, 10)), dtype=dtype)
    y = torch.tensor(rng.integers(0, 10, size=64))
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == torch.float64 else {}
    fast = L.cross_entropy(z, y, reduction="none")
    torch.testing.assert_close(fast, CE._cross_entropy_generic(z, y, torch), **tol)
    torch.testing.assert_close(fast, F.cross_entropy(z, y, reduction="none"), **tol)
    w = torch.tensor(rng.normal(size=64), dtype=dtype)  # a fixed cotangent
    grads = []
    for loss in (
        lambda z: L.cross_entropy(z, y, reduction="none"),
        lambda z: CE._cross_entropy_generic(z, y, torch),
        lambda z: F.cross_entropy(z, y, reduction="none"),
    ):
        zt = z.clone().requires_grad_(True)
        (loss(zt) * w).sum().backward()
        grads.append(zt.grad)
    torch.testing.assert_close(grads[0], grads[1], **tol)
    torch.testing.assert_close(grads[0], grads[2], **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cross_entropy_torch_path_on_inf_nan_and_huge_rows(dtype):
    """The generic path's values (and NumPy's), where torch's own kernel gives NaN
    for every row holding +inf."""
    rows = SPECIAL_ROWS if dtype == "float64" else SPECIAL_ROWS[:-2]  # float64 ones
    labels = SPECIAL_LABELS[: len(rows)]
    z, y = torch.tensor(rows.astype(dtype)), _t(labels)
    fast = L.cross_entropy(z, y, reduction="none").numpy()
    generic = CE._cross_entropy_generic(z, y, torch).numpy()
    on_numpy = L.cross_entropy(rows.astype(dtype), labels, reduction="none")
    np.testing.assert_allclose(fast, generic, rtol=1e-15, atol=0)  # NaN where NaN
    np.testing.assert_allclose(fast, on_numpy, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(fast[:7], SPECIAL_LOSSES)
    assert np.isnan(F.cross_entropy(z, y, reduction="none")[1].item())  # torch's
    if dtype == "float64":
        assert fast[8] == pytest.approx(np.log(2), rel=1e-15)
        assert fast[9] == 2e4


def test_cross_entropy_gradcheck_through_the_dispatch(rng):
    z = _t(rng.normal(size=(5, 4))).requires_grad_(True)
    y = _t(rng.integers(0, 4, size=5))
    assert torch.autograd.gradcheck(lambda z: L.cross_entropy(z, y), (z,))


def test_cross_entropy_takes_the_torch_path_on_torch_tensors(monkeypatch, rng):
    def no_generic(*args, **kwargs):
        raise AssertionError("the generic cross-entropy ran")

    monkeypatch.setattr(CE, "_cross_entropy_generic", no_generic)
    z, y = rng.normal(size=(6, 3)), rng.integers(0, 3, size=6)
    L.cross_entropy(_t(z), _t(y))  # the torch path: no error
    L.cross_entropy(_t(z).float(), _t(y).int())  # float32 logits, int32 labels
    with pytest.raises(AssertionError, match="generic cross-entropy ran"):
        L.cross_entropy(z, y)
    with pytest.raises(ValueError, match="labels must lie in"):  # checked first
        L.cross_entropy(_t(z), _t(y) + 3)
