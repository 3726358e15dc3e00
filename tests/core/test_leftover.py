"""Leftover names: after a rename, the original name still written in free text gets one warning
with its path and the fieldSpecs entry to add; a run with no rename pays nothing for it."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

from krmfn.core.naming import hashing

NEW = "db-" + hashing.suffix("kustomize", {"k": "v"}, None)
CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: db
    namespace: ns
    annotations: {krmfn.dev/content-hash: "true"}
  data: {k: v}
"""


def deployment(container: str, annotations: str = "") -> str:
    meta = f", annotations: {{{annotations}}}" if annotations else ""
    return ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: ns%s}\n  spec:\n"
            "    template:\n      spec:\n        volumes:\n        - {name: v, configMap: {name: db}}\n"
            "        containers:\n        - name: c\n" % meta
            + "".join(f"          {line}\n" for line in container.strip("\n").split("\n")))


def leftovers(items: str) -> list:
    out = run(resource_list(items))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if r.severity == "warning" and r.topic == "leftover-name"]


@pytest.mark.parametrize("container,path,spec_path,whole", [
    ("args: [--config, db]", "spec.template.spec.containers[0].args[1]", "spec/template/spec/containers/args", True),
    ("args: [--configmap=ns/db]", "spec.template.spec.containers[0].args[0]", "spec/template/spec/containers/args",
     False),
    ("command: [run, db]", "spec.template.spec.containers[0].command[1]", "spec/template/spec/containers/command",
     True),
    ("env:\n- {name: CONFIG, value: db}", "spec.template.spec.containers[0].env[0].value",
     "spec/template/spec/containers/env/value", True),
])
def test_a_leftover_in_a_container_is_one_warning_with_the_field_spec(container, path, spec_path, whole):
    [w] = leftovers(CM + deployment(container))
    assert str(w.resource) == "Deployment/ns/web" and w.field_path == path
    assert w.current == "db" and w.proposed == NEW
    spec = f"{{kind: Deployment, group: apps, path: {spec_path}}}"
    assert w.detail == f"- {spec}" and w.to_data()["tags"] == {"fieldSpecs": f"- {spec}"}
    assert "add the fieldSpecs entry krmfn -v prints" in w.message and "\n" not in w.message
    assert len(w.message) <= 200  # one line; the entry rides in the detail
    assert ("give it a field of its own" in w.message) is not whole


def test_an_annotation_and_another_configmaps_data_are_read():
    other = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: other, namespace: ns}\n"
             "  data: {app.conf: 'source = db'}\n")
    found = leftovers(CM + deployment("image: x", "example.com/config: db") + other)
    assert [(str(w.resource), w.field_path) for w in found] == [
        ("Deployment/ns/web", "metadata.annotations[example.com/config]"),
        ("ConfigMap/ns/other", "data[app.conf]")]
    assert found[0].detail.endswith("path: metadata/annotations/example.com\\/config}")


SECRET = ("- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: tls\n    namespace: ns\n"
          '    annotations: {krmfn.dev/content-hash: "true"}\n  stringData: {k: v}\n')


def test_istio_credential_name_is_a_secret_field_spec():
    rule = ("- apiVersion: networking.istio.io/v1\n  kind: DestinationRule\n  metadata: {name: dr, namespace: ns}\n"
            "  spec:\n    host: h\n    trafficPolicy:\n      tls: {mode: MUTUAL, credentialName: tls}\n")
    [w] = leftovers(SECRET + rule)
    assert w.field_path == "spec.trafficPolicy.tls.credentialName"
    assert "add the fieldSpecs entry krmfn -v prints" in w.message and "\n" not in w.message
    assert w.detail == ("- kind: Secret\n  fieldSpecs:\n  - {kind: DestinationRule, group: networking.istio.io, "
                        "path: spec/trafficPolicy/tls/credentialName}")


def test_an_istio_gateways_credential_name_is_rewritten_not_left_over():
    gateway = ("- apiVersion: networking.istio.io/v1\n  kind: Gateway\n  metadata: {name: gw, namespace: ns}\n"
               "  spec:\n    servers:\n    - tls: {mode: SIMPLE, credentialName: tls}\n")
    out = run(resource_list(SECRET + gateway))
    assert exit_code(out) == 0 and [r for r in out.results if "the original name of" in r.message] == []
    secret, gw = yaml.safe_load(out.text)["items"]
    assert secret["metadata"]["name"].startswith("tls-")
    assert gw["spec"]["servers"][0]["tls"]["credentialName"] == secret["metadata"]["name"]


@pytest.mark.parametrize("container", [
    "args: [--host=dbhost, db-1, app.db, db.example.com]",  # word boundaries: other names
    "env:\n- {name: DB, valueFrom: {configMapKeyRef: {name: db, key: k}}}",  # a reference krmfn rewrites
])
def test_no_warning_for_other_names_or_rewritten_references(container):
    assert leftovers(CM + deployment(container)) == []


