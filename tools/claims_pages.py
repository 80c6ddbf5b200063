"""The site's Claims and Errata pages, made from what the chapter notebooks found.

While ``tools/notebook_runs.py`` executes a chapter for the site, each
``claims.verify`` call appends its results to ``<build>/executed/<stem>.claims.jsonl``
(id, chapter, whether it held, what the check measured, the anchor of the block it
showed: ``claim-C7-03``). This module reads those logs and the registry
(``alice_course.claims``: statement, place in the book, printed text of an erratum)
and writes two pages, grouped by chapter:

- ``book/claims.md``: every registered claim, one row each (id, where in the book, the
  statement, what its check measured), the id linking to the claim's block on its
  chapter page (``ch07_convolutions.html#claim-C7-03``); a claim that no chapter
  verified in this build is listed as *not verified*, never left out;
- ``book/errata.md``: every erratum, the printed and the corrected text side by side,
  linked the same way.

Nothing here runs a check. Each page's text (the committed ``book/claims.md`` and
``book/errata.md``) ends with a marker ``<!-- claims-pages: claims -->``; as a Sphinx
extension (named in ``_config.yml``) this module replaces the marker with the tables
when Sphinx reads the page, from the logs beside the build's output folder, so the full
and the quick builds each show their own runs. A row of chapter links at the top of
each page filters it by chapter (``static/claims_filter.js``, loaded on these two pages
only; without JavaScript the links jump to the chapters' sections). The tables are raw
HTML styled by ``static/companion.css``: columns on a wide screen, one block per row on
a phone.

``python tools/claims_pages.py [--fast] [--out DIR]`` writes the two pages as Sphinx
would see them into ``DIR`` (default ``<build>/claims_pages``) and prints a summary.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The two pages (docnames, relative to the repository, without suffix).
PAGES = {"book/claims": "claims", "book/errata": "errata"}
MARKER = re.compile(r"<!--\s*claims-pages:\s*(claims|errata)\s*-->")
#: The script of the chapter filter, in ``tools/static/`` (served as ``_static/``).
FILTER_JS = "claims_filter.js"


@dataclass(frozen=True)
class Chapter:
    key: str  # "7", "A"
    title: str  # "7. Convolutional layers"
    page: str  # "ch07_convolutions.html", relative to book/


@dataclass(frozen=True)
class Row:
    """One registered claim and what the chapters' runs found for it."""

    claim: object  # alice_course.claims.Claim
    status: str  # "holds", "fails" or "unverified"
    detail: str  # what the check measured, or why it failed
    page: str  # the chapter page the row links to, relative to book/
    anchor: str | None  # the id of the claim's block on that page, if it showed one

    @property
    def href(self) -> str:
        return f"{self.page}#{self.anchor}" if self.anchor else self.page


def chapters(book: Path = ROOT / "book") -> dict[str, Chapter]:
    """``{"7": Chapter("7", "7. Convolutional layers", "ch07_convolutions.html")}``
    for every chapter and appendix notebook, its title the notebook's first heading."""
    found = {}
    for source in sorted(book.glob("ch[0-9][0-9]_*.py")) + sorted(
        book.glob("app[A-Z]_*.py")
    ):
        stem = source.stem
        key = str(int(stem[2:4])) if stem.startswith("ch") else stem[3]
        heading = re.search(r"^# # (.+)$", source.read_text(encoding="utf-8"), re.M)
        title = heading.group(1).strip() if heading else f"Chapter {key}"
        found[key] = Chapter(key, title, f"{stem}.html")
    return found


