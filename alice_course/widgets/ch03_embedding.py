r"""Widget and figures: embeddings of the digits in a small network's hidden layers.

Figure F.3.1 of the book says that a trained network's internal representations put
semantically similar inputs close together, while raw pixels do not. This module makes
that measurable on scikit-learn's bundled 8x8 digits (nothing is downloaded):

- :func:`train_digits_mlp` trains a ``64 -> 64 -> 32 -> 10`` ReLU network (PyTorch,
  mini-batch Adam, seeded) and keeps weight snapshots after chosen epochs;
- :func:`hidden_features` recomputes a hidden layer from a snapshot in NumPy;
- :func:`pca_2d`, :func:`knn_accuracy`, :func:`gmm_ari` and :func:`topk_similar`
  project, score and query the spaces (retrieval, book line 1180);
- :func:`few_shot_curves` is the offline analogy of Figure F.3.2 (pre-train on the
  digits 0-4; then use k labelled examples of each of 5-9 with a frozen embedding,
  by fine-tuning, or from scratch).

:func:`live_view` has a dropdown for the space and a slider for the training epoch;
:func:`static_view` animates the hidden-layer projection over the epochs.

Book: §3.1 and §3.1.1, Figures F.3.1-F.3.2 (lines 1176-1190).
"""

from __future__ import annotations

import contextlib
import copy
import functools
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DigitsMLP",
    "digits_data",
    "few_shot_curves",
    "gmm_ari",
    "hidden_features",
    "knn_accuracy",
    "live_view",
    "pca_2d",
    "shift_right",
    "static_view",
    "topk_similar",
    "train_digits_mlp",
]

SPACES = ("pixels", "hidden layer 1", "hidden layer 2")


@functools.lru_cache(maxsize=1)
def _digits():
    from alice_lab.data import load_digits

    X, y = load_digits()
    order = np.random.default_rng(0).permutation(len(X))
    return X[order] / 16.0, y[order]


def digits_data(n_train: int = 1000):
    """The bundled digits shuffled with seed 0 and scaled to [0, 1]:
    ``X_train (n_train, 64), y_train, X_test (1797 - n_train, 64), y_test``."""
    X, y = _digits()
    if not 10 <= n_train < len(X):
        raise ValueError(f"n_train must lie in 10..{len(X) - 1}; got {n_train}")
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


@dataclass(frozen=True)
class DigitsMLP:
    """Snapshots of a trained ReLU network: ``weights[e]`` is the list of
    ``(W (c_in, c_out), b (c_out,))`` NumPy pairs after epoch ``epochs[e]``
    (epoch 0 = the random initialisation); ``test_accuracy[e]`` on the held-out set."""

    epochs: tuple[int, ...]
    weights: tuple[tuple[tuple[np.ndarray, np.ndarray], ...], ...]
    test_accuracy: tuple[float, ...]

    def at(self, epoch: int):
        if epoch not in self.epochs:
            raise ValueError(f"no snapshot at epoch {epoch}; have {self.epochs}")
        return self.weights[self.epochs.index(epoch)]


