"""Checks of lab 13 (chapter 13: recurrent models in PyTorch).

Exercises: an Elman RNN unrolled over time (against ``torch.nn.RNN`` with copied
weights), one LSTM step (against ``torch.nn.LSTMCell``), the forget-gate bias trick on
an ``nn.LSTM``, the diagonalised SSM (against the dense recurrence), the combine step of
a parallel scan for :math:`h_t = a_t h_{t-1} + b_t` (run on a tree, where a
non-associative combine fails) and the adding-problem generator. Inputs are seeded and
chosen so that the classic mistakes show: square weights (swapped matrices have the
right shape), a state that is not carried, gates in the wrong order, the book's printed
:math:`\\mathbf{P}\\mathbf{B}`. The reference solutions call ``alice_lab.recurrent``
(or, for the forget-gate bias and the adding problem, one written-out function whose
knobs also make the mutants).

Book: §13.2 (lines 6383-6517), §13.3 (lines 6519-6711).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register


def _t(x):
    import torch

    return torch.as_tensor(np.asarray(x, dtype=np.float64))


# --- 13.1: an Elman RNN unrolled over time --------------------------------------------


def _rnn_ref():
    """The library's Elman layer (``alice_lab.recurrent.elman_rnn``, state weights
    first)."""
    from alice_lab.recurrent import elman_rnn

    def rnn_forward(X, W_ih, W_hh, b):
        return elman_rnn(X, W_hh, W_ih, bias=b)[0]

    return rnn_forward


@register("lab13.1", name="rnn_forward", exercise="13.1", points=2, reference=_rnn_ref)
def check_rnn_forward(rnn_forward: Callable) -> tuple[bool, str]:
    """rnn_forward(X (b, n, c), W_ih (e, c), W_hh (e, e), b (e,)) -> H (b, n, e)."""
    import torch

    def case(c, e, seed):
        torch.manual_seed(seed)
        layer = torch.nn.RNN(c, e, batch_first=True).double()
        X = torch.randn(3, 7, c, dtype=torch.float64)
        with torch.no_grad():
            got = rnn_forward(
                X.clone(),
                layer.weight_ih_l0.clone(),
                layer.weight_hh_l0.clone(),
                (layer.bias_ih_l0 + layer.bias_hh_l0).clone(),
            )
        return lambda: _compare(
            f"H (c={c}, e={e})",
            got,
            lambda: layer(X)[0].detach().numpy(),
            rtol=1e-9,
            atol=1e-10,
        )

    return _chain(
        case(3, 5, 0),
        case(4, 4, 1),
        ok="matches torch.nn.RNN with the same weights, state carried over time",
    )


@mutant("lab13.1", "hidden state not carried (reset to zero at every step)")
def _rnn_no_carry(X, W_ih, W_hh, b):
    return _rnn_ref()(X, W_ih, 0 * W_hh, b)  # the old state weighs nothing


@mutant("lab13.1", "input and state weights swapped (silent when c = e)")
def _rnn_swapped(X, W_ih, W_hh, b):
    return (
        _rnn_ref()(X, W_hh, W_ih, b)
        if W_ih.shape == W_hh.shape
        else _rnn_ref()(X, W_ih, W_hh.T, b)
    )


@mutant("lab13.1", "sequence read backwards")
def _rnn_backwards(X, W_ih, W_hh, b):
    return _rnn_ref()(X.flip(1), W_ih, W_hh, b).flip(1)


@mutant("lab13.1", "ReLU instead of tanh")
def _rnn_relu(X, W_ih, W_hh, b):
    import torch

    from alice_lab.recurrent import elman_rnn

    return elman_rnn(X, W_hh, W_ih, bias=b, phi=torch.relu)[0]


# --- 13.2: one LSTM step --------------------------------------------------------------


def _lstm_ref():
    """The library's LSTM cell (``alice_lab.recurrent.lstm_cell``, PyTorch's gate
    order)."""
    from alice_lab.recurrent import lstm_cell

    def lstm_step(h, c, x, W_ih, W_hh, b):
        weights = {"weight_ih": W_ih, "weight_hh": W_hh, "bias_ih": b}
        return lstm_cell((h, c), x, weights)

    return lstm_step


@register("lab13.2", name="lstm_step", exercise="13.2", points=2, reference=_lstm_ref)
def check_lstm_step(lstm_step: Callable) -> tuple[bool, str]:
    """lstm_step(h, c, x, W_ih (4e, c), W_hh (4e, e), b (4e,)) -> (h', c'), gates
    i,f,g,o."""
    import torch

    torch.manual_seed(2)
    cell = torch.nn.LSTMCell(3, 4).double()
    with torch.no_grad():
        cell.bias_ih[4:8] += 1.5  # an open forget gate: swapped gates show
    x = torch.randn(5, 3, dtype=torch.float64)
    h, c = (
        torch.randn(5, 4, dtype=torch.float64),
        torch.randn(5, 4, dtype=torch.float64),
    )
    with torch.no_grad():
        got = lstm_step(
            h.clone(),
            c.clone(),
            x.clone(),
            cell.weight_ih.clone(),
            cell.weight_hh.clone(),
            (cell.bias_ih + cell.bias_hh).clone(),
        )
    if not isinstance(got, tuple | list) or len(got) != 2:
        return False, "lstm_step should return the pair (h_new, c_new)"

    def want(k):  # 0: h', 1: c', from torch.nn.LSTMCell
        return cell(x, (h, c))[k].detach().numpy()

    return _chain(
        lambda: _compare("c_new", got[1], lambda: want(1), rtol=1e-9, atol=1e-10),
        lambda: _compare("h_new", got[0], lambda: want(0), rtol=1e-9, atol=1e-10),
        ok="matches torch.nn.LSTMCell (gates in PyTorch's order i, f, g, o)",
    )


@mutant("lab13.2", "input and forget gates swapped")
def _lstm_swapped(h, c, x, W_ih, W_hh, b):
    e = W_hh.shape[1]
    perm = [*range(e, 2 * e), *range(e), *range(2 * e, 4 * e)]  # f, i, g, o
    return _lstm_ref()(h, c, x, W_ih[perm], W_hh[perm], b[perm])


@mutant("lab13.2", "output gate applied to c instead of tanh(c)")
def _lstm_no_tanh(h, c, x, W_ih, W_hh, b):
    h_new, c_new = _lstm_ref()(h, c, x, W_ih, W_hh, b)
    import torch

    return h_new / torch.tanh(c_new) * c_new, c_new


@mutant("lab13.2", "forget gate multiplies the candidate, not the old cell")
def _lstm_forget_wrong(h, c, x, W_ih, W_hh, b):
    import torch

    pre = torch.chunk(x @ W_ih.T + h @ W_hh.T + b, 4, dim=-1)  # i, f, g, o
    i, f, o = (torch.sigmoid(pre[k]) for k in (0, 1, 3))
    cell = i * c + f * torch.tanh(pre[2])
    return o * torch.tanh(cell), cell


# --- 13.3: the forget-gate bias -------------------------------------------------------


def _set_gate_bias(lstm, value=1.0, *, gate=1, bias_hh=0.0):
    """Set one gate's rows of every layer's biases: ``bias_ih`` to ``value``,
    ``bias_hh`` to ``bias_hh``. PyTorch stacks the gates i, f, g, o, so gate 1 is the
    forget gate; the knobs (another gate, bias_hh = value) make common mistakes."""
    rows = slice(gate * lstm.hidden_size, (gate + 1) * lstm.hidden_size)
    for name, bias in lstm.named_parameters():
        if name.startswith("bias_"):  # detach(): the same memory, outside autograd
            bias.detach()[rows] = value if name.startswith("bias_ih") else bias_hh
    return lstm


def _forget_ref():
    def init_forget_bias(lstm, value=1.0):
        return _set_gate_bias(lstm, value)

    return init_forget_bias


@register(
    "lab13.3", name="init_forget_bias", exercise="13.3", points=1, reference=_forget_ref
)
def check_init_forget_bias(init_forget_bias: Callable) -> tuple[bool, str]:
    """init_forget_bias(lstm, value) sets the forget gate's total bias to ``value``
    (bias_ih + bias_hh, slice [e:2e]) in every layer and leaves the other gates
    alone."""
    import torch

    torch.manual_seed(3)
    lstm = torch.nn.LSTM(3, 5, num_layers=2).double()
    before = {k: v.detach().clone() for k, v in lstm.named_parameters()}
    init_forget_bias(lstm, 2.0)
    e, steps = 5, []
    for layer in (0, 1):
        bi, bh = (getattr(lstm, f"bias_{w}_l{layer}").detach() for w in ("ih", "hh"))
        total = (bi + bh).numpy()

        def want(k=layer):  # the biases before, the forget gate's total set to 2
            w = (before[f"bias_ih_l{k}"] + before[f"bias_hh_l{k}"]).numpy()
            w[e : 2 * e] = 2.0
            return w

        steps.append(
            lambda t=total, w=want, k=layer: _compare(
                f"bias_ih + bias_hh of layer {k}", t, w, rtol=0, atol=1e-12
            )
        )

    def weights():
        same = all(
            torch.equal(before[k], v)
            for k, v in lstm.named_parameters()
            if k.startswith("weight")
        )
        return same, "" if same else "the weights changed; only the biases should"

    return _chain(
        *steps, weights, ok="forget gates open at init, other gates untouched"
    )


@mutant("lab13.3", "sets the input gate's slice [0:e] instead of the forget gate's")
def _forget_slice(lstm, value=1.0):
    return _set_gate_bias(lstm, value, gate=0)


@mutant("lab13.3", "forget bias with the wrong sign (closes the gate)")
def _forget_sign(lstm, value=1.0):
    return _set_gate_bias(lstm, -value)


@mutant("lab13.3", "both biases set to value (total is twice the value)")
def _forget_both(lstm, value=1.0):
    return _set_gate_bias(lstm, value, bias_hh=value)


# --- 13.4: the diagonal SSM -----------------------------------------------------------


def _diag_ref():
    """The library's ``diagonalize_ssm`` (B̄ = P⁻¹B, C̄ = CP)."""
    from alice_lab.recurrent import diagonalize_ssm as library_diagonalize_ssm

    def diagonalize_ssm(A, B, C):
        return library_diagonalize_ssm(A, B, C)

    return diagonalize_ssm


