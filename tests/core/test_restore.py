"""The way out: "false" on an object krmfn renamed before gives it its original name back, takes
off what krmfn added, and every reference follows back."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

from krmfn.core.naming import hashing
from krmfn.results import NOTHING_RENAMED

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    # the api's settings
    name: app
    annotations:
      krmfn.dev/content-hash: "true"  # opt in
      team: web
  data:
    key: one
"""
DEPLOYMENT = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    template:
      spec:
        containers:
        - name: main
          image: nginx
          envFrom:
          - configMapRef:
              name: {a}
          env:
          - name: K
            valueFrom:
              configMapKeyRef: {{name: {b}, key: key}}
        volumes:
        - name: config
          configMap:
            name: {c}
"""


def rendered(retention: str = "") -> str:
    """What a kpt render or ``krmfn -i`` leaves in the source: hashed, immutable, labelled."""
    config = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{retention: {retention}}}" \
        if retention else None
    out = run(resource_list(CM + DEPLOYMENT.format(a="app", b="app", c="app"), config))
    assert exit_code(out) == 0
    return out.text.split("results:")[0].split("functionConfig:")[0]


def opted_out(text: str) -> str:
    return text.replace('krmfn.dev/content-hash: "true"', 'krmfn.dev/content-hash: "false"')


def items(out) -> dict[str, dict]:
    return {i["kind"]: i for i in yaml.safe_load(out.text)["items"]}


def test_false_after_a_render_restores_the_name_and_removes_what_krmfn_added():
    source = opted_out(rendered())
    out = run(source)
    assert exit_code(out) == 0
    got = out.text.split("results:")[0]
    # Every line krmfn added is gone again, and the rest is the user's text, comments included.
    assert got == resource_list(opted_out(CM) + DEPLOYMENT.format(a="app", b="app", c="app"))
    (info,) = [r for r in out.results if r.resource.kind == "ConfigMap"]
    suffix = hashing.suffix("kustomize", {"key": "one"}, None)
    assert info.severity == "info" and info.resource.name == "app"
    assert info.message.startswith(f"ConfigMap app-{suffix} gets its original name back, app")
    assert "references follow: Deployment/web" in info.message
    (fate,) = [r for r in out.results if r.resource.kind == "Deployment"]
    assert "now that ConfigMap app gets its original name back" in fate.message


def test_running_again_on_the_output_changes_nothing_and_says_nothing():
    once = run(opted_out(rendered())).text.split("results:")[0]
    again = run(once)  # renames nothing, and says only that (the shell modes print it: core.report.unmatched)
    assert again.text.split("results:")[0] == once and [r.topic for r in again.results] == [NOTHING_RENAMED]


def test_references_by_the_hashed_name_an_older_one_and_the_original_all_follow():
    source = opted_out(rendered())
    hashed = yaml.safe_load(source)["items"][0]["metadata"]["name"]
    stale = "app-" + hashing.suffix("kustomize", {"key": "older"}, None)
    mixed = source.split("- apiVersion: apps/v1")[0] + DEPLOYMENT.format(a=hashed, b=stale, c="app")
    pod = items(run(mixed))["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["envFrom"][0]["configMapRef"]["name"] == "app"
    assert container["env"][0]["valueFrom"]["configMapKeyRef"]["name"] == "app"
    assert pod["volumes"][0]["configMap"]["name"] == "app"


def test_retention_annotations_stay():
    out = run(opted_out(rendered("flux")))
    annotations = items(out)["ConfigMap"]["metadata"]["annotations"]
    assert annotations == {"krmfn.dev/content-hash": "false", "team": "web",
                           "kustomize.toolkit.fluxcd.io/prune": "disabled"}


def test_a_flow_style_object_is_restored_through_its_tree():
    source = opted_out(rendered()).replace(
        "  metadata:\n    # the api's settings\n", "  metadata:\n").replace("  # opt in", "")
    meta = yaml.safe_load(source)["items"][0]["metadata"]
    flow = yaml.safe_dump(meta, default_flow_style=True, width=1000).strip()
    start = source.index("  metadata:\n")
    end = source.index("  data:")
    source = source[:start] + f"  metadata: {flow}\n" + source[end:]
    out = run(source)
    cm = items(out)["ConfigMap"]
    assert cm["metadata"] == {"name": "app", "annotations": {"krmfn.dev/content-hash": "false", "team": "web"}}
    again = run(out.text.split("results:")[0])
    assert "immutable" not in cm and [r.topic for r in again.results] == [NOTHING_RENAMED]


@pytest.mark.parametrize("edit", [
    ("", ""),  # never renamed: nothing to restore
    ("immutable: true", "immutable: false"),  # not what krmfn writes: left alone
])
def test_only_what_krmfn_wrote_is_taken_off(edit):
    if edit[0]:
        source = opted_out(rendered()).replace(*edit)
        out = run(source)
        assert items(out)["ConfigMap"]["immutable"] is False
    else:
        source = resource_list(opted_out(CM) + DEPLOYMENT.format(a="app", b="app", c="app"))
        out = run(source)
        assert out.text.split("results:")[0] == source and [r.topic for r in out.results] == [NOTHING_RENAMED]


def test_a_name_back_that_another_object_holds_is_an_error():
    source = opted_out(rendered())
    both = source.replace("items:\n", "items:\n" + CM.replace('"true"', '"false"'), 1)
    out = run(both)
    assert exit_code(out) == 1
    (error,) = out.results
    assert "would get its original name back, app, but ConfigMap/app is in the input too" in error.message
