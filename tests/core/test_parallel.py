"""Reading on two cores gives exactly what reading on one does."""

from __future__ import annotations

import sys

import pytest
from conftest import exit_code
from tooling import REPO

from krmfn.core.run import parallel
from krmfn.core.run.function import run_resource_list

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import resource_list

BIG = resource_list(300).encode()  # 1,500 items, > 1 MiB: parallel.py forks


def _run(data: bytes, forked: bool, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_COST", 1 if forked else 1 << 40)
    return run_resource_list(data)


def test_two_processes_write_what_one_writes(monkeypatch):
    one, two = _run(BIG, False, monkeypatch), _run(BIG, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 0
    assert two.stdout == one.stdout


@pytest.mark.parametrize("fields", ["strategy: annotation", "defaultNamespace: ns-1"])
def test_two_processes_write_what_one_writes_under_every_strategy(fields, monkeypatch):
    """The child sends back each object's strategy and content digest, and the rollout verdicts."""
    data = BIG + (f"functionConfig:\n  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n"
                  f"  metadata: {{name: c}}\n  {fields}\n").encode()
    one, two = _run(data, False, monkeypatch), _run(data, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 0
    assert two.stdout == one.stdout and two.results == one.results
    if fields.startswith("strategy"):
        assert b"krmfn.dev/config-hash: " in one.stdout


def test_an_error_in_the_childs_half_is_reported_as_one_process_reports_it(monkeypatch):
    cut = BIG.rindex(b"\n  kind: ")  # the last item: in the child's half
    bad = BIG[:cut] + b"\n  kindx: " + BIG[cut + len(b"\n  kind: "):]
    one, two = _run(bad, False, monkeypatch), _run(bad, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 1
    assert two.results == one.results and "item 1499 has no kind" in one.results[0].message


@pytest.mark.parametrize("costs,middle", [([1, 1], 1), ([10, 1, 1, 1, 1], 1), ([1, 1, 1, 1, 10], 4),
                                          ([3, 3, 3, 3], 2), ([5, 1, 1, 1, 1, 1], 1), ([0, 0, 0, 4, 4], 4)])
def test_the_cut_halves_the_work_not_the_count(costs, middle):
    assert parallel._middle(costs) == middle


def test_an_item_costs_by_its_nodes_not_only_its_bytes():
    """A ConfigMap of long values and a workload of many short fields, about as long: the
    workload is read as more nodes, and costs more."""
    config = b"- kind: ConfigMap\n  data:\n    a: " + b"x" * 600 + b"\n"
    workload = b"- kind: Deployment\n  spec:\n" + b"".join(b"    f%d: {a: 1, b: 2}\n" % i for i in range(30))
    assert abs(len(config) - len(workload)) < 100
    assert parallel.cost(workload) > 3 * parallel.cost(config)


def test_a_render_that_parses_few_items_is_read_in_one_process(monkeypatch):
    """The fork follows the work: CRDs passed through as bytes cost nothing, so a large render of
    them and a few ConfigMaps is not split (and reads as it does split)."""
    crd = (b"- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n"
           b"    name: c%d.example.com\n  spec:\n    group: example.com\n    names: {kind: C%d}\n"
           b"    versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {description: "
           + b"y" * 4000 + b"}}}]\n")
    items = b"".join(crd % (i, i) for i in range(300))  # over 1 MiB
    data = (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
            + b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations:\n"
            b"      krmfn.dev/content-hash: \"true\"\n  data: {k: v}\n")
    forks = []
    real = parallel._halves
    monkeypatch.setattr(parallel, "_halves", lambda *a: forks.append(a) or real(*a))
    out = run_resource_list(data)
    assert exit_code(out) == 0 and b"name: c-" in out.stdout and len(data) > 1 << 20
    assert forks == []
    monkeypatch.setattr(parallel, "MIN_PARALLEL_COST", 1)
    assert run_resource_list(data).stdout == out.stdout and len(forks) == 2


def test_marks_opt_outs_and_families_cross_from_the_childs_half(monkeypatch):
    """What the plan needs beyond names and hashes (workload marks, an object's own "false", a
    family recorded by a previous run) comes back from the child too."""
    head, items = BIG.split(b"\nitems:\n", 1)
    extra = (b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: late\n  data: {k: v}\n"
             b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kept\n    annotations:\n"
             b"      krmfn.dev/content-hash: \"false\"\n  data: {k: v}\n"
             b"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: marked\n    annotations:\n"
             b"      krmfn.dev/content-hash: \"true\"\n  spec:\n    template:\n      spec:\n        containers:\n"
             b"        - name: c\n          envFrom: [{configMapRef: {name: late}}, {configMapRef: {name: kept}}]\n")
    data = head + b"\nitems:\n" + items + extra  # at the end: in the child's half
    one, two = _run(data, False, monkeypatch), _run(data, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 0
    assert two.stdout == one.stdout
    assert b"opted in by Deployment/marked" in one.stdout and b"own krmfn.dev/content-hash:" in one.stdout
    again_one, again_two = _run(one.stdout, False, monkeypatch), _run(one.stdout, True, monkeypatch)
    assert again_two.stdout == again_one.stdout == one.stdout


def test_the_name_of_what_a_controller_makes_crosses_from_the_childs_half(monkeypatch):
    """An ExternalSecret's spec.target.name (Scanned.made) comes back from the child: a workload's
    mark finds the ExternalSecret by the Secret it makes."""
    head, items = BIG.split(b"\nitems:\n", 1)
    marked = (b"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: marked\n    annotations:\n"
              b"      krmfn.dev/content-hash: \"true\"\n  spec:\n    template:\n      spec:\n        containers:\n"
              b"        - name: c\n          envFrom: [{secretRef: {name: db-creds}}]\n")
    external = (b"- apiVersion: external-secrets.io/v1\n  kind: ExternalSecret\n  metadata:\n    name: db\n"
                b"  spec:\n    target: {name: db-creds}\n    dataFrom: [{extract: {key: prod/db}}]\n")
    data = head + b"\nitems:\n" + marked + items + external  # the ExternalSecret in the child's half
    data += (b"functionConfig:\n  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n  metadata: {name: c}\n"
             b"  kinds: [ConfigMap, ExternalSecret]\n")
    one, two = _run(data, False, monkeypatch), _run(data, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 0
    assert b"name: db-creds-" in one.stdout and two.stdout == one.stdout
