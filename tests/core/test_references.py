"""The reference table as data: rows become field specs, specs become tries, find walks them."""

from __future__ import annotations

from krmfn.core.references import walk as refs
from krmfn.core.references.fieldspec import FieldSpec, Has, join_path, split_path
from krmfn.core.references.table import (
    BUILTIN,
    POD_SPEC,
    POD_SPEC_KINDS,
    Entry,
    Shape,
    pod_spec_paths,
)
from krmfn.core.references.walk import END, ReferenceTable, compile_trie, find
from krmfn.yaml.tree import parse_item


def table_specs(entries=BUILTIN) -> tuple:
    """Every field spec of the table's rows, flat."""
    return tuple(spec for entry in entries for spec in entry.specs())


def parsed(text: str):
    return parse_item(("- " + text.strip().replace("\n", "\n  ") + "\n").encode())


def names(text: str, specs, api_version: str = "example.com/v1", kind: str = "Widget"):
    doc, node = parsed(text)
    trie = ReferenceTable.of(specs).trie_for(api_version, kind)
    found = find(doc, node, trie)
    return [doc.scalar(n) for n, _, _ in found], {doc.scalar(n): s for n, _, s in found if s is not None}


def test_split_path_keeps_escaped_slashes_in_keys():
    assert split_path("spec/template/spec") == ("spec", "template", "spec")
    assert split_path("metadata/annotations/a.io\\/b") == ("metadata", "annotations", "a.io/b")
    assert join_path(("metadata", "annotations", "a.io/b")) == "metadata/annotations/a.io\\/b"


def test_adding_a_kind_is_adding_a_row():
    shape = Shape("job spec", ("workers",), ("mounts",))
    rows = (Entry("Example", "example.com", "Widget", "spec", shape),
            Entry("Example", "example.com", "Widget", path="spec/configName", when=(Has("type", "configmap"),)))
    specs = table_specs(rows)
    assert {join_path(s.path) for s in specs if s.refers_to == "ConfigMap"} == {
        "spec/workers/env/valueFrom/configMapKeyRef/name", "spec/workers/envFrom/configMapRef/name",
        "spec/mounts/configMap/name", "spec/mounts/projected/sources/configMap/name", "spec/configName"}
    # A shape names every renamed kind: the same workers and mounts hold Secret references.
    secret_paths = {join_path(s.path) for s in specs if s.refers_to == "Secret"}
    assert {"spec/workers/envFrom/secretRef/name", "spec/mounts/secret/secretName",
            "spec/imagePullSecrets/name"} <= secret_paths
    specs = tuple(s for s in specs if s.refers_to == "ConfigMap")
    found, _ = names("""
kind: Widget
spec:
  type: configmap
  configName: a
  workers:
  - envFrom: [{configMapRef: {name: b}}]
  mounts:
  - {configMap: {name: c}}
""", specs)
    assert found == ["a", "b", "c"]


def test_the_table_has_the_kubernetes_pod_spec_kinds_and_more():
    for group, kind, prefix in POD_SPEC_KINDS:
        assert {FieldSpec(kind, split_path(p), group) for p in pod_spec_paths(prefix)} <= set(table_specs())
    kinds = {s.kind for s in table_specs()}
    for kind in ("Rollout", "Workflow", "CronWorkflow", "HelmRelease", "Prometheus", "ScaledJob", "CloneSet", "Node",
                 "Role", "ClusterRole", "Ingress"):
        assert kind in kinds


def test_every_row_is_either_a_shape_or_a_path():
    for entry in BUILTIN:
        assert (entry.shape is None) != (entry.path is None), entry.kind
        assert entry.specs()


def test_groups_select_the_kind():
    table = ReferenceTable.builtin()
    assert table.trie_for("serving.knative.dev/v1", "Service")
    assert not table.trie_for("v1", "Service")
    assert table.trie_for("apps.kruise.io/v1beta1", "StatefulSet")
    assert not table.trie_for("example.com/v1", "Rollout")
    assert table.trie_for("extensions/v1beta1", "Ingress")  # any group, as kustomize


def test_a_plain_spec_wins_over_a_conditional_one_on_the_same_path():
    plain = FieldSpec("Widget", ("spec", "ref", "name"))
    conditional = FieldSpec("Widget", ("spec", "ref", "name"), when=(Has("kind", "ConfigMap"),))
    assert compile_trie([conditional, plain])["spec"]["ref"]["name"][END] == {"ConfigMap": None}
    assert compile_trie([plain, conditional])["spec"]["ref"]["name"][END] == {"ConfigMap": None}
    assert compile_trie([conditional])["spec"]["ref"]["name"][END] == {"ConfigMap": (conditional,)}


