"""The grader under attack: one test per kind of attack of issue #17 that it now holds.

Each test pits a hostile submission (or a hostile file system) against an honest lab02
submission (``tests/grader_corpus/correct.py``: 10 of lab02's 14 points, the four NumPy
exercises) and checks that the honest score, every report and every class file survive,
and that nothing outside ``--out`` is touched. Tests that need what only root on Linux
gives (a user per worker, namespaces) say so when they skip.
"""

from __future__ import annotations

import csv
import json
import os
import re
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from alice_course import cli
from alice_course.grading import judge, sandbox
from alice_course.grading.grader import grade, grade_batch, hidden_checks
from alice_course.grading.intake import take_in
from alice_course.grading.outbox import OutboxError, open_outbox
from alice_course.grading.sandbox import Limits
from alice_course.grading.submission import extract, parse_text
from tests.test_grader_corpus import HIDDEN_CHECK, SECRET

CORPUS = Path(__file__).parent / "grader_corpus"
HONEST = (CORPUS / "correct.py").read_text()
HONEST_POINTS = 10  # lab02.1-4: 2 + 2 + 3 + 3
LIMITS = Limits(
    timeout=20.0, check_timeout=3.0, load_timeout=6.0, memory_mb=256, disk_mb=64
)
FULL = os.geteuid() == 0 and bool(sandbox._unshare_prefix()[0])
needs_full = pytest.mark.skipif(
    not FULL, reason="needs root and unshare (the full isolation level)"
)


def _by_student(submissions: Path, out: Path, **kwargs) -> dict:
    """``grade_batch`` of lab02 (two jobs, this file's limits), keyed by student."""
    kwargs = {"lab": "lab02", "limits": LIMITS, "jobs": 2, **kwargs}
    return {g.student: g for g in grade_batch(submissions, out=out, **kwargs)}


def _honest_scores(results) -> dict[str, int]:
    return {g.student: g.score for g in results}


