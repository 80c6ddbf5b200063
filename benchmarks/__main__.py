"""``python -m benchmarks [-k PATTERN] [--repeat N] [--out DIR]`` from the repo root.

Runs every registered case (``benchmarks/bench_*.py``), prints one line per case and
writes ``latest.json`` and ``latest.md`` (default: ``benchmarks/results/``). Exits 1
when some case's results disagree with its reference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import harness


def main(
    argv: list[str] | None = None, registry: harness.Registry | None = None
) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "-k", "--filter", help="run only cases whose name contains this"
    )
    parser.add_argument("--repeat", type=int, default=7, help="repeats (best is kept)")
    parser.add_argument(
        "--number",
        type=int,
        default=None,
        help="calls per repeat (default: timeit's autorange)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pause",
        type=float,
        default=harness.PAUSE_S,
        help="seconds of rest before each timed block (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=harness.RESULTS_DIR,
        help="folder for latest.json and latest.md",
    )
    args = parser.parse_args(argv)

    if registry is None:
        harness.discover()
        registry = harness.REGISTRY
    cases = registry.select(args.filter)
    if not cases:
        parser.error(
            f"no benchmark case matches {args.filter!r}; "
            f"known: {', '.join(registry.cases)}"
        )
    machine = harness.machine_info()  # before the run: the load is not ours
    results = harness.run(
        cases, repeat=args.repeat, number=args.number, seed=args.seed, pause=args.pause
    )
    for path in harness.write_results(results, machine, args.out):
        print(f"wrote {path}")
    return 0 if all(r["agree"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
