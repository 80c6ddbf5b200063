"""Checks of lab 06 (chapter 6: a reverse-mode engine of your own).

Exercises: the VJPs of four primitives (a batched matrix product, a broadcast bias,
softplus, logsumexp), a backward pass (topological order and accumulation) and one
step of gradient descent with them. Every check compares with ``alice_lab.autodiff``
on seeded inputs chosen to expose the classic mistakes: non-square *and* square
matrices (a transposed gradient has the right shape when the matrix is square),
batches whose size differs from the width (a missing reduction or a missing axis
fails loudly) and equals it (it fails silently), huge logits (an unstable formula
overflows), shared subexpressions and a graph thousands of nodes deep. The references
are the library's own (the engine's ``vjp`` and ``grad``, ``softplus_grad``,
``softmax``, ``backward_pass``); most mutants rearrange their output or change a
setting.

Book: §6.4.1 (VJPs, lines 2954-3108) and "From theory to practice" (lines 3236-3250).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, mutant, register


def _pair(
    name: str, got, want: Callable[[], tuple], *, rtol=1e-10, atol=1e-12
) -> tuple[bool, str]:
    """Compare a tuple answer (dX, dW) with the reference pair ``want()``, entry by
    entry; ``name`` holds one label per entry, "dX .../dW ...". ``want`` is called
    (once) only to judge, never on the grading worker's side."""
    labels = name.split("/")
    if not isinstance(got, tuple | list) or len(got) != len(labels):
        return False, f"{name} should return a tuple of {len(labels)} arrays"
    want = functools.cache(want)
    for k, (label, g) in enumerate(zip(labels, got, strict=True)):
        ok, msg = _compare(label, g, lambda k=k: want()[k], rtol=rtol, atol=atol)
        if not ok:
            return False, msg
    return True, ""


# --- 6.1: the VJPs of Y = X W ---------------------------------------------------------


def _matmul_ref():
    from alice_lab.autodiff import vjp

    def matmul_vjp(g, X, W):
        """The engine's VJP of the product."""
        return vjp(lambda X, W: X @ W, X, W)[1](g)

    return matmul_vjp


@register("lab06.1", name="matmul_vjp", exercise="6.1", points=2, reference=_matmul_ref)
def check_matmul_vjp(matmul_vjp: Callable) -> tuple[bool, str]:
    """matmul_vjp(g, X, W) -> (dX, dW) for Y = X W, X (n, c), W (c, c')."""
    from alice_lab.autodiff import vjp

    def case(n, c, c_out, seed):
        r = np.random.default_rng(seed)
        X, W = r.standard_normal((n, c)), r.standard_normal((c, c_out))
        g = r.standard_normal((n, c_out))
        return lambda: _pair(
            f"dX ({n}×{c} @ {c}×{c_out})/dW ({n}×{c} @ {c}×{c_out})",
            matmul_vjp(g.copy(), X.copy(), W.copy()),
            lambda: vjp(lambda X, W: X @ W, X, W)[1](g),
        )

    return _chain(
        case(5, 4, 3, 0),
        case(4, 4, 4, 1),  # square: a transposed dW has the right shape here
        ok="dX = G Wᵀ and dW = Xᵀ G on rectangular and square matrices",
    )


# the mutants rearrange the engine's VJPs


@mutant("lab06.1", "weight gradient transposed (Gᵀ X)")
def _mm_transposed(g, X, W):
    dX, dW = _matmul_ref()(g, X, W)
    return dX, dW.T


@mutant("lab06.1", "weight gradient transposed, written (Xᵀ G)ᵀ")
def _mm_transposed_square(g, X, W):
    dX, dW = _matmul_ref()(g, X, W)
    return dX, np.transpose(dW)


@mutant("lab06.1", "input gradient without the transpose (G W)")
def _mm_no_transpose(g, X, W):
    # the input gradient of X Wᵀ is G W (defined when W is square)
    return _matmul_ref()(g, X, W.T)[0], _matmul_ref()(g, X, W)[1]