def _dense(X, A, B, C):
    s, out = np.zeros(A.shape[0]), []
    for x in X:
        s = A @ s + B @ x
        out.append(C @ s)
    return np.array(out)


def _diag_out(X, lam, Bb, Cb):
    s, out = np.zeros(lam.shape[0], dtype=complex), []
    for x in X:
        s = lam * s + Bb @ x
        out.append((Cb @ s).real)
    return np.array(out)


@register(
    "lab13.4", name="diagonalize_ssm", exercise="13.4", points=2, reference=_diag_ref
)
def check_diagonalize_ssm(diagonalize_ssm: Callable) -> tuple[bool, str]:
    """diagonalize_ssm(A, B, C) -> (lam (e,), B_bar (e, c), C_bar (o, e)) whose diagonal
    SSM has the outputs of the dense one."""
    r = np.random.default_rng(4)
    e, c, o = 5, 2, 3
    A = r.standard_normal((e, e))
    A *= 0.9 / np.abs(np.linalg.eigvals(A)).max()
    B, C, X = (
        r.standard_normal((e, c)),
        r.standard_normal((o, e)),
        r.standard_normal((25, c)),
    )
    got = diagonalize_ssm(A.copy(), B.copy(), C.copy())
    if not isinstance(got, tuple | list) or len(got) != 3:
        return False, "diagonalize_ssm should return (lam, B_bar, C_bar)"
    lam, Bb, Cb = (np.asarray(g) for g in got)
    if lam.shape != (e,) or Bb.shape != (e, c) or Cb.shape != (o, e):
        return False, (
            f"expected shapes lam ({e},), B_bar ({e}, {c}), C_bar ({o}, {e}); "
            f"got {lam.shape}, {Bb.shape}, {Cb.shape}"
        )
    return _chain(
        lambda: _compare(
            "A rebuilt from lam",
            np.sort_complex(lam).real,
            lambda: np.sort_complex(np.linalg.eigvals(A)).real,
            rtol=1e-8,
            atol=1e-10,
        ),
        lambda: _compare(
            "outputs of the diagonal SSM",
            _diag_out(X, lam, Bb, Cb),
            lambda: _dense(X, A, B, C),
            rtol=1e-8,
            atol=1e-9,
        ),
        ok="same outputs as the dense SSM (B̄ = P⁻¹B, C̄ = CP)",
    )


