"""Grading submissions: ``alice-lab grade`` and ``alice-lab grade-batch``.

:func:`grade` reads one submission (:mod:`.submission`), extracts the definitions its
lab grades, runs the checks in the sandboxed worker (:mod:`.sandbox`), and judges the
answers in this process against the reference solution (:mod:`.judge`). It never
raises for anything a student did: a crash, a hang, a memory hog or a broken file
becomes a :class:`Graded` with a status and messages a student can act on. When a check
has to be killed, the next checks run in a fresh worker, so one infinite loop costs
one exercise, not the lab. :func:`grade_batch` grades a folder of submissions and writes
every report (:mod:`.reports`) as it goes.

Instructor-only checks live outside the public repository: :func:`hidden_checks` loads
every ``*.py`` in a directory (files that call :func:`alice_course.grading.register`),
here and, as bytecode without their text or docstrings, in a worker of their own that
runs after the public checks, so no worker reads that directory (hidden from it where
a mount namespace is available) or holds their sources, the public checks' worker holds
nothing of them, and what the student's code says while they run never reaches a
report.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import marshal
import os
import re
import threading
import time
import traceback
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from alice_course import grading
from alice_course.grading import judge
from alice_course.grading.intake import take_in
from alice_course.grading.outbox import Outbox, open_outbox, safe_text
from alice_course.grading.sandbox import Attempt, Layers, Limits, level, run_worker
from alice_course.grading.submission import extract

__all__ = [
    "Graded",
    "GradedCheck",
    "HiddenChecks",
    "discover",
    "grade",
    "grade_batch",
    "hidden_checks",
    "lab_checks",
]

SUFFIXES = (".ipynb", ".py")
_BAD = ("memory", "timeout", "crashed", "disk")  # worst first


@dataclass
class GradedCheck:
    """The verdict on one check for one submission."""

    id: str
    exercise: str
    name: str
    status: str
    points: int
    max_points: int
    message: str
    hidden: bool = False
    verified: bool = True
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass
class Graded:
    """One graded submission. ``status`` is ``ok`` (every check ran to a verdict),
    ``timeout``, ``memory``, ``crashed``, ``disk``, ``empty``, ``malformed``,
    ``no-lab`` or ``grader-error``; ``message`` is the summary for the student,
    ``log`` the details for the instructor."""

    student: str
    submission: str
    lab: str | None
    status: str
    message: str
    checks: list[GradedCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    isolation: dict = field(default_factory=dict)
    seconds: float = 0.0
    log: str = ""

    @property
    def score(self) -> int:
        return sum(c.points for c in self.checks)

    @property
    def max_score(self) -> int:
        return sum(c.max_points for c in self.checks)

    @property
    def level(self) -> tuple[int, str]:
        return level(self.isolation) if self.isolation else (0, "not started")


# --- checks and labs ----------------------------------------------------------------


def _natural(check_id: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", check_id))


def lab_checks(lab: str) -> list[str]:
    """The ids of ``lab``'s checks (``"lab02"`` -> ``lab02.1``, ..., ``lab02.10``)."""
    return sorted((i for i in grading.CHECKS if i.split(".")[0] == lab), key=_natural)


@dataclass
class HiddenChecks:
    """Instructor-only checks loaded from a directory: their ids, and each file as
    the worker receives it (bytecode, no text: :func:`_shipped`)."""

    directory: Path
    ids: list[str]
    shipped: list[dict]


