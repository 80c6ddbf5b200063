"""Where `make test`'s time goes.

Each stage of ``make test`` leaves its seconds in ``_build/timings/``: the environment
set-up (``mark``/``stop`` around it in the Makefile), the site build (executing the
notebooks, rendering the pages: ``tools/build_book.py``), each notebook's execution
(``tools/notebook_runs.py``'s records) and the test suite with its slowest tests
(``tests/conftest.py``). ``python3 tools/timings.py report`` prints one table and
writes it to ``_build/timings.md`` and ``_build/timings.json``, so that a change in
cost can be compared with an earlier run. Standard library only: the Makefile calls it
before the virtual environment exists.

    python3 tools/timings.py mark make-test     # start a clock (clears old stages)
    python3 tools/timings.py stop setup         # seconds since `mark setup`
    python3 tools/timings.py report [--fast]    # the table
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "_build" / "timings"
ORDER = ["setup", "site build", "pytest"]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def mark(name: str) -> None:
    """Start the clock ``name`` (``make-test`` also drops the last run's stages)."""
    if name == "make-test" and DIR.exists():
        for old in DIR.glob("*.json"):
            old.unlink()
    DIR.mkdir(parents=True, exist_ok=True)
    (DIR / f"{_slug(name)}.start").write_text(repr(time.time()))


def elapsed(name: str) -> float | None:
    start = DIR / f"{_slug(name)}.start"
    return time.time() - float(start.read_text()) if start.exists() else None


def stop(name: str) -> None:
    """Record the seconds since ``mark(name)`` as the stage ``name``."""
    seconds = elapsed(name)
    if seconds is not None:
        record(name, {name: seconds})


def record(stage: str, parts: dict[str, float], **extra) -> None:
    """Keep ``parts`` (label -> seconds) as stage ``stage`` of the current run."""
    DIR.mkdir(parents=True, exist_ok=True)
    data = {"stage": stage, "parts": {k: round(v, 1) for k, v in parts.items()}}
    data.update(extra)
    (DIR / f"{_slug(stage)}.json").write_text(json.dumps(data, indent=1) + "\n")


def _stages() -> dict[str, dict]:
    found = {}
    for path in sorted(DIR.glob("*.json")) if DIR.exists() else []:
        data = json.loads(path.read_text())
        found[data["stage"]] = data
    return dict(sorted(found.items(), key=lambda kv: _rank(kv[0])))


def _rank(stage: str) -> int:
    return ORDER.index(stage) if stage in ORDER else len(ORDER)


def _notebooks(fast: bool) -> list[tuple[str, float, bool]]:
    sub = ROOT / "_build" / "fast" / "_build" if fast else ROOT / "_build"
    path = sub / "executed" / "records.json"
    if not path.exists():
        return []
    records = json.loads(path.read_text())
    rows = [(k, v["seconds"], v["ok"]) for k, v in records.items()]
    return sorted(rows, key=lambda r: -r[1])


def report(fast: bool = True) -> str:
    """The timing table of the last run, as Markdown; also written under _build/."""
    lines = ["| stage | seconds |", "|---|---:|"]
    stages = _stages()
    if "setup" not in stages:
        lines.append("| setup (environment already installed) | 0 |")
    for stage, data in stages.items():
        for label, seconds in data["parts"].items():
            name = stage if label == stage else f"{stage}: {label}"
            lines.append(f"| {name} | {seconds:.0f} |")
    total = elapsed("make-test")
    if total is not None:
        lines.append(f"| **total** | **{total:.0f}** |")
    notebooks = _notebooks(fast)
    if notebooks:
        lines += ["", "| notebook (one execution each) | seconds |", "|---|---:|"]
        lines += [
            f"| {n}{'' if ok else ' (FAILED)'} | {s:.1f} |" for n, s, ok in notebooks
        ]
    busy = stages.get("pytest", {}).get("cores_busy")
    if busy is not None:
        lines += [
            "",
            f"During pytest the machine's cores were busy {busy:.2f} of "
            f"{os.cpu_count()} on average (all processes, from /proc/stat).",
        ]
    files = stages.get("pytest", {}).get("files", [])
    if files:
        head = "| test files by time (all their tests) | seconds |"
        lines += ["", head, "|---|---:|"]
        lines += [f"| `{t}` | {s:.1f} |" for t, s in files]
    slowest = stages.get("pytest", {}).get("slowest", [])
    if slowest:
        lines += ["", "| slowest tests | seconds |", "|---|---:|"]
        lines += [f"| `{t}` | {s:.1f} |" for t, s in slowest]
    text = "\n".join(lines) + "\n"
    out = ROOT / "_build"
    out.mkdir(exist_ok=True)
    (out / "timings.md").write_text(text)
    summary = {"total": total, "stages": stages, "notebooks": notebooks}
    (out / "timings.json").write_text(json.dumps(summary, indent=1) + "\n")
    return text


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] in ("mark", "stop"):
        (mark if argv[0] == "mark" else stop)(argv[1])
        return 0
    if argv and argv[0] == "report":
        print("\nWhere the time went (also in _build/timings.md):\n")
        print(report(fast="--fast" in argv))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
