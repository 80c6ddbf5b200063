"""Every registered claim is checked in the open in its chapter's notebook.

Chapter ``N`` lives in ``book/chNN_*.py``; appendix ``A`` in ``book/appA_*.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alice_course import claims

ROOT = Path(__file__).resolve().parents[1]


def _notebook(chapter: str) -> Path:
    digit = chapter.isdigit()
    pattern = f"ch{int(chapter):02d}_*.py" if digit else f"app{chapter}_*.py"
    found = sorted((ROOT / "book").glob(pattern))
    assert len(found) == 1, f"expected one notebook book/{pattern}, found {found}"
    return found[0]


CHAPTERS = sorted({c.chapter for c in claims.all_claims()}, key=lambda s: s.zfill(3))


def _verified_ids(source: Path) -> set[str]:
    text = source.read_text(encoding="utf-8")
    calls = re.findall(r"verify\(([^)]*)\)", text)
    return {i for call in calls for i in re.findall(r'"([CE]\w+-\d+)"', call)}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_of_the_chapter_is_verified_in_its_notebook(chapter):
    registered = {c.id for c in claims.all_claims(chapter)}
    missing = registered - _verified_ids(_notebook(chapter))
    assert not missing, f"{_notebook(chapter).name} never verifies {sorted(missing)}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_notebook_verifies_only_registered_claims(chapter):
    known = {c.id for c in claims.all_claims()}
    unknown = _verified_ids(_notebook(chapter)) - known
    assert not unknown, f"{_notebook(chapter).name} verifies unregistered ids {unknown}"


def test_chapters_one_and_two_are_covered():
    assert {"1", "2"} <= set(CHAPTERS)
    assert len([c for c in claims.all_claims(2) if c.id.startswith("C")]) >= 40


def _verify_only_cells(source: Path) -> list[str]:
    """The code cells of a notebook whose every statement is a ``verify(...)`` call:
    the claim's computation is nowhere on the page next to it."""
    import ast

    import jupytext

    found = []
    for i, cell in enumerate(jupytext.read(source).cells):
        if cell.cell_type != "code":
            continue
        code = "\n".join(
            line for line in cell.source.splitlines() if line.lstrip()[:1] not in "%!"
        )
        body = ast.parse(code).body
        calls = [
            s.value
            for s in body
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
        ]
        names = [getattr(c.func, "id", getattr(c.func, "attr", "")) for c in calls]
        if body and len(calls) == len(body) and set(names) == {"verify"}:
            found.append(f"{source.name} cell {i}: {cell.source.strip()}")
    return found


def test_the_verify_only_finder_finds_them(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text(
        '# %%\nx = 1\nverify("C1-01")\n\n# %%\nclaims.verify("C1-02")\n\n'
        '# %%\nverify("C1-03")\nprint(2)\n',
        encoding="utf-8",
    )
    assert [f.split(": ")[1] for f in _verify_only_cells(nb)] == [
        'claims.verify("C1-02")'
    ]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_cell_only_verifies(chapter):
    """A claim's computation is on the page: the cell that verifies it shows it."""
    hidden = _verify_only_cells(_notebook(chapter))
    assert not hidden, "cells that show no computation:\n" + "\n".join(hidden)
