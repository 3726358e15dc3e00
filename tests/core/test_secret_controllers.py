"""Custom resources that a controller turns into what pods use, renamed like ConfigMaps and Secrets:
SecretProviderClass (Secrets Store CSI driver), SealedSecret (sealed-secrets), ExternalSecret
(External Secrets Operator). What each hashes, what is rewritten, what is refused and why."""

from __future__ import annotations

import textwrap
from datetime import timedelta

import pytest
import yaml
from conftest import exit_code, items_by_name, resource_list, run

from krmfn.core import hashing
from krmfn.core.kinds import BY_KIND
from krmfn.gc import planner as gc

NOW = gc.parse_time("2024-06-01T12:00:00Z", "now")


def _indent(text: str, by: int) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * by)


def deployment(volume: str = "", env: str = "", name: str = "web", annotations: str = "") -> str:
    meta = f"\n    annotations:\n{_indent(annotations, 6)}" if annotations else ""
    return f"""\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: {name}
    namespace: app{meta}
  spec:
    template:
      spec:
        containers:
        - name: web
          image: nginx
{_indent(env, 10) if env else ""}
        volumes:
{_indent(volume, 8) if volume else "        []"}
"""


KINDS = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: cfg}}
data:
  kinds: {}
"""


# --- SecretProviderClass ------------------------------------------------------------------

SPC_SPEC = {"provider": "vault", "parameters": {"roleName": "app", "objects": "- objectName: password\n"}}


def spc(name: str = "vault-db", opt_in: bool = True, api: str = "v1", spec: str = "") -> str:
    annotations = '\n    annotations:\n      krmfn.dev/content-hash: "true"' if opt_in else ""
    return f"""\
- apiVersion: secrets-store.csi.x-k8s.io/{api}
  kind: SecretProviderClass
  metadata:
    name: {name}
    namespace: app{annotations}
  spec:
{_indent(spec, 4) if spec else '''    provider: vault
    parameters:
      roleName: app
      objects: |
        - objectName: password'''}
"""


CSI_VOLUME = """\
- name: secrets
  csi:
    driver: secrets-store.csi.k8s.io
    readOnly: true
    volumeAttributes:
      secretProviderClass: vault-db