@contextlib.contextmanager
def _small_torch():
    """Forked RNG state and one intra-op thread: tiny networks run fastest on one
    thread, and on a busy machine more threads only contend."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng():
            yield
    finally:
        torch.set_num_threads(threads)


def _torch_mlp(sizes, seed):
    import torch

    torch.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(torch.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def _snapshot(net):
    lins = [m for m in net if hasattr(m, "weight")]
    return tuple(
        (m.weight.detach().numpy().T.astype(np.float64), m.bias.detach().numpy().copy())
        for m in lins
    )


def _fit(net, X, y, *, epochs, lr, seed, batch_size=64, callback=None):
    """Mini-batch Adam on the cross-entropy; ``callback(epoch)`` after each epoch."""
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=lr)
    Xt, yt = torch.as_tensor(X, dtype=torch.float32), torch.as_tensor(y)
    gen = np.random.default_rng(seed)
    for epoch in range(1, epochs + 1):
        perm = gen.permutation(len(X))
        for i in range(0, len(X), batch_size):
            idx = torch.as_tensor(perm[i : i + batch_size])
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(Xt[idx]), yt[idx]).backward()
            opt.step()
        if callback is not None:
            callback(epoch)
    return net


def _predict(net, X) -> np.ndarray:
    import torch

    with torch.no_grad():
        return net(torch.as_tensor(X, dtype=torch.float32)).argmax(1).numpy()


@functools.lru_cache(maxsize=4)
def train_digits_mlp(
    epochs: int = 30,
    snapshots: tuple[int, ...] = (0, 1, 2, 5, 10, 20, 30),
    hidden: tuple[int, ...] = (64, 32),
    seed: int = 0,
    lr: float = 3e-3,
) -> DigitsMLP:
    """Train ``64 -> hidden -> 10`` on the 1000 training digits, keeping snapshots.

    Cached: the chapter's figure, widget and claims share one run per argument set.
    About a second on one CPU core for the defaults.
    """

    X, y, Xte, yte = digits_data()
    if any(s < 0 or s > epochs for s in snapshots):
        raise ValueError(f"snapshots must lie in 0..{epochs}; got {snapshots}")
    with _small_torch():
        net = _torch_mlp((64, *hidden, 10), seed)
        snaps, accs, eps = [], [], []

        def keep(epoch):
            if epoch in snapshots:
                eps.append(epoch)
                snaps.append(_snapshot(net))
                accs.append(float(np.mean(_predict(net, Xte) == yte)))

        keep(0)
        _fit(net, X, y, epochs=epochs, lr=lr, seed=seed + 1, callback=keep)
    return DigitsMLP(tuple(eps), tuple(snaps), tuple(accs))


def hidden_features(weights, X: np.ndarray, layer: int) -> np.ndarray:
    r"""The ReLU activations of hidden layer ``layer`` (1-based; 0 = the pixels):
    :math:`h_\ell = \max(0, h_{\ell-1}W_\ell + b_\ell)`. X (n, 64) -> (n, c_layer)."""
    if not 0 <= layer < len(weights):
        raise ValueError(f"layer must lie in 0..{len(weights) - 1}; got {layer}")
    h = np.asarray(X, dtype=np.float64)
    for W, b in weights[:layer]:
        h = np.maximum(h @ W + b, 0.0)
    return h


def pca_2d(F: np.ndarray) -> np.ndarray:
    """The first two principal components of the rows of F (n, c) -> (n, 2), with
    signs fixed so that each component's largest loading is positive."""
    F = np.asarray(F, dtype=np.float64)
    Fc = F - F.mean(axis=0)
    _, _, Vt = np.linalg.svd(Fc, full_matrices=False)
    V = Vt[:2].T
    V = V * np.sign(V[np.abs(V).argmax(axis=0), [0, 1]])
    return Fc @ V


def knn_accuracy(F_train, y_train, F_test, y_test, k: int = 5) -> float:
    """Accuracy of a k-nearest-neighbour vote (Euclidean) in the given space."""
    from sklearn.neighbors import KNeighborsClassifier

    clf = KNeighborsClassifier(n_neighbors=k).fit(F_train, y_train)
    return float(clf.score(F_test, y_test))


def gmm_ari(F, y, seeds=(0, 1, 2)) -> float:
    """Mean adjusted Rand index between the labels and a 10-component diagonal
    Gaussian mixture fitted to F (clustering with GMMs, book line 1182)."""
    from sklearn.metrics import adjusted_rand_score
    from sklearn.mixture import GaussianMixture

    scores = []
    for s in seeds:
        gm = GaussianMixture(10, covariance_type="diag", random_state=s).fit(F)
        scores.append(adjusted_rand_score(y, gm.predict(F)))
    return float(np.mean(scores))


