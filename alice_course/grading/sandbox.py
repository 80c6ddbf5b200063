"""Running the grading worker in a sandbox, with limits, and reading what it says.

One call of :func:`run_worker` starts :mod:`alice_course.grading.worker` in a fresh
process and watches it. The layers, cheapest first (``research/grading.md``, part D):

- **process**: its own session, killed as a group (``SIGKILL``) at the submission's
  deadline or when a check overruns its own limit by more than two seconds;
- **namespaces** (``unshare --net --pid --mount``, as root or in a user namespace where
  allowed): no network but loopback, a PID namespace that dies with the worker, private
  directories (hidden checks, other submissions, the output folder) hidden behind empty
  mounts, and the writable places on size-limited tmpfs;
- **memory**: a **watchdog** in this process polls the resident memory of the worker's
  processes every 0.1 s and stops it above the limit (``RLIMIT_AS`` is not used: it
  breaks ``import torch`` and JAX); with **cgroups** (root, v1 or v2) the kernel also
  enforces a hard limit a quarter higher, and a process limit stops fork bombs;
- **user**: the worker drops to ``nobody`` (root only) with ``no_new_privs``;
- **rlimits, audit hook, environment**: set up by the worker; the environment is
  scrubbed to a short allow-list, with one thread per numerical library, ``HOME`` and
  ``TMPDIR`` in a scratch directory, no GPU.

Each layer that could not be had is skipped; the result says which were obtained
(:func:`level`). Nothing here imports the student's code or unpickles its output.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from alice_course.grading.cgroups import Cgroups

__all__ = ["Attempt", "Layers", "Limits", "level", "preflight", "run_worker"]

NOBODY = (65534, 65534)
#: user ids given to workers, one per running worker (their group is nogroup)
WORKER_UIDS = range(61_000, 61_512)
_UID_LOCK = threading.Lock()
_UIDS_IN_USE: set[int] = set()
_GRACE = 2.0  # seconds a check may overrun its alarm before the process is killed
_MAX_LINE = 64 * 1024 * 1024
_KEEP_OUTPUT = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """Limits for one submission. ``timeout`` bounds the whole submission (wall
    clock), ``check_timeout`` each check and each statement of the submission's that
    is not an import, ``load_timeout`` each import (torch or JAX can take seconds),
    ``parse_timeout`` the grader's own reading of the file (:mod:`.intake`)."""

    timeout: float = 300.0
    check_timeout: float = 30.0
    load_timeout: float = 60.0
    parse_timeout: float = 30.0
    memory_mb: int = 2048
    disk_mb: int = 256
    processes: int = 256


@dataclass(frozen=True)
class Layers:
    """Which optional layers to try (all by default; tests turn them off to exercise
    the fallbacks)."""

    namespaces: bool = True
    cgroups: bool = True
    drop_privileges: bool = True


@dataclass
class Attempt:
    """One run of the worker: what it reported and how it ended.

    ``ended`` is ``"done"`` (it finished), ``"timeout"`` (the submission's deadline),
    ``"check-timeout"`` (a check overran its limit), ``"memory"``, ``"disk"``,
    ``"crashed"`` (the process died) or ``"protocol"`` (it wrote garbage on the pipe).
    ``running`` is the check that had started and not finished when it ended.
    """

    isolation: dict = field(default_factory=dict)
    loaded: dict | None = None
    results: dict[str, dict] = field(default_factory=dict)
    running: str | None = None
    ended: str = "crashed"
    returncode: int | None = None
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""


# --- what this machine allows ---------------------------------------------------------


def _is_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def _unshare_prefix() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``unshare`` command line that works here, and the namespaces it gives."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return (), ()
    base = ("--net", "--pid", "--mount", "--fork", "--kill-child")
    kinds = ("net", "pid", "mount")
    user = () if _is_root() else ("--map-root-user",)  # AppArmor may forbid it
    tries = [
        ((unshare, *user, *base, "--mount-proc"), (*kinds, "proc")),
        ((unshare, *user, *base), kinds),
    ]
    if user:
        tries = [(p, ("user", *k)) for p, k in tries]
    for prefix, kinds in tries:
        try:
            done = subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=20, check=False
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix, kinds
    return (), ()


