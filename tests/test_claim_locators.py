"""A reader can find every claim and erratum in the printed book.

A claim is located by its section (§x.y.z) and, where the book has one, the printed
equation number (E.x.y), figure (F.x.y), box or table; the line numbers of the book's
text are only secondary detail. The LaTeX labels of the book's source (``eq:ls_sigma``,
``code:exp``, ``fig:momentum``) are never printed in the book, so no reader-facing text
may show one: not a claim's statement, erratum, section or equation field, not what
:func:`alice_course.claims.locator` renders, not a chapter notebook, and not a
docstring or comment of ``alice_lab`` or ``alice_course`` (the API reference pages
show the docstrings), where an equation is cited by its printed number (E.4.21), not
as "eq. ``ece``".

Where the book's text is LaTeX source its numbers are inferred by counting the numbered
environments of the chapter in order (the digests do the same).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from alice_course import claims

ALL = claims.all_claims()
ROOT = Path(__file__).resolve().parents[1]

#: a LaTeX label as the book's source writes them: eq:softmax, fig:momentum, code:exp
LATEX_LABEL = re.compile(r"\b(eq|fig|code|tab|sec|subsec|box):[A-Za-z_]")
#: matplotlib's "tab:blue" colours are code, not labels
MPL_COLOUR = re.compile(
    r"\btab:(blue|orange|green|red|purple|brown|pink|gray|grey|olive|cyan)\b"
)
#: an equation cited by its LaTeX label in a docstring: eq. ``ece``, eqs. ``a`` and
#: ``b``, E. ``atf_new``, equation ``softmax``
LABEL_CITATION = re.compile(r"\b([Ee]qs?\.?|[Ee]quations?|E\.)\s*``[A-Za-z_]\w*``")
SECTION = re.compile(r"^(\d+(\.\d+)*|[A-Z](\.\d+)*|Foreword)$")
#: what an equation field may name: E.4.9 (or a range E.5.1-E.5.2), Figure F.6.4 (a),
#: Box 2.6 / Boxes 2.4, 2.5, Table T.A.1, or words ("unnumbered display after E.13.25")
PRINTED = re.compile(
    r"^(E\.[0-9A-Z]+\.\d+(\s*[-–]\s*E\.[0-9A-Z]+\.\d+)?"
    r"|(Figure )?F\.[0-9A-Z]+\.\d+( ?\(?[a-z]\)?)?"
    r"|Box(es)? [0-9A-Z]+\.\d+|[0-9A-Z]+\.\d+|Table T\.[0-9A-Z]+\.\d+"
    r"|[A-Za-z][A-Za-z -]*( [EF]\.[0-9A-Z]+\.\d+)*( and [EF]\.[0-9A-Z]+\.\d+)?)$"
)


def _label_hits(source: str, name: str = "<sample>") -> list[str]:
    """The comments and docstrings (of modules, classes, functions and attributes)
    of a Python source that cite a LaTeX label, as ``name:line: text``."""
    texts: list[tuple[int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            texts.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            texts.append((node.lineno, node.value.value))
    hits = []
    for lineno, text in sorted(texts):
        for k, line in enumerate(text.splitlines()):
            if LATEX_LABEL.search(MPL_COLOUR.sub("", line)) or LABEL_CITATION.search(
                line
            ):
                hits.append(f"{name}:{lineno + k}: {line.strip()}")
    return hits


def _reader_facing(c: claims.Claim) -> dict[str, str]:
    return {
        "section": c.section,
        "statement": c.statement,
        "erratum": c.erratum or "",
        "equation": c.equation or "",
        "locator": claims.locator(c),
    }


def test_the_pattern_finds_latex_labels() -> None:
    for text in ("see eq:ls_sigma", "Box code:exp", "(fig:momentum)", "sec:intro"):
        assert LATEX_LABEL.search(text), text
    for text in ("E.4.9", "Figure F.2.4", "Box 2.2", "§4.1.3", "ratio: a_b"):
        assert not LATEX_LABEL.search(text), text


def test_the_pattern_finds_label_citations() -> None:
    for text in (
        "Book: §4.3.4, eq. ``ece`` (lines 2106-2116).",
        "(eq. ``glu_again``, line 5893)",
        "eqs. ``cross_entropy`` and ``ce_single_term``",
        "Book: lines 6735 (E. ``atf_new``), 6749",
    ):
        assert LABEL_CITATION.search(text), text
    for text in (
        "Book: §4.3.4, E.4.21 (lines 2106-2116).",
        "eq. E.4.4 and E.4.6",
        "the ``Sequential`` snippet",
        "a ``gradient_descent`` that calls",
        "the book's tensor *rank*, i.e. ``ndim``",
    ):
        assert not LABEL_CITATION.search(text), text


def test_label_hits_reads_comments_and_docstrings() -> None:
    sample = (
        '"""Module, see eq:softmax."""\n'
        "X = 1\n"
        '"""Attribute docstring, eq. ``ece``."""\n'
        "# a comment naming fig:momentum\n"
        "def f():\n"
        '    """Book: §2.3, eq. ``gradient_descent``."""\n'
        '    return "tab:blue"  # colour, not a label\n'
        "class C:\n"
        '    """Book: §4.3.4, E.4.21 (line 2110)."""\n'
    )
    hits = _label_hits(sample)
    assert [h.split(":")[1] for h in hits] == ["1", "3", "4", "6"], hits


def _sources() -> list[Path]:
    return sorted(
        p for pkg in ("alice_lab", "alice_course") for p in (ROOT / pkg).rglob("*.py")
    )


def test_no_latex_label_in_a_docstring_or_comment() -> None:
    """The API reference pages show the docstrings: an equation is cited there by
    its printed number (E.x.y), never by the LaTeX label of the book's source."""
    sources = _sources()
    assert len(sources) > 100, "alice_lab and alice_course not found"
    hits = []
    for path in sources:
        name = str(path.relative_to(ROOT))
        hits += _label_hits(path.read_text(encoding="utf-8"), name)
    assert not hits, (
        "LaTeX labels in docstrings or comments; cite the printed equation (E.x.y), "
        "figure (F.x.y) or box instead:\n" + "\n".join(hits)
    )


