"""Reading a submission with limits: the grader's own parsing, in a child process.

A submission is hostile input for the grader too: a notebook nested 100 000 levels deep,
a cell holding ``1+1+...`` with 20 000 terms, or a 300 000-character line can make a
parser recurse, crash or run for minutes. So the grader reads the file itself (never
following a link, a regular file only, at most ``MAX_BYTES``) and hands the bytes to
``python -I -m alice_course.grading.intake``, which sets its own CPU and memory limits
before it reads a byte of them, then parses them, tells which lab they are for and
extracts the statements to grade (:mod:`.submission`); the grader adds a wall-clock
limit. Whatever happens there, :func:`take_in` returns an :class:`Intake`:
a submission that breaks a limit gets a ``problem`` saying so, and the batch goes on.
"""

from __future__ import annotations

import base64
import json
import math
import os
import resource
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from alice_course.grading.outbox import safe_text

__all__ = ["Intake", "read_submission_bytes", "take_in"]

#: submissions larger than this are refused (a notebook with huge outputs is ~MBs)
MAX_BYTES = 50 * 1024 * 1024


_ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",  # NumPy is imported: no thread buffers per core
    "MKL_NUM_THREADS": "1",
}


@dataclass
class Intake:
    """What the grader needs from a submission: its lab, the statements the worker
    runs (``program``: JSON dicts), the graded names found and where, notes for the
    student, and ``problem`` when it cannot be graded at all."""

    lab: str | None
    program: list[dict] = field(default_factory=list)
    found: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    status: str | None = None  # "empty" or "malformed" with a problem


def read_submission_bytes(path: Path, max_bytes: int = MAX_BYTES) -> bytes | str:
    """The file's bytes, or a sentence saying why they cannot be read. A symbolic link
    is not followed (the grader runs as root: a link could point anywhere), nor is
    anything but a regular file opened (a FIFO would block)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if os.path.islink(path):
            return "the submission is a symbolic link, which the grader does not follow"
        return f"the file could not be read ({err.strerror or err})"
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return "the submission is not a regular file"
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > max_bytes:
            return (
                f"the file is {st.st_size / 2**20:.0f} MB, more than the "
                f"{max_bytes / 2**20:.0f} MB limit; clear the notebook's outputs "
                "(Edit > Clear All Outputs) and submit again"
            )
        return fh.read(max_bytes + 1)[:max_bytes]


def take_in(
    path: Path,
    labs: dict[str, list[str]],
    *,
    lab: str | None = None,
    seconds: float = 60.0,
    memory_mb: int = 2048,
) -> Intake:
    """Read ``path`` and, in a child process limited to ``seconds`` and ``memory_mb``,
    parse it, infer its lab (unless ``lab`` is given; ``labs`` maps each lab to the
    names it grades) and extract what the worker runs."""
    if Path(path).is_dir() and not Path(path).is_symlink():
        empty = "the submission's folder holds no notebook (.ipynb) or .py file"
        return Intake(lab, problem=empty, status="empty")
    data = read_submission_bytes(path)
    if isinstance(data, str):
        return Intake(lab, problem=data, status="malformed")
    request = {
        "name": safe_text(Path(path).name),
        "parent": safe_text(Path(path).parent.name),
        "data": base64.b64encode(data).decode("ascii"),
        "labs": labs,
        "lab": lab,
    }
    command = [sys.executable, "-I", "-m", "alice_course.grading.intake"]
    try:
        done = subprocess.run(
            [*command, str(math.ceil(seconds)), str(int(memory_mb))],
            input=json.dumps(request).encode(),
            capture_output=True,
            timeout=seconds + 5,
            env=_ENVIRONMENT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _refused(lab, f"reading it took longer than {seconds:g} s")
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = None
    if done.returncode != 0 or not isinstance(out, dict):
        why = "reading it needed more memory or time than the grader allows"
        if b"MemoryError" not in done.stderr and done.returncode not in (-9, -24):
            why = f"the grader's reader stopped on it (exit status {done.returncode})"
        return _refused(lab, why)
    return Intake(**out)


def _refused(lab: str | None, why: str) -> Intake:
    return Intake(
        lab,
        problem=(
            f"the submission could not be read: {why}. Submit a notebook saved by "
            "Jupyter, without generated or very long lines of code"
        ),
        status="malformed",
    )


def _limit_myself(seconds: int, memory_mb: int) -> None:
    """The child's limits, set before it reads the submission (the package's own
    imports, NumPy among them, have already run)."""
    cpu = max(1, seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# --- the child --------------------------------------------------------------------


def _child(request: dict) -> dict:
    from alice_course.grading.grader import infer_lab
    from alice_course.grading.submission import extract, load_bytes

    path = Path(request["parent"] or ".", request["name"])
    sub = load_bytes(base64.b64decode(request["data"]), path)
    lab = request["lab"] or infer_lab(sub, path, labs=request["labs"])
    out = {"lab": lab, "notes": list(sub.notes)}
    if sub.problem:
        status = "empty" if "empty" in sub.problem else "malformed"
        return out | {"problem": sub.problem, "status": status}
    if lab is None or lab not in request["labs"]:
        return out
    program = extract(sub, sorted(set(request["labs"][lab])))
    return out | {
        "program": [s.to_json() for s in program.statements],
        "found": program.found,
        "notes": out["notes"] + program.notes,
    }


def main() -> None:
    _limit_myself(int(sys.argv[1]), int(sys.argv[2]))
    request = json.loads(sys.stdin.buffer.read())
    try:
        result = _child(request)
    except RecursionError:
        result = _refused(
            request["lab"], "it is nested too deeply for the grader's reader"
        ).__dict__
    sys.stdout.write(json.dumps(result))


if __name__ == "__main__":
    main()
