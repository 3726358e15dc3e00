"""core.references.lookup on its own: which object a reference means, by exact name, by family
(a first run) or by an older hashed name (a re-run), under kustomize's namespace rule."""

from __future__ import annotations

from units import scanned

from krmfn.core.references.lookup import Index

ITEMS = """
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
    namespace: web
    annotations: {krmfn.dev/content-hash: "true"}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: plain        # not opted in
  data: {b: "2"}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: d, namespace: web}
  spec: {}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: reader}
- apiVersion: v1
  kind: Pod
  metadata: {name: p}   # in no namespace: default
  spec: {}
"""


def index_of(items: str = ITEMS, empty: str = "default"):
    _, config, s = scanned(items)
    return s, Index.of(s, config.algorithm, empty)


def names(found) -> list[tuple[str, bool]]:
    return [(res.name, h is not None) for res, h in found]


def test_a_reference_finds_the_object_by_its_family_in_its_own_namespace():
    s, index = index_of()
    deployment = s.resources[2]
    assert names(index.candidates("ConfigMap", "app-config", deployment)) == [("app-config", True)]
    assert index.candidates("ConfigMap", "plain", deployment) == []  # plain is in default, not web


def test_a_stale_hashed_name_finds_its_family():
    s, index = index_of()
    assert names(index.candidates("ConfigMap", "app-config-5m8tb7mkgk", s.resources[2])) == [("app-config", True)]


def test_a_cluster_scoped_referrer_finds_an_object_in_any_namespace():
    s, index = index_of()
    assert names(index.candidates("ConfigMap", "app-config", s.resources[3])) == [("app-config", True)]


def test_an_object_outside_the_referrers_namespace_is_found_only_elsewhere():
    s, index = index_of()
    pod = s.resources[4]
    assert index.candidates("ConfigMap", "app-config", pod) == []
    assert names(index.elsewhere("ConfigMap", "app-config")) == [("app-config", True)]
    assert names(index.candidates("ConfigMap", "plain", pod)) == [("plain", False)]


def test_default_namespace_moves_what_empty_means():
    s, index = index_of(empty="web")
    assert index.namespace_of(s.resources[4]) == "web"
    assert names(index.candidates("ConfigMap", "app-config", s.resources[4])) == [("app-config", True)]
