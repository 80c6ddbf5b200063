"""Static widget views: matplotlib animations that work on a page with no kernel.

``FuncAnimation.to_jshtml()`` embeds every frame and a small JavaScript player with a
slider, so the built site can scrub through a widget's states offline. Matplotlib's
player links a Font Awesome stylesheet from a CDN for its button icons; offline that
request fails (and our pages must not reach the network), so :func:`animation_html`
drops the link and draws the buttons with plain Unicode symbols that common fonts carry.
"""

from __future__ import annotations

import re

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


def offline_jshtml(html: str) -> str:
    """Remove remote stylesheets from a ``to_jshtml`` page and inline its icons."""
    html = re.sub(r"<link[^>]*href=\"https?://[^\"]*\"[^>]*>", "", html)
    for cls, symbol in _ICONS.items():
        html = html.replace(f'<i class="{cls}"></i>', symbol)
    if "https://" in html or "http://" in html:
        raise ValueError("the animation still references a remote resource")
    return html


def animation_html(anim, *, fps: int = 8, default_mode: str = "once") -> HTML:
    """An offline-safe HTML player for ``anim``; closes its figure so it shows once.

    Book-independent helper used by every widget's ``static_view``.
    """
    html = anim.to_jshtml(fps=fps, embed_frames=True, default_mode=default_mode)
    plt.close(anim._fig)
    return HTML(offline_jshtml(html))
