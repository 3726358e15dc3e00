"""Warnings for references krmfn cannot place, one shape at a time, and what they cost."""

from __future__ import annotations

import textwrap

import pytest
from conftest import exit_code, items_by_name, resource_list, run

from krmfn.core.naming import hashing
from krmfn.core.references import unplaced
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run.scan import SHAPE_BYTES, UNPLACED_MARKERS

NEW = "app-" + hashing.suffix("kustomize", {"k": "v"}, None)

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    namespace: ns
    annotations: {krmfn.dev/content-hash: "true"}
  data: {k: v}
"""


def widget(spec: str, namespace: str = "ns", kind: str = "Widget") -> str:
    ns = f"\n    namespace: {namespace}" if namespace else ""
    return (f"- apiVersion: example.com/v1\n  kind: {kind}\n  metadata:\n    name: w{ns}\n  spec:\n"
            + textwrap.indent(textwrap.dedent(spec).strip("\n"), "    ") + "\n")


def deployment_d(*pod_spec: str) -> str:
    """Deployment d in namespace ns whose pod spec holds these lines."""
    return ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d, namespace: ns}\n  spec:\n"
            "    template:\n      spec:\n" + "".join(f"        {line}\n" for line in pod_spec))


def warnings(spec: str, **kw) -> list:
    out = run(resource_list(CM + widget(spec, **kw)))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if r.severity == "warning" and r.resource.kind != "ConfigMap"]


@pytest.mark.parametrize("spec,path,field_spec", [
    ("env:\n- valueFrom: {configMapKeyRef: {name: app, key: k}}", "spec.env[0].valueFrom.configMapKeyRef.name",
     "{kind: Widget, group: example.com, path: spec/env/valueFrom/configMapKeyRef/name}"),
    ("sources:\n- configMapRef: {name: app}", "spec.sources[0].configMapRef.name",
     "{kind: Widget, group: example.com, path: spec/sources/configMapRef/name}"),
    ("volume:\n  configMap: {name: app}", "spec.volume.configMap.name",
     "{kind: Widget, group: example.com, path: spec/volume/configMap/name}"),
    ("settings: {configMapName: app}", "spec.settings.configMapName",
     "{kind: Widget, group: example.com, path: spec/settings/configMapName}"),
    ("valuesFrom:\n- {kind: ConfigMap, name: app}", "spec.valuesFrom[0].name",
     "{kind: Widget, group: example.com, path: spec/valuesFrom/name, when: {kind: ConfigMap}}"),
])
def test_each_shape_is_a_warning_with_its_path_and_a_field_spec(spec, path, field_spec):
    [w] = warnings(spec)
    assert w.field_path == path
    assert w.current == "app" and w.proposed == NEW
    assert w.message.endswith("Add the fieldSpecs entry krmfn -v prints (docs/field-specs.md)")
    assert w.detail == f"- {field_spec}" and w.detail_tag == "fieldSpecs"
    assert "\n" not in w.message and len(w.message) <= 200
    assert "where krmfn does not know Widget names one" in w.message and "keeps naming the old ConfigMap" in w.message
    assert w.message.startswith(f"names ConfigMap app (now {NEW})")


def test_a_pod_spec_like_map_gets_field_specs_for_all_of_it():
    [w] = warnings("""
        runner:
          template:
            spec:
              containers:
              - name: c
                envFrom: [{configMapRef: {name: app}}]
        """)
    assert w.field_path == "spec.runner.template.spec.containers[0].envFrom[0].configMapRef.name"
    assert "Add the 8 fieldSpecs entries krmfn -v prints" in w.message and "\n" not in w.message
    pasted = [line[2:] for line in w.detail.splitlines() if line.startswith("- ")]
    assert len(pasted) == 8
    assert "{kind: Widget, group: example.com, path: spec/runner/template/spec/volumes/configMap/name}" in pasted


def test_a_condition_goes_only_on_its_own_spec():
    [w] = warnings("""
        pod:
          containers: [{name: c}]
          volumes: [{name: v, source: {kind: ConfigMap, name: app}}]
        """)
    pasted = [line for line in w.detail.splitlines() if line.startswith("- ")]
    assert len(pasted) == 9
    assert [p for p in pasted if "when:" in p] == [
        "- {kind: Widget, group: example.com, path: spec/pod/volumes/source/name, when: {kind: ConfigMap}}"]


def test_the_suggestion_pasted_into_field_specs_rewrites_the_reference():
    spec = """
        valuesFrom:
        - {kind: ConfigMap, name: app}
        - {kind: Secret, name: app}
        runner:
          containers:
          - envFrom: [{configMapRef: {name: app}}]
        """
    suggested = [line for w in warnings(spec) for line in w.detail.splitlines() if line.startswith("- ")]
    fc = ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: h}\nfieldSpecs:\n"
          + "\n".join(suggested))
    out = run(resource_list(CM + widget(spec), fc))
    assert exit_code(out) == 0 and not [r for r in out.results if r.severity == "warning"]
    w = items_by_name(out)[("Widget", "w")]["spec"]
    assert [v["name"] for v in w["valuesFrom"]] == [NEW, "app"]
    assert w["runner"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == NEW


def test_names_that_match_no_opted_in_configmap_are_quiet():
    assert warnings("ref: {configMapRef: {name: other}}") == []
    out = run(resource_list(CM.replace('"true"', '"false"') + widget("ref: {configMapRef: {name: app}}")))
    assert [r for r in out.results if r.severity == "warning"] == []


def test_an_already_hashed_name_still_warns_it_will_not_follow():
    [w] = warnings(f"ref: {{configMapRef: {{name: {NEW}}}}}")
    assert "its hashed name today" in w.message and "old ConfigMap" not in w.message


def test_the_namespace_rules_of_references_apply():
    assert warnings("ref: {configMapRef: {name: app}}", namespace="elsewhere") == []


def test_known_kinds_are_searched_outside_the_tables_paths():
    """A Deployment's ``extra.configMapRef`` is no path krmfn rewrites: a warning, with the field
    spec; the references it rewrites are not warned about, and the ConfigMap is not also said to
    be referenced by nothing when only such a field names it."""
    out = run(resource_list(CM + deployment_d("containers: [{name: c, envFrom: [{configMapRef: {name: app}}]}]",
                                              "extra: {configMapRef: {name: app}}")))
    found = [r for r in out.results if r.severity == "warning"]
    assert [r.field_path for r in found] == ["spec.template.spec.extra.configMapRef.name"]
    assert "in a field krmfn does not rewrite" in found[0].message
    only = CM + widget("extra: {configMapRef: {name: app}}")
    results = run(resource_list(only)).results
    assert [r.severity for r in results if "is now" in r.message] == ["info"]
    assert not any("nothing in the input references it" in r.message for r in results)


def test_metadata_and_non_string_names_are_not_searched():
    owned = """
        replicas: 1
        """
    item = widget(owned).replace("    name: w\n", "    name: w\n    ownerReferences:\n"
                                  "    - {apiVersion: v1, kind: ConfigMap, name: app, uid: u}\n")
    out = run(resource_list(CM + item))
    assert [r for r in out.results if r.severity == "warning" and r.resource.kind == "Widget"] == []
    assert warnings("ref: {configMapRef: {name: [app]}}") == []


def test_items_without_the_marker_are_never_walked(monkeypatch):
    calls = []
    original = unplaced.candidates
    monkeypatch.setattr(unplaced, "candidates", lambda *a: calls.append(a) or original(*a))
    run(resource_list(CM + widget("ref: {otherRef: {name: app}}")))
    assert calls == []
    run(resource_list(CM + widget("ref: {configMapRef: {name: app}}")))
    run(resource_list(CM + widget("ref: {secretRef: {name: app}}")))
    assert len(calls) == 2


def test_schemas_are_not_references():
    crd = """\
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.example.com}
  spec:
    versions:
    - name: v1
      schema:
        openAPIV3Schema:
          properties:
            example: {configMapRef: {name: app}}
