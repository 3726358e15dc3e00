"""core.references.namespaces on its own: a reference that names an object only in another
namespace gets a warning saying both namespaces and the fixes, or an info when nothing changes."""

from __future__ import annotations

from units import scanned

from krmfn.core.references.lookup import Index
from krmfn.core.references.namespaces import describe, trap

ITEMS = """
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: api-config
    annotations: {krmfn.dev/content-hash: "%s"}
  data: {a: "1"}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api, namespace: demo}
  spec: {}
"""


def trap_of(opted_in: str):
    _, config, s = scanned(ITEMS % opted_in)
    index = Index.of(s, config.algorithm)
    found = [(res, index.hashed_of.get(res.index)) for res in s.renamed]
    return trap("references ConfigMap api-config", s.resources[1], "demo", found, "default", "spec.x")


def test_an_empty_namespace_is_named_with_the_rule_that_gave_it():
    assert describe("web", "default") == "web"
    assert describe("", "default") == "default (none given, and an empty namespace means default in this render, as in kustomize)"
    assert "the function config's defaultNamespace" in describe("", "prod")


def test_a_renamed_object_in_another_namespace_is_a_warning_with_both_fixes():
    result = trap_of("true")
    assert result.severity == "warning" and result.field_path == "spec.x"
    assert result.message.startswith("references ConfigMap api-config, which this render holds only in namespace "
                                     "default, not in demo: the reference is left unchanged and names no object once "
                                     "it is renamed api-config-")
    assert "give both the same metadata.namespace" in result.detail
    assert "kubectl apply -n demo, set defaultNamespace: demo" in result.detail


def test_an_object_krmfn_leaves_alone_is_only_an_info():
    result = trap_of("false")
    assert result.severity == "info"
    assert result.message.endswith("krmfn changes neither, and leaves the reference as it is")
