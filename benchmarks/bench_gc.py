"""Benchmark `krmfn gc` planning: 10,000 ConfigMaps and 20,000 ReplicaSets, budget 2 s.

Builds one live-state List shaped as `kubectl get -o json` prints it (1,000 families in 10
namespaces, 10 versions each; 1,000 Deployments with 20 ReplicaSets each, most scaled to
zero, each naming one version through envFrom, env and a volume), then prints medians of
several runs measured in this one process:

- json.loads of the List text (the baseline: reading what kubectl prints);
- planning (:func:`krmfn.gc.planner.plan_collection` on the parsed objects), against the 2 s budget;
- parse + plan (:func:`krmfn.gc.parse_list`, then plan), what `krmfn gc -f` does after reading.

Usage: python benchmarks/bench_gc.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from krmfn.gc import planner as gc

BUDGET_S = 2.0
NOW = datetime(2024, 6, 1, 12, 0, 0, tzinfo=timezone.utc)
NAMESPACES, FAMILIES, VERSIONS, REPLICASETS_PER_APP = 10, 1000, 10, 20


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(ns: str, name: str, i: int, age: timedelta, **extra: object) -> dict:
    return {"name": name, "namespace": ns, "uid": f"00000000-0000-4000-8000-{i:012d}",
            "resourceVersion": str(100000 + i), "creationTimestamp": stamp(NOW - age), **extra}


def configmap(ns: str, family: int, version: int, i: int) -> dict:
    name = f"app-{family}-config"
    return {"apiVersion": "v1", "kind": "ConfigMap", "immutable": True,
            "data": {"app.yaml": f"family: {family}\nversion: {version}\n" + "x" * 200},
            "metadata": meta(ns, f"{name}-v{version:04d}", i, timedelta(days=VERSIONS - version),
                             labels={"krmfn.dev/family": name},
                             annotations={"krmfn.dev/original-name": name})}


def replicaset(ns: str, family: int, j: int, i: int) -> dict:
    version = j % VERSIONS
    cm = f"app-{family}-config-v{version:04d}"
    container = {"name": "app", "image": "registry.example.com/app:1.0", "imagePullPolicy": "IfNotPresent",
                 "envFrom": [{"configMapRef": {"name": cm}}],
                 "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": cm, "key": "level"}}},
                         {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
                 "ports": [{"containerPort": 8080, "protocol": "TCP"}], "resources": {},
                 "volumeMounts": [{"mountPath": "/etc/app", "name": "config"}],
                 "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
    sidecar = {"name": "proxy", "image": "registry.example.com/proxy:2.1", "resources": {},
               "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
    app = f"app-{family}"
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": meta(ns, f"{app}-{j:09x}", i, timedelta(days=REPLICASETS_PER_APP - j),
                             labels={"app": app, "pod-template-hash": f"{j:09x}"},
                             annotations={"deployment.kubernetes.io/revision": str(j)},
                             ownerReferences=[{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                               "uid": f"d-{family}", "controller": True,
                                               "blockOwnerDeletion": True}]),
            "spec": {"replicas": 2 if j == REPLICASETS_PER_APP - 1 else 0,
                     "selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}},
                                  "spec": {"containers": [container, sidecar], "dnsPolicy": "ClusterFirst",
                                           "restartPolicy": "Always", "schedulerName": "default-scheduler",
                                           "volumes": [{"name": "config", "configMap": {"name": cm, "defaultMode": 420}}]}}},
            "status": {"replicas": 0, "observedGeneration": 1}}


def live_state() -> dict:
    items, i = [], 0
    for family in range(FAMILIES):
        ns = f"ns-{family % NAMESPACES}"
        for version in range(VERSIONS):
            items.append(configmap(ns, family, version, i))
            i += 1
        # Half the families' ReplicaSets name only the newer half of the versions, so plans delete.
        for j in range(REPLICASETS_PER_APP):
            items.append(replicaset(ns, family, j if family % 2 else VERSIONS // 2 + j % (VERSIONS // 2), i))
            i += 1
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def median_s(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = ap.parse_args()
    text = json.dumps(live_state())
    data = text.encode()
    objects = json.loads(text)["items"]
    table = gc.gc_table()
    options = gc.Options()
    result = gc.plan_collection(objects, NOW, options, table)
    n_cm = sum(1 for o in objects if o["kind"] == "ConfigMap")
    n_rs = len(objects) - n_cm
    rows = {
        "json_loads_s": median_s(lambda: json.loads(text), args.runs),
        "plan_s": median_s(lambda: gc.plan_collection(objects, NOW, options, table), args.runs),
        "parse_and_plan_s": median_s(lambda: gc.plan_collection(gc.parse_list(data), NOW, options, table), args.runs),
    }
    rows["plan_over_budget"] = rows["plan_s"] / BUDGET_S
    rows["plan_over_json_loads"] = rows["plan_s"] / rows["json_loads_s"]
    print(f"input: {n_cm:,} ConfigMaps, {n_rs:,} ReplicaSets, {len(data) / 1e6:.1f} MB of JSON; "
          f"plan: {len(result.deletions):,} to delete of {len(result.rows):,}; medians of {args.runs} runs")
    print(f"      json.loads: {rows['json_loads_s']:.3f} s  (baseline)")
    print(f"            plan: {rows['plan_s']:.3f} s  = {rows['plan_over_budget']:.2f} x the {BUDGET_S:.0f} s budget"
          f", {rows['plan_over_json_loads']:.2f} x json.loads  {'ok' if rows['plan_s'] <= BUDGET_S else 'OVER BUDGET'}")
    print(f"    parse + plan: {rows['parse_and_plan_s']:.3f} s")
    if args.json:
        print(json.dumps(rows))
    return 0 if rows["plan_s"] <= BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
