"""Shared fixtures: the array backends, float64 parity settings, and no network.

The ``backend`` fixture runs a test once per array library: NumPy, array-api-strict
(catches calls outside the standard and forgotten ``device=``), PyTorch and JAX (in
float64, with TF32 off), plus CUDA variants that skip themselves without a GPU.
Use ``backend.asarray(numpy_array)`` to move inputs and ``backend.to_numpy`` back.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("ALICE_FAST", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


# --- no network -------------------------------------------------------------------


class NetworkAccessError(RuntimeError):
    pass


def _refuse(*args, **kwargs):
    raise NetworkAccessError(
        "a test tried to open a network connection; nothing in the companion may "
        "download at run time"
    )


def _is_local(address: Any) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return isinstance(host, str) and (
        host in ("localhost", "::1", "")
        or host.startswith("127.")
        or host.startswith("/")
    )


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Make every non-loopback connection fail (loopback stays: kernels use it)."""
    real_connect = socket.socket.connect

    def guarded_connect(self, address):
        if self.family == socket.AF_UNIX or _is_local(address):
            return real_connect(self, address)
        _refuse()

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(
        socket, "create_connection", _guarded_create(socket.create_connection)
    )
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo(socket.getaddrinfo))
    yield


def _guarded_create(real):
    def create_connection(address, *args, **kwargs):
        if _is_local(address):
            return real(address, *args, **kwargs)
        _refuse()

    return create_connection


def _guarded_getaddrinfo(real):
    def getaddrinfo(host, *args, **kwargs):
        if host is None or _is_local((host,)):
            return real(host, *args, **kwargs)
        _refuse()

    return getaddrinfo


# --- array backends -----------------------------------------------------------------


@dataclass
class Backend:
    """A handle on one array library for parity tests."""

    name: str
    xp: Any
    device: Any

    def asarray(self, x: Any, dtype: str | None = None) -> Any:
        host = np.asarray(x)
        if dtype is not None:
            host = host.astype(dtype)
        if self.name == "numpy":
            return host
        if self.name == "strict":
            return self.xp.asarray(host, device=self.device)
        if self.name.startswith("torch"):
            import torch

            return torch.as_tensor(host, device=self.device)
        import jax

        return jax.device_put(host, self.device)

    @staticmethod
    def to_numpy(x: Any) -> np.ndarray:
        if hasattr(x, "detach"):
            return x.detach().cpu().numpy()
        if type(x).__module__.startswith("array_api_strict"):
            return np.asarray(x._array)
        return np.asarray(x)


BACKEND_PARAMS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("strict", id="strict"),
    pytest.param("torch", id="torch"),
    pytest.param("jax", id="jax"),
    pytest.param("torch-cuda", id="torch-cuda"),
]


@pytest.fixture(scope="session", autouse=True)
def _float64_everywhere():
    from alice_lab.backend import parity_precision

    with parity_precision():
        yield


def make_backend(name: str) -> Backend:
    if name == "numpy":
        return Backend("numpy", np, "cpu")
    if name == "strict":
        import array_api_strict as xp

        return Backend("strict", xp, xp.Device("device1"))
    if name == "torch":
        import torch

        return Backend("torch", torch, torch.device("cpu"))
    if name == "torch-cuda":
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device on this machine")
        return Backend("torch-cuda", torch, torch.device("cuda"))
    if name == "jax":
        import jax
        import jax.numpy as jnp

        return Backend("jax", jnp, jax.devices("cpu")[0])
    raise ValueError(name)


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request) -> Backend:
    return make_backend(request.param)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# --- the order in which pytest-xdist hands out test files ---------------------------

#: Files whose tests take longest in all (``make test``'s table lists them); they
#: start first so that the two workers finish together instead of one running a long
#: file alone at the end. ``make test`` passes ``--no-loadscope-reorder`` (otherwise
#: xdist orders files by their number of tests, which puts these last).
SLOW_FILES = (
    "test_site.py",
    "test_grader_labs_more.py",
    "test_grader_labs.py",
    "test_lab05.py",
    "test_grader_corpus.py",
    "test_grader_attacks.py",
    "test_lab10.py",
    "test_lab12.py",
    "test_optim_sgd.py",
    "test_lab11.py",
    "test_grader_judge.py",
    "test_labs.py",
    "test_lab13.py",
    "test_lab07.py",
    "test_lab08.py",
    "test_widgets.py",
)


def pytest_collection_modifyitems(session, config, items):
    def rank(item) -> int:
        name = item.path.name
        return SLOW_FILES.index(name) if name in SLOW_FILES else len(SLOW_FILES)

    items.sort(key=rank)  # stable: the rest keep their order


# --- timings for the table `make test` prints ----------------------------------


def _cpu_jiffies() -> tuple[int, int] | None:
    """(busy, total) jiffies of all cores since boot, from /proc/stat (Linux)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split()[1:9]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def pytest_sessionstart(session):
    session.config._alice_started = time.perf_counter()
    session.config._alice_jiffies = _cpu_jiffies()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Leave the suite's wall time and slowest tests in _build/timings/ (the table
    that `make test` prints at its end, tools/timings.py)."""
    if hasattr(config, "workerinput") or not hasattr(config, "_alice_started"):
        return
    per_test: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for rep in reports:
            nodeid, seconds = getattr(rep, "nodeid", ""), getattr(rep, "duration", None)
            if nodeid and isinstance(seconds, float):
                per_test[nodeid] = per_test.get(nodeid, 0.0) + seconds
    slowest = sorted(per_test.items(), key=lambda kv: -kv[1])[:15]
    per_file: dict[str, float] = {}
    for nodeid, seconds in per_test.items():
        name = nodeid.split("::")[0]
        per_file[name] = per_file.get(name, 0.0) + seconds
    files = sorted(per_file.items(), key=lambda kv: -kv[1])[:15]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import timings

    wall = time.perf_counter() - config._alice_started
    busy = None
    before, after = config._alice_jiffies, _cpu_jiffies()
    if before and after and after[1] > before[1]:
        share = (after[0] - before[0]) / (after[1] - before[1])
        busy = round(share * (os.cpu_count() or 1), 2)
    timings.record(
        "pytest",
        {"test suite": wall},
        tests=len(per_test),
        cores_busy=busy,
        slowest=[(k, round(v, 1)) for k, v in slowest],
        files=[(k, round(v, 1)) for k, v in files],
    )
