"""Weight decay, early stopping, augmentation and dropout (book §9.2-§9.3.1) against
torch.optim / torch.nn, closed forms and Monte Carlo estimates."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import augmentation as au, regularization as rg

torch = pytest.importorskip("torch")

A = np.diag([1.0, 10.0])
b0 = np.array([1.0, -2.0])


def _grad(w):
    return A @ w - b0


def _torch_path(opt_cls, steps, **kw):
    w = torch.tensor([0.5, 0.5], dtype=torch.float64, requires_grad=True)
    opt = opt_cls([w], **kw)
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * w @ torch.as_tensor(A) @ w - torch.as_tensor(b0) @ w).backward()
        opt.step()
    return w.detach().numpy()


def test_sgd_weight_decay_equals_l2_gradient_step():
    lam, lr = 0.3, 0.05
    w = np.array([0.5, 0.5])
    for _ in range(20):
        w = rg.sgd_l2_step(w, _grad(w), lr=lr, lam=lam)
    ref = _torch_path(torch.optim.SGD, 20, lr=lr, weight_decay=2 * lam)
    np.testing.assert_allclose(w, ref, atol=1e-12)
    # the book's decoupled form with the learning rate folded into lambda
    v = np.array([0.5, 0.5])
    for _ in range(20):
        v = rg.decoupled_decay_step(v, lr * _grad(v), lam=2 * lr * lam)
    np.testing.assert_allclose(v, ref, atol=1e-12)


def test_penalties_and_prox():
    w = np.array([3.0, -4.0, 0.0])
    assert rg.l2_penalty(w) == 25.0 and rg.l1_penalty(w) == 7.0
    np.testing.assert_array_equal(rg.soft_threshold(w, 3.5), [0.0, -0.5, 0.0])
    p = rg.project_l1_ball(np.array([0.3, 2.0]), 1.0)
    np.testing.assert_allclose(p, [0.0, 1.0])
    q = rg.project_l2_ball(np.array([3.0, 4.0]), 1.0)
    np.testing.assert_allclose(q, [0.6, 0.8])
    # the projection is the nearest point of the ball: compare with a fine search
    rng = np.random.default_rng(0)
    z = rng.normal(size=3) * 2
    cand = rng.normal(size=(20000, 3))
    cand = cand / np.abs(cand).sum(1, keepdims=True) * rng.uniform(0, 1, (20000, 1))
    best = cand[np.argmin(((cand - z) ** 2).sum(1))]
    pz = rg.project_l1_ball(z, 1.0)
    assert np.abs(pz).sum() <= 1 + 1e-12
    assert ((pz - z) ** 2).sum() <= ((best - z) ** 2).sum() + 1e-12


def test_early_stopping_rules_and_rollback():
    assert rg.early_stopping_epoch([0.5, 0.6, 0.7, 0.65, 0.66, 0.64], 3) == (6, 3)
    assert rg.early_stopping_epoch(
        [0.5, 0.6, 0.7, 0.65, 0.66, 0.64], 3, rule="book"
    ) == (6, 3)
    assert rg.early_stopping_epoch([0.5, 0.7, 0.6, 0.65, 0.62], 2) == (4, 2)
    assert (
        rg.early_stopping_epoch([0.5, 0.7, 0.6, 0.65, 0.62], 2, rule="book")[0] is None
    )
    assert rg.early_stopping_epoch([3.0, 2.0, 2.5, 2.4], 2, mode="min") == (4, 2)
    es = rg.EarlyStopping(2)
    lin = torch.nn.Linear(2, 1)
    for epoch, score in enumerate([0.1, 0.9, 0.5, 0.4], start=1):
        with torch.no_grad():
            lin.weight.fill_(float(epoch))
        if es.step(score, lin.state_dict()):
            break
    assert es.best_epoch == 2 and es.stopped_epoch == 4
    assert float(es.best_weights["weight"][0, 0]) == 2.0  # a copy, not a view
    assert rg.has_converged([1.0, 1.0 + 1e-6], 1e-10)
    assert not rg.has_converged([1.0, 1.1], 1e-10)


def test_augmentations_are_seeded_and_identity_at_zero():
    x = np.random.default_rng(0).normal(size=(3, 8, 8, 2))
    np.testing.assert_array_equal(au.random_rotation(x, angle=0), x)
    np.testing.assert_array_equal(au.random_hflip(x, p=0.0), x)
    np.testing.assert_array_equal(au.random_hflip(x, p=1.0), x[:, :, ::-1])
    np.testing.assert_array_equal(au.random_shift(x, 0), x)
    np.testing.assert_array_equal(
        au.random_shift(x, 2, rng=4), au.random_shift(x, 2, rng=4)
    )
    # each image is one of the zero-filled translations by at most 1 pixel, written
    # here as a crop of the zero-padded image (not a wrap-around roll)
    pos = np.random.default_rng(5).uniform(1, 2, size=(20, 5, 6, 1))
    shifted = au.random_shift(pos, 1, rng=0)
    xp = np.pad(pos, ((0, 0), (1, 1), (1, 1), (0, 0)))
    found = set()
    for i in range(20):
        hits = [
            (dy, dx)
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if np.array_equal(shifted[i], xp[i, 1 - dy : 6 - dy, 1 - dx : 7 - dx])
        ]
        assert len(hits) == 1, (i, hits)
        found.add(hits[0])
    assert len(found) > 3  # the shifts vary between images
    assert not np.array_equal(
        au.random_rotation(x, rng=1), au.random_rotation(x, rng=2)
    )
    # a 90 degree rotation equals np.rot90 on a square image
    sq = np.arange(16.0).reshape(1, 4, 4, 1)
    np.testing.assert_allclose(
        au.random_rotation(sq, angle=90)[0, :, :, 0],
        np.rot90(sq[0, :, :, 0]),
        atol=1e-9,
    )
    y = np.eye(3)
    xm, ym, lam = au.mixup(x, y, rng=3)
    np.testing.assert_allclose(ym.sum(1), 1.0)
    xm1, ym1, _ = au.mixup(x, y, lam=1.0)
    np.testing.assert_array_equal(xm1, x)
    x1, x2 = np.ones((16, 16, 3)), np.zeros((16, 16, 3))
    xc, yc, M = au.cutmix(x1, y[0], x2, y[1], (4, 4), rng=0)
    assert M.sum() == 16 and np.array_equal(xc[..., 0], M[..., 0])
    np.testing.assert_allclose(yc, [16 / 256, 1 - 16 / 256, 0])
    co = au.cutout(np.ones((2, 8, 8, 3)), 3, rng=0)
    assert ((co == 0).all(-1).sum((1, 2)) == 9).all()
    seq = np.arange(10.0).reshape(1, 10, 1)
    sh = au.time_shift(seq, 3, rng=0)
    assert sorted(sh.ravel()) == list(range(10))
    assert (au.time_mask(seq, 4, rng=0) == 0).sum() in (4, 5)


def test_dropout_statistics_and_keep_vs_drop(backend):
    X = backend.asarray(np.ones((200, 500)))
    out = backend.to_numpy(rg.dropout(X, keep_prob=0.8, rng=0))
    assert set(np.unique(out)) <= {0.0, 1.25}
    assert abs((out == 0).mean() - 0.2) < 0.01
    assert abs(out.mean() - 1.0) < 0.01  # inverted dropout preserves the expectation
    same = backend.to_numpy(rg.dropout(X, drop_prob=0.2, rng=0))
    np.testing.assert_array_equal(out, same)
    plain = backend.to_numpy(rg.dropout(X, keep_prob=0.8, rng=0, inverted=False))
    assert abs(plain.mean() - 0.8) < 0.01
    np.testing.assert_array_equal(
        backend.to_numpy(rg.dropout(X, keep_prob=0.8, training=False)),
        np.ones((200, 500)),
    )
    with pytest.raises(ValueError, match="exactly one"):
        rg.dropout(X, keep_prob=0.8, drop_prob=0.2)


def test_dropout_module_matches_torch_dropout_statistics():
    x = torch.ones(400, 400, dtype=torch.float64)
    torch.manual_seed(0)
    ref = torch.nn.Dropout(p=0.3)(x)  # torch's p is the drop probability
    mine = rg.DropoutModule(drop_prob=0.3)(x)
    assert set(torch.unique(mine).tolist()) == set(torch.unique(ref).tolist())
    assert abs(float((mine == 0).double().mean() - (ref == 0).double().mean())) < 0.01
    m = rg.DropoutModule(keep_prob=0.7).eval()
    torch.testing.assert_close(m(x), x)


def test_spatial_dropout_and_dropconnect():
    X = np.ones((50, 4, 4, 8))
    out = rg.spatial_dropout(X, keep_prob=0.5, rng=0)
    per_map = out.reshape(50, 16, 8)
    assert np.all(per_map.min(1) == per_map.max(1))  # whole channels kept or dropped
    W = np.random.default_rng(1).normal(size=(3, 4))
    x, b = np.ones(4), np.zeros(3)
    mean = np.mean(
        [rg.dropconnect_linear(x, W, b, keep_prob=0.6, rng=s) for s in range(4000)],
        axis=0,
    )
    np.testing.assert_allclose(mean, 0.6 * W @ x, atol=0.1)


def test_exact_expectation_linear_net_equals_inverted_eval():
    rng = np.random.default_rng(2)
    W1, W2, x = rng.normal(size=(2, 3)), rng.normal(size=(3, 1)), rng.normal(size=2)
    p = 0.7

    def f(masks):
        return ((masks[0] * x / p) @ W1 * masks[1] / p) @ W2

    exact = rg.exact_dropout_expectation(f, [2, 3], p)
    np.testing.assert_allclose(exact, (x @ W1) @ W2, atol=1e-12)

    def g(x_, gen):
        return rg.dropout(x_, keep_prob=p, rng=gen)

    mean, std = rg.mc_dropout_predict(g, np.ones((1, 3)), 4000)
    np.testing.assert_allclose(mean, 1.0, atol=0.05)
    assert std.shape == (1, 3)
