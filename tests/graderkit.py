"""Helpers of the grader's per-lab tests (tests/test_grader_labs*.py): build the
solution of a lab (and, for two labs, its student notebook and a round of mutants),
grade them all in the sandbox and check each verdict. The labs are split over two test
files so that ``pytest --dist loadfile`` runs the halves on different workers."""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from pathlib import Path

import jupytext
import nbformat
import pytest

from alice_course import grading
from alice_course.grading.grader import grade_batch, lab_checks
from alice_course.grading.sandbox import Limits

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "labs").glob("lab*.py"))
LIMITS = Limits(timeout=600.0, check_timeout=120.0, load_timeout=120.0)
#: labs whose generated student notebook is also graded in the sandbox (a NumPy lab and
#: a torch/JAX/torch.distributed one), and the lab whose round of mutants is (the NumPy
#: one: lab05's mutants would each start torch.distributed processes). Every other lab's
#: solution goes through the sandbox; the rest is the same path for every lab and is
#: tested in process for every check: each stub's "not attempted" verdict
#: (tests/test_lab_checks.py), each mutant rejected by its check and by the judge from
#: its record (tests/test_grader_judge.py); every student notebook also runs to the end
#: in a kernel (tests/test_labNN.py).
SANDBOX_ALL = {"lab02", "lab05"}
SANDBOX_MUTANTS = {"lab02"}


def _lab(source: Path) -> str:
    return re.match(r"(lab\d+)", source.stem).group(1)


def _names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const)
    return names


def mutant_source(fn, name: str) -> str:
    """The mutant's own source, renamed to the student's function name, with an
    import of the helpers it uses from the module that defines it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    node.decorator_list, node.name = [], name
    module = vars(sys.modules[fn.__module__])
    helpers = sorted(n for n in _names(fn.__code__) if n in module and n != name)
    head = f"from {fn.__module__} import {', '.join(helpers)}\n" if helpers else ""
    return head + ast.unparse(node)


def substitute(nb, name: str, source: str) -> None:
    """Replace the top-level ``def name`` of the notebook by ``source`` (appending a
    cell when the solution defines it some other way)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                lines = cell.source.splitlines()
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                lines[first - 1 : node.end_lineno] = source.splitlines()
                cell.source = "\n".join(lines)
                return
    nb.cells.append(nbformat.v4.new_code_cell(source))


def mutant_rounds(lab: str) -> list[dict[str, str]]:
    """Mutants grouped so that no round changes the same function twice:
    ``[{check id: mutant description}, ...]``. The sandbox grades the first round
    only (one wrong answer per check, substituted into the notebook and extracted as
    a student's would be); every mutant is judged from its record in
    ``tests/test_grader_judge.py``, without a worker to start per round."""
    rounds: list[dict[str, str]] = []
    for check_id in lab_checks(lab):
        check = grading.CHECKS[check_id]
        for description in check.mutants:
            for r in rounds:
                if check.name not in {grading.CHECKS[i].name for i in r}:
                    r[check_id] = description
                    break
            else:
                rounds.append({check_id: description})
    return rounds


def grade_solution_student_and_mutants(source: Path, tmp_path: Path) -> None:
    """Grade the solution of ``source`` (and for ``SANDBOX_ALL`` its student notebook,
    for ``SANDBOX_MUTANTS`` a round of mutants)."""
    lab = _lab(source)
    ids = lab_checks(lab)
    assert ids, f"{source.name} has no checks registered in alice_course.grading.{lab}"
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    jupytext.write(jupytext.read(source), submissions / "solution.ipynb")
    if lab in SANDBOX_ALL:
        student = ROOT / "labs" / "student" / f"{source.stem}.ipynb"
        (submissions / "student.ipynb").write_text(student.read_text())
    rounds = mutant_rounds(lab)[:1] if lab in SANDBOX_MUTANTS else []
    for k, chosen in enumerate(rounds, start=1):
        nb = jupytext.read(source)
        for check_id, description in chosen.items():
            check = grading.CHECKS[check_id]
            substitute(
                nb, check.name, mutant_source(check.mutants[description], check.name)
            )
        jupytext.write(nb, submissions / f"mutants-{k}.ipynb")
    results = {
        g.student: g
        for g in grade_batch(
            submissions, out=tmp_path / "out", lab=lab, limits=LIMITS, jobs=2
        )
    }
    solution = results["solution"]
    assert [c.status for c in solution.checks] == ["passed"] * len(ids), (
        solution.message
    )
    assert solution.score == solution.max_score > 0
    if lab in SANDBOX_ALL:
        zero = results["student"]
        assert zero.score == 0, zero.message
        for c in zero.checks:
            assert c.status == "not attempted", (c.id, c.message)
            assert "not attempted" in c.message and "NotImplementedError" in c.message
    for k, chosen in enumerate(rounds, start=1):
        g = results[f"mutants-{k}"]
        assert g.status == "ok", g.message  # the substituted notebook still loads
        for c in g.checks:
            if c.id in chosen:
                assert c.status != "passed", f"{c.id} accepted mutant {chosen[c.id]!r}"


def lab_params(labs: set[str]) -> list:
    """pytest params for the sources of ``labs``; lab02 is fast, the others slow
    (each grading run imports their frameworks in a fresh worker)."""
    out = []
    for source in SOURCES:
        if _lab(source) in labs:
            marks = [] if _lab(source) == "lab02" else [pytest.mark.slow]
            out.append(pytest.param(source, id=_lab(source), marks=marks))
    return out
