"""Every registered claim of the book holds, and the claim machinery can fail.

Each claim's check compares something the book states with NumPy, SciPy, the
frameworks, a closed form or the book's own numbers (see ``alice_course/claims``).
The registry tests make sure every claim points at a real place in the book.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from alice_course import claims
from alice_course.claims import Claim

ALL = claims.all_claims()

#: line ranges of the chapters in shared/book/alice-differentiable-wonderland.txt.
#: Chapter 1's range starts at the Foreword (lines 12-24), which the chapter-1
#: digest covers and C1-10 cites.
# Book lines of each chapter (the digests' ranges); a claim must cite lines inside them.
CHAPTER_LINES = {
    "1": (12, 177),
    "2": (179, 1160),
    "3": (1162, 1313),
    "4": (1314, 2192),
    "5": (2194, 2660),
    "6": (2662, 3255),
    "7": (3256, 3682),
    "8": (3684, 4324),
    "9": (4326, 5051),
    "10": (5056, 5603),
    "11": (5604, 5942),
    "12": (5943, 6329),
    "13": (6331, 6849),
    "A": (6851, 7009),
    "B": (7011, 7087),
}

ID_PATTERN = re.compile(r"^[CE](\d+|[A-Z])-\d{2}$")
SECTION_PATTERN = re.compile(r"^(\d+(\.\d+)*|[A-Z](\.\d+)*|Foreword)$")


def _book_text() -> list[str] | None:
    here = Path(__file__).resolve()
    for root in (here.parents[1], here.parents[2]):
        path = root / "shared" / "book" / "alice-differentiable-wonderland.txt"
        if path.exists():
            return path.read_text(encoding="utf-8").splitlines()
    return None


@pytest.fixture(scope="module")
def logged() -> dict[str, claims.ClaimResult]:
    """What the chapter notebooks' verify calls found in this `make test`'s site build,
    when every notebook's run is fresh and succeeded; otherwise nothing (each check
    then runs here)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import notebook_runs

    records = notebook_runs.load_records(fast=True)
    sha = notebook_runs.inputs_hash()
    names = notebook_runs.site_notebooks()
    if not all(notebook_runs.is_fresh(records.get(n), inputs_sha=sha) for n in names):
        return {}
    if not all(records[n].ok for n in names):
        return {}
    found = claims.recorded(notebook_runs.executed_dir(fast=True))
    return {r.claim.id: r for r in found}


@pytest.mark.parametrize("c", ALL, ids=[c.id for c in ALL])
def test_claim_holds(c: Claim, logged) -> None:
    result = logged.get(c.id) or claims.verify(c.id, quiet=True)[0]
    assert result.ok, result.line()


@pytest.mark.parametrize("c", ALL, ids=[c.id for c in ALL])
def test_claim_location(c: Claim) -> None:
    assert ID_PATTERN.match(c.id), f"{c.id} does not look like C2-07 or E2-01"
    assert SECTION_PATTERN.match(c.section), f"{c.id}: section {c.section!r}"
    assert c.statement.strip(), f"{c.id} has no statement"
    assert (c.erratum is not None) == c.id.startswith("E"), (
        f"{c.id}: errata (E..) and only errata carry erratum="
    )
    start, end = c.lines
    assert start <= end, f"{c.id}: lines {c.lines}"
    if c.chapter in CHAPTER_LINES:
        lo, hi = CHAPTER_LINES[c.chapter]
        assert lo <= start and end <= hi, (
            f"{c.id} cites lines {c.lines}, outside chapter {c.chapter} ({lo}-{hi})"
        )
        if c.section[0].isdigit():
            assert c.section.split(".")[0] == c.chapter, f"{c.id}: section {c.section}"


def test_cited_lines_exist_in_the_book() -> None:
    text = _book_text()
    if text is None:
        pytest.skip("shared/book is not next to this checkout")
    for c in ALL:
        start, end = c.lines
        assert end <= len(text), f"{c.id}: line {end} beyond the book ({len(text)})"
        assert any(text[i - 1].strip() for i in range(start, end + 1)), (
            f"{c.id}: lines {c.lines} are blank in the book"
        )


def test_ids_unique_and_registered_under_their_own_id() -> None:
    ids = [c.id for c in ALL]
    assert len(ids) == len(set(ids))
    for c in ALL:
        assert claims.get(c.id) is c


def test_enough_chapter_claims() -> None:
    ch2 = claims.all_claims(2)
    assert len([c for c in ch2 if c.id.startswith("C")]) >= 40
    assert any(c.erratum for c in ch2), "chapter 2 registers its errata"
    assert len(claims.all_claims(1)) >= 5


def test_verify_raises_on_a_failing_claim() -> None:
    fake_id = "C2-99"
    assert fake_id not in claims._REGISTRY

    @claims.claim(
        fake_id,
        section="2.1.1",
        lines=(262, 268),
        statement="deliberately false: 0.1 + 0.2 == 0.3 exactly",
    )
    def _false() -> str:
        total = 0.1 + 0.2
        assert total == 0.3, f"0.1 + 0.2 = {total!r}"
        return "unreachable"

    try:
        with pytest.raises(AssertionError, match="claims failed"):
            claims.verify(fake_id, quiet=True)
        (res,) = claims.results([claims.get(fake_id)])
        assert not res.ok and "0.30000000000000004" in res.detail
        assert res.line().startswith("✗")
        with pytest.raises(ValueError, match="registered twice"):
            claims.claim(fake_id, section="2", lines=1, statement="x")(_false)
    finally:
        del claims._REGISTRY[fake_id]
    assert fake_id not in claims._REGISTRY


def test_verify_prints_a_wrapped_block_per_claim(capsys) -> None:
    out = claims.verify("C2-07", "C2-11")
    printed = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    heads = [line for line in printed if not line.startswith(" ")]
    assert len(heads) == 2 and all(h.startswith("✓ C2-") for h in heads)
    assert all("§2.1.1" in h for h in heads)
    assert max(len(line) for line in printed) <= 88
