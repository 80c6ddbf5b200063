"""alice_lab.recurrent: linear attention (parallel = recurrent, = softmax attention for
the exponential kernel), vanilla/Li-GRU/GRU/LSTM cells against torch.nn with copied
weights, AFT and RWKV forms, on every array backend where the code is generic."""

from __future__ import annotations

import numpy as np
import pytest

from alice_lab import recurrent as R


def _qkv(seed=0, b=2, n=7, c=3, v=4):
    r = np.random.default_rng(seed)
    return (
        r.standard_normal((b, n, c)),
        r.standard_normal((b, n, c)),
        r.standard_normal((b, n, v)),
    )


# --- linear attention -------------------------------------------------------------


def test_linear_attention_forms_agree_on_every_backend(backend):
    Q, K, V = (backend.asarray(M) for M in _qkv())
    par = backend.to_numpy(R.causal_linear_attention_parallel(Q, K, V))
    rec = backend.to_numpy(R.causal_linear_attention_recurrent(Q, K, V))
    assert par.shape == (2, 7, 4)
    np.testing.assert_allclose(rec, par, rtol=0, atol=1e-10)
    full = backend.to_numpy(R.linear_attention(Q, K, V))
    # non-causal factored form = pairwise form (E.13.3 vs line 6351), by hand
    fQ, fK = (np.where(M > 0, M + 1, np.exp(M)) for M in _qkv()[:2])
    W = fQ @ np.swapaxes(fK, -1, -2)
    np.testing.assert_allclose(
        full, W @ _qkv()[2] / W.sum(-1, keepdims=True), atol=1e-12
    )
    Wc = np.tril(W)  # the causal form, masked pairwise by hand (E.13.4)
    np.testing.assert_allclose(
        par, Wc @ _qkv()[2] / Wc.sum(-1, keepdims=True), atol=1e-12
    )


def test_exp_kernel_attention_is_softmax_attention(backend):
    import torch

    Q, K, V = _qkv(1)
    got = backend.to_numpy(
        R.kernel_attention(*(backend.asarray(M) for M in (Q, K, V)), causal=True)
    )
    want = torch.nn.functional.scaled_dot_product_attention(
        *(torch.as_tensor(M) for M in (Q, K, V)), is_causal=True, scale=1.0
    ).numpy()
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_recurrent_state_is_constant_size_and_causal():
    Q, K, V = _qkv(2, b=1, n=9)
    H, (S, z) = R.causal_linear_attention_recurrent(Q, K, V, return_state=True)
    assert S.shape == (1, 3, 4) and z.shape == (1, 3)
    K2 = K.copy()
    K2[:, 6:] += 5.0
    H2 = R.causal_linear_attention_recurrent(Q, K2, V)
    np.testing.assert_array_equal(H[:, :6], H2[:, :6])
    assert not np.allclose(H[:, 6:], H2[:, 6:])


def test_quadratic_features_and_unnormalized_forms():
    r = np.random.default_rng(3)
    x, y = r.standard_normal(4), r.standard_normal(4)
    phi = R.quadratic_features
    assert phi(x) @ phi(y) == pytest.approx((x @ y) ** 2, rel=1e-12)
    Q, K, V = _qkv(4)
    # by hand: h_i = sum_{j <= i} ((q_i . k_j)^2) v_j, since phi(q).phi(k) = (q.k)^2
    Wc = np.tril((Q @ np.swapaxes(K, -1, -2)) ** 2)
    for form in ("recurrent", "parallel"):
        np.testing.assert_allclose(
            R.unnormalized_linear_attention(Q, K, V, phi, form=form),
            Wc @ V,
            atol=1e-10,
        )
    par = R.causal_linear_attention_parallel(Q, K, V, phi)
    np.testing.assert_allclose(par, Wc @ V / Wc.sum(-1, keepdims=True), atol=1e-10)
    np.testing.assert_allclose(
        par, R.causal_linear_attention_recurrent(Q, K, V, phi), atol=1e-10
    )


def test_linear_attention_bad_input():
    Q, K, V = _qkv()
    with pytest.raises(ValueError, match="same feature size"):
        R.linear_attention(Q, K[..., :2], V)
    with pytest.raises(ValueError, match="same length n"):
        R.causal_linear_attention_recurrent(Q, K, V[:, :3])
    with pytest.raises(ValueError, match="non-empty"):
        R.causal_linear_attention_parallel(Q[:, :0], K[:, :0], V[:, :0])
    with pytest.raises(ValueError, match="state must be"):
        R.linear_attention_step(
            (np.zeros((2, 3, 5)), np.zeros((2, 3))), Q[:, 0], K[:, 0], V[:, 0]
        )
    with pytest.raises(ValueError, match="form must be"):
        R.unnormalized_linear_attention(Q, K, V, form="loop")


