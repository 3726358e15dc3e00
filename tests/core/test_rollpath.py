"""The roll-path audit: config read through env, envFrom or a subPath mount, by a workload that
nothing rolls, is a warning naming the workload, the object, the field and the fix."""

from __future__ import annotations

import pytest
from conftest import exit_code, resource_list, run

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg, namespace: ns%s}
  data: {k: v}
"""


def deployment(pod_spec: str, annotations: str = "", template: str = "") -> str:
    meta = f", annotations: {{{annotations}}}" if annotations else ""
    tmeta = f"\n      metadata: {{annotations: {{{template}}}}}" if template else ""
    return ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d, namespace: ns%s}\n  spec:\n"
            "    template:%s\n      spec:\n" % (meta, tmeta)
            + "".join(f"        {line}\n" for line in pod_spec.strip("\n").split("\n")))


ENV = "containers:\n- name: c\n  env:\n  - {name: K, valueFrom: {configMapKeyRef: {name: cfg, key: k}}}"
ENV_FROM = "containers:\n- name: c\n  envFrom:\n  - configMapRef: {name: cfg}"
SUB_PATH = ("containers:\n- name: c\n  volumeMounts:\n  - {name: v, mountPath: /etc/k, subPath: k}\n"
            "volumes:\n- name: v\n  configMap: {name: cfg}")
WHOLE = "containers:\n- name: c\n  volumeMounts:\n  - {name: v, mountPath: /etc/c}\nvolumes:\n- name: v\n  configMap: {name: cfg}"


def roll_warnings(items: str) -> list:
    out = run(resource_list(items))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if r.severity == "warning" and "nothing rolls" in r.message]


@pytest.mark.parametrize("spec,way,path", [
    (ENV, "env", "spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name"),
    (ENV_FROM, "envFrom", "spec.template.spec.containers[0].envFrom[0].configMapRef.name"),
    (SUB_PATH, "a subPath mount", "spec.template.spec.containers[0].volumeMounts[0]"),
])
def test_each_way_that_never_updates_is_one_warning(spec, way, path):
    [w] = roll_warnings(CM % "" + deployment(spec))
    assert str(w.resource) == "Deployment/ns/d" and w.field_path == path
    assert w.message.startswith(f"reads ConfigMap cfg through {way}, ")
    assert "nothing rolls Deployment d" in w.detail and 'krmfn.dev/content-hash: "true"' in w.message
    assert "\n" not in w.message and len(w.message) <= 200  # one line; why under -v


def test_two_ways_to_one_object_are_one_warning():
    spec = ENV + "\n  envFrom:\n  - configMapRef: {name: cfg}"
    [w] = roll_warnings(CM % "" + deployment(spec))
    assert "through env and envFrom" in w.message


@pytest.mark.parametrize("case", ["whole volume", "opted in", "opted out", "checksum", "reloader", "reloader list",
                                  "kyverno", "workload mark", "not in input"])
def test_nothing_said_when_something_rolls_or_the_volume_updates_live(case):
    cm, spec, ann, tmpl = CM % "", ENV, "", ""
    if case == "whole volume":
        spec = WHOLE
    elif case == "opted in":
        cm = CM % ', annotations: {krmfn.dev/content-hash: "true"}'
    elif case == "opted out":
        cm = CM % ', annotations: {krmfn.dev/content-hash: "false"}'
    elif case == "checksum":
        tmpl = "checksum/config: abc"
    elif case == "reloader":
        ann = 'reloader.stakater.com/auto: "true"'
    elif case == "reloader list":
        ann = "configmap.reloader.stakater.com/reload: cfg"
    elif case == "kyverno":
        ann = "autoreloader.thaum.xyz/configmap: cfg"
    elif case == "workload mark":
        ann = 'krmfn.dev/content-hash: "true"'
    elif case == "not in input":
        cm = ""
    assert roll_warnings(cm + deployment(spec, ann, tmpl)) == []


def test_a_reloader_list_that_names_another_object_does_not_roll_this_one():
    [w] = roll_warnings(CM % "" + deployment(ENV, "configmap.reloader.stakater.com/reload: other"))
    assert "ConfigMap cfg" in w.message


def test_secret_key_ref_is_named_as_a_secret():
    secret = "- apiVersion: v1\n  kind: Secret\n  metadata: {name: s, namespace: ns}\n  stringData: {k: hush}\n"
    spec = "containers:\n- name: c\n  env:\n  - {name: K, valueFrom: {secretKeyRef: {name: s, key: k}}}"
    [w] = roll_warnings(secret + deployment(spec))
    assert w.message.startswith("reads Secret s through env") and "hush" not in w.message


def immutable_warnings(items: str) -> list:
    out = run(resource_list(items))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if r.field_path == "immutable" and r.severity == "warning"]


def test_immutable_on_an_object_krmfn_does_not_rename_is_a_warning():
    [w] = immutable_warnings(CM % "" + "  immutable: true\n")
    assert str(w.resource) == "ConfigMap/ns/cfg" and "fails the apply" in w.message


def test_immutable_on_an_object_krmfn_renames_is_fine():
    cm = CM % ', annotations: {krmfn.dev/content-hash: "true"}' + "  immutable: true\n"
    assert immutable_warnings(cm) == []
    marked = CM % "" + "  immutable: true\n" + deployment(ENV, 'krmfn.dev/content-hash: "true"')
    assert immutable_warnings(marked) == []


# --- the audit's level: the function config's audit field ----------------------------------

def audit_results(items: str, level: str | None) -> list:
    config = None if level is None else f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{audit: {level}}}"
    out = run(resource_list(items, config))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if "nothing rolls" in r.message or r.field_path == "immutable"]


AUDITED = CM % "" + deployment(ENV) + CM.replace("cfg", "frozen") % "" + "  immutable: true\n"


@pytest.mark.parametrize("level,severity", [(None, "warning"), ("warn", "warning"), ("info", "info")])
def test_the_audit_level_gives_the_findings_severity(level, severity):
    found = audit_results(AUDITED, level)
    assert [(r.field_path, r.severity) for r in found] == [
        ("spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name", severity),
        ("immutable", severity)]


def test_audit_off_says_nothing_and_never_looks(monkeypatch):
    from krmfn.core.run import scan

    def refuse(*_):
        raise AssertionError("looked at how the config is read with audit: off")

    monkeypatch.setattr(scan, "_scan_reads", refuse)
    assert audit_results(AUDITED, "off") == []


def test_an_unknown_audit_level_is_an_error_naming_the_field():
    out = run(resource_list(CM % "", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {audit: loud}"))
    assert exit_code(out) == 1
    assert "function config field 'audit' must be one of warn, info, off, not 'loud'" in out.results[0].message
