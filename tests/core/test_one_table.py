"""One reference table for every command: a row added once is found by the rename, by gc and by
`krmfn plan`, through the same walk (issue #38)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from krmfn.changes import changeplan
from krmfn.core.references import walk
from krmfn.core.references.table import BUILTIN, Entry
from krmfn.core.run.function import run_resource_list
from krmfn.gc import planner as gc

# A field no built-in row holds: a Deployment's pod-template annotation that names a ConfigMap.
ROW = Entry("Example", None, "Deployment", path="spec/template/metadata/annotations/example.com\\/config")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: shop}}
spec:
  template:
    metadata: {{annotations: {{example.com/config: {name}}}}}
    spec: {{containers: [{{name: web, image: web}}]}}
"""
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: {name}, namespace: shop, annotations: {{krmfn.dev/content-hash: "true", \
krmfn.dev/original-name: app}}, labels: {{krmfn.dev/family: app}}}}
data: {{level: {level}}}
"""


@pytest.fixture(params=[False, True], ids=["without the row", "with the row"])
def added(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    if request.param:
        monkeypatch.setattr(walk, "BUILTIN", (*BUILTIN, ROW))
    return bool(request.param)


def test_the_rename_finds_it(added: bool) -> None:
    items = "".join(f"- {text.replace(chr(10), chr(10) + '  ')}\n" for text in (
        CONFIGMAP.format(name="app", level="info").replace("krmfn.dev/original-name: app", "x: y").rstrip(),
        DEPLOYMENT.format(name="app").rstrip()))
    done = run_resource_list(f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}".encode())
    assert not done.failed, done.results
    assert ("example.com/config: app-" in done.text) is added


def test_gc_finds_it(added: bool) -> None:
    def meta(name: str, age: int, **more: object) -> dict:
        stamp = (datetime(2024, 6, 1, tzinfo=UTC) - timedelta(days=age)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"name": name, "namespace": "shop", "uid": name, "resourceVersion": "1", "creationTimestamp": stamp,
                **more}
    configmaps = [{"apiVersion": "v1", "kind": "ConfigMap", "data": {},
                   "metadata": meta(name, age, labels={"krmfn.dev/family": "app"})} for name, age in (("app-old", 9),
                                                                                                       ("app-new", 1))]
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("web", 9),
                  "spec": {"template": {"metadata": {"annotations": {"example.com/config": "app-old"}}}}}
    options = gc.Options(keep=1, min_age=timedelta(0), allow_no_referrers=True)
    found = gc.plan_collection([*configmaps, deployment], datetime(2024, 6, 1, tzinfo=UTC), options, gc.gc_table())
    old = next(r for r in found.rows if r.name == "app-old")
    assert (old.verdict, old.referrers[0].kind if old.referrers else None) == (
        (gc.KEEP, "Deployment") if added else (gc.DELETE, None))


def test_krmfn_plan_finds_it(added: bool) -> None:
    old, new = (changeplan.read_render(f"{CONFIGMAP.format(name=name, level=level)}---\n"
                                       f"{DEPLOYMENT.format(name=name)}".encode())
                for name, level in (("app-aaa", "info"), ("app-bbb", "debug")))
    rolls = changeplan.change_plan(old, new).rolls
    assert [(r.name, r.reads) for r in rolls] == ([("web", {"ConfigMap app": [changeplan.ALL]})] if added else [])