@contextlib.contextmanager
def hidden_checks(directory: Path | None) -> Iterator[HiddenChecks | None]:
    """Register the checks of every ``*.py`` in ``directory`` while the block runs."""
    if directory is None:
        yield None
        return
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"no directory of hidden checks at {directory}")
    before = set(grading.CHECKS)
    shipped = []
    try:
        for path in sorted(directory.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            module = types.ModuleType(f"alice_lab_hidden.{path.stem}")
            module.__file__ = str(path)
            try:
                exec(compile(text, str(path), "exec"), module.__dict__)
            except Exception as err:
                raise ValueError(
                    f"the hidden checks in {path} do not load: "
                    f"{type(err).__name__}: {err}"
                ) from err
            shipped.append(_shipped(path.stem, text))
        yield HiddenChecks(directory, sorted(set(grading.CHECKS) - before), shipped)
    finally:
        for check_id in set(grading.CHECKS) - before:
            del grading.CHECKS[check_id]
            _REFERENCES.pop(check_id, None)


def _shipped(name: str, text: str) -> dict:
    """A hidden checks file as the worker receives it: its bytecode without
    docstrings (``marshal``, base64), never its text, and the modules it imports (the
    worker imports them before the clock starts)."""
    tree = ast.parse(text)
    imports: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imports.add(node.module)
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.copy_location(ast.Pass(), body[0])  # the docstring goes
    code = compile(tree, f"<hidden {name}>", "exec")
    return {
        "name": name,
        "code": base64.b64encode(marshal.dumps(code)).decode("ascii"),
        "imports": sorted(imports),
    }


_REFERENCES: dict[str, tuple[object, judge.Record]] = {}
_REFERENCE_LOCK = threading.Lock()


def _reference(check_id: str) -> judge.Record:
    """The check run here on its reference solution (cached; one at a time)."""
    check = grading.CHECKS[check_id]
    with _REFERENCE_LOCK:
        cached = _REFERENCES.get(check_id)
        if cached is None or cached[0] is not check:
            rec = judge.record(check_id, check.reference(), side="reference")
            _REFERENCES[check_id] = cached = (check, rec)
        return cached[1]


def lab_names() -> dict[str, list[str]]:
    """Each lab's graded names (``{"lab02": ["f", "grad_f", ...], ...}``)."""
    labs: dict[str, set[str]] = {}
    for check_id, check in grading.CHECKS.items():
        labs.setdefault(check_id.split(".")[0], set()).add(check.name)
    return {lab: sorted(names) for lab, names in labs.items()}


def infer_lab(sub, path: Path, labs: dict[str, list[str]] | None = None) -> str | None:
    """The lab a submission belongs to: from the notebook's metadata, its file or
    folder name (``lab02...``), or the lab whose names it defines most (``labs`` maps
    each lab to its graded names; default: the registered checks)."""
    labs = lab_names() if labs is None else labs
    for text in (sub.assignment or "", path.name, path.parent.name):
        m = re.match(r"(lab\d+)", text)
        if m and m.group(1) in labs:
            return m.group(1)
    scores = {lab: len(extract(sub, names).found) for lab, names in labs.items()}
    best = max(scores.values(), default=0)
    winners = [lab for lab, n in scores.items() if n == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


# --- grading one submission ---------------------------------------------------------


def _killed(ended: str, limits: Limits, returncode: int | None) -> tuple[str, str]:
    """Status and message for the check that was running when the worker stopped."""
    if ended == "check-timeout":
        return "timeout", (
            f"stopped after {limits.check_timeout:g} s, the time limit for one "
            "exercise: look for an infinite loop or a slow Python loop"
        )
    if ended == "timeout":
        return "timeout", (
            f"grading stopped at the submission's time limit ({limits.timeout:g} s) "
            "while this exercise ran"
        )
    if ended == "memory":
        return "memory", (
            f"stopped: the grading process used more than {limits.memory_mb} MB of "
            "memory while this exercise ran; look for a huge array, e.g. an (n, n) "
            "matrix where an (n,) vector was meant"
        )
    if ended == "disk":
        return "disk", f"stopped: it wrote more than {limits.disk_mb} MB of files"
    if ended == "protocol":
        return "crashed", (
            "the grading process sent unreadable output while this exercise ran; "
            "does your code write to file descriptors it did not open?"
        )
    return "crashed", (
        f"the grading process died while this exercise ran (exit status "
        f"{returncode}); does your code call os._exit() or crash Python?"
    )


def _worker_verdict(raw: dict, limits: Limits) -> judge.Record:
    status = raw.get("status")
    known = ("passed", "failed", "not attempted", "error", "timeout")
    status = status if status in known else "error"
    message = str(raw.get("message", ""))
    if status == "timeout":
        message = (
            f"stopped after {limits.check_timeout:g} s, the time limit for one "
            "exercise: look for an infinite loop or a slow Python loop"
        )
    steps = raw.get("steps") if isinstance(raw.get("steps"), list) else []
    return judge.Record(
        str(raw.get("id")), status, message, [judge.decode(s) for s in steps]
    )


def _run_checks(
    job: dict, ids: list[str], limits, layers, deadline, private, log: list[str]
) -> tuple[dict[str, judge.Record], list[Attempt], dict[str, float]]:
    """Run the checks, a fresh worker after each kill, until all have a verdict."""
    verdicts: dict[str, judge.Record] = {}
    attempts: list[Attempt] = []
    times: dict[str, float] = {}
    remaining = list(ids)
    while remaining:
        if time.monotonic() >= deadline:
            message = (
                f"not graded: the submission reached its time limit "
                f"({limits.timeout:g} s) before this exercise"
            )
            verdicts |= {i: judge.Record(i, "not run", message) for i in remaining}
            break
        attempt = run_worker(
            dict(job, checks=remaining),
            limits=limits,
            layers=layers,
            deadline=deadline,
            private=private,
        )
        attempts.append(attempt)
        log.append(
            f"worker: ended={attempt.ended} returncode={attempt.returncode} "
            f"seconds={attempt.seconds:.2f} results={len(attempt.results)}"
        )
        for i, raw in attempt.results.items():
            verdicts[i] = _worker_verdict(raw, limits)
            seconds = raw.get("seconds")
            if isinstance(seconds, int | float) and 0 <= seconds <= limits.timeout:
                times[i] = float(seconds)
        remaining = [i for i in remaining if i not in verdicts]
        if not remaining or attempt.ended == "done":
            verdicts |= {
                i: judge.Record(i, "error", "the check did not report")
                for i in remaining
            }
            break
        status, message = _killed(attempt.ended, limits, attempt.returncode)
        if attempt.ended == "timeout":  # the submission's own deadline: stop here
            if attempt.running in remaining:
                verdicts[attempt.running] = judge.Record(
                    attempt.running, status, message
                )
            elif attempt.loaded is None and not verdicts:
                where = "while loading your definitions, before any exercise ran"
                message = message.replace("while this exercise ran", where)
                verdicts |= {i: judge.Record(i, status, message) for i in remaining}
            remaining = [i for i in remaining if i not in verdicts]
            continue  # the deadline has passed: the loop marks the rest "not run"
        if attempt.loaded is None:  # died before any exercise ran: nothing to retry
            where = "while loading your definitions, before any exercise ran"
            message = message.replace("while this exercise ran", where)
            verdicts |= {i: judge.Record(i, status, message) for i in remaining}
            break
        if attempt.running in remaining:
            verdicts[attempt.running] = judge.Record(attempt.running, status, message)
        elif not attempt.results:  # no progress: do not start the same worker again
            verdicts |= {i: judge.Record(i, status, message) for i in remaining}
        remaining = [i for i in remaining if i not in verdicts]
    return verdicts, attempts, times


def grade(
    path: Path,
    *,
    lab: str | None = None,
    limits: Limits | None = None,
    layers: Layers | None = None,
    hidden: HiddenChecks | None = None,
    private: tuple = (),
    student: str | None = None,
) -> Graded:
    """Grade the submission at ``path``; never raises for what the submission does.

    ``private`` lists directories to hide from the worker (other submissions, the
    output folder, the hidden checks); ``student`` names the result (default: the
    file's stem).
    """
    path = Path(path)
    limits, layers = limits or Limits(), layers or Layers()
    intake = take_in(
        path,
        lab_names(),
        lab=lab,
        seconds=limits.parse_timeout,
        memory_mb=max(limits.memory_mb, 1024),
    )
    lab = intake.lab
    ids = lab_checks(lab) if lab else []
    for i in ids:
        _reference(i)  # computed once, here, before the submission's clock starts
    t0 = time.monotonic()
    name = student or path.stem
    out = Graded(name, str(path), lab, "ok", "", notes=list(intake.notes))
    if not ids:
        out.status = intake.status or "no-lab"
        out.message = intake.problem or (
            "the grader could not tell which lab this submission is for; ask your "
            "instructor (they can pass --lab)"
        )
        return _cleaned(out)
    log = [f"submission: {path}", f"lab: {lab}; checks: {', '.join(ids)}"]
    hidden_ids = set(hidden.ids) if hidden else set()
    times: dict[str, float] = {}
    if intake.problem:
        verdicts = {i: judge.Record(i, "not attempted", intake.problem) for i in ids}
        out.status = intake.status or "malformed"
    else:
        names = sorted({grading.CHECKS[i].name for i in ids})
        log.append("graded definitions: " + repr(intake.found))
        job = {
            "program": intake.program,
            "names": names,
            "defined": sorted(intake.found),
            "hidden": [],
        }
        deadline = t0 + limits.timeout
        public = [i for i in ids if i not in hidden_ids]
        verdicts, attempts, times = _run_checks(
            job, public, limits, layers, deadline, private, log
        )
        secret = [i for i in ids if i in hidden_ids]
        if secret:  # their bytecode goes only to a worker of their own, afterwards
            job["hidden"] = hidden.shipped
            more = _run_checks(job, secret, limits, layers, deadline, private, log)
            verdicts |= more[0]
            attempts += more[1]
            times |= more[2]
        _absorb(out, attempts, log)
    out.checks = [_graded(i, verdicts[i], times, hidden_ids) for i in ids]
    bad = [s for s in _BAD if any(c.status == s for c in out.checks)]
    if out.status == "ok" and bad:
        out.status = bad[0]
    out.seconds = time.monotonic() - t0
    out.message = _summary(out)
    out.log = "\n".join(log)
    return _cleaned(out)


def _cleaned(g: Graded) -> Graded:
    """``g`` with every text made safe to write as UTF-8 (file names that are not
    UTF-8 and exception messages can hold lone surrogates)."""
    for key in ("student", "submission", "message", "log"):
        setattr(g, key, safe_text(getattr(g, key)))
    g.notes = [safe_text(n) for n in g.notes]
    for c in g.checks:
        c.message = safe_text(c.message)
    return g


def _absorb(out: Graded, attempts: list[Attempt], log: list[str]) -> None:
    """What the workers reported besides verdicts: the isolation obtained (from the
    first ``ready``), the errors met while loading, and their output, for the log."""
    out.isolation = next((a.isolation for a in attempts if a.isolation), {})
    loaded = next((a.loaded for a in attempts if a.loaded), None)
    if loaded and isinstance(loaded.get("errors"), list):
        out.notes += [
            f"while loading your definitions, {str(e)[:400]}"
            for e in loaded["errors"][:20]
        ]
    for k, a in enumerate(attempts, start=1):
        log += [f"--- worker {k} stdout (head) ---", a.stdout[:4000]]
        log += [f"--- worker {k} stderr (head) ---", a.stderr[:4000]]


_HIDDEN_MESSAGES = {
    "failed": "your answer did not match on this instructor-only check",
    "error": "your code raised an error on this instructor-only check",
    "not attempted": "the function this check grades is not defined (or a stub)",
}


def _graded(
    check_id: str, record: judge.Record, times: dict, hidden_ids: set
) -> GradedCheck:
    """The verdict on one check, judged against the reference (a status other than
    passed or failed is kept unless an answer recorded before it was already wrong:
    it can only cost). An instructor-only check that did not pass gets a message
    written here: the one from its worker could quote what that worker held."""
    c = grading.CHECKS[check_id]
    verdict = judge.judge(record, _reference(check_id))
    if check_id in hidden_ids and verdict.status != "passed":
        # the worker that ran it held the hidden checks: no text of its is kept
        verdict = judge.Verdict(
            verdict.status,
            _HIDDEN_MESSAGES.get(
                verdict.status, f"{verdict.status} on an instructor-only check"
            ),
        )
    passed = verdict.status == "passed"
    return GradedCheck(
        check_id,
        c.exercise,
        c.name,
        verdict.status,
        c.points if passed else 0,
        c.points,
        verdict.message,
        hidden=check_id in hidden_ids,
        verified=verdict.verified,
        seconds=times.get(check_id, 0.0),
    )


def _summary(g: Graded) -> str:
    """What the student reads. Hidden checks are counted, not described: their
    messages wait in each test's entry, shown when grades are published."""
    lines = [f"{g.score}/{g.max_score} points on {g.lab} (grading status: {g.status})."]
    for c in g.checks:
        if not c.hidden:
            mark = "✓" if c.passed else "✗"
            lines.append(
                f"{mark} Exercise {c.exercise} ({c.points}/{c.max_points}): {c.message}"
            )
    hidden = [c for c in g.checks if c.hidden]
    if hidden:
        got, total = sum(c.points for c in hidden), sum(c.max_points for c in hidden)
        lines.append(
            f"Instructor checks: {got}/{total} points (details when grades are "
            "published)."
        )
    if g.notes:
        lines.append("Notes:")
        lines += [f"- {n}" for n in g.notes]
    return "\n".join(lines)


def safe_grade(path: Path, **kwargs) -> Graded:
    """:func:`grade`, but a bug in the grader itself also becomes a result."""
    try:
        return grade(path, **kwargs)
    except Exception:  # noqa: BLE001 - one submission must not stop a class
        student = kwargs.get("student") or Path(path).stem
        failed = Graded(
            student,
            str(path),
            kwargs.get("lab"),
            "grader-error",
            "the grader failed on this submission (an internal error, not your "
            "code's fault); tell your instructor",
            log=traceback.format_exc(),
        )
        return _cleaned(failed)


# --- a class ------------------------------------------------------------------------


#: names of the class files in ``--out``, which no student folder may take
CLASS_FILES = ("grades.csv", "junit.xml", "classroom.json")


def _submission_in(folder: Path) -> Path | None:
    """The notebook (else the ``.py`` file) in a student's folder, nearest the top;
    links are neither followed nor chosen."""
    files = []
    for root, dirs, names in os.walk(folder):  # does not enter linked folders
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            p = Path(root, name)
            if p.suffix.lower() in SUFFIXES and not p.is_symlink():
                files.append(p)
    files.sort(key=lambda p: (p.suffix.lower() != ".ipynb", len(p.parts), p.name))
    return files[0] if files else None


def discover(directory: Path) -> list[tuple[str, Path]]:
    """``(student, submission)`` pairs: each ``.ipynb``/``.py`` file in ``directory``,
    and each sub-folder (the submission is the notebook in it; a folder without one is
    returned as is and grades as empty). A link is returned as is and graded as
    unreadable, never followed. Student names are made of letters, digits, ``.``,
    ``_`` and ``-``, unique, and never the name of a class file."""
    found: list[tuple[str, Path]] = []
    taken = {n.lower() for n in CLASS_FILES}
    for entry in sorted(Path(directory).iterdir()):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_symlink():
            target = entry
        elif entry.is_file() and entry.suffix.lower() in SUFFIXES:
            target = entry
        elif entry.is_dir():
            target = _submission_in(entry) or entry
        else:
            target = None
        if target is None:
            continue
        stem = entry.stem if entry.suffix.lower() in SUFFIXES else entry.name
        base = re.sub(r"[^\w.-]+", "_", stem).strip(".") or "student"
        name, k = base, 1
        while name.lower() in taken:
            k += 1
            name = f"{base}-{k}"
        taken.add(name.lower())
        found.append((name, target))
    return found


def grade_batch(
    directory: Path,
    *,
    out: Path | Outbox,
    lab: str | None = None,
    limits: Limits | None = None,
    layers: Layers | None = None,
    hidden: HiddenChecks | None = None,
    jobs: int = 1,
    progress: Callable[[Graded], None] | None = None,
    overwrite: bool = False,
) -> list[Graded]:
    """Grade every submission in ``directory`` with ``jobs`` workers at a time, write
    ``out/<student>/results.json`` as each finishes, then the class reports.

    ``out`` is created before any worker starts (:func:`~.outbox.open_outbox`: an
    existing folder that is not empty is refused unless ``overwrite``)."""
    from alice_course.grading import reports

    box = out if isinstance(out, Outbox) else open_outbox(out, overwrite=overwrite)
    limits, layers = limits or Limits(), layers or Layers()
    private = tuple(p for p in (directory, box.path, hidden and hidden.directory) if p)
    results: list[Graded] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(
                safe_grade,
                path,
                lab=lab,
                limits=limits,
                layers=layers,
                hidden=hidden,
                private=private,
                student=student,
            )
            for student, path in discover(directory)
        ]
        for future in as_completed(futures):
            g = future.result()
            try:
                reports.write_submission(g, box.folder(g.student))
            except OSError as err:  # reported in the class files; the class goes on
                g.notes.append(safe_text(f"its report could not be written: {err}"))
            results.append(g)
            if progress:
                progress(g)
    results.sort(key=lambda g: g.student)
    reports.write_class(results, box)
    if box is not out:
        box.close()
    return results
