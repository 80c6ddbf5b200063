"""A small benchmark harness: alice_lab against the frameworks' kernels, same run.

A benchmark case is a factory registered with :func:`benchmark`; it receives a seeded
NumPy generator and returns a :class:`Bench` (the two callables, the timed inputs and
extra inputs that are only checked for agreement)::

    @benchmark("logsumexp", reference="scipy.special.logsumexp",
               shape=(4096, 1024), dtype="float64")
    def _(rng):
        x = rng.standard_normal((4096, 1024))
        return Bench(alice=F.logsumexp, reference=sp.logsumexp, args=(x,))

:func:`run_case` times both sides in ``repeat`` interleaved rounds (one warm-up call
each, then in every round a block of ``number`` alice_lab calls and a block of
``number`` reference calls, each after a short rest), so that a slow moment of the
machine hits both sides of the same round. Each round gives one ratio alice/reference;
a case reports their median and their range, and is marked unsteady (⚠) when the
ratios spread by more than :data:`SPREAD_WARN`. The 1-minute load average is sampled
before and after each case. The outputs are then compared on the timed inputs and on
every check input. Times are only ever reported as a ratio to the reference measured
in the same run; nothing here asserts a speed.

With ``device="cuda"`` the torch tensors among a case's inputs are moved to the GPU and
``torch.cuda.synchronize()`` brackets every timed block; cases without torch inputs
(NumPy- or JAX-only) are skipped with a note.

``python -m benchmarks`` discovers every ``benchmarks/bench_*.py``, runs the cases and
writes ``benchmarks/results/latest.json`` and ``latest.md``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import importlib
import importlib.metadata
import json
import os
import pkgutil
import platform
import statistics
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


PAUSE_S = 0.2
"""Seconds of rest before each timed block. After a call, OpenBLAS's and OpenMP's
worker threads keep spinning for a while (OpenBLAS: about 2^28 cycles); without the
rest they would steal the cores from the other side's first ~0.1 s, which made
torch's conv2d look 1.8× slower after a NumPy block than on its own."""

SPREAD_WARN = 0.25
"""A case whose per-round ratios spread by more than this (max/min - 1) is marked
unsteady: the machine changed speed during the run and the median is not to be
trusted (re-run it on a quieter machine)."""

WARN_MARK = "⚠"


def ratio_stats(alice_times: Sequence[float], ref_times: Sequence[float]) -> dict:
    """The per-round ratios ``alice_times[k] / ref_times[k]``, their median, min and
    max, the spread ``max/min - 1`` and whether it exceeds :data:`SPREAD_WARN`.

    >>> s = ratio_stats([2.0, 3.0, 4.0], [1.0, 1.0, 1.0])
    >>> s["ratio"], s["ratio_min"], s["ratio_max"], s["spread"], s["unsteady"]
    (3.0, 2.0, 4.0, 1.0, True)
    """
    ratios = [a / r for a, r in zip(alice_times, ref_times, strict=True)]
    if not ratios:
        raise ValueError("ratio_stats needs at least one round")
    lo, hi = min(ratios), max(ratios)
    spread = hi / lo - 1.0
    return {
        "ratio": statistics.median(ratios),
        "ratio_min": lo,
        "ratio_max": hi,
        "spread": spread,
        "unsteady": spread > SPREAD_WARN,
        "ratios": ratios,
    }


