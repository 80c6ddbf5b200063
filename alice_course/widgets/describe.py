"""Text descriptions of matplotlib figures: the alt text of the book's figures.

:func:`describe` turns what a figure says about itself (its suptitle, the titles of its
panels, else their axis labels) into one line of text. :func:`describe_figures` makes
every figure an IPython session shows carry that line as the ``alt`` of its PNG output
(``{"image/png": {"alt": ...}}`` in the output's metadata); the site build
(``tools/sphinx_pages.py``) gives it to the figure's ``<img>``, so a screen reader says
what the figure shows instead of reading out a file name. Static widget views use
:func:`describe` for their animation frames (:mod:`alice_course.widgets.static`).

>>> from matplotlib.figure import Figure
>>> fig = Figure()
>>> left, right = fig.subplots(1, 2)
>>> _ = fig.suptitle("Two losses")
>>> _ = left.set_title("hinge"), right.set(title="$\\\\sigma$ of the margin")
>>> describe(fig)
'Two losses: hinge; σ of the margin'
"""

from __future__ import annotations

import re

__all__ = ["describe", "describe_figures"]

#: The longest description; longer ones end with "…".
MAX_CHARS = 300

_GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "eta": "η",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "omega": "ω",
    "Sigma": "Σ",
    "Delta": "Δ",
    "nabla": "∇",
    "cdot": "·",
    "times": "×",
    "to": "→",
    "infty": "∞",
    "approx": "≈",
    "leq": "≤",
    "geq": "≥",
}


_COMMAND_WITH_ARGUMENT = r"\\(?:mathbf|mathrm|mathcal|operatorname|text)\{([^}]*)\}"


def _plain(text: str) -> str:
    """``text`` without mathtext markup or line breaks."""
    text = text.replace("$", "")
    text = re.sub(_COMMAND_WITH_ARGUMENT, r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m[1], m[1]), text)
    text = text.replace("{", "").replace("}", "")
    return " ".join(text.split())


def describe(fig, max_chars: int = MAX_CHARS) -> str:
    """One line saying what ``fig`` shows: its suptitle and its panels' titles (else
    their axis labels), with mathtext turned into plain text."""
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    suptitle = _plain(suptitle or "")
    titles = []
    for ax in fig.axes:
        for loc in ("left", "center", "right"):
            title = _plain(ax.get_title(loc))
            if title and title not in titles:
                titles.append(title)
    if not titles:
        for ax in fig.axes:
            x, y = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
            if x and y:
                titles.append(f"{y} against {x}")
            elif x or y:
                titles.append(x or y)
    text = "; ".join(dict.fromkeys(titles))
    if suptitle:
        text = f"{suptitle}: {text}" if text else suptitle
    if not text:
        panels = len(fig.axes)
        text = f"a figure with {panels} panel{'s' if panels != 1 else ''}"
    if len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    return text


def _alt_metadata(fig):
    """IPython mimebundle formatter: no data, only the PNG output's ``alt``."""
    return {}, {"image/png": {"alt": describe(fig)}}


def describe_figures(shell=None) -> None:
    """Give every matplotlib figure this IPython session shows a text description (the
    ``alt`` of its PNG output, from :func:`describe`). Nothing is printed or drawn
    differently; outside IPython this does nothing."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is not None:
        formatter = shell.display_formatter.mimebundle_formatter
        formatter.for_type_by_name("matplotlib.figure", "Figure", _alt_metadata)
