"""The committed student notebook of every lab is what its instructor source generates
now (``alice-lab make-student --check``), and carries no solution."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from alice_course import cli

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "labs").glob("lab*.py"))
STUDENT = ROOT / "labs" / "student"


def test_there_are_labs():
    assert SOURCES, "no labs/lab*.py found"


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_student_notebook_is_up_to_date(source, capsys):
    status = cli.main(["make-student", str(source), "--out", str(STUDENT), "--check"])
    out = capsys.readouterr()
    assert status == 0, (
        f"{out.err.strip()}\n(run `alice-lab make-student {source.relative_to(ROOT)} "
        "--out labs/student --force` and commit the notebook)"
    )
    assert f"up to date: {STUDENT / (source.stem + '.ipynb')}" in out.out


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_student_notebook_holds_no_solution(source):
    """No line between BEGIN/END SOLUTION markers of the source survives in the
    student notebook (lines that also appear outside the regions are allowed)."""
    text = source.read_text(encoding="utf-8")
    inside, outside, solution = False, set(), set()
    for line in text.splitlines():
        if re.search(r"#+\s*BEGIN (SOLUTION|HIDDEN TESTS)", line):
            inside = True
        elif re.search(r"#+\s*END (SOLUTION|HIDDEN TESTS)", line):
            inside = False
        elif line.strip():
            (solution if inside else outside).add(line.strip())
    nb = nbformat.read(STUDENT / f"{source.stem}.ipynb", as_version=4)
    student = {ln.strip() for c in nb.cells for ln in c.source.splitlines()}
    leaked = (solution - outside) & student
    assert not leaked, f"solution lines in the student notebook: {sorted(leaked)[:5]}"
