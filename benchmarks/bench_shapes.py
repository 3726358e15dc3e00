"""krmfn on many input shapes, against a bare libyaml event pass over the same bytes, measured in one run.

One shape is not a benchmark: a cliff hides in the shape nobody measured. For each shape this
prints krmfn's whole-process wall time (median of --runs) at each size, the exponent as items grow
(the slope of log time over log items between the smallest and largest size), and the ratio to a
bare libyaml event pass (``yaml.parse`` with the C parser, whole process) over the same bytes.

Budgets (issue #18): exponent <= 1.1 on every shape; <= 2.5x the libyaml pass on the 5,000-item
base shape; one item <= 100 ms.

Usage: python benchmarks/bench_shapes.py [--runs N] [--sizes 1000,5000,20000] [--shapes base,json,...]
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import random
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
}


def run_time(argv: list[str], path: Path, code: str | None = None) -> float:
    cmd = [PY, "-c", code] if code else [PY, "-m", "krmfn", *argv]
    with path.open("rb") as f:
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} < {path.name} failed: {proc.stderr.decode()[-400:]}")
    return elapsed


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
    print(f"{'shape':>20} " + " ".join(f"{f'{n} items':>11}" for n in sizes) + "  exponent  ratio-to-libyaml")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.shapes.split(","):
            make, argv = SHAPES[name]
            times, ratios = [], []
            for n in sizes:
                path = Path(tmp, f"{name}-{n}.yaml")
                path.write_text(make(n), encoding="utf-8")
                argv_n = [*argv, "--max-input-size", "1G"]
                krmfn_s = statistics.median(run_time(argv_n, path) for _ in range(args.runs))
                events_s = statistics.median(run_time([], path, EVENTS) for _ in range(args.runs))
                times.append(krmfn_s)
                ratios.append(krmfn_s / events_s)
            exponent = math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0]) if len(sizes) > 1 else 0.0
            flag = "" if exponent <= 1.1 else "  OVER 1.1"
            ok = ok and exponent <= 1.1
            print(f"{name:>20} " + " ".join(f"{t:10.3f}s" for t in times) + f"  {exponent:8.2f}  "
                  + " ".join(f"{r:.2f}x" for r in ratios) + flag, flush=True)
        one = Path(tmp, "one.yaml")
        one.write_text(HEAD + _cm(0, "    k: v\n"))
        one_s = statistics.median(run_time([], one) for _ in range(max(3, args.runs)))
        print(f"one item, whole process: {one_s * 1000:.0f} ms (budget 100 ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
