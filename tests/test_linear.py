"""alice_lab.linear against numpy.linalg, scikit-learn (LinearRegression, Ridge,
LogisticRegression), finite differences, torch.autograd and jax.grad, on every
backend; and clear errors for mismatched shapes and bad labels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

from alice_lab import linear as L
from alice_lab.calculus import grad_fd
from alice_lab.data import (
    load_breast_cancer,
    load_iris,
    make_linear_regression,
    standardize,
)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(60)
    return X, y


# --- least squares --------------------------------------------------------------------


@pytest.mark.parametrize("method", L.METHODS)
def test_least_squares_matches_numpy_and_sklearn(problem, method):
    from sklearn.linear_model import LinearRegression

    X, y = problem
    w = L.least_squares(X, y, method=method)
    ref = np.linalg.lstsq(X, y, rcond=None)[0]
    sk = LinearRegression(fit_intercept=False).fit(X, y).coef_
    np.testing.assert_allclose(w, ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(w, sk, rtol=1e-8, atol=1e-10)
    # the normal equations hold at the solution (gradient zero)
    assert np.abs(L.ls_gradient(X, y, w)).max() < 1e-6


@pytest.mark.parametrize("method", L.METHODS)
@pytest.mark.parametrize("lam", [1e-3, 1.0, 50.0])
def test_ridge_matches_sklearn(problem, method, lam):
    from sklearn.linear_model import Ridge

    X, y = problem
    w = L.least_squares(X, y, method=method, ridge=lam)
    sk = Ridge(alpha=lam, fit_intercept=False, solver="svd").fit(X, y).coef_
    np.testing.assert_allclose(w, sk, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("method", L.METHODS)
def test_least_squares_parity(backend, problem, method):
    X, y = problem
    got = L.least_squares(
        backend.asarray(X), backend.asarray(y), method=method, ridge=0.1
    )
    assert type(got) is type(backend.asarray(X))
    np.testing.assert_allclose(
        backend.to_numpy(got),
        L.least_squares(X, y, method=method, ridge=0.1),
        rtol=1e-9,
    )


def test_intercept_through_the_bias_column(problem):
    from sklearn.linear_model import LinearRegression

    X, y = problem
    w = L.least_squares(L.add_bias_column(X), y + 3.0)
    sk = LinearRegression().fit(X, y + 3.0)
    np.testing.assert_allclose(w[:-1], sk.coef_, rtol=1e-10)
    assert w[-1] == pytest.approx(sk.intercept_, rel=1e-10)
    np.testing.assert_allclose(
        L.linear_model(X, w[:-1], w[-1]), L.add_bias_column(X) @ w, rtol=1e-14
    )


def test_collinear_features_lstsq_gives_the_minimum_norm_solution(problem):
    X, y = problem
    Xc = np.column_stack([X, 2.0 * X[:, 0]])  # collinear: rank 5 of 6
    w = L.least_squares(Xc, y, method="lstsq")
    np.testing.assert_allclose(w, np.linalg.pinv(Xc) @ y, rtol=1e-8, atol=1e-10)
    assert np.isfinite(L.least_squares(Xc, y, method="solve", ridge=1e-3)).all()
    assert float(L.condition_number(Xc.T @ Xc)) > 1e14


def test_ls_gradient_against_fd_torch_and_jax(problem):
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    X, y = problem
    w = np.random.default_rng(1).standard_normal(5)
    exact = L.ls_gradient(X, y, w, scale="exact")
    np.testing.assert_allclose(
        exact, grad_fd(lambda v: L.ls_loss(X, y, v), w), rtol=1e-6, atol=1e-8
    )
    wt = torch.tensor(w, requires_grad=True)
    L.ls_loss(torch.tensor(X), torch.tensor(y), wt).backward()
    np.testing.assert_allclose(exact, wt.grad.numpy(), rtol=1e-12)
    gj = jax.grad(lambda v: L.ls_loss(jax.numpy.asarray(X), jax.numpy.asarray(y), v))(
        jax.numpy.asarray(w)
    )
    np.testing.assert_allclose(exact, np.asarray(gj), rtol=1e-12)
    book = L.ls_gradient(X, y, w)  # the printed form drops 2/n
    np.testing.assert_allclose(book, exact * len(y) / 2, rtol=1e-13)


def test_ls_gd_reaches_the_closed_form_on_the_figure_4_2_data():
    X, y, _ = make_linear_regression(10, 3, seed=0)
    run = L.ls_gd(X, y, lr=1e-3, steps=15_000, eps=1e-20)
    w_star = L.least_squares(X, y)
    assert np.linalg.norm(run.w - w_star) < 1e-9
    assert run.path.shape == (15_001, 3) and run.losses.shape == (15_001,)
    assert np.all(np.diff(run.losses) <= 1e-15)  # "each step provides a decrease"
    assert run.losses[-1] == pytest.approx(float(L.ls_loss(X, y, w_star)), rel=1e-9)
    assert run.converged_at is not None and 0 < run.converged_at < 15_000


def test_ls_gd_stop_and_divergence():
    from alice_lab.optim import DivergenceError

    X, y, _ = make_linear_regression(10, 3, seed=0)
    lam_max = np.linalg.eigvalsh(X.T @ X).max()
    full = L.ls_gd(X, y, lr=0.5 / lam_max, steps=3000, eps=1e-20, seed=1)
    cut = L.ls_gd(X, y, lr=0.5 / lam_max, steps=3000, eps=1e-20, seed=1, stop=True)
    assert cut.converged_at == full.converged_at == cut.path.shape[0] - 1
    np.testing.assert_array_equal(cut.path, full.path[: cut.path.shape[0]])
    d = np.diff(full.path, axis=0)
    sq = np.sum(d * d, axis=1)
    t = full.converged_at
    assert sq[t] < 1e-20 <= sq[t - 1]  # the book's test ‖w_{t+1} − w_t‖² < ε
    with pytest.raises(DivergenceError):
        L.ls_gd(X, y, lr=2.5 / lam_max, steps=5000, seed=1)
    with pytest.raises(ValueError, match="stop=True needs"):
        L.ls_gd(X, y, stop=True)


def test_pseudoinverse_and_hat_matrix(problem, backend):
    X, y = problem
    for method in ("normal", "svd"):
        Xd = L.pseudoinverse(backend.asarray(X), method=method)
        np.testing.assert_allclose(backend.to_numpy(Xd), np.linalg.pinv(X), atol=1e-12)
    M = backend.to_numpy(L.hat_matrix(backend.asarray(X)))
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    np.testing.assert_allclose(M @ M, M, atol=1e-12)
    assert np.trace(M) == pytest.approx(5.0)
    np.testing.assert_allclose(
        M @ y, X @ np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-10
    )
    A = L.dual_weights(X, X[:3])
    np.testing.assert_allclose(A @ y, M[:3] @ y, atol=1e-10)


def test_condition_number_matches_numpy(problem, backend):
    X, _ = problem
    got = float(L.condition_number(backend.asarray(X)))
    assert got == pytest.approx(np.linalg.cond(X), rel=1e-10)
    assert float(L.condition_number(X.T @ X)) == pytest.approx(got**2, rel=1e-8)
    with np.errstate(divide="ignore"):
        assert (
            float(L.condition_number(np.zeros((2, 2)) + np.eye(2) * [1, 0])) == np.inf
        )


def test_gradient_flops_are_linear_or_quadratic():
    assert L.gradient_flops(1000, 10) * 2 == L.gradient_flops(2000, 10) + 0
    small, big = (
        L.gradient_flops(100, 100, order="XtX first"),
        L.gradient_flops(100, 200, order="XtX first"),
    )
    assert 3.9 < big / small < 4.1
    with pytest.raises(ValueError, match="order"):
        L.gradient_flops(1, 1, order="any")


# --- logistic regression: gradients ---------------------------------------------------


def _logreg_data(seed=0, n=12, c=4, m=3):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n, c)),
        rng.integers(0, m, size=n),
        rng.standard_normal((m, c)),
        rng.standard_normal(m),
    )


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("ridge", [0.0, 0.3])
def test_logreg_gradient_against_torch_jax_and_fd(bias, ridge):
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    X, y, W, b = _logreg_data()
    b = b if bias else None
    dW, db = L.logreg_gradient(X, y, W, b, ridge=ridge)
    assert dW.shape == W.shape and (db is None) == (not bias)
    Wt = torch.tensor(W, requires_grad=True)
    bt = torch.tensor(b, requires_grad=True) if bias else None
    L.logreg_loss(torch.tensor(X), torch.tensor(y), Wt, bt, ridge=ridge).backward()
    np.testing.assert_allclose(dW, Wt.grad.numpy(), rtol=1e-12, atol=1e-14)
    if bias:
        np.testing.assert_allclose(db, bt.grad.numpy(), rtol=1e-12, atol=1e-14)
        # the reference loss: torch's own cross-entropy, plus the penalty
        ref = (
            torch.nn.functional.cross_entropy(
                torch.tensor(X) @ Wt.T + bt, torch.tensor(y)
            )
            + 0.5 * ridge * (Wt**2).sum()
        )
        assert float(L.logreg_loss(X, y, W, b, ridge=ridge)) == pytest.approx(
            ref.item(), rel=1e-13
        )
    gj = jax.grad(
        lambda V: L.logreg_loss(
            jax.numpy.asarray(X),
            jax.numpy.asarray(y),
            V,
            None if b is None else jax.numpy.asarray(b),
            ridge=ridge,
        )
    )(jax.numpy.asarray(W))
    np.testing.assert_allclose(dW, np.asarray(gj), rtol=1e-12, atol=1e-14)
    fd = grad_fd(
        lambda v: L.logreg_loss(X, y, v.reshape(W.shape), b, ridge=ridge), W.ravel()
    )
    np.testing.assert_allclose(dW.ravel(), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("bias", [True, False])
def test_binary_logreg_gradient_against_torch_and_fd(bias):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((15, 4)), rng.integers(0, 2, size=15)
    w, b = rng.standard_normal(4), (0.7 if bias else None)
    dw, db = L.binary_logreg_gradient(X, y, w, b, ridge=0.1)
    wt = torch.tensor(w, requires_grad=True)
    bt = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(X) @ wt + (bt if bias else 0.0)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(
        z, torch.tensor(y, dtype=torch.float64)
    )
    (loss + 0.05 * (wt**2).sum()).backward()
    np.testing.assert_allclose(dw, wt.grad.numpy(), rtol=1e-12)
    assert float(
        L.binary_logreg_loss(X, y, w, 0.7 if bias else 0.0, ridge=0.1)
    ) == pytest.approx((loss + 0.05 * (wt**2).sum()).item(), rel=1e-13)
    if bias:
        assert float(db) == pytest.approx(bt.grad.item(), rel=1e-12)
    else:
        assert db is None
    # the book's single-example form (f(x) - y) x, averaged
    p = sp.expit(X @ w + (0.7 if bias else 0.0))
    np.testing.assert_allclose(
        dw - 0.1 * w, ((p - y)[:, None] * X).mean(axis=0), rtol=1e-12
    )
    jax = pytest.importorskip("jax")
    bb = 0.7 if bias else 0.0
    gj = jax.grad(
        lambda v: L.binary_logreg_loss(
            jax.numpy.asarray(X), jax.numpy.asarray(y), v, bb, ridge=0.1
        )
    )(jax.numpy.asarray(w))
    np.testing.assert_allclose(dw, np.asarray(gj), rtol=1e-12)
    fd = grad_fd(lambda v: L.binary_logreg_loss(X, y, v, bb, ridge=0.1), w)
    np.testing.assert_allclose(dw, fd, rtol=1e-6, atol=1e-9)


def test_gradients_parity(backend):
    X, y, W, b = _logreg_data(seed=5)
    params = {"W": backend.asarray(W), "b": backend.asarray(b)}
    got = L.gradients(params, backend.asarray(X), backend.asarray(y), ridge=0.2)
    want = L.gradients({"W": W, "b": b}, X, y, ridge=0.2)
    assert set(got) == {"W", "b"}
    for k in want:
        np.testing.assert_allclose(backend.to_numpy(got[k]), want[k], rtol=1e-13)
    probs = L.predict_proba(params, backend.asarray(X))
    np.testing.assert_allclose(
        backend.to_numpy(probs), sp.softmax(X @ W.T + b, axis=1), rtol=1e-13
    )


def test_dict_api_adds_and_drops_the_bias():
    p = L.init_params(4, 3, seed=1)
    assert p["W"].shape == (3, 4) and p["b"].shape == (3,) and not p["b"].any()
    np.testing.assert_array_equal(
        p["W"], 0.01 * np.random.default_rng(1).standard_normal((3, 4))
    )
    q = L.init_params(4, seed=1, bias=False)
    assert set(q) == {"w"} and q["w"].shape == (4,)
    X, y = (
        np.random.default_rng(0).standard_normal((6, 4)),
        np.array([0, 1, 0, 1, 1, 0]),
    )
    assert set(L.gradients(q, X, y)) == {"w"}
    assert set(L.gradients(L.init_params(4, seed=0), X, y)) == {"w", "b"}
    assert L.predict(q, X).shape == (6,) and L.predict(p, X).shape == (6, 3)


# --- logistic regression: fits against scikit-learn -----------------------------------


def test_fit_logreg_matches_sklearn_multiclass():
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris()
    X = standardize(X)
    lam, n = 1e-2, len(y)
    fit = L.fit_logreg(X, y, ridge=lam, lr=1.0, steps=1500, momentum=0.9)
    sk = LogisticRegression(C=1 / (n * lam), tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(
        L.predict_proba(fit.params, X), sk.predict_proba(X), atol=1e-6
    )
    assert fit.losses[-1] < fit.losses[0] and fit.losses.shape == (fit.steps_taken + 1,)


def test_fit_logreg_matches_sklearn_binary():
    from sklearn.linear_model import LogisticRegression

    X, y = load_breast_cancer()
    X = standardize(X)
    lam, n = 1e-2, len(y)
    fit = L.fit_logreg(X, y, binary=True, ridge=lam, lr=1.0, steps=1500, momentum=0.9)
    sk = LogisticRegression(C=1 / (n * lam), tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(fit.params["w"], sk.coef_[0], atol=1e-5)
    assert float(fit.params["b"]) == pytest.approx(sk.intercept_[0], abs=1e-5)
    np.testing.assert_allclose(
        L.predict_proba(fit.params, X), sk.predict_proba(X)[:, 1], atol=1e-6
    )


def test_predict_helpers():
    assert L.predict_class(np.array([[0.2, 0.05, 0.75]])).tolist() == [2]
    assert L.binary_predict(np.array([0.5, 0.5000001, 0.1])).tolist() == [0, 1, 0]


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: L.least_squares(np.zeros((5, 2)), np.zeros(4)),
            r"y must have shape \(n,\) = \(5,\)",
        ),
        (
            lambda: L.least_squares(np.zeros(5), np.zeros(5)),
            r"X must have shape \(n, c\)",
        ),
        (
            lambda: L.least_squares(np.eye(2), np.ones(2), method="qr"),
            "method must be one of",
        ),
        (lambda: L.least_squares(np.eye(2), np.ones(2), ridge=-1.0), "ridge must be"),
        (
            lambda: L.least_squares(np.eye(2, dtype=complex), np.ones(2)),
            "X must be a real",
        ),
        (
            lambda: L.linear_model(np.zeros((3, 2)), np.zeros(3)),
            r"w must have shape \(2,\)",
        ),
        (
            lambda: L.multi_linear(np.zeros((3, 2)), np.zeros((2, 4))),
            "is it transposed",
        ),
        (
            lambda: L.multi_linear(np.zeros((3, 2)), np.zeros((4, 2)), np.zeros(2)),
            r"b must have shape \(4,\)",
        ),
        (
            lambda: L.logreg_loss(
                np.zeros((3, 2)), np.array([0, 1, 5]), np.zeros((3, 2))
            ),
            r"labels must lie in 0..2",
        ),
        (
            lambda: L.logreg_gradient(
                np.zeros((3, 2)), np.array([0.0, 1.0, 1.0]), np.zeros((3, 2))
            ),
            "integer class labels",
        ),
        (
            lambda: L.binary_logreg_gradient(
                np.zeros((3, 2)), np.array([0, 1, 2]), np.zeros(2)
            ),
            r"labels in \{0, 1\}",
        ),
        (
            lambda: L.fit_logreg(np.zeros((3, 2)), np.array([0, 1])),
            r"y must have shape \(n,\) = \(3,\)",
        ),
        (
            lambda: L.predict(
                {"W": np.zeros((2, 2)), "w": np.zeros(2)}, np.zeros((1, 2))
            ),
            "either 'W'",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