def _class_files_intact(out: Path, students: int) -> None:
    with open(out / "grades.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == students
    suites = ET.parse(out / "junit.xml").getroot().findall("testsuite")
    assert len(suites) == students
    assert len(json.loads((out / "classroom.json").read_text())) == students


# --- 3. root writes only where it chose --------------------------------------------


def test_the_output_folder_is_made_by_the_grader(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    (full / "old.txt").write_text("x")
    with pytest.raises(OutboxError, match="not empty"):
        open_outbox(full)
    open_outbox(full, overwrite=True).close()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(OutboxError, match="symbolic link"):
        open_outbox(link, overwrite=True)
    if os.geteuid() == 0:  # a folder someone else made (perhaps a worker) is refused
        theirs = tmp_path / "theirs"
        theirs.mkdir()
        os.chown(theirs, 61_999, 61_999)
        with pytest.raises(OutboxError, match="owned by uid 61999"):
            open_outbox(theirs)
    made = tmp_path / "new" / "out"
    open_outbox(made).close()
    assert stat.S_IMODE(made.stat().st_mode) & 0o022 == 0
    # the CLI: a clear error and exit status 1 for a folder that is not empty
    sub = tmp_path / "s.py"
    sub.write_text(HONEST)
    assert cli.main(["grade", str(sub), "--lab", "lab02", "--out", str(full)]) == 1


def test_reports_never_follow_planted_links_or_block_on_fifos(tmp_path):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    (submissions / "alice.py").write_text(HONEST)
    (submissions / "bob.py").write_text(HONEST)
    victim = tmp_path / "authorized_keys"
    victim.write_text("untouched\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir(mode=0o755)
    (out / "alice").mkdir()
    (out / "alice" / "results.json").symlink_to(victim)
    os.mkfifo(out / "alice" / "log.txt")
    (out / "bob").symlink_to(elsewhere, target_is_directory=True)
    (out / "junit.xml").symlink_to(victim)
    results = grade_batch(
        submissions, out=out, lab="lab02", limits=LIMITS, jobs=2, overwrite=True
    )
    assert _honest_scores(results) == {"alice": HONEST_POINTS, "bob": HONEST_POINTS}
    assert victim.read_text() == "untouched\n"
    assert list(elsewhere.iterdir()) == []
    for name in (
        "alice/results.json",
        "alice/log.txt",
        "bob/results.json",
        "junit.xml",
    ):
        assert stat.S_ISREG(os.lstat(out / name).st_mode), name
    assert not (out / "bob").is_symlink()
    _class_files_intact(out, 2)


def test_submissions_are_read_without_following_links(tmp_path):
    solution = tmp_path / "instructor" / "lab02_solution.py"
    solution.parent.mkdir()
    solution.write_text(HONEST)
    submissions = tmp_path / "submissions"
    (submissions / "carol").mkdir(parents=True)
    (submissions / "mallory.py").symlink_to(solution)
    (submissions / "carol" / "lab02.py").symlink_to(solution)
    (submissions / "dave.py").write_text(HONEST)
    results = _by_student(submissions, tmp_path / "out")
    assert results["dave"].score == HONEST_POINTS
    assert results["mallory"].score == 0
    assert "symbolic link" in results["mallory"].message
    assert results["carol"].score == 0 and results["carol"].status == "empty"


@needs_full
def test_workers_get_their_own_user_tmp_and_proc(tmp_path):
    # each probe stays 2 s (the check limit is 3 s) so that the two workers run at
    # the same time: a uid is a running worker's own, and one started after the other
    # ended may get the same
    probe = (
        "import os, time\n\n"
        "def f(X):\n"
        "    t0 = time.time()\n"
        "    open('/tmp/planted-by-a-student', 'w').write('x')\n"
        "    pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "    time.sleep(2)\n"
        "    raise RuntimeError(f'uid={os.getuid()} pids={len(pids)} '\n"
        "                       f'span={t0:.3f},{time.time():.3f}')\n"
    )
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "p1.py").write_text(probe)
    (submissions / "p2.py").write_text(probe)
    results = grade_batch(
        submissions, out=tmp_path / "out", lab="lab02", limits=LIMITS, jobs=2
    )
    facts = {}
    for g in results:
        message = next(c.message for c in g.checks if c.id == "lab02.1")
        found = re.search(r"uid=(\d+) pids=(\d+) span=([\d.]+),([\d.]+)", message)
        assert found, message
        uid, pids, t0, t1 = found.groups()
        facts[g.student] = (int(uid), int(pids), float(t0), float(t1))
    (uid1, pids1, a0, a1), (uid2, pids2, b0, b1) = facts["p1"], facts["p2"]
    assert a0 < b1 and b0 < a1, f"the two workers did not run at the same time: {facts}"
    assert uid1 != uid2 and 0 not in (uid1, uid2)
    assert pids1 < 10 and pids2 < 10, facts  # a fresh /proc: the worker's own only
    assert not Path("/tmp/planted-by-a-student").exists()


# --- 4. a classmate cannot take points from an honest submission ------------------

HOLD_THREADS = """import threading, time

def _hold():
    threads = []
    for _ in range(200):
        try:
            t = threading.Thread(target=time.sleep, args=(12,), daemon=True)
            t.start()
            threads.append(t)
        except RuntimeError:
            break
    return threads

_held = _hold()

def f(X):
    return _held
"""

NEEDS_THREADS = HONEST.replace(
    "def f(X):\n",
    "def f(X):\n"
    "    import concurrent.futures, time\n"
    "    time.sleep(1.0)\n"
    "    with concurrent.futures.ThreadPoolExecutor(16) as pool:\n"
    "        list(pool.map(abs, range(64)))\n",
)


@needs_full
def test_one_submissions_threads_do_not_reach_its_neighbour(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "a_hostile.py").write_text(HOLD_THREADS)
    (submissions / "b_honest.py").write_text(NEEDS_THREADS)
    limits = Limits(**{**LIMITS.__dict__, "processes": 64})
    results = grade_batch(
        submissions, out=tmp_path / "out", lab="lab02", limits=limits, jobs=2
    )
    honest = next(g for g in results if g.student == "b_honest")
    assert honest.score == HONEST_POINTS, honest.message


# --- 4, 5. the grader's own parsing is bounded, and never fatal -------------------


def _deep_json(depth: int) -> str:
    return '{"cells": ' + "[" * depth + "]" * depth + "}"


def test_hostile_files_get_a_report_and_the_class_goes_on(tmp_path):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    (submissions / "deep.ipynb").write_text(_deep_json(100_000))
    (submissions / "long_sum.py").write_text(
        HONEST + "\nx = " + "+".join(["1"] * 20_000) + "\n"
    )
    spaces = {"cell_type": "markdown", "source": " " * 320_000, "metadata": {}}
    code = {"cell_type": "code", "source": HONEST, "metadata": {}, "outputs": []}
    nb = {"cells": [spaces, code], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (submissions / "spaces.ipynb").write_text(json.dumps(nb))
    (submissions / os.fsdecode(b"caf\xe9.py")).write_text(HONEST)
    (submissions / "grades.csv.py").write_text(HONEST)
    (submissions / "surrogate.py").write_text(
        HONEST.replace("def f(X):\n", "def f(X):\n    raise ValueError('\\udcff')\n")
    )
    results = grade_batch(submissions, out=out, lab="lab02", limits=LIMITS, jobs=2)
    scores = _honest_scores(results)
    assert scores["spaces"] == HONEST_POINTS  # the long line costs nothing
    assert scores["caf_"] == HONEST_POINTS  # a name that is not UTF-8
    assert scores["grades.csv-2"] == HONEST_POINTS  # no collision with the CSV
    assert scores["surrogate"] == HONEST_POINTS - 2  # its f raises, nothing else
    deep = next(g for g in results if g.student == "deep")
    assert deep.status == "malformed" and deep.score == 0
    assert "could not be read" in deep.message or "not valid JSON" in deep.message
    assert scores["long_sum"] == HONEST_POINTS  # the unreadable line is left out
    _class_files_intact(out, 6)
    for g in results:
        json.loads((out / g.student / "results.json").read_text(encoding="utf-8"))


def test_extraction_is_linear_in_the_submission():
    import time

    n = 6000
    chain = "\n".join(f"a{k} = a{k + 1}" for k in range(n)) + f"\na{n} = 1\n"
    text = chain + "\ndef f(X):\n    return X * a0\n"
    t0 = time.perf_counter()
    program = extract(parse_text(text), ["f"])
    seconds = time.perf_counter() - t0
    assert len(program.statements) == n + 2  # every link of the chain is needed
    assert seconds < 10, seconds  # quadratic took minutes
    text = "# %% [markdown]\n" + " " * 320_000 + "x\n# %%\ndef f(X):\n    return X\n"
    t0 = time.perf_counter()
    program = extract(parse_text(text), ["f", "g"])  # g missing: markdown is read
    assert time.perf_counter() - t0 < 5  # the old magic-line regex took minutes
    assert list(program.found) == ["f"]


def test_reading_a_submission_has_limits(tmp_path):
    path = tmp_path / "lab02.py"
    path.write_text(HONEST)
    assert take_in(path, {"lab02": ["f"]}).found == {"f": "lab02.py, line 6"}
    starved = take_in(path, {"lab02": ["f"]}, memory_mb=40)  # cannot even start
    assert starved.program == [] and "could not be read" in starved.problem


def test_forged_messages_are_refused_not_fatal():
    huge = {"name": "f(X)", "shape": [4_000_000] * 4, "f8": ""}
    assert judge.decode(huge).error == "malformed data"
    import queue
    import threading

    r, w = os.pipe()

    def forge() -> None:  # more than a pipe holds: written while it is read
        with os.fdopen(w, "wb") as pipe:
            pipe.write(b"[" * 200_000 + b"\n")

    writer = threading.Thread(target=forge)
    writer.start()
    events: queue.Queue = queue.Queue()
    sandbox._read_events(r, events)
    writer.join()
    assert events.get_nowait() == {"event": "?"}  # refused, and the reader went on
    assert events.get_nowait() == {"event": "_eof"}


# --- 6. the basic level says what it is, and refuses unaudited signals ------------

KILL_PARENT = """import os, signal

def f(X):
    fd = os.pidfd_open(os.getppid())
    signal.pidfd_send_signal(fd, signal.SIGKILL)
    return X[:, 0]
"""


def test_the_basic_level_warns_and_survives_pidfd_signals(tmp_path):
    sub = tmp_path / "killer.py"
    sub.write_text(HONEST.replace("def f(X):", "def f_honest(X):") + KILL_PARENT)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "alice_course.cli", "grade", str(sub), "--lab", "lab02"]
        + ["--out", str(out), "--basic-isolation", "--timeout", "60"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "not at its full level" in done.stderr
    assert "signal other processes" in done.stderr
    data = json.loads((out / "results.json").read_text())
    f_test = next(t for t in data["tests"] if t["extra_data"]["check"] == "lab02.1")
    assert "does not allow" in f_test["output"]
    assert data["score"] == HONEST_POINTS - 2


# --- 7. a missing file is the instructor's error ----------------------------------


def test_grading_a_missing_file_is_an_error(tmp_path, capsys):
    status = cli.main(
        ["grade", str(tmp_path / "nowhere.py"), "--out", str(tmp_path / "o")]
    )
    assert status == 1
    assert "no submission at" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    g = grade(tmp_path / "nowhere.py", lab="lab02", limits=LIMITS)
    assert g.status == "malformed" and "could not be read" in g.message


# --- 1. (part) handing the exercise back to alice_lab's own code -----------------

DELEGATES = """import numpy as np
from alice_course import grading
from alice_lab.testfuncs import alice2d_grad as borrowed
from alice_lab.optim import gradient_descent as library_descent


def f(X):
    return grading.CHECKS["lab02.1"].reference()(X)


def grad_f(X):
    return borrowed(X)


def gradient_descent(grad_fn, X0, lr, steps):
    return library_descent(grad_fn, X0, lr=lr, steps=steps).path
"""


def test_calling_alice_labs_own_answer_does_not_score(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "delegates.py").write_text(DELEGATES)
    (submissions / "honest.py").write_text(HONEST)
    results = _by_student(submissions, tmp_path / "out")
    assert results["honest"].score == HONEST_POINTS
    checks = {c.id: c for c in results["delegates"].checks}
    assert checks["lab02.1"].status == "error"  # the reference is withheld
    assert "not available while grading" in checks["lab02.1"].message
    for check_id, used in (
        ("lab02.2", "alice2d_grad"),
        ("lab02.3", "gradient_descent"),
    ):
        assert checks[check_id].status == "failed", checks[check_id].message
        assert used in checks[check_id].message
    assert results["delegates"].score == 0


MIRROR = """import gc
import sys

import numpy as np


def _found(shape):
    \"\"\"An expected value of this shape from the stack (calling the check's
    zero-argument functions there) or from anywhere in the process.\"\"\"
    frame = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            seen = [value]
            code = getattr(value, "__code__", None)
            if code is not None and code.co_argcount == 0 and not code.co_flags & 4:
                try:
                    seen.append(value())
                except Exception:
                    pass
            for v in seen:
                if isinstance(v, np.ndarray) and v.shape == shape:
                    return v
        frame = frame.f_back
    for v in gc.get_objects():
        if isinstance(v, np.ndarray) and v.shape == shape:
            return v
    return np.zeros(shape)


class Mirror:
    def __init__(self, shape):
        self.shape = shape

    def __array__(self, dtype=None, copy=None):
        return _found(self.shape)


def f(X):
    return Mirror((len(X),))


def grad_f(X):
    return _found((len(X), 2))
"""


def test_answers_that_look_for_the_expected_value_find_none(tmp_path):
    """The worker never computes an expected value: an answer that searches the
    stack (and calls the check's lazy expected values it meets there) or the whole
    heap for one scores nothing, and the honest neighbour keeps its points."""
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "mirror.py").write_text(MIRROR)
    (submissions / "honest.py").write_text(HONEST)
    results = _by_student(submissions, tmp_path / "out")
    assert results["honest"].score == HONEST_POINTS
    checks = {c.id: c for c in results["mirror"].checks}
    for check_id in ("lab02.1", "lab02.2"):
        assert checks[check_id].status == "failed", checks[check_id].message
    assert results["mirror"].score == 0
    _class_files_intact(tmp_path / "out", 2)


# --- 2. hidden checks do not leak through messages -------------------------------

LEAK = """import gc


def f(X):
    found = [
        o.get("__doc__") for o in gc.get_objects()
        if isinstance(o, dict) and "alice_lab_hidden" in str(o.get("__name__"))
    ]
    raise RuntimeError(f"leaked: {found}")
"""


def test_the_worker_receives_hidden_checks_as_bytecode_only(tmp_path):
    """What a worker gets of a hidden checks file: bytecode without docstrings and the
    modules it imports, never the file's text; and it still grades."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "lab02_hidden.py").write_text(HIDDEN_CHECK)
    with hidden_checks(hidden) as extra:
        shipped = json.dumps(extra.shipped)
        assert SECRET in HIDDEN_CHECK and SECRET not in shipped
        assert "far outside the square" not in shipped  # the check's docstring
        assert "def check_f_far_away" not in shipped and "import numpy" not in shipped
        assert extra.shipped[0]["imports"] == [
            "alice_course.grading",
            "alice_lab.testfuncs",
            "numpy",
        ]
        out = grade(CORPUS / "correct.py", lab="lab02", limits=LIMITS, hidden=extra)
    assert {c.id: c.status for c in out.checks}["lab02.h1"] == "passed"


def test_hidden_checks_never_reach_a_message(tmp_path):
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "lab02_hidden.py").write_text(HIDDEN_CHECK)
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "leak.py").write_text(LEAK)
    (submissions / "honest.py").write_text(HONEST)
    out = tmp_path / "out"
    with hidden_checks(hidden) as extra:
        results = _by_student(submissions, out, hidden=extra)
    assert results["honest"].score == HONEST_POINTS + 1  # the hidden check too
    leak = {c.id: c for c in results["leak"].checks}
    assert leak["lab02.1"].message.startswith(
        "your code raised RuntimeError: leaked: []"
    )
    assert leak["lab02.h1"].status == "error"
    for path in out.rglob("*"):
        if path.is_file() and path.name != "log.txt":  # log.txt: the instructor's
            assert SECRET not in path.read_text(encoding="utf-8"), path
