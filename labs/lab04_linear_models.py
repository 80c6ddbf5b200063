# %% [markdown]
# # Lab 4 — A linear classifier from scratch
#
# [▶ Open the student version in Colab](https://colab.research.google.com/github/alice-companion/alice-companion/blob/v0.1.0/labs/student/lab04_linear_models.ipynb)
#
# *Accompanies "From theory to practice" at the end of Chapter 4 of* Alice's Adventures
# in a differentiable wonderland *by Simone Scardapane (book lines 2164–2192). The
# exercise is the book's; the text and code here are the companion's (text CC BY-SA 4.0,
# code MIT).*
#
# The book's exercise: load a toy dataset from scikit-learn, build a linear model with
# one function that initialises the parameters and one that predicts, train it by
# gradient descent with gradients you derive yourself (written so that the bias can be
# switched on and off), then plot the loss and the accuracy on a held-out test set and
# compare with a decision tree and a $k$-nearest-neighbour classifier. We do it on the
# 8 × 8 handwritten digits (1797 images, 10 classes) with NumPy only.
#
# | Exercise | What you write |
# |---|---|
# | 4.1 | `init_params(c, m, seed)`: small random weights and a zero bias |
# | 4.2 | `predict(params, X)`: class probabilities, softmax of the logits |
# | 4.3 | `gradients(params, X, y)`: the gradient of the cross-entropy, by hand |
# | 4.4 | `loss_and_accuracy(params, X, y)`: what we monitor |
# | 4.5 | `train(X, y, lr, steps, bias, seed)`: gradient descent |
# | 4.6 | `compare(X_train, y_train, X_test, y_test)`: a decision tree and 5-NN |
#
# Replace each `raise NotImplementedError(...)` with your code. The cell after each
# exercise runs a check that prints ✓ or ✗ with the points earned and, when something
# is wrong, what differed; the cell after that uses your function, and until the
# exercises it needs are done it says "(skipped until Exercise 4.k is done)" instead, so
# that *Run all* still reaches your score at the end.

# %%
# Installs alice_lab 0.1.0, this notebook's release, when it
# is missing (e.g. on Colab); does nothing where it is installed.
try:
    import alice_lab
except ImportError:
    import subprocess
    import sys

    REPOSITORY = "https://github.com/alice-companion/alice-companion"
    PACKAGE = f"alice_lab @ git+{REPOSITORY}@v0.1.0"
    print(f"installing {PACKAGE} ...")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", PACKAGE])
    import alice_lab
print("alice_lab", alice_lab.__version__)

# %%
import matplotlib.pyplot as plt
import numpy as np

from alice_course import grading
from alice_course.grading import (
    attempted,  # False (and a note) while fn is still a stub
)
from alice_lab import data, linear
from alice_lab.backend import is_fast

FAST = is_fast()  # ALICE_FAST=1 (set by the tests) trains for fewer steps
STEPS = 60 if FAST else 300  # gradient-descent steps on the digits
LR = 0.5  # the step size eta

# %% [markdown]
# ## The data
#
# `alice_lab.data.load_digits` returns scikit-learn's bundled digits (no download):
# `X` of shape `(1797, 64)`, one row of 64 pixel intensities per image, and integer
# labels `y` in `0..9`. We hold out a quarter of the images as a test set, keeping the
# proportion of each digit, and standardise the pixels with the training statistics
# only (nothing about the test set leaks into training).

# %%
X, y = data.load_digits()
X_train, X_test, y_train, y_test = data.train_test_split(
    X, y, test_size=0.25, seed=0, stratify=True
)
X_train, X_test = data.standardize(X_train, X_test)
n, c = X_train.shape
m = 10
print(f"train {X_train.shape}, test {X_test.shape}, classes {np.unique(y).tolist()}")

fig, axes = plt.subplots(1, 8, figsize=(10, 1.6))
for ax, img, label in zip(axes, X[:8], y[:8], strict=True):
    ax.imshow(img.reshape(8, 8), cmap="gray_r")
    ax.set(title=str(label), xticks=[], yticks=[])
plt.show()