@contextlib.contextmanager
def _worker_uid(wanted: bool) -> Iterator[int | None]:
    """A user id of the worker's own while it runs (root only), so that a per-user
    limit (``RLIMIT_NPROC``) or a signal never reaches another worker: the first id
    of ``WORKER_UIDS`` that no running worker holds and no account on this machine
    owns."""
    if not wanted:
        yield None
        return
    with _UID_LOCK:
        uid = next(
            (u for u in WORKER_UIDS if u not in _UIDS_IN_USE and not _has_account(u)),
            None,
        )
        if uid is not None:
            _UIDS_IN_USE.add(uid)
    try:
        yield uid if uid is not None else NOBODY[0]
    finally:
        with _UID_LOCK:
            _UIDS_IN_USE.discard(uid)


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def preflight(layers: Layers = Layers(), limits: Limits = Limits()) -> list[str]:
    """What a submission could do on this machine that the full level prevents, one
    sentence per missing layer (empty at the full level): the grader prints these
    before it starts, so an instructor knows what the sandbox holds."""
    warnings = []
    if not (_is_root() and layers.drop_privileges):
        warnings.append(
            "not running as root (or --basic-isolation): the workers run as your own "
            "user, so a submission can read your files and signal other processes of "
            "yours, the grader included (it then stops without a report)"
        )
    prefix, kinds = _unshare_prefix() if layers.namespaces else ((), ())
    if "net" not in kinds:
        warnings.append(
            "no network namespace: only Python's audit hook refuses connections, "
            "and native code can get around it"
        )
    if "mount" not in kinds:
        warnings.append(
            "no mount namespace: a submission sees every file its user can read, "
            "other submissions included"
        )
    groups = Cgroups.create(limits) if layers.cgroups else None
    if groups is None:
        warnings.append(
            "no cgroups: memory is watched by polling and processes are not counted "
            "per worker"
        )
    else:
        groups.remove()
    return warnings


# --- watching the worker --------------------------------------------------------------


