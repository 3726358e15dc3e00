"""User field specs in kustomize's nameReference syntax, inline in the function config."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from conftest import exit_code, items_by_name, resource_list, run
from tooling import TESTS

from krmfn.core.naming import hashing
from krmfn.core.references.user_specs import parse_field_specs
from krmfn.results import Where

AT = Where("function config field 'fieldSpecs'")
from krmfn.core.references.fieldspec import FieldSpec, Has

ARGO_CONFIG = TESTS / "fixtures" / "argo-rollouts" / "rollout-transform.yaml"
SUFFIX = hashing.suffix("kustomize", {"k": "v"}, None)

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {krmfn.dev/content-hash: "true"}
  data: {k: v}
"""

EXPERIMENT = """\
- apiVersion: argoproj.io/v1alpha1
  kind: Experiment
  metadata: {name: exp}
  spec:
    duration: 5m
    templates:
    - name: baseline
      selector: {matchLabels: {app: demo}}
      template:
        metadata: {labels: {app: demo}}
        spec:
          initContainers:
          - name: init
            envFrom: [{configMapRef: {name: app}}]
          containers:
          - name: demo
            env:
            - name: A
              valueFrom: {configMapKeyRef: {name: app, key: k}}
          volumes:
          - name: cfg
            projected:
              sources: [{configMap: {name: app}}]
- apiVersion: argoproj.io/v1alpha1
  kind: AnalysisTemplate
  metadata: {name: smoke}
  spec:
    metrics:
    - name: smoke
      provider:
        job:
          spec:
            backoffLimit: 1
            template:
              spec:
                restartPolicy: Never
                containers:
                - name: smoke
                  envFrom: [{configMapRef: {name: app}}]
                volumes:
                - {name: cfg, configMap: {name: app}}
"""


def typed(field_specs: str) -> str:
    return ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: h}\nfieldSpecs:\n"
            + textwrap.indent(field_specs, "  "))


def configmap_form(field_specs: str) -> str:
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata:\n  fieldSpecs: |\n"
            + textwrap.indent(field_specs, "    "))


def all_names(obj) -> list[str]:
    """Every value under a key ``name`` inside configMap/configMapRef/configMapKeyRef maps."""
    out = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("configMap", "configMapRef", "configMapKeyRef") and isinstance(value, dict):
                out.append(value["name"])
            else:
                out += all_names(value)
    elif isinstance(obj, list):
        for value in obj:
            out += all_names(value)
    return out


@pytest.mark.parametrize("form", [typed, configmap_form])
def test_the_argo_rollouts_kustomize_configuration_works_unmodified(form):
    config = ARGO_CONFIG.read_text()
    out = run(resource_list(CM + EXPERIMENT, form(config)))
    assert exit_code(out) == 0, out.results
    objs = items_by_name(out)
    assert all_names(objs[("Experiment", "exp")]["spec"]) == [f"app-{SUFFIX}"] * 3
    assert all_names(objs[("AnalysisTemplate", "smoke")]["spec"]) == [f"app-{SUFFIX}"] * 2
    assert not [r for r in out.results if r.severity == "warning"]


def test_without_the_configuration_the_same_references_are_warnings():
    out = run(resource_list(CM + EXPERIMENT))
    warnings = [r for r in out.results if r.severity == "warning" and r.resource.kind != "ConfigMap"]
    assert len(warnings) == 5
    assert {w.resource.kind for w in warnings} == {"Experiment", "AnalysisTemplate"}


def test_the_configuration_keeps_its_configmap_and_secret_parts():
    specs = parse_field_specs(yaml.safe_load(ARGO_CONFIG.read_text()), AT)
    assert [s.refers_to for s in specs] == ["ConfigMap"] * 18 + ["Secret"] * 3  # ServiceAccount, Service...: skipped
    assert {s.kind for s in specs} == {"Rollout", "Experiment", "AnalysisTemplate"}
    assert all(s.group is None and s.version is None and s.maps for s in specs)


def test_three_shapes_give_the_same_specs():
    bare = [{"kind": "Widget", "group": "example.com", "path": "spec/cm/name"}]
    secret = FieldSpec("Widget", ("spec", "s", "name"), maps=True, refers_to="Secret")
    name_reference = [{"kind": "ConfigMap", "version": "v1", "fieldSpecs": bare},
                      {"kind": "Secret", "version": "v1", "fieldSpecs": [{"kind": "Widget", "path": "spec/s/name"}]},
                      {"kind": "Service", "version": "v1", "fieldSpecs": [{"kind": "Widget", "path": "spec/svc"}]}]
    configmaps = [FieldSpec("Widget", ("spec", "cm", "name"), "example.com", maps=True)]
    assert parse_field_specs(bare, AT) == parse_field_specs("- {kind: Widget, group: example.com, path: spec/cm/name}\n",
                                                            AT) == configmaps
    assert parse_field_specs(name_reference, AT) == parse_field_specs(
        {"nameReference": name_reference, "commonLabels": [{"path": "metadata/labels", "kind": "Widget"}]}, AT) \
        == configmaps + [secret]


