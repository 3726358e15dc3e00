"""changes.changeplan without the command line: which keys each kind of workload reads, found through
its pod spec key by key and through the reference table for every other kind."""

from __future__ import annotations

from krmfn.changes import changeplan

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: rules-{suffix}
  annotations: {{krmfn.dev/original-name: rules}}
  labels: {{krmfn.dev/family: rules}}
data: {{a.yaml: "{a}", b.yaml: "1"}}
"""
WORKLOADS = """\
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {{name: main, namespace: mon}}
spec:
  paused: true
  configMaps: [rules-{suffix}]
---
apiVersion: v1
kind: Pod
metadata: {{name: once}}
spec:
  containers: [{{name: c, image: c}}]
  volumes:
  - name: v
    projected:
      sources:
      - configMap: {{name: rules-{suffix}, items: [{{key: b.yaml, path: b}}]}}
"""


def render(suffix: str, a: str, namespace_of_config: str = "") -> list[changeplan.Obj]:
    config = CONFIG.format(suffix=suffix, a=a)
    prom = config.replace("metadata:\n", "metadata:\n  namespace: mon\n")
    return changeplan.read_render((config + "---\n" + prom + WORKLOADS.format(suffix=suffix)).encode())


def test_the_reference_table_finds_what_an_operator_spec_reads() -> None:
    found = changeplan.plan(render("aaa", "0"), render("bbb", "1"))
    assert [(c.namespace, c.family, c.changed) for c in found.configs] == [("", "rules", ["a.yaml"]),
                                                                         ("mon", "rules", ["a.yaml"])]
    rolls = {r.name: r for r in found.rolls}
    assert rolls["main"].category == "paused" and rolls["main"].reads == {"ConfigMap rules": ["*"]}
    assert rolls["main"].reads_changed
    # the Pod reads b.yaml only, through a projected volume's items: it would roll for a key it does not read
    assert rolls["once"].category == "cannot-apply" and rolls["once"].reads == {"ConfigMap rules": []}
    assert not rolls["once"].reads_changed and found.categories() >= {"paused", "cannot-apply", "unread"}


def test_nothing_changed_is_an_empty_plan() -> None:
    found = changeplan.plan(render("aaa", "0"), render("aaa", "0"))
    assert found.configs == [] and found.rolls == []