def test_one_path_may_name_several_kinds_each_found_once():
    both = FieldSpec("Widget", split_path("rules/names"), when=(Has("resources", "configmaps", listed=True),))
    secret = FieldSpec("Widget", split_path("rules/names"), when=(Has("resources", "secrets", listed=True),),
                       refers_to="Secret")
    doc, node = parsed("kind: Widget\nrules:\n- {resources: [configmaps, secrets], names: [a]}\n"
                       "- {resources: [secrets], names: [b]}")
    found = find(doc, node, compile_trie([both, secret]))
    assert [(doc.scalar(n), kind) for n, kind, _ in found] == [("a", "ConfigMap"), ("a", "Secret"), ("b", "Secret")]


def test_conditions_on_the_map_holding_the_name():
    spec = FieldSpec("Widget", split_path("spec/from/name"), when=(Has("kind", "ConfigMap"),))
    found, attrs = names("""
kind: Widget
spec:
  from:
  - {kind: ConfigMap, name: a}
  - {kind: Secret, name: b}
  - {name: c}
  - {kind: [ConfigMap], name: d}
""", [spec])
    assert found == ["a"] and attrs == {"a": spec}


def test_listed_conditions_hold_for_a_list_that_includes_the_value():
    spec = FieldSpec("Widget", split_path("rules/names"), when=(Has("resources", "configmaps", listed=True),))
    found, _ = names("""
kind: Widget
rules:
- {resources: [pods, configmaps], names: [a, b]}
- {resources: [pods], names: [c]}
- {resources: configmaps, names: [d]}
""", [spec])
    assert found == ["a", "b", "d"]


def test_namespace_from_a_sibling_and_qualified_values():
    doc, node = parsed("""
kind: Widget
spec:
  ref: {name: a, namespace: ns}
  other: {name: b}
  qualified: [ns2/c, d]
""")
    ns_spec = FieldSpec("Widget", split_path("spec/ref/name"), namespace_from="namespace")
    other = FieldSpec("Widget", split_path("spec/other/name"), namespace_from="namespace")
    q = FieldSpec("Widget", split_path("spec/qualified"), qualified=True)
    found = find(doc, node, compile_trie([ns_spec, other, q]))
    targets = [s.target(doc, n, doc.scalar(n)) for n, _, s in found]
    assert targets == [("a", "ns", ""), ("b", None, ""), ("c", "ns2", "ns2/"), ("d", None, "")]


def test_find_without_attrs_still_applies_conditions():
    spec = FieldSpec("Widget", split_path("spec/from/name"), when=(Has("kind", "ConfigMap"),))
    doc, node = parsed("kind: Widget\nspec:\n  from: [{kind: Secret, name: b}, {kind: ConfigMap, name: a}]")
    assert [doc.scalar(n) for n, _, _ in find(doc, node, compile_trie([spec]))] == ["a"]


def test_a_user_spec_may_end_at_a_map_with_name_and_namespace():
    spec = FieldSpec("Widget", split_path("spec/configMapRef"), maps=True)
    found, attrs = names("""
kind: Widget
spec:
  configMapRef: {name: a, namespace: ns}
""", [spec])
    assert found == ["a"]
    doc, node = parsed("kind: Widget\nspec:\n  configMapRef: plain")
    assert [doc.scalar(n) for n, _, _ in find(doc, node, compile_trie([spec]))] == ["plain"]


def test_find_follows_aliases_and_reports_in_document_order():
    doc, node = parsed("""
kind: Pod
spec:
  volumes:
  - {name: v, configMap: {name: &cm z}}
  containers:
  - envFrom: [{configMapRef: {name: *cm}}, {configMapRef: {name: a}}]
""")
    trie = ReferenceTable.builtin().trie_for("v1", "Pod")
    found = [n for n, _, _ in find(doc, node, trie)]
    assert found == sorted(found)
    assert sorted(doc.scalar(n) for n in found) == ["a", "z", "z"]


def test_notices_name_the_field_and_fill_in_its_values():
    table = ReferenceTable.builtin()
    doc, node = parsed("kind: Rollout\nspec:\n  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}")
    [(path, message)] = table.notes(doc, node, "argoproj.io/v1alpha1", "Rollout")
    assert path == "spec.workloadRef" and "Deployment web" in message
    doc, node = parsed("kind: Rollout\nspec:\n  template: {}")
    assert table.notes(doc, node, "argoproj.io/v1alpha1", "Rollout") == []
    assert table.notes(doc, node, "example.com/v1", "Rollout") == []


def test_pod_spec_paths_is_the_pod_spec_shape():
    assert pod_spec_paths("spec") == POD_SPEC.paths("spec")
    assert "spec/ephemeralContainers/envFrom/configMapRef/name" in pod_spec_paths("spec")
    assert POD_SPEC.paths("")[0] == "containers/env/valueFrom/configMapKeyRef/name"
