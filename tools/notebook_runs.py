"""Execute the site's notebooks once, in parallel, and keep what each run did.

`make book` and `make test` (through ``tools/build_book.py``) call :func:`run_all`
before Jupyter Book renders the site. Every notebook of the table of contents that
Jupyter Book would execute runs here in a fresh kernel, ``jobs`` at a time, and each
successful run is stored in Jupyter Book's own execution cache (jupyter-cache keyed on
the code cells), so the site build finds every notebook executed and runs nothing.
The same runs are the ones the test suite checks (``tests/test_notebooks.py``: every
cell ran, none raised) and the Claims and Errata pages list (each ``claims.verify``
call writes its results to the notebook's log while the chapter runs, and
``tools/claims_pages.py`` makes the pages from the logs instead of running every check
again).

Kept under ``<build>/executed/``:

- ``<stem>.ipynb``: the executed notebook (outputs included);
- ``<stem>.claims.jsonl``: one line per claim the notebook verified (id, chapter,
  whether it held, what its check measured, the anchor of its block on the page);
- ``records.json``: per notebook, whether it ran, how long it took, the failing cell's
  traceback if one raised, and hashes of the notebook and of ``alice_lab`` so that a
  record is only trusted while both are unchanged.

``python tools/notebook_runs.py [--fast] [--jobs N] [NAME ...]`` runs them by hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a notebook's outputs depend on besides its own cells.
WATCHED = [
    "alice_lab/**/*.py",
    "alice_course/**/*.py",
    "benchmarks/*.py",
    "benchmarks/results/latest.md",
    "benchmarks/results/curves.json",
]
TIMEOUT_S = 600
#: frames per static view in the quick build (alice_course.widgets._anim.site_frames)
STATIC_FRAMES = 12
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def inputs_hash() -> str:
    """SHA-256 of every watched file (path and bytes)."""
    digest = hashlib.sha256()
    for pattern in WATCHED:
        for path in sorted(ROOT.glob(pattern)):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build_dir(fast: bool) -> Path:
    """Jupyter Book's output folder: the quick test copy or the real site
    (``ALICE_BUILD_DIR`` moves both elsewhere, e.g. for ``make test-compat``)."""
    if os.environ.get("ALICE_BUILD_DIR"):
        base = Path(os.environ["ALICE_BUILD_DIR"]).resolve()
        return base / ("fast" if fast else "full")
    return ROOT / "_build" / "fast" / "_build" if fast else ROOT / "_build"


def executed_dir(fast: bool) -> Path:
    return build_dir(fast) / "executed"


def site_notebooks() -> list[str]:
    """The ``.ipynb`` pages of ``_toc.yml`` that the site build executes (the student
    labs are excluded in ``_config.yml``: their stubs raise by design)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    found = [f + ".ipynb" for f in files if (ROOT / (f + ".ipynb")).exists()]
    return [f for f in found if not f.startswith("labs/student/")]


@dataclass
class Record:
    """What one execution of one notebook did."""

    name: str  # path relative to the repository, e.g. "book/ch02_preliminaries.ipynb"
    ok: bool
    seconds: float
    notebook_sha: str  # of the code cells, as Jupyter Book's cache hashes them
    inputs_sha: str
    fast: bool
    error: str = ""  # the failing cell's source and traceback, ANSI codes removed
    failed_cell: int | None = None  # index among the notebook's cells

    @property
    def stem(self) -> str:
        return Path(self.name).stem


def code_sha(path: Path, fast: bool) -> str:
    """The hash Jupyter Book's cache gives the notebook: its code cells and kernel, so
    that editing the text alone does not make a notebook run again."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return _cache(fast).create_hashed_notebook(nb)[1]


#: Thread pools of the numerical libraries, sized by the kernel's share of the cores.
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _kernel_env(fast: bool, claims_log: Path, threads: int) -> dict[str, str]:
    """The kernel's environment. With two kernels on two cores, each library's default
    of one thread per core makes spinning threads fight over the cores (a small torch
    training loop ran 5x slower), so each kernel gets its share of the cores."""
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env.update({var: str(threads) for var in THREAD_VARS})
    if fast:  # the quick test copy: smaller experiments, fewer animation frames
        env["ALICE_FAST"] = "1"
        env["ALICE_STATIC_FRAMES"] = str(STATIC_FRAMES)
    else:
        env.pop("ALICE_FAST", None)
        env.pop("ALICE_STATIC_FRAMES", None)
    env["ALICE_CLAIMS_LOG"] = str(claims_log)
    return env


def _failed_cell(nb, err) -> int | None:
    """Index of the first code cell whose outputs hold an error."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(
            o.get("output_type") == "error" for o in cell.get("outputs", [])
        ):
            return i
    return None


