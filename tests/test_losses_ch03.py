"""Chapter 3's classification losses: zero_one, margin, hinge and hinge_grad.

References: the formulas written directly in NumPy, scikit-learn's ``hinge_loss`` and
``zero_one_loss``, and torch autograd for the hinge's derivative away from the kink.
"""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab.losses import hinge, hinge_grad, margin, zero_one


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    y = np.where(rng.random(40) < 0.5, -1, 1)
    y_hat = rng.normal(scale=2.0, size=40)
    y_hat[:3] = [0.0, 1.0, -1.0]  # sign(0) and the two kinks
    y[1], y[2] = 1, -1  # margins exactly 1
    return y, y_hat


def test_parity_across_backends(backend, data):
    y, y_hat = data
    m = y * y_hat
    want = {
        margin: m,
        zero_one: (np.sign(y_hat) != y).astype(float),
        hinge: np.maximum(0.0, 1 - m),
        hinge_grad: np.where(m < 1, -y, 0.0),
    }
    Y, Yh = backend.asarray(y), backend.asarray(y_hat)
    for fn, ref in want.items():
        out = fn(Yh, Y)
        assert type(out) is type(Yh), fn.__name__
        np.testing.assert_array_equal(backend.to_numpy(out), ref, err_msg=fn.__name__)


def test_against_sklearn(data):
    from sklearn.metrics import hinge_loss, zero_one_loss

    y, y_hat = data
    assert np.mean(hinge(y_hat, y)) == pytest.approx(hinge_loss(y, y_hat), abs=1e-14)
    nonzero = y_hat != 0  # sklearn would need a decision for sign(0)
    assert np.mean(zero_one(y_hat[nonzero], y[nonzero])) == pytest.approx(
        zero_one_loss(y[nonzero], np.sign(y_hat[nonzero]))
    )


def test_sign_zero_and_nan_count_as_errors():
    y = np.array([1, -1, 1])
    out = zero_one(np.array([0.0, -0.0, np.nan]), y)
    assert out.tolist() == [1.0, 1.0, 1.0]


def test_hinge_grad_matches_autograd_away_from_the_kink(data):
    import torch

    y, y_hat = data
    keep = np.abs(y * y_hat - 1) > 1e-9
    t = torch.tensor(y_hat[keep], requires_grad=True)
    torch.clamp(1 - torch.tensor(y[keep], dtype=t.dtype) * t, min=0).sum().backward()
    np.testing.assert_array_equal(hinge_grad(y_hat[keep], y[keep]), t.grad.numpy())
    kink = hinge_grad(np.array([1.0, -1.0]), np.array([1, -1]))
    assert kink.tolist() == [0.0, 0.0]  # our documented choice of subgradient


def test_hinge_bounds_zero_one_and_is_convex():
    m = np.linspace(-4, 4, 801)
    y = np.ones_like(m)
    h, z = hinge(m, y), zero_one(m, y)
    assert np.all(h >= z)
    second = h[:-2] - 2 * h[1:-1] + h[2:]
    assert np.all(second >= -1e-12)  # convex: non-negative second differences


def test_dtype_and_integer_labels_follow_y_hat():
    y = np.array([1, -1], dtype=np.int64)
    y_hat = np.array([0.5, 0.5], dtype=np.float32)
    for fn in (margin, zero_one, hinge, hinge_grad):
        assert fn(y_hat, y).dtype == np.float32


@pytest.mark.parametrize(
    "y, y_hat, match",
    [
        (np.array([1, -1]), np.array([0.5, 0.5, 0.5]), "same shape"),
        (np.array([0, 1]), np.array([0.5, 0.5]), r"\{-1, \+1\}"),
        (np.array([1, -1]), np.array([1, 2]), "real floating"),
    ],
)
@pytest.mark.parametrize("fn", [margin, zero_one, hinge, hinge_grad])
def test_bad_input_raises(fn, y, y_hat, match):
    with pytest.raises(ValueError, match=match):
        fn(y_hat, y)