def test_a_name_another_object_carries_is_not_a_leftover_in_free_text():
    service = "- apiVersion: v1\n  kind: Service\n  metadata: {name: db, namespace: ns}\n  spec: {ports: [{port: 1}]}\n"
    assert leftovers(CM + deployment("args: [--host, db]") + service) == []


def test_tools_annotations_and_the_object_itself_are_not_read():
    cm = CM.replace("{k: v}", "{k: v, self: db}")
    meta = 'meta.helm.sh/release-name: db, configmap.reloader.stakater.com/reload: db'
    out = run(resource_list(cm.replace("{k: v, self: db}", "{k: v}") + deployment("image: x", meta)))
    assert [r for r in out.results if "the original name of" in r.message] == []
    assert leftovers(cm + deployment("image: x")) == []


def test_a_run_with_no_rename_never_looks(monkeypatch):
    from krmfn.core.report import leftover

    def boom(*_):
        raise AssertionError("looked for leftovers with nothing renamed")

    monkeypatch.setattr(leftover, "leftovers", boom)
    out = run(resource_list(CM.replace('"true"', '"false"') + deployment("args: [db]")))
    assert exit_code(out) == 0


@pytest.mark.parametrize("arg", ["-path=/db", "/db/run.sh", "sh /db"])
def test_a_file_path_is_not_a_leftover(arg):
    """The argo-workflows and suffix-jobs examples mount a ConfigMap at /its-name: a path, not a name."""
    assert leftovers(CM + deployment(f"args: ['{arg}']")) == []


def test_a_run_with_no_rename_does_not_scan(monkeypatch):
    """Runs with no rename pay nothing: the scan is never called (it would raise here)."""
    import krmfn.core.report.leftover as leftover

    def refuse(*_):
        raise AssertionError("scanned for leftovers in a run that renames nothing")

    monkeypatch.setattr(leftover, "leftovers", refuse)
    plain = CM.replace("    annotations: {krmfn.dev/content-hash: \"true\"}\n", "")
    assert leftovers(plain + deployment("args: [--config, db]")) == []
    with pytest.raises(AssertionError, match="renames nothing"):
        leftovers(CM + deployment("args: [--config, db]"))


# --- the fieldSpecs entry a warning gives: accepted as it is, and it does what it says ------------

OTHER = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: other, namespace: ns}\n  data: {app.conf: db}\n"
RULE = ("- apiVersion: networking.istio.io/v1\n  kind: DestinationRule\n  metadata: {name: dr, namespace: ns}\n"
        "  spec:\n    host: h\n    trafficPolicy:\n      tls: {mode: MUTUAL, credentialName: tls}\n")
PASTED = [  # (items, the object's original name, where it is left over, the same place as data keys)
    (CM + deployment("args: [--config, db]"), "db", ("spec", "template", "spec", "containers", 0, "args", 1)),
    (CM + deployment("command: [run, db]"), "db", ("spec", "template", "spec", "containers", 0, "command", 1)),
    (CM + deployment("env:\n- {name: CONFIG, value: db}"), "db",
     ("spec", "template", "spec", "containers", 0, "env", 0, "value")),
    (CM + deployment("image: x", "example.com/config: db"), "db", ("metadata", "annotations", "example.com/config")),
    (CM + OTHER, "db", ("data", "app.conf")),
    (SECRET + RULE, "tls", ("spec", "trafficPolicy", "tls", "credentialName")),
]


def _at(obj, keys):
    for key in keys:
        obj = obj[key]
    return obj


@pytest.mark.parametrize("items,original,keys", PASTED, ids=["args", "command", "env value", "annotation",
                                                             "configmap data", "credentialName"])
def test_the_field_specs_a_warning_gives_are_accepted_and_rewrite_the_name(items, original, keys):
    """The entry the warning says to add, pasted as it is into the function config's fieldSpecs:
    core.references.user_specs accepts it, the next run rewrites the name there, and the warning is gone."""
    from krmfn.core.references.user_specs import parse_field_specs
    from krmfn.results import Where

    [w] = leftovers(items)
    pasted = w.detail
    data = yaml.safe_load(pasted)
    assert parse_field_specs(data, Where("fieldSpecs")), pasted  # accepted, and about a renamed kind
    config = yaml.safe_dump({"apiVersion": "fn.krmfn.dev/v1alpha1", "kind": "ContentHash",
                             "metadata": {"name": "c"}, "fieldSpecs": data})
    out = run(resource_list(items, config))
    assert exit_code(out) == 0, out.results
    assert [r for r in out.results if "the original name of" in r.message] == []
    by_name = {i["metadata"]["name"]: i for i in yaml.safe_load(out.text)["items"]}
    [renamed] = [n for n, i in by_name.items() if i["metadata"].get("annotations", {}).get(
        "krmfn.dev/original-name") == original]
    referrer = by_name[w.resource.name]
    assert _at(referrer, keys) == renamed
