"""Instructions executed, counted by valgrind's callgrind: a figure machine noise cannot move.

Wall-clock medians on a shared 2-core machine drift by half from one minute to the next;
instruction counts repeat to the last digit (hash seed fixed). This prints, for the same
input, krmfn on one core (parallel reading off) against a bare libyaml event pass, and
the import cost alone, so that a change can be judged before the noisy timings.

Usage: python benchmarks/bench_instructions.py [--configmaps N]   (needs valgrind; ~1 minute)
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from generate import resource_list  # noqa: E402

IDENTITY = "import sys, yaml\nfor _ in yaml.parse(open(sys.argv[1], 'rb').read(), Loader=yaml.CSafeLoader): pass"
KRMFN = ("import sys; from krmfn.core.run import function, parallel; from krmfn.krm import limits; "
         "parallel.MIN_PARALLEL_COST = 1 << 62; "
         "out = function.run_resource_list(open(sys.argv[1], 'rb').read(), limits.Limits(1 << 30)); "
         "sys.stdout.buffer.write(out.stdout)")
IMPORTS = "import krmfn.cli, krmfn.core.run.function, krmfn.core.run.write"


def instructions(code: str, path: Path) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           "-c", code, str(path)], capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"callgrind failed: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configmaps", type=int, default=1000, help="ConfigMaps in the input (4 workloads each)")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    import krmfn
    compileall.compile_dir(Path(krmfn.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "list.yaml")
        path.write_text(resource_list(args.configmaps))
        size = path.stat().st_size
        identity, krmfn_total, imports = (instructions(c, path) for c in (IDENTITY, KRMFN, IMPORTS))
    print(f"input: {args.configmaps * 5:,} items, {size / 1e6:.2f} MB (callgrind, one core)")
    print(f"  identity parse+emit: {identity / 1e9:6.2f} G instructions")
    print(f"  krmfn, one core:     {krmfn_total / 1e9:6.2f} G  ({krmfn_total / identity:.2f}x identity)")
    print(f"  of which imports:    {imports / 1e9:6.2f} G")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
