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
