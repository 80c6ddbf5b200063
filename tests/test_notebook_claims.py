"""Every registered claim is checked in the open in its chapter's notebook."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alice_lab import claims

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = {
    "1": ROOT / "book" / "ch01_introduction.py",
    "2": ROOT / "book" / "ch02_preliminaries.py",
}


def _verified_ids(source: Path) -> set[str]:
    text = source.read_text(encoding="utf-8")
    calls = re.findall(r"verify\(([^)]*)\)", text)
    return {i for call in calls for i in re.findall(r'"([CE]\w+-\d+)"', call)}


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_every_claim_of_the_chapter_is_verified_in_its_notebook(chapter):
    registered = {c.id for c in claims.all_claims(chapter)}
    assert registered, f"no claims registered for chapter {chapter}"
    missing = registered - _verified_ids(CHAPTERS[chapter])
    assert not missing, f"{CHAPTERS[chapter].name} never verifies {sorted(missing)}"


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_the_notebook_verifies_only_registered_claims(chapter):
    known = {c.id for c in claims.all_claims()}
    unknown = _verified_ids(CHAPTERS[chapter]) - known
    assert not unknown, f"{CHAPTERS[chapter].name} verifies unregistered ids {unknown}"


def test_chapter_two_has_at_least_forty_claims():
    assert len([c for c in claims.all_claims(2) if c.id.startswith("C")]) >= 40
