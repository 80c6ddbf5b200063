r"""Widget: the activation functions of §5.4 and their derivatives (Figure F.5.4).

Three layers, as every widget in the companion:

- :func:`curves` computes what is drawn for one activation: φ(s) and φ'(s) on a grid,
  and the fraction of exact zeros it outputs on standard-normal inputs (the ReLU's
  sparsity); plain NumPy through :mod:`alice_lab.activations`, unit-tested;
- :func:`live_view` returns core ipywidgets: a dropdown over every activation, sliders
  for α (LeakyReLU, ELU), the slope a of the generalised sigmoid, the power p of the
  polynomial and the four parameters of the Trainable-Swish, and a derivative toggle;
- :func:`static_view` returns an HTML animation whose slider steps through the
  activations, each drawn with its derivative, for the built site.

Book: §5.4 (lines 2414-2600), Figure F.5.4 (lines 2504-2564).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab import activations as A

__all__ = [
    "NAMES",
    "ActivationGallery",
    "Curves",
    "curves",
    "live_view",
    "static_view",
]

#: what the gallery offers, in the order of the chapter
NAMES = (
    "heaviside",
    "sigmoid",
    "tanh",
    "relu",
    "leaky_relu",
    "softplus",
    "elu",
    "gelu",
    "silu",
    "trainable_swish",
    "polynomial",
)


@dataclass(frozen=True)
class Curves:
    """φ and φ' of one activation on the grid ``s``, with the zero fraction."""

    name: str
    s: np.ndarray
    values: np.ndarray
    derivative: np.ndarray
    zero_fraction: float
    label: str


def _finite_difference(f, s: np.ndarray, h: float = 1e-5) -> np.ndarray:
    return (f(s + h) - f(s - h)) / (2 * h)


def curves(
    name: str,
    s: np.ndarray | None = None,
    *,
    alpha: float = 0.1,
    slope: float = 1.0,
    p: int = 3,
    swish: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 0.0),
    n_samples: int = 20_000,
    seed: int = 0,
) -> Curves:
    """What the gallery draws for ``name`` (one of :data:`NAMES`).

    Parameters
    ----------
    s : (m,) grid, default 601 points on [-3, 3] (the figure's range).
    alpha : the negative slope of LeakyReLU and the scale of ELU (the figure uses 0.1
        for LeakyReLU).
    slope : a in σ(as). p : the power of the polynomial. swish : (a, b, c, d).

    The derivative comes from :mod:`alice_lab.activations` where the module has it,
    else (Trainable-Swish) from its partial derivative in s.

    >>> c = curves("relu")
    >>> c.values.shape, round(c.zero_fraction, 2)
    ((601,), 0.5)
    """
    s = np.linspace(-3.0, 3.0, 601) if s is None else np.asarray(s, dtype=np.float64)
    table = {
        "heaviside": (A.heaviside, A.heaviside_grad, "𝕀[s ≥ 0]"),
        "sigmoid": (
            lambda x: A.sigmoid(x, slope),
            lambda x: A.sigmoid_grad(x, slope),
            f"σ({slope:g}s)",
        ),
        "tanh": (A.tanh, A.tanh_grad, "tanh(s) = 2σ(2s) − 1"),
        "relu": (A.relu, A.relu_grad, "max(0, s)"),
        "leaky_relu": (
            lambda x: A.leaky_relu(x, alpha),
            lambda x: A.leaky_relu_grad(x, alpha),
            f"LeakyReLU, α = {alpha:g}",
        ),
        "softplus": (A.softplus, A.softplus_grad, "log(1 + eˢ)"),
        "elu": (
            lambda x: A.elu(x, alpha),
            lambda x: A.elu_grad(x, alpha),
            f"ELU, α = {alpha:g}",
        ),
        "gelu": (A.gelu, A.gelu_grad, "s·Φ(s)"),
        "silu": (A.silu, A.silu_grad, "s·σ(s)"),
        "trainable_swish": (
            lambda x: A.trainable_swish(x, *swish),
            lambda x: A.trainable_swish_grads(x, *swish)["s"],
            "σ({:g}s {:+g})({:g}s {:+g})".format(*swish),
        ),
        "polynomial": (
            lambda x: A.polynomial(x, p),
            lambda x: A.polynomial_grad(x, p),
            f"s^{p}",
        ),
    }
    if name not in table:
        raise ValueError(f"unknown activation {name!r}; expected one of {NAMES}")
    f, df, label = table[name]
    sample = np.random.default_rng(seed).standard_normal(int(n_samples))
    zeros = float(np.mean(np.asarray(f(sample)) == 0.0))
    return Curves(name, s, np.asarray(f(s)), np.asarray(df(s)), zeros, label)


def _summary(c: Curves) -> str:
    mono = "monotone" if np.all(np.diff(c.values) >= -1e-12) else "not monotone"
    lo = c.values.min()
    return (
        f"{c.label}: min {lo:.4f} on [{c.s[0]:g}, {c.s[-1]:g}] ({mono}); "
        f"{c.zero_fraction:.0%} of the outputs on N(0, 1) inputs are exactly 0"
    )


