"""The grader against a class of 30 submissions, hostile ones included.

One ``grade_batch`` call (two at a time, as on a 2-core CI box) grades correct, wrong,
crashing and hostile lab02 submissions (``tests/grader_corpus/``: an infinite loop, a
fork bomb, a 50 GB allocation, a 10 GB file, a socket connection, reads of the hidden
checks and of other submissions, ``sys.exit``/``os._exit``, fake results, monkeypatched
NumPy and grader, deleted/duplicated/retyped cells, broken and empty files, an R
kernel) with an instructor-only hidden check. Every one must get a valid
``results.json``, exactly the score its honest parts earn (never more), and the batch
must finish, each submission within its time limit plus 5 s; the class CSV must agree
with the per-student files. A smaller batch repeats the hostile core with every optional
layer switched off, to prove the fallbacks (audit hook, memory watchdog).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from alice_course.grading import sandbox
from alice_course.grading.grader import grade_batch, hidden_checks
from alice_course.grading.sandbox import Layers, Limits

CORPUS = Path(__file__).parent / "grader_corpus"
LIMITS = Limits(
    timeout=20.0, check_timeout=3.0, load_timeout=6.0, memory_mb=256, disk_mb=64
)
SECRET = "SECRET-hidden-7c1d"
IDS = ["lab02.1", "lab02.2", "lab02.3", "lab02.4", "lab02.5", "lab02.6", "lab02.h1"]
POINTS = [2, 2, 3, 3, 2, 2, 1]

HIDDEN_CHECK = f'''"""Instructor-only check of lab02 ({SECRET})."""

import numpy as np

from alice_course.grading import compare, register


def _reference():
    from alice_lab.testfuncs import alice2d

    return alice2d


@register("lab02.h1", name="f", exercise="2.1h", points=1, reference=_reference)
def check_f_far_away(f):
    """f(X) far outside the square [0, 10]^2, where the public check never looks."""
    X = np.random.default_rng(99).uniform(-50.0, 50.0, size=(30, 2))
    ok, why = compare(
        "f(X) far away", f(X.copy()), lambda: _reference()(X), rtol=1e-7, atol=1e-9
    )
    return ok, why or "f(X) also matches far outside the square"
'''

#: student -> (grading status, one letter per check of IDS): P passed, F failed,
#: N not attempted, E error, T timeout (or not run), M memory, C crashed, X error or
#: memory (a 50 GB request fails at once, or grows until stopped, depending on the
#: kernel's overcommit), Z not attempted or not run
EXPECTED: dict[str, tuple[str, str]] = {
    "all_loop_forever": ("timeout", "TTTTZZT"),  # T, Z: the time ran out first
    "allocate_50gb": ("memory", "XMPPNNX"),
    "crash_at_import": ("ok", "EEPPNNE"),
    "deleted_cells": ("ok", "PNPNNNP"),
    "duplicated_reordered_cells": ("ok", "PPPPNNP"),
    "empty": ("empty", "NNNNNNN"),
    "eq_override": ("ok", "FPPPNNF"),
    "fake_results": ("ok", "FPPPNNF"),
    "fork_bomb": ("ok", "EPPPNNE"),
    "infinite_loop": ("timeout", "PTPPNNP"),
    "infinite_loop_swallowed": ("timeout", "PTPPNNP"),
    "kill_grader": ("ok", "FPPPNNF"),
    "malformed": ("malformed", "NNNNNNN"),
    "monkeypatch_grader": (
        "ok",
        "FFFFNNF",
    ),  # it breaks the grader for its later checks
    "monkeypatch_numpy": ("ok", "FFPPNNF"),
    "no_metadata": ("ok", "PPPPNNP"),
    "os_exit_first_cell": ("ok", "PPPPNNP"),
    "os_exit_in_function": ("crashed", "CPPPNNC"),
    "print_flood": ("ok", "PPPPNNP"),
    "read_hidden": ("ok", "EPPPNNE"),
    "retyped_cells": ("ok", "PPPPNNP"),
    "socket_connect": ("ok", "EPPPNNE"),
    "syntax_error": ("ok", "PNPPNNP"),
    "sys_exit_first_cell": ("ok", "PPPPNNP"),
    "unknown_kernel": ("ok", "PPPPNNP"),
    "write_10gb": ("ok", "EPPPNNE"),
    "correct": ("ok", "PPPPNNP"),
    # generated from correct.py (the solution and student notebooks, which also need
    # torch and JAX, go through the grader in test_grader_labs.py)
    "wrong_swapped": ("ok", "FPPPNNF"),
    "crash_zero_division": ("ok", "PEPPNNP"),
    "wrong_names": ("ok", "NNNNNNN"),
}
LETTERS = {
    "P": {"passed"},
    "F": {"failed"},
    "N": {"not attempted"},
    "E": {"error"},
    "T": {"timeout", "not run"},
    "M": {"memory"},
    "C": {"crashed"},
    "Z": {"not attempted", "not run"},
    "X": {"error", "memory"},
}


def _numpy_source(**replace: str) -> str:
    """The four NumPy exercises, honestly solved, with some replaced."""
    text = (CORPUS / "correct.py").read_text()
    for name, body in replace.items():
        start = text.index(f"def {name}(")
        end = text.find("\ndef ", start + 1)
        text = text[:start] + body + ("\n" + text[end:] if end > 0 else "\n")
    return text


WRONG_F = """def f(X):
    X = X[:, ::-1]
    x1, x2 = X[:, 0], X[:, 1]
    return np.sin(x1) * np.cos(x2) + np.sin(0.5 * x1) * np.cos(0.5 * x2)
