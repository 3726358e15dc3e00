"""core.references.known, .controllers and .monitoring on their own: objects programs read by
name, what a secret controller lets krmfn rename, and the Prometheus Operator's selector table."""

from __future__ import annotations

import re

import pytest

from krmfn.core.references.controllers import ALL, external_secret, made_keys, made_rest, sealed_secret
from krmfn.core.references.known import read_by_name
from krmfn.core.references.monitoring import SELECTORS
from krmfn.krm.resource import read_resource
from krmfn.results import ReferenceProblem


def item(text: str):
    return read_resource(text.encode(), 0)


def config_map(name: str, labels: str = "{}"):
    return item(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n    labels: {labels}\n")


@pytest.mark.parametrize(("name", "labels", "who"), [
    ("argocd-cm", "{}", "Argo CD reads it by its name"),
    ("config-logging", "{app.kubernetes.io/name: knative-serving}", "Knative reads it by its name"),
    ("config-logging", "{}", None),  # Knative's names only with Knative's label
    ("rel-kyverno-metrics", "{app.kubernetes.io/part-of: kyverno}", "Kyverno reads it by its name"),
    ("app-config", "{}", None),
])
def test_an_object_read_by_a_fixed_name_says_who_reads_it(name, labels, who):
    assert read_by_name(config_map(name, labels), name) == who


def test_a_dashboard_a_sidecar_collects_by_label_is_known_whatever_its_name():
    found = read_by_name(config_map("my-dashboard", "{grafana_dashboard: '1'}"), "my-dashboard")
    assert found is not None and found.startswith("a sidecar finds it by its label grafana_dashboard")


def sealed(annotations: str):
    return item("- apiVersion: bitnami.com/v1alpha1\n  kind: SealedSecret\n  metadata:\n    name: db\n"
                f"    annotations: {annotations}\n  spec:\n    encryptedData: {{password: AgBy}}\n")


def test_a_strict_scope_sealed_secret_cannot_be_renamed():
    with pytest.raises(ReferenceProblem, match="SealedSecret db is sealed with the strict scope"):
        sealed_secret(sealed("{}"))
    sealed_secret(sealed('{sealedsecrets.bitnami.com/namespace-wide: "true"}'))  # allowed: returns


@pytest.mark.parametrize(("target", "error"), [
    ("{name: db}", None),
    ("{name: db, creationPolicy: Orphan}", None),
    ("{name: db, creationPolicy: Merge}", "writes into a Secret that another tool creates"),
    ("{name: db, creationPolicy: None}", "creates no Secret"),
    ("{manifest: {apiVersion: v1, kind: ConfigMap}}", r"makes another kind of object \(spec.target.manifest\)"),
])
def test_an_external_secret_is_renamed_only_when_the_operator_creates_its_secret(target, error):
    res = item("- apiVersion: external-secrets.io/v1\n  kind: ExternalSecret\n  metadata: {name: db}\n"
               f"  spec:\n    target: {target}\n")
    if error is None:
        external_secret(res)
    else:
        with pytest.raises(ReferenceProblem, match=error):
            external_secret(res)


def test_a_plan_compares_a_sealed_secrets_keys_without_showing_values():
    data = {"spec": {"encryptedData": {"password": "AgBy"}, "template": {"type": "kubernetes.io/basic-auth"}}}
    keys = made_keys("SealedSecret", data)
    assert list(keys) == ["password"] and keys["password"][0] == "data"
    assert made_rest("SealedSecret", data) == {"type": "kubernetes.io/basic-auth"}
    changed = made_keys("SealedSecret", {"spec": {"encryptedData": {"password": "AgBz"}}})
    assert changed["password"] != keys["password"]


def test_an_external_secrets_target_name_is_not_a_change():
    one = made_keys("ExternalSecret", {"spec": {"target": {"name": "a"}, "data": [{"secretKey": "k", "x": 1}]}})
    two = made_keys("ExternalSecret", {"spec": {"target": {"name": "b"}, "data": [{"secretKey": "k", "x": 1}]}})
    assert one == two and set(one) == {"k", ALL}


def test_the_monitoring_table_names_only_renamed_kinds_by_relative_paths():
    assert {"Prometheus", "Alertmanager", "ThanosRuler", "ServiceMonitor", "PodMonitor"} <= set(SELECTORS)
    for kind, rows in SELECTORS.items():
        for renamed, paths in rows:
            assert renamed in ("ConfigMap", "Secret"), kind
            assert len(set(paths)) == len(paths), kind
            for path in paths:
                assert re.fullmatch(r"[A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)*", path), (kind, path)
                assert not path.startswith("spec/") and not path.endswith("/name"), (kind, path)


def test_a_prometheus_reads_its_additional_scrape_configs_from_a_secret():
    rows = dict(SELECTORS["Prometheus"])
    assert "additionalScrapeConfigs" in rows["Secret"]
