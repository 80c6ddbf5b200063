"""The worker's side of the sandbox: the layers it sets up before any student code.

:func:`set_up` runs in the grading worker (:mod:`alice_course.grading.worker`) while it
is still trusted, and adds a line to ``facts`` for each layer it obtained:

- it joins the cgroups the grader made (memory, processes) and raises its own
  ``oom_score_adj``, so that the kernel kills it first;
- in a network namespace, it brings loopback up (``SIOCSIFFLAGS``; kernels and
  ``torch.distributed`` talk over 127.0.0.1) and nothing else exists;
- in a mount namespace, it hides private directories behind empty read-only tmpfs
  mounts, gives ``/tmp``, ``/var/tmp``, ``/dev/shm`` and the scratch directory private
  size-limited tmpfs (binding back the way to Python when it lives there), and, when
  Python lives under a directory ``nobody`` cannot enter (``/root/.pyenv``), covers that
  directory with an empty tmpfs and binds the way to Python back; ``unshare
  --mount-proc`` has given it a ``/proc`` that shows only its own processes;
- it sets rlimits (core, file size, open files, CPU; processes once it is ``nobody``),
  makes a too-large file an error rather than a signal, drops to ``nobody`` with
  ``no_new_privs``;
- last, it installs an audit hook: no outside connections or lookups, no ``ctypes``
  route to ``fork``, ``kill`` or ``connect``, and no new processes or signals unless the
  sandbox contains them and the companion's own code asks (e.g.
  :func:`alice_course.launch.run_data_parallel` starting its ranks). Audit hooks cannot
  be removed from Python, but ``ctypes`` can get around them; the namespaces and
  cgroups are the layers that hold then.
"""

from __future__ import annotations

import os
import resource
import signal
import sys

__all__ = ["set_up"]

_BLOCKED_EVENTS = {
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.exec",
    "os.system",
    "os.kill",
    "os.killpg",
    "subprocess.Popen",
    "pty.spawn",
}
_BLOCKED_SYMBOLS = {
    "fork",
    "vfork",
    "clone",
    "clone3",
    "execve",
    "execv",
    "execvp",
    "system",
    "popen",
    "posix_spawn",
    "kill",
    "syscall",
    "setns",
    "unshare",
    "ptrace",
    "mount",
    "connect",
}


def _loopback_up() -> bool:
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh22x", b"lo", 0)
        flags = struct.unpack("16sh22x", fcntl.ioctl(s, siocgifflags, req))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sh22x", b"lo", flags | iff_up))
    return True


def _mount_tmpfs(libc, target: str, options: str, readonly: bool = False) -> bool:
    import ctypes

    ms_rdonly, ms_nosuid, ms_nodev, ms_noexec = 1, 2, 4, 8
    flags = ms_nosuid | ms_nodev | (ms_rdonly | ms_noexec if readonly else 0)
    ok = libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags, options.encode()) == 0
    if not ok:
        ctypes.set_errno(0)
    return ok


def _reopen(libc, closed: str, entries: list[str], options: str) -> bool:
    """Cover ``closed`` with an empty tmpfs (``options``) and bind ``entries`` (the
    way to Python) back into it: a directory ``nobody`` cannot enter, or a shared one
    (``/tmp``) that holds the Python the worker runs."""
    ms_bind, ms_rec = 4096, 16384
    fds = [os.open(e, os.O_PATH) for e in entries]
    try:
        if not _mount_tmpfs(libc, closed, options):
            return False
        for entry, fd in zip(entries, fds, strict=True):
            os.mkdir(entry)
            source = f"/proc/self/fd/{fd}".encode()
            libc.mount(source, entry.encode(), None, ms_bind | ms_rec, None)
    finally:
        for fd in fds:
            os.close(fd)
    return True


