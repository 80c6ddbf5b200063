"""Student notebooks from instructor sources: ``alice-lab make-student``.

A lab's instructor source is a jupytext py:percent file (``labs/labNN_slug.py``). Inside
code cells, solutions sit between nbgrader/otter-style markers::

    def f(X):
        ### BEGIN SOLUTION
        return ...
        ### END SOLUTION

:func:`make_student` replaces each such region by
``raise NotImplementedError("Exercise N.k")`` at the marker's indentation, where
``N.k`` comes from the nearest ``Exercise N.k`` heading above it; it drops
``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` regions and cells tagged
``solution-only``, and writes ``<out_dir>/<stem>.ipynb`` with no outputs and a metadata
flag saying it was generated. It never writes over the source or over a notebook it did
not generate, and replaces an earlier generated notebook only when asked
(``force=True``). :func:`check_student` tells whether a committed student notebook is
what its source generates now.

>>> _stub_line("    ", "2.3")
'    raise NotImplementedError("Exercise 2.3")'
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

__all__ = ["check_student", "make_student", "student_notebook", "validate_markers"]

GENERATOR = "alice-lab make-student"
_MARKER = re.compile(
    r"^(?P<indent>\s*)#+\s*(?P<kind>BEGIN|END)\s+(?P<what>SOLUTION|HIDDEN TESTS)\s*$"
)
#: a markdown heading "## Exercise 2.3 — ..." (in a cell, or a py:percent line)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+Exercise\s+(\d+\.\d+)", re.MULTILINE)
_PERCENT_HEADING = re.compile(r"^#\s+#{1,6}\s+Exercise\s+(\d+\.\d+)")
_CELL = re.compile(r"^# %%")


def _stub_line(indent: str, exercise: str) -> str:
    return f'{indent}raise NotImplementedError("Exercise {exercise}")'


def validate_markers(text: str, name: str = "<source>") -> None:
    """Raise ``ValueError`` naming the line when BEGIN/END markers are unbalanced,
    nested,
    cross a cell boundary, or when a solution comes before any ``Exercise N.k`` heading.

    Works on the raw py:percent text, so that line numbers are those of the file.
    """
    open_at: tuple[int, str] | None = None
    exercise = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if m := _PERCENT_HEADING.match(line):
            exercise = m.group(1)
        if _CELL.match(line) and open_at is not None:
            raise ValueError(
                f"{name}:{lineno}: a new cell starts inside the "
                f"{open_at[1]} region opened at line {open_at[0]}"
            )
        m = _MARKER.match(line)
        if m is None:
            continue
        kind, what = m.group("kind"), m.group("what")
        if kind == "BEGIN":
            if open_at is not None:
                raise ValueError(
                    f"{name}:{lineno}: BEGIN {what} inside the {open_at[1]} "
                    f"region opened at line {open_at[0]} (regions cannot nest)"
                )
            if what == "SOLUTION" and exercise is None:
                raise ValueError(
                    f"{name}:{lineno}: BEGIN SOLUTION before any "
                    "'Exercise N.k' heading; the stub needs an exercise id"
                )
            open_at = (lineno, what)
        else:
            if open_at is None or open_at[1] != what:
                raise ValueError(
                    f"{name}:{lineno}: END {what} without a matching BEGIN {what}"
                )
            open_at = None
    if open_at is not None:
        raise ValueError(
            f"{name}:{open_at[0]}: BEGIN {open_at[1]} is never closed "
            f"(no END {open_at[1]})"
        )


def _strip_cell(source: str, exercise: str | None) -> str:
    """Replace solution regions by stubs and drop hidden-test regions in one cell."""
    out: list[str] = []
    inside = None
    for line in source.splitlines():
        m = _MARKER.match(line)
        if m and m.group("kind") == "BEGIN":
            inside = m.group("what")
            if inside == "SOLUTION":
                out.append(_stub_line(m.group("indent"), exercise))
        elif m:
            inside = None
        elif inside is None:
            out.append(line)
    return "\n".join(out)


def student_notebook(source: Path) -> nbformat.NotebookNode:
    """The student version of ``source`` (py:percent or .ipynb), in memory."""
    import jupytext

    source = Path(source)
    validate_markers(_as_percent_text(source), str(source))
    nb = jupytext.read(source)
    cells = []
    exercise = None
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            found = _HEADING.findall(cell.source)
            exercise = found[-1] if found else exercise
        if "solution-only" in tags:
            continue
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(_strip_cell(cell.source, exercise))
        elif cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        else:
            new = nbformat.v4.new_raw_cell(cell.source)
        new.metadata = {"tags": tags} if tags else {}
        new.id = f"{source.stem[:40]}-{len(cells):03d}".replace("_", "-")
        cells.append(new)
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {
        "kernelspec": {
            "display_name": "Python 3",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
        "alice_lab": {
            "generated": True,
            "generator": GENERATOR,
            "assignment": source.stem,
            "source": source.name,
        },
    }
    return out


def _as_percent_text(source: Path) -> str:
    if source.suffix == ".py":
        return source.read_text(encoding="utf-8")
    import jupytext

    return jupytext.writes(jupytext.read(source), fmt="py:percent")


def _is_generated(path: Path) -> bool:
    try:
        flag = json.loads(path.read_text(encoding="utf-8"))["metadata"]["alice_lab"]
        return flag["generated"] is True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def make_student(source: Path, out_dir: Path, *, force: bool = False) -> Path:
    """Write the student notebook of ``source`` to ``out_dir/<stem>.ipynb``.

    Raises
    ------
    FileNotFoundError : ``source`` does not exist.
    ValueError : the markers of ``source`` are unbalanced (the message names the line),
        or the target is the source itself.
    FileExistsError : the target exists and is not a generated student notebook (never
        overwritten), or is one and ``force`` is False.
    """
    source, out_dir = Path(source), Path(out_dir)
    if not source.is_file():
        raise FileNotFoundError(f"no lab source at {source}")
    target = out_dir / f"{source.stem}.ipynb"
    if target.resolve() == source.resolve():
        raise ValueError(
            f"refusing to write the student notebook over its instructor "
            f"source {source}; choose another --out directory"
        )
    if target.exists():
        if not _is_generated(target):
            raise FileExistsError(
                f"refusing to overwrite {target}: it is not a student notebook "
                f"generated by {GENERATOR} (it may hold solutions or a student's "
                "work); move it away or choose another --out directory"
            )
        if not force:
            raise FileExistsError(
                f"{target} exists (generated earlier); pass force=True "
                "(--force) to replace it"
            )
    nb = student_notebook(source)
    out_dir.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return target


def _cells(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source) for c in nb.cells]


def check_student(source: Path, out_dir: Path) -> bool:
    """True when ``out_dir/<stem>.ipynb`` holds exactly the cells ``source`` generates
    (cell types and sources; ids, metadata and outputs are ignored)."""
    source, out_dir = Path(source), Path(out_dir)
    target = out_dir / f"{source.stem}.ipynb"
    if not target.is_file() or not _is_generated(target):
        return False
    committed = nbformat.read(target, as_version=4)
    return _cells(committed) == _cells(student_notebook(source))
