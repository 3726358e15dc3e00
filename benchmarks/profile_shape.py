"""Where the time goes on one input shape of bench_shapes.py: the function run in process (one
process: the fork is turned off, so every call is seen) under cProfile, its CPU time, and the
functions that take most of it, grouped by the module they are in.

Usage: python benchmarks/profile_shape.py [SHAPE] [ITEMS] [--top N]   (default: base 5000)
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_shapes  # noqa: E402

from krmfn.core.run import function, parallel  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", nargs="?", default="base", choices=bench_shapes.SHAPES)
    ap.add_argument("items", nargs="?", type=int, default=5000)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    make, argv = bench_shapes.SHAPES[args.shape]
    data = make(args.items).encode()
    parallel._worth_it = lambda costs: False  # one process, so that the profile sees every call
    run = (lambda: function.run_streams([data], None)) if argv else (lambda: function.run_resource_list(data))
    start = time.process_time()
    run()
    cpu = time.process_time() - start
    profile = cProfile.Profile()
    profile.runcall(run)
    stats = pstats.Stats(profile)
    by_module: dict[str, float] = defaultdict(float)
    for (path, _, name), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = path.split("/krmfn/", 1)[1] if "/krmfn/" in path else ("yaml (PyYAML)" if "/yaml/" in path
                                                                       else "other" if path != "~" else name)
        by_module[where] += own
    total = sum(by_module.values())
    print(f"{args.shape}, {args.items} items, {len(data) / 1e6:.1f} MB: {cpu:.2f} s CPU in one process "
          f"(profiled: {total:.2f} s, the profiler's own cost included)")
    for where, own in sorted(by_module.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{own / total:6.1%}  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