def read_logs(executed: Path) -> dict[str, list[dict]]:
    """Every logged result, by claim id; each row also says which notebook logged it
    (``"notebook"``: the stem, e.g. ``"ch07_convolutions"``)."""
    found: dict[str, list[dict]] = {}
    for path in sorted(Path(executed).glob("*.claims.jsonl")):
        stem = path.name.removesuffix(".claims.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row["notebook"] = stem
                found.setdefault(row["id"], []).append(row)
    return found


def rows(executed: Path | None, book: Path = ROOT / "book") -> list[Row]:
    """One :class:`Row` per registered claim, in book order. A claim logged more than
    once holds only if it held every time; its link goes to its own chapter's page
    when that page verified it, to a block it showed rather than a quiet call."""
    from alice_course import claims

    logs = read_logs(executed) if executed is not None else {}
    pages = chapters(book)
    out = []
    for c in claims.all_claims():
        home = pages.get(c.chapter)
        home_stem = home.page.removesuffix(".html") if home else None
        found = logs.get(c.id, [])
        if not found:
            out.append(Row(c, "unverified", "", home.page if home else "", None))
            continue
        failed = [r for r in found if not r["ok"]]
        shown = sorted(
            found,
            key=lambda r: (
                r["notebook"] != home_stem,
                not r.get("anchor"),
                r["notebook"],
            ),
        )
        first = failed[0] if failed else shown[0]
        where = shown[0]
        out.append(
            Row(
                c,
                "fails" if failed else "holds",
                first.get("detail") or "",
                f"{where['notebook']}.html",
                where.get("anchor"),
            )
        )
    return out


# --- HTML -----------------------------------------------------------------------------

e = html.escape
MARK = {"holds": "✓", "fails": "✗", "unverified": "○"}
SAYS = {"holds": "holds", "fails": "fails", "unverified": "not verified"}


def _status(row: Row) -> str:
    return (
        f'<span class="alice-status alice-status-{row.status}" '
        f'title="{SAYS[row.status]}">{MARK[row.status]}</span>'
    )


def _id_cell(row: Row, label: str, more: str = "") -> str:
    """The claim's id, linked to its block on the chapter page, and its status."""
    c = row.claim
    return (
        f'<td class="alice-id" data-label="{e(label)}">{_status(row)} '
        f'<a href="{e(row.href)}" title="{e(_link_title(row))}">{e(c.id)}</a>'
        f"{more}</td>"
    )


def _link_title(row: Row) -> str:
    if row.anchor:
        return f"where the chapter checks {row.claim.id}"
    if row.status == "unverified":
        return f"no chapter verified {row.claim.id} in this build"
    return f"the chapter that checks {row.claim.id}"


def _measured(row: Row) -> str:
    if row.status == "unverified":
        return (
            '<div class="alice-measured alice-status-unverified">not verified: no '
            "chapter notebook checked this claim when the site was built</div>"
        )
    if not row.detail:
        return ""
    label = "measured" if row.status == "holds" else "failed"
    return f'<div class="alice-measured">{label}: {e(row.detail)}</div>'


def _errata(n: int) -> str:
    return f"{n} erratum" if n == 1 else f"{n} errata"


def _counts(group: list[Row]) -> str:
    n = len(group)
    holds = sum(r.status == "holds" for r in group)
    fails = sum(r.status == "fails" for r in group)
    missing = n - holds - fails
    parts = [f"{holds} hold" + ("s" if holds == 1 else "")]
    if fails:
        parts.append(f"{fails} fail" + ("s" if fails == 1 else ""))
    if missing:
        parts.append(f"{missing} not verified")
    return ", ".join(parts)


def _filter(kind: str, keys: list[str], titles: dict[str, str]) -> str:
    """The chapter filter: plain links to the sections; the script makes each one
    show its chapter alone."""
    links = [f'<a href="#{kind}-all" data-chapter="all">all</a>']
    links += [
        f'<a href="#{kind}-ch{k}" data-chapter="{e(k)}" '
        f'title="{e(titles[k])}">{e(k)}</a>'
        for k in keys
    ]
    return (
        f'<nav class="alice-chapter-filter" id="{kind}-all" '
        f'aria-label="Show one chapter">'
        f'<span class="alice-filter-label">Chapter</span>{"".join(links)}</nav>'
    )


def _section(kind: str, chapter: Chapter, summary: str, table: str) -> str:
    """A chapter's section: a MyST target and heading, then one raw HTML block (no
    blank line inside, or Markdown would take over)."""
    return "\n".join(
        [
            f"({kind}-ch{chapter.key})=",
            f"## {chapter.title}",
            "",
            f'<div class="alice-claims-group" data-claims-chapter="{e(chapter.key)}">'
            f'<p class="alice-group-summary">{summary}</p>',
            table,
            "</div>",
            "",
        ]
    )


def _grouped(found: list[Row], pages: dict[str, Chapter]) -> list[tuple[Chapter, list]]:
    groups: dict[str, list[Row]] = {}
    for r in found:
        groups.setdefault(r.claim.chapter, []).append(r)
    return [(pages.get(k) or Chapter(k, f"Chapter {k}", ""), groups[k]) for k in groups]


def claims_body(found: list[Row], pages: dict[str, Chapter]) -> str:
    """The claims page's generated part: a summary, the filter, a section per
    chapter with a table of its claims (errata included)."""
    from alice_course import claims

    groups = _grouped(found, pages)
    missing = [r for r in found if r.status == "unverified"]
    failed = [r for r in found if r.status == "fails"]
    n_errata = sum(r.claim.erratum is not None for r in found)
    out = [
        f'<p class="alice-claims-summary">{len(found)} claims registered, '
        f"{n_errata} of them errata. When this site was built the chapters verified "
        f"{len(found) - len(missing)}: {_counts(found)}.</p>",
        "",
    ]
    for label, which in (("Not verified in any chapter", missing), ("Failing", failed)):
        if which:
            ids = ", ".join(
                f'<a href="#{e(r.claim.id)}">{e(r.claim.id)}</a>' for r in which
            )
            out += [f'<p class="alice-claims-attention">{label}: {ids}.</p>', ""]
    out += [_filter("claims", [g.key for g, _ in groups], _titles(groups)), ""]
    for chapter, group in groups:
        body = []
        for r in group:
            c = r.claim
            kind = ""
            if c.erratum:
                kind = (
                    f'<a class="alice-tag" href="errata.html#{e(c.id)}" '
                    f'title="the printed and the corrected text">erratum</a> '
                )
            body.append(
                f'<tr id="{e(c.id)}" class="alice-row-{r.status}">'
                + _id_cell(r, "claim")
                + f'<td class="alice-where" data-label="where">{e(claims.locator(c))}'
                "</td>"
                f'<td class="alice-statement">{kind}{e(c.statement)}{_measured(r)}'
                "</td></tr>"
            )
        table = (
            '<table class="alice-claims-table alice-claims-list">'
            '<colgroup><col class="alice-col-id"><col class="alice-col-where">'
            "<col></colgroup>"
            "<thead><tr><th>claim</th><th>where</th><th>what holds</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )
        errata = sum(r.claim.erratum is not None for r in group)
        summary = (
            f"{len(group)} claims"
            + (f" ({_errata(errata)})" if errata else "")
            + f": {_counts(group)}. "
            + (
                f'<a href="{e(chapter.page)}">Open the chapter</a>.'
                if chapter.page
                else ""
            )
        )
        out.append(_section("claims", chapter, summary, table))
    return "\n".join(out)


def errata_body(found: list[Row], pages: dict[str, Chapter]) -> str:
    """The errata page's generated part: a section per chapter with a table of its
    errata, the printed and the corrected text side by side."""
    from alice_course import claims

    errata = [r for r in found if r.claim.erratum is not None]
    groups = _grouped(errata, pages)
    out = [
        f'<p class="alice-claims-summary">{_errata(len(errata))} in '
        f"{len(groups)} chapters. When this site was built: {_counts(errata)}.</p>",
        "",
        _filter("errata", [g.key for g, _ in groups], _titles(groups)),
        "",
    ]
    for chapter, group in groups:
        body = []
        for r in group:
            c = r.claim
            body.append(
                f'<tr id="{e(c.id)}" class="alice-row-{r.status}">'
                + _id_cell(
                    r,
                    "erratum",
                    f'<div class="alice-where">{e(claims.locator(c))}</div>',
                )
                + f'<td class="alice-printed" data-label="the book prints">'
                f"{e(c.erratum)}</td>"
                f'<td class="alice-corrected" data-label="corrected">'
                f"{e(c.statement)}{_measured(r)}</td></tr>"
            )
        table = (
            '<table class="alice-claims-table alice-errata-list">'
            '<colgroup><col class="alice-col-erratum"><col><col></colgroup>'
            "<thead><tr><th>erratum</th><th>the book prints</th>"
            "<th>corrected</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )
        summary = f"{_errata(len(group))}: {_counts(group)}. " + (
            f'<a href="{e(chapter.page)}">Open the chapter</a>.' if chapter.page else ""
        )
        out.append(_section("errata", chapter, summary, table))
    return "\n".join(out)


def _titles(groups) -> dict[str, str]:
    return {chapter.key: chapter.title for chapter, _ in groups}


def fill(text: str, found: list[Row], pages: dict[str, Chapter]) -> str:
    """The page's text with its marker replaced by the generated part."""

    def body(match: re.Match) -> str:
        make = claims_body if match.group(1) == "claims" else errata_body
        return make(found, pages)

    return MARKER.sub(body, text)


# --- Sphinx ---------------------------------------------------------------------------


def _executed(app) -> Path:
    """``<build>/executed``: Sphinx writes into ``<build>/html``."""
    return Path(app.outdir).parent / "executed"


def _source_read(app, docname: str, source: list[str]) -> None:
    if docname not in PAGES:
        return
    from sphinx.util import logging

    executed = _executed(app)
    if not any(executed.glob("*.claims.jsonl")):
        logging.getLogger(__name__).warning(
            "no claims logs in %s: run the chapters with tools/notebook_runs.py "
            "(tools/build_book.py does) before building the site",
            executed,
            location=docname,
        )
    source[0] = fill(source[0], rows(executed), chapters())


def _filter_script(app, pagename, templatename, context, doctree) -> None:
    if pagename in PAGES:
        app.add_js_file(FILTER_JS, loading_method="defer")


def setup(app):
    app.connect("source-read", _source_read)
    app.connect("html-page-context", _filter_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- by hand --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the quick build's logs")
    parser.add_argument("--out", type=Path, help="folder for claims.md and errata.md")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tools"))
    import notebook_runs

    start = time.perf_counter()
    executed = notebook_runs.executed_dir(args.fast)
    found, pages = rows(executed), chapters()
    out = args.out or notebook_runs.build_dir(args.fast) / "claims_pages"
    out.mkdir(parents=True, exist_ok=True)
    for docname, name in PAGES.items():
        text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
        (out / f"{name}.md").write_text(fill(text, found, pages), encoding="utf-8")
    print(
        f"{len(found)} claims from {executed}: {_counts(found)}; "
        f"pages in {out} ({time.perf_counter() - start:.2f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
