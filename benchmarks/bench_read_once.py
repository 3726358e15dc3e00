"""Read once against cut-then-parse: the two ways the scan can read the objects, in one process.

krmfn scans each object from the cut's own pass (core.run.stream) where the run is on one
process: an input too small for a fork to pay, or one core. Elsewhere it cuts first and parses
the objects that matter again, half of them in a forked child. This prints, for a few shapes and
sizes, the function's wall time in this process both ways (alternated, medians of --runs), the
forks turned off so that both are one process: what reading once saves where it is used, and
what it would cost where the fork wins instead is bench_shapes.py's to show.

Usage: python benchmarks/bench_read_once.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_shapes

from krmfn.core.run import function, parallel

CASES = (("base", 30), ("fan-in", 100), ("real-render", 100), ("base", 1000), ("base", 5000), ("non-ASCII", 5000),
         ("real-render", 5000), ("--stream", 1000))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    parallel.cores = lambda: 1  # one process: the run reads as it would on one core
    read_once = function.streams
    print(f"{'shape':>12} {'items':>6} {'read once':>10} {'cut, parse':>11}  saved")
    for shape, n in CASES:
        make, argv = bench_shapes.SHAPES[shape]
        data = make(n).encode()

        def run(data: bytes = data, argv: list[str] = argv) -> object:
            return function.run_streams([data], None) if argv else function.run_resource_list(data)

        times: dict[str, list[float]] = {"once": [], "twice": []}
        for _ in range(args.runs):
            for way, streams in (("once", read_once), ("twice", lambda data: False)):
                function.streams = streams
                start = time.perf_counter()
                run()
                times[way].append(time.perf_counter() - start)
        once, twice = (statistics.median(times[w]) for w in ("once", "twice"))
        print(f"{shape:>12} {n:>6} {once * 1000:>8.1f}ms {twice * 1000:>9.1f}ms  {1 - once / twice:5.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