def set_up(job: dict, facts: dict) -> None:
    """Set up every layer the job asks for, in the order that works (loopback and
    mounts need root, so they come before the drop to ``nobody``; the audit hook comes
    last, as it forbids what the set-up itself does). Each layer that works adds a line
    to ``facts``; one that fails is skipped."""
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")  # if memory runs out, the kernel kills this process first
    except OSError:
        pass
    _join_cgroups(job, facts)
    if "net" in job.get("namespaces", []):
        _network(facts)
    if "mount" in job.get("namespaces", []):
        _mounts(job, facts)
    os.chdir(job["scratch"])
    _rlimits(job, facts)
    _drop_privileges(job, facts)
    _audit_hook(job, facts)


def _join_cgroups(job: dict, facts: dict) -> None:
    for kind, path in job.get("cgroups", {}).items():
        try:
            with open(path, "w") as fh:
                fh.write("0")
            facts[kind] = job["cgroup_facts"][kind]
        except OSError as err:
            facts.setdefault("problems", []).append(f"cgroup {kind}: {err}")


def _network(facts: dict) -> None:
    import socket

    try:
        _loopback_up()
        names = sorted(name for _, name in socket.if_nameindex())
        facts["network"] = f"namespace with interfaces {names} (loopback up)"
    except OSError as err:
        facts["network"] = f"namespace, loopback down ({err.strerror})"


def _mounts(job: dict, facts: dict) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = job.get("drop_to") or (os.getuid(), os.getgid())
    disk = job["limits"]["disk_mb"]
    for closed, entries in job.get("reopen", {}).items():
        _reopen(libc, closed, entries, "size=4k,mode=755")
    hidden = [p for p in job.get("masks", []) if os.path.isdir(p)]
    hidden = [p for p in hidden if _mount_tmpfs(libc, p, "size=4k,mode=000", True)]
    shared = []
    for d in ("/tmp", "/var/tmp", "/dev/shm"):
        if not os.path.isdir(d) or os.path.islink(d):
            continue
        entries = _entries_on_the_way(d, job.get("keep", []))
        if _reopen(libc, d, entries, f"size={disk}m,mode=1777"):
            shared.append(d)
    os.makedirs(job["scratch"], exist_ok=True)
    _mount_tmpfs(libc, job["scratch"], f"size={disk}m,mode=700,uid={uid},gid={gid}")
    proc = (
        "a fresh /proc of its own processes"
        if "proc" in job.get("namespaces", [])
        else "the host's /proc"
    )
    facts["filesystem"] = (
        f"mount namespace: {len(hidden)} private directories hidden; scratch "
        f"and {', '.join(shared) or 'no shared directories'} on private tmpfs of "
        f"{disk} MB; {proc}"
    )


def _entries_on_the_way(parent: str, keep: list[str]) -> list[str]:
    """The entries of ``parent`` that lead to paths the worker needs (a Python
    installed under ``/tmp``): bound back after ``parent`` is covered."""
    parent = os.path.realpath(parent)
    out = set()
    for p in map(os.path.realpath, keep):
        if p.startswith(parent + os.sep):
            out.add(os.path.join(parent, p[len(parent) + 1 :].split(os.sep)[0]))
    return sorted(out)


def _rlimits(job: dict, facts: dict) -> None:
    limits = job["limits"]
    cpu, disk = int(limits["timeout"]) + 5, limits["disk_mb"]
    wanted = [
        (resource.RLIMIT_CORE, 0, "core=0"),
        (resource.RLIMIT_FSIZE, disk << 20, f"fsize={disk}MB"),
        (resource.RLIMIT_NOFILE, 256, "nofile=256"),
        (resource.RLIMIT_CPU, cpu, f"cpu={cpu}s"),
    ]
    if job.get("drop_to"):  # counted per user: it means something for nobody only
        n = limits["processes"]
        wanted.append((resource.RLIMIT_NPROC, n, f"nproc={n}"))
    done = []
    for which, value, text in wanted:
        try:
            resource.setrlimit(which, (value, value))
            done.append(text)
        except (ValueError, OSError):
            pass
    facts["rlimits"] = ", ".join(done)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # too big a file: an error, not death


