r"""Widget: classification losses as functions of the margin :math:`m = y\hat{y}`.

The 0/1 loss (E.3.3) is a step: 1 for :math:`m \le 0`, 0 after, with zero derivative
everywhere it has one, so gradient descent gets no signal from it. The hinge loss
:math:`\max(0, 1 - m)` bounds it from above, is linear below the margin 1 and has a
kink there. The logistic loss :math:`\log(1 + e^{-m})` (a preview of chapter 4, not
part of §3.2) is a smooth alternative.

- :func:`loss_curves` computes every curve and its derivative (pure, tested);
- :func:`live_view` has a checkbox per loss, a "show derivatives" toggle and a slider
  for one prediction :math:`\hat{y}` (label +1) whose losses are printed;
- :func:`static_view` sweeps that prediction across the margin axis.

Book: §3.2, "On the differentiability of the loss" (lines 1216-1222).
"""

from __future__ import annotations

import numpy as np

from alice_lab.losses import hinge, hinge_grad, zero_one

__all__ = ["LOSSES", "loss_curves", "live_view", "static_view"]

LOSSES = ("0/1", "hinge", "logistic (ch. 4)")
COLORS = {"0/1": "tab:red", "hinge": "tab:blue", "logistic (ch. 4)": "tab:green"}


def loss_curves(margins) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    r"""Each loss and its derivative with respect to :math:`\hat{y}` at the given
    margins, for the label y = +1 (so the margin is the prediction).

    margins : (m,) array. Returns ``{name: (loss (m,), derivative (m,))}``. The 0/1
    derivative is 0, and NaN at the jump m = 0 where it does not exist; the hinge uses
    the subgradient 0 at the kink m = 1.

    >>> loss, grad = loss_curves(np.array([-1.0, 0.5, 2.0]))["hinge"]
    >>> loss.tolist(), grad.tolist()
    ([2.0, 0.5, 0.0], [-1.0, -1.0, 0.0])
    """
    m = np.asarray(margins, dtype=np.float64)
    if m.ndim != 1:
        raise ValueError(f"margins must have shape (m,); got {m.shape}")
    y = np.ones_like(m)
    d01 = np.where(m == 0, np.nan, 0.0)
    logistic = np.logaddexp(0.0, -m)
    dlogistic = -np.exp(-np.logaddexp(0.0, m))  # -sigmoid(-m), computed stably
    return {
        "0/1": (np.asarray(zero_one(m, y)), d01),
        "hinge": (np.asarray(hinge(m, y)), np.asarray(hinge_grad(m, y))),
        "logistic (ch. 4)": (logistic, dlogistic),
    }


def _axes(fig):
    ax_l, ax_d = fig.subplots(1, 2)
    ax_l.set(xlabel="margin y·ŷ", ylabel="loss", title="loss", ylim=(-0.2, 4.2))
    ax_d.set(xlabel="margin y·ŷ", ylabel="∂l/∂ŷ (y = +1)", title="derivative")
    ax_d.set_ylim(-1.3, 0.3)
    for ax in (ax_l, ax_d):
        ax.axvline(0, color="0.8", lw=0.8)
        ax.grid(alpha=0.3)
    return ax_l, ax_d


def live_view(y_hat: float = 0.5):
    """Checkboxes for the losses, a derivative toggle and a slider for one prediction
    (label +1). ``box.live`` is the :class:`~alice_course.widgets._anim.LiveFigure`."""
    import ipywidgets as w

    from alice_course.widgets._anim import LiveFigure, new_figure, slider_style

    m = np.linspace(-3, 3, 601)
    curves = loss_curves(m)
    fig = new_figure((9.0, 3.4), 80)
    ax_l, ax_d = _axes(fig)
    lines, dots = {}, {}
    for name in LOSSES:
        (lines[name, 0],) = ax_l.plot(
            m, curves[name][0], color=COLORS[name], label=name
        )
        (lines[name, 1],) = ax_d.plot(m, curves[name][1], color=COLORS[name])
        (dots[name],) = ax_l.plot([], [], "o", color=COLORS[name])
    ax_l.legend(loc="upper right", fontsize=8)
    controls = {
        name: w.Checkbox(value=name != LOSSES[2], description=name) for name in LOSSES
    }
    controls["derivatives"] = w.Checkbox(value=True, description="show derivatives")
    controls["y_hat"] = w.FloatSlider(
        value=y_hat,
        min=-3,
        max=3,
        step=0.05,
        description="prediction ŷ (y = +1)",
        **slider_style(),
    )

    def draw(v):
        at = loss_curves(np.array([v["y_hat"]]))
        parts = []
        for name in LOSSES:
            lines[name, 0].set_visible(v[name])
            lines[name, 1].set_visible(v[name] and v["derivatives"])
            dots[name].set_data([v["y_hat"]], [at[name][0][0]] if v[name] else [np.nan])
            if v[name]:
                parts.append(f"{name}: {at[name][0][0]:.3f} (∂ = {at[name][1][0]:.3f})")
        return f"ŷ = {v['y_hat']:.2f} → " + ("; ".join(parts) or "no loss selected")

    live = LiveFigure(controls, fig, draw)
    live.widget.live = live
    return live.widget


def static_view(frames: int = 13, *, dpi: int = 55):
    """A prediction sweeping the margin axis from −2.5 to 2.5 (label +1): dots mark
    its 0/1, hinge and logistic losses and their derivatives."""
    from alice_course.widgets._anim import animation_html, freeze_layout, new_figure

    m = np.linspace(-3, 3, 601)
    curves = loss_curves(m)
    fig = new_figure((8.0, 3.2), dpi)
    ax_l, ax_d = _axes(fig)
    dots = {}
    for name in LOSSES:
        ax_l.plot(m, curves[name][0], color=COLORS[name], label=name)
        ax_d.plot(m, curves[name][1], color=COLORS[name])
        dots[name] = (
            ax_l.plot([], [], "o", color=COLORS[name])[0],
            ax_d.plot([], [], "o", color=COLORS[name])[0],
        )
    ax_l.legend(loc="upper right", fontsize=8)
    title = fig.suptitle("")
    freeze_layout(fig)

    def draw(y_hat):
        at = loss_curves(np.array([y_hat]))
        for name in LOSSES:
            dots[name][0].set_data([y_hat], [at[name][0][0]])
            dots[name][1].set_data([y_hat], [at[name][1][0]])
        title.set_text(
            f"ŷ = {y_hat:+.2f}: 0/1 = {at['0/1'][0][0]:.0f}, hinge = "
            f"{at['hinge'][0][0]:.2f} (∂ = {at['hinge'][1][0]:.0f})"
        )

    return animation_html(fig, draw, np.round(np.linspace(-2.5, 2.5, frames), 3), fps=4)
