"""Fields krmfn does not own keep their meaning (YAML 1.1 and 1.2 readers) and their style."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

from krmfn.core.run import scan
from krmfn.yaml.tree import Doc, YamlError

try:
    from ruamel.yaml import YAML
except ImportError:  # pragma: no cover - ruamel is a test dependency
    YAML = None

# Values whose meaning differs between YAML 1.1 and 1.2, or that are easy to mangle.
TRICKY = """\
    on: on
    yes: yes
    octal: 0777
    float: 1e3
    tilde: ~
    date: 2001-12-14
    big: 123456789012345678901234567890
    quoted: "0777"
    single: 'it''s'
    literal: |
      line one
        indented
    folded: >-
      folded
      text
    keep: |+
      kept

    flow: [1, "two", {three: 3}]
    unicode: "ünïcödé ☃"
    escapes: "tab\\tnl\\nbell\\a nel\\x85 ls\\u2028 emoji\\U0001F600"
    surrogates: "\\U0001f600"
    anchor: &a anchored
    alias: *a
    empty: ""
    null_value:
    colon: "a: b"
    hash: "#not a comment"
"""


def _item(extra: str = "") -> str:
    return f"""\
- apiVersion: example.com/v1
  kind: Thing
  metadata:
    name: thing
  spec:
{TRICKY}{extra}"""


def _configmap_and_pod() -> str:
    return """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {krmfn.dev/content-hash: "true"}
  data:
    k: v
- apiVersion: v1
  kind: Pod
  metadata:
    name: pod
    labels: {on: "yes"}
  spec:
    containers:
    - name: c
      image: nginx
      args: ["--flag=on", "0777"]
      envFrom:
      - configMapRef: {name: app}
      env:
      - {name: OCT, value: "0777"}
"""


def _ruamel_load(text: str):
    y = YAML(typ="safe", pure=True)
    return y.load(text)


def _meaning(text: str, loader) -> list:
    data = loader(text)
    return [i for i in data["items"] if i["kind"] == "Thing"]


@pytest.mark.parametrize("reader", ["yaml-1.1", "yaml-1.2"])
def test_unowned_fields_mean_the_same_before_and_after(reader):
    if reader == "yaml-1.2" and YAML is None:
        pytest.skip("ruamel.yaml (a YAML 1.2 reader) is not installed")
    loader = yaml.safe_load if reader == "yaml-1.1" else _ruamel_load
    for items in (_item(), _item() + _configmap_and_pod(), _configmap_and_pod() + _item()):
        text = resource_list(items)
        out = run(text)
        assert exit_code(out) == 0, out.results
        assert _meaning(out.text, loader) == _meaning(text, loader)


def test_an_untouched_item_is_byte_identical_comments_included():
    items = _item("    # a comment\n") + _configmap_and_pod()
    out = run(resource_list(items))
    assert _item("    # a comment\n") in out.text


def test_a_rewritten_referrer_keeps_its_text_except_the_name():
    text = resource_list(_configmap_and_pod())
    out = run(text)
    pod_in = text[text.index("- apiVersion: v1\n  kind: Pod"):]
    pod_out = out.text[out.text.index("- apiVersion: v1\n  kind: Pod"):out.text.index("results:")]
    new = [line for line in out.text.splitlines() if "name: app-" in line][0].split()[-1]
    assert pod_out == pod_in.replace("{name: app}", "{name: " + new + "}")


def test_surrogate_escapes_are_refused_as_libyaml_and_go_yaml_refuse_them():
    """libyaml (and go-yaml, its port) refuse a surrogate escape (``"\\ud83d\\ude00"``): so does krmfn."""
    with pytest.raises(YamlError, match="invalid Unicode character escape"):
        Doc.parse(b'a: "\\ud83d\\ude00"\n')


def test_styles_survive_an_edited_item():
    items = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {krmfn.dev/content-hash: "true"}
  data:
    dq: "double"
    sq: 'single'
    plain: plain
    block: |
      a
      b
    folded: >
      c
"""
    out = run(resource_list(items)).text
    for fragment in ('dq: "double"', "sq: 'single'", "plain: plain", "block: |\n", "folded: >"):
        assert fragment in out