def _drop_privileges(job: dict, facts: dict) -> None:
    if job.get("drop_to") and os.geteuid() == 0:
        uid, gid = job["drop_to"]
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            facts["user"] = (
                f"uid {os.getuid()} (nobody: a user of its own, for this worker "
                "only), no supplementary groups"
            )
        except OSError as err:
            facts.setdefault("problems", []).append(f"privilege drop: {err}")
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) == 0:
            facts["no_new_privs"] = "set"  # PR_SET_NO_NEW_PRIVS: no setuid binaries
    except (OSError, AttributeError):
        pass


def _audit_hook(job: dict, facts: dict) -> None:
    import sysconfig

    import alice_lab
    from alice_course import launch

    paths = sysconfig.get_paths()
    _POLICY["trusted"] = (os.path.dirname(alice_lab.__file__) + os.sep, launch.__file__)
    _POLICY["library"] = tuple(
        {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    )
    _POLICY["contained"] = bool(job.get("contained"))
    if not _POLICY["contained"]:
        _disarm()
    sys.addaudithook(_audit)
    facts["audit_hook"] = "refuses outside connections, and new processes and " + (
        "signals unless the companion's own code asks (namespaces and cgroups contain "
        "them)"
        if _POLICY["contained"]
        else "signals (nothing could contain them)"
    )


#: functions that start processes or send signals without raising an audit event
#: (Python 3.11-3.13); refused when nothing contains what they would do
_UNAUDITED = {
    "posix": ("pidfd_open",),
    "os": ("pidfd_open",),
    "_signal": ("pidfd_send_signal",),
    "signal": ("pidfd_send_signal",),
    "_posixsubprocess": ("fork_exec",),
}


def _refused(what: str):
    def refuse(*args, **kwargs):
        raise PermissionError(f"the grader does not allow {what} in submissions")

    return refuse


def _disarm() -> None:
    """Replace the unaudited ways to start a process or signal one (``pidfd_open``
    with ``pidfd_send_signal``, ``_posixsubprocess.fork_exec``) with functions that
    raise :class:`PermissionError`, as the audit hook would: without a PID namespace
    and a user of its own, they would let a submission kill the grader.
    The audit hook then refuses re-importing their modules. ``ctypes`` can still
    reach the C library's functions; the instructors' page says so."""
    import importlib

    for module_name, names in _UNAUDITED.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _refused(f"{module_name}.{name}"))
    _POLICY["no_reimport"] = frozenset(_UNAUDITED)


def _is_local(address) -> bool:
    host = address[0] if isinstance(address, tuple) and address else address
    if isinstance(host, bytes | str) and not isinstance(address, tuple):
        return True  # AF_UNIX path
    return isinstance(host, str) and (
        host in ("localhost", "::1") or host.startswith("127.")
    )


_POLICY = {
    "contained": False,
    "trusted": (),
    "library": (),
    "no_reimport": frozenset(),
}


def _caller_is_trusted() -> bool:
    """Whether the innermost frame outside the standard library and installed packages
    is the companion's own code (``alice_lab``, or
    :func:`alice_course.launch.run_data_parallel` starting its ranks) rather than the
    student's. Student code could fake a file name, so this only
    matters where namespaces and cgroups contain processes anyway."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_POLICY["trusted"]):
            return True
        if not (name.startswith(_POLICY["library"]) or name.startswith("<frozen")):
            return False
        frame = frame.f_back
    return False


def _audit(event: str, args: tuple) -> None:
    if event == "import" and args and args[0] in _POLICY["no_reimport"]:
        raise PermissionError(f"the grader does not allow re-importing {args[0]}")
    if event in _BLOCKED_EVENTS:
        if not (_POLICY["contained"] and _caller_is_trusted()):
            raise PermissionError(f"the grader does not allow {event} in submissions")
    if event == "ctypes.dlsym" and len(args) > 1 and str(args[1]) in _BLOCKED_SYMBOLS:
        raise PermissionError(f"the grader does not allow calling {args[1]} via ctypes")
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg") and len(args) > 1:
        if not _is_local(args[1]):
            raise PermissionError("the grader does not allow network connections")
    if event == "socket.getaddrinfo" and args and not _is_local((args[0],)):
        raise PermissionError("the grader does not allow network lookups")