"""
    out = run(resource_list(CM + crd))
    assert [r for r in out.results if r.severity == "warning" and r.resource.kind != "ConfigMap"] == []


def test_candidates_are_in_document_order_and_found_once():
    from krmfn.krm.resource import read_resource

    text = resource_list(widget("""
        b: {configMap: {kind: ConfigMap, name: first}}
        a: {configMapRef: {name: second}}
        """))
    item = text[text.index("- apiVersion"):].encode()
    res = read_resource(item, 0)
    found = unplaced.candidates(res.tree, res.node, res.metadata, unplaced.SHAPES.values())
    assert [(res.tree.scalar(n), kind) for n, kind in found] == [("first", "ConfigMap"), ("second", "ConfigMap")]


def test_the_table_decides_what_is_unknown():
    assert not ReferenceTable.builtin().trie_for("example.com/v1", "Widget")
    for shapes in unplaced.SHAPES.values():
        for key in [k for k, _ in shapes.maps] + list(shapes.scalars) + [shapes.kind]:
            assert shapes.marker.decode() in key  # the pre-check cannot miss a shape


def test_every_shape_holds_bytes_the_scan_looks_for_before_parsing():
    """A shape's text holds its key, or its map's name field, or its kind as a ``kind:`` value."""
    for shapes in unplaced.SHAPES.values():
        texts = [f"{k} {f}" for k, f in shapes.maps] + list(shapes.scalars) + [shapes.kind]
        for text in texts:
            assert any(b.decode() in text for b in SHAPE_BYTES), text


def test_a_role_that_only_lists_secrets_is_not_parsed_and_one_that_names_one_is(monkeypatch):
    from krmfn.core.run import scan

    parsed = []  # each object the scan reads from its tree (from the cut's pass, or parsed alone)
    original = scan.Scanner.add
    monkeypatch.setattr(scan.Scanner, "add", lambda self, res: parsed.append(res.source) or original(self, res))
    role = ("- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata: {name: r, namespace: ns}\n"
            "  rules:\n  - apiGroups: ['']\n    resources: [secrets, configmaps]\n    verbs: [get]\n")
    run(resource_list(role))
    assert parsed == []
    named = role.replace("    verbs: [get]", "    resourceNames: [app]\n    verbs: [get]")
    out = run(resource_list(CM + named))
    assert len(parsed) == 2
    assert "resourceNames: [app-" in out.text  # read, and its name follows the ConfigMap's


def test_the_scan_looks_for_every_kind_the_shapes_know_by_the_same_marker():
    assert dict(UNPLACED_MARKERS) == {kind: s.marker for kind, s in unplaced.SHAPES.items()}


SECRET = """\
- apiVersion: v1
  kind: Secret
  metadata:
    name: creds
    namespace: ns
    annotations: {krmfn.dev/content-hash: "true"}
  stringData: {password: hunter2}