def test_flow_style_resource_list_is_normalised_and_processed():
    text = ('{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": ['
            '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app", "annotations": '
            '{"krmfn.dev/content-hash": "true"}}, "data": {"k": "v"}}]}')
    out = run(text)
    assert exit_code(out) == 0
    (cm,) = yaml.safe_load(out.text)["items"]
    assert cm["metadata"]["name"].startswith("app-") and cm["immutable"] is True


# --- a hashed ConfigMap is edited in its own text ------------------------------------------------

CONFIGMAPS = {
    "comments and four-space indentation": """\
-   apiVersion: v1   # the API
    kind: ConfigMap
    metadata:
        # who it is
        name: "app"
        annotations:
            krmfn.dev/content-hash: 'true'   # opted in
    data:
        # settings
        LEVEL: info
        script: |+
            echo hi
            # not a comment: part of the script

""",
    "items indented under items:": """\
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: app
      labels:
        tier: web
      annotations:
        krmfn.dev/content-hash: "true"
    data: {a: b}
""",
    "immutable false": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
  immutable: false
  data:
    a: b
""",
    "flow metadata": """\
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app, annotations: {krmfn.dev/content-hash: "true"}}  # a comment
  data:
    a: b
""",
    "flow annotations": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {krmfn.dev/content-hash: "true"}
  data:
    a: b
""",
    "an anchor": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
  data:
    a: &v shared
    b: *v
""",
    "quoted immutable": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
  immutable: "true"
""",
    "empty labels": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    labels: {}
    annotations:
      krmfn.dev/content-hash: "true"
""",
    "a block scalar last in metadata": """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
      note: |
        two
        lines
  data:
    a: b
""",
}
LIST_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
EDITED_IN_PLACE = {"comments and four-space indentation", "items indented under items:", "immutable false"}


def _renamed(item: dict, new_name: str) -> dict:
    """What a hashed ConfigMap must mean: the input item, renamed and marked, nothing else changed."""
    out = dict(item)
    meta = dict(item["metadata"])
    original = meta["name"]
    meta["name"] = new_name
    meta["annotations"] = {**(meta.get("annotations") or {}), "krmfn.dev/original-name": original}
    meta["labels"] = {**(meta.get("labels") or {}), "krmfn.dev/family": original}
    out["metadata"] = meta
    out["immutable"] = True
    return out


@pytest.mark.parametrize("case", list(CONFIGMAPS))
def test_a_hashed_configmap_means_the_input_plus_the_rename(case):
    text = LIST_HEAD + CONFIGMAPS[case]
    edited = run(text)
    assert exit_code(edited) == 0, edited.results
    assert run(edited.text).text == edited.text  # a re-run changes nothing
    for loader in (yaml.safe_load, _ruamel_load):
        before, after = loader(text)["items"][0], loader(edited.text)["items"][0]
        assert after == _renamed(before, after["metadata"]["name"]), case
    if case in EDITED_IN_PLACE:  # every line of the input is still there, but the renamed name's
        kept = [line for line in CONFIGMAPS[case].splitlines() if "name:" not in line and "immutable" not in line]
        assert all(line in edited.text.splitlines() for line in kept)


def test_configmap_comments_survive_the_rename():
    out = run(LIST_HEAD + CONFIGMAPS["comments and four-space indentation"]).text
    for comment in ("# the API", "# who it is", "# opted in", "# settings", "# not a comment: part of the script"):
        assert comment in out
    assert yaml.safe_load(out)["items"][0]["data"]["script"] == "echo hi\n# not a comment: part of the script\n\n"


def test_immutable_goes_before_a_comment_about_the_next_item():
    text = LIST_HEAD + """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
  data:
    run.sh: |
      # a comment inside the script
      echo hi
# The workload that mounts it:
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec: {containers: [{name: c, image: i, envFrom: [{configMapRef: {name: app}}]}]}
"""
    out = run(text).text
    assert "      echo hi\n  immutable: true\n# The workload that mounts it:\n- apiVersion: v1\n" in out
    assert yaml.safe_load(out)["items"][0]["data"]["run.sh"] == "# a comment inside the script\necho hi\n"
    assert run(out).text == out