def _memory(groups: Cgroups | None, sid: int) -> int:
    """The worker's memory in bytes: the cgroup's anonymous memory once the worker has
    joined it, else the resident memory of every process in session ``sid``."""
    if groups is not None and groups.joined():
        anonymous = groups.anonymous()
        if anonymous is not None:
            return anonymous
    total, page = 0, os.sysconf("SC_PAGE_SIZE")
    try:
        names = os.listdir("/proc")
    except OSError:  # no /proc (macOS): nothing to watch with
        return 0
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = Path("/proc", name, "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[3]) == sid:  # fields[3] is the session id
                total += int(fields[21]) * page  # rss in pages
        except (OSError, ValueError, IndexError):
            continue
    return total


def _dir_size(path: str) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def _drain(stream, keep: list[bytes]) -> None:
    size = 0
    for chunk in iter(lambda: stream.read(65536), b""):
        if size < _KEEP_OUTPUT:
            keep.append(chunk[: _KEEP_OUTPUT - size])
        size += len(chunk)
    stream.close()


def _read_events(fd: int, events: queue.Queue) -> None:
    buffer = b""
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while True:
            chunk = pipe.read(1 << 20)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except (ValueError, RecursionError):  # garbage, or nested 100k deep
                    message = None
                events.put(message if isinstance(message, dict) else {"event": "?"})
            if len(buffer) > _MAX_LINE:
                events.put({"event": "?"})
                break
    events.put({"event": "_eof"})


def _environment(scratch: str) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's (tokens, CI ...)."""
    one = "1"
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": scratch,
        "TMPDIR": scratch,
        "MPLCONFIGDIR": scratch,
        "XDG_CACHE_HOME": scratch,
        "MPLBACKEND": "Agg",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": one,
        "OMP_NUM_THREADS": one,
        "OPENBLAS_NUM_THREADS": one,
        "MKL_NUM_THREADS": one,
        "NUMEXPR_NUM_THREADS": one,
        "VECLIB_MAXIMUM_THREADS": one,
        "XLA_FLAGS": (
            "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        ),
        "JAX_PLATFORMS": "cpu",
        "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "ALICE_GRADING": one,
    }


def _keep_visible() -> list[str]:
    """Paths the worker needs after it hides private directories."""
    import alice_lab

    return sorted(
        {
            sys.prefix,
            sys.base_prefix,
            str(Path(sys.executable).resolve().parent.parent),
            str(Path(alice_lab.__file__).resolve().parent.parent),
        }
    )


def _closed_ancestors(keep: list[str]) -> dict[str, list[str]]:
    """Directories that ``nobody`` cannot enter on the way to a path the worker needs
    (``/root`` when Python lives in ``/root/.pyenv``), each with the entries inside it
    that lead to those paths: the worker mounts an empty tmpfs over such a directory and
    binds those entries back, so that ``nobody`` reaches Python and nothing else."""
    out: dict[str, set[str]] = {}
    for path in keep:
        parts = Path(os.path.realpath(path)).parts
        for i in range(1, len(parts) - 1):
            ancestor = os.path.join(*parts[: i + 1])
            try:
                if not os.stat(ancestor).st_mode & 0o001:
                    out.setdefault(ancestor, set()).add(
                        os.path.join(ancestor, parts[i + 1])
                    )
                    break
            except OSError:
                break
    return {a: sorted(c) for a, c in out.items()}


def _maskable(paths, keep: list[str]) -> list[str]:
    """Directories that can be hidden without hiding what the worker needs."""
    out = []
    for p in paths:
        p = os.path.realpath(p)
        if not os.path.isdir(p) or p == "/":
            continue
        if any(k == p or k.startswith(p + os.sep) for k in map(os.path.realpath, keep)):
            continue
        out.append(p)
    return out


def run_worker(
    job: dict,
    *,
    limits: Limits,
    layers: Layers = Layers(),
    deadline: float,
    private: tuple = (),
) -> Attempt:
    """Run the worker on ``job`` (program, names, checks, hidden sources) until it
    finishes, breaks a limit, or ``deadline`` (a ``time.monotonic()`` value) passes.
    ``private`` lists directories the worker must not see (hidden checks, other
    submissions, outputs); they are hidden where a mount namespace is available."""
    want_uid = layers.drop_privileges and _is_root()
    with _worker_uid(want_uid) as uid:
        return _run_worker(job, limits, layers, deadline, private, uid)


def _run_worker(job, limits, layers, deadline, private, uid) -> Attempt:
    t0 = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="alice-grade-")
    prefix, kinds = _unshare_prefix() if layers.namespaces else ((), ())
    groups = Cgroups.create(limits) if layers.cgroups else None
    read_fd, write_fd = os.pipe()
    job = _full_job(job, uid, limits, kinds, groups, scratch, private, write_fd)
    attempt = Attempt()
    try:
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-I", "-m", "alice_course.grading.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_fd,),
            start_new_session=True,
            cwd=scratch,
            env=_environment(scratch),
        )
    except OSError as err:
        os.close(read_fd)
        os.close(write_fd)
        shutil.rmtree(scratch, ignore_errors=True)
        if groups:
            groups.remove()
        attempt.stderr = f"could not start the worker: {err}"
        return attempt
    os.close(write_fd)
    try:
        _watch(proc, read_fd, job, attempt, limits, groups, deadline, bool(kinds))
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        if groups:
            groups.kill_all()
        proc.wait()
        attempt.returncode = proc.returncode
        if groups:
            if attempt.ended in ("crashed", "protocol") and groups.oom_killed():
                attempt.ended = "memory"
            groups.remove()
        shutil.rmtree(scratch, ignore_errors=True)
        attempt.seconds = time.monotonic() - t0
    _fill_gaps(attempt.isolation, limits, job)
    return attempt


def _full_job(job, uid, limits, kinds, groups, scratch, private, fd) -> dict:
    """The job with everything the worker needs to set itself up: the pipe, the
    scratch directory, the limits, which namespaces it is in, what to hide and what to
    keep visible, whom to become (``uid``, or no one), which cgroups to join."""
    keep = _keep_visible()
    closed = _closed_ancestors(keep)
    drop = (uid, NOBODY[1]) if uid is not None else None
    if closed and "mount" not in kinds:
        drop = None  # nobody could not even import the standard library
    if drop:
        os.chown(scratch, *drop)
    processes_bounded = bool(groups and "processes" in groups.dirs) or bool(drop)
    return dict(
        job,
        fd=fd,
        scratch=scratch,
        limits=asdict(limits),
        namespaces=list(kinds),
        masks=_maskable(private, keep + [scratch]),
        keep=keep,
        reopen=closed if drop else {},
        drop_to=list(drop) if drop else None,
        cgroups=groups.procs() if groups else {},
        cgroup_facts=groups.facts(limits) if groups else {},
        contained="pid" in kinds and processes_bounded,
    )