@mutant("lab06.1", "the two gradients swapped")
def _mm_swapped(g, X, W):
    return _matmul_ref()(g, X, W)[::-1]


# --- 6.2: the VJPs of Y = X + b, b broadcast over the rows ----------------------------


def _bias_ref():
    from alice_lab.autodiff import vjp

    def add_bias_vjp(g, X, b):
        """The engine's VJP of the broadcast sum."""
        return vjp(lambda X, b: X + b, X, b)[1](g)

    return add_bias_vjp


@register("lab06.2", name="add_bias_vjp", exercise="6.2", points=2, reference=_bias_ref)
def check_add_bias_vjp(add_bias_vjp: Callable) -> tuple[bool, str]:
    """add_bias_vjp(g, X, b) -> (dX, db) for Y = X + b, X (n, c), b (c)."""
    from alice_lab.autodiff import vjp

    def case(n, c, seed):
        r = np.random.default_rng(seed)
        X, b, g = (
            r.standard_normal((n, c)),
            r.standard_normal(c),
            r.standard_normal((n, c)),
        )
        return lambda: _pair(
            f"dX ({n}×{c})/db ({c},)",
            add_bias_vjp(g.copy(), X.copy(), b.copy()),
            lambda: vjp(lambda X, b: X + b, X, b)[1](g),
        )

    return _chain(
        case(6, 3, 2),
        case(1, 4, 3),
        ok="db sums the upstream gradient over the batch: the adjoint of broadcasting",
    )


@mutant("lab06.2", "missing broadcasting reduction (db = G)")
def _bias_no_reduction(g, X, b):
    return g, g


@mutant("lab06.2", "mean over the batch instead of the sum")
def _bias_mean(g, X, b):
    return g, g.mean(axis=0)


@mutant("lab06.2", "reduction with keepdims, db of shape (1, c)")
def _bias_keepdims(g, X, b):
    return g, g.sum(axis=0, keepdims=True)


@mutant("lab06.2", "summed over the wrong axis")
def _bias_wrong_axis(g, X, b):
    return g, g.sum(axis=1)


# --- 6.3: softplus, a new primitive ---------------------------------------------------


def _sigmoid(x):
    """σ(x), SciPy's: what the check compares with."""
    from scipy.special import expit

    return expit(x)


def _softplus_ref():
    from alice_lab.activations import softplus_grad

    def softplus_vjp(g, x):
        """g times the library's derivative of the softplus."""
        return g * softplus_grad(x)

    return softplus_vjp


_X_SOFTPLUS = np.array([-800.0, -30.0, -2.0, -0.1, 0.0, 0.3, 4.0, 40.0, 800.0])


@register(
    "lab06.3", name="softplus_vjp", exercise="6.3", points=2, reference=_softplus_ref
)
def check_softplus_vjp(softplus_vjp: Callable) -> tuple[bool, str]:
    """softplus_vjp(g, x) = g ⊙ σ(x), stable for |x| in the hundreds."""
    r = np.random.default_rng(4)
    X = r.standard_normal((3, 5)) * 3
    G = r.standard_normal((3, 5))
    g_big = r.standard_normal(_X_SOFTPLUS.shape)

    def run(g, x):
        with np.errstate(all="ignore"):  # an overflow shows up as inf/NaN below
            return softplus_vjp(g.copy(), x.copy())

    return _chain(
        lambda: _compare(
            "softplus_vjp(g, x)",
            run(G, X),
            lambda: G * _sigmoid(X),
            rtol=1e-10,
            atol=1e-12,
        ),
        lambda: _compare(
            "softplus_vjp at x = ±800, ±30, ...",
            run(g_big, _X_SOFTPLUS),
            lambda: g_big * _sigmoid(_X_SOFTPLUS),
            # σ(-30) ≈ 9.4e-14: exact formulas and the book's 0.5 (tanh(x/2) + 1),
            # which is off by ~1e-17 there, both pass; 0 or NaN does not
            rtol=1e-10,
            atol=1e-15,
        ),
        ok="g ⊙ σ(x), finite and exact for large |x| too",
    )


