r"""Widget: how the adjoint's norm changes layer by layer (book §6.4.3, Figure F.6.4).

A deep network :math:`\mathbf{h}_k = \phi(\mathbf{h}_{k-1}\mathbf{W}_k)` is
differentiated by the engine and the norm :math:`\lVert\partial y/\partial
\mathbf{h}_k\rVert` of every adjoint is plotted on a log scale, from the output (right)
back to the input (left). Sigmoids shrink it by at least 4 per layer and float32
flushes it to exactly zero; ReLU with orthogonal weights keeps it; larger weight
scales make it explode.

- :func:`profiles` computes the curves (pure, unit-tested);
- :func:`live_view`: activation, depth, weight scale and dtype controls;
- :func:`static_view`: an HTML animation growing the depth from 5 to 100 layers.

Book: §6.4.3 (lines 3182-3210).
"""

from __future__ import annotations

import numpy as np

from alice_course.widgets._anim import freeze_layout, new_figure, png_bytes, site_frames
from alice_lab.autodiff.gradient_flow import adjoint_norms

__all__ = ["VanishingExplorer", "live_view", "profiles", "static_view"]

ACTIVATIONS = ("sigmoid", "tanh", "relu")
_COLORS = {"sigmoid": "tab:red", "tanh": "tab:purple", "relu": "tab:green"}


def profiles(
    depth: int,
    *,
    dtype: str = "float32",
    weight_scale: float = 1.0,
    orthogonal: bool = True,
    activations=ACTIVATIONS,
) -> dict[str, np.ndarray]:
    """``{activation: norms}`` with ``norms[k]`` the adjoint norm at layer k (0 =
    input, depth = output), for the same seeded weights.

    >>> p = profiles(3); sorted(p), p["relu"].shape
    (['relu', 'sigmoid', 'tanh'], (4,))
    """
    return {
        a: adjoint_norms(
            depth,
            activation=a,
            weight_scale=weight_scale,
            orthogonal=orthogonal,
            dtype=dtype,
        )
        for a in activations
    }


def _draw(ax, curves: dict[str, np.ndarray], depth: int, dtype: str) -> None:
    ax.cla()
    for a, norms in curves.items():
        k = np.arange(len(norms))
        pos = norms > 0
        ax.semilogy(k[pos], norms[pos], color=_COLORS[a], label=a, lw=1.8)
        if (~pos).any():
            first = int(k[~pos].max())
            ax.axvline(first, color=_COLORS[a], ls=":", lw=1)
            ax.text(
                first,
                1e-30,
                f" {a}: exactly 0\n up to layer {first}",
                fontsize=7,
                color=_COLORS[a],
                va="bottom",
            )
    ax.set(
        xlabel="layer k (0 = input)",
        ylabel="‖∂y/∂h_k‖",
        xlim=(0, depth),
        ylim=(1e-45, 1e3),
        title=f"adjoint norms, depth {depth}, {dtype}",
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


class VanishingExplorer:
    """``depth``, ``scale`` and ``dtype`` controls; ``label``; ``image``."""

    def __init__(self, depth: int = 40, dtype: str = "float32"):
        import ipywidgets as w

        self.depth = w.IntSlider(
            value=depth, min=1, max=100, description="depth", continuous_update=False
        )
        self.scale = w.FloatLogSlider(
            value=1.0,
            base=10,
            min=-0.5,
            max=0.5,
            step=0.05,
            description="weight scale",
            continuous_update=False,
        )
        self.dtype = w.ToggleButtons(
            options=("float32", "float64"), value=dtype, description="dtype"
        )
        self.label = w.Label()
        self.image = w.Image(format="png")
        self.figure = new_figure((6.5, 4), 80)
        self.ax = self.figure.subplots()
        for c in (self.depth, self.scale, self.dtype):
            c.observe(lambda change: self.update(), names="value")
        self.widget = w.VBox(
            [w.HBox([self.depth, self.scale]), self.dtype, self.label, self.image]
        )
        self.update()

    def update(self) -> None:
        self.curves = profiles(
            self.depth.value, dtype=self.dtype.value, weight_scale=self.scale.value
        )
        _draw(self.ax, self.curves, self.depth.value, self.dtype.value)
        self.label.value = "; ".join(
            f"{a}: ‖∂y/∂x‖ = {n[0]:.2e}" for a, n in self.curves.items()
        )
        self.image.value = png_bytes(self.figure)


def live_view(depth: int = 40, dtype: str = "float32"):
    """The explorer's box (core ipywidgets); ``box.explorer`` is the state."""
    explorer = VanishingExplorer(depth=depth, dtype=dtype)
    box = explorer.widget
    box.explorer = explorer
    return box


def static_view(depths=tuple(range(5, 101, 5)), dtype: str = "float32", dpi: int = 70):
    """An HTML animation over growing depth (no kernel needed)."""
    import matplotlib as mpl
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html

    depths = [int(d) for d in depths]
    if not 1 <= len(depths) <= 60:
        raise ValueError(f"between 1 and 60 depths; got {len(depths)}")
    data = [profiles(d, dtype=dtype) for d in depths]
    fig = new_figure((6.5, 4), dpi)
    ax = fig.subplots()

    def draw(i):
        _draw(ax, data[i], depths[i], dtype)

    draw(0)
    freeze_layout(fig)
    anim = FuncAnimation(
        fig, draw, frames=site_frames(range(len(depths))), interval=400, blit=False
    )
    with mpl.rc_context({"animation.frame_format": "png"}):
        return animation_html(anim, fps=3)
