"""core.report.rollpath and core.report.audit on their own: how a pod reads a name (env, envFrom,
a subPath mount, or live through a whole volume), and the warnings for config that cannot roll."""

from __future__ import annotations

import pytest
from units import scanned

from krmfn.core.references.lookup import Index
from krmfn.core.report.audit import at_level, immutables, roll_paths
from krmfn.core.report.rollpath import has_checksum, read_via
from krmfn.yaml.tree import parse_item

POD = b"""- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec:
    containers:
    - name: app
      env:
      - name: MODE
        valueFrom:
          configMapKeyRef: {name: by-env, key: mode}
      envFrom:
      - configMapRef: {name: by-env-from}
      volumeMounts:
      - {name: file, mountPath: /etc/app.conf, subPath: app.conf}
      - {name: live, mountPath: /etc/live}
    imagePullSecrets:
    - name: registry
    volumes:
    - name: file
      configMap: {name: by-sub-path}
    - name: live
      configMap: {name: by-volume}
"""


def node_named(doc, value: str):
    return next(n for n in range(len(doc.kind)) if doc.scalar(n) == value)


@pytest.mark.parametrize(("name", "via", "mount"), [
    ("by-env", "env", None),
    ("by-env-from", "envFrom", None),
    ("by-sub-path", "subPath", "spec.containers[0].volumeMounts[0]"),
    ("by-volume", None, None),  # a whole volume updates live
    ("registry", None, None),  # not read by a container
])
def test_how_a_pod_reads_each_name(name, via, mount):
    doc, top = parse_item(POD)
    read = read_via(doc, node_named(doc, name), top)
    assert (read.via if read else None, read.mount if read else None) == (via, mount)


def test_a_checksum_annotation_is_any_key_under_checksum():
    assert has_checksum({"checksum/config": "abc"}) and not has_checksum({"other/checksum": "abc"})


ITEMS = """
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: by-env-from}
  data: {a: b}
  immutable: true
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: by-env
    annotations: {krmfn.dev/content-hash: "true"}
  data: {a: b}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: app
          env:
          - name: MODE
            valueFrom:
              configMapKeyRef: {name: by-env, key: mode}
          envFrom:
          - configMapRef: {name: by-env-from}
"""


def audit():
    _, config, s = scanned(ITEMS)
    return s, Index.of(s, config.algorithm)


def test_a_workload_reading_an_object_that_is_not_opted_in_gets_one_warning():
    (result,) = roll_paths(*audit())
    assert result.severity == "warning" and result.topic == "roll-path"
    assert result.resource.name == "web" and result.field_path == "spec.template.spec.containers[0].envFrom[0].configMapRef.name"
    assert result.message.startswith("reads ConfigMap by-env-from through envFrom, which running pods never see change")


def test_immutable_on_an_object_krmfn_keeps_is_a_warning_and_the_level_can_lower_it():
    results = immutables(*audit())
    assert [(r.resource.name, r.field_path, r.severity) for r in results] == [("by-env-from", "immutable", "warning")]
    assert [r.severity for r in at_level(results, "info")] == ["info"]
    assert at_level(results, "warn") == results
