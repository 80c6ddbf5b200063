"""Static widget views: matplotlib animations that work on a page with no kernel.

``FuncAnimation.to_jshtml()`` embeds every frame and a small JavaScript player with a
slider, so the built site can scrub through a widget's states offline. Matplotlib's
player links a Font Awesome stylesheet from a CDN for its button icons; offline that
request fails (and our pages must not reach the network), so :func:`offline_jshtml`
drops the link and draws the buttons with plain Unicode symbols that common fonts carry.
It also makes the player fit narrow screens: the frame scales down with the column and
the buttons wrap onto a second row rather than run off the right edge.

:func:`animation_html` renders the frames at twice the figure's pixel size (sharp on
phones and high-density screens) and shows them at the figure's size, no wider than
the column. PNG frames (the default) are stored with a 256-colour palette, which keeps
a view about as heavy as single-density frames were; a view of smooth images can ask
for JPEG frames (``animation.frame_format``, as the gradient-descent view does). A
view that would weigh more than ``max_bytes`` is rendered again, at a lower density.
"""

from __future__ import annotations

import base64
import html as html_lib
import io
import math
import re
from pathlib import Path
from tempfile import TemporaryDirectory

import matplotlib as mpl
import matplotlib.pyplot as plt
from IPython.display import HTML

__all__ = ["animation_html", "offline_jshtml"]

_ICONS = {
    "fa fa-play fa-flip-horizontal": "◀",
    "fa fa-fast-backward": "⇤",
    "fa fa-fast-forward": "⇥",
    "fa fa-step-backward": "‹",
    "fa fa-step-forward": "›",
    "fa fa-pause": "‖",
    "fa fa-play": "▶",
    "fa fa-minus": "−",
    "fa fa-plus": "+",
}

#: Matplotlib's player styles, made to fit the column: the frame and the slider shrink
#: with it, the buttons wrap.
_STYLE = """<style>
.animation {
    display: inline-block;
    max-width: 100%;
    text-align: center;
}
.animation img {
    max-width: 100%;
    height: auto;
}
input[type=range].anim-slider {
    width: 374px;
    max-width: 100%;
    margin-left: auto;
    margin-right: auto;
}
.anim-buttons {
    margin: 8px 0px;
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 2px;
}
.anim-buttons button {
    padding: 0;
    width: 36px;
}
.anim-state label {
    margin-right: 8px;
}
.anim-state input {
    margin: 0;
    vertical-align: middle;
}
</style>"""

_FRAME = re.compile(r'(frames\[\d+\] = "data:image/)(png|jpeg)(;base64,)(.*?)(")', re.S)


def offline_jshtml(html: str) -> str:
    """Remove remote stylesheets from a ``to_jshtml`` page, inline its icons and make
    its player fit narrow columns."""
    html = re.sub(r"<link[^>]*href=\"https?://[^\"]*\"[^>]*>", "", html)
    for cls, symbol in _ICONS.items():
        html = html.replace(f'<i class="{cls}"></i>', symbol)
    html = re.sub(r"<style>.*?</style>", lambda _: _STYLE, html, count=1, flags=re.S)
    if "https://" in html or "http://" in html:
        raise ValueError("the animation still references a remote resource")
    return html


def _palette_png(data: bytes) -> bytes:
    """The PNG ``data`` with at most 256 colours (no dithering: plots have few colours
    and flat areas), when that is smaller."""
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    # fast octree: a third of median cut's time and smaller files on flat plot colours
    small = image.quantize(
        256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    small.save(out, format="png", optimize=True)
    return out.getvalue() if out.tell() < len(data) else data


def _compact_frames(html: str) -> str:
    """Palette PNG frames, each on one line (no line continuations)."""

    def frame(m: re.Match) -> str:
        data = base64.b64decode(m[4].replace("\\\n", ""))
        if m[2] == "png":
            data = _palette_png(data)
        return m[1] + m[2] + m[3] + base64.b64encode(data).decode("ascii") + m[5]

    return _FRAME.sub(frame, html)


def _render(anim, fps: int, default_mode: str, dpi: float) -> str:
    """``to_jshtml`` with the frames saved at ``dpi``."""
    from matplotlib.animation import HTMLWriter

    savefig_kwargs = {}
    if mpl.rcParams["animation.frame_format"] == "jpeg":
        savefig_kwargs["pil_kwargs"] = {"quality": 70}
    with TemporaryDirectory() as tmp:
        path = Path(tmp, "animation.html")
        writer = HTMLWriter(fps=fps, embed_frames=True, default_mode=default_mode)
        anim.save(str(path), writer=writer, dpi=dpi, savefig_kwargs=savefig_kwargs)
        return _compact_frames(path.read_text(encoding="utf-8"))


def animation_html(
    anim,
    *,
    fps: int = 8,
    default_mode: str = "once",
    density: float = 2.0,
    max_bytes: int = 3_000_000,
) -> HTML:
    """An offline-safe HTML player for ``anim``; closes its figure so it shows once.

    The frames are rendered at ``density`` times the figure's pixel size and shown at
    that size (``figsize * dpi`` CSS pixels, scaled down to fit the column), with the
    figure's :func:`~alice_course.widgets.describe.describe` as their alt text. The
    frame format is matplotlib's ``animation.frame_format`` (png or jpeg). While the
    HTML weighs more than ``max_bytes``, the frames are rendered again at a lower
    density (at least 1). Book-independent helper used by every widget's
    ``static_view``.
    """
    from alice_course.widgets.describe import describe

    fig = anim._fig
    width, height = (round(v) for v in fig.get_size_inches() * fig.dpi)
    alt = describe(fig)
    base_dpi = fig.dpi
    html = _render(anim, fps, default_mode, density * base_dpi)
    while len(html) > max_bytes and density > 1:
        # bytes grow about as the number of pixels, the square of the density
        density = max(1.0, density * math.sqrt(max_bytes / len(html)) * 0.95)
        html = _render(anim, fps, default_mode, density * base_dpi)
    plt.close(fig)
    frame = (
        f'<img alt="{html_lib.escape(f"animation: {alt}")}" '
        f'width="{width}" height="{height}" id="_anim_img'
    )
    html = html.replace('<img id="_anim_img', frame, 1)
    return HTML(offline_jshtml(html))
