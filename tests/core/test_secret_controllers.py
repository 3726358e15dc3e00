"""Custom resources that a controller turns into what pods use, renamed like ConfigMaps and Secrets:
SecretProviderClass (Secrets Store CSI driver), SealedSecret (sealed-secrets), ExternalSecret
(External Secrets Operator). What each hashes, what is rewritten, what is refused and why."""

from __future__ import annotations

import base64
import textwrap
from datetime import timedelta

import pytest
import yaml
from conftest import exit_code, items_by_name, resource_list, run
from tooling import REPO, check_golden, golden_examples

from krmfn.core.naming import hashing
from krmfn.core.references.kinds import BY_KIND
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
{"        volumes:" + chr(10) + _indent(volume, 8) if volume else ""}
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
    plan = gc.plan_collection(objects, NOW, gc.Options(keep=1, min_age=timedelta(0)), gc.gc_table())
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


# --- SealedSecret ---------------------------------------------------------------------------

SEALED = {"password": "AgBy3i4OJSWK+PiTySYZZA=="}
NAMESPACE_WIDE = 'sealedsecrets.bitnami.com/namespace-wide: "true"'


def sealed(scope: str | None = NAMESPACE_WIDE, extra: str = "", template: str = "type: Opaque",
           name: str = "db-creds") -> str:
    annotations = '      krmfn.dev/content-hash: "true"\n' + (f"      {scope}\n" if scope else "") + extra
    return f"""\
- apiVersion: bitnami.com/v1alpha1
  kind: SealedSecret
  metadata:
    name: {name}
    namespace: app
    annotations:
{annotations.rstrip()}
  spec:
    encryptedData:
      password: {SEALED["password"]}
    template:
      metadata:
        name: {name}
        namespace: app
{_indent(template, 6)}
"""


SECRET_ENV = """\
env:
- name: DB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: db-creds
      key: password
"""


def sealed_suffix(template: dict | None = None) -> str:
    content = {"spec.encryptedData": SEALED, "spec.template.data": None, "spec.template.type": "Opaque",
               "spec.data": None, **(template or {})}
    return hashing.kustomize_suffix(hashing.encode_fields("SealedSecret", content))


