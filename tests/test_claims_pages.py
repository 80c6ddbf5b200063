"""The site's Claims and Errata pages (tools/claims_pages.py), made from the chapter
notebooks' logs and the registry, without running a check.

Each test writes logs the way ``claims.verify`` writes them while a chapter runs for
the site (``ALICE_CLAIMS_LOG``, one file per notebook), then reads the pages'
generated HTML back: a row per registered claim, each linking to the anchor that the
claim's ✓ block carries on its chapter page; an erratum's row shows the printed and
the corrected text; a claim that no chapter logged is listed as not verified.
"""

from __future__ import annotations

import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from alice_course import claims
from alice_course.claims import ClaimResult

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import claims_pages  # noqa: E402

ALL = claims.all_claims()
PAGES = claims_pages.chapters()


class _Tags(HTMLParser):
    """Every element's attributes and the text inside each ``<tr>``, by its id."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.rows: dict[
            str, list[tuple[dict, str]]
        ] = {}  # row id -> [(td attrs, text)]
        self._row: str | None = None
        self._cell: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag == "tr" and attrs.get("id"):
            self._row = attrs["id"]
            self.rows[self._row] = []
        elif tag == "td" and self._row:
            self._cell = [attrs, ""]
            self.rows[self._row].append(self._cell)

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None
        if tag == "td":
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data


def _parse(text: str) -> _Tags:
    tags = _Tags()
    tags.feed(text)
    return tags


def _notebook(chapter: str) -> str:
    return PAGES[chapter].page.removesuffix(".html")


def _log_as_the_chapters_do(directory: Path, monkeypatch, results, *, shown=True):
    """Log ``results`` as ``verify`` does in each chapter's run for the site: one log
    per notebook, named by ``ALICE_CLAIMS_LOG``."""
    by_notebook: dict[str, list[ClaimResult]] = {}
    for r in results:
        by_notebook.setdefault(_notebook(r.claim.chapter), []).append(r)
    for stem, found in by_notebook.items():
        monkeypatch.setenv("ALICE_CLAIMS_LOG", str(directory / f"{stem}.claims.jsonl"))
        claims._log(found, shown=shown)
    monkeypatch.delenv("ALICE_CLAIMS_LOG")


@pytest.fixture
def no_checks(monkeypatch):
    """Any check run while making the pages fails the test."""

    def boom(c):
        raise AssertionError(f"the pages ran the check of {c.id}")

    monkeypatch.setattr(claims, "_run", boom)


def _holding(ids=None) -> list[ClaimResult]:
    return [
        ClaimResult(c, True, f"measured {c.id}", 0.01)
        for c in ALL
        if ids is None or c.id in ids
    ]


def test_a_row_per_claim_linking_to_the_anchor_its_verify_block_carries(
    tmp_path, monkeypatch, no_checks
):
    results = _holding()
    _log_as_the_chapters_do(tmp_path, monkeypatch, results)
    rows = claims_pages.rows(tmp_path)
    page = _parse(claims_pages.claims_body(rows, PAGES))
    assert set(page.rows) == {c.id for c in ALL}, "a row per registered claim"
    # the ids each chapter's ✓ blocks carry, as verify renders them on the page
    blocks = {}
    for r in results:
        shown = claims.ClaimsBlock([r])._repr_html_()
        ids = [a["id"] for _, a in _parse(shown).elements if "id" in a]
        blocks.setdefault(PAGES[r.claim.chapter].page, set()).update(ids)
    links = {}
    for tag, attrs in page.elements:
        href = attrs.get("href", "")
        if tag == "a" and "#claim-" in href:
            target, fragment = href.split("#")
            assert fragment in blocks[target], f"{href}: no such block on {target}"
            links[fragment.removeprefix("claim-")] = target
    assert set(links) == {c.id for c in ALL}
    for c in ALL:
        assert links[c.id] == PAGES[c.chapter].page, (c.id, links[c.id])


def test_the_logged_anchor_is_the_one_verify_puts_on_its_block(tmp_path, monkeypatch):
    """A real verify call, as in a chapter: its block carries the id that its log row
    names, and the page links there."""
    log = tmp_path / f"{_notebook('2')}.claims.jsonl"
    monkeypatch.setenv("ALICE_CLAIMS_LOG", str(log))
    out = claims.verify("C2-07", "C2-11", quiet=True)
    claims.verify("C2-07")  # shown, so it carries its anchor
    monkeypatch.delenv("ALICE_CLAIMS_LOG")
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["C2-07", "C2-11", "C2-07"]
    assert [r["anchor"] for r in rows] == [None, None, "claim-C2-07"]
    assert all(r["chapter"] == "2" and r["ok"] for r in rows)
    assert 'id="claim-C2-07"' in out.html()
    found = {r.claim.id: r for r in claims_pages.rows(tmp_path)}
    assert found["C2-07"].href == f"{PAGES['2'].page}#claim-C2-07"
    # shown quietly only: the page links to the chapter, not to a block it lacks
    assert found["C2-11"].href == PAGES["2"].page
    assert found["C2-11"].status == "holds"


def test_an_erratum_row_shows_the_printed_and_the_corrected_text(
    tmp_path, monkeypatch, no_checks
):
    errata = [c for c in ALL if c.erratum]
    assert len(errata) > 20
    _log_as_the_chapters_do(tmp_path, monkeypatch, _holding())
    rows = claims_pages.rows(tmp_path)
    text = claims_pages.errata_body(rows, PAGES)
    page = _parse(text)
    assert set(page.rows) == {c.id for c in errata}, "a row per erratum, and only those"
    for c in errata:
        cells = {a.get("class"): t for a, t in page.rows[c.id]}
        assert cells["alice-printed"] == c.erratum, c.id
        assert cells["alice-corrected"].startswith(c.statement), c.id
        assert f"measured {c.id}" in cells["alice-corrected"]
        assert c.id in cells["alice-id"] and claims.locator(c) in cells["alice-id"]
    # escaped: a printed formula's markup reaches the page as text
    marked = next(c for c in errata if html.escape(c.erratum) != c.erratum)
    assert html.escape(marked.erratum) in text
    # grouped by chapter, in book order, each group under its chapter's heading
    headings = re.findall(r"^## (.+)$", text, re.M)
    keys = list(dict.fromkeys(c.chapter for c in errata))
    assert headings == [PAGES[k].title for k in keys]
    # the claims page marks errata and links them to their row here
    claims_text = claims_pages.claims_body(rows, PAGES)
    assert f'href="errata.html#{errata[0].id}"' in claims_text


def test_a_claim_missing_from_the_results_is_shown_as_not_verified(
    tmp_path, monkeypatch, no_checks
):
    missing = {"C7-03", "E2-01"}
    _log_as_the_chapters_do(
        tmp_path, monkeypatch, [r for r in _holding() if r.claim.id not in missing]
    )
    rows = claims_pages.rows(tmp_path)
    assert {r.claim.id for r in rows if r.status == "unverified"} == missing
    for body in (claims_pages.claims_body(rows, PAGES),):
        page = _parse(body)
        for i in missing:
            cells = page.rows[i]
            status = [t for a, t in cells if a.get("class") == "alice-id"][0]
            assert status.startswith("○")
            assert any("not verified" in t for _, t in cells), i
        assert re.search(r"Not verified in any chapter: .*C7-03", body)
        assert f"{len(ALL) - len(missing)} hold, {len(missing)} not verified" in body
    errata = _parse(claims_pages.errata_body(rows, PAGES))
    assert any("not verified" in t for _, t in errata.rows["E2-01"])
    # and a build that logged nothing lists every claim, none as holding
    nothing = claims_pages.rows(tmp_path / "none")
    assert {r.status for r in nothing} == {"unverified"} and len(nothing) == len(ALL)


def test_a_failing_result_is_shown_as_failing(tmp_path, monkeypatch, no_checks):
    results = _holding()
    bad = next(i for i, r in enumerate(results) if r.claim.id == "C7-03")
    results[bad] = ClaimResult(results[bad].claim, False, "|Δ| = 3 > 1e-6", 0.0)
    _log_as_the_chapters_do(tmp_path, monkeypatch, results)
    rows = {r.claim.id: r for r in claims_pages.rows(tmp_path)}
    assert rows["C7-03"].status == "fails"
    body = claims_pages.claims_body(list(rows.values()), PAGES)
    cells = _parse(body).rows["C7-03"]
    assert any("failed: |Δ| = 3 > 1e-6" in t for _, t in cells)
    assert re.search(r"Failing: .*C7-03", body)


def test_the_committed_pages_are_filled_in_and_listed_in_the_table_of_contents(
    tmp_path, monkeypatch, no_checks
):
    import yaml

    _log_as_the_chapters_do(tmp_path, monkeypatch, _holding(["C2-07"]))
    rows = claims_pages.rows(tmp_path)
    for docname in claims_pages.PAGES:
        text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
        assert len(claims_pages.MARKER.findall(text)) == 1, docname
        filled = claims_pages.fill(text, rows, PAGES)
        assert not claims_pages.MARKER.search(filled)
        assert 'class="alice-chapter-filter"' in filled
        # one raw HTML block per chapter: a blank line inside would end it
        for block in re.findall(
            r"<div class=\"alice-claims-group\".*?</div>\n", filled, re.S
        ):
            assert "\n\n" not in block
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    assert {"book/claims", "book/errata"} <= set(files)
    assert "book/claims_and_errata" not in files
