"""Check the companion on a machine with a CUDA GPU, in under 8 minutes.

    .venv/bin/python tools/gpu_check.py --out DIR

1. runs the CUDA variants of the parity tests (the ``backend`` fixture's
   ``torch-cuda`` parameter, and any other test with "cuda" in its name):
   ``pytest tests -k cuda`` on up to :data:`MAX_WORKERS` xdist workers;
2. runs the benchmarks with ``python -m benchmarks --device cuda``: the torch inputs
   of each case move to the GPU and ``torch.cuda.synchronize()`` brackets every timed
   block; NumPy- and JAX-only cases are listed as skipped;
3. executes the notebooks that pick a device (:data:`DEVICE_NOTEBOOKS`: they train on
   CUDA when there is one) with ``tools/notebook_runs.py --fast``;
4. writes ``DIR/gpu_check.md`` (device, torch version, test counts, benchmark table,
   notebooks) and ``DIR/gpu_check.json``, beside the logs of every stage.

Each stage runs in a subprocess with its own time limit (:data:`TESTS_LIMIT_S`,
:data:`BENCH_LIMIT_S`, :data:`NOTEBOOKS_LIMIT_S`) and prints its progress. Exit code
0 when every selected test passed, every benchmark agreed with its reference and the
notebooks ran, 1 otherwise (or when a stage ran out of time), 2 when torch sees no
CUDA device (a one-line message, nothing run).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS_LIMIT_S = 240
BENCH_LIMIT_S = 120
NOTEBOOKS_LIMIT_S = 90
"""Seconds per stage: with start-up and reporting the whole check stays under 8
minutes."""
DEVICE_NOTEBOOKS = (
    "book/ch05_fully_connected.ipynb",  # DEVICE = backend.device("torch")
    "book/ch11_transformers_in_practice.ipynb",  # fp16 attention timings on CUDA
)
MAX_WORKERS = 8
"""xdist workers for the tests: each one opens its own CUDA context."""
BENCH_ENV_UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
BENCH_ENV_SET = {
    "MALLOC_MMAP_THRESHOLD_": "268435456",
    "MALLOC_TRIM_THRESHOLD_": "1073741824",
}
"""The settings of ``make bench`` (see the Makefile's BENCH_ENV)."""


# --- the device ---------------------------------------------------------------------


def cuda_device() -> dict | None:
    """Name and versions of the first CUDA device torch sees, or None."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return {
        "name": torch.cuda.get_device_name(0),
        "count": torch.cuda.device_count(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
    }


# --- running a stage ----------------------------------------------------------------


@dataclass
class Stage:
    """How one subprocess went: "ok", "failed" (non-zero exit) or "timeout"."""

    name: str
    command: list[str]
    status: str
    returncode: int | None
    seconds: float
    log: str


def run_stage(
    name: str,
    command: Sequence[str],
    limit_s: float,
    log_path: Path,
    env: dict | None = None,
    echo=print,
) -> Stage:
    """Run ``command`` from the repository root, copy its output to ``log_path``
    and, line by line, to ``echo``; kill it (and its children) after ``limit_s``.
    ``name`` labels the result."""
    start = time.monotonic()
    with (
        open(log_path, "w", encoding="utf-8") as log,
        subprocess.Popen(
            list(command),
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, to kill it whole
        ) as proc,
    ):

        def copy_output():
            for line in proc.stdout:
                log.write(line)
                echo(line.rstrip())

        reader = threading.Thread(target=copy_output, daemon=True)
        reader.start()
        try:
            returncode = proc.wait(timeout=limit_s)
            status = "ok" if returncode == 0 else "failed"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            returncode, status = None, "timeout"
        reader.join(timeout=5)
    return Stage(
        name,
        list(command),
        status,
        returncode,
        round(time.monotonic() - start, 1),
        log_path.name,
    )


def tests_command(junit: Path, workers: int) -> list[str]:
    """``pytest -k cuda`` over tests/, on ``workers`` xdist workers (none for 1)."""
    cmd = [sys.executable, "-m", "pytest", "tests", "-k", "cuda", "-q"]
    cmd += ["-rfE", f"--junitxml={junit}"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    return cmd


SUMMARY = re.compile(r"\b\d+ (passed|failed|skipped|deselected|errors?)\b")
"""A word of pytest's last line ("3 passed, 1 skipped in 2.0s")."""


def tests_progress(line: str) -> str | None:
    """From a line of ``pytest -q`` output, what is worth printing: the percentage of
    a line of dots, failures and the summary; None for the rest."""
    text = line.strip()
    dots, _, percent = text.partition("[")
    if percent and set(dots.strip()) <= set(".sFExX"):
        return f"tests: {percent.strip(' ]')} done"
    if text.startswith(("FAILED", "ERROR")) or SUMMARY.search(text):
        return f"tests: {text}"
    return None


def tests_workers() -> int:
    """``-n auto`` capped at :data:`MAX_WORKERS`; 1 when pytest-xdist is missing."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        return 1
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def parse_junit(path: Path) -> dict:
    """Counts of a pytest JUnit XML report: passed, failed, errors, skipped."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for key in total:
            total[key] += int(suite.get(key, 0))
    not_passed = total["failures"] + total["errors"] + total["skipped"]
    return {
        "passed": total["tests"] - not_passed,
        "failed": total["failures"],
        "errors": total["errors"],
        "skipped": total["skipped"],
    }


def notebooks_command() -> list[str]:
    """The notebooks that use a device, run as the site build runs them."""
    runner = str(ROOT / "tools" / "notebook_runs.py")
    return [sys.executable, runner, "--fast", "--force", *DEVICE_NOTEBOOKS]


def bench_command(out: Path) -> list[str]:
    """``python -m benchmarks --device cuda``, results into ``out``."""
    return [sys.executable, "-m", "benchmarks", "--device", "cuda", "--out", str(out)]


def bench_env() -> dict:
    """The environment of ``make bench``: OpenBLAS's own kernels, glibc keeping
    freed memory."""
    env = {k: v for k, v in os.environ.items() if k not in BENCH_ENV_UNSET}
    return {**env, **BENCH_ENV_SET}


# --- the report ---------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def to_markdown(report: dict) -> str:
    """The results as Markdown: device, test counts, benchmark table."""
    dev, tests, bench = report["device"], report["tests"], report["benchmarks"]
    lines = [
        "# GPU check",
        "",
        f"- Device: {dev['name']} ({dev['count']} visible), CUDA {dev['cuda']}, "
        f"torch {dev['torch']}",
        f"- Run on {report['date_utc']}, {report['seconds']:.0f} s in all, "
        "with `python tools/gpu_check.py`",
        "",
        "## Parity tests on CUDA (`pytest tests -k cuda`)",
        "",
        "| status | passed | failed | errors | skipped | time |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    counts = tests.get("counts") or {}
    cells = [str(counts.get(k, "–")) for k in ("passed", "failed", "errors", "skipped")]
    lines.append(f"| {tests['status']} | {' | '.join(cells)} | {tests['seconds']} s |")
    lines += [
        "",
        f"Log: `{tests['log']}`.",
        "",
        "## Benchmarks on CUDA (`python -m benchmarks --device cuda`)",
        "",
        f"Status: {bench['status']} ({bench['seconds']} s; log: `{bench['log']}`). "
        "Ratios are alice_lab / reference, the median of the interleaved rounds; "
        "⚠ marks a spread of the rounds above 25%.",
        "",
    ]
    timed = [r for r in bench["results"] if "skipped" not in r]
    skipped = [r["case"] for r in bench["results"] if "skipped" in r]
    if timed:
        lines += [
            "| case | alice / reference (median) | results agree | ratio range "
            "| alice_lab | reference time | reference |",
            "|---|---:|:---:|---:|---:|---:|---|",
        ]
        for r in timed:
            mark = " ⚠" if r["unsteady"] else ""
            agree = "yes" if r["agree"] else "**NO**"
            lines.append(
                f"| {r['case']} | {r['ratio']:.2f}{mark} | {agree} "
                f"| {r['ratio_min']:.2f}–{r['ratio_max']:.2f} | {_ms(r['alice_s'])} "
                f"| {_ms(r['reference_s'])} | `{r['reference']}` |"
            )
    else:
        lines.append("No benchmark case ran on the GPU.")
    if skipped:
        lines += [
            "",
            "Not run on the GPU (no torch tensor inputs: NumPy- or JAX-only): "
            + ", ".join(skipped)
            + ".",
        ]
    nbs = report.get("notebooks")
    if nbs:
        lines += [
            "",
            "## Notebooks that use the device (`tools/notebook_runs.py --fast`)",
            "",
            f"{', '.join(f'`{n}`' for n in DEVICE_NOTEBOOKS)}: {nbs['status']} "
            f"in {nbs['seconds']} s (log: `{nbs['log']}`).",
        ]
    return "\n".join(lines) + "\n"


def write_report(report: dict, out: Path) -> list[Path]:
    """Write ``gpu_check.json`` and ``gpu_check.md`` into ``out``."""
    paths = [out / "gpu_check.json", out / "gpu_check.md"]
    paths[0].write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    paths[1].write_text(to_markdown(report), encoding="utf-8")
    return paths


def passed(report: dict) -> bool:
    """Every stage finished, no test failed, every benchmark agreed."""
    tests, bench = report["tests"], report["benchmarks"]
    counts = tests.get("counts") or {}
    notebooks = report.get("notebooks", {"status": "ok"})
    return (
        tests["status"] == "ok"
        and notebooks["status"] == "ok"
        and not counts.get("failed")
        and not counts.get("errors")
        and bench["status"] == "ok"
        and all(r["agree"] for r in bench["results"] if "skipped" not in r)
    )


# --- main ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/gpu_check.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "_build" / "gpu-check",
        help="folder for gpu_check.md, gpu_check.json and the logs "
        "(default: _build/gpu-check)",
    )
    args = parser.parse_args(argv)

    device = cuda_device()
    if device is None:
        print(
            "gpu_check: torch sees no CUDA device on this machine; nothing to check",
            file=sys.stderr,
        )
        return 2
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()

    def progress(text: str) -> None:
        print(f"[{time.monotonic() - t0:5.0f} s] {text}", flush=True)

    progress(
        f"device: {device['name']}, torch {device['torch']}, CUDA {device['cuda']}"
    )

    workers = tests_workers()
    junit = out / "pytest-cuda.xml"
    results_json = out / "latest-cuda.json"
    for stale in (junit, results_json):  # from an earlier run into the same folder
        stale.unlink(missing_ok=True)

    def echo_tests(line: str) -> None:
        if (shown := tests_progress(line)) is not None:
            progress(shown)

    progress(f"tests: pytest -k cuda on {workers} worker(s), limit {TESTS_LIMIT_S} s")
    tests = run_stage(
        "tests",
        tests_command(junit, workers),
        TESTS_LIMIT_S,
        out / "pytest-cuda.log",
        echo=echo_tests,
    )
    tests_report = asdict(tests)
    if junit.exists():
        tests_report["counts"] = parse_junit(junit)
        if tests.returncode == 5:  # pytest: no test was selected
            tests_report["status"] = "no tests"
    progress(
        f"tests: {tests.status} in {tests.seconds} s: {tests_report.get('counts')}"
    )

    progress(f"benchmarks: python -m benchmarks --device cuda, limit {BENCH_LIMIT_S} s")
    bench = run_stage(
        "bench",
        bench_command(out),
        BENCH_LIMIT_S,
        out / "bench-cuda.log",
        env=bench_env(),
        echo=lambda line: progress(f"bench: {line}"),
    )
    bench_report = {**asdict(bench), "results": []}
    if results_json.exists() and bench.status != "timeout":
        bench_report["results"] = json.loads(results_json.read_text())["results"]
        if bench.returncode == 1:  # written, but some case disagreed (see the table)
            bench_report["status"] = "disagree"
    progress(f"benchmarks: {bench_report['status']} in {bench.seconds} s")

    progress(f"notebooks: {', '.join(DEVICE_NOTEBOOKS)}, limit {NOTEBOOKS_LIMIT_S} s")
    notebooks = run_stage(
        "notebooks",
        notebooks_command(),
        NOTEBOOKS_LIMIT_S,
        out / "notebooks-cuda.log",
        echo=lambda line: progress(f"notebooks: {line}"),
    )
    progress(f"notebooks: {notebooks.status} in {notebooks.seconds} s")

    report = {
        "device": device,
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(time.monotonic() - t0, 1),
        "tests": tests_report,
        "benchmarks": bench_report,
        "notebooks": asdict(notebooks),
    }
    for path in write_report(report, out):
        progress(f"wrote {path}")
    return 0 if passed(report) else 1


if __name__ == "__main__":
    sys.exit(main())