# --- recurrent cells against torch --------------------------------------------------


def _torch_setup(kind, c=3, e=5, seed=0):
    import torch

    torch.manual_seed(seed)
    cell = getattr(torch.nn, f"{kind}Cell")(c, e).double()
    layer = getattr(torch.nn, kind)(c, e, batch_first=True).double()
    return cell, layer


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_cells_match_torch_cells(kind, backend):
    import torch

    cell, _ = _torch_setup(kind)
    p = {k: backend.asarray(v) for k, v in R.params_from_torch(cell).items()}
    r = np.random.default_rng(5)
    x, s = r.standard_normal((4, 3)), r.standard_normal((4, 5))
    xt, st = torch.as_tensor(x), torch.as_tensor(s)
    xb, sb = backend.asarray(x), backend.asarray(s)
    if kind == "RNN":
        got = R.rnn_cell(
            sb, xb, p["weight_hh"], p["weight_ih"], p["bias_ih"] + p["bias_hh"]
        )
        want = cell(xt, st)
    elif kind == "GRU":
        got, want = R.gru_cell(sb, xb, p), cell(xt, st)
    else:
        c0 = r.standard_normal((4, 5))
        got = R.lstm_cell((sb, backend.asarray(c0)), xb, p)
        want = cell(xt, (st, torch.as_tensor(c0)))
        np.testing.assert_allclose(
            backend.to_numpy(got[1]), want[1].detach().numpy(), atol=1e-12
        )
        got, want = got[0], want[0]
    np.testing.assert_allclose(backend.to_numpy(got), want.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_unrolled_layers_match_torch_layers(kind):
    import torch

    _, layer = _torch_setup(kind, seed=1)
    p = R.params_from_torch(layer)
    X = np.random.default_rng(6).standard_normal((2, 11, 3))
    fn = {"RNN": R.rnn, "GRU": R.gru, "LSTM": R.lstm}[kind]
    S, last = fn(X, p)
    want, last_t = layer(torch.as_tensor(X))
    np.testing.assert_allclose(S, want.detach().numpy(), atol=1e-12)
    h_n = last[0] if kind == "LSTM" else last
    h_t = last_t[0] if kind == "LSTM" else last_t
    np.testing.assert_allclose(h_n, h_t[0].detach().numpy(), atol=1e-12)
    # unbatched (n, c) input gives the batch's first row
    np.testing.assert_allclose(fn(X[0], p)[0], S[0], atol=1e-14)


def test_bidirectional_matches_torch():
    import torch

    torch.manual_seed(2)
    layer = torch.nn.GRU(3, 4, batch_first=True, bidirectional=True).double()
    pf = R.params_from_torch(layer)
    pb = R.params_from_torch(layer, suffix="_reverse")
    X = np.random.default_rng(7).standard_normal((2, 6, 3))
    got = R.bidirectional(
        lambda X, reverse: R.gru(X, pf, reverse=reverse),
        lambda X, reverse: R.gru(X, pb, reverse=reverse),
        X,
    )
    assert got.shape == (2, 6, 8)
    np.testing.assert_allclose(
        got, layer(torch.as_tensor(X))[0].detach().numpy(), atol=1e-12
    )


def test_elman_readout_and_li_gru_limits():
    r = np.random.default_rng(8)
    e, c, o = 4, 2, 3
    A, B = 0.5 * r.standard_normal((e, e)), r.standard_normal((e, c))
    C, D = r.standard_normal((o, e)), r.standard_normal((o, c))
    X = r.standard_normal((10, c))
    H, S = R.elman_rnn(X, A, B, C, D)
    s = np.zeros(e)
    for i, x in enumerate(X):  # the loop written out
        s = np.tanh(A @ s + B @ x)
        np.testing.assert_allclose(S[i], s, atol=1e-14)
        np.testing.assert_allclose(H[i], C @ s + D @ x, atol=1e-14)
    V, U = r.standard_normal((e, e)), r.standard_normal((e, c))
    s0, x = r.uniform(-1, 1, e), r.standard_normal(c)
    closed = R.li_gru_cell(s0, x, A, B, V, U, gate_bias=-40.0)
    np.testing.assert_allclose(closed, s0, atol=1e-12)
    opened = R.li_gru_cell(s0, x, A, B, V, U, gate_bias=40.0)
    np.testing.assert_allclose(opened, R.rnn_cell(s0, x, A, B), atol=1e-12)


def test_cell_bad_input():
    r = np.random.default_rng(9)
    A, B = r.standard_normal((4, 4)), r.standard_normal((4, 2))
    with pytest.raises(ValueError, match=r"state weight must have shape \(4, 4\)"):
        R.rnn_cell(np.zeros(4), np.zeros(2), A[:3], B)
    with pytest.raises(ValueError, match=r"input weight must have shape \(4, 3\)"):
        R.rnn_cell(np.zeros(4), np.zeros(3), A, B)
    with pytest.raises(ValueError, match="non-empty sequence"):
        R.elman_rnn(np.zeros((0, 2)), A, B)
    with pytest.raises(ValueError, match="missing 'weight_hh'"):
        R.gru_cell(np.zeros(4), np.zeros(2), {"weight_ih": np.zeros((12, 2))})
    with pytest.raises(ValueError, match="phi must be"):
        R.rnn_cell(np.zeros(4), np.zeros(2), A, B, phi="sigmoid")


# --- AFT and RWKV -------------------------------------------------------------------


def test_aft_forms(backend):
    r = np.random.default_rng(10)
    Q, K, V = (r.standard_normal((6, 3)) for _ in range(3))
    simple = backend.to_numpy(R.aft(*(backend.asarray(M) for M in (Q, K, V))))
    W0 = backend.asarray(np.zeros((8, 8)))
    full = backend.to_numpy(R.aft(*(backend.asarray(M) for M in (Q, K, V)), W0))
    np.testing.assert_allclose(full, simple, atol=1e-12)
    # per channel: softmax over j of k_{.z}, v inside the sum (line 6749 corrected)
    soft = np.exp(K) / np.exp(K).sum(0)
    np.testing.assert_allclose(
        simple, (1 / (1 + np.exp(-Q))) * (soft * V).sum(0), atol=1e-12
    )
    causal = backend.to_numpy(
        R.aft(*(backend.asarray(M) for M in (Q, K, V)), causal=True)
    )
    mask = np.where(np.tril(np.ones((8, 8))) > 0, 0.0, -np.inf)
    np.testing.assert_allclose(R.aft(Q, K, V, mask), causal, atol=1e-12)
    for i in range(6):  # by hand: the softmax over j <= i only
        e = np.exp(K[: i + 1])
        want = (e * V[: i + 1]).sum(0) / e.sum(0) / (1 + np.exp(-Q[i]))
        np.testing.assert_allclose(causal[i], want, atol=1e-12)


def test_rwkv_forms_agree_and_stable_form_survives_large_keys():
    r = np.random.default_rng(11)
    n, e = 9, 4
    Rm, K, V = (r.standard_normal((n, e)) for _ in range(3))
    w, u = r.uniform(0, 1, e), r.standard_normal(e)
    par = R.rwkv_time_mix(Rm, K, V, w, u)
    for form in ("recurrent", "stable"):
        np.testing.assert_allclose(
            R.rwkv_time_mix(Rm, K, V, w, u, form=form), par, atol=1e-12
        )
    # brute force from line 6781
    i = 5
    num = (
        sum(np.exp(K[j] - (i - j) * w) * V[j] for j in range(i))
        + np.exp(K[i] + u) * V[i]
    )
    den = sum(np.exp(K[j] - (i - j) * w) for j in range(i)) + np.exp(K[i] + u)
    np.testing.assert_allclose(par[i], num / den / (1 + np.exp(-Rm[i])), atol=1e-12)
    big = K + 800.0
    assert not np.isfinite(R.rwkv_time_mix(Rm, big, V, w, u, form="recurrent")).all()
    np.testing.assert_allclose(
        R.rwkv_time_mix(Rm, big, V, w, u, form="stable"), par, atol=1e-10
    )
    with pytest.raises(ValueError, match="form must be"):
        R.rwkv_time_mix(Rm, K, V, w, u, form="scan")


def test_token_shift_and_channel_mix():
    r = np.random.default_rng(12)
    X = r.standard_normal((5, 3))
    np.testing.assert_array_equal(R.token_shift(X, np.ones(3)), X)
    shifted = R.token_shift(X, np.zeros(3))
    np.testing.assert_array_equal(shifted[1:], X[:-1])
    np.testing.assert_array_equal(shifted[0], 0.0)
    W1, W2, W3 = (r.standard_normal((3, 3)) for _ in range(3))
    y = R.rwkv_channel_mix(X, W1, W2, W3)
    want = (1 / (1 + np.exp(-X @ W1.T))) * (np.maximum(X @ W3.T, 0) ** 2 @ W2.T)
    np.testing.assert_allclose(y, want, atol=1e-12)