"""
RENAMED = {
    "f": "F",
    "grad_f": "gradf",
    "gradient_descent": "gd",
    "momentum_descent": "md",
}


def _write_class(directory: Path, hidden: Path) -> None:
    for path in CORPUS.iterdir():
        if path.suffix in (".py", ".ipynb") and path.name != "conftest.py":
            text = path.read_text().replace("{{HIDDEN}}", str(hidden))
            (directory / path.name).write_text(
                text.replace("{{OTHERS}}", str(directory))
            )
    (directory / "wrong_swapped.py").write_text(_numpy_source(f=WRONG_F))
    zero = "def grad_f(X):\n    scale = 1 / 0\n    return scale * X\n"
    (directory / "crash_zero_division.py").write_text(_numpy_source(grad_f=zero))
    renamed = _numpy_source()
    for old, new in RENAMED.items():
        renamed = renamed.replace(f"def {old}(", f"def {new}(")
    (directory / "wrong_names.py").write_text(renamed)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    hidden, submissions, out = base / "hidden", base / "submissions", base / "out"
    hidden.mkdir()
    submissions.mkdir()
    (hidden / "lab02_hidden.py").write_text(HIDDEN_CHECK)
    _write_class(submissions, hidden)
    with hidden_checks(hidden) as extra:
        results = grade_batch(
            submissions, out=out, lab="lab02", limits=LIMITS, hidden=extra, jobs=2
        )
    return {g.student: g for g in results}, out


def _valid_gradescope(data: dict) -> None:
    assert isinstance(data["score"], float) and isinstance(data["output"], str)
    assert data["extra_data"]["grading_status"]
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output"}
        assert test["status"] in ("passed", "failed")
        assert 0 <= test["score"] <= test["max_score"]
    assert data["score"] == sum(t["score"] for t in data["tests"])


def test_the_whole_class_is_graded(graded):
    results, out = graded
    assert len(results) == 30 == len(EXPECTED)
    assert set(results) == set(EXPECTED)
    for student in results:
        _valid_gradescope(json.loads((out / student / "results.json").read_text()))


@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_each_submission_scores_what_its_honest_parts_earn(graded, student):
    results, _ = graded
    g = results[student]
    status, letters = EXPECTED[student]
    got = {c.id: c.status for c in g.checks}
    assert g.status == status, (g.status, got, g.log[-2000:])
    for check_id, letter in zip(IDS, letters, strict=True):
        assert got[check_id] in LETTERS[letter], (check_id, got[check_id], g.message)
    honest = sum(p for p, letter in zip(POINTS, letters, strict=True) if letter == "P")
    assert g.score == honest and g.max_score == sum(POINTS)


def test_the_submission_time_limit_is_honoured(graded):
    results, _ = graded
    for g in results.values():
        assert g.seconds <= LIMITS.timeout + 5, (g.student, g.seconds)
    looping = results["all_loop_forever"]
    statuses = {c.status for c in looping.checks}
    assert looping.status == "timeout" and looping.score == 0
    assert statuses <= {"timeout", "not run"} and "not run" in statuses
    assert looping.seconds >= LIMITS.timeout - 1  # it did run until the limit


def test_messages_a_student_can_act_on(graded):
    results, _ = graded
    by = {s: {c.id: c.message for c in g.checks} for s, g in results.items()}
    assert "stopped after 3 s" in by["infinite_loop"]["lab02.2"]
    assert "infinite loop" in by["infinite_loop_swallowed"]["lab02.2"]
    assert "more than 256 MB" in by["allocate_50gb"]["lab02.2"]
    assert "os._exit" in by["os_exit_in_function"]["lab02.1"]
    assert "ZeroDivisionError" in by["crash_zero_division"]["lab02.2"]
    assert "crash_zero_division.py, line" in by["crash_zero_division"]["lab02.2"]
    assert "not valid JSON" in by["malformed"]["lab02.1"]
    assert "no function named 'f'" in by["wrong_names"]["lab02.1"]
    assert "differs from the reference" in by["wrong_swapped"]["lab02.1"]
    notes = {s: " ".join(g.notes) for s, g in results.items()}
    assert "ZeroDivisionError" in notes["crash_at_import"]
    assert "took longer than 3 s" in notes["crash_at_import"]
    assert (
        "markdown cell" in notes["retyped_cells"]
        and "raw cell" in notes["retyped_cells"]
    )
    assert "'ir'" in notes["unknown_kernel"]
    assert "syntax error" in notes["syntax_error"]


def test_no_forged_or_leaked_content_reaches_the_reports(graded):
    results, out = graded
    level = results["correct"].level[0]
    for student in results:
        text = (out / student / "results.json").read_text()
        assert "forged" not in text and '"score": 100' not in text
        if level >= 2 or os.geteuid() == 0:  # hidden behind mounts, or not readable
            assert SECRET not in text, student
    leak = results["read_hidden"].checks[0].message
    assert "lab02_hidden" not in leak and "correct.py" not in leak


def test_isolation_level_is_recorded(graded):
    results, out = graded
    data = json.loads((out / "correct" / "results.json").read_text())
    level = data["extra_data"]["sandbox_level"]
    layers = data["extra_data"]["sandbox_layers"]
    needed = {"network", "filesystem", "memory", "user", "rlimits", "audit_hook"}
    assert needed <= set(layers)
    groups = sandbox.Cgroups.create(LIMITS) if os.geteuid() == 0 else None
    if groups:
        groups.remove()
    if groups and sandbox._unshare_prefix()[0]:
        assert level == 3, layers  # root with unshare and writable cgroups: everything
    assert level >= 1


def test_class_reports_match_the_per_student_results(graded):
    results, out = graded
    with open(out / "grades.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["student"] for r in rows] == sorted(results)
    for row in rows:
        data = json.loads((out / row["student"] / "results.json").read_text())
        assert float(row["score"]) == data["score"]
        assert row["status"] == data["extra_data"]["grading_status"]
        assert float(row["max_score"]) == data["extra_data"]["max_score"]
        for test in data["tests"]:
            assert float(row[test["extra_data"]["check"]]) == test["score"]
    suites = ET.parse(out / "junit.xml").getroot()
    assert len(suites) == len(results) and int(suites.get("tests")) == 7 * len(results)
    classroom = json.loads((out / "classroom.json").read_text())
    assert classroom["correct"]["status"] == "fail"  # 2.5 and 2.6 are missing
    assert sum(t["score"] for t in classroom["correct"]["tests"]) == 11
    assert sum(t["score"] for t in classroom["wrong_swapped"]["tests"]) == 8


FALLBACK = [
    "fork_bomb",
    "socket_connect",
    "allocate_50gb",
    "infinite_loop_swallowed",
    "kill_grader",
    "write_10gb",
]


def test_fallback_layers_alone_still_hold(tmp_path):
    """No namespaces, no cgroups, no drop to nobody: the audit hook, rlimits and the
    memory watchdog must give the same verdicts."""
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for name in FALLBACK:
        shutil.copy(CORPUS / f"{name}.py", submissions)
    results = grade_batch(
        submissions,
        out=tmp_path / "out",
        lab="lab02",
        limits=LIMITS,
        layers=Layers(namespaces=False, cgroups=False, drop_privileges=False),
        jobs=2,
    )
    assert sorted(g.student for g in results) == sorted(FALLBACK)
    for g in results:
        status, letters = EXPECTED[g.student]
        got = [c.status for c in g.checks]
        assert g.status == status, (g.student, got, g.log[-2000:])
        for have, letter in zip(got, letters[:6], strict=True):
            assert have in LETTERS[letter], (g.student, got)
        assert g.level == (1, "process")
        assert "watchdog" in g.isolation["memory"]
        assert "audit hook" in g.isolation["network"]
