"""Build the site into _build/html with Jupyter Book 1, failing on any warning.

``--fast`` builds the test copy of the site instead: notebooks run with ALICE_FAST=1
(smaller experiments, same checks) into _build/fast/_build/html, with a cache of its
own, so `make test` stays quick and never mixes its outputs into the real site.

The notebooks are executed first, two at a time, by ``tools/notebook_runs.py``, which
stores each run in Jupyter Book's execution cache and keeps a record of it (the test
suite and the claims page use the same runs). A notebook is executed again only when
its cells or the library (``alice_lab``, the benchmark results a page shows) changed
since its last successful run. Sphinx then renders the pages and executes nothing
(about 8 s for the whole site, so it runs in one process: Jupyter Book's numbering
extension does not declare parallel reading safe); it re-reads every page each time,
so that a warning cannot hide behind an incremental build.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import notebook_runs  # noqa: E402
import timings  # noqa: E402

ROOT = notebook_runs.ROOT


def build_site(out: Path) -> int:
    """Jupyter Book's ``build --all -W -n --keep-going`` into ``out/html``."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        ROOT,
        out / "html",
        use_external_toc=True,
        noconfig=True,
        path_config=str(ROOT / "_config.yml"),
        confoverrides={
            "external_toc_path": (ROOT / "_toc.yml").as_posix(),
            "latex_individualpages": False,
            "nitpicky": True,
        },
        builder="html",
        warningiserror=True,
        keep_going=True,
        freshenv=True,
    )
    return 1 if isinstance(result, Exception) else int(result or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the quick test copy")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.fast:
        os.environ["ALICE_FAST"] = "1"
    else:
        os.environ.pop("ALICE_FAST", None)
    out = notebook_runs.build_dir(args.fast)
    jobs = max(1, args.jobs)

    start = time.perf_counter()
    records = notebook_runs.run_all(fast=args.fast, jobs=jobs)
    ran = time.perf_counter() - start
    failed = [r for r in records.values() if not r.ok]
    for r in failed:
        print(f"\n{r.name} FAILED in cell {r.failed_cell}:\n{r.error}")
    if failed:
        print(f"book build FAILED: {len(failed)} notebook(s) raised (tracebacks above)")
        return 1

    start_site = time.perf_counter()
    code = build_site(out)
    rendered = time.perf_counter() - start_site
    timings.record(
        "site build",
        {"executing notebooks": ran, "rendering pages (Sphinx)": rendered},
        fast=args.fast,
    )
    total = ran + rendered
    if code != 0:
        print(f"book build FAILED after {total:.0f} s (see the warnings above)")
        return code
    print(
        f"book built in {total:.0f} s (notebooks {ran:.0f} s, pages {rendered:.0f} s): "
        f"{out / 'html' / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
