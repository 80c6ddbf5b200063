"""Shared plumbing of the widgets: figures outside pyplot, PNG rendering for live
views, and ``to_jshtml`` animations for static views. Every widget makes its figures
with :func:`new_figure`, freezes their layout with :func:`freeze_layout` and renders
them with :func:`png_bytes`; none keeps a copy of its own.

A live view is a :class:`LiveFigure`: core ipywidgets controls, a label and a PNG image
of a matplotlib figure, redrawn by one ``draw(values) -> label`` function whenever a
control changes (observers fire synchronously, so tests can set ``.value`` and read
the label and the figure's artists). A static view is :func:`animation_html`, a
matplotlib animation exported as self-contained HTML with its own slider.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def new_figure(figsize=(6.0, 3.5), dpi: int = 80):
    """A figure outside pyplot (nothing is shown twice in a notebook), laid out by
    the constrained engine; its plain canvas does not redraw on ``draw_idle``, and
    ``savefig`` renders with Agg."""
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=dpi, layout="constrained")


def freeze_layout(fig) -> None:
    """Lay the figure out once, then keep the axes still while frames change: laying
    out again on every frame would cost most of an animation's rendering time."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")


def png_bytes(fig) -> bytes:
    """The figure rendered to PNG bytes (Agg)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def site_frames(frames: Iterable[Any]) -> list:
    """The frames a static view renders: all of them, or at most
    ``$ALICE_STATIC_FRAMES`` evenly spaced ones (the first and the last kept) when that
    is set. The quick test copy of the site sets it (``tools/notebook_runs.py --fast``):
    rendering frames is most of what its notebooks cost; the real site renders all.

    >>> os.environ["ALICE_STATIC_FRAMES"] = "3"
    >>> site_frames(range(10))
    [0, 4, 9]
    >>> del os.environ["ALICE_STATIC_FRAMES"]
    """
    frames = list(frames)
    cap = os.environ.get("ALICE_STATIC_FRAMES", "")
    if not cap.isdigit() or int(cap) < 2 or len(frames) <= int(cap):
        return frames
    last, k = len(frames) - 1, int(cap)
    return [frames[round(i * last / (k - 1))] for i in range(k)]


def animation_html(
    fig, draw: Callable[[Any], None], frames: Iterable[Any], *, fps: int = 4
):
    """``IPython.display.HTML`` of a ``FuncAnimation(fig, draw, frames)``, embedded as
    PNG frames with the player's slider (works on a static page, no kernel, no
    network: :func:`alice_course.widgets.static.offline_jshtml` drops the CDN icons)."""
    from matplotlib.animation import FuncAnimation

    from alice_course.widgets.static import animation_html as offline_player

    frames = list(frames)
    if not 1 <= len(frames) <= 60:
        raise ValueError(f"an animation needs 1 to 60 frames; got {len(frames)}")
    frames = site_frames(frames)
    anim = FuncAnimation(fig, draw, frames=frames, interval=1000 / fps, blit=False)
    return offline_player(anim, fps=fps)


class LiveFigure:
    """Controls + label + PNG image, redrawn by ``draw(values)``.

    Parameters
    ----------
    controls : mapping name -> ipywidgets control (core widgets only).
    fig : the matplotlib figure that ``draw`` updates.
    draw : ``draw(values: dict) -> str``; updates the figure's artists and returns the
        label text.

    ``widget`` is the box to display; :meth:`update` redraws (the controls call it).
    """

    def __init__(self, controls: Mapping[str, Any], fig, draw: Callable[[dict], str]):
        import ipywidgets as w

        self.controls = dict(controls)
        self.figure = fig
        self._draw = draw
        self.label = w.Label()
        self.image = w.Image(format="png")
        for c in self.controls.values():
            c.observe(self._on_change, names="value")
        self.widget = w.VBox(
            [w.HBox(list(self.controls.values())), self.label, self.image]
        )
        self.update()

    def values(self) -> dict:
        return {k: c.value for k, c in self.controls.items()}

    def _on_change(self, change) -> None:
        self.update()

    def update(self) -> None:
        self.label.value = self._draw(self.values())
        self.image.value = png_bytes(self.figure)


def slider_style() -> dict:
    """Keyword arguments shared by every slider: redraw on release, full labels."""
    return {"continuous_update": False, "style": {"description_width": "initial"}}
