"""Sphinx extension (local, named in _config.yml): pages that fit and behave.

- ``static/companion.css``: long text outputs wrap inside the column instead of
  scrolling sideways, and notebook code is set a little smaller so that its 88-column
  lines fit the column of a 1366 px screen. The file is served from this folder, not
  from a top-level ``_static/``: Jupyter Book injects every .js under the static paths
  (MathJax's files in ``_vendor/`` included) into every page as soon as a ``_static/``
  folder exists.
- Figures get their alt text: a notebook that called
  :func:`alice_course.widgets.describe.describe_figures` stores each figure's
  description in its PNG output's metadata (``{"image/png": {"alt": ...}}``). myst-nb
  does not read it (it takes alt text from cell metadata only), so this extension reads
  the executed notebook that ``tools/notebook_runs.py`` keeps (``<build>/executed/``)
  and matches each description to its ``<img>`` by the SHA-256 of the PNG, which is how
  myst-nb names the image file. Without it the ``<img>``'s alt is that file name.
- Each inline script once: Sphinx 7.4 adds an inline script registered after the builder
  started (sphinx-thebe's ``const THEBE_JS_URL ...``, sphinx-togglebutton's selector) a
  second time when it prepares the pages, and the second ``const`` declaration is a
  JavaScript error on every page.
- Launch buttons (Colab, Binder) only on the pages that run there: the chapters, the
  appendices and the labs. The Benchmarks page is a notebook too, but it reads the
  benchmark results and is not meant to run in Colab (the Claims and Errata pages are
  Markdown, filled in by ``tools/claims_pages.py``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from docutils import nodes

HERE = Path(__file__).resolve().parent
#: Pages whose notebooks are meant to be opened in Colab or Binder.
RUNNABLE = re.compile(r"^(book/(ch\d\d|app[A-Z])_|labs/)")


def _add_static(app) -> None:
    app.config.html_static_path.append(str(HERE / "static"))


def _alt_texts(notebook: Path) -> dict[str, str]:
    """``{sha256 of the PNG: alt text}`` for the described figures of ``notebook``."""
    try:
        nb = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = {}
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            alt = output.get("metadata", {}).get("image/png", {}).get("alt")
            png = output.get("data", {}).get("image/png")
            if alt and png:
                data = "".join(png) if isinstance(png, list) else png
                found[hashlib.sha256(base64.b64decode(data)).hexdigest()] = alt
    return found


def _figure_alt_text(app, doctree) -> None:
    """Give each figure of a notebook page the description its output carries."""
    stem = app.env.docname.rsplit("/", 1)[-1]
    executed = Path(app.outdir).parent / "executed" / f"{stem}.ipynb"
    if not executed.exists():
        return
    alts = _alt_texts(executed)
    for image in doctree.findall(nodes.image):
        alt = alts.get(Path(image.get("uri", "")).stem)
        if alt and not image.get("alt"):
            image["alt"] = alt


def _each_script_once(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {})
        key = (
            getattr(script, "filename", script) or "",
            getattr(script, "priority", 500),
            tuple(sorted(attributes.items())),
        )
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


def _launch_buttons_where_they_run(app, pagename, templatename, context, doctree):
    buttons = context.get("header_buttons")
    if buttons and not RUNNABLE.match(pagename):
        buttons[:] = [b for b in buttons if b.get("label") != "launch-buttons"]


def setup(app):
    app.connect("builder-inited", _add_static)
    app.add_css_file("companion.css")
    app.connect("doctree-read", _figure_alt_text)
    # after the themes' handlers: sphinx-book-theme adds the launch buttons at 501
    app.connect("html-page-context", _launch_buttons_where_they_run, priority=900)
    app.connect("html-page-context", _each_script_once, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