def _fill_gaps(facts: dict, limits: Limits, job: dict) -> None:
    """Name the fallback for every layer the worker could not set up."""
    if not facts:
        return  # the worker never reported: nothing is known
    facts.setdefault(
        "memory",
        f"watchdog: the grader polls the worker's memory every 0.1 s and stops it "
        f"above {limits.memory_mb} MB",
    )
    facts.setdefault(
        "network", "no namespace: only the audit hook refuses outside connections"
    )
    facts.setdefault(
        "filesystem",
        f"no mount namespace: the worker sees what its user can read; files are "
        f"limited to {limits.disk_mb} MB each and the scratch directory is watched",
    )
    facts.setdefault("user", f"unchanged (uid {os.getuid()})")
    facts["environment"] = (
        f"scrubbed to {len(_environment(job['scratch']))} variables; one thread per "
        "library; HOME and TMPDIR in a scratch directory; no GPU"
    )


def _watch(proc, read_fd, job, attempt, limits, groups, deadline, private_fs) -> None:
    events: queue.Queue = queue.Queue()
    out: list[bytes] = []
    err: list[bytes] = []
    threads = [
        threading.Thread(target=_read_events, args=(read_fd, events), daemon=True),
        threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True),
        threading.Thread(target=_feed, args=(proc.stdin, job), daemon=True),
    ]
    for t in threads:
        t.start()
    check_deadline, first, eof = None, True, False
    next_memory = next_disk = 0.0
    try:
        while True:
            try:
                message = events.get(timeout=0.05)
            except queue.Empty:
                message = None
            if message is not None:
                kind = message.get("event")
                if (
                    first
                    and kind == "ready"
                    and isinstance(message.get("isolation"), dict)
                ):
                    attempt.isolation = dict(message["isolation"])
                first = False
                if kind == "_eof":
                    eof = True
                elif kind == "?":
                    attempt.ended = "protocol"
                    return
                elif kind == "loaded" and attempt.loaded is None:
                    attempt.loaded = message
                elif kind == "start" and message.get("id") in job["checks"]:
                    attempt.running = message["id"]
                    check_deadline = time.monotonic() + limits.check_timeout + _GRACE
                elif kind == "result" and message.get("id") == attempt.running:
                    attempt.results[attempt.running] = message
                    attempt.running, check_deadline = None, None
                elif kind == "done" and attempt.loaded is not None:
                    attempt.ended = "done"
                    return
            now = time.monotonic()
            if eof and events.empty():
                attempt.ended = "crashed"
                return
            if now >= deadline:
                attempt.ended = "timeout"
                return
            if check_deadline is not None and now >= check_deadline:
                attempt.ended = "check-timeout"
                return
            if now >= next_memory:
                next_memory = now + 0.1
                if _memory(groups, proc.pid) > limits.memory_mb << 20:
                    attempt.ended = "memory"
                    return
            if not private_fs and now >= next_disk:
                next_disk = now + 1.0
                if _dir_size(job["scratch"]) > limits.disk_mb << 20:
                    attempt.ended = "disk"
                    return
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        for t in threads[:3]:  # their writers are dead: the pipes are at EOF
            t.join(timeout=1)
        attempt.stdout = b"".join(out).decode("utf-8", "replace")
        attempt.stderr = b"".join(err).decode("utf-8", "replace")


def _feed(stdin, job: dict) -> None:
    try:
        stdin.write(json.dumps(job).encode())
    except (OSError, ValueError):
        pass
    finally:
        try:
            stdin.close()
        except OSError:
            pass


def level(isolation: dict) -> tuple[int, str]:
    """How strong the isolation was: 3 ``"full"`` (network and mount namespaces,
    ``nobody``, memory cgroup), 2 ``"namespaces"`` (network and mount namespaces, or
    ``nobody`` with a memory cgroup), 1 ``"process"`` (a separate process with
    rlimits, the audit hook and the memory watchdog)."""
    network = isolation.get("network", "")
    filesystem = isolation.get("filesystem", "")
    namespaces = network.startswith("namespace") and filesystem.startswith("mount")
    contained = "nobody" in isolation.get("user", "") and "cgroup" in isolation.get(
        "memory", ""
    )
    if namespaces and contained:
        return 3, "full"
    if namespaces or contained:
        return 2, "namespaces" if namespaces else "user and cgroup"
    return 1, "process"