@mutant("lab06.3", "unstable e^x / (1 + e^x): NaN for large x")
def _sp_unstable(g, x):
    return g * np.exp(x) / (1 + np.exp(x))


@mutant("lab06.3", "the softplus itself instead of its derivative")
def _sp_value(g, x):
    return g * np.logaddexp(0, x)


@mutant("lab06.3", "the derivative of the sigmoid, σ(x)(1 − σ(x))")
def _sp_second(g, x):
    from alice_lab.activations import sigmoid_grad

    return g * sigmoid_grad(x)


@mutant("lab06.3", "forgets the upstream gradient g")
def _sp_no_g(g, x):
    return _softplus_ref()(np.ones_like(g), x)


# --- 6.4: logsumexp along the last axis -----------------------------------------------


def _g_times_softmax(g, x, *, axis=-1, new_axis=True):
    """``g[:, None] ⊙ softmax(x)`` with the library's (stable) softmax along ``axis``:
    the reference, and with ``axis=0`` or ``new_axis=False`` two of its mutants."""
    from alice_lab.functional import softmax

    return (g[..., None] if new_axis else g) * softmax(x, axis=axis)


def _lse_ref():
    def logsumexp_vjp(g, x):
        return _g_times_softmax(g, x)

    return logsumexp_vjp


@register("lab06.4", name="logsumexp_vjp", exercise="6.4", points=2, reference=_lse_ref)
def check_logsumexp_vjp(logsumexp_vjp: Callable) -> tuple[bool, str]:
    """logsumexp_vjp(g, x) for x (n, m), g (n) -> (n, m): g[:, None] * softmax(x)."""
    from alice_lab.autodiff import logsumexp, vjp

    def case(n, m, scale, seed):
        r = np.random.default_rng(seed)
        x, g = scale * r.standard_normal((n, m)), r.standard_normal(n)

        def step():
            with np.errstate(all="ignore"):
                got = logsumexp_vjp(g.copy(), x.copy())
            return _compare(
                f"logsumexp_vjp for x ({n}, {m})",
                got,
                lambda: vjp(lambda z: logsumexp(z, axis=-1), x)[1](g),
                rtol=1e-10,
                atol=1e-14,
            )

        return step

    return _chain(
        case(5, 3, 1.0, 5),
        case(4, 4, 1.0, 6),  # square: a g missing its axis broadcasts the wrong way
        case(3, 6, 1000.0, 7),  # logits of size 1e3: exp overflows without the shift
        ok="g[:, None] ⊙ softmax(x): shapes, square batches and huge logits",
    )


@mutant("lab06.4", "g without its new axis (g * softmax)")
def _lse_no_axis(g, x):
    return _g_times_softmax(g, x, new_axis=False)


@mutant("lab06.4", "softmax without subtracting the max (overflows)")
def _lse_unstable(g, x):
    return g[:, None] * np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)


@mutant("lab06.4", "softmax over the batch axis")
def _lse_axis0(g, x):
    return _g_times_softmax(g, x, axis=0)


@mutant("lab06.4", "returns the softmax, ignoring g")
def _lse_no_g(g, x):
    return _lse_ref()(np.ones_like(g), x)


# --- 6.5: the backward pass -----------------------------------------------------------


def _backward_ref():
    from alice_lab.autodiff import backward_pass

    def backward(y):
        return backward_pass(y, np.ones_like(y.data))

    return backward


