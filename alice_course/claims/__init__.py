"""A registry of the book's checkable claims and errata, each with its book location.

A claim is something the book states that code can check: an identity, a shape, a
number, a convergence behaviour. Each one is registered here with an id (``C2-07``:
chapter 2, claim 7 of the chapter digest), where the book says it (section, equation,
line of ``shared/book``), a one-line statement in our words, and a check function that
computes the thing and raises :class:`AssertionError` when it does not hold.

An *erratum* is a claim whose printed form is wrong: ``erratum=`` says what the book
prints, the statement says what is right, and the check asserts the right one.

The chapter notebooks call :func:`verify` next to the text they illustrate, which
shows each claim as a block (``✓ C2-07 · §2.1.1``, the statement, the numbers its check
measured, the check's source folded beneath) whose HTML carries the anchor
``claim-C2-07`` (:func:`anchor`); ``tests/test_claims.py`` runs every check. While the
site is built, each call also logs its results (:func:`_log`, read back by
:func:`recorded`), and ``tools/claims_pages.py`` makes the site's Claims and Errata
pages from those logs, each row linking to the block in its chapter.

>>> from alice_course import claims
>>> claims.get("C2-07").section
'2.1.1'
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import textwrap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Claim",
    "ClaimResult",
    "all_claims",
    "anchor",
    "claim",
    "get",
    "locator",
    "recorded",
    "results",
    "verify",
]


@dataclass(frozen=True)
class Claim:
    """One checkable statement of the book.

    Attributes
    ----------
    id : ``"C<chapter>-<nn>"`` as in the chapter digest (``"CA-03"`` for appendix A).
    section : the book's section number, e.g. ``"2.3.2"``.
    lines : the line range in the book's text where the claim is made.
    statement : what holds, in our words (the corrected form for an erratum).
    check : a function of no arguments that raises ``AssertionError`` when the claim
        fails and may return a short string with the numbers it measured.
    equation : the book's equation label, if any (``"E.4.5"`` or a LaTeX label).
    erratum : for errata, what the book prints that is wrong.
    """

    id: str
    section: str
    lines: tuple[int, int]
    statement: str
    check: Callable[[], str | None] = field(repr=False, compare=False)
    equation: str | None = None
    erratum: str | None = None

    @property
    def chapter(self) -> str:
        return self.id[1:].split("-")[0]

    @property
    def location(self) -> str:
        start, end = self.lines
        where = f"line {start}" if start == end else f"lines {start}–{end}"
        eq = f", {self.equation}" if self.equation else ""
        return f"§{self.section}{eq} ({where})"


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    ok: bool
    detail: str
    seconds: float

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        kind = "erratum, corrected: " if self.claim.erratum else ""
        tail = f" [{self.detail}]" if self.detail else ""
        return f"{mark} {self.claim.location} {kind}{self.claim.statement}{tail}"


_REGISTRY: dict[str, Claim] = {}


def claim(
    id: str,
    *,
    section: str,
    lines: int | tuple[int, int],
    statement: str,
    equation: str | None = None,
    erratum: str | None = None,
) -> Callable[[Callable[[], str | None]], Callable[[], str | None]]:
    """Decorator that registers ``check`` as the check of claim ``id``."""
    span = (lines, lines) if isinstance(lines, int) else tuple(lines)
    if len(span) != 2 or span[0] > span[1]:
        raise ValueError(f"lines must be an int or a (start, end) pair; got {lines!r}")

    def register(check: Callable[[], str | None]) -> Callable[[], str | None]:
        if id in _REGISTRY:
            raise ValueError(f"claim {id!r} is registered twice")
        _REGISTRY[id] = Claim(id, section, span, statement, check, equation, erratum)
        return check

    return register


def _load_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ch") or info.name.startswith("app"):
            importlib.import_module(f"{__name__}.{info.name}")


def _sort_key(c: Claim) -> tuple:
    head, num = c.id[1:].split("-")
    # chapters in order, appendices last; within a chapter claims first, then errata
    return (head.isalpha(), head.zfill(3), c.id[0] == "E", int(num))


def all_claims(chapter: str | int | None = None) -> list[Claim]:
    """Every registered claim, in book order; ``chapter=2`` or ``"A"`` filters."""
    _load_all()
    found = sorted(_REGISTRY.values(), key=_sort_key)
    if chapter is not None:
        found = [c for c in found if c.chapter == str(chapter)]
    return found


def get(id: str) -> Claim:
    """The claim registered under ``id``; a ``KeyError`` lists close ones if missing."""
    _load_all()
    try:
        return _REGISTRY[id]
    except KeyError:
        prefix = id.split("-")[0]
        near = sorted(k for k in _REGISTRY if k.startswith(prefix))
        raise KeyError(
            f"no claim {id!r}; registered with that prefix: {near}"
        ) from None


def _run(c: Claim) -> ClaimResult:
    start = time.perf_counter()
    try:
        detail = c.check() or ""
        ok = True
    except AssertionError as err:
        detail, ok = str(err) or "assertion failed", False
    return ClaimResult(c, ok, detail, time.perf_counter() - start)


class Verified(list):
    """The results of :func:`verify`, which has already shown them where it was
    called; so a notebook cell that ends with it shows nothing more. ``text()`` and
    ``html()`` give the two forms again; ``show()`` displays them again."""

    def text(self, width: int = 88) -> str:
        return "\n".join(_text(r, width) for r in self)

    def html(self) -> str:
        return _html(self)

    def show(self) -> None:
        _show(self)

    def _ipython_display_(self) -> None:
        pass

    def __repr__(self) -> str:
        marks = ", ".join(f"{r.claim.id} {'✓' if r.ok else '✗'}" for r in self)
        return f"Verified([{marks}])"


class ClaimsBlock:
    """What :func:`verify` displays: one block per claim, as HTML in Jupyter, Colab and
    the site (``text/html``) and as text wrapped at 88 columns elsewhere
    (``text/plain``: terminals, ``nbconvert --to script``)."""

    def __init__(self, results: Iterable[ClaimResult]) -> None:
        self.results = list(results)

    def _repr_html_(self) -> str:
        return _html(self.results)

    def __repr__(self) -> str:
        return "\n".join(_text(r) for r in self.results)

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))


def _show(results: list[ClaimResult]) -> None:
    """Display the block in IPython (Jupyter, Colab, the site's kernel), else print
    its text."""
    ipython = sys.modules.get("IPython")
    if ipython is not None and ipython.get_ipython() is not None:
        from IPython.display import display

        display(ClaimsBlock(results))
    else:
        print(repr(ClaimsBlock(results)))


def verify(*ids: str, quiet: bool = False) -> Verified:
    """Check the given claims, show them, raise if any fails.

    This is what the chapter notebooks call, so that a failing claim stops the
    notebook (and its test) at the place in the chapter where it is made. Each claim
    is shown as a block (its mark, id, section, statement, the numbers its check
    measured, and the check's source folded beneath), in Jupyter as HTML, in a
    terminal as text wrapped at 88 columns; ``quiet=True`` shows nothing.
    """
    if not ids:
        raise ValueError("verify() needs at least one claim id, e.g. verify('C2-07')")
    out = Verified(_run(get(i)) for i in ids)
    _log(out, shown=not quiet)
    if not quiet:
        _show(out)
    failed = [r for r in out if not r.ok]
    if failed:
        raise AssertionError("claims failed:\n" + "\n".join(_text(r) for r in failed))
    return out


#: LaTeX labels of the book's source (a prefix such as eq, fig or code, a colon and a
#: name) are not the book's printed numbers: a page never shows them.
_LATEX_LABEL = re.compile(r"^\w+:[\w-]+$")


def locator(c: Claim) -> str:
    """Where a reader finds the claim: the section and the printed equation, figure
    or box (``§7.1.3, E.7.4``); never the text's line numbers or a LaTeX label."""
    where = c.section if c.section == "Foreword" else f"§{c.section}"
    if c.equation:
        printed = [
            part.strip()
            for part in c.equation.split(",")
            if part.strip() and not _LATEX_LABEL.match(part.strip())
        ]
        if printed:
            where += ", " + ", ".join(printed)
    return where


def anchor(c: Claim | str) -> str:
    """The HTML id of the claim's block where :func:`verify` shows it
    (``claim-C7-03``): a chapter page's ``#claim-C7-03`` lands on it."""
    return f"claim-{c if isinstance(c, str) else c.id}"


def _lines(c: Claim) -> str:
    start, end = c.lines
    return f"line {start}" if start == end else f"lines {start}–{end}"


def _text(r: ClaimResult, width: int = 88) -> str:
    """One claim as text: a header, the statement and the measured numbers, wrapped
    at ``width`` columns."""
    c = r.claim
    mark = "✓" if r.ok else "✗"
    head = f"{mark} {c.id} {locator(c)} (book text {_lines(c)})"
    body = ("erratum, corrected: " if c.erratum else "") + c.statement
    lines = textwrap.wrap(head, width, subsequent_indent="    ")
    lines += textwrap.wrap(body, width, initial_indent="  ", subsequent_indent="  ")
    if c.erratum:
        lines += textwrap.wrap(
            f"the book prints: {c.erratum}",
            width,
            initial_indent="  ",
            subsequent_indent="    ",
        )
    if r.detail:
        label = "measured: " if r.ok else "failed: "
        lines += textwrap.wrap(
            label + r.detail, width, initial_indent="  ", subsequent_indent="    "
        )
    return "\n".join(lines)


def _source(check: Callable) -> tuple[str, str]:
    """The check's code without its ``@claim(...)`` decorator, and where it is."""
    try:
        lines, first = inspect.getsourcelines(check)
        path = Path(inspect.getsourcefile(check) or "")
    except (OSError, TypeError):
        return "(the source of this check is not available)", ""
    text = textwrap.dedent("".join(lines))
    start = next(
        (i for i, line in enumerate(text.splitlines()) if line.startswith("def ")), 0
    )
    code = "\n".join(text.splitlines()[start:]).rstrip()
    try:
        where = path.relative_to(Path(__file__).resolve().parents[2]).as_posix()
    except ValueError:
        where = path.name
    return code, f"{where}, line {first + start}"


#: Inline styles, so that the block looks the same in Jupyter, Colab and the site,
#: which loads no stylesheet of ours into a notebook. Colours are tints over the
#: page's own background and text (``inherit``), so light and dark themes both read.
_STYLE = {
    "block": "margin:0.3em 0;padding:0.35em 0.7em;border-radius:4px;"
    "line-height:1.45;max-width:100%;box-sizing:border-box;"
    "overflow-wrap:anywhere;color:inherit;font-size:0.95em;",
    "ok": "border-left:4px solid #2da44e;background:rgba(45,164,78,0.09);",
    "fail": "border-left:4px solid #d1242f;background:rgba(209,36,47,0.10);",
    "small": "font-size:0.88em;opacity:0.85;",
    "summary": "cursor:pointer;font-size:0.85em;opacity:0.85;",
    "pre": "margin:0.3em 0 0.2em;padding:0.5em 0.6em;font-size:0.8em;"
    "line-height:1.35;white-space:pre;overflow-x:auto;max-width:100%;"
    "box-sizing:border-box;background:rgba(127,127,127,0.10);"
    "border:1px solid rgba(127,127,127,0.25);border-radius:3px;color:inherit;",
}


def _html(results: Iterable[ClaimResult]) -> str:
    """The claims as HTML blocks (inline styles, everything escaped)."""
    e = html.escape
    s = _STYLE
    blocks = []
    for r in results:
        c = r.claim
        mark, state = ("✓", "holds") if r.ok else ("✗", "fails")
        colour = "#2da44e" if r.ok else "#d1242f"
        code, where = _source(c.check)
        erratum = ""
        if c.erratum:
            erratum = f'<div style="{s["small"]}">the book prints: {e(c.erratum)}</div>'
        detail = ""
        if r.detail:
            label = "measured" if r.ok else "failed"
            detail = f'<div style="{s["small"]}">{label}: {e(r.detail)}</div>'
        kind = "<em>erratum, corrected:</em> " if c.erratum else ""
        secondary = f"book text {_lines(c)}" + (f"; {where}" if where else "")
        blocks.append(
            f'<div class="alice-claim alice-claim-{state}" id="{e(anchor(c))}" '
            f'style="{s["block"]}{s["ok" if r.ok else "fail"]}">'
            f"<div>"
            f'<span style="color:{colour};font-weight:bold" '
            f'title="the claim {state}">{mark}</span> '
            f"<strong>{e(c.id)}</strong> "
            f'<span style="{s["small"]}">· {e(locator(c))}</span></div>'
            f"<div>{kind}{e(c.statement)}</div>{erratum}{detail}"
            f'<details><summary style="{s["summary"]}">show the check</summary>'
            f'<div style="{s["small"]}">{e(secondary)}</div>'
            f'<pre style="{s["pre"]}"><code>{e(code)}</code></pre></details></div>'
        )
    return f'<div class="alice-claims">{"".join(blocks)}</div>'


def _log(out: list[ClaimResult], *, shown: bool = True) -> None:
    """Append the results to the file named by ``ALICE_CLAIMS_LOG`` (one JSON line
    each: id, chapter, whether it held, the measured message, seconds, and the anchor
    of its block, ``null`` when ``verify(..., quiet=True)`` showed none), when set:
    ``tools/notebook_runs.py`` sets it while a chapter runs for the site, one file per
    notebook, so that the Claims and Errata pages list what the chapters found
    without running every check again. A reader's Jupyter writes nothing."""
    path = os.environ.get("ALICE_CLAIMS_LOG")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for r in out:
            row = {
                "id": r.claim.id,
                "chapter": r.claim.chapter,
                "ok": r.ok,
                "detail": r.detail,
                "s": round(r.seconds, 4),
                "anchor": anchor(r.claim) if shown else None,
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def recorded(directory: str | os.PathLike) -> list[ClaimResult]:
    """The results that the chapter notebooks logged into ``directory`` (files
    ``*.claims.jsonl``), one per claim logged, in book order (a claim verified twice
    holds only if it held both times)."""

    seen: dict[str, ClaimResult] = {}
    for path in sorted(Path(directory).glob("*.claims.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            c = get(row["id"])
            res = ClaimResult(c, bool(row["ok"]), row["detail"], float(row["s"]))
            if row["id"] not in seen or not res.ok:
                seen[row["id"]] = res
    return [seen[c.id] for c in all_claims() if c.id in seen]


def results(claims: Iterable[Claim] | None = None) -> list[ClaimResult]:
    """Run checks without raising (for the tests' report)."""
    return [_run(c) for c in (all_claims() if claims is None else claims)]