def _time_block(
    call: Callable[[], Any],
    number: int,
    clock: Callable[[], float],
    device_sync: Callable[[], Any],
) -> float:
    """Seconds per call over ``number`` calls in a row, with the garbage collector
    off (as :mod:`timeit` does). ``device_sync`` waits for queued device work: once
    before the clock starts and once before it stops."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        device_sync()
        start = clock()
        for _ in range(number):
            call()
        device_sync()
        return (clock() - start) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def _load_1min() -> float | None:
    """The 1-minute load average, or None where the OS does not report one."""
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


# --- devices --------------------------------------------------------------------------


def _is_torch_tensor(x: Any) -> bool:
    torch = sys.modules.get("torch")  # a case that made tensors has imported torch
    return torch is not None and isinstance(x, torch.Tensor)


def on_device(bench: Bench, device: str) -> Bench | None:
    """``bench`` with the torch tensors among its timed and check inputs moved to
    ``device``; None when no timed input is a torch tensor (the case is NumPy- or
    JAX-only and is not run there). The CPU returns ``bench`` unchanged."""
    if device == "cpu":
        return bench
    if not any(_is_torch_tensor(a) for a in bench.args):
        return None

    def move(args: tuple) -> tuple:
        return tuple(a.to(device) if _is_torch_tensor(a) else a for a in args)

    checks = {label: move(args) for label, args in bench.checks.items()}
    return dataclasses.replace(bench, args=move(bench.args), checks=checks)


def device_synchronizer(device: str) -> Callable[[], Any]:
    """What waits for ``device``'s queued work: nothing on the CPU,
    ``torch.cuda.synchronize`` on CUDA."""
    if device == "cpu":
        return lambda: None
    import torch

    return lambda: torch.cuda.synchronize(device)


# --- running a case -------------------------------------------------------------------


def run_case(
    case: Case,
    *,
    repeat: int = 7,
    number: int | None = None,
    seed: int = 0,
    pause: float = PAUSE_S,
    device: str = "cpu",
    clock: Callable[[], float] = time.perf_counter,
):
    """Time and check one case; return a JSON-ready dict.

    repeat : interleaved rounds, one ratio each (the table shows their median).
    number : calls per timed block (default: timeit's autorange on alice_lab's side).
    pause : seconds of rest before each timed block (:data:`PAUSE_S`).
    device : "cpu", or "cuda" to move torch inputs there (see :func:`on_device`);
        a case it cannot move comes back with a ``"skipped"`` reason and no times.
    clock : the timer (tests pass a fake one).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1; got {repeat}")
    load_before = _load_1min()
    bench = on_device(case.factory(np.random.default_rng(seed)), device)
    header = {
        "case": case.name,
        "shape": list(case.shape),
        "dtype": case.dtype,
        "reference": case.reference,
        "device": device,
    }
    if bench is None:
        return {**header, "skipped": "no torch tensor inputs (NumPy- or JAX-only)"}
    device_sync = device_synchronizer(device)

    def alice_call():
        return bench.sync(bench.alice(*bench.args))

    def ref_call():
        return bench.sync(bench.reference(*bench.args))

    alice_times, ref_times = [], []
    with warnings.catch_warnings():  # warnings are recorded by the checks below
        warnings.simplefilter("ignore")
        alice_call()  # warm-up (imports, caches, JIT)
        ref_call()
        device_sync()
        if number is None:
            timer = timeit.Timer(lambda: (alice_call(), device_sync()), timer=clock)
            number = max(timer.autorange()[0], 1)
        for _ in range(repeat):  # interleaved: one ratio per round
            time.sleep(pause)
            alice_times.append(_time_block(alice_call, number, clock, device_sync))
            time.sleep(pause)
            ref_times.append(_time_block(ref_call, number, clock, device_sync))
    stats = ratio_stats(alice_times, ref_times)
    load_after = _load_1min()

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
    loads = [x for x in (load_before, load_after) if x is not None]
    return {
        **header,
        "alice_s": statistics.median(alice_times),
        "reference_s": statistics.median(ref_times),
        **stats,
        "load_1min": [load_before, load_after],
        "load_max": max(loads) if loads else None,
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


def machine_info(device: str = "cpu") -> dict:
    """Where and with what the benchmarks ran, including the BLAS kernels in use,
    the ``OPENBLAS_*`` / ``MALLOC_*`` settings (see ``make bench``) and the device the
    torch cases ran on (:func:`device_info`)."""
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
        "load_average_1min": _load_1min(),
        "python": sys.version.split()[0],
        "versions": {name: v for name in LIBRARIES if (v := _version(name))},
        "blas": blas_info(),
        "openblas_env": {
            k: v for k, v in os.environ.items() if k.startswith(SETTINGS_PREFIXES)
        },
        "device": device_info(device),
    }