def _graphs():
    """Seeded test graphs: (output, leaves, what it tests)."""
    from alice_lab.autodiff import Tensor, mlp

    out = []
    a = Tensor(1.3, requires_grad=True)
    out.append((a + a * a, [a], "the diamond c = a + a·a"))
    x = Tensor(0.4, requires_grad=True)
    e = np.exp(x)
    out.append((e + e * e, [x], "y = eˣ + eˣ·eˣ (a shared node behind a node)"))
    r = np.random.default_rng(8)
    init = mlp.init_mlp([5, 7, 3], seed=8)
    leaves = [Tensor(a, requires_grad=True) for pair in init for a in pair]
    params = list(zip(leaves[::2], leaves[1::2], strict=True))  # [(W1, b1), (W2, b2)]
    X, labels = r.standard_normal((6, 5)), r.integers(0, 3, 6)
    out.append((mlp.mlp_loss(params, X, labels), leaves, "an MLP"))
    z = Tensor(0.9, requires_grad=True)
    h = z
    for _ in range(3000):
        h = h * 0.9995 + 0.001
    out.append((h, [z], "a chain 6000 operations deep"))
    return out


@register("lab06.5", name="backward", exercise="6.5", points=3, reference=_backward_ref)
def check_backward(backward: Callable) -> tuple[bool, str]:
    """backward(y) -> {leaf: gradient} for a scalar Tensor y: topological order,
    adjoints accumulated over every use, no recursion limit."""
    from alice_lab.autodiff import backward_pass

    fresh_graphs = functools.cache(_graphs)

    @functools.cache
    def expected(i):
        """The engine's leaf gradients for graph ``i``, on a copy of the graph that
        the student's code never saw."""
        y, leaves, _ = fresh_graphs()[i]
        grads = backward_pass(y, np.ones_like(y.data))
        return [grads[leaf] for leaf in leaves]

    def case(i, y, leaves, what):
        def step():
            got = backward(y)
            if not isinstance(got, dict):
                return False, f"backward should return a dict, got {type(got).__name__}"
            for k, leaf in enumerate(leaves):
                if leaf not in got:
                    return False, f"{what}: no gradient for leaf {k}"
                ok, msg = _compare(
                    f"{what}: leaf {k}",
                    got[leaf],
                    lambda k=k: expected(i)[k],
                    rtol=1e-10,
                    atol=1e-12,
                )
                if not ok:
                    return False, msg
            return True, ""

        return step

    return _chain(
        *(case(i, *g) for i, g in enumerate(_graphs())),
        ok="correct leaf gradients on shared nodes, an MLP and a 6000-node chain",
    )


@mutant("lab06.5", "gradient not accumulated (overwritten by the last path)")
def _bw_overwrite(y):
    from alice_lab.autodiff.pitfalls import backward_overwrite

    return backward_overwrite(y)


@mutant("lab06.5", "no topological sort (breadth-first order)")
def _bw_unsorted(y):
    from alice_lab.autodiff.pitfalls import backward_unsorted

    return backward_unsorted(y)


@mutant("lab06.5", "recursive, path by path (hits the recursion limit)")
def _bw_recursive(y):
    grads: dict = {}

    def visit(node, g):
        if node.is_leaf:
            grads[node] = grads[node] + g if node in grads else g
            return
        for parent, gp in zip(node.parents, node.local_vjp(g), strict=True):
            visit(parent, gp)

    visit(y, np.ones_like(y.data))
    return grads


@mutant("lab06.5", "starts from a zero seed")
def _bw_zero_seed(y):
    from alice_lab.autodiff import backward_pass

    return backward_pass(y, np.zeros_like(y.data))


# --- 6.6: one step of gradient descent ----------------------------------------------


def _param_grads(params, X, y, loss_fn) -> list[tuple]:
    """The gradient of ``loss_fn(params, X, y)`` for every (W, b), with the engine's
    ``grad`` over all the parameters at once."""
    from alice_lab.autodiff import grad

    flat = [a for pair in params for a in pair]

    def loss(*flat):
        return loss_fn(list(zip(flat[::2], flat[1::2], strict=True)), X, y)

    g = grad(loss, argnums=tuple(range(len(flat))))(*flat)
    return list(zip(g[::2], g[1::2], strict=True))


