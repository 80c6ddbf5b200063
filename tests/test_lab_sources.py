"""Every lab: the committed student notebook is what its source generates, and no line
of a solution survives into it, while each exercise keeps its stub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from alice_course.labs import check_student

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "labs").glob("lab*.py"))
STUDENT_DIR = ROOT / "labs" / "student"


def test_every_lab_is_here():
    assert [p.stem[:5] for p in SOURCES] == [
        "lab02",
        "lab04",
        "lab05",
        "lab06",
        "lab07",
        "lab08",
        "lab09",
        "lab10",
        "lab11",
        "lab12",
        "lab13",
    ]


def _solution_lines(source: Path) -> set[str]:
    inside, solution, elsewhere = False, set(), set()
    for line in source.read_text(encoding="utf-8").splitlines():
        if "BEGIN SOLUTION" in line:
            inside = True
        elif "END SOLUTION" in line:
            inside = False
        elif line.strip():
            (solution if inside else elsewhere).add(line.strip())
    return solution - elsewhere  # generic lines such as "]" also occur outside


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_solution_text_survives(source):
    solution = _solution_lines(source)
    assert len(solution) >= 15, f"{source.name}: suspiciously short solutions"
    student = nbformat.read(STUDENT_DIR / f"{source.stem}.ipynb", as_version=4)
    lines = {ln.strip() for c in student.cells for ln in c.source.splitlines()}
    assert not solution & lines, sorted(solution & lines)[:5]
    assert not any("SOLUTION" in ln for ln in lines)
    exercises = sorted(set(re.findall(r"Exercise (\d+\.\d+)", source.read_text())))
    stubs = {f'raise NotImplementedError("Exercise {e}")' for e in exercises}
    assert stubs <= lines, f"missing stubs: {sorted(stubs - lines)}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_committed_student_notebook_is_up_to_date(source):
    assert check_student(source, STUDENT_DIR), (
        f"labs/student is stale: run `alice-lab make-student labs/{source.name} "
        "--out labs/student --force`"
    )
    data = json.loads((STUDENT_DIR / f"{source.stem}.ipynb").read_text())
    assert data["metadata"]["alice_lab"]["generated"] is True
    assert all(not c.get("outputs") for c in data["cells"])
