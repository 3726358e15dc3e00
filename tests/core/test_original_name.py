"""krmfn.dev/original-name is trusted only when the name is that original plus a hash suffix of
the shape krmfn or kustomize gives: a ConfigMap db-settings that carries original-name db (copied
from rendered output) is no version of db, and references to db must not be redirected to it."""

from __future__ import annotations

import pytest
from conftest import exit_code, items_by_name, resource_list, run

from krmfn.core.naming import hashing

SETTINGS = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    annotations:
      krmfn.dev/content-hash: "{optin}"
      krmfn.dev/original-name: db
  data: {{a: b}}
"""
WEB = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: c
          envFrom: [{configMapRef: {name: db}}, {configMapRef: {name: db-settings}}]
"""


def _refs(out) -> list[str]:
    spec = items_by_name(out)[("Deployment", "web")]["spec"]["template"]["spec"]
    return [e["configMapRef"]["name"] for e in spec["containers"][0]["envFrom"]]


@pytest.mark.parametrize("optin", ["true", "false"])
def test_a_copied_original_name_does_not_capture_references_to_another_configmap(optin: str) -> None:
    out = run(resource_list(SETTINGS.format(name="db-settings", optin=optin) + WEB))
    assert exit_code(out) == 0
    warnings = [r for r in out.results if r.severity == "warning" and "original-name" in r.message]
    assert len(warnings) == 1, out.results
    (w,) = warnings
    assert "'db-settings'" in w.message and "'db'" in w.message and "\n" not in w.message
    assert w.field_path == "metadata.annotations[krmfn.dev/original-name]"
    objs = items_by_name(out)
    db_ref = _refs(out)[0]
    assert db_ref == "db"  # the other ConfigMap db (in the cluster) is still what it names
    if optin == "true":
        (cm,) = [o for (kind, _), o in objs.items() if kind == "ConfigMap"]
        assert cm["metadata"]["name"].startswith("db-settings-")  # its own family, not db's
        assert cm["metadata"]["annotations"]["krmfn.dev/original-name"] == "db-settings"
        assert _refs(out)[1] == cm["metadata"]["name"]


@pytest.mark.parametrize("suffix", [hashing.digest("kustomize", "x"), hashing.digest("sha256", "x")])
def test_a_hashed_name_of_either_algorithm_keeps_its_family(suffix: str) -> None:
    out = run(resource_list(SETTINGS.format(name=f"db-{suffix}", optin="true") + WEB))
    assert exit_code(out) == 0
    assert not [r for r in out.results if "original-name" in r.message and r.severity == "warning"]
    (cm,) = [o for (kind, _), o in items_by_name(out).items() if kind == "ConfigMap"]
    assert cm["metadata"]["name"].startswith("db-") and _refs(out)[0] == cm["metadata"]["name"]


@pytest.mark.parametrize(("name", "trusted"), [
    ("db-4h2mbtbbt6", True), ("db-0123456789abcdef", True), ("db", False),
    ("db-settings", False), ("db-4h2mbtbbt", False), ("db-4h2mbtbbt6-v2", False), ("dbx-4h2mbtbbt6", False),
    ("db-0123456789ABCDEF", False), ("db-aaaaaaaaaa", False),
])
def test_is_hashed_form(name: str, trusted: bool) -> None:
    assert hashing.is_hashed_form(name, "db") is trusted
