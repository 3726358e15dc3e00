"""Secrets a controller fills are never renamed or made immutable (core.selection.filled)."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

SELECT_ALL = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {select: all, kinds: 'ConfigMap,Secret'}\n"
READER = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: c
          envFrom: [{secretRef: {name: s}}]
"""

FILLED = {
    "service-account token": ("  type: kubernetes.io/service-account-token\n  data: {token: eA==}\n",
                              "service-account token"),
    "empty tls": ("  type: kubernetes.io/tls\n", "holds no data (type kubernetes.io/tls)"),
    "empty Opaque": ("  data: {}\n", "holds no data (type Opaque)"),
    "cert-manager annotation": ("  data: {tls.crt: eA==}\n", "cert-manager fills it"),
}


def secret(body: str, annotations: str = "") -> str:
    meta = f"    annotations: {{{annotations}}}\n" if annotations else ""
    return f"- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n{meta}{body}"


@pytest.mark.parametrize("case", list(FILLED))
def test_select_all_leaves_a_secret_a_controller_fills_alone_and_says_why(case):
    body, why = FILLED[case]
    notes = "cert-manager.io/certificate-name: api" if case == "cert-manager annotation" else ""
    out = run(resource_list(secret(body, notes) + READER, SELECT_ALL))
    assert exit_code(out) == 0, out.results
    items = yaml.safe_load(out.text)["items"]
    assert items[0]["metadata"]["name"] == "s" and "immutable" not in items[0]
    assert items[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"secretRef": {"name": "s"}}]
    [info] = [r for r in out.results if r.resource is not None and r.resource.name == "s"]
    assert info.severity == "info" and info.message.startswith("left alone: ") and why in info.message


@pytest.mark.parametrize("case", list(FILLED))
def test_an_explicit_opt_in_on_such_a_secret_is_an_error_saying_why(case):
    body, why = FILLED[case]
    notes = 'krmfn.dev/content-hash: "true"' + (", cert-manager.io/issuer-name: ca"
                                                if case == "cert-manager annotation" else "")
    out = run(resource_list(secret(body, notes)))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.resource.name == "s" and why in error.message and "Remove the opt-in" in error.message
    assert yaml.safe_load(out.text)["items"][0]["metadata"]["name"] == "s"  # nothing half-written


def test_a_secret_a_certificate_names_is_left_alone_and_only_in_its_namespace():
    cert = ("- apiVersion: cert-manager.io/v1\n  kind: Certificate\n  metadata: {name: api, namespace: a}\n"
            "  spec: {secretName: s, issuerRef: {name: ca}}\n")
    secrets = "".join(secret("  data: {tls.crt: eA==}\n").replace("name: s\n", f"name: s\n    namespace: {ns}\n")
                      for ns in ("a", "b"))
    out = run(resource_list(cert + secrets, SELECT_ALL))
    assert exit_code(out) == 0, out.results
    names = [(i["metadata"].get("namespace"), i["metadata"]["name"]) for i in yaml.safe_load(out.text)["items"]]
    assert names[1] == ("a", "s") and names[2][1].startswith("s-")
    assert any("Certificate api's controller writes it (spec.secretName)" in r.message for r in out.results)
    explicit = run(resource_list(cert + secret("  data: {tls.crt: eA==}\n", 'krmfn.dev/content-hash: "true"')
                                 .replace("name: s\n", "name: s\n    namespace: a\n")))
    assert exit_code(explicit) == 1 and "controller writes it" in explicit.results[0].message


def test_a_workload_mark_does_not_opt_such_a_secret_in():
    marked = READER.replace("metadata: {name: web}", "metadata:\n    name: web\n    annotations:\n"
                                                     "      krmfn.dev/content-hash: \"true\"")
    out = run(resource_list(secret("  type: kubernetes.io/tls\n") + marked, SELECT_ALL.replace("select: all, ", "")))
    assert exit_code(out) == 0, out.results
    assert yaml.safe_load(out.text)["items"][0]["metadata"]["name"] == "s"
    assert any("holds no data" in r.message and r.severity == "info" for r in out.results)
