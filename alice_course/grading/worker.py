"""The grading worker: the one process that runs a student's code.

:mod:`alice_course.grading.sandbox` starts it as ``python -I -m
alice_course.grading.worker`` (inside ``unshare`` when the system allows) and writes a
JSON *job* on its standard input: the statements to run
(:mod:`alice_course.grading.submission`), the checks, the hidden checks' bytecode, the
limits, and which isolation layers to set up. The worker

1. imports NumPy and :mod:`alice_course.grading` while it is still trusted;
2. sets itself up (:mod:`alice_course.grading.isolation`): cgroups, loopback in its
   network namespace, private directories hidden, tmpfs with size limits, rlimits,
   ``nobody`` with ``no_new_privs``, and an audit hook;
3. loads the hidden checks, sets up the watch for calls of ``alice_lab``'s own answers
   (:mod:`alice_course.grading.delegation`, which then withholds every check's reference
   solution and mutants), and runs the student's statements, each under an alarm (their
   text goes into ``linecache``, as IPython does, so ``inspect.getsource`` works on
   their functions);
4. imports what the checks import (torch, JAX), so that each check's clock measures the
   student's code rather than a framework's import;
5. runs each check through :func:`alice_course.grading.judge.record`, under the
   per-check alarm, and sends the recorded answers as plain arrays.

Messages are JSON lines on a pipe (``job["fd"]``): ``ready`` (with the isolation
obtained, sent before any student code runs), ``loaded``, then ``start`` and ``result``
per check, then ``done``. Student code shares this process, so it can write to that pipe
too; the grader therefore trusts only the ``ready`` message, reads the rest as claims,
and judges every answer itself. The worker leaves with ``os._exit``, so no ``atexit``
handler or thread of the student's runs after it.
"""

from __future__ import annotations

import ast
import base64
import builtins
import json
import marshal
import os
import signal
import sys
import time
import types

from alice_course.grading.isolation import set_up

MAX_JOB = 64 * 1024 * 1024
_MAIN_PID = os.getpid()


class Timeout(BaseException):  # noqa: N818 - BaseException: `except Exception` can't eat it
    """Raised by the alarm when a statement or a check runs past its time limit."""


def _alarm(signum, frame):
    raise Timeout


