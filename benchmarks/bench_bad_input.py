"""Time and peak memory of every bad-input corpus case, through the real ``krmfn`` process.

For each case of tests/bad_input/cases.py (and each fuzz regression file), runs
``python -m krmfn`` with the case on stdin, the way a pipeline does, and prints its exit code,
wall time and maximum resident set size (of the process and any child it forked). Budgets, per
case: 2 s and 300 MB. Exits 1 when a case is over budget or gives an unexpected exit code.

Usage: python benchmarks/bench_bad_input.py [--runs N] [--json] [CASE ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))
from bad_input.cases import CASES, regression_files  # noqa: E402

TIME_BUDGET_S = 2.0
RSS_BUDGET_MB = 300.0
# Runs the function in a child and reports its wall time and the peak RSS of it and its children.
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "p = subprocess.run([sys.executable, '-m', 'krmfn'], stdin=sys.stdin, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL)\n"
    "print(p.returncode, time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def measure(path: Path) -> tuple[int, float, float]:
    """Exit code, seconds, peak RSS in MB, of one run on the file's bytes."""
    with path.open("rb") as f:
        out = subprocess.run([sys.executable, "-c", MEASURE], stdin=f, capture_output=True, check=True,
                             cwd=REPO, timeout=300)
    code, seconds, kib = out.stdout.split()
    return int(code), float(seconds), int(kib) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1, help="runs per case; the median time and the largest RSS")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ap.add_argument("cases", nargs="*", help="only these cases (by name)")
    args = ap.parse_args()
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        todo = [(c.name, c.input(), c.exit) for c in CASES if not args.cases or c.name in args.cases]
        todo += [(f"regression/{p.name}", p.read_bytes(), None) for p in regression_files()
                 if not args.cases or p.name in args.cases]
        print(f"{'case':<44} {'exit':>4} {'input':>10} {'seconds':>8} {'max RSS MB':>10}")
        for name, data, expected in todo:
            path = Path(tmp, "input")
            path.write_bytes(data)
            runs = [measure(path) for _ in range(args.runs)]
            code = runs[0][0]
            seconds = statistics.median(r[1] for r in runs)
            rss = max(r[2] for r in runs)
            over = []
            if seconds > TIME_BUDGET_S:
                over.append(f"over {TIME_BUDGET_S} s")
            if rss > RSS_BUDGET_MB:
                over.append(f"over {RSS_BUDGET_MB:.0f} MB")
            if code not in (0, 1) or (expected is not None and code != expected):
                over.append(f"exit {code}, expected {expected if expected is not None else '0 or 1'}")
            failed = failed or bool(over)
            size = f"{len(data) / 1e6:.2f} MB" if len(data) >= 100_000 else f"{len(data)} B"
            print(f"{name:<44} {code:>4} {size:>10} {seconds:>8.3f} {rss:>10.1f}  {'; '.join(over) or 'ok'}")
            rows.append({"case": name, "exit": code, "bytes": len(data), "seconds": seconds, "max_rss_mb": rss})
    worst_t = max(rows, key=lambda r: r["seconds"])
    worst_m = max(rows, key=lambda r: r["max_rss_mb"])
    print(f"\n{len(rows)} cases; slowest {worst_t['case']} {worst_t['seconds']:.3f} s (budget {TIME_BUDGET_S} s); "
          f"largest {worst_m['case']} {worst_m['max_rss_mb']:.1f} MB (budget {RSS_BUDGET_MB:.0f} MB)")
    if args.json:
        print(json.dumps(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