# %% [markdown]
# ## The model
#
# Logistic regression turns an input $\mathbf{x} \sim (c)$ into $m$ **logits**
# $\mathbf{h} = \mathbf{W}\mathbf{x} + \mathbf{b}$, with $\mathbf{W} \sim (m, c)$ and
# $\mathbf{b} \sim (m)$, and the logits into probabilities with the softmax,
# $\hat{\mathbf{y}} = \mathrm{softmax}(\mathbf{h})$. For a whole batch
# $\mathbf{X} \sim (n, c)$ the logits are $\mathbf{H} = \mathbf{X}\mathbf{W}^\top +
# \mathbf{b}$, shape $(n, m)$. We keep the parameters in a dictionary,
# `{"W": ..., "b": ...}`; a model *without* a bias is simply the dictionary without
# `"b"`.
#
# ## Exercise 4.1 — Initialise the parameters
#
# Write `init_params(c, m, seed)` returning `{"W": W, "b": b}` with `W` of shape
# `(m, c)` drawn as `0.01 * rng.standard_normal((m, c))` from
# `rng = np.random.default_rng(seed)`, and `b = np.zeros(m)`. (Small weights make every
# class start almost equally likely; the exact recipe lets the check compare numbers.)


# %%
def init_params(c, m, seed):
    """-> {"W": (m, c) array, "b": (m,) array}."""
    ### BEGIN SOLUTION
    rng = np.random.default_rng(seed)
    return {"W": 0.01 * rng.standard_normal((m, c)), "b": np.zeros(m)}
    ### END SOLUTION


# %%
grading.check("lab04.1", init_params)

# %%
if attempted(init_params, c, m, 0):
    p0 = init_params(c, m, seed=0)
    print({k: v.shape for k, v in p0.items()}, f"|W| ≤ {np.abs(p0['W']).max():.3f}")

# %% [markdown]
# ## Exercise 4.2 — Predict
#
# Write `predict(params, X)` returning the probabilities, shape `(n, m)`: the softmax of
# the logits `X @ params["W"].T + params["b"]` along the class axis (each row sums to
# 1). When `params` has no `"b"`, leave the bias out.
#
# The softmax $\exp(h_i)/\sum_j\exp(h_j)$ overflows as soon as a logit passes about 709
# (`np.exp(710)` is `inf`, and `inf / inf` is `nan`). Subtract each row's maximum from
# its logits first: the result does not change, and every exponent is at most 0.


# %%
def predict(params, X):
    """params: {"W": (m, c)[, "b": (m,)]}, X: (n, c) -> (n, m) probabilities."""
    ### BEGIN SOLUTION
    H = X @ params["W"].T
    if "b" in params:
        H = H + params["b"]
    H = H - H.max(axis=1, keepdims=True)
    E = np.exp(H)
    return E / E.sum(axis=1, keepdims=True)
    ### END SOLUTION


# %%
grading.check("lab04.2", predict)

# %%
if attempted(predict, linear.init_params(c, m, seed=0), X_train[:5]):
    P0 = predict(linear.init_params(c, m, seed=0), X_train)
    print(
        "shape",
        P0.shape,
        "| rows sum to 1:",
        np.allclose(P0.sum(axis=1), 1.0),
        "| first row ≈ uniform:",
        np.round(P0[0, :4], 3),
    )
    big = {"W": 1000.0 * np.eye(m, c)}
    print(
        "finite for logits in the thousands:",
        np.isfinite(predict(big, X_train[:5])).all(),
    )

# %% [markdown]
# ## Exercise 4.3 — The gradients, by hand
#
# The loss is the mean cross-entropy, $L = -\frac1n\sum_i \log\hat{y}_{i, y_i}$. With
# $\mathbf{P}$ the $(n, m)$ probabilities and $\mathbf{Y}$ the one-hot labels
# ($Y_{ij} = 1$ when $y_i = j$), its gradients are
#
# $$\nabla_{\mathbf{W}} L = \frac1n(\mathbf{P} - \mathbf{Y})^\top\mathbf{X} \sim (m, c),
# \qquad \nabla_{\mathbf{b}} L = \frac1n\sum_i(\mathbf{p}_i - \mathbf{y}_i) \sim (m).$$
#
# (It is the book's $(f(\mathbf{x}) - y)\mathbf{x}$ for one output, stacked over the
# classes and averaged over the batch.) Write `gradients(params, X, y)` returning a
# dictionary **with the same keys as `params`**: a model without `"b"` gets no `"b"`
# gradient. `np.eye(m)[y]` builds $\mathbf{Y}$.