def _eig(A):
    """``(lam, P, P⁻¹)`` from the library's ``diagonalize``."""
    from alice_lab.recurrent import diagonalize

    return diagonalize(A)


@mutant("lab13.4", "the book's printed B̄ = P B")
def _diag_PB(A, B, C):
    lam, P, _ = _eig(A)
    return lam, P @ B, C @ P


@mutant("lab13.4", "B left unchanged (B instead of P⁻¹B)")
def _diag_B(A, B, C):
    lam, P, _ = _eig(A)
    return lam, B.astype(complex), C @ P


@mutant("lab13.4", "C P⁻¹ instead of C P")
def _diag_Cinv(A, B, C):
    lam, P, P_inv = _eig(A)
    return lam, P_inv @ B, C @ P_inv


# --- 13.5: the combine step of a parallel scan ----------------------------------------


def _combine_ref():
    """The library's ⋆ for h_t = a_t h_{t-1} + b_t (``linear_recurrence_op``)."""
    from alice_lab.recurrent import linear_recurrence_op

    def combine(earlier, later):
        return linear_recurrence_op(earlier, later)

    return combine


@register("lab13.5", name="combine", exercise="13.5", points=2, reference=_combine_ref)
def check_combine(combine: Callable) -> tuple[bool, str]:
    """combine((a1, b1), (a2, b2)) for h_t = a_t h_{t-1} + b_t, used on a scan tree."""
    from alice_lab.recurrent import associative_scan, is_associative

    r = np.random.default_rng(5)
    a, b = r.uniform(0.3, 1.2, (11, 3)), r.standard_normal((11, 3))

    def want():  # the loop h_t = a_t h_{t-1} + b_t, h_0 = 0
        h, out = np.zeros(3), []
        for t in range(11):
            h = a[t] * h + b[t]
            out.append(h)
        return np.array(out)

    triples = [(a[k], b[k]) for k in range(3)]
    if not is_associative(combine, *triples):
        return False, (
            "combine is not associative: combine(combine(x1, x2), x3) differs "
            "from combine(x1, combine(x2, x3)), so a parallel scan of it "
            "cannot match the loop"
        )
    outs = {}
    for alg in ("blelloch", "hillis_steele"):
        pre = associative_scan(
            combine,
            list(zip(a, b, strict=True)),
            algorithm=alg,
            check_associative=False,
        )
        outs[alg] = np.array([p[1] for p in pre])
    return _chain(
        lambda: _compare(
            "h from the Blelloch tree",
            outs["blelloch"],
            want,
            rtol=1e-10,
            atol=1e-12,
        ),
        lambda: _compare(
            "h from the Hillis-Steele tree",
            outs["hillis_steele"],
            want,
            rtol=1e-10,
            atol=1e-12,
        ),
        ok="associative, and both scan trees reproduce the loop",
    )