def device_info(device: str) -> dict:
    """The device's name (and for CUDA, the GPU's and torch's CUDA version)."""
    if device == "cpu":
        return {"name": "cpu"}
    import torch

    return {
        "name": device,
        "gpu": torch.cuda.get_device_name(device),
        "torch_cuda": torch.version.cuda,
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


def _ratio_cell(r: dict) -> str:
    """The median ratio, with :data:`WARN_MARK` when the rounds spread too much."""
    return f"{r['ratio']:.2f}" + (f" {WARN_MARK}" if r["unsteady"] else "")


def _range_cell(r: dict) -> str:
    return f"{r['ratio_min']:.2f}–{r['ratio_max']:.2f}"


def _load_cell(load: float | None) -> str:
    return "n/a" if load is None else f"{load:.1f}"


def to_markdown(results: list[dict], machine: dict) -> str:
    timed = [r for r in results if "skipped" not in r]
    skipped = [r for r in results if "skipped" in r]
    repeats = sorted({r["repeat"] for r in timed})
    lines = [
        "# Benchmarks: alice_lab against the frameworks' kernels",
        "",
        "Both sides are timed in the same run, in interleaved rounds (rounds per case: "
        f"{', '.join(map(str, repeats)) or 'none'}): in each round a block of `number` "
        "alice_lab calls, then a block of reference calls, each after a "
        f"{PAUSE_S} s rest so that one library's spinning worker threads do not slow "
        "the other. Each round gives one ratio alice_lab / reference; the table shows "
        "their **median** (below 1: alice_lab is faster) and their range. "
        f"{WARN_MARK} marks a case whose ratios spread by more than "
        f"{SPREAD_WARN:.0%} (max/min − 1): the machine was not steady enough to trust "
        "it. *Load* is the highest 1-minute load average sampled before and after the "
        "case (the benchmark itself counts for about 1), on "
        f"{machine['cpus_usable']} usable CPUs. Times are the medians per call. "
        "*Agree* checks the outputs on the timed input and on the extra inputs of the "
        "case (inf, -inf, NaN, extreme values).",
        "",
        "| case | alice / reference (median) | results agree | ratio range | load "
        "| alice_lab | reference time | reference | shape | dtype |",
        "|---|---:|:---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in timed:
        shape = "×".join(str(n) for n in r["shape"])
        agree = "yes" if r["agree"] else "**NO**"
        lines.append(
            f"| {r['case']} | {_ratio_cell(r)} | {agree} | {_range_cell(r)} "
            f"| {_load_cell(r['load_max'])} | {_ms(r['alice_s'])} "
            f"| {_ms(r['reference_s'])} | `{r['reference']}` | {shape} | {r['dtype']} |"
        )
    if skipped:
        device = skipped[0]["device"]
        lines += ["", f"Not run on {device}:", ""]
        lines += [f"- **{r['case']}**: {r['skipped']}" for r in skipped]
    lines += ["", "Checks per case:", ""]
    for r in timed:
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
        *_device_lines(machine),
        f"- {machine['platform']}, Python {machine['python']}",
        f"- {versions}",
        *_blas_lines(machine),
        f"- run on {machine['date_utc']} with `python -m benchmarks`",
        "",
    ]
    return "\n".join(lines)


def _device_lines(machine: dict) -> list[str]:
    device = machine.get("device") or {"name": "cpu"}
    if device["name"] == "cpu":
        return []
    return [
        f"- torch cases on {device['name']}: {device.get('gpu')} "
        f"(torch CUDA {device.get('torch_cuda')})"
    ]


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


def results_stem(device: str = "cpu") -> str:
    """``latest`` for the CPU run the site shows, ``latest-cuda`` (etc.) otherwise,
    so that a GPU run never overwrites the CPU table."""
    return "latest" if device == "cpu" else "latest-" + device.replace(":", "")


def write_results(
    results: list[dict], machine: dict, out: Path = RESULTS_DIR, stem: str = "latest"
):
    """Write ``{stem}.json`` and ``{stem}.md`` into ``out`` (atomically)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"machine": machine, "results": results}
    written = []
    for name, text in [
        (f"{stem}.json", json.dumps(payload, indent=2) + "\n"),
        (f"{stem}.md", to_markdown(results, machine)),
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
    device: str = "cpu",
    log: Callable[[str], Any] = print,
) -> list[dict]:
    results = []
    for case in cases:
        r = run_case(
            case, repeat=repeat, number=number, seed=seed, pause=pause, device=device
        )
        results.append(r)
        if "skipped" in r:
            log(f"{case.name:<24} skipped on {device}: {r['skipped']}")
            continue
        log(
            f"{case.name:<24} alice {_ms(r['alice_s']):>10}  {case.reference} "
            f"{_ms(r['reference_s']):>10}  ratio {_ratio_cell(r)} "
            f"({_range_cell(r)})  "
            f"load {_load_cell(r['load_max'])}  agree {'yes' if r['agree'] else 'NO'}"
        )
    return results