def topk_similar(query, database, k: int, metric: str = "cosine") -> np.ndarray:
    """Indices of the k database rows most similar to ``query`` (d,), most similar
    first: cosine similarity (norms clamped at 1e-12) or Euclidean distance.

    database : (m, d) -> (k,) int array. Book: retrieval, line 1180.

    >>> topk_similar(np.array([1.0, 0.0]), np.array([[0.0, 1.0], [2.0, 0.1]]), 1)
    array([1])
    """
    q = np.asarray(query, dtype=np.float64)
    D = np.asarray(database, dtype=np.float64)
    if q.ndim != 1 or D.ndim != 2 or D.shape[1] != q.shape[0] or not 1 <= k <= len(D):
        raise ValueError(
            f"expected query (d,), database (m, d) and 1 <= k <= m; got {q.shape}, "
            f"{D.shape}, k={k}"
        )
    if metric == "cosine":
        score = (D @ q) / (
            np.maximum(np.linalg.norm(D, axis=1), 1e-12) * max(np.linalg.norm(q), 1e-12)
        )
    elif metric == "euclidean":
        score = -np.sum((D - q) ** 2, axis=1)
    else:
        raise ValueError(f"metric must be 'cosine' or 'euclidean'; got {metric!r}")
    return np.argsort(-score, kind="stable")[:k]


def shift_right(X: np.ndarray) -> np.ndarray:
    """Each 8x8 digit (rows of X (n, 64)) moved one pixel to the right, the first
    column filled with 0: a change a person would not notice."""
    img = np.asarray(X).reshape(-1, 8, 8)
    out = np.zeros_like(img)
    out[:, :, 1:] = img[:, :, :-1]
    return out.reshape(-1, 64)


# --- F.3.2: the few-shot analogy -----------------------------------------------------


def few_shot_curves(
    ks=(1, 2, 5, 10, 20), seeds=(0, 1, 2), *, epochs_pre: int = 30, epochs_new=50
) -> dict[str, np.ndarray]:
    """Accuracy on the test digits 5-9 against k labelled examples per class.

    A ``64 -> 128 -> 64 -> 5`` network is pre-trained on the training digits 0-4.
    Then, for each k and seed, k training images of each of 5-9 are drawn and:

    - ``"frozen embedding"``: nearest class mean (cosine) on the pre-trained first
      hidden layer: no gradient step (the few-shot analogy);
    - ``"fine-tuning"``: a new 5-way head, then every weight trained by Adam;
    - ``"from scratch"``: the same network from a random start, trained the same way;
    - ``"pixels"``: nearest class mean on the raw pixels (a reference).

    Returns a dict with ``"k"`` (K,) and one (K,) mean accuracy per method.
    """
    import torch

    X, y, Xte, yte = digits_data()
    new = yte >= 5
    Xn, yn = Xte[new], yte[new] - 5
    sizes = (64, 128, 64, 5)
    with _small_torch():
        old = y < 5
        pre = _fit(
            _torch_mlp(sizes, 0), X[old], y[old], epochs=epochs_pre, lr=3e-3, seed=1
        )
        out = {
            m: [] for m in ("frozen embedding", "fine-tuning", "from scratch", "pixels")
        }
        for k in ks:
            acc = {m: [] for m in out}
            for s in seeds:
                gen = np.random.default_rng(100 + s)
                idx = np.concatenate(
                    [
                        gen.choice(np.flatnonzero(y == c), k, replace=False)
                        for c in range(5, 10)
                    ]
                )
                Xs, ys = X[idx], y[idx] - 5
                layer1 = _snapshot(pre)
                for name, A, B in (
                    (
                        "frozen embedding",
                        hidden_features(layer1, Xs, 1),
                        hidden_features(layer1, Xn, 1),
                    ),
                    ("pixels", Xs, Xn),
                ):
                    A = A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-12)
                    B = B / np.maximum(np.linalg.norm(B, axis=1, keepdims=True), 1e-12)
                    means = np.stack([A[ys == c].mean(axis=0) for c in range(5)])
                    acc[name].append(float(np.mean((B @ means.T).argmax(axis=1) == yn)))
                tuned = copy.deepcopy(pre)
                torch.manual_seed(s)
                tuned[-1] = torch.nn.Linear(sizes[-2], 5)
                _fit(tuned, Xs, ys, epochs=epochs_new, lr=1e-3, seed=s)
                acc["fine-tuning"].append(float(np.mean(_predict(tuned, Xn) == yn)))
                scratch = _fit(
                    _torch_mlp(sizes, s), Xs, ys, epochs=epochs_new, lr=3e-3, seed=s
                )
                acc["from scratch"].append(float(np.mean(_predict(scratch, Xn) == yn)))
            for m in out:
                out[m].append(float(np.mean(acc[m])))
    return {"k": np.asarray(ks), **{m: np.asarray(v) for m, v in out.items()}}


