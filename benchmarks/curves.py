"""Cost curves shown as plots on the site's "Benchmarks" page.

``python -m benchmarks.curves`` (part of ``make bench``) measures

- the peak extra memory of chunked against naive attention (``tracemalloc``) at
  n = 1024, 4096 and 8192 (book §11.2, online softmax),
- diffusion on generated graphs of growing size, sparse against dense (book §12.1),
- the parallel associative scan against the sequential loop in JAX (book §13.3),

and writes them, with the machine they ran on, to ``benchmarks/results/curves.json``.
The page draws them from that file, so building the site never re-measures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "curves.json"


def measure() -> dict:
    """Run the three curves; returns a JSON-ready dict."""
    from benchmarks import bench_attention, bench_graphs, bench_scan

    out: dict = {
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "openblas_env": {
                k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")
            },
        },
        "date": time.strftime("%Y-%m-%d"),
    }
    steps = [
        ("attention_memory", bench_attention.memory_profile),
        ("graph_diffusion", bench_graphs.scaling_curve),
        ("scan", bench_scan.scan_curve),
    ]
    for name, fn in steps:
        start = time.perf_counter()
        out[name] = fn()
        print(f"{name}: {time.perf_counter() - start:.1f} s", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.curves", description=__doc__
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON file to write")
    args = parser.parse_args(argv)
    data = measure()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
