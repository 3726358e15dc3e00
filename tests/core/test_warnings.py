"""Warnings worth reading (issue #36): what real renders showed to be false alarms is not reported,
or is reported as what it is, and one warning can be silenced on one object."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

SELECT_ALL = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {select: all, kinds: 'ConfigMap,Secret'}\n"


def cm(name: str, labels: str = "", annotations: str = "", namespace: str = "app", data: str = "{a: b}") -> str:
    meta = f"\n    labels: {{{labels}}}" if labels else ""
    meta += f"\n    annotations: {{{annotations}}}" if annotations else ""
    return f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n    namespace: {namespace}{meta}\n  data: {data}\n"


def deploy(name: str = "web", reads: str = "app", args: str = "[]", extra: str = "", kind: str = "Deployment",
           api: str = "apps/v1", annotations: str = "", namespace: str = "app") -> str:
    notes = f"\n    annotations: {{{annotations}}}" if annotations else ""
    return (f"- apiVersion: {api}\n  kind: {kind}\n  metadata:\n    name: {name}\n    namespace: {namespace}{notes}\n"
            f"  spec:\n{extra}    template:\n      spec:\n        containers:\n        - name: c\n          args: {args}\n"
            f"          env: [{{name: A, valueFrom: {{configMapKeyRef: {{name: {reads}, key: a}}}}}}]\n")


def warnings(out) -> list:  # noqa: ANN001
    return [r for r in out.results if r.severity == "warning"]


@pytest.mark.parametrize("obj,who", [
    (cm("dashboards", labels='grafana_dashboard: "1"'), "a sidecar finds it by its label grafana_dashboard"),
    (cm("argocd-cm", namespace="argocd"), "Argo CD reads it by its name"),
    (cm("config-logging", labels="app.kubernetes.io/name: knative-serving", namespace="knative-serving"),
     "Knative reads it by its name"),
    (cm("ingress-nginx-controller", namespace="ingress-nginx"), "ingress-nginx's controller"),
])
def test_select_all_leaves_what_a_program_finds_by_name_or_label_alone_and_says_why(obj, who):
    out = run(resource_list(obj, SELECT_ALL))
    assert exit_code(out) == 0 and not warnings(out), out.results
    [item] = yaml.safe_load(out.text)["items"]
    assert "immutable" not in item and item["metadata"]["name"] == yaml.safe_load(obj)[0]["metadata"]["name"]
    assert any(r.severity == "info" and who in r.message and r.message.startswith("left alone: ") for r in out.results)
    opted = run(resource_list(obj.replace("  metadata:\n", '  metadata:\n    annotations: {krmfn.dev/content-hash: "true"}\n', 1)
                              if "annotations" not in obj else obj, SELECT_ALL.replace("select: all, ", "")))
    if "annotations" not in obj:  # its own annotation still opts it in: the owner knows its readers follow
        assert yaml.safe_load(opted.text)["items"][0].get("immutable") is True


def test_a_name_that_is_also_a_namespace_prose_or_an_example_key_is_no_leftover():
    objects = (cm("kyverno", annotations='krmfn.dev/content-hash: "true"', namespace="kyverno")
               + deploy(reads="kyverno", namespace="kyverno",
                        args="['--namespace=kyverno', 'system:serviceaccount:kyverno:admission']",
                        annotations="description: 'The admission controller of kyverno, which reads kyverno at start'")
               + cm("notes", namespace="kyverno", data="{_example: 'set kyverno here', plain: x}"))
    out = run(resource_list(objects))
    assert exit_code(out) == 0
    assert not [r for r in warnings(out) if r.topic == "leftover-name"], out.results
    real = run(resource_list(cm("app", annotations='krmfn.dev/content-hash: "true"', namespace="shop")
                             + deploy(reads="app", args="['--config-map=app']", namespace="shop")))
    assert [r.topic for r in warnings(real)] == ["leftover-name"]  # a real leftover still warns


def test_no_roll_path_audit_for_a_one_shot_job_nor_a_rollout_verdict_for_a_helm_hook():
    job = deploy("migrate", kind="Job", api="batch/v1")
    out = run(resource_list(cm("app") + job + deploy("web")))
    audited = [r.resource.name for r in warnings(out) if r.topic == "roll-path"]
    assert audited == ["web"], out.results
    hook = deploy("setup", kind="Job", api="batch/v1", annotations="helm.sh/hook: pre-upgrade")
    hooked = run(resource_list(cm("app", annotations='krmfn.dev/content-hash: "true"') + hook))
    assert not [r for r in hooked.results if r.topic == "rollout"], hooked.results


def test_recreate_for_a_singleton_with_a_volume_claim_is_no_advice_to_change_it():
    strategy = "    replicas: 1\n    strategy: {type: Recreate}\n"
    volume = "        volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n"
    single = deploy(extra=strategy) + volume
    out = run(resource_list(cm("app", annotations='krmfn.dev/content-hash: "true"') + single))
    [verdict] = [r for r in out.results if r.topic == "rollout"]
    assert verdict.severity == "info" and "as it must" in verdict.message and "use RollingUpdate" not in verdict.message
    many = run(resource_list(cm("app", annotations='krmfn.dev/content-hash: "true"')
                             + deploy(extra="    replicas: 3\n    strategy: {type: Recreate}\n") + volume))
    [verdict] = [r for r in many.results if r.topic == "rollout"]
    assert verdict.severity == "warning" and "use RollingUpdate" in verdict.message


def test_one_warning_class_can_be_silenced_on_one_object():
    quiet = deploy("web", annotations='krmfn.dev/ignore-warnings: "roll-path"')
    out = run(resource_list(cm("app") + quiet + deploy("api")))
    audited = {r.resource.name: r for r in out.results if r.topic == "roll-path"}
    assert audited["api"].severity == "warning"
    assert audited["web"].severity == "info" and audited["web"].message.endswith("(silenced: krmfn.dev/ignore-warnings)")
    other = run(resource_list(cm("app") + deploy("web", annotations='krmfn.dev/ignore-warnings: "rollout"')))
    assert [r.severity for r in other.results if r.topic == "roll-path"] == ["warning"]  # another class: still warns


def test_the_silencing_annotation_is_a_key_krmfn_knows_and_reaches_an_object_krmfn_renames():
    """Found writing the wording pass's tests: the annotation drew an unknown-key warning, and an
    unreferenced ConfigMap krmfn renamed could not silence its warning (the result names its new name)."""
    lone = cm("app", annotations='krmfn.dev/content-hash: "true", krmfn.dev/ignore-warnings: unreferenced')
    out = run(resource_list(lone))
    assert warnings(out) == []
    [said] = [r for r in out.results if r.topic == "unreferenced"]
    assert said.severity == "info" and said.resource.name.startswith("app-")
    assert said.message.endswith("(silenced: krmfn.dev/ignore-warnings)")