def test_grammar_escaped_slashes_list_markers_create_and_empty_group():
    [a, b] = parse_field_specs([
        {"kind": "Widget", "path": "metadata/annotations/example.com\\/config", "create": "false"},
        {"kind": "Widget", "group": "", "version": "", "path": "spec/containers[]/envFrom[]/configMapRef/name"}], AT)
    assert a.path == ("metadata", "annotations", "example.com/config")
    assert b.path == ("spec", "containers", "envFrom", "configMapRef", "name") and b.group is None


def test_krmfn_keys_when_and_namespace_from():
    [spec] = parse_field_specs([{"kind": "Widget", "path": "spec/from/name", "when": {"kind": "ConfigMap"},
                                 "namespaceFrom": "namespace"}], AT)
    assert spec.when == (Has("kind", "ConfigMap", listed=True),) and spec.namespace_from == "namespace"


WIDGET = """\
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w}
  spec:
    ref: {name: app}
    refMap: {name: app}
    from:
    - {kind: ConfigMap, name: app}
    - {kind: Secret, name: app}
    annotations: {}
"""


def widget_names(specs: str, api_version: str = "example.com/v1") -> dict:
    out = run(resource_list(CM + WIDGET.replace("example.com/v1", api_version), typed(specs)))
    assert exit_code(out) == 0, out.results
    return items_by_name(out)[("Widget", "w")]["spec"]


def test_user_specs_rewrite_scalars_maps_and_conditional_lists():
    spec = widget_names("- {kind: Widget, path: spec/ref/name}\n- {kind: Widget, path: spec/refMap}\n"
                        "- {kind: Widget, path: spec/from/name, when: {kind: ConfigMap}}\n")
    new = f"app-{SUFFIX}"
    assert spec["ref"]["name"] == new and spec["refMap"]["name"] == new
    assert [f["name"] for f in spec["from"]] == [new, "app"]


def test_group_and_version_select_the_referrer():
    assert widget_names("- {kind: Widget, group: example.com, path: spec/ref/name}\n")["ref"]["name"] != "app"
    assert widget_names("- {kind: Widget, group: other.io, path: spec/ref/name}\n")["ref"]["name"] == "app"
    assert widget_names("- {kind: Widget, version: v2, path: spec/ref/name}\n")["ref"]["name"] == "app"
    assert widget_names("- {kind: Widget, version: v2, path: spec/ref/name}\n", "example.com/v2")["ref"]["name"] != "app"


@pytest.mark.parametrize("specs,words", [
    ("- {kind: Widget, path: spec//name}", ["entry 0", "kind Widget", "spec//name", "empty segment"]),
    ("- {kind: Widget, path: /spec/name}", ["entry 0", "empty segment"]),
    ("- {kind: Widget, path: 'spec/containers[0]/name'}", ["'containers[0]'", "without an index"]),
    ("- {kind: apps/v1/Deployment, path: spec/x}", ["'apps/v1/Deployment' is not a kind", "group"]),
    ("- {kind: Deployment.apps, path: spec/x}", ["'Deployment.apps' is not a kind"]),
    ("- {path: spec/x}", ["entry 0", "needs a kind"]),
    ("- {kind: Widget}", ["needs a path"]),
    ("- {kind: Widget, paths: spec/x}", ["unknown key 'paths'"]),
    ("- {kind: Widget, group: Example.COM, path: spec/x}", ["group 'Example.COM'"]),
    ("- {kind: Widget, path: spec/x, when: [kind]}", ["when must map"]),
    ("- kind: ConfigMap\n  fieldSpecs:\n  - {kind: Widget, path: ''}", ["nameReference entry 0 fieldSpecs[0]", "needs a path"]),
    ("nameReference:\n- kind: ConfigMap\n  fieldSpecs: [{kind: W, path: 'a//b'}]",
     ["nameReference[0] fieldSpecs[0]", "kind W", "empty segment"]),
    ("bogus: []", ["unknown key 'bogus'"]),
    ("just text", ["must be a list"]),
])
def test_bad_specs_are_errors_naming_the_spec(specs, words):
    out = run(resource_list(CM, typed(specs + "\n")))
    assert exit_code(out) == 1
    [err] = out.results
    assert err.severity == "error" and err.field_path == "fieldSpecs"
    for word in words:
        assert word in err.message, (word, err.message)