"""


def spc_suffix(spec: dict = SPC_SPEC) -> str:
    return hashing.kustomize_suffix(hashing.encode_fields("SecretProviderClass", {"spec": spec}))


@pytest.mark.parametrize("api", ["v1", "v1alpha1"])
def test_a_secret_provider_class_is_renamed_by_its_spec_and_csi_volumes_follow(api):
    out = run(resource_list(spc(api=api) + deployment(CSI_VOLUME)))
    assert exit_code(out) == 0, out.results
    items = items_by_name(out)
    new = f"vault-db-{spc_suffix()}"
    obj = items[("SecretProviderClass", new)]
    assert obj["metadata"]["labels"] == {"krmfn.dev/family": "vault-db"}
    assert obj["metadata"]["annotations"]["krmfn.dev/original-name"] == "vault-db"
    assert "immutable" not in obj and obj["spec"] == SPC_SPEC  # no field its CRD lacks; spec untouched
    volume = items[("Deployment", "web")]["spec"]["template"]["spec"]["volumes"][0]
    assert volume["csi"]["volumeAttributes"]["secretProviderClass"] == new
    messages = [r.message for r in out.results]
    assert f"SecretProviderClass vault-db is now {new}; referenced by Deployment/app/web" in messages
    assert any(m.startswith("rolls out when SecretProviderClass vault-db changes") for m in messages)
    again = run(out.text)  # a re-run changes nothing
    assert again.text == out.text


def test_a_change_of_what_it_mounts_is_a_new_name_and_a_scalar_type_counts():
    first = run(resource_list(spc() + deployment(CSI_VOLUME)))
    other = run(resource_list(spc(spec="provider: vault\nparameters:\n  roleName: other\n") + deployment(CSI_VOLUME)))
    typed = run(resource_list(spc(spec="provider: vault\nparameters:\n  roleName: 2\n") + deployment(CSI_VOLUME)))
    quoted = run(resource_list(spc(spec='provider: vault\nparameters:\n  roleName: "2"\n') + deployment(CSI_VOLUME)))
    names = [next(n for k, n in items_by_name(o) if k == "SecretProviderClass") for o in (first, other, typed, quoted)]
    assert len(set(names)) == 4


def test_kinds_and_names_reach_a_secret_provider_class():
    config = """\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cfg}
        data:
          names: vault-db
          kinds: SecretProviderClass
        """
    out = run(resource_list(spc(opt_in=False) + deployment(CSI_VOLUME), config))
    assert exit_code(out) == 0, out.results
    assert ("SecretProviderClass", f"vault-db-{spc_suffix()}") in items_by_name(out)
    left = run(resource_list(spc(opt_in=False) + deployment(CSI_VOLUME), config.replace("SecretProviderClass",
                                                                                        "ConfigMap")))
    assert ("SecretProviderClass", "vault-db") in items_by_name(left)


def test_a_workloads_opt_in_mark_reaches_the_secret_provider_class_it_mounts():
    marked = deployment(CSI_VOLUME, annotations='krmfn.dev/content-hash: "true"')
    out = run(resource_list(spc(opt_in=False) + marked, KINDS.format("SecretProviderClass")))
    assert exit_code(out) == 0, out.results
    new = f"vault-db-{spc_suffix()}"
    assert ("SecretProviderClass", new) in items_by_name(out)
    volume = items_by_name(out)[("Deployment", "web")]["spec"]["template"]["spec"]["volumes"][0]
    assert volume["csi"]["volumeAttributes"]["secretProviderClass"] == new


def test_a_duplicate_key_in_the_spec_is_an_error_naming_it_without_a_value():
    out = run(resource_list(spc(spec="provider: vault\nparameters:\n  roleName: s3cr3t-a\n  roleName: s3cr3t-b\n")))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.field_path == "spec.parameters.roleName" and "twice" in error.message
    assert "s3cr3t" not in error.message


def _live(kind: str, api: str, name: str, family: str, created: str, spec: dict | None = None) -> dict:
    obj = {"apiVersion": api, "kind": kind, "metadata": {
        "name": name, "namespace": "app", "uid": f"uid-{name}", "resourceVersion": "1",
        "creationTimestamp": created, "labels": {"krmfn.dev/family": family}}}
    if spec is not None:
        obj["spec"] = spec
    return obj


def _replicaset(name: str, volume: dict | None = None, env: list | None = None) -> dict:
    container: dict = {"name": "web", "image": "nginx"}
    if env:
        container["env"] = env
    pod: dict = {"containers": [container]}
    if volume:
        pod["volumes"] = [volume]
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "app"},
            "spec": {"replicas": 0, "template": {"spec": pod}}}


def test_gc_keeps_the_secret_provider_class_a_replicaset_mounts_and_deletes_the_unused_one():
    api = "secrets-store.csi.x-k8s.io/v1"
    objects = [_live("SecretProviderClass", api, "vault-db-aaaaaaaaaa", "vault-db", "2024-05-01T00:00:00Z",
                     {"provider": "vault"}),
               _live("SecretProviderClass", api, "vault-db-bbbbbbbbbb", "vault-db", "2024-05-02T00:00:00Z"),
               _live("SecretProviderClass", api, "vault-db-cccccccccc", "vault-db", "2024-05-03T00:00:00Z"),
               _replicaset("web-1", {"name": "s", "csi": {"driver": "secrets-store.csi.k8s.io", "volumeAttributes": {
                   "secretProviderClass": "vault-db-aaaaaaaaaa"}}})]
    objects = gc.parse_list(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}).encode())
    assert "spec" not in objects[0]  # read without what it mounts
    plan = gc.plan(objects, NOW, gc.Options(keep=1, min_age=timedelta(0)), gc.gc_table())
    verdicts = {r.name: r.verdict for r in plan.rows}
    assert verdicts == {"vault-db-cccccccccc": "keep", "vault-db-bbbbbbbbbb": "delete", "vault-db-aaaaaaaaaa": "keep"}
    [used] = [r for r in plan.rows if r.name == "vault-db-aaaaaaaaaa"]
    assert "used by ReplicaSet web-1" in used.reason


class _Kubectl:
    """Answers ``get`` like kubectl on a cluster without the custom resources' CRDs."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def get(self, resource: str, scope: list[str], selector: str | None = None) -> list[dict] | None:
        self.asked.append(resource)
        return [] if resource in ("configmaps", "secrets", "pod") else None


def test_gc_skips_a_renamed_custom_resource_the_cluster_does_not_serve():
    from krmfn.gc.kubectl import Referrers, read_cluster

    kube, notes = _Kubectl(), []
    assert read_cluster(kube, ["-A"], Referrers(["pod"], {"pod"}), notes) == []  # type: ignore[arg-type]
    assert "secretproviderclasses.secrets-store.csi.x-k8s.io" in kube.asked
    assert any("secretproviderclasses.secrets-store.csi.x-k8s.io" in n and "does not serve" in n for n in notes)


def test_the_kind_is_data():
    kind = BY_KIND["SecretProviderClass"]
    assert kind.trees == ("spec",) and not kind.immutable and kind.reference_kind == "SecretProviderClass"
