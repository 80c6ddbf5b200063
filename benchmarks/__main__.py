"""``python -m benchmarks [-k PATTERN] [--repeat N] [--device cpu|cuda] [--out DIR]``
from the repo root.

Runs every registered case (``benchmarks/bench_*.py``), or those whose name contains
PATTERN, prints one line per case and writes ``latest.json`` and ``latest.md``
(default: ``benchmarks/results/``; ``latest-cuda.*`` with ``--device cuda``). Exits 1
when some case's results disagree with its reference.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from benchmarks import harness

MIN_REPEAT = 5
"""Fewest interleaved rounds a run may write: a median of fewer means little."""


def device_arg(text: str) -> str:
    """``--device``'s value: ``cpu``, ``cuda`` or ``cuda:N``."""
    if text == "cpu" or re.fullmatch(r"cuda(:\d+)?", text):
        return text
    raise argparse.ArgumentTypeError(f"expected cpu, cuda or cuda:N; got {text!r}")


def cuda_problem(device: str) -> str | None:
    """Why ``device`` cannot be used here (None when it can, or for the CPU)."""
    if device == "cpu":
        return None
    try:
        import torch
    except ImportError:
        return f"--device {device} needs torch, which is not installed"
    if not torch.cuda.is_available():
        return f"--device {device}: torch sees no CUDA device on this machine"
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        return f"--device {device}: only {torch.cuda.device_count()} CUDA device(s)"
    return None


def main(
    argv: list[str] | None = None, registry: harness.Registry | None = None
) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "-k", "--filter", help="run only cases whose name contains this"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=7,
        help=f"interleaved rounds, one ratio each; the median is reported "
        f"(at least {MIN_REPEAT}; default: %(default)s)",
    )
    parser.add_argument(
        "--number",
        type=int,
        default=None,
        help="calls per timed block (default: timeit's autorange)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pause",
        type=float,
        default=harness.PAUSE_S,
        help="seconds of rest before each timed block (default: %(default)s)",
    )
    parser.add_argument(
        "--device",
        type=device_arg,
        default="cpu",
        help="cpu (default), or cuda / cuda:N: move the torch inputs of each case "
        "there and synchronize around the timed blocks; cases without torch inputs "
        "are skipped",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=harness.RESULTS_DIR,
        help="folder for the results (default: benchmarks/results/)",
    )
    args = parser.parse_args(argv)
    if args.repeat < MIN_REPEAT:
        parser.error(f"--repeat must be at least {MIN_REPEAT}; got {args.repeat}")
    if problem := cuda_problem(args.device):
        parser.error(problem)

    if registry is None:
        harness.discover()
        registry = harness.REGISTRY
    cases = registry.select(args.filter)
    if not cases:
        parser.error(
            f"no benchmark case matches {args.filter!r}; "
            f"known: {', '.join(registry.cases)}"
        )
    machine = harness.machine_info(args.device)  # before the run: not our load
    results = harness.run(
        cases,
        repeat=args.repeat,
        number=args.number,
        seed=args.seed,
        pause=args.pause,
        device=args.device,
    )
    stem = harness.results_stem(args.device)
    for path in harness.write_results(results, machine, args.out, stem):
        print(f"wrote {path}")
    timed = [r for r in results if "skipped" not in r]
    return 0 if all(r["agree"] for r in timed) else 1


if __name__ == "__main__":
    sys.exit(main())
