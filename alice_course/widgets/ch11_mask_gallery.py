r"""Widget: a gallery of causal masks, right and wrong (Figure F.11.1).

- :func:`mask_gallery` computes what is drawn: scores, mask, attention weights, row sums
  and a *leak* matrix ``leak[s, t] = max |∂h_s/∂x_t|`` (central finite differences on
  the self-attention ``softmax(XXᵀ/√d + M)X``), which must vanish for t > s;
- :func:`live_view`: a dropdown of mask kinds, sliders for n and the seed (core
  ipywidgets); :func:`static_view`: an animation over the kinds for n = 6.

Kinds: ``"additive -inf"`` (correct), ``"-1e9"`` (also correct), ``"zero mask"`` (adds
0: nothing is masked), ``"post-softmax"`` (the book's "Wrong" variant, line 5621: the
denominator leaks the future) and ``"book literal"`` (the printed
``QKᵀ ⊙ M`` with −∞ for i > j and 1 elsewhere, lines 5617/5625: wrong triangle and NaN).

Book: §11.1.1 (lines 5613-5629).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import (
    LiveFigure,
    animation_html,
    freeze_layout,
    new_figure,
    slider_style,
)

__all__ = ["KINDS", "MaskView", "attend", "live_view", "mask_gallery", "static_view"]

KINDS = ("additive -inf", "-1e9", "zero mask", "post-softmax", "book literal")


def _softmax(S):
    with np.errstate(invalid="ignore", over="ignore"):
        E = np.exp(S - np.max(S, axis=-1, keepdims=True))
        return E / E.sum(axis=-1, keepdims=True)


def attend(X: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Self-attention of X (n, d) with queries = keys = values = X and the given mask
    kind; returns (scores (n, n), attention weights (n, n), output (n, d))."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    n, d = X.shape
    S = X @ X.T / np.sqrt(d)
    future = np.triu(np.ones((n, n), bool), 1)
    with np.errstate(invalid="ignore", over="ignore"):
        if kind == "additive -inf":
            A = _softmax(np.where(future, -np.inf, S))
        elif kind == "-1e9":
            A = _softmax(S + np.where(future, -1e9, 0.0))
        elif kind == "zero mask":
            A = _softmax(S + 0.0 * future)
        elif kind == "post-softmax":
            A = _softmax(S) * ~future
        else:
            M = np.where(np.tri(n, k=-1) > 0, -np.inf, 1.0)
            A = _softmax(X @ X.T * M / np.sqrt(d))
        return S, A, A @ X


@dataclass(frozen=True)
class MaskView:
    """What the gallery draws for one kind: scores, weights (n, n), row sums (n,),
    leak (n, n) (NaN where the output is NaN) and ``leaks``: True when some output
    depends on a future token."""

    kind: str
    scores: np.ndarray
    weights: np.ndarray
    row_sums: np.ndarray
    leak: np.ndarray
    leaks: bool
    nan_rows: int


def mask_gallery(n: int = 6, kind: str = "additive -inf", seed: int = 0, d: int = 4):
    """The :class:`MaskView` of n random tokens (seeded), leak by finite differences.

    >>> mask_gallery(4, "post-softmax").leaks
    True
    """
    if not 2 <= int(n) <= 32:
        raise ValueError(f"n must be between 2 and 32; got {n}")
    X = np.random.default_rng(seed).standard_normal((int(n), d))
    S, A, H = attend(X, kind)
    leak = np.zeros((n, n))
    h = 1e-6
    for t in range(n):
        for c in range(d):
            Xp, Xm = X.copy(), X.copy()
            Xp[t, c] += h
            Xm[t, c] -= h
            diff = np.abs(attend(Xp, kind)[2] - attend(Xm, kind)[2]).max(axis=1) / (
                2 * h
            )
            leak[:, t] = np.fmax(leak[:, t], diff)
    nan_rows = np.isnan(H).any(axis=1)
    leak[nan_rows] = np.nan
    future = np.triu(leak, 1)
    leaks = bool(np.nanmax(future) > 1e-6) if np.isfinite(future).any() else True
    return MaskView(
        kind,
        S,
        A,
        np.nansum(A, axis=1),
        leak,
        leaks or nan_rows.any(),
        int(nan_rows.sum()),
    )


def _draw(axes, view: MaskView) -> str:
    for ax in axes:
        ax.clear()
    n = view.weights.shape[0]
    w = np.ma.masked_invalid(view.weights)
    axes[0].imshow(w, cmap="viridis", vmin=0, vmax=1)
    axes[0].set_title(f"attention weights ({view.kind})", fontsize=9)
    leak = np.ma.masked_invalid(np.log10(view.leak + 1e-12))
    axes[1].imshow(leak, cmap="magma", vmin=-6, vmax=1)
    axes[1].set_title("log10 |∂h_s/∂x_t| (future: t > s)", fontsize=9)
    for ax in axes[:2]:
        ax.plot([-0.5, n - 0.5], [-0.5, n - 0.5], color="w", lw=0.8, ls=":")
        ax.set(xlabel="key / input t", ylabel="query / output s")
    axes[2].bar(np.arange(n), view.row_sums, color="tab:blue")
    axes[2].axhline(1.0, color="k", ls="--", lw=0.8)
    axes[2].set(ylim=(0, 1.5), xlabel="row s", title="row sums")
    verdict = "LEAKS the future" if view.leaks else "causal"
    if view.nan_rows:
        verdict += f", {view.nan_rows} NaN rows"
    return f"{view.kind}: {verdict}; row sums {np.round(view.row_sums, 3).tolist()}"


def live_view(n: int = 6, kind: str = "additive -inf", seed: int = 0):
    """Dropdown (kind), sliders n and seed; weights, leak matrix and row sums."""
    import ipywidgets as w

    controls = {
        "kind": w.Dropdown(options=KINDS, value=kind, description="mask"),
        "n": w.IntSlider(value=n, min=2, max=12, description="n", **slider_style()),
        "seed": w.IntSlider(
            value=seed, min=0, max=20, description="seed", **slider_style()
        ),
    }
    fig = new_figure((10, 3.2))
    axes = fig.subplots(1, 3)
    live = LiveFigure(
        controls, fig, lambda v: _draw(axes, mask_gallery(v["n"], v["kind"], v["seed"]))
    )
    live.widget.live = live
    return live.widget


def static_view(n: int = 6, seed: int = 0, dpi: int = 60):
    """An HTML animation stepping through the five mask kinds (no kernel)."""
    views = [mask_gallery(n, k, seed) for k in KINDS]
    fig = new_figure((10, 3.2), dpi)
    axes = fig.subplots(1, 3)
    title = fig.suptitle("")
    _draw(axes, views[0])
    freeze_layout(fig)

    def draw(i):
        title.set_text(_draw(axes, views[i])[:90])

    return animation_html(fig, draw, range(len(views)), fps=1)
