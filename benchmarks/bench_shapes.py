"""krmfn on many input shapes, against a bare libyaml event pass over the same bytes, measured in one run.

One shape is not a benchmark: a cliff hides in the shape nobody measured. For each shape this
prints krmfn's whole-process wall time and CPU time (user + system, the forked half included;
medians of --runs) at each size, the CPU-time exponent as items grow (the slope of log CPU time
over log items between the smallest and largest size: start-up is fixed and the fork hides CPU
from wall time, so the wall-clock slope flatters), the wall and CPU ratios to a bare libyaml event
pass (``yaml.parse`` with the C parser, whole process) over the same bytes at the largest size,
the output's size over the input's (a result for every renamed object and every workload that
rolls: where items are small, the output alone is two to three times the input, which memory
cannot go below), and peak memory beyond the interpreter's start-up over the input's size.

Budgets (issue #34), each flagged OVER when missed: every CPU exponent <= 1.1; memory beyond
start-up <= 6x the input on every shape; at the largest size, nothing opted in <= 1.5x,
the real-render shape <= 2x, non-ASCII text and fan-in under each strategy <= 3.5x; one item
<= 100 ms. The 5,000-item everything-changes budget is benchmarks/bench_function.py's.

Usage: python benchmarks/bench_shapes.py [--runs N] [--sizes 1000,5000,20000] [--shapes base,json,...]
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from generate import resource_list  # noqa: E402

PY = sys.executable
EVENTS = "import sys, yaml\nfor _ in yaml.parse(sys.stdin.buffer.read(), Loader=yaml.CSafeLoader): pass"
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _cm(i: int, data: str, extra_meta: str = "", kind: str = "ConfigMap") -> str:
    return (f"- apiVersion: v1\n  kind: {kind}\n  metadata:\n    name: c-{i}\n    annotations:\n"
            f"      krmfn.dev/content-hash: \"true\"\n{extra_meta}  data:\n{data}")


def _deploy(j: int, cm: int) -> str:
    return (f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d-{j}\n  spec:\n    template:\n"
            f"      spec:\n        containers:\n        - name: c\n          image: x\n          envFrom:\n"
            f"          - configMapRef:\n              name: c-{cm}\n")


def base(n: int) -> str:
    return resource_list(max(1, n // 5))


def values_with_list(n: int) -> str:
    data = "    JAVA_OPTS: \"-Dallow.List=a,b -XX:+UseG1GC\"\n    mode: allowList\n    impl: ArrayList\n"
    return HEAD + "".join(_cm(i, data) if i % 2 == 0 else _deploy(i, i - 1) for i in range(n))


def scripts(n: int) -> str:
    script = ("    run.sh: |\n      #!/bin/sh\n      if [ ! -f /a ] && [ ! -d /b ]; then\n        echo \"missing\" >&2\n"
              "        exit 1\n      fi\n      exec app --flag=!x\n")
    return HEAD + "".join(_cm(i, script) for i in range(n))


def many_annotations(n: int) -> str:
    notes = "".join(f"      example.com/note-{k}: \"value {k}\"\n" for k in range(2000))
    items = [_cm(0, "    k: v\n", extra_meta="")[:0] + _cm(0, "    k: v\n").replace(
        "      krmfn.dev/content-hash: \"true\"\n", "      krmfn.dev/content-hash: \"true\"\n" + notes)]
    return HEAD + "".join(items + [_deploy(j, 0) for j in range(1, n)])


def as_json(n: int) -> str:
    items = []
    for i in range(n):
        if i % 2 == 0:
            items.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "name": f"c-{i}", "annotations": {"krmfn.dev/content-hash": "true"}}, "data": {"k": f"v{i}"}})
        else:
            items.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"d-{i}"}, "spec": {
                "template": {"spec": {"containers": [{"name": "c", "envFrom": [
                    {"configMapRef": {"name": f"c-{i - 1}"}}]}]}}}})
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}, indent=1)


def flow(n: int) -> str:
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append(f"- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c-{i}, annotations: "
                       f"{{krmfn.dev/content-hash: 'true'}}}}, data: {{k: v{i}}}}}\n")
        else:
            out.append(f"- {{apiVersion: apps/v1, kind: Deployment, metadata: {{name: d-{i}}}, spec: {{template: "
                       f"{{spec: {{containers: [{{name: c, envFrom: [{{configMapRef: {{name: c-{i - 1}}}}}]}}]}}}}}}}}\n")
    return HEAD + "".join(out)


def crlf(n: int) -> str:
    return base(n).replace("\n", "\r\n")


def comments(n: int) -> str:
    return "\n".join(line + ("  # note" if line.strip() and not line.rstrip().endswith(("|", ">")) else "")
                     + ("\n    # a comment line" if line.startswith("  kind:") else "")
                     for line in base(n).split("\n"))


def _indented(item: str, by: int) -> str:
    return "".join(" " * by + line if line.strip() else line for line in item.splitlines(keepends=True))


def list_items(n: int) -> str:
    groups = []
    for g in range(max(1, n // 10)):
        entries = "".join(_indented(_cm(g * 10 + i, "    k: v\n"), 2) for i in range(10))
        groups.append(f"- apiVersion: v1\n  kind: ConfigMapList\n  items:\n{entries}")
    return HEAD + "".join(groups)


def big_crds(n: int) -> str:
    rng = random.Random(7)
    props = "".join(f"              field{k}:\n                type: string\n                description: "
                    f"\"{''.join(rng.choice('abcdef ') for _ in range(60))}\"\n" for k in range(40))
    crd = ("- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n    name: x{i}.example.com\n"
           "  spec:\n    group: example.com\n    versions:\n    - name: v1\n      schema:\n        openAPIV3Schema:\n"
           "          type: object\n          properties:\n" + props)
    return HEAD + "".join(crd.format(i=i) if i % 5 else _cm(i, "    k: v\n") for i in range(n))


def secrets(n: int) -> str:
    return HEAD + "".join(_cm(i, "    k: dmFsdWU=\n", kind="Secret") if i % 2 == 0 else
                          _deploy(i, i - 1).replace("configMapRef", "secretRef") for i in range(n)) + \
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data: {kinds: 'ConfigMap,Secret'}\n"


def stable_name(n: int) -> str:
    return base(n).replace('krmfn.dev/content-hash: "true"', 'krmfn.dev/content-hash: "true"\n      krmfn.dev/strategy: annotation')


def _documents(n: int) -> str:
    """Plain manifests, as ``--stream`` (Helm, kustomize exec plugins) gets them."""
    items = (_cm(i, "    k: v\n") if i % 2 == 0 else _deploy(i, i - 1) for i in range(n))
    return "".join("---\n" + "".join(line[2:] for line in item.splitlines(keepends=True)) for item in items)


def non_ascii(n: int) -> str:
    """Translated values and typographic quotes throughout, as real CRD descriptions and charts hold."""
    # In values only: a key changed (valueFrom) would measure another path (no reference found).
    text = re.sub(r'(key-\d+|value): "', r'\1: "valeur «été» – naïve’s ', base(n))
    return text + "".join(
        _cm(n + i, "    greeting: \"こんにちは世界 — ¡hola! ’quoted’\"\n") for i in range(n // 10))


def huge_crds(n: int) -> str:
    """A few very large documents: CRDs of about 1 MB each (one per 500 items: 10 MB at 5,000), with
    a ’ in their descriptions as published CRDs have, beside a ConfigMap and its Deployment."""
    props = "".join(f"              f{k}:\n                type: string\n                description: \"the field’s "
                    f"value, {'x' * 180}\"\n" for k in range(4200))
    crd = ("- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n"
           "    name: x{i}.example.com\n  spec:\n    group: example.com\n    versions:\n    - name: v1\n"
           "      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n" + props)
    return HEAD + "".join(crd.replace("{i}", str(i)) for i in range(max(1, n // 500))) + _cm(0, "    k: v\n") + \
        _deploy(1, 0)


def _fan_in(n: int, strategy: str = "") -> str:
    """One ConfigMap read by every other item."""
    cm = _cm(0, "    k: v\n")
    if strategy:
        cm = cm.replace('krmfn.dev/content-hash: "true"', f'krmfn.dev/content-hash: "true"\n      krmfn.dev/strategy: {strategy}')
    return HEAD + cm + "".join(_deploy(j, 0) for j in range(1, n))


def _fan_out(n: int, strategy: str = "") -> str:
    """One Deployment that reads every ConfigMap."""
    mark = f"\n      krmfn.dev/strategy: {strategy}" if strategy else ""
    cms = "".join(_cm(i, "    k: v\n").replace('content-hash: "true"', 'content-hash: "true"' + mark) for i in range(n - 1))
    refs = "".join(f"          - configMapRef:\n              name: c-{i}\n" for i in range(n - 1))
    return HEAD + cms + _deploy(n, 0).split("          - configMapRef:")[0] + refs


def nothing_opted_in(n: int) -> str:
    """CRDs, RBAC and workloads, none opted in: the render most runs see."""
    return big_crds(n).replace('krmfn.dev/content-hash: "true"', 'example.com/team: "a"') + "".join(
        f"- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata:\n    name: r-{i}\n  rules:\n"
        f"  - apiGroups: [\"\"]\n    resources: [configmaps]\n    verbs: [get]\n" for i in range(n // 5))


def real_render(n: int) -> str:
    """About 80 % of the bytes CRDs and RBAC, the rest opted-in config and the workloads that read it."""
    crd = big_crds(max(1, n // 2))[len(HEAD):].replace('krmfn.dev/content-hash: "true"', 'example.com/team: "a"')
    rbac = "".join(f"- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRole\n  metadata:\n    name: r-{i}\n"
                   f"  rules:\n  - apiGroups: [\"\"]\n    resources: [configmaps, secrets]\n    verbs: [get, list]\n"
                   for i in range(n // 4))
    config = "".join(_cm(n + i, "    k: v\n    app.yaml: |\n      port: 8080\n") if i % 2 == 0 else
                     _deploy(n + i, n + i - 1) for i in range(n // 4))
    return HEAD + crd + rbac + config


def kubectl_list(n: int) -> str:
    """``kubectl get -o yaml`` output: one ``kind: List`` document with ``metadata: {resourceVersion: ""}``."""
    items = "".join(_indented(_cm(i, "    k: v\n") if i % 2 == 0 else _deploy(i, i - 1), 0) for i in range(n))
    return f"apiVersion: v1\nitems:\n{items}kind: List\nmetadata:\n  resourceVersion: \"\"\n"


SHAPES: dict[str, tuple[Callable[[int], str], list[str]]] = {
    "base": (base, []),
    "values-with-List": (values_with_list, []),
    "scripts-with-!": (scripts, []),
    "2000-annotations": (many_annotations, []),
    "json": (as_json, []),
    "flow": (flow, []),
    "crlf": (crlf, []),
    "comments-everywhere": (comments, []),
    "List-items": (list_items, []),
    "big-CRDs": (big_crds, []),
    "secrets": (secrets, []),
    "stable-name": (stable_name, []),
    "--stream": (_documents, ["--stream"]),
    "non-ASCII": (non_ascii, []),
    "huge-CRDs": (huge_crds, []),
    "fan-in": (_fan_in, []),
    "fan-in-stable": (lambda n: _fan_in(n, "annotation"), []),
    "fan-out": (_fan_out, []),
    "fan-out-stable": (lambda n: _fan_out(n, "annotation"), []),
    "nothing-opted-in": (nothing_opted_in, []),
    "real-render": (real_render, []),
    "kubectl-List": (kubectl_list, ["--stream"]),
}
# Ratio budgets at the largest size (wall time against the libyaml pass), by shape.
BUDGETS = {"nothing-opted-in": 1.5, "real-render": 2.0, "non-ASCII": 3.5, "fan-in": 3.5, "fan-in-stable": 3.5}
MEMORY_BUDGET = 6.0  # peak RSS beyond the interpreter's start-up, over the input's size


# krmfn as `python -m krmfn` runs it, writing its own peak RSS (KiB) at exit to the file
# KRMFN_BENCH_PEAK names: the larger of its VmHWM and its forked children's. Why not wait4's
# ru_maxrss: Linux carries the spawning process's high-water mark into a child across exec, so
# every krmfn run would weigh at least this benchmark's own peak (the shapes it generated).
PEAK = """\
import atexit, os, resource, runpy, sys
def _peak():
    with open("/proc/self/status") as f:
        own = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(os.environ["KRMFN_BENCH_PEAK"], "w") as out:
        out.write(str(max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)))
