"""Memory and process limits the kernel enforces: one cgroup per grading worker.

Root only. On cgroup v1 (a ``memory`` and a ``pids`` hierarchy) the worker's groups are
made under the grader's own; on v2, under the grader's group or its parent, wherever
children may have the memory controller. The worker joins them itself, before it runs
any student code (writing ``0`` to ``cgroup.procs``), so no process escapes them; the
grader reads the anonymous memory charged to them (each page once, however many
processes share it), learns whether the kernel killed for memory, kills whatever is
left, and removes them.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alice_course.grading.sandbox import Limits

__all__ = ["Cgroups", "hard_limit"]


def hard_limit(limits: Limits) -> int:
    """The cgroup's limit in bytes: a quarter above the watchdog's, so that the
    watchdog normally stops a hog first (the kernel, at its limit, may thrash the
    process's pages for seconds before it kills), and the kernel catches what grows
    faster than the watchdog polls."""
    return (limits.memory_mb + limits.memory_mb // 4 + 64) << 20


class Cgroups:
    """A memory cgroup and a pids cgroup for one worker (v1 or v2), made by root."""

    def __init__(self, dirs: dict[str, Path], version: int):
        self.dirs, self.version = dirs, version

    @classmethod
    def create(cls, limits: Limits) -> Cgroups | None:
        if os.geteuid() != 0:
            return None
        name = f"alice-grade-{os.getpid()}-{time.monotonic_ns()}"
        own = _own_cgroups()
        root = Path("/sys/fs/cgroup")
        made: dict[str, Path] = {}
        try:
            if "memory" in own and (root / "memory").is_dir():  # v1
                mem = root / "memory" / own["memory"].lstrip("/") / name
                mem.mkdir()
                made["memory"] = mem
                (mem / "memory.limit_in_bytes").write_text(str(hard_limit(limits)))
                pids_root = root / "pids" / own.get("pids", "/").lstrip("/")
                if pids_root.is_dir():
                    pids = pids_root / name
                    pids.mkdir()
                    made["processes"] = pids
                    (pids / "pids.max").write_text(str(limits.processes))
                return cls(made, 1)
            here = root / own.get("", "/").lstrip("/")
            for parent in (here, here.parent):  # v2: where children may have memory
                control = (parent / "cgroup.subtree_control").read_text().split()
                if "memory" not in control:
                    continue
                group = parent / name
                group.mkdir()
                made["memory"] = group
                (group / "memory.max").write_text(str(hard_limit(limits)))
                if (group / "memory.swap.max").exists():
                    (group / "memory.swap.max").write_text("0")
                if "pids" in control:
                    (group / "pids.max").write_text(str(limits.processes))
                    made["processes"] = group
                return cls(made, 2)
        except OSError:
            cls(made, 1).remove()
        return None

    def anonymous(self) -> int | None:
        """Anonymous memory charged to the cgroup, in bytes: each page once, however
        many processes share it (a sum of RSS counts a forked page per process)."""
        key = "total_rss" if self.version == 1 else "anon"
        try:
            for line in (self.dirs["memory"] / "memory.stat").read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except (OSError, ValueError, KeyError):
            pass
        return None

    def joined(self) -> bool:
        try:
            return bool((self.dirs["memory"] / "cgroup.procs").read_text().split())
        except (OSError, KeyError):
            return False

    def procs(self) -> dict[str, str]:
        return {k: str(d / "cgroup.procs") for k, d in self.dirs.items()}

    def facts(self, limits: Limits) -> dict[str, str]:
        out = {
            "memory": f"watchdog at {limits.memory_mb} MB, cgroup v{self.version} "
            f"hard limit at {hard_limit(limits) >> 20} MB"
        }
        if "processes" in self.dirs:
            out["processes"] = f"cgroup v{self.version}: at most {limits.processes}"
        return out

    def oom_killed(self) -> bool:
        d = self.dirs.get("memory")
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (d / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError, TypeError):
            pass
        return False

    def kill_all(self) -> None:
        for _ in range(50):
            pids = set()
            for d in self.dirs.values():
                try:
                    pids |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
                except (OSError, ValueError):
                    pass
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill_all()
        for d in set(self.dirs.values()):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _own_cgroups() -> dict[str, str]:
    """``controller -> path`` of this process (``""`` is the v2 hierarchy)."""
    out = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                out[c] = path
    except (OSError, ValueError):
        pass
    return out