@mutant("lab13.5", "non-associative combine: keeps only the later a (a2, a2 b1 + b2)")
def _combine_keep_a(earlier, later):
    return later[0], later[0] * earlier[1] + later[1]


@mutant("lab13.5", "earlier and later swapped (a1 b2 + b1)")
def _combine_swapped(earlier, later):
    return earlier[0] * later[0], earlier[0] * later[1] + earlier[1]


@mutant("lab13.5", "b's simply added (b1 + b2)")
def _combine_add(earlier, later):
    return earlier[0] * later[0], earlier[1] + later[1]


# --- 13.6: the adding problem ---------------------------------------------------------


def _adding_variant(batch, length, rng, *, markers="two distinct", target="marked"):
    """The adding problem: values uniform in [0, 1) and two markers per sequence, at
    the first two places of a random permutation; y the sum of the marked values.
    The knobs make common mistakes: markers drawn ``"with replacement"`` or
    ``"fixed"`` at positions 0 and 1, the target the sum of ``"all"`` values."""
    values = rng.uniform(0.0, 1.0, (batch, length))
    if markers == "two distinct":
        where = rng.random((batch, length)).argsort(axis=1)[:, :2]
    elif markers == "with replacement":
        where = rng.integers(0, length, (batch, 2))
    else:
        where = np.tile([0, 1], (batch, 1))
    marks = np.zeros_like(values)
    np.put_along_axis(marks, where, 1.0, axis=1)
    y = np.einsum("bt,bt->b", values, marks) if target == "marked" else values.sum(1)
    return np.stack([values, marks], axis=-1), y