# %%
def gradients(params, X, y):
    """-> {"W": (m, c)[, "b": (m,)]}, the gradient of the mean cross-entropy."""
    ### BEGIN SOLUTION
    n = X.shape[0]
    P = predict(params, X)
    G = (P - np.eye(P.shape[1])[y]) / n  # (n, m)
    grads = {"W": G.T @ X}
    if "b" in params:
        grads["b"] = G.sum(axis=0)
    return grads
    ### END SOLUTION


# %%
grading.check("lab04.3", gradients)

# %% [markdown]
# A derivation can be checked without knowing the answer: move one weight by $\pm h$
# and divide the change in the loss by $2h$ (a central difference). Here for a few
# entries of $\mathbf{W}$ and $\mathbf{b}$, with the loss computed by `alice_lab`.

# %%
p1 = {"W": np.random.default_rng(1).normal(size=(m, c)) * 0.1, "b": np.zeros(m)}
if attempted(gradients, p1, X_train[:5], y_train[:5]):  # it may call your predict
    g1 = gradients(p1, X_train[:200], y_train[:200])
    h = 1e-6
    for key, idx in [("W", (3, 10)), ("W", (7, 40)), ("b", (2,))]:
        up, down = (
            {k: v.copy() for k, v in p1.items()},
            {k: v.copy() for k, v in p1.items()},
        )
        up[key][idx] += h
        down[key][idx] -= h
        fd = (
            float(linear.loss(up, X_train[:200], y_train[:200]))
            - float(linear.loss(down, X_train[:200], y_train[:200]))
        ) / (2 * h)
        print(
            f"∂L/∂{key}{list(idx)}: yours {g1[key][idx]: .8f}, central difference {fd: .8f}"
        )
    print(
        "without a bias, keys:",
        sorted(gradients({"W": p1["W"]}, X_train[:200], y_train[:200])),
    )

# %% [markdown]
# ## Exercise 4.4 — Loss and accuracy
#
# Write `loss_and_accuracy(params, X, y)` returning the pair `(loss, accuracy)`: the mean
# cross-entropy $-\frac1n\sum_i\log\hat{y}_{i,y_i}$ and the fraction of examples whose
# most probable class is the true one (a number in $[0, 1]$, not a percentage). Compute
# the loss from the logits, as $-h_{i, y_i} + \log\sum_j e^{h_{ij}}$ with the maximum
# subtracted inside the log, so that it stays finite when a probability is too small to
# represent.


# %%
def loss_and_accuracy(params, X, y):
    """-> (mean cross-entropy, accuracy in [0, 1])."""
    ### BEGIN SOLUTION
    H = X @ params["W"].T
    if "b" in params:
        H = H + params["b"]
    top = H.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(H - top).sum(axis=1))
    loss = float(np.mean(lse - H[np.arange(len(y)), y]))
    accuracy = float(np.mean(H.argmax(axis=1) == y))
    return loss, accuracy
    ### END SOLUTION


# %%
grading.check("lab04.4", loss_and_accuracy)

# %%
if attempted(loss_and_accuracy, linear.init_params(c, m, seed=0), X_test, y_test):
    print(
        "untrained model: loss %.4f (log 10 = %.4f), test accuracy %.3f"
        % (
            *loss_and_accuracy(linear.init_params(c, m, seed=0), X_test, y_test)[:1],
            np.log(10),
            loss_and_accuracy(linear.init_params(c, m, seed=0), X_test, y_test)[1],
        )
    )

# %% [markdown]
# ## Exercise 4.5 — Train by gradient descent
#
# Write `train(X, y, lr, steps, bias=True, seed=0)`:
#
# 1. start from `init_params(c, m, seed)` with `m = y.max() + 1`, and drop `"b"` when
#    `bias` is False;
# 2. repeat `steps` times: `params[k] = params[k] - lr * grads[k]` for every key of the
#    gradients;
# 3. return `(params, losses)`, where `losses` holds the training loss at the start and
#    after every step (`steps + 1` numbers).


