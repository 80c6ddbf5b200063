"""A small benchmark harness: alice_lab against the frameworks' kernels, same run.

A benchmark case is a factory registered with :func:`benchmark`; it receives a seeded
NumPy generator and returns a :class:`Bench` (the two callables, the timed inputs and
extra inputs that are only checked for agreement)::

    @benchmark("logsumexp", reference="scipy.special.logsumexp",
               shape=(4096, 1024), dtype="float64")
    def _(rng):
        x = rng.standard_normal((4096, 1024))
        return Bench(alice=F.logsumexp, reference=sp.logsumexp, args=(x,))

:func:`run_case` times both sides timeit-style (one warm-up call each, then the best
of ``repeat`` measurements of ``number`` calls, the two sides interleaved so that a
slow moment of the machine hits both), then compares their outputs on the timed
inputs and on every check input. Times are only ever reported as a ratio to the
reference measured in the same run; nothing here asserts a speed.

``python -m benchmarks`` discovers every ``benchmarks/bench_*.py``, runs the cases and
writes ``benchmarks/results/latest.json`` and ``latest.md``.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import importlib.metadata
import json
import os
import pkgutil
import platform
import sys
import time
import timeit
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parent / "results"
LIBRARIES = ("alice_lab", "numpy", "scipy", "array-api-compat", "torch", "jax")


@dataclass
class Bench:
    """What a case factory returns.

    alice, reference : callables taking ``*args``; their results are compared.
    args : the inputs that are timed.
    checks : extra named inputs (tuples of args) checked for agreement, not timed,
        e.g. rows holding inf, -inf and NaN.
    rtol, atol : tolerances of the agreement check (NaN must match NaN).
    sync : called on a result before the clock stops (for asynchronous backends,
        e.g. ``lambda y: y.block_until_ready()`` for JAX); identity by default.
    """

    alice: Callable[..., Any]
    reference: Callable[..., Any]
    args: tuple
    checks: dict[str, tuple] = field(default_factory=dict)
    rtol: float = 1e-12
    atol: float = 0.0
    sync: Callable[[Any], Any] = lambda y: y


@dataclass(frozen=True)
class Case:
    name: str
    reference: str
    shape: tuple
    dtype: str
    factory: Callable[[np.random.Generator], Bench]


class Registry:
    """Named benchmark cases, in registration order."""

    def __init__(self) -> None:
        self.cases: dict[str, Case] = {}

    def register(self, name: str, *, reference: str, shape: Sequence[int], dtype: str):
        """Decorator: register ``factory(rng) -> Bench`` under ``name``."""

        def decorate(factory: Callable[[np.random.Generator], Bench]):
            if name in self.cases:
                raise ValueError(f"benchmark case {name!r} is registered twice")
            self.cases[name] = Case(name, reference, tuple(shape), str(dtype), factory)
            return factory

        return decorate

    def select(self, pattern: str | None = None) -> list[Case]:
        return [c for n, c in self.cases.items() if not pattern or pattern in n]


REGISTRY = Registry()
benchmark = REGISTRY.register


def discover(package: str = "benchmarks") -> list[str]:
    """Import every ``bench_*`` module of ``package`` (which registers its cases)."""
    pkg = importlib.import_module(package)
    names = sorted(
        m.name
        for m in pkgutil.iter_modules(pkg.__path__)
        if m.name.startswith("bench_")
    )
    for name in names:
        importlib.import_module(f"{package}.{name}")
    return names


# --- timing and checking ------------------------------------------------------------


def _to_numpy(y: Any) -> np.ndarray:
    if hasattr(y, "detach"):
        y = y.detach().cpu()
    return np.asarray(y)


def compare(got: Any, want: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Whether two results agree (same shape, NaN where NaN, inf where inf)."""
    a, b = _to_numpy(got), _to_numpy(want)
    if a.shape != b.shape:
        return False, f"shapes differ: {a.shape} vs {b.shape}"
    try:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as err:
        keep = ("Mismatched", "Max absolute", "Max relative", "nan location", "inf")
        lines = [
            ln.strip() for ln in str(err).splitlines() if ln.strip().startswith(keep)
        ]
        return False, "; ".join(lines) or str(err).strip().splitlines()[0]
    finite = np.isfinite(a) & np.isfinite(b)
    diff = float(np.max(np.abs(a[finite] - b[finite]), initial=0.0))
    return True, f"max abs diff {diff:.1e}"


