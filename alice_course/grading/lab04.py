"""Checks of lab 04 (chapter 4: a linear classifier from scratch, the book's exercise).

Every value that comes from the student's code goes through :func:`_compare` (shape,
then values), including the dictionary keys, which are compared as 0/1 flags, so a
grader can redo each comparison outside the student's process.

Book: "From theory to practice" at the end of chapter 4 (lines 2164-2192).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alice_course.grading import _chain, _compare, _lazy, mutant, register

# under private names (the checks' parameters are called init_params, predict, ...),
# at module level, where the grader's delegation watch finds what a reference names
from alice_lab.linear import (
    gradients as _lib_gradients,
    init_params as _lib_init_params,
    loss as _lib_loss,
    predict as _lib_predict,
    predict_proba as _lib_predict_proba,
)

KEYS = ("W", "b")
MODELS = ("tree", "knn")


# --- seeded inputs and references -----------------------------------------------------


def _data(n: int = 40, c: int = 5, m: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, c)), rng.integers(0, m, size=n)


def _params(c: int = 5, m: int = 3, seed: int = 1, bias: bool = True, scale=1.0):
    rng = np.random.default_rng(seed)
    p = {"W": scale * rng.standard_normal((m, c))}
    if bias:
        p["b"] = rng.standard_normal(m)
    return p


def _copy(params: dict) -> dict:
    return {k: np.array(v, copy=True) for k, v in params.items()}


def _ref_init(c, m, seed):
    return _lib_init_params(c, m, seed=seed)


def _ref_predict(params, X):
    return _lib_predict_proba(params, X)


def _ref_gradients(params, X, y):
    return _lib_gradients(params, X, y)


def _ref_loss_and_accuracy(params, X, y):
    acc = float(np.mean(np.argmax(_lib_predict(params, X), axis=1) == y))
    return float(_lib_loss(params, X, y)), acc


def _ref_train(X, y, lr, steps, bias=True, seed=0, *, frozen: tuple[str, ...] = ()):
    """Gradient descent from the library's init_params; ``frozen`` names parameters
    that are never updated (a mistake the mutants make)."""
    params = _ref_init(X.shape[1], int(np.max(y)) + 1, seed)
    if not bias:
        del params["b"]
    losses = [_ref_loss_and_accuracy(params, X, y)[0]]
    for _ in range(steps):
        g = _ref_gradients(params, X, y)
        params = {k: v if k in frozen else v - lr * g[k] for k, v in params.items()}
        losses.append(_ref_loss_and_accuracy(params, X, y)[0])
    return params, losses


def _classifiers(neighbours: int = 5) -> dict:
    """The two scikit-learn models of exercise 4.6, unfitted, by their key."""
    from sklearn import neighbors, tree

    return {
        "tree": tree.DecisionTreeClassifier(random_state=0),
        "knn": neighbors.KNeighborsClassifier(n_neighbors=neighbours),
    }


def _accuracies(
    X_fit, y_fit, X_score, y_score, *, neighbours: int = 5, unit: float = 1.0
) -> dict:
    """Each model of :func:`_classifiers`, fitted on ``(X_fit, y_fit)``: the share
    of its predictions on ``X_score`` equal to ``y_score`` (times ``unit``)."""
    return {
        key: unit * float(np.mean(model.fit(X_fit, y_fit).predict(X_score) == y_score))
        for key, model in _classifiers(neighbours).items()
    }


def _ref_compare(X_train, y_train, X_test, y_test):
    """Test accuracies of models fitted on the training split."""
    return _accuracies(X_train, y_train, X_test, y_test)


def _keys(
    name: str, got, keys: tuple[str, ...], want: Callable[[], dict], allowed=KEYS
) -> tuple[bool, str]:
    """Compare which of ``allowed`` keys a returned dict holds, as 0/1 flags, with the
    keys of the reference's dict ``want()``; ``keys`` are the keys the check expects
    (known from its inputs, so the check's steps never depend on the reference)."""
    if not isinstance(got, dict):
        return False, f"{name} must return a dict; got {type(got).__name__}"
    ok, _ = _compare(
        f"{name}: keys present",
        np.array([float(k in got) for k in allowed]),
        lambda: np.array([float(k in want()) for k in allowed]),
        rtol=0,
        atol=0,
    )
    if not ok or set(got) != set(keys):
        return False, f"{name} returned keys {sorted(got)}; expected {sorted(keys)}"
    return True, ""


def _dict_equal(
    name, got, keys: tuple[str, ...], want: Callable[[], dict], *, rtol, atol
) -> tuple[bool, str]:
    """The keys of ``got``, then ``got[k]`` against ``want()[k]`` for each ``k`` of
    ``keys``."""
    return _chain(
        lambda: _keys(name, got, keys, want),
        *(
            lambda k=k: _compare(
                f"{name}[{k!r}]", got[k], lambda: want()[k], rtol=rtol, atol=atol
            )
            for k in keys
        ),
        ok="",
    )


# --- 4.1 init_params ------------------------------------------------------------------


@register(
    "lab04.1", name="init_params", exercise="4.1", points=2, reference=lambda: _ref_init
)
def check_init(init_params: Callable) -> tuple[bool, str]:
    """init_params(c, m, seed): W (m, c) = 0.01 * default_rng(seed).standard_normal,
    b = zeros(m)."""

    def case(c, m, seed):
        return lambda: _dict_equal(
            f"init_params({c}, {m}, seed={seed})",
            init_params(c, m, seed),
            KEYS,
            _lazy(_ref_init, c, m, seed),
            rtol=1e-12,
            atol=0,
        )

    return _chain(
        case(4, 3, 0),
        case(64, 10, 7),
        case(2, 5, 123),
        ok="W ~ 0.01·N(0, 1) of shape (m, c) from the seeded generator, b = 0 (m,)",
    )


@mutant("lab04.1", "W transposed, shape (c, m)")
def _init_transposed(c, m, seed):
    p = _ref_init(c, m, seed)
    return {
        "W": 0.01 * np.random.default_rng(seed).standard_normal((c, m)),
        "b": p["b"],
    }


@mutant("lab04.1", "ignores the seed")
def _init_unseeded(c, m, seed):
    return _ref_init(c, m, 0)


@mutant("lab04.1", "standard deviation 1 instead of 0.01")
def _init_big(c, m, seed):
    p = _ref_init(c, m, seed)
    return {"W": 100 * p["W"], "b": p["b"]}


@mutant("lab04.1", "bias of shape (c,)")
def _init_bias_c(c, m, seed):
    return {"W": _ref_init(c, m, seed)["W"], "b": np.zeros(c)}


# --- 4.2 predict ----------------------------------------------------------------------


@register(
    "lab04.2", name="predict", exercise="4.2", points=2, reference=lambda: _ref_predict
)
def check_predict(predict: Callable) -> tuple[bool, str]:
    """predict(params, X) -> (n, m) softmax(X Wᵀ + b), rows summing to 1; no bias when
    params has no "b"; finite for large logits."""
    X, _ = _data(seed=2)

    def case(params, what):
        return lambda: _compare(
            f"predict(params, X) {what}",
            predict(_copy(params), X.copy()),
            lambda: _ref_predict(params, X),
            rtol=1e-9,
            atol=1e-12,
        )

    return _chain(
        case(_params(seed=3), "with a bias"),
        case(_params(seed=4, bias=False), "without a bias"),
        case(_params(seed=5, scale=400.0), "with logits in the hundreds"),
        ok="softmax(X Wᵀ + b) over the classes, with or without b, stable for big h",
    )


@mutant("lab04.2", "returns the logits, no softmax")
def _predict_logits(params, X):
    return X @ params["W"].T + params.get("b", 0.0)


@mutant("lab04.2", "softmax over the examples (axis 0)")
def _predict_axis0(params, X):
    h = X @ params["W"].T + params.get("b", 0.0)
    e = np.exp(h - h.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


@mutant("lab04.2", "ignores the bias")
def _predict_no_bias(params, X):
    return _ref_predict({"W": params["W"]}, X)


@mutant("lab04.2", "softmax without subtracting the maximum (overflows)")
def _predict_unstable(params, X):
    h = X @ params["W"].T + params.get("b", 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(h)
        return e / e.sum(axis=1, keepdims=True)


@mutant("lab04.2", "uses W without transposing (X @ W)")
def _predict_untransposed(params, X):
    return X @ params["W"]


# --- 4.3 gradients --------------------------------------------------------------------


@register(
    "lab04.3",
    name="gradients",
    exercise="4.3",
    points=3,
    reference=lambda: _ref_gradients,
)
def check_gradients(gradients: Callable) -> tuple[bool, str]:
    """gradients(params, X, y) -> dict keyed like params: dW = (P − Y)ᵀX / n (m, c),
    db = mean of P − Y (m,); no "b" in, no "b" out."""
    X, y = _data(seed=6)

    def case(params, what):
        return lambda: _dict_equal(
            f"gradients {what}",
            gradients(_copy(params), X.copy(), y.copy()),
            tuple(params),
            _lazy(_ref_gradients, params, X, y),
            rtol=1e-7,
            atol=1e-10,
        )

    return _chain(
        case(_params(seed=7), "with a bias"),
        case(_params(seed=8, bias=False), "without a bias"),
        ok="hand-written gradients match autodiff-checked references, bias on and off",
    )


@mutant("lab04.3", "forgets the 1/n of the mean")
def _grads_sum(params, X, y):
    return {k: len(y) * v for k, v in _ref_gradients(params, X, y).items()}


@mutant("lab04.3", "sign flipped (Y − P)")
def _grads_sign(params, X, y):
    return {k: -v for k, v in _ref_gradients(params, X, y).items()}


@mutant("lab04.3", "always returns a bias gradient")
def _grads_always_b(params, X, y):
    full = dict(params)
    full.setdefault("b", np.zeros(params["W"].shape[0]))
    return _ref_gradients(full, X, y)


@mutant("lab04.3", "dW transposed, shape (c, m)")
def _grads_transposed(params, X, y):
    g = _ref_gradients(params, X, y)
    g["W"] = g["W"].T
    return g


# --- 4.4 loss and accuracy ------------------------------------------------------------


@register(
    "lab04.4",
    name="loss_and_accuracy",
    exercise="4.4",
    points=2,
    reference=lambda: _ref_loss_and_accuracy,
)
def check_loss_and_accuracy(loss_and_accuracy: Callable) -> tuple[bool, str]:
    """loss_and_accuracy(params, X, y) -> (mean cross-entropy, fraction correct)."""
    X, y = _data(n=60, seed=9)

    def case(params, what):
        def run():
            got = loss_and_accuracy(_copy(params), X.copy(), y.copy())
            if not isinstance(got, tuple) or len(got) != 2:
                return False, f"loss_and_accuracy must return a pair; got {got!r:.60}"
            want = _lazy(_ref_loss_and_accuracy, params, X, y)
            return _chain(
                lambda: _compare(
                    f"loss {what}", got[0], lambda: want()[0], rtol=1e-7, atol=1e-10
                ),
                lambda: _compare(
                    f"accuracy {what}", got[1], lambda: want()[1], rtol=0, atol=1e-12
                ),
                ok="",
            )

        return run

    return _chain(
        case(_params(seed=10), "with a bias"),
        case(_params(seed=11, bias=False, scale=400.0), "without a bias, large logits"),
        ok="mean cross-entropy from the logits and the accuracy as a fraction",
    )


@mutant("lab04.4", "sums the cross-entropy instead of averaging")
def _la_sum(params, X, y):
    loss, acc = _ref_loss_and_accuracy(params, X, y)
    return loss * len(y), acc


@mutant("lab04.4", "accuracy in percent")
def _la_percent(params, X, y):
    loss, acc = _ref_loss_and_accuracy(params, X, y)
    return loss, 100 * acc


@mutant("lab04.4", "cross-entropy through log(softmax) that underflows")
def _la_unstable(params, X, y):
    h = X @ params["W"].T + params.get("b", 0.0)
    with np.errstate(all="ignore"):
        e = np.exp(h)
        p = e / e.sum(axis=1, keepdims=True)
        loss = float(np.mean(-np.log(p[np.arange(len(y)), y])))
    return loss, _ref_loss_and_accuracy(params, X, y)[1]


@mutant("lab04.4", "accuracy counted, not divided by n")
def _la_count(params, X, y):
    loss, acc = _ref_loss_and_accuracy(params, X, y)
    return loss, acc * len(y)


# --- 4.5 train ------------------------------------------------------------------------


@register(
    "lab04.5", name="train", exercise="4.5", points=3, reference=lambda: _ref_train
)
def check_train(train: Callable) -> tuple[bool, str]:
    """train(X, y, lr, steps, bias, seed) -> (params, losses): gradient descent from
    init_params(c, m, seed), losses[0] at the start and one more after every step."""
    X, y = _data(n=50, c=4, m=3, seed=12)

    def case(lr, steps, bias):
        def run():
            got = train(X.copy(), y.copy(), lr, steps, bias=bias, seed=3)
            if not isinstance(got, tuple) or len(got) != 2:
                return False, "train must return (params, losses)"
            params, losses = got
            want = _lazy(_ref_train, X, y, lr, steps, bias=bias, seed=3)
            what = f"(lr={lr}, steps={steps}, bias={bias})"
            return _chain(
                lambda: _dict_equal(
                    f"trained params {what}",
                    params,
                    KEYS if bias else ("W",),
                    lambda: want()[0],
                    rtol=1e-6,
                    atol=1e-9,
                ),
                lambda: _compare(
                    f"losses {what}",
                    np.asarray(losses, dtype=float),
                    lambda: np.asarray(want()[1]),
                    rtol=1e-6,
                    atol=1e-9,
                ),
                ok="",
            )

        return run

    return _chain(
        case(0.5, 10, True),
        case(0.1, 5, False),
        ok="gradient descent path and loss history match, with and without a bias",
    )


@mutant("lab04.5", "gradient ascent (adds the gradient)")
def _train_ascent(X, y, lr, steps, bias=True, seed=0):
    return _ref_train(X, y, -lr, steps, bias=bias, seed=seed)


@mutant("lab04.5", "never updates the bias")
def _train_frozen_b(X, y, lr, steps, bias=True, seed=0):
    return _ref_train(X, y, lr, steps, bias=bias, seed=seed, frozen=("b",))


@mutant("lab04.5", "ignores lr (step 1)")
def _train_lr1(X, y, lr, steps, bias=True, seed=0):
    return _ref_train(X, y, 1.0, steps, bias=bias, seed=seed)


@mutant("lab04.5", "records the loss only after each step (history one short)")
def _train_short(X, y, lr, steps, bias=True, seed=0):
    params, losses = _ref_train(X, y, lr, steps, bias=bias, seed=seed)
    return params, losses[1:]


# --- 4.6 comparison with scikit-learn -------------------------------------------------


@register(
    "lab04.6", name="compare", exercise="4.6", points=2, reference=lambda: _ref_compare
)
def check_compare(compare: Callable) -> tuple[bool, str]:
    """compare(X_train, y_train, X_test, y_test) -> {"tree": acc, "knn": acc}: a
    DecisionTreeClassifier(random_state=0) and a 5-NN fitted on the training split,
    scored (as fractions) on the test split."""
    from alice_lab.data import load_iris, train_test_split

    X, y = load_iris()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, seed=4)
    rng = np.random.default_rng(13)
    Xn = X + rng.normal(scale=0.6, size=X.shape)  # noisier, so train and test differ
    Ntr, Nte, ntr, nte = train_test_split(Xn, y, test_size=0.3, seed=5)

    def case(a, b, c, d, what):
        def run():
            got = compare(a.copy(), b.copy(), c.copy(), d.copy())
            want = _lazy(_ref_compare, a, b, c, d)
            ok, msg = _keys(f"compare {what}", got, MODELS, want, allowed=MODELS)
            if not ok:
                return ok, msg
            return _chain(
                *(
                    (
                        lambda k=k: _compare(
                            f"{k} test accuracy {what}",
                            got[k],
                            lambda: want()[k],
                            rtol=0,
                            atol=1e-12,
                        )
                    )
                    for k in MODELS
                ),
                ok="",
            )

        return run

    return _chain(
        case(Xtr, ytr, Xte, yte, "on iris"),
        case(Ntr, ntr, Nte, nte, "on noisy iris"),
        ok="decision tree and 5-NN test accuracies match scikit-learn's",
    )


@mutant("lab04.6", "scores on the training split")
def _compare_train(X_train, y_train, X_test, y_test):
    return _accuracies(X_train, y_train, X_train, y_train)


@mutant("lab04.6", "fits on the test split")
def _compare_swapped(X_train, y_train, X_test, y_test):
    return _accuracies(X_test, y_test, X_train, y_train)


@mutant("lab04.6", "accuracies in percent")
def _compare_percent(X_train, y_train, X_test, y_test):
    return _accuracies(X_train, y_train, X_test, y_test, unit=100.0)


@mutant("lab04.6", "1-NN instead of 5-NN")
def _compare_1nn(X_train, y_train, X_test, y_test):
    return _accuracies(X_train, y_train, X_test, y_test, neighbours=1)
