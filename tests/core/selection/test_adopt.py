"""core.selection.adopt on its own: a workload's mark opts in the objects it reads, once the whole
input is scanned; an object that says "false" stays out, and a name the mark gives that the
input lacks is said."""

from __future__ import annotations

from units import scanned

from krmfn.core.references.lookup import Index
from krmfn.core.selection.adopt import adopt

ITEMS = """
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app-config}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kept
    annotations: {krmfn.dev/content-hash: "false"}
  data: {b: "2"}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      %s
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom:
          - configMapRef: {name: app-config}
          - configMapRef: {name: kept}
"""
HONOR_RELOADER = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {honor: reloader}"


def adopted(mark: str, function_config: str | None = None):
    _, config, s = scanned(ITEMS % mark, function_config)
    index = Index.of(s, config.algorithm)
    results: list = []
    out = adopt(s, config, index, results)
    return s, index, out, [(r.severity, r.message) for r in results]


def test_a_workloads_mark_hashes_what_it_reads_and_the_index_knows_it():
    s, index, _, results = adopted('krmfn.dev/content-hash: "true"')
    assert [h.new_name for h in s.hashed] == ["app-config-h29d89cmmt"]
    assert list(index.hashed_of) == [0]
    assert results == [("info", "opted in by Deployment/web (krmfn.dev/content-hash)"),
                       ("info", "not hashed, although Deployment/web (krmfn.dev/content-hash) opts it in: its own "
                                'krmfn.dev/content-hash: "false" wins')]


def test_no_mark_adopts_nothing():
    s, index, _, results = adopted("other: x")
    assert s.hashed == [] and index.hashed_of == {} and results == []


def test_a_reloader_list_naming_an_object_the_input_lacks_is_said():
    s, _, _, results = adopted('configmap.reloader.stakater.com/reload: "app-config,absent"', HONOR_RELOADER)
    assert [h.original for h in s.hashed] == ["app-config"]
    assert results == [
        ("info", "opted in by Deployment/web (configmap.reloader.stakater.com/reload: app-config)"),
        ("warning", "configmap.reloader.stakater.com/reload asks to roll for ConfigMap absent, which is not in this "
                    "render: keep Reloader for it, or render it with the rest")]