def _timer(fn: Callable, args: tuple, sync: Callable) -> timeit.Timer:
    return timeit.Timer(lambda: sync(fn(*args)), timer=time.perf_counter)


PAUSE_S = 0.2
"""Seconds of rest before each timed block. After a call, OpenBLAS's and OpenMP's
worker threads keep spinning for a while (OpenBLAS: about 2^28 cycles); without the
rest they would steal the cores from the other side's first ~0.1 s, which made
torch's conv2d look 1.8× slower after a NumPy block than on its own."""


def run_case(
    case: Case,
    *,
    repeat: int = 7,
    number: int | None = None,
    seed: int = 0,
    pause: float = PAUSE_S,
):
    """Time and check one case; return a JSON-ready dict. ``pause``: seconds of
    rest before each timed block (:data:`PAUSE_S`)."""
    bench = case.factory(np.random.default_rng(seed))
    t_alice = _timer(bench.alice, bench.args, bench.sync)
    t_ref = _timer(bench.reference, bench.args, bench.sync)
    with warnings.catch_warnings():  # warnings are recorded by the checks below
        warnings.simplefilter("ignore")
        t_alice.timeit(1)  # warm-up (imports, caches, JIT)
        t_ref.timeit(1)
        if number is None:
            number = max(t_alice.autorange()[0], 1)
        best_alice = best_ref = float("inf")
        for _ in range(repeat):  # interleaved
            time.sleep(pause)
            best_alice = min(best_alice, t_alice.timeit(number) / number)
            time.sleep(pause)
            best_ref = min(best_ref, t_ref.timeit(number) / number)

    checks, alice_warnings = [], []
    for label, args in [("timed input", bench.args), *bench.checks.items()]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = bench.alice(*args)
        alice_warnings += [
            f"{label}: {w.category.__name__}: {w.message}" for w in caught
        ]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = bench.reference(*args)
        ok, detail = compare(got, want, bench.rtol, bench.atol)
        checks.append({"input": label, "agree": ok, "detail": detail})
    return {
        "case": case.name,
        "shape": list(case.shape),
        "dtype": case.dtype,
        "reference": case.reference,
        "alice_s": best_alice,
        "reference_s": best_ref,
        "ratio": best_alice / best_ref,
        "agree": all(c["agree"] for c in checks),
        "checks": checks,
        "alice_warnings": alice_warnings,
        "number": number,
        "repeat": repeat,
    }


