"""Secrets as a renamed kind: what is hashed, what is refused, and in which words."""

from __future__ import annotations

import base64

import pytest
import yaml
from conftest import exit_code, resource_list, run

from krmfn.core.naming import hashing


def secret(body: str, name: str = "creds") -> str:
    return f"""\
- apiVersion: v1
  kind: Secret
  metadata:
    name: {name}
    namespace: app
    annotations:
      krmfn.dev/content-hash: "true"
{body}"""


def test_the_suffix_is_kustomizes_for_type_data_and_string_data():
    data = base64.b64encode(b"\x00\xffbinary").decode()
    out = run(resource_list(secret(f"  type: kubernetes.io/tls\n  data:\n    tls.key: {data}\n"
                                   "  stringData:\n    note: text\n")))
    assert exit_code(out) == 0, out.results
    [item] = yaml.safe_load(out.text)["items"]
    encoded = hashing.encode_secret("kubernetes.io/tls", {"tls.key": data}, {"note": "text"})
    assert item["metadata"]["name"] == f"creds-{hashing.kustomize_suffix(encoded)}"
    assert item["immutable"] is True and item["metadata"]["labels"] == {"krmfn.dev/family": "creds"}


def test_the_worked_example_and_absent_fields():
    assert hashing.encode_secret("my-type", None, None) == '{"data":"","kind":"Secret","name":"","type":"my-type"}'
    assert hashing.kustomize_suffix(hashing.encode_secret("my-type", None, None)) == "5gmgkf8578"
    assert hashing.encode_secret(None, {}, {"a": "b"}) == '{"data":{},"kind":"Secret","name":"","stringData":{"a":"b"},"type":"Opaque"}'


@pytest.mark.parametrize("body,field,words", [
    ("  data:\n    ok: aGk=\n    bad: not-base64!\n", "data.bad", "is not valid base64"),
    ("  stringData: just text\n", "stringData", "not a map of strings"),
    ("  stringData:\n    port: 8080\n", "stringData.port", "quote it"),
    ("  stringData:\n    nested: {a: b}\n", "stringData.nested", "write it as text"),
    ("  stringData:\n    a: x\n    a: y\n", "stringData.a", "twice"),
    ("  type: [Opaque]\n  data: {}\n", "type", "write it as a string"),
])
def test_bad_values_are_one_sentence_naming_the_object_and_field(body, field, words):
    out = run(resource_list(secret(body)))
    assert exit_code(out) == 1
    [error] = out.results
    assert error.resource.kind == "Secret" and error.resource.name == "creds" and error.field_path == field
    assert words in error.message and "\n" not in error.message
    assert yaml.safe_load(out.text)["items"][0]["metadata"]["name"] == "creds"  # nothing half-written
