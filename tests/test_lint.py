"""The code base stays ruff-clean (lint rules in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).with_name("ruff")
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_notebook_code_lines_fit_the_page():
    """Code cells of the chapter notebooks keep to 88 columns: a longer line scrolls
    sideways in the site's column at 1366 px (tests/test_site.py finds it only after a
    full build; ``book/*`` is exempt from ruff's E501 for its prose)."""
    import jupytext

    long = [
        f"{path.name} cell {k}: {len(line)} columns"
        for path in sorted((ROOT / "book").glob("*.py"))
        for k, cell in enumerate(jupytext.read(path).cells)
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if len(line) > 88
    ]
    assert not long, long