# --- reporting ------------------------------------------------------------------------


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def blas_info() -> list[dict]:
    """The BLAS libraries loaded in this process and the kernels they chose
    (threadpoolctl), or ``[]`` when threadpoolctl is not installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keys = ("internal_api", "version", "architecture", "num_threads", "filepath")
    return [
        {
            k: Path(v).name if k == "filepath" else v
            for k, v in info.items()
            if k in keys
        }
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]


SETTINGS_PREFIXES = ("OPENBLAS", "MALLOC_")
"""Environment variables that change the timings and are recorded with them."""


def machine_info() -> dict:
    """Where and with what the benchmarks ran, including the BLAS kernels in use and
    the ``OPENBLAS_*`` / ``MALLOC_*`` settings (see ``make bench``)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    return {
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": _cpu_model() or platform.processor(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "load_average_1min": round(os.getloadavg()[0], 2)
        if hasattr(os, "getloadavg")
        else None,
        "python": sys.version.split()[0],
        "versions": {name: v for name in LIBRARIES if (v := _version(name))},
        "blas": blas_info(),
        "openblas_env": {
            k: v for k, v in os.environ.items() if k.startswith(SETTINGS_PREFIXES)
        },
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def to_markdown(results: list[dict], machine: dict) -> str:
    lines = [
        "# Benchmarks: alice_lab against the frameworks' kernels",
        "",
        "Best of the repeats of `number` calls each, both sides timed in the same run "
        f"and interleaved, with a {PAUSE_S} s rest before each block so that one "
        "library's spinning worker threads do not slow the other. A ratio below 1 "
        "means alice_lab is faster. *Agree* checks "
        "the outputs on the timed input and on the extra inputs of the case (inf, "
        "-inf, NaN, extreme values).",
        "",
        "| case | alice / reference | results agree | alice_lab | reference time "
        "| reference | shape | dtype |",
        "|---|---:|:---:|---:|---:|---|---|---|",
    ]
    for r in results:
        shape = "×".join(str(n) for n in r["shape"])
        agree = "yes" if r["agree"] else "**NO**"
        lines.append(
            f"| {r['case']} | {r['ratio']:.2f} | {agree} | {_ms(r['alice_s'])} "
            f"| {_ms(r['reference_s'])} | `{r['reference']}` | {shape} | {r['dtype']} |"
        )
    lines += ["", "Checks per case:", ""]
    for r in results:
        parts = [
            f"{c['input']}: {'ok' if c['agree'] else 'FAIL'} ({c['detail']})"
            for c in r["checks"]
        ]
        warn = f"; alice_lab warnings: {len(r['alice_warnings'])}"
        lines.append(f"- **{r['case']}**: " + "; ".join(parts) + warn)
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items())
    lines += [
        "",
        "Machine:",
        "",
        f"- {machine['processor']} ({machine['machine']}), "
        f"{machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), "
        f"load average {machine.get('load_average_1min')} before the run",
        f"- {machine['platform']}, Python {machine['python']}",
        f"- {versions}",
        *_blas_lines(machine),
        f"- run on {machine['date_utc']} with `python -m benchmarks`",
        "",
    ]
    return "\n".join(lines)


def _blas_lines(machine: dict) -> list[str]:
    libs = "; ".join(
        f"{b.get('filepath', b.get('internal_api'))} {b.get('version')} "
        f"({b.get('architecture')} kernels, {b.get('num_threads')} threads)"
        for b in machine.get("blas") or []
    )
    lines = [f"- BLAS: {libs}"] if libs else []
    env = machine.get("openblas_env") or {}
    lines.append(
        "- OpenBLAS and malloc settings: "
        + (
            ", ".join(f"{k}={v}" for k, v in sorted(env.items()))
            or "none (OpenBLAS's own CPU detection, glibc's defaults)"
        )
    )
    return lines


def write_results(results: list[dict], machine: dict, out: Path = RESULTS_DIR):
    """Write ``latest.json`` and ``latest.md`` into ``out`` (atomically)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"machine": machine, "results": results}
    written = []
    for name, text in [
        ("latest.json", json.dumps(payload, indent=2) + "\n"),
        ("latest.md", to_markdown(results, machine)),
    ]:
        tmp = out / f"{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out / name)
        written.append(out / name)
    return written


def run(
    cases: list[Case],
    *,
    repeat: int = 7,
    number: int | None = None,
    seed: int = 0,
    pause: float = PAUSE_S,
    log: Callable[[str], Any] = print,
) -> list[dict]:
    results = []
    for case in cases:
        r = run_case(case, repeat=repeat, number=number, seed=seed, pause=pause)
        log(
            f"{case.name:<24} alice {_ms(r['alice_s']):>10}  {case.reference} "
            f"{_ms(r['reference_s']):>10}  ratio {r['ratio']:.2f}  "
            f"agree {'yes' if r['agree'] else 'NO'}"
        )
        results.append(r)
    return results