@pytest.mark.parametrize("scope", [NAMESPACE_WIDE, 'sealedsecrets.bitnami.com/cluster-wide: "true"'])
def test_a_sealed_secret_is_renamed_and_references_to_its_secret_follow(scope):
    out = run(resource_list(sealed(scope) + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 0, out.results
    new = f"db-creds-{sealed_suffix()}"
    items = items_by_name(out)
    obj = items[("SealedSecret", new)]
    assert "immutable" not in obj and obj["metadata"]["labels"] == {"krmfn.dev/family": "db-creds"}
    # The controller names the Secret after the SealedSecret and overwrites the template's name: left as written.
    assert obj["spec"]["template"]["metadata"]["name"] == "db-creds"
    env = items[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["env"][0]
    assert env["valueFrom"]["secretKeyRef"]["name"] == new
    assert f"SealedSecret db-creds is now {new}; referenced by Deployment/app/web" in [r.message for r in out.results]
    assert SEALED["password"] not in "".join(r.message for r in out.results)
    assert run(out.text).text == out.text


def test_the_hash_covers_the_encrypted_data_and_the_templates_type_and_data_not_its_metadata():
    base = items_by_name(run(resource_list(sealed())))
    tls = items_by_name(run(resource_list(sealed(template="type: kubernetes.io/tls"))))
    data = items_by_name(run(resource_list(sealed(template='type: Opaque\ndata:\n  url: "{{ .password }}"'))))
    labelled = items_by_name(run(resource_list(sealed(template="type: Opaque\nmetadata:\n  labels: {a: b}"))))
    names = [next(n for k, n in items if k == "SealedSecret") for items in (base, tls, data, labelled)]
    assert names[0] == f"db-creds-{sealed_suffix()}"
    assert names[1] == f"db-creds-{sealed_suffix({'spec.template.type': 'kubernetes.io/tls'})}"
    assert len(set(names[:3])) == 3


def test_a_strict_scope_sealed_secret_is_an_error_saying_how_to_reseal():
    out = run(resource_list(sealed(scope=None) + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.resource.kind == "SealedSecret" and error.field_path == "metadata.annotations"
    assert "strict scope" in error.message and "kubeseal --scope namespace-wide" in error.message
    assert "\n" not in error.message and SEALED["password"] not in error.message
    assert ("SealedSecret", "db-creds") in items_by_name(out)  # nothing renamed


def test_a_strict_scope_sealed_secret_may_keep_its_name_under_the_stable_name_strategy():
    out = run(resource_list(sealed(scope=None, extra="      krmfn.dev/strategy: annotation\n")
                            + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 0, out.results
    items = items_by_name(out)
    assert ("SealedSecret", "db-creds") in items
    template = items[("Deployment", "web")]["spec"]["template"]
    assert "krmfn.dev/config-hash" in template["metadata"]["annotations"]


def test_kinds_must_list_sealed_secret_for_a_secret_mark_to_reach_it():
    marked = deployment(env=SECRET_ENV, annotations='krmfn.dev/content-hash: "true"')
    plain = sealed().replace('      krmfn.dev/content-hash: "true"\n', "")
    left = run(resource_list(plain + marked, KINDS.format("Secret")))
    assert ("SealedSecret", "db-creds") in items_by_name(left)
    assert any("leaves SealedSecrets out: add SealedSecret (kinds: [SealedSecret, Secret] in the function "
               "config)" in r.message and r.severity == "warning" for r in left.results)
    out = run(resource_list(plain + marked, KINDS.format("SealedSecret")))
    assert ("SealedSecret", f"db-creds-{sealed_suffix()}") in items_by_name(out)


def test_a_secret_and_a_sealed_secret_of_one_name_are_ambiguous():
    secret = """\
- apiVersion: v1
  kind: Secret
  metadata: {name: db-creds, namespace: app}
  stringData: {password: x}
"""
    out = run(resource_list(sealed() + secret + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 1
    assert "ambiguous" in out.results[0].message


@pytest.mark.parametrize("spec,field", [
    ("encryptedData:\n      password: s3cr3t-not-base64!", "spec.encryptedData.password"),
    ("encryptedData:\n      password: 73313\n", "spec.encryptedData.password"),
    ("encryptedData: {}\n    template:\n      data:\n        url: 73313", "spec.template.data.url"),
    ("encryptedData: {}\n    template:\n      type: [s3cr3t]", "spec.template.type"),
])
def test_a_bad_sealed_value_is_an_error_naming_the_field_never_the_value(spec, field):
    text = f"""\
- apiVersion: bitnami.com/v1alpha1
  kind: SealedSecret
  metadata:
    name: db-creds
    namespace: app
    annotations:
      krmfn.dev/content-hash: "true"
      {NAMESPACE_WIDE}
  spec:
    {spec}
"""
    out = run(resource_list(text))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.field_path == field and error.resource.kind == "SealedSecret"
    assert "s3cr3t" not in error.message and "73313" not in error.message


def test_gc_plans_sealed_secrets_by_their_names_and_notes_an_ownerless_secret():
    api = "bitnami.com/v1alpha1"
    ownerless = {"template": {"metadata": {"annotations": {
        "sealedsecrets.bitnami.com/skip-set-owner-references": "true"}}}, "encryptedData": SEALED}
    objects = [_live("SealedSecret", api, "db-creds-aaaaaaaaaa", "db-creds", "2024-05-01T00:00:00Z", ownerless),
               _live("SealedSecret", api, "db-creds-bbbbbbbbbb", "db-creds", "2024-05-02T00:00:00Z"),
               _live("SealedSecret", api, "db-creds-cccccccccc", "db-creds", "2024-05-03T00:00:00Z"),
               _replicaset("web-2", env=[{"name": "P", "valueFrom": {"secretKeyRef": {
                   "name": "db-creds-bbbbbbbbbb"}}}])]
    listed = gc.parse_list(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}).encode())
    assert SEALED["password"] not in repr(listed)
    plan = gc.plan_collection(listed, NOW, gc.Options(keep=1, min_age=timedelta(0)), gc.gc_table())
    assert {r.name: r.verdict for r in plan.rows} == {
        "db-creds-cccccccccc": "keep", "db-creds-bbbbbbbbbb": "keep", "db-creds-aaaaaaaaaa": "delete"}
    [note] = plan.notes
    assert "db-creds-aaaaaaaaaa" in note and "without an ownerReference" in note
    assert "kubectl delete secret db-creds-aaaaaaaaaa -n app" in note


# --- ExternalSecret -------------------------------------------------------------------------

def external(target: str = "name: db-creds\ncreationPolicy: Owner", api: str = "v1", name: str = "db",
             version: str = "3", extra: str = "") -> str:
    target_block = f"    target:\n{_indent(target, 6)}\n" if target else ""
    return f"""\
- apiVersion: external-secrets.io/{api}
  kind: ExternalSecret
  metadata:
    name: {name}
    namespace: app
    annotations:
      krmfn.dev/content-hash: "true"
{extra}  spec:
    refreshInterval: 1h
    secretStoreRef: {{name: vault, kind: ClusterSecretStore}}
{target_block}    data:
    - secretKey: password
      remoteRef: {{key: prod/db, property: password, version: "{version}"}}
"""


def es_suffix(target: dict | None = None, version: str = "3") -> str:
    spec: dict = {"refreshInterval": "1h", "secretStoreRef": {"name": "vault", "kind": "ClusterSecretStore"},
                  "data": [{"secretKey": "password", "remoteRef": {"key": "prod/db", "property": "password",
                                                                   "version": version}}]}
    if target is not None:
        spec["target"] = target
    return hashing.kustomize_suffix(hashing.encode_fields("ExternalSecret", {"spec": spec}))


@pytest.mark.parametrize("api", ["v1", "v1beta1"])
def test_an_external_secret_and_its_target_get_the_suffix_of_its_spec_and_workloads_follow(api):
    out = run(resource_list(external(api=api) + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 0, out.results
    suffix = es_suffix({"creationPolicy": "Owner"})  # spec.target.name is not hashed: the rename writes it
    items = items_by_name(out)
    obj = items[("ExternalSecret", f"db-{suffix}")]
    assert obj["spec"]["target"] == {"name": f"db-creds-{suffix}", "creationPolicy": "Owner"}
    assert "immutable" not in obj and obj["metadata"]["labels"] == {"krmfn.dev/family": "db"}
    env = items[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["env"][0]
    assert env["valueFrom"]["secretKeyRef"]["name"] == f"db-creds-{suffix}"
    assert (f"ExternalSecret db is now db-{suffix}, and the Secret it makes db-creds-{suffix}; referenced by "
            "Deployment/app/web") in [r.message for r in out.results]
    assert run(out.text).text == out.text  # the suffix on the target does not change the hash


def test_without_a_target_name_the_secret_is_named_after_the_external_secret():
    env = SECRET_ENV.replace("db-creds", "db")
    out = run(resource_list(external(target="") + deployment(env=env)))
    assert exit_code(out) == 0, out.results
    new = f"db-{es_suffix()}"
    items = items_by_name(out)
    assert "target" not in items[("ExternalSecret", new)]["spec"]  # the default follows the new name
    assert items[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["env"][0][
        "valueFrom"]["secretKeyRef"]["name"] == new


def test_a_new_remote_version_is_a_new_external_secret_and_secret_and_the_old_name_is_followed():
    first = run(resource_list(external() + deployment(env=SECRET_ENV)))
    old = es_suffix({"creationPolicy": "Owner"})
    bumped = first.text.replace('version: "3"', 'version: "4"')
    second = run(bumped)
    assert exit_code(second) == 0, second.results
    new = es_suffix({"creationPolicy": "Owner"}, version="4")
    items = items_by_name(second)
    assert new != old and ("ExternalSecret", f"db-{new}") in items
    assert items[("ExternalSecret", f"db-{new}")]["spec"]["target"]["name"] == f"db-creds-{new}"
    env = items[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["env"][0]
    assert env["valueFrom"]["secretKeyRef"]["name"] == f"db-creds-{new}"


@pytest.mark.parametrize("policy,words", [("Merge", "writes into a Secret that another tool creates"),
                                          ("None", "creates no Secret")])
def test_an_external_secret_that_creates_no_secret_of_its_own_is_an_error(policy, words):
    out = run(resource_list(external(target=f"name: db-creds\ncreationPolicy: {policy}") + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.field_path == "spec.target.creationPolicy" and words in error.message
    assert "a new name would be a Secret nobody creates" in error.message


@pytest.mark.parametrize("policy", ["Owner", "Orphan", "CreateOrMerge"])
def test_policies_that_create_the_secret_are_renamed(policy):
    out = run(resource_list(external(target=f"name: db-creds\ncreationPolicy: {policy}\ndeletionPolicy: Delete")))
    assert exit_code(out) == 0, out.results
    [obj] = [i for k, i in items_by_name(out).items() if k[0] == "ExternalSecret"]
    assert obj["spec"]["target"]["name"].startswith("db-creds-") and obj["metadata"]["name"].startswith("db-")


def test_the_stable_name_strategy_keeps_both_names():
    out = run(resource_list(external(extra="      krmfn.dev/strategy: annotation\n") + deployment(env=SECRET_ENV)))
    assert exit_code(out) == 0, out.results
    items = items_by_name(out)
    assert items[("ExternalSecret", "db")]["spec"]["target"]["name"] == "db-creds"
    template = items[("Deployment", "web")]["spec"]["template"]
    assert template["spec"]["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]["name"] == "db-creds"
    assert "krmfn.dev/config-hash" in template["metadata"]["annotations"]


def test_opting_out_after_a_rename_gives_both_names_back():
    renamed = run(resource_list(external() + deployment(env=SECRET_ENV))).text
    out = run(renamed.replace('krmfn.dev/content-hash: "true"', 'krmfn.dev/content-hash: "false"'))
    assert exit_code(out) == 0, out.results
    items = items_by_name(out)
    assert items[("ExternalSecret", "db")]["spec"]["target"]["name"] == "db-creds"
    env = items[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["env"][0]
    assert env["valueFrom"]["secretKeyRef"]["name"] == "db-creds"


def test_gc_finds_an_external_secrets_users_by_its_target_and_notes_an_orphaned_secret():
    objects = [_live("ExternalSecret", "external-secrets.io/v1", f"db-{s}", "db", f"2024-05-0{i}T00:00:00Z",
                     {"target": {"name": f"db-creds-{s}", "creationPolicy": policy},
                      "data": [{"secretKey": "password", "remoteRef": {"key": "prod/db"}}]})
               for i, s, policy in ((1, "aaaaaaaaaa", "Orphan"), (2, "bbbbbbbbbb", "Owner"),
                                    (3, "cccccccccc", "Owner"))]
    objects.append(_replicaset("web-2", env=[{"name": "P", "valueFrom": {"secretKeyRef": {
        "name": "db-creds-bbbbbbbbbb"}}}]))
    listed = gc.parse_list(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}).encode())
    assert "prod/db" not in repr(listed)  # what it fetches is not kept; its target's name and policy are
    plan = gc.plan_collection(listed, NOW, gc.Options(keep=1, min_age=timedelta(0)), gc.gc_table())
    assert {r.name: r.verdict for r in plan.rows} == {"db-cccccccccc": "keep", "db-bbbbbbbbbb": "keep",
                                                      "db-aaaaaaaaaa": "delete"}
    [used] = [r for r in plan.rows if r.name == "db-bbbbbbbbbb"]
    assert "used by ReplicaSet web-2" in used.reason
    [note] = plan.notes
    assert "kubectl delete secret db-creds-aaaaaaaaaa -n app" in note


# --- the examples ---------------------------------------------------------------------------

EXAMPLES = REPO / "examples" / "secret-controllers"


@pytest.mark.parametrize("name", golden_examples(EXAMPLES))
def test_golden_output_and_idempotence(name):
    check_golden(EXAMPLES / name)


def test_there_is_an_example_per_kind():
    kinds = {item["kind"] for name in golden_examples(EXAMPLES)
             for item in yaml.safe_load((EXAMPLES / name / "input.yaml").read_text())["items"]}
    assert {"SealedSecret", "ExternalSecret", "SecretProviderClass"} <= kinds


def test_the_roll_path_audit_names_the_sealed_secret_to_opt_in():
    plain = sealed().replace('      krmfn.dev/content-hash: "true"\n', "")
    out = run(resource_list(plain + deployment(env=SECRET_ENV)))
    [warning] = [r for r in out.results if r.severity == "warning"]
    assert warning.message.startswith("reads Secret db-creds through env")
    assert "the SealedSecret that makes it is not opted in" in warning.detail
    assert 'krmfn.dev/content-hash: "true" on the SealedSecret' in warning.message


@pytest.mark.parametrize("entry", ["kind: SecretProviderClass", "kind: SecretProviderClass\n          group: "
                                   "secrets-store.csi.x-k8s.io\n          version: v1"])
def test_user_field_specs_name_a_secret_provider_class_in_a_custom_resource(entry):
    widget = """\
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w, namespace: app}
  spec:
    mount: {providerClass: vault-db}
"""
    config = f"""\
        apiVersion: fn.krmfn.dev/v1alpha1
        kind: ContentHash
        metadata: {{name: c}}
        fieldSpecs:
        - {entry}
          fieldSpecs:
          - {{kind: Widget, group: example.com, path: spec/mount/providerClass}}
        """
    out = run(resource_list(spc() + widget, config))
    assert exit_code(out) == 0, out.results
    assert items_by_name(out)[("Widget", "w")]["spec"]["mount"]["providerClass"] == f"vault-db-{spc_suffix()}"


def test_user_field_specs_of_a_sealed_secret_name_the_secret_it_makes():
    widget = """\
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w, namespace: app}
  spec:
    auth: {secret: db-creds}
"""
    config = """\
        apiVersion: fn.krmfn.dev/v1alpha1
        kind: ContentHash
        metadata: {name: c}
        fieldSpecs:
        - kind: SealedSecret
          fieldSpecs:
          - {kind: Widget, group: example.com, path: spec/auth/secret}
        """
    out = run(resource_list(sealed() + widget, config))
    assert exit_code(out) == 0, out.results
    assert items_by_name(out)[("Widget", "w")]["spec"]["auth"]["secret"] == f"db-creds-{sealed_suffix()}"


# --- krmfn plan -----------------------------------------------------------------------------

def _plan(example: str, old: str, new: str):
    from krmfn.changes import changeplan
    from krmfn.changes.planview import as_json, text

    source = (EXAMPLES / example / "input.yaml").read_text()
    assert old in source
    renders = [run(t).text.encode() for t in (source, source.replace(old, new))]
    found = changeplan.change_plan(*(changeplan.read_render(r) for r in renders))
    return found, text(found) + as_json(found)


def test_plan_says_which_keys_of_an_external_secret_change_and_who_rolls():
    found, shown = _plan("external-secrets", 'version: "7"', 'version: "8"')
    [config] = found.configs
    assert (config.kind, config.family, config.changed, config.renamed) == ("ExternalSecret", "payments",
                                                                           ["api-key"], True)
    [roll] = found.rolls
    assert roll.name == "checkout" and roll.reads == {"ExternalSecret payments": ["api-key"]} and roll.reads_changed
    assert "payments-" not in shown.replace("ExternalSecret payments", "")  # no hashed name of a secret kind


def test_plan_reads_a_change_of_an_external_secrets_store_as_every_key():
    found, _ = _plan("external-secrets", "      name: vault\n    target:", "      name: vault-eu\n    target:")
    [config] = found.configs
    assert config.changed == ["*"]
    assert found.rolls[0].reads == {"ExternalSecret payments": ["api-key"]} and found.rolls[0].reads_changed


def test_plan_on_a_sealed_secret_counts_template_keys_and_shows_no_value():
    old = "AgBy3i4OJSWK+PiTySYZZA1rBasKGMPq0wRNzrjc9SAhC3E8FqfR9Lm7ciT2mXkUlr3q6DGiC5q8ZKYQ"
    found, shown = _plan("sealed-secrets", old, old.replace("AgBy", "AgBz"))
    [config] = found.configs
    assert config.changed == ["password", "url"]  # url is a template over every sealed value
    assert found.rolls[0].reads == {"SealedSecret db-credentials": ["url"]}
    assert "AgB" not in shown and "postgres://" not in shown


def test_plan_on_a_secret_provider_class_rolls_every_mount():
    found, _ = _plan("secrets-store-csi", "roleName: checkout", "roleName: checkout-v2")
    [config] = found.configs
    assert config.kind == "SecretProviderClass" and config.changed == ["*"]
    assert found.rolls[0].reads == {"SecretProviderClass checkout-vault": ["*"]}


# --- retention and values: the same rules as for Secrets, on every controller kind ------------

RETAINED = {"kustomize.toolkit.fluxcd.io/prune": "disabled", "argocd.argoproj.io/sync-options": "Prune=false",
            "helm.sh/resource-policy": "keep"}


@pytest.mark.parametrize("name", golden_examples(EXAMPLES))
def test_retention_keeps_every_renamed_controller_object_from_pruning(name):
    """The previous version (and, for an ExternalSecret that owns its Secret, that Secret with it)
    must outlive the rollout: retention's annotations go on each renamed object, as on a Secret."""
    source = (EXAMPLES / name / "input.yaml").read_text()
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {retention: 'flux,argocd,helm'}"
    out = run(source.rstrip("\n") + "\nfunctionConfig:\n" + textwrap.indent(config, "  ") + "\n")
    assert exit_code(out) == 0, out.results
    renamed = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] in BY_KIND
               and "krmfn.dev/original-name" in i["metadata"].get("annotations", {})]
    assert renamed, name
    for item in renamed:
        annotations = item["metadata"]["annotations"]
        assert {k: annotations.get(k) for k in RETAINED} == RETAINED, (item["kind"], item["metadata"]["name"])


PLANTED = {"sealed": "AgPLANTEDsealed0valu", "template": "planted-template-9q", "es": "planted-es-template-4k",
           "spc": "planted-spc-param-7z"}


def _planted(spc_extra: str = "", sealed_scope: str = NAMESPACE_WIDE, duplicate: str = "") -> str:
    sealed_item = f"""\
- apiVersion: bitnami.com/v1alpha1
  kind: SealedSecret
  metadata:
    name: db-creds
    namespace: app
    annotations:
      krmfn.dev/content-hash: "true"
      {sealed_scope}
  spec:
    encryptedData:
      password: {PLANTED["sealed"]}{duplicate}
    template:
      type: Opaque
      data: {{dsn: "{PLANTED["template"]}"}}
"""
    es = external(target=f'name: es-creds\ncreationPolicy: Owner\ntemplate:\n  data: {{token: "{PLANTED["es"]}"}}')
    provider = spc(spec=f'provider: vault\nparameters:\n  roleName: "{PLANTED["spc"]}"\n{spc_extra}')
    env = ("env:\n- name: A\n  valueFrom: {secretKeyRef: {name: db-creds, key: password}}\n"
           "- name: B\n  valueFrom: {secretKeyRef: {name: es-creds, key: token}}\n"
           "- name: C\n  valueFrom: {secretKeyRef: {name: other, key: k}}")
    return sealed_item + es + provider + deployment(volume=CSI_VOLUME, env=env)


def _no_value(text: str, values: tuple[str, ...] = tuple(PLANTED.values())) -> None:
    for value in values:
        for form in (value, base64.b64encode(value.encode()).decode()):
            assert form not in text, form


@pytest.mark.parametrize("case", ["renamed", "strict scope", "duplicate key", "not opted in"])
def test_no_planted_value_of_any_controller_kind_reaches_a_message(case):
    text = _planted()
    if case == "strict scope":
        text = _planted(sealed_scope="example.com/x: y")
    elif case == "duplicate key":
        text = _planted(duplicate=f"\n      password: {PLANTED['sealed']}x")
    elif case == "not opted in":
        text = text.replace('krmfn.dev/content-hash: "true"', 'krmfn.dev/content-hash: "false"')
    out = run(resource_list(text))
    assert out.results, case
    _no_value("\n".join(str(r) + repr(r.to_data()) for r in out.results))


def test_no_planted_value_reaches_krmfn_plan_in_any_format(tmp_path):
    """Every planted value changes between the two renders: the plan names the kinds and keys that
    changed, in every format, and neither the old value nor the new one."""
    import subprocess
    import sys

    changed = {k: v[:-1] + "Q" for k, v in PLANTED.items()}
    before = _planted()
    after = before
    for key, value in PLANTED.items():
        after = after.replace(value, changed[key])
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(run(resource_list(before)).text)
    new.write_text(run(resource_list(after)).text)
    for fmt in ("text", "markdown", "json"):
        done = subprocess.run([sys.executable, "-m", "krmfn", "plan", str(old), str(new), "-o", fmt],
                              capture_output=True, text=True, cwd=REPO, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        for kind in ("SealedSecret", "ExternalSecret", "SecretProviderClass"):
            assert kind in done.stdout, (fmt, done.stdout)
        _no_value(done.stdout + done.stderr, (*PLANTED.values(), *changed.values()))


def test_an_external_secret_whose_target_is_another_kind_is_an_error_naming_the_field():
    out = run(resource_list(external(target="name: db-creds\nmanifest: {apiVersion: v1, kind: ConfigMap}")))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.field_path == "spec.target.manifest" and "not a Secret" in error.message


def test_the_deletion_policy_is_hashed_like_the_rest_of_the_spec():
    names = {policy: next(k[1] for k in items_by_name(run(resource_list(external(
        target=f"name: db-creds\ndeletionPolicy: {policy}")))) if k[0] == "ExternalSecret")
        for policy in ("Retain", "Delete")}
    assert names["Retain"] != names["Delete"] and all(n.startswith("db-") for n in names.values())


def test_a_cluster_external_secret_is_left_as_it_is():
    """The operator names the ExternalSecrets it makes in each namespace: nothing krmfn could rename."""
    text = external().replace("kind: ExternalSecret", "kind: ClusterExternalSecret").replace("    namespace: app\n", "")
    out = run(resource_list(text))
    assert exit_code(out) == 0 and [r.message for r in out.results] == [
        "nothing renamed: the input holds no ConfigMap or Secret"]
    assert out.text.startswith(resource_list(text))  # items as written, then that one result