def execute(
    name: str, *, fast: bool, inputs_sha: str | None = None, threads: int | None = None
) -> Record:
    """Run notebook ``name`` (relative to the repository) in a fresh kernel, from its
    own folder, and keep the executed copy, its claim log and its record."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = ROOT / name
    out = executed_dir(fast)
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"{path.stem}.claims.jsonl"
    log.unlink(missing_ok=True)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=TIMEOUT_S,
        allow_errors=False,
        # no timestamps in the cells' metadata: Jupyter Book's cache hashes it
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    threads = threads or os.cpu_count() or 1
    start = time.perf_counter()
    error, failed = "", None
    try:  # the kernel's own messages go to a log beside the executed notebook
        with open(out / f"{path.stem}.kernel.log", "w") as kernel_log:
            client.execute(env=_kernel_env(fast, log, threads), stderr=kernel_log)
    except CellExecutionError as err:
        error, failed = _ANSI.sub("", str(err)), _failed_cell(nb, err)
    except Exception as err:  # a kernel that died or timed out
        error = f"{type(err).__name__}: {_ANSI.sub('', str(err))}"
    seconds = time.perf_counter() - start
    nbformat.write(nb, out / path.name)
    record = Record(
        name=name,
        ok=not error,
        seconds=round(seconds, 2),
        notebook_sha=code_sha(path, fast),
        inputs_sha=inputs_sha or inputs_hash(),
        fast=fast,
        error=error,
        failed_cell=failed,
    )
    if record.ok:
        _store_in_cache(nb, path, fast, seconds)
    return record


def _cache(fast: bool):
    from jupyter_cache import get_cache

    return get_cache(str(build_dir(fast) / ".jupyter_cache"))


def _store_in_cache(nb, path: Path, fast: bool, seconds: float) -> None:
    """Put the executed notebook where Jupyter Book's cache mode looks it up."""
    from jupyter_cache.base import CacheBundleIn

    _cache(fast).cache_notebook_bundle(
        CacheBundleIn(nb, str(path), data={"execution_seconds": seconds}),
        check_validity=False,
        overwrite=True,
    )


def is_cached(name: str, fast: bool) -> bool:
    """True when Jupyter Book would take ``name``'s outputs from the cache."""
    import nbformat

    nb = nbformat.read(ROOT / name, as_version=4)
    try:
        _cache(fast).match_cache_notebook(nb)
    except KeyError:
        return False
    return True


def load_records(fast: bool) -> dict[str, Record]:
    path = executed_dir(fast) / "records.json"
    if not path.exists():
        return {}
    return {k: Record(**v) for k, v in json.loads(path.read_text()).items()}


def save_records(records: dict[str, Record], fast: bool) -> None:
    path = executed_dir(fast) / "records.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {k: asdict(v) for k, v in sorted(records.items())}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def is_fresh(record: Record | None, *, inputs_sha: str) -> bool:
    """A record stands for the current notebook and library."""
    return (
        record is not None
        and record.notebook_sha == code_sha(ROOT / record.name, record.fast)
        and record.inputs_sha == inputs_sha
    )


def run_all(
    names: list[str] | None = None, *, fast: bool, jobs: int = 2, force: bool = False
) -> dict[str, Record]:
    """Execute every notebook in ``names`` (default: the site's) that has no fresh,
    successful record in the cache, ``jobs`` at a time, longest first. Returns every
    record, old and new."""
    names = site_notebooks() if names is None else names
    sha = inputs_hash()
    records = load_records(fast)
    stale = [
        n
        for n in names
        if force
        or not (is_fresh(records.get(n), inputs_sha=sha) and records[n].ok)
        or not is_cached(n, fast)
    ]
    order = sorted(stale, key=lambda n: -(records[n].seconds if n in records else 1e9))
    label = "quick" if fast else "full"
    print(
        f"executing {len(stale)} of {len(names)} notebooks ({label}, {jobs} at a time)"
    )
    threads = max(1, (os.cpu_count() or 1) // max(1, jobs))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        runs = [
            pool.submit(execute, n, fast=fast, inputs_sha=sha, threads=threads)
            for n in order
        ]
        for done in as_completed(runs):
            rec = done.result()
            records[rec.name] = rec
            mark = "ok " if rec.ok else "FAILED"
            print(f"  {mark} {rec.seconds:6.1f} s  {rec.name}", flush=True)
            save_records(records, fast)
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks (default: the site's)")
    parser.add_argument("--fast", action="store_true", help="ALICE_FAST=1 runs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--force", action="store_true", help="ignore earlier runs")
    args = parser.parse_args(argv)
    records = run_all(
        args.names or None, fast=args.fast, jobs=args.jobs, force=args.force
    )
    failed = [r for r in records.values() if not r.ok]
    for r in failed:
        print(f"\n{r.name} failed in cell {r.failed_cell}:\n{r.error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