def _train_ref():
    def train_step(params, X, y, lr, loss_fn, backward_fn):
        """W - lr dW and b - lr db, with the gradients of :func:`_param_grads`."""
        grads = _param_grads(params, X, y, loss_fn)
        return [
            (W - lr * dW, b - lr * db)
            for (W, b), (dW, db) in zip(params, grads, strict=True)
        ]

    return train_step


def _engine_backward(y):
    from alice_lab.autodiff import backward_pass

    return backward_pass(y, np.ones_like(y.data))


@register("lab06.6", name="train_step", exercise="6.6", points=3, reference=_train_ref)
def check_train_step(train_step: Callable) -> tuple[bool, str]:
    """train_step(params, X, y, lr, loss_fn, backward_fn) -> new [(W, b), ...] after
    one gradient-descent step; the caller's arrays stay untouched. The check hands it
    the engine's own loss and backward pass, so only the step itself is graded."""
    from sklearn.datasets import load_digits

    from alice_lab.autodiff.mlp import backprop_step, init_mlp, mlp_loss

    X, y = load_digits(return_X_y=True)
    X, y = X[:120] / 16.0, y[:120]
    widths = [64, 12, 10]
    layers = len(widths) - 1

    @functools.cache
    def expected(steps):
        """The engine's parameters after ``steps`` steps from the same start."""
        if steps == 0:
            return init_mlp(widths, seed=9)
        return backprop_step(expected(steps - 1), X, y, 0.5)[0]

    mine = init_mlp(widths, seed=9)
    for step in range(3):
        before = [(W.copy(), b.copy()) for W, b in mine]
        given = [(W.copy(), b.copy()) for W, b in mine]
        mine = train_step(given, X, y, 0.5, mlp_loss, _engine_backward)
        if not isinstance(mine, list | tuple) or len(mine) != layers:
            return False, f"train_step should return a list of {layers} (W, b) pairs"
        for k, ((W0, b0), (W1, b1)) in enumerate(zip(before, given, strict=True)):
            if not (np.array_equal(W0, W1) and np.array_equal(b0, b1)):
                return False, f"train_step changed the arrays of layer {k + 1} in place"
        for k, (W, b) in enumerate(mine):
            for j, (name, got) in enumerate(((f"W{k + 1}", W), (f"b{k + 1}", b))):
                ok, msg = _compare(
                    f"step {step + 1}: {name}",
                    got,
                    lambda s=step + 1, k=k, j=j: expected(s)[k][j],
                    rtol=1e-9,
                    atol=1e-12,
                )
                if not ok:
                    return False, msg
        mine = [(np.asarray(W), np.asarray(b)) for W, b in mine]
    return True, "three steps match the reference; the caller's arrays are untouched"


# the mutants: the reference step's output, or the engine's gradients, put to the
# wrong use


@mutant("lab06.6", "gradient ascent (+ lr · grad)")
def _ts_ascent(params, X, y, lr, loss_fn, backward_fn):
    new = _train_ref()(params, X, y, lr, loss_fn, backward_fn)
    # W + lr dW = 2 W - (W - lr dW)
    return [
        (2 * W - W1, 2 * b - b1) for (W, b), (W1, b1) in zip(params, new, strict=True)
    ]


@mutant("lab06.6", "biases never updated")
def _ts_no_bias(params, X, y, lr, loss_fn, backward_fn):
    new = _train_ref()(params, X, y, lr, loss_fn, backward_fn)
    return [(W1, b.copy()) for (W, b), (W1, b1) in zip(params, new, strict=True)]


@mutant("lab06.6", "returns the gradients instead of the new parameters")
def _ts_grads(params, X, y, lr, loss_fn, backward_fn):
    return _param_grads(params, X, y, loss_fn)


@mutant("lab06.6", "updates the caller's arrays in place")
def _ts_inplace(params, X, y, lr, loss_fn, backward_fn):
    new = _train_ref()(params, X, y, lr, loss_fn, backward_fn)
    for (W, b), (W1, b1) in zip(params, new, strict=True):
        W[...], b[...] = W1, b1
    return params
