"""A launcher for torch.distributed on the CPU: one process per "device".

:func:`run_data_parallel` runs a function on ``world_size`` Python processes joined by
the gloo backend, the way chapter 5's data parallelism (§5.4) and lab 05's
``ddp_train_step`` need, and returns what each rank returned. It is course machinery,
not something the book defines: it ships the function to fresh processes (by reference
when the child can import it, else by source), picks a free port (retrying when another
process takes it first), and never hangs (every rank has a deadline, and a failing rank
stops the others). The ideas themselves, averaging the ranks' gradients, are
:func:`alice_lab.optim.average_gradients` and
:func:`alice_lab.optim.data_parallel_grad`.

The grading sandbox trusts this module to start processes
(:mod:`alice_course.grading.isolation`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from alice_lab.backend import check_int, check_positive

__all__ = ["run_data_parallel"]

_CHILD = (
    "import sys; from alice_course.launch import _data_parallel_child as child; "
    "sys.exit(child(sys.argv[1], int(sys.argv[2])))"
)


def _ship(fn: Any) -> Any:
    """A function as ("ref", module, qualname) when the child can import it, else as
    ("source", text, name); anything else is passed through (pickled)."""
    import importlib
    import inspect
    import textwrap
    import types

    if not isinstance(fn, types.FunctionType):
        return ("value", fn)
    module, qualname = fn.__module__, fn.__qualname__
    if module != "__main__" and "<locals>" not in qualname:
        try:
            obj = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
            if obj is fn:
                return ("ref", module, qualname)
        except (ImportError, AttributeError):
            pass
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        raise ValueError(
            f"cannot send {fn.__name__!r} to another process: define it at the top "
            "level of a module or of a notebook cell"
        ) from None
    return ("source", source, fn.__name__)


def _unship(item: Any) -> Any:
    kind = item[0]
    if kind == "value":
        return item[1]
    if kind == "ref":
        import importlib

        obj = importlib.import_module(item[1])
        for part in item[2].split("."):
            obj = getattr(obj, part)
        return obj
    import torch

    namespace = {
        "__name__": "__alice_worker__",
        "np": np,
        "torch": torch,
        "nn": torch.nn,
        "F": torch.nn.functional,
        "dist": torch.distributed,
    }
    exec(compile(item[1], f"<worker {item[2]}>", "exec"), namespace)  # noqa: S102
    return namespace[item[2]]


def _data_parallel_child(job_path: str, rank: int) -> int:
    """Entry point of one worker process of :func:`run_data_parallel`."""
    import datetime
    import pickle
    import time
    import traceback
    from pathlib import Path

    def failure(
        err: BaseException,
    ) -> tuple:  # stamped: the earliest error is the cause
        tb = traceback.format_exc()
        return ("error", type(err).__name__, str(err), tb, time.time())

    out = Path(job_path).with_name(f"rank{rank}.pkl")
    try:
        with open(job_path, "rb") as fh:
            job = pickle.load(fh)  # noqa: S301 - written by our parent process
        import sys

        sys.path[:0] = [p for p in job["sys_path"] if p not in sys.path]
        import torch.distributed as dist

        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{job['port']}",
            rank=rank,
            world_size=job["world_size"],
            timeout=datetime.timedelta(seconds=job["timeout"]),
        )
        try:
            worker = _unship(job["worker"])
            args = [_unship(a) for a in job["args"]]
            result = ("ok", worker(rank, job["world_size"], *args))
        except BaseException as err:  # noqa: BLE001 - reported to the parent
            result = failure(err)  # before the group goes down and the others fail
        finally:
            dist.destroy_process_group()
    except BaseException as err:  # noqa: BLE001 - reported to the parent
        result = failure(err)
    code = 0 if result[0] == "ok" else 1
    with open(out, "wb") as fh:
        pickle.dump(result, fh)
    return code


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_data_parallel(
    worker: Callable[..., Any],
    *args: Any,
    world_size: int = 2,
    timeout: float = 120.0,
) -> list[Any]:
    """Run ``worker(rank, world_size, *args)`` in ``world_size`` fresh Python processes
    joined in a ``torch.distributed`` process group (gloo backend, TCP on 127.0.0.1),
    and return what each rank returned, in rank order.

    This is data parallelism on one CPU: each process plays one machine of Figure F.5.3
    and can call ``torch.distributed.all_reduce`` to sum tensors across all of them.
    It never hangs: past ``timeout`` seconds every process is killed and
    ``TimeoutError`` raised; when one rank fails the others are stopped and its error
    is raised here (``NotImplementedError`` as such, anything else as
    ``RuntimeError`` with the child's traceback).

    ``worker`` and any function among ``args`` travel by reference when they can be
    imported, else by source: a function written in a notebook cell is re-executed in
    the child, where ``np``, ``torch``, ``nn``, ``F`` (``torch.nn.functional``) and
    ``dist`` (``torch.distributed``) are defined; it must import anything else itself.
    Other arguments and the return values must pickle (NumPy arrays do).

    Book: §5.3, data parallelism (lines 2398-2412).
    """
    import pickle
    import sys
    import tempfile
    from pathlib import Path

    world_size = check_int(world_size, "world_size")
    timeout = check_positive(timeout, "timeout")
    job = {
        "worker": _ship(worker),
        "args": [_ship(a) for a in args],
        "world_size": world_size,
        "timeout": timeout,
        "sys_path": list(sys.path),  # what the parent imports, the child can import
    }
    with tempfile.TemporaryDirectory(prefix="alice_ddp_") as tmp:
        for attempt in range(3):  # a port can be taken between probing and binding
            job["port"] = _free_port()
            job_path = Path(tmp) / "job.pkl"
            job_path.write_bytes(pickle.dumps(job))
            for old in Path(tmp).glob("rank*.pkl"):
                old.unlink()
            results, logs, order = _launch(job_path, world_size, timeout)
            errors = [r for r in results if r is None or r[0] == "error"]
            in_use = any(r and "Address already in use" in r[2] for r in errors)
            if not (in_use and attempt < 2):
                break
    # the earliest error is the cause (the others failed waiting for that rank); a
    # rank without a result was stopped, or crashed without reporting
    failed = [k for k, r in enumerate(results) if r is None or r[0] != "ok"]
    if failed:
        k = min(
            failed, key=lambda k: (results[k] is None, results[k] and results[k][4], k)
        )
        rank, r = order[k], results[k]
        if r is None:
            raise RuntimeError(
                f"rank {rank} of run_data_parallel exited without a result:\n{logs[k]}"
            )
        if r[1] == "NotImplementedError":
            raise NotImplementedError(r[2])
        raise RuntimeError(f"rank {rank} raised {r[1]}: {r[2]}\n{r[3]}")
    return [r[1] for _, r in sorted(zip(order, results, strict=True))]


def _launch(job_path: Any, world_size: int, timeout: float) -> tuple[list, list, list]:
    """Start the ranks, wait for all of them (killing the rest when one fails or the
    time is up), and read back their results and logs in the order the ranks exited
    (with that order)."""
    import os
    import pickle
    import subprocess
    import sys
    import time

    env = dict(os.environ, MASTER_ADDR="127.0.0.1", OMP_NUM_THREADS="1")
    if sys.platform.startswith("linux"):
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    logs_dir = job_path.parent
    procs = []
    for rank in range(world_size):
        log = open(logs_dir / f"rank{rank}.log", "wb")  # noqa: SIM115
        procs.append(
            (
                subprocess.Popen(
                    [sys.executable, "-c", _CHILD, str(job_path), str(rank)],
                    env=dict(env, RANK=str(rank), WORLD_SIZE=str(world_size)),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=str(logs_dir),
                ),
                log,
            )
        )
    deadline = time.monotonic() + timeout
    timed_out, order = False, []  # ranks in the order they exited
    try:
        while len(order) < world_size:
            order += [
                r
                for r, (p, _) in enumerate(procs)
                if p.poll() is not None and r not in order
            ]
            if any(procs[r][0].returncode != 0 for r in order):
                break  # one rank failed: the others may wait forever in a collective
            if time.monotonic() > deadline:
                timed_out = True
                break
            time.sleep(0.02)
    finally:
        for p, log in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            log.close()
    logs = [
        (logs_dir / f"rank{r}.log").read_text(errors="replace")[-4000:]
        for r in range(world_size)
    ]
    if timed_out:
        raise TimeoutError(
            f"run_data_parallel: the {world_size} processes did not finish within "
            f"{timeout:g} s and were stopped. Last output of rank 0:\n{logs[0]}"
        )
    results = []
    for rank in range(world_size):
        path = logs_dir / f"rank{rank}.pkl"
        results.append(pickle.loads(path.read_bytes()) if path.exists() else None)  # noqa: S301
    order += [r for r in range(world_size) if r not in order]
    return [results[r] for r in order], [logs[r] for r in order], order