def _adding_ref():
    def adding_problem(batch, length, rng):
        return _adding_variant(batch, length, rng)

    return adding_problem


@register(
    "lab13.6", name="adding_problem", exercise="13.6", points=1, reference=_adding_ref
)
def check_adding_problem(adding_problem: Callable) -> tuple[bool, str]:
    """adding_problem(batch, length, rng) -> X (batch, length, 2), y (batch,): values in
    [0, 1), exactly two markers per sequence, y the sum of the two marked values."""
    X, y = adding_problem(400, 30, np.random.default_rng(6))
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.shape != (400, 30, 2) or y.shape != (400,):
        return False, f"expected X (400, 30, 2) and y (400,); got {X.shape}, {y.shape}"
    vals, marks = X[:, :, 0], X[:, :, 1]
    if not ((vals >= 0) & (vals < 1)).all():
        return False, "values (channel 0) must lie in [0, 1)"
    if not np.isin(marks, (0.0, 1.0)).all() or not (marks.sum(1) == 2).all():
        bad = int((marks.sum(1) != 2).sum())
        return False, f"every sequence needs exactly two markers; {bad} of 400 do not"
    # y is judged against the student's own draws: the residual must vanish
    ok, msg = _compare(
        "y minus the sum of the marked values",
        y - (vals * marks).sum(1),
        lambda: np.zeros(400),
        rtol=0,
        atol=1e-12,
    )
    if not ok:
        return False, msg
    firsts = marks.argmax(1)
    if firsts.max() - firsts.min() < 10:
        return False, "the marker positions should be random, not fixed"
    return True, "two random markers per sequence, y the sum of the marked values"


@mutant("lab13.6", "markers drawn with replacement (sometimes only one marker)")
def _adding_replace(batch, length, rng):
    return _adding_variant(batch, length, rng, markers="with replacement")


@mutant("lab13.6", "target is the sum of all values")
def _adding_all(batch, length, rng):
    return _adding_variant(batch, length, rng, target="all")


@mutant("lab13.6", "markers always at the first two positions")
def _adding_fixed(batch, length, rng):
    return _adding_variant(batch, length, rng, markers="fixed")