# %%
def train(X, y, lr, steps, bias=True, seed=0):
    """-> (params, losses) after `steps` gradient-descent updates."""
    ### BEGIN SOLUTION
    params = init_params(X.shape[1], int(y.max()) + 1, seed)
    if not bias:
        del params["b"]
    losses = [loss_and_accuracy(params, X, y)[0]]
    for _ in range(steps):
        grads = gradients(params, X, y)
        params = {k: params[k] - lr * grads[k] for k in params}
        losses.append(loss_and_accuracy(params, X, y)[0])
    return params, losses
    ### END SOLUTION


# %%
grading.check("lab04.5", train)

# %% [markdown]
# Train with and without the bias and follow the test accuracy along the way (we rerun
# the updates to record it; `train` only returns the training losses).

# %%
runs = {}
# train calls your init_params, gradients and loss_and_accuracy
if attempted(train, X_train[:20], y_train[:20], LR, 1) and attempted(
    loss_and_accuracy, linear.init_params(c, m, seed=0), X_test, y_test
):
    for use_bias in (True, False):
        params, losses = train(X_train, y_train, LR, STEPS, bias=use_bias, seed=0)
        runs[use_bias] = (params, losses)
        test_loss, test_acc = loss_and_accuracy(params, X_test, y_test)
        print(
            f"bias={use_bias!s:5}: training loss {losses[-1]:.4f}, test loss {test_loss:.4f}, test accuracy {test_acc:.4f}"
        )
    steps_axis = np.linspace(0, STEPS, 6 if FAST else 16).astype(int)
    curve = [
        loss_and_accuracy(
            train(X_train, y_train, LR, int(t), seed=0)[0], X_test, y_test
        )[1]
        for t in steps_axis
    ]

# %% [markdown]
# ## Exercise 4.6 — Compare with other models
#
# Write `compare(X_train, y_train, X_test, y_test)` returning
# `{"tree": ..., "knn": ...}`: the test accuracies (fractions) of a
# `sklearn.tree.DecisionTreeClassifier(random_state=0)` and a
# `sklearn.neighbors.KNeighborsClassifier(n_neighbors=5)`, each fitted on the training
# split and scored on the test split (`.score` returns the accuracy).


# %%
def compare(X_train, y_train, X_test, y_test):
    """-> {"tree": test accuracy, "knn": test accuracy}."""
    ### BEGIN SOLUTION
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
    knn = KNeighborsClassifier(n_neighbors=5).fit(X_train, y_train)
    return {"tree": tree.score(X_test, y_test), "knn": knn.score(X_test, y_test)}
    ### END SOLUTION


# %%
grading.check("lab04.6", compare)

# %%
# the figure also shows the runs of Exercise 4.5
if (
    attempted(compare, X_train[:50], y_train[:50], X_test[:5], y_test[:5])
    and attempted(train, X_train[:20], y_train[:20], LR, 1)
    and attempted(loss_and_accuracy, linear.init_params(c, m, seed=0), X_test, y_test)
):
    others = compare(X_train, y_train, X_test, y_test)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    for use_bias, (_, losses) in runs.items():
        ax1.plot(losses, label=f"bias={use_bias}")
    ax1.set(xlabel="gradient step", ylabel="training cross-entropy", title="loss")
    ax1.legend()
    ax2.plot(steps_axis, curve, "o-", label="logistic regression (yours)")
    ax2.axhline(
        others["tree"],
        color="tab:green",
        ls="--",
        label=f"decision tree {others['tree']:.3f}",
    )
    ax2.axhline(
        others["knn"], color="tab:red", ls=":", label=f"5-NN {others['knn']:.3f}"
    )
    ax2.set(
        xlabel="gradient step",
        ylabel="test accuracy",
        ylim=(0.5, 1.0),
        title="accuracy on the held-out quarter",
    )
    ax2.legend(fontsize=8)
    plt.show()

# %% [markdown]
# Things to look at: the linear model beats the single decision tree but not 5-NN on
# these images; with or without the bias makes almost no difference here (the pixels
# are standardised, so a constant feature adds little). Try a larger step size, or many
# more steps, and watch the training loss keep falling while the test accuracy stalls.
#
# ## Your score
#
# The cell below runs every check of this lab again and adds up the points.

# %%
results = grading.report("lab04", globals())