# --- layer 2: the live view --------------------------------------------------------


class ActivationGallery:
    """The live view's state; ``widget`` is the box to display and :meth:`update`
    redraws from the controls (tests set ``.value`` and read the lines and label)."""

    def __init__(self, name: str = "relu", show_derivative: bool = True):
        import ipywidgets as w

        opts = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.name = w.Dropdown(
            options=list(NAMES), value=name, description="activation"
        )
        self.derivative = w.Checkbox(value=show_derivative, description="show φ'(s)")
        self.alpha = w.FloatSlider(
            value=0.1, min=0.0, max=1.0, step=0.01, description="α", **opts
        )
        self.slope = w.FloatLogSlider(
            value=1.0,
            base=10,
            min=-1,
            max=2,
            step=0.05,
            description="sigmoid slope a",
            **opts,
        )
        self.p = w.IntSlider(value=3, min=1, max=7, description="power p", **opts)
        self.swish = [
            w.FloatSlider(value=v, min=-3, max=3, step=0.1, description=k, **opts)
            for k, v in zip("abcd", (1.0, 0.0, 1.0, 0.0), strict=True)
        ]
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((6, 3.6), 80)
        self.ax = self.figure.subplots()
        self.ax.axhline(0, color="0.7", lw=0.8)
        self.ax.axvline(0, color="0.7", lw=0.8)
        (self.value_line,) = self.ax.plot([], [], color="tab:blue", lw=2, label="φ(s)")
        (self.grad_line,) = self.ax.plot(
            [], [], "--", color="tab:orange", lw=1.5, label="φ'(s)"
        )
        self.ax.set(xlim=(-3, 3), xlabel="s")
        self.ax.legend(loc="upper left")
        self.current: Curves | None = None
        for c in (
            self.name,
            self.derivative,
            self.alpha,
            self.slope,
            self.p,
            *self.swish,
        ):
            c.observe(lambda change: self.update(), names="value")
        self.widget = w.VBox(
            [
                w.HBox(
                    [
                        w.VBox(
                            [self.name, self.derivative, self.alpha, self.slope, self.p]
                        ),
                        w.VBox(self.swish),
                    ]
                ),
                self.label,
                self.image,
            ]
        )
        self.update()

    def update(self) -> None:
        self.current = c = curves(
            self.name.value,
            alpha=self.alpha.value,
            slope=self.slope.value,
            p=self.p.value,
            swish=tuple(s.value for s in self.swish),
        )
        self.value_line.set_data(c.s, c.values)
        self.grad_line.set_data(c.s, c.derivative)
        self.grad_line.set_visible(self.derivative.value)
        shown = [c.values] + ([c.derivative] if self.derivative.value else [])
        lo, hi = min(v.min() for v in shown), max(v.max() for v in shown)
        pad = 0.08 * max(hi - lo, 1e-3)
        self.ax.set_ylim(lo - pad, hi + pad)
        self.ax.set_title(c.label)
        self.label.value = _summary(c)
        self.image.value = png_bytes(self.figure)


def live_view(name: str = "relu", show_derivative: bool = True):
    """Core-ipywidgets gallery of the §5.4 activations; ``box.gallery`` is the
    :class:`ActivationGallery` behind it."""
    gallery = ActivationGallery(name, show_derivative)
    box = gallery.widget
    box.gallery = gallery
    return box


# --- layer 3: the static view ------------------------------------------------------


def static_view(names: tuple[str, ...] = NAMES, *, dpi: int = 60, fps: int = 1):
    """An HTML animation (no kernel): one frame per activation, φ and φ' on [-3, 3];
    the built-in slider picks the activation."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    all_curves = [curves(n) for n in names]
    lo = min(
        min(c.values.min(), c.derivative.min())
        for c in all_curves
        if c.name != "polynomial"
    )
    fig = new_figure((5.2, 3.4), dpi)
    ax = fig.subplots()
    ax.axhline(0, color="0.7", lw=0.8)
    ax.axvline(0, color="0.7", lw=0.8)
    (vline,) = ax.plot([], [], color="tab:blue", lw=2, label="φ(s)")
    (gline,) = ax.plot([], [], "--", color="tab:orange", lw=1.5, label="φ'(s)")
    ax.set(xlim=(-3, 3), ylim=(lo - 0.2, 3.2), xlabel="s")
    ax.legend(loc="upper left", fontsize=8)
    title = ax.set_title("")
    freeze_layout(fig)

    def draw(k):
        c = all_curves[k]
        vline.set_data(c.s, c.values)
        gline.set_data(c.s, c.derivative)
        title.set_text(f"{c.name}: {c.label}")

    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(all_curves))), interval=1000 / fps
    )
    return animation_html(anim, fps=fps)  # palette PNG frames (static.py)
