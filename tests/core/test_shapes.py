"""An untouched item leaves as it came, byte for byte, whatever the ResourceList's shape.

Why: a list that is not in kpt's block style (JSON, flow style, a leading ``---``, CRLF, a BOM,
quoted keys, tabs) was once re-emitted whole from a parser's tree, and then the data came back
changed in every item, touched or not (an untouched Secret's ``stringData`` among them). Now every
shape is cut into the items' own texts; each case here holds values that parser misread.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable

import pytest
import yaml
from conftest import exit_code

from krmfn.core.naming.hashing import suffix
from krmfn.core.run.function import Outcome, run_resource_list
from krmfn.krm.envelope import cut

SECRET = """\
- apiVersion: v1
  kind: Secret
  metadata:
    name: s   # never touched
  stringData:
    a: "x\\n\\L\\Ly"
    b: "C:\\\\new\\L\\L"
    c: "tab\\t\\u2028"
"""
CONFIGMAP = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
  data:
    k: "x\\n\\L\\Ly"
    script: |
      make &&
      \tmake install
"""
DEPLOYMENT = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: c
          envFrom:
          - configMapRef: {name: app}
"""
BLOCK = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + SECRET + CONFIGMAP + DEPLOYMENT
STRING_DATA = {"a": "x\n\u2028\u2028y", "b": "C:\\new\u2028\u2028", "c": "tab\t\u2028"}
HASHED = f"app-{suffix('kustomize', {'k': 'x' + chr(10) + chr(0x2028) * 2 + 'y', 'script': 'make &&' + chr(10) + chr(9) + 'make install' + chr(10)}, None)}"


def run(data: bytes) -> Outcome:
    return run_resource_list(data)


def _json(indent: int | None) -> Callable[[str], bytes]:
    return lambda text: json.dumps(yaml.safe_load(text), indent=indent).encode()


def _flow_items(text: str) -> bytes:
    head, _, _ = text.partition("items:\n")
    items = yaml.safe_load(text)["items"]
    return (head + "items: [" + ",\n  ".join(json.dumps(i) for i in items) + "]\n").encode()


SHAPES: dict[str, Callable[[str], bytes]] = {
    "block": str.encode,
    "leading-document-marker": lambda t: b"---\n" + t.encode(),
    "yaml-directive-and-end-marker": lambda t: b"%YAML 1.2\n---\n" + t.encode() + b"...\n",
    "quoted-top-level-keys": lambda t: t.replace("apiVersion: config", '"apiVersion": config').replace(
        "kind: ResourceList", "'kind': ResourceList").replace("items:\n", '"items":\n', 1).encode(),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "bom": lambda t: codecs.BOM_UTF8 + t.encode(),
    "json": _json(2),
    "json-one-line": _json(None),
    "flow-items": _flow_items,
}


def _items_in(data: bytes) -> list[bytes]:
    lf = data.removeprefix(codecs.BOM_UTF8).replace(b"\r\n", b"\n")
    return cut(lf).items


@pytest.mark.parametrize("shape", list(SHAPES))
def test_untouched_items_leave_byte_for_byte_and_values_are_read_right(shape: str) -> None:
    data = SHAPES[shape](BLOCK)
    out = run(data)
    assert exit_code(out) == 0, out.results
    text = out.stdout
    if shape == "crlf":
        assert b"\n" not in text.replace(b"\r\n", b"")
        text = text.replace(b"\r\n", b"\n")
    if shape == "bom":
        assert text.startswith(codecs.BOM_UTF8)
        text = text[len(codecs.BOM_UTF8):]
    secret = _items_in(data)[0]
    assert secret in text, "the untouched Secret's own text is not in the output"
    items = yaml.safe_load(text)["items"]
    assert items[0]["stringData"] == STRING_DATA
    assert items[1]["metadata"]["name"] == HASHED
    assert items[2]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == HASHED
    again = run(out.stdout)
    assert exit_code(again) == 0 and again.stdout == out.stdout, "a second run changes the output"


def test_a_block_list_keeps_the_hashed_configmaps_comments_and_lines() -> None:
    out = run(BLOCK.encode())
    assert "      make &&\n      \tmake install\n" in out.text
    assert f"    name: {HASHED}\n" in out.text


CHART = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app   # the app's config
    labels:
      "app.kubernetes.io/name": app
    annotations:
      "helm.sh/hook": pre-install
      krmfn.dev/content-hash: "true"
  data:
    run.sh: |
      #!/bin/sh
      set -e

      make && make install   # build

      echo done
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: dash
    labels: {dashboards.example.com/folder: "1"}
    annotations:
      {}
  data:
    a: b
"""


def test_chart_shapes_are_edited_in_the_hashed_objects_own_text() -> None:
    """``&&`` in a script, quoted keys, Helm's ``annotations:`` then ``{}``: edited in the text, so
    that comments and empty lines stay (they were re-emitted, losing both)."""
    out = run((CHART + "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {select: all}}\n"
               ).encode())
    assert exit_code(out) == 0, out.results
    text = out.text
    assert "    name: app-" in text and "   # the app's config\n" in text
    assert '      "helm.sh/hook": pre-install\n      krmfn.dev/content-hash: "true"\n      krmfn.dev/original-name: app\n' \
        in text
    assert '      "app.kubernetes.io/name": app\n      krmfn.dev/family: app\n' in text
    assert "      set -e\n\n      make && make install   # build\n\n      echo done\n" in text
    assert "    labels: {dashboards.example.com/folder: \"1\", krmfn.dev/family: dash}\n" in text
    assert "    annotations:\n      {krmfn.dev/original-name: dash}\n" in text


def test_an_anchored_name_aliased_by_a_label_changes_alone() -> None:
    """The name's anchor is aliased by a label: rewriting the anchored text would rename the
    label too, so the alias is written out with the old text and only the name changes."""
    text = (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
            b"  metadata:\n    name: &n app\n    labels: {a: *n}\n    annotations: {krmfn.dev/content-hash: \"true\"}\n"
            b"  data: {k: v}\n")
    out = run(text)
    assert exit_code(out) == 0, out.results
    item = yaml.safe_load(out.stdout)["items"][0]
    assert item["metadata"]["name"].startswith("app-") and item["metadata"]["labels"]["a"] == "app"


def test_a_re_emitted_block_scalar_keeps_its_empty_lines_empty() -> None:
    """A name written with an escape is replaced as one whole scalar; the block scalars beside it
    keep their empty lines and their line of spaces, as they read."""
    text = (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
            b"  metadata:\n    name: \"ap\\x70\"\n    annotations: {krmfn.dev/content-hash: \"true\"}\n"
            b"  data:\n    run.sh: |\n      a\n\n      b\n    sp: |\n      x\n        \n      y\n")
    out = run(text)
    assert exit_code(out) == 0, out.results
    assert b"      a\n\n      b\n" in out.stdout
    assert yaml.safe_load(out.stdout)["items"][0]["data"]["sp"] == "x\n  \ny\n"