# --- live and static views ------------------------------------------------------------


def _projection(run: DigitsMLP, space: str, epoch: int, X: np.ndarray) -> np.ndarray:
    layer = SPACES.index(space)
    return pca_2d(hidden_features(run.at(epoch), X, layer))


def _scatter_axes(ax, title):
    ax.set(xticks=[], yticks=[], title=title, xlabel="PC 1", ylabel="PC 2")


def live_view(space: str = "hidden layer 2", epoch: int = 30):
    """A dropdown for the space (pixels, hidden layer 1, hidden layer 2), a slider over
    the training snapshots, and the 2-D PCA of the test digits coloured by label, with
    the kNN accuracy in that space. ``box.live`` is the :class:`LiveFigure`."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    run = train_digits_mlp()
    X, y, Xte, yte = digits_data()
    fig = new_figure((5.0, 4.4), 80)
    ax = fig.subplots()
    sc = ax.scatter(*pca_2d(Xte).T, c=yte, cmap="tab10", s=6)
    fig.colorbar(sc, ax=ax, label="digit", ticks=range(10))
    controls = {
        "space": w.Dropdown(options=SPACES, value=space, description="space"),
        "epoch": w.SelectionSlider(
            options=list(run.epochs), value=epoch, description="epoch", **slider_style()
        ),
    }

    def draw(v):
        P = _projection(run, v["space"], v["epoch"], Xte)
        sc.set_offsets(P)
        ax.set_xlim(P[:, 0].min() - 0.2, P[:, 0].max() + 0.2)
        ax.set_ylim(P[:, 1].min() - 0.2, P[:, 1].max() + 0.2)
        _scatter_axes(ax, f"{v['space']}, epoch {v['epoch']}")
        layer = SPACES.index(v["space"])
        W = run.at(v["epoch"])
        acc = knn_accuracy(
            hidden_features(W, X, layer), y, hidden_features(W, Xte, layer), yte
        )
        return f"5-NN test accuracy in this space: {acc:.3f}"

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(epochs=None, *, dpi: int = 60):
    """The test digits in pixel space (left, fixed) and in hidden layer 2 (right)
    over the training snapshots; the player's slider steps through the epochs."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    run = train_digits_mlp()
    _, _, Xte, yte = digits_data()
    epochs = run.epochs if epochs is None else tuple(epochs)
    fig = new_figure((8.0, 4.0), dpi)
    ax0, ax1 = fig.subplots(1, 2)
    ax0.scatter(*pca_2d(Xte).T, c=yte, cmap="tab10", s=5)
    _scatter_axes(ax0, "pixels (PCA)")
    sc = ax1.scatter(*pca_2d(Xte).T, c=yte, cmap="tab10", s=5)
    _scatter_axes(ax1, "hidden layer 2 (PCA)")
    freeze_layout(fig)

    def draw(epoch):
        P = _projection(run, "hidden layer 2", epoch, Xte)
        sc.set_offsets(P)
        ax1.set_xlim(P[:, 0].min() - 0.2, P[:, 0].max() + 0.2)
        ax1.set_ylim(P[:, 1].min() - 0.2, P[:, 1].max() + 0.2)
        acc = run.test_accuracy[run.epochs.index(epoch)]
        ax1.set_title(f"hidden layer 2, epoch {epoch} (test acc {acc:.2f})")

    return animation_html(fig, draw, epochs, fps=2)
