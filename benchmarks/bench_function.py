"""Benchmark the function as a whole process against a bare libyaml event pass over the same bytes.

Prints medians and ratios measured in this one run (machines are noisy; ratios travel):

- 5,000 items (1,000 ConfigMaps, 4,000 workloads, ~7 MB): krmfn / libyaml event pass, budget 3.5x (issue #34);
- one item: krmfn's wall time, budget 100 ms;
- 10x the items: time ratio to 1x, budget 12x;
- peak memory (max RSS) over input size, budget 10x;
- two floors, for that budget: what any run that follows docs/how-it-works.md must spend on
  this input before doing anything else, on two cores. ``floor_reads``: the cut's event pass
  over the input (serial: libyaml reads a stream from its start) and one more event pass over
  every item's text (every item changes here, and the rule reads each changed item again).
  ``floor_trees``: the same plus the tree each item is read into to find its references and hash
  it (yaml.tree.Doc). Everything krmfn does beyond them (walk, hash, plan, splice, compare)
  is on top of these.

Usage: python benchmarks/bench_function.py [--runs N] [--no-10x]
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from generate import resource_list  # noqa: E402

PY = sys.executable
# The baseline: libyaml (PyYAML's C parser, what krmfn reads with) reading every event, whole process.
IDENTITY = "import sys, yaml\nfor _ in yaml.parse(sys.stdin.buffer.read(), Loader=yaml.CSafeLoader): pass"
# As kpt and kustomize run it: no arguments. The 10x input (77 MB) is over the default 32 MiB
# input limit, so that run raises it.
KRMFN = "from krmfn.cli import main; raise SystemExit(main([]))"
KRMFN_BIG = "from krmfn.cli import main; raise SystemExit(main([\"--max-input-size\", \"1G\"]))"
# The floors: the cut, then each half of the items read again in a process of its own.
_FLOOR = """import os, sys, yaml
from krmfn.yaml.split import cut
from krmfn.yaml.tree import parse_item
data = sys.stdin.buffer.read()
items = [data[a:b] for a, b in cut(data).slots]
half = len(items) // 2
pid = os.fork()
for item in (items[half:] if pid == 0 else items[:half]):
    TREE
    for _ in yaml.parse(item, Loader=yaml.CSafeLoader): pass
if pid == 0: os._exit(0)
os.waitpid(pid, 0)
"""
FLOOR_READS = _FLOOR.replace("TREE", "pass")
FLOOR_TREES = _FLOOR.replace("TREE", "parse_item(item)")
MEASURE_RSS = ("import resource,subprocess,sys; p=subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def wall(code: str, path: Path) -> float:
    with path.open("rb") as f:
        start = time.perf_counter()
        proc = subprocess.run([PY, "-c", code], stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark run failed: {proc.stderr.decode()[-500:]}")
    return elapsed


def median(code: str, path: Path, runs: int) -> float:
    return statistics.median(wall(code, path) for _ in range(runs))


def max_rss_kib(code: str, path: Path) -> int:
    with path.open("rb") as f:
        out = subprocess.run([PY, "-c", MEASURE_RSS, PY, "-c", code], stdin=f, capture_output=True, check=True)
    return int(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-10x", action="store_true", help="skip the 50,000-item run")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = ap.parse_args()
    # Measure the package as a wheel or the image installs it: with its bytecode compiled
    # (an editable install under PYTHONDONTWRITEBYTECODE=1 would compile every module each run).
    import krmfn
    compileall.compile_dir(Path(krmfn.__file__).parent, quiet=1)
    rows: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp, "one.yaml")
        one.write_text("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
                       "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: "
                       "{krmfn.dev/content-hash: 'true'}}, data: {a: b}}\n")
        base = Path(tmp, "5k.yaml")
        base.write_text(resource_list(1000))
        size = base.stat().st_size
        rows["identity_s"] = median(IDENTITY, base, args.runs)
        rows["krmfn_s"] = median(KRMFN, base, args.runs)
        rows["ratio_vs_identity"] = rows["krmfn_s"] / rows["identity_s"]
        rows["floor_reads_s"] = median(FLOOR_READS, base, args.runs)
        rows["floor_reads_ratio"] = rows["floor_reads_s"] / rows["identity_s"]
        rows["floor_trees_s"] = median(FLOOR_TREES, base, args.runs)
        rows["floor_trees_ratio"] = rows["floor_trees_s"] / rows["identity_s"]
        rows["one_item_s"] = median(KRMFN, one, args.runs)
        rows["input_mb"] = size / 1e6
        rows["peak_rss_mb"] = max_rss_kib(KRMFN, base) / 1024
        rows["rss_over_input"] = rows["peak_rss_mb"] * 1024 * 1024 / size
        if not args.no_10x:
            big = Path(tmp, "50k.yaml")
            big.write_text(resource_list(10000))
            rows["krmfn_10x_s"] = median(KRMFN_BIG, big, max(1, args.runs // 2))
            rows["ratio_10x"] = rows["krmfn_10x_s"] / rows["krmfn_s"]
    budgets = {"ratio_vs_identity": 3.5, "one_item_s": 0.100, "ratio_10x": 12.0, "rss_over_input": 10.0}
    print(f"input: 5,000 items, {rows['input_mb']:.2f} MB; medians of {args.runs} runs")
    for key, value in rows.items():
        budget = budgets.get(key)
        verdict = "" if budget is None else ("  ok" if value <= budget else f"  OVER budget {budget}")
        print(f"{key:>18}: {value:8.3f}{'' if budget is None else f'  (budget {budget})'}{verdict}")
    if args.json:
        print(json.dumps(rows))
    return 0 if all(rows[k] <= b for k, b in budgets.items() if k in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