atexit.register(_peak)
sys.argv[0] = "krmfn"
runpy.run_module("krmfn", run_name="__main__", alter_sys=True)
"""


def run(argv: list[str], path: Path, code: str | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system of the process and its children) and krmfn's peak
    RSS (KiB; 0 for ``code``, the baseline). krmfn's output is left in ``path`` with suffix .out."""
    cmd = [PY, "-c", code] if code else [PY, "-c", PEAK, *argv]
    peak = path.with_suffix(".peak")
    with path.open("rb") as f, open(os.devnull if code else path.with_suffix(".out"), "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=f, stdout=out, stderr=subprocess.PIPE,
                                env={**os.environ, "KRMFN_BENCH_PEAK": str(peak)})
        err = proc.stderr.read() if proc.stderr else b""
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:2])} krmfn {' '.join(argv)} < {path.name} failed: {err.decode()[-400:]}")
    rss = 0 if code else int(peak.read_text())
    return elapsed, usage.ru_utime + usage.ru_stime, rss


def medians(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            int(statistics.median(r[2] for r in runs)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    args = ap.parse_args()
    import krmfn
    compileall.compile_dir(Path(krmfn.__file__).parent, quiet=1)
    sizes = [int(s) for s in args.sizes.split(",")]
    ok = True
    print(f"{'shape':>20} " + " ".join(f"{f'{n} items (cpu)':>18}" for n in sizes)
          + "  cpu-exp  wall-ratio cpu-ratio  out/input  mem/input")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp, "one.yaml")
        one.write_text(HEAD + _cm(0, "    k: v\n"))
        one_runs = [run([], one) for _ in range(max(3, args.runs))]
        start_rss = min(r[2] for r in one_runs)  # the interpreter, krmfn's modules and one item
        for name in args.shapes.split(","):
            make, argv = SHAPES[name]
            walls, cpus, flags = [], [], []
            for n in sizes:
                path = Path(tmp, f"{name}-{n}.yaml")
                path.write_text(make(n), encoding="utf-8")
                wall, cpu, rss = medians([run([*argv, "--max-input-size", "1G"], path) for _ in range(args.runs)])
                base_wall, base_cpu, _ = medians([run([], path, EVENTS) for _ in range(args.runs)])
                walls.append(wall)
                cpus.append(cpu)
                size = path.stat().st_size
                out_size = path.with_suffix(".out").stat().st_size
            exponent = math.log(cpus[-1] / cpus[0]) / math.log(sizes[-1] / sizes[0]) if len(sizes) > 1 else 0.0
            memory = max(0, rss - start_rss) * 1024 / size
            ratio = wall / base_wall
            if exponent > 1.1:
                flags.append("exponent OVER 1.1")
            if memory > MEMORY_BUDGET:
                flags.append(f"memory OVER {MEMORY_BUDGET:g}x")
            if name in BUDGETS and ratio > BUDGETS[name]:
                flags.append(f"ratio OVER {BUDGETS[name]:g}x")
            ok = ok and not flags
            print(f"{name:>20} " + " ".join(f"{w:7.3f}s ({c:6.3f}s)" for w, c in zip(walls, cpus))
                  + f"  {exponent:7.2f}  {ratio:9.2f}x {cpu / base_cpu:8.2f}x  {out_size / size:8.2f}x  {memory:8.2f}x"
                  + (f"  {', '.join(flags)}" if flags else ""), flush=True)
        one_s = statistics.median(r[0] for r in one_runs)
        ok = ok and one_s <= 0.1
        print(f"one item, whole process: {one_s * 1000:.0f} ms (budget 100 ms); start-up RSS {start_rss / 1024:.0f} MiB")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
