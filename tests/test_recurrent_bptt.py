"""Backpropagation through time (book lines 6445-6487) against central finite
differences (alice_lab.calculus) and torch autograd; truncation and clipping."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import recurrent as R
from alice_lab.calculus import jacobian_fd


def _setup(seed=0, e=3, c=2, n=6, scale=0.8):
    r = np.random.default_rng(seed)
    return (
        scale * r.standard_normal((e, e)),
        r.standard_normal((e, c)),
        r.standard_normal((n, c)),
    )


@pytest.mark.parametrize("phi", ["tanh", "linear"])
def test_bptt_matches_finite_differences(phi):
    A, B, X = _setup()
    J = R.bptt_weight_jacobian(A, B, X, phi=phi)
    fd = jacobian_fd(lambda A_: R.rnn_forward(A_, B, X, phi=phi)[0][-1], A)
    assert J.shape == fd.shape == (3, 3, 3)
    np.testing.assert_allclose(J, fd, atol=1e-8)


def test_bptt_matches_torch_autograd_and_shared_weights_sum_untied_copies():
    import torch

    A, B, X = _setup(1, n=8)
    At = torch.tensor(A, requires_grad=True)
    copies = [torch.tensor(A, requires_grad=True) for _ in X]
    v = np.random.default_rng(2).standard_normal(3)
    s = torch.zeros(3, dtype=torch.float64)
    s_untied = s
    for i, x in enumerate(torch.as_tensor(X)):
        s = torch.tanh(At @ s + torch.as_tensor(B) @ x)
        s_untied = torch.tanh(copies[i] @ s_untied + torch.as_tensor(B) @ x)
    (torch.as_tensor(v) @ s).backward()
    (torch.as_tensor(v) @ s_untied).backward()
    J = R.bptt_weight_jacobian(A, B, X)
    np.testing.assert_allclose(
        np.einsum("k,klm->lm", v, J), At.grad.numpy(), atol=1e-12
    )
    untied = sum(c.grad.numpy() for c in copies)  # line 6451: n layers, shared A
    np.testing.assert_allclose(untied, At.grad.numpy(), atol=1e-12)
    terms = R.bptt_terms(A, B, X)
    for i, c in enumerate(copies):  # each copy's gradient is one term of line 6461
        np.testing.assert_allclose(
            np.einsum("k,klm->lm", v, terms[i]), c.grad.numpy(), atol=1e-12
        )


def test_products_vanish_or_explode_with_the_spectral_radius():
    n = 40
    X = np.zeros((n, 1))
    for rho, check in ((0.5, lambda x: x < 1e-10), (1.5, lambda x: x > 1e6)):
        A = np.diag([rho, rho / 2])
        P = R.bptt_products(A, np.ones((2, 1)), X, phi="linear")
        np.testing.assert_allclose(P[0], np.linalg.matrix_power(A, n - 1), rtol=1e-12)
        assert check(np.linalg.norm(P[0], 2))
        np.testing.assert_array_equal(P[-1], np.eye(2))


def test_truncation_and_clipping():
    A, B, X = _setup(3, n=7)
    full = R.bptt_weight_jacobian(A, B, X)
    np.testing.assert_allclose(R.bptt_weight_jacobian(A, B, X, truncate=6), full)
    only_last = R.bptt_weight_jacobian(A, B, X, truncate=0)
    np.testing.assert_allclose(only_last, R.bptt_terms(A, B, X)[-1])
    assert not np.allclose(R.bptt_weight_jacobian(A, B, X, truncate=2), full)
    import torch

    g = [np.full((2, 2), 3.0), np.full(3, -4.0)]
    clipped = R.clip_grad_norm(g, 1.0)
    ts = [torch.tensor(x, requires_grad=True) for x in g]
    for t, x in zip(ts, g, strict=True):
        t.grad = torch.tensor(x)
    torch.nn.utils.clip_grad_norm_(ts, 1.0)
    for c, t in zip(clipped, ts, strict=True):
        np.testing.assert_allclose(c, t.grad.numpy(), rtol=1e-12)
    small = R.clip_grad_norm([np.array([0.1, 0.2])], 1.0)[0]
    np.testing.assert_allclose(small, [0.1, 0.2])
    assert np.abs(R.clip_grad_value(g, 2.0)[1]).max() == 2.0


def test_bptt_bad_input():
    A, B, X = _setup()
    with pytest.raises(ValueError, match="expected A"):
        R.bptt_weight_jacobian(A[:2], B, X)
    with pytest.raises(ValueError, match="n >= 1"):
        R.bptt_weight_jacobian(A, B, X[:0])
    with pytest.raises(ValueError, match="truncate must be"):
        R.bptt_weight_jacobian(A, B, X, truncate=-1)
    with pytest.raises(ValueError, match="max_norm"):
        R.clip_grad_norm([A], 0.0)
