"""Namespace traps: a reference whose name matches an opted-in object only in another namespace is
a warning naming both namespaces and the fix, never "not in the input"; ``defaultNamespace`` says
what an empty namespace means in this render."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run


def cm(name: str = "api-config", namespace: str = "", optin: str = "true") -> str:
    ns = f"\n    namespace: {namespace}" if namespace else ""
    return f"""\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}{ns}
    annotations: {{krmfn.dev/content-hash: "{optin}"}}
  data: {{LOG_LEVEL: info}}
"""


def deployment(name: str, namespace: str = "demo", ref: str = "api-config", annotations: str = "") -> str:
    ns = f"\n    namespace: {namespace}" if namespace else ""
    return f"""\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: {name}{ns}{annotations}
  spec:
    template:
      spec:
        containers:
        - name: main
          image: nginx
          envFrom:
          - configMapRef: {{name: {ref}}}
        volumes:
        - name: config
          configMap: {{name: {ref}}}
"""


def config(**fields: str) -> str:
    return yaml.safe_dump({"apiVersion": "fn.krmfn.dev/v1alpha1", "kind": "ContentHash", "metadata": {"name": "c"},
                           **fields})


def names_in(out, kind: str) -> set[str]:
    found = set()
    for item in yaml.safe_load(out.text)["items"]:
        if item["kind"] == kind:
            pod = item["spec"]["template"]["spec"]
            found |= {pod["containers"][0]["envFrom"][0]["configMapRef"]["name"],
                      pod["volumes"][0]["configMap"]["name"]}
    return found


def test_a_base_left_to_kubectl_apply_n_gets_a_warning_on_each_referrer_naming_both_namespaces():
    """The issue's case: a ConfigMap with no namespace, three Deployments in demo."""
    out = run(resource_list(cm() + deployment("api") + deployment("web") + deployment("worker")))
    assert exit_code(out) == 0
    warnings = [r for r in out.results if r.severity == "warning" and r.resource.kind == "Deployment"]
    assert [w.resource.name for w in warnings] == ["api", "web", "worker"]  # one per referrer, not per reference
    for w in warnings:
        assert "only in namespace default (none given, and an empty namespace means default" in w.detail
        assert len(w.message) <= 200
        assert "not in demo" in w.message
        assert "set defaultNamespace: demo" in w.detail and "give both the same metadata.namespace" in w.detail
        assert w.field_path == "spec.template.spec.containers[0].envFrom[0].configMapRef.name"
    assert not any("not in the input" in r.message or "nothing in the input references it" in r.message
                   for r in out.results)
    (on_object,) = [r for r in out.results if r.resource.kind == "ConfigMap"]
    assert on_object.severity == "warning" and "only objects in other namespaces name it" in on_object.message
    assert on_object.detail == "Deployment/demo/api, Deployment/demo/web, Deployment/demo/worker"  # under -v
    assert names_in(out, "Deployment") == {"api-config"}  # left as they were, as the warnings say


def test_default_namespace_says_what_an_empty_namespace_means():
    out = run(resource_list(cm() + deployment("api"), config(defaultNamespace="demo")))
    assert exit_code(out) == 0
    assert not [r for r in out.results if r.severity == "warning"]
    (name,) = names_in(out, "Deployment")
    assert name.startswith("api-config-")


def test_with_default_namespace_an_explicit_default_is_another_namespace():
    out = run(resource_list(cm(namespace="default") + deployment("api", namespace=""),
                            config(defaultNamespace="demo")))
    (warning,) = [r for r in out.results if r.resource.kind == "Deployment" and r.severity == "warning"]
    assert "only in namespace default, not in demo (none given, and an empty namespace means demo in this " \
           "render, the function config's defaultNamespace)" in warning.detail
    assert "kubectl apply -n default" in warning.detail


def test_two_explicit_namespaces_have_one_fix():
    out = run(resource_list(cm(namespace="prod") + deployment("api", namespace="demo")))
    (warning,) = [r for r in out.results if r.resource.kind == "Deployment" and r.severity == "warning"]
    assert "only in namespace prod, not in demo" in warning.message
    assert "defaultNamespace" not in warning.message


def test_an_object_not_opted_in_in_another_namespace_is_an_info_that_says_where_it_is():
    out = run(resource_list(cm(optin="false") + deployment("api")))
    (info,) = [r for r in out.results if r.resource and r.resource.kind == "Deployment" and "namespace" in r.message]
    assert info.severity == "info" and "only in namespace default" in info.message
    assert "krmfn changes neither" in info.message
    assert not any("not in the input" in r.message for r in out.results)


def test_a_name_in_no_namespace_is_still_not_in_the_input():
    out = run(resource_list(cm() + deployment("api", namespace="", ref="other")))
    assert any(r.message.startswith("references ConfigMap other, which is not in the input") for r in out.results)


def test_a_reloader_list_naming_an_object_of_another_namespace():
    marks = "\n    annotations: {configmap.reloader.stakater.com/reload: api-config}"
    out = run(resource_list(cm(optin="false") + deployment("api", ref="x", annotations=marks),
                            config(honor=["reloader"])))
    said = [r for r in out.results if "configmap.reloader.stakater.com/reload names ConfigMap api-config" in r.message]
    assert len(said) == 1 and "only in namespace default" in said[0].message
    assert not any("not in this render" in r.message for r in out.results)


def test_duplicates_follow_the_rule_too():
    out = run(resource_list(cm() + cm(namespace="demo"), config(defaultNamespace="demo")))
    assert exit_code(out) == 1 and "appears twice in namespace 'demo'" in out.results[0].message


@pytest.mark.parametrize("value", ["Demo", "a_b", "-a", "x" * 64, "[a]"])
def test_default_namespace_must_be_a_namespace_name(value):
    out = run(resource_list(cm(), config(defaultNamespace=value)))
    assert exit_code(out) == 1
    assert "function config field 'defaultNamespace' must be a namespace name" in out.results[0].message