class Channel:
    """JSON lines to the grader on a pipe."""

    def __init__(self, fd: int):
        self.fd = fd

    def send(self, **message) -> None:
        data = (json.dumps(message, ensure_ascii=True) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


def _leave_if_forked() -> None:
    """A copy made by ``fork`` in student code must not report anything."""
    if os.getpid() != _MAIN_PID:
        os._exit(0)


# --- running the student's statements and the checks ----------------------------------


def _limit(statement: dict, limits: dict) -> float:
    """Imports may take long (torch, JAX); any other statement gets a check's limit."""
    tree = ast.parse(statement["source"])
    imports = all(isinstance(n, ast.Import | ast.ImportFrom) for n in tree.body)
    return float(limits["load_timeout" if imports else "check_timeout"])


def _exec(statement: dict, ns: dict, seconds: float) -> BaseException | None:
    tree = ast.parse(statement["source"])
    ast.increment_lineno(tree, statement["line"] - 1)
    code = compile(tree, f"<{statement['filename']}>", "exec")
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        exec(code, ns)
    except BaseException as err:  # noqa: BLE001 - a student's statement may do anything
        return err
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _leave_if_forked()
    return None


def _describe(err: BaseException, seconds: float) -> str:
    if isinstance(err, Timeout):
        return f"took longer than {seconds:g} s and was stopped"
    if isinstance(err, SystemExit):
        return "called exit() or sys.exit(), which the grader ignores"
    text = str(err).splitlines()[0][:300] if str(err) else ""
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _where(tb, files: set[str]) -> str:
    """The last frame of the traceback that is in the submission."""
    found = ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name in files:
            found = f" ({name[1:-1]}, line {tb.tb_lineno})"
        tb = tb.tb_next
    return found


def _register_sources(program: list[dict]) -> None:
    """Put each cell's statements in ``linecache`` at their lines, as IPython does, so
    that ``inspect.getsource`` works on the student's functions (checks that run them
    in other processes send them by source)."""
    import linecache

    files: dict[str, list[str]] = {}
    for statement in program:
        lines = files.setdefault(f"<{statement['filename']}>", [])
        body = statement["source"].splitlines()
        start = statement["line"] - 1
        lines.extend([""] * (start + len(body) - len(lines)))
        lines[start : start + len(body)] = body
    for name, lines in files.items():
        text = [line + "\n" for line in lines]
        linecache.cache[name] = (sum(map(len, text)), None, text, name)


def _load(program: list[dict], limits: dict) -> tuple[dict, list[str]]:
    """Run the statements; one that fails with NameError is retried at the end, when
    the definitions that come later in the notebook exist."""
    _register_sources(program)
    ns: dict = {
        "__name__": "__main__",
        "__builtins__": builtins,
        "display": lambda *args, **kwargs: None,
        "get_ipython": lambda: None,
    }
    errors, retry = [], []
    for again in (False, True):
        for statement in retry if again else program:
            seconds = _limit(statement, limits)
            err = _exec(statement, ns, seconds)
            if isinstance(err, NameError) and not again:
                retry.append(statement)
            elif err is not None:
                where = f"{statement['filename']}, line {statement['line']}"
                errors.append(f"{where}: {_describe(err, seconds)}")
    return ns, errors


def _imports(nodes) -> set[str]:
    out: set[str] = set()
    for node in (n for top in nodes for n in ast.walk(top)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def _warm(
    check_ids: list[str], ns: dict, hidden: dict[str, list[str]], seconds: float
) -> None:
    """Import what each check imports (torch, JAX, ...) before its clock starts, so
    that its time limit measures the student's code rather than a framework's import:
    the check module's top-level imports and those inside the check function (for a
    hidden checks file, whose text the worker never has, every import the grader
    listed). Only for checks whose function the submission defines (the others do not
    run)."""
    import importlib
    import inspect

    from alice_course import grading

    trees: dict[str, ast.Module | None] = {}
    modules: set[str] = set()
    for check_id in check_ids:
        check = grading.CHECKS.get(check_id)
        if check is None or check.name not in ns:
            continue
        module = check.fn.__module__
        if module in hidden:
            modules |= set(hidden[module])
            continue
        if module not in trees:
            try:
                source = inspect.getsource(sys.modules[module])
                trees[module] = ast.parse(source)
            except (OSError, TypeError, KeyError, SyntaxError, ValueError):
                trees[module] = None
        tree = trees[module]
        if tree is None:
            continue
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        own = [
            n
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == check.fn.__name__
        ]
        modules |= _imports(top + own)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        for name in sorted(modules):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the check will report it
                pass
    except Timeout:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _run_check(check_id: str, ns: dict, seconds: float, files: set[str]) -> dict:
    from alice_course import grading
    from alice_course.grading import delegation, judge

    if check_id not in grading.CHECKS:
        return {"status": "error", "message": "the check could not be loaded"}
    name = grading.CHECKS[check_id].name
    if name not in ns:
        return {
            "status": "not attempted",
            "message": f"no function named {name!r} is defined",
        }
    fn = ns[name]
    grading.LOCATOR.set(lambda tb: _where(tb, files))
    delegation.running(check_id)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        rec = judge.record(check_id, fn, side="student")
    except Timeout:
        return {"status": "timeout", "message": f"stopped after {seconds:g} s"}
    except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt, ...
        return {"status": "error", "message": f"your code {_describe(err, seconds)}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        delegation.running(None)
        _leave_if_forked()
    status, message = rec.status, rec.message
    if (used := delegation.delegated(check_id)) is not None:
        status, message = (
            "failed",
            (
                f"{name} calls {used}, alice_lab's own answer to this exercise; "
                "write it yourself (the lab's text says what you may use)"
            ),
        )
    return {
        "status": status,
        "message": message,
        "steps": [judge.encode(s) for s in rec.steps],
    }


def main() -> None:
    job = json.loads(sys.stdin.buffer.read(MAX_JOB))
    channel = Channel(job["fd"])
    import numpy  # noqa: F401 - imported while the process is still trusted

    from alice_course import grading
    from alice_course.grading import delegation, judge  # noqa: F401

    signal.signal(signal.SIGALRM, _alarm)
    facts: dict = {"process": "separate process in its own session"}
    set_up(job, facts)
    channel.send(event="ready", isolation=facts, pid=os.getpid())
    seconds = float(job["limits"]["check_timeout"])
    start = time.monotonic()
    for hidden in job.get("hidden", []):
        module = types.ModuleType(f"alice_lab_hidden.{hidden['name']}")
        try:  # bytecode from the grader (trusted), read before any student code runs
            code = marshal.loads(base64.b64decode(hidden["code"]))
            exec(code, module.__dict__)
        except BaseException:  # noqa: BLE001 - its checks then report an error
            pass
    files = {f"<{s['filename']}>" for s in job["program"]}
    defined = set(job.get("defined", job.get("names", [])))
    watched = [
        i
        for i in job["checks"]
        if getattr(grading.CHECKS.get(i), "name", None) in defined
    ]
    delegation.watch(grading.CHECKS, watched, files)  # before any student code
    ns, errors = _load(job["program"], job["limits"])
    hidden = {
        f"alice_lab_hidden.{h['name']}": h.get("imports", [])
        for h in job.get("hidden", [])
    }
    _warm(job["checks"], ns, hidden, float(job["limits"]["load_timeout"]))
    channel.send(
        event="loaded",
        defined=sorted(n for n in job.get("names", []) if n in ns),
        errors=errors[:50],
        seconds=time.monotonic() - start,
    )
    for check_id in job["checks"]:
        channel.send(event="start", id=check_id)
        t0 = time.monotonic()
        result = _run_check(check_id, ns, seconds, files)
        channel.send(
            event="result", id=check_id, seconds=time.monotonic() - t0, **result
        )
    channel.send(event="done")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # noqa: BLE001 - report, then leave without atexit handlers
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(70)