@pytest.mark.parametrize("c", ALL, ids=lambda c: c.id)
def test_no_latex_label_reaches_the_reader(c: claims.Claim) -> None:
    found = {k: v for k, v in _reader_facing(c).items() if LATEX_LABEL.search(v)}
    assert not found, (
        f"{c.id} shows a LaTeX label to readers ({found}); name the printed equation "
        f"(E.x.y), figure (F.x.y) or box instead"
    )


@pytest.mark.parametrize("c", ALL, ids=lambda c: c.id)
def test_every_claim_has_a_section(c: claims.Claim) -> None:
    assert c.section and SECTION.match(c.section), (c.id, c.section)
    where = claims.locator(c)
    assert where.startswith("§" + c.section) or where == "Foreword", (c.id, where)


@pytest.mark.parametrize("c", [c for c in ALL if c.equation], ids=lambda c: c.id)
def test_equation_field_names_printed_numbers(c: claims.Claim) -> None:
    """An equation field names what the book prints, never a line of the text."""
    assert not re.search(r"\blines? \d", c.equation), (c.id, c.equation)
    for part in c.equation.split(","):
        assert PRINTED.match(part.strip()), (c.id, part)


def _notebooks() -> list[Path]:
    return sorted((ROOT / "book").glob("*.py"))


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.name)
def test_no_latex_label_in_a_notebook(path: Path) -> None:
    hits = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if LATEX_LABEL.search(MPL_COLOUR.sub("", line)):
            hits.append(f"{path.name}:{n}: {line.strip()}")
    assert not hits, "LaTeX labels shown to readers:\n" + "\n".join(hits)


#: the title of an erratum box in a chapter notebook
ERRATUM_BOX = re.compile(r"^# ```\{admonition\} Erratum \((?P<inner>.*)\)\s*$")


def _box_title(c: claims.Claim) -> str:
    """What an erratum box's title reads: the id, the locator, and the text's lines
    last, as secondary detail."""
    start, end = c.lines
    lines = f"line {start}" if start == end else f"lines {start}–{end}"
    return f"{c.id}, {claims.locator(c)}; book text {lines}"


def test_box_title_format() -> None:
    assert _box_title(claims.get("E6-04")).startswith("E6-04, §6.4.1, E.6.9; book text")


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.name)
def test_erratum_boxes_are_located_like_their_erratum(path: Path) -> None:
    """Every erratum box names a registered erratum and is titled by its section and
    printed numbers, never by a text line alone."""
    wrong = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = ERRATUM_BOX.match(line)
        if not m:
            continue
        inner = m["inner"]
        cid = inner.split(",")[0]
        try:
            c = claims.get(cid)
        except KeyError:
            wrong.append(f"{path.name}:{n}: no registered erratum id in {inner!r}")
            continue
        if not c.erratum:
            wrong.append(f"{path.name}:{n}: {cid} is not an erratum")
        elif inner != _box_title(c):
            wrong.append(f"{path.name}:{n}: {inner!r} != {_box_title(c)!r}")
    assert not wrong, "\n".join(wrong)
