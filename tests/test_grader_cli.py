"""``alice-lab grade`` and ``alice-lab grade-batch``: the files they write, hidden
checks, GitHub Classroom's output, the isolation switch, and their errors."""

from __future__ import annotations

import base64
import csv
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from alice_course import cli, grading
from alice_course.grading.grader import infer_lab
from alice_course.grading.submission import load_submission, parse_text

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).parent / "grader_corpus"
FAST = ["--timeout", "90", "--check-timeout", "30"]

HIDDEN = """import numpy as np

from alice_course.grading import compare, register


def _reference():
    from alice_lab.testfuncs import alice2d

    return alice2d


@register("lab02.h1", name="f", exercise="2.1h", points=1, reference=_reference)
def check_far(f):
    X = np.random.default_rng(7).uniform(-30.0, 30.0, size=(20, 2))
    ok, why = compare(
        "f(X) far away", f(X.copy()), lambda: _reference()(X), rtol=1e-7, atol=0
    )
    return ok, why or "f matches far away too"
"""


def test_grade_writes_every_report(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    github = tmp_path / "github_output"
    github.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(github))
    args = ["grade", str(CORPUS / "correct.py"), "--lab", "lab02", "--out", str(out)]
    assert cli.main(args + FAST + ["--github-output"]) == 0
    text = capsys.readouterr().out
    assert "✓ Exercise 2.1 (2/2)" in text and "✗ Exercise 2.5 (0/2)" in text
    assert "score 10/14; status ok; sandbox level" in text
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == 10.0 and len(results["tests"]) == 6
    assert results["extra_data"]["grading_status"] == "ok"
    classroom = json.loads((out / "classroom.json").read_text())
    assert classroom["version"] == 1 and classroom["max_score"] == 14
    assert classroom["status"] == "fail"  # 2.5 and 2.6 are not attempted
    line = github.read_text().strip()
    assert line.startswith("result=")
    assert json.loads(base64.b64decode(line.removeprefix("result="))) == classroom
    suite = ET.parse(out / "junit.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures")) == ("6", "2")
    assert "worker 1 stdout" in (out / "log.txt").read_text()


def test_hidden_checks_and_basic_isolation(tmp_path, capsys):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "extra.py").write_text(HIDDEN)
    out = tmp_path / "out"
    args = ["grade", str(CORPUS / "correct.py"), "--out", str(out), "--lab", "lab02"]
    assert cli.main(args + FAST + ["--hidden", str(hidden), "--basic-isolation"]) == 0
    assert "lab02.h1" not in grading.CHECKS  # registered only while grading
    results = json.loads((out / "results.json").read_text())
    tests = {t["extra_data"]["check"]: t for t in results["tests"]}
    assert tests["lab02.h1"]["score"] == 1.0
    assert tests["lab02.h1"]["visibility"] == "after_published"
    assert tests["lab02.1"]["visibility"] == "visible"
    assert results["extra_data"]["sandbox_level"] == 1
    assert "sandbox level 1 (process)" in capsys.readouterr().out


def test_grade_errors_and_hopeless_submissions(tmp_path, capsys):
    submission = str(CORPUS / "correct.py")
    unknown = ["--lab", "lab99", "--out", str(tmp_path)]
    assert cli.main(["grade", submission, *unknown]) == 1
    assert "no checks are registered for lab 'lab99'" in capsys.readouterr().err
    missing = ["--hidden", str(tmp_path / "nowhere"), "--out", str(tmp_path)]
    assert cli.main(["grade", submission, *missing]) == 1
    assert "no directory of hidden checks" in capsys.readouterr().err
    nowhere = tmp_path / "typo.ipynb"
    reports = tmp_path / "typo-out"
    assert (
        cli.main(["grade", str(nowhere), "--lab", "lab02", "--out", str(reports)]) == 1
    )
    assert f"no submission at {nowhere}" in capsys.readouterr().err
    assert not reports.exists()  # no 0/N report for a file that is not there
    out = tmp_path / "empty"
    empty = str(CORPUS / "empty.ipynb")
    assert cli.main(["grade", empty, "--lab", "lab02", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == 0.0
    assert results["extra_data"]["grading_status"] == "empty"
    assert cli.main(["grade-batch", str(tmp_path / "none"), "--out", str(out)]) == 1


def test_grade_batch_writes_the_class_reports(tmp_path, capsys):
    submissions = tmp_path / "class"
    (submissions / "bob").mkdir(parents=True)
    shutil.copy(CORPUS / "correct.py", submissions / "alice.py")
    shutil.copy(CORPUS / "deleted_cells.ipynb", submissions / "bob" / "lab02.ipynb")
    shutil.copy(CORPUS / "empty.ipynb", submissions / "carol.ipynb")
    (submissions / ".DS_Store").write_text("")
    out = tmp_path / "grades"
    args = ["grade-batch", str(submissions), "--lab", "lab02", "--out", str(out)]
    assert cli.main(args + FAST + ["--jobs", "2"]) == 0
    text = capsys.readouterr().out
    assert "graded 3 submissions" in text
    with open(out / "grades.csv", newline="") as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert {s: (r["score"], r["status"]) for s, r in rows.items()} == {
        "alice": ("10", "ok"),
        "bob": ("5", "ok"),
        "carol": ("0", "empty"),
    }
    assert rows["bob"]["submission"].endswith("bob/lab02.ipynb")
    for student in rows:
        assert (out / student / "results.json").is_file()
    assert set(json.loads((out / "classroom.json").read_text())) == set(rows)


def test_the_lab_is_inferred_from_metadata_names_and_file_names(tmp_path):
    student = ROOT / "labs" / "student" / "lab02_gradient_descent.ipynb"
    assert infer_lab(load_submission(student), Path("anything.ipynb")) == "lab02"
    sub = parse_text("def grad_f(X):\n    return X\n")
    assert infer_lab(sub, Path("homework.py")) == "lab02"
    assert infer_lab(parse_text("x = 1\n"), Path("lab02_mine.py")) == "lab02"
    assert infer_lab(parse_text("x = 1\n"), Path("homework.py")) is None
