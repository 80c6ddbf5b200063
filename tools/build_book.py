"""Build the site into _build/html with Jupyter Book 1, failing on any warning.

``--fast`` builds the test copy of the site instead: notebooks run with ALICE_FAST=1
(smaller experiments, same checks) into _build/fast/_build/html, with a cache of its
own, so `make test` stays quick and never mixes its outputs into the real site.

Notebooks are executed with jupyter-cache, which keys on the notebooks' code cells
only. When alice_lab (or the benchmark table a page shows) changes, a cached output
may no longer be what the code produces, so this script drops the cache whenever the
hash of those files changes. `--all` makes Sphinx re-read every page, so a failing
notebook cannot hide behind an incremental build.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WATCHED = ["alice_lab/**/*.py", "benchmarks/*.py", "benchmarks/results/latest.md",
           "benchmarks/results/curves.json"]


def inputs_hash() -> str:
    digest = hashlib.sha256()
    for pattern in WATCHED:
        for path in sorted(ROOT.glob(pattern)):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the quick test copy")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.fast:
        out = ROOT / "_build" / "fast"
        env["ALICE_FAST"] = "1"
    else:
        out = ROOT
        env.pop("ALICE_FAST", None)
    BUILD = out / "_build"
    CACHE = BUILD / ".jupyter_cache"
    STAMP = BUILD / ".inputs.sha256"
    current = inputs_hash()
    if CACHE.exists() and (not STAMP.exists() or STAMP.read_text() != current):
        print("alice_lab changed since the last build: re-executing every notebook")
        shutil.rmtree(CACHE)
    start = time.perf_counter()
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", "--all", "-W", "-n", "--keep-going", str(ROOT)]
    if args.fast:
        cmd += ["--path-output", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(f"book build FAILED after {seconds:.0f} s (see the warnings above)")
        return done.returncode
    BUILD.mkdir(parents=True, exist_ok=True)
    STAMP.write_text(current)
    print(f"book built in {seconds:.0f} s: {BUILD / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