"""
NEW_SECRET = "creds-" + hashing.digest("kustomize", hashing.encode_secret(None, None, {"password": "hunter2"}))


@pytest.mark.parametrize("spec,path,field_spec", [
    ("env:\n- valueFrom: {secretKeyRef: {name: creds, key: k}}", "spec.env[0].valueFrom.secretKeyRef.name",
     "{kind: Widget, group: example.com, path: spec/env/valueFrom/secretKeyRef/name}"),
    ("auth: {secretRef: {name: creds}}", "spec.auth.secretRef.name",
     "{kind: Widget, group: example.com, path: spec/auth/secretRef/name}"),
    ("volume:\n  secret: {secretName: creds}", "spec.volume.secret.secretName",
     "{kind: Widget, group: example.com, path: spec/volume/secret/secretName}"),
    ("tls: {secretName: creds}", "spec.tls.secretName",
     "{kind: Widget, group: example.com, path: spec/tls/secretName}"),
    ("pull:\n  imagePullSecrets: [{name: other}, {name: creds}]", "spec.pull.imagePullSecrets[1].name",
     "{kind: Widget, group: example.com, path: spec/pull/imagePullSecrets/name}"),
    ("valuesFrom:\n- {kind: Secret, name: creds}", "spec.valuesFrom[0].name",
     "{kind: Widget, group: example.com, path: spec/valuesFrom/name, when: {kind: Secret}}"),
])
def test_each_secret_shape_is_a_warning_with_its_path_and_a_field_spec(spec, path, field_spec):
    out = run(resource_list(CM + SECRET + widget(spec)))
    assert exit_code(out) == 0, out.results
    [w] = [r for r in out.results if r.severity == "warning" and r.resource.kind == "Widget"]
    assert w.field_path == path
    assert w.current == "creds" and w.proposed == NEW_SECRET
    assert w.message.startswith(f"names Secret creds (now {NEW_SECRET})")
    assert w.message.endswith("Add the fieldSpecs entry krmfn -v prints (docs/field-specs.md)")
    assert w.detail == f"- kind: Secret\n  fieldSpecs:\n  - {field_spec}"
    assert "hunter2" not in w.message


def test_a_secret_in_a_pod_spec_like_map_gets_the_secret_paths_of_all_of_it():
    runner = "runner:\n  containers:\n  - envFrom: [{secretRef: {name: creds}}]"
    out = run(resource_list(SECRET + widget(runner)))
    [w] = [r for r in out.results if r.severity == "warning" and r.resource.kind == "Widget"]
    paste = w.detail
    specs = [line[4:] for line in paste.splitlines() if line.startswith("  - ")]
    assert "{kind: Widget, group: example.com, path: spec/runner/imagePullSecrets/name}" in specs
    assert not any("configMap" in p for p in specs)
    fc = "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: h}\nfieldSpecs:\n" + paste
    again = run(resource_list(SECRET + widget(runner), fc))
    assert not [r for r in again.results if r.severity == "warning"]
    rewritten = items_by_name(again)[("Widget", "w")]["spec"]["runner"]
    assert rewritten["containers"][0]["envFrom"][0]["secretRef"]["name"] == NEW_SECRET


def test_a_deployment_with_secret_volumes_is_searched_outside_its_paths_only_for_what_the_walk_missed():
    out = run(resource_list(SECRET + deployment_d("containers: [{name: c}]",
                                                  "volumes: [{name: v, secret: {secretName: creds}}]",
                                                  "extra: {secretRef: {name: creds}}")))
    found = [r for r in out.results if r.severity == "warning"]
    assert [r.field_path for r in found] == ["spec.template.spec.extra.secretRef.name"]
    assert items_by_name(out)[("Deployment", "d")]["spec"]["template"]["spec"]["volumes"][0]["secret"][
        "secretName"] == NEW_SECRET
