"""Shapes real manifests have (kubectl and go-yaml output, PyYAML, chart scripts, editors), each
read and edited as YAML means it: the cases that made the YAML layer move to libyaml spans."""

from __future__ import annotations

import yaml

from krmfn.core.run.function import run_resource_list

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def run(items: str) -> tuple[list[dict], list]:
    out = run_resource_list((HEAD + items).encode())
    assert not out.failed, [r.message for r in out.results]
    return yaml.safe_load(out.stdout)["items"], out.results


def names(items: list[dict]) -> list[str]:
    return [i["metadata"]["name"] for i in items]


CM = """- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations:
      krmfn.dev/content-hash: "true"
{extra}  data:
    k: v
"""


def test_an_indentless_list_as_metadata_s_last_key_keeps_its_entries():
    """kubectl and go-yaml write lists at their key's column: the labels go after the list, not into it."""
    extra = "    finalizers:\n    - example.com/keep\n    ownerReferences:\n    - apiVersion: v1\n      kind: X\n      name: o\n      uid: u\n"
    items, _ = run(CM.format(extra=extra))
    meta = items[0]["metadata"]
    assert meta["finalizers"] == ["example.com/keep"]
    assert meta["ownerReferences"][0]["name"] == "o"
    assert meta["labels"] == {"krmfn.dev/family": "app"}
    assert items[0]["immutable"] is True


def test_a_block_scalar_at_the_end_of_an_unended_text_keeps_its_value():
    """YAML reads ``text`` (no line break at the end of the input): the hash and the value are of ``text``."""
    for header in ("|", "|+", ">", "|-"):
        block = f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: app\n    annotations:\n" \
                f"      krmfn.dev/content-hash: \"true\"\n  data:\n    k: {header}\n      text"
        out = run_resource_list((HEAD + block).encode())
        assert not out.failed, [r.message for r in out.results]
        item = yaml.safe_load(out.stdout)["items"][0]
        plain, _ = run(CM.format(extra="").replace("k: v", 'k: "text"'))
        assert item["data"]["k"] == "text", header
        assert item["metadata"]["name"] == plain[0]["metadata"]["name"], header


DEPLOY = """- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: &app app
  spec:
    selector: {matchLabels: {app: *app}}
    template:
      metadata: {labels: {app: *app}}
      spec:
        containers:
        - &c
          name: *app
          image: x
          envFrom:
          - configMapRef: {name: *app}
        initContainers:
        - *c
"""


def test_an_alias_of_the_workload_s_own_name_changes_only_the_reference():
    items, _ = run(CM.format(extra="") + DEPLOY)
    cm, deploy = items
    assert cm["metadata"]["name"].startswith("app-")
    assert deploy["metadata"]["name"] == "app"
    assert deploy["spec"]["selector"]["matchLabels"] == {"app": "app"}
    spec = deploy["spec"]["template"]["spec"]
    assert spec["containers"][0]["name"] == "app"
    assert spec["containers"][0]["envFrom"][0]["configMapRef"]["name"] == cm["metadata"]["name"]
    # the container aliased into initContainers (as PyYAML writes a repeated object) follows
    assert spec["initContainers"][0]["envFrom"][0]["configMapRef"]["name"] == cm["metadata"]["name"]


def test_a_role_rule_about_both_kinds_names_both_new_names():
    secret = ("- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: app\n    annotations:\n"
              "      krmfn.dev/content-hash: \"true\"\n  data:\n    k: dg==\n")
    role = ("- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata:\n    name: r\n  rules:\n"
            "  - apiGroups: [\"\"]\n    resources: [configmaps, secrets]\n    verbs: [get]\n    resourceNames:\n"
            "    - app\n")
    out = run_resource_list((HEAD + CM.format(extra="") + secret + role
                             + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n"
                               "  data: {kinds: 'ConfigMap,Secret'}\n").encode())
    assert not out.failed, [r.message for r in out.results]
    cm, sec, rl = yaml.safe_load(out.stdout)["items"]
    assert sorted(rl["rules"][0]["resourceNames"]) == sorted([cm["metadata"]["name"], sec["metadata"]["name"]])


def test_values_kubectl_accepts_are_read():
    """Time-like values, a merge key, a raw U+2028 in quotes, a !!null data: go-yaml reads them all."""
    cm = ("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: app\n    annotations:\n"
          "      krmfn.dev/content-hash: \"true\"\n  data: &d\n    ASPECT_RATIO: 16:9\n    BACKUP_AT: 12:30\n"
          "    LINE: \"a\u2028b\"\n"
          "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: other\n  data:\n    X: y\n"
          "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: empty\n  data: !!null \"\"\n")
    out = run_resource_list((HEAD + cm).encode())
    assert not out.failed, [r.message for r in out.results]
    text = out.stdout.decode()
    assert "ASPECT_RATIO: 16:9\n" in text and "BACKUP_AT: 12:30\n" in text  # read as text, kept as written
    items = yaml.safe_load(text)["items"]
    assert names(items)[1:] == ["other", "empty"]
    merged = ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n    labels: &base {app: a}\n"
              "  spec:\n    template:\n      metadata:\n        labels: {<<: *base, x: y}\n      spec:\n"
              "        containers:\n        - name: c\n          envFrom: [{configMapRef: {name: app}}]\n")
    items, _ = run(CM.format(extra="") + merged)
    assert items[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == \
        items[0]["metadata"]["name"]


def test_flow_json_crlf_and_comments_keep_every_untouched_byte():
    deploy = ('- {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": '
              '{"spec": {"containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "app"}}]}]}}}}\n')
    text = HEAD + "# a comment before\n" + CM.format(extra="") + "  # trailing\n" + deploy
    for data in (text, text.replace("\n", "\r\n")):
        out = run_resource_list(data.encode())
        assert not out.failed, [r.message for r in out.results]
        got = out.stdout.decode()
        assert "# a comment before" in got and "# trailing" in got
        items = yaml.safe_load(got)["items"]
        assert items[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == \
            items[0]["metadata"]["name"]
        assert ("\r\n" in got) == ("\r\n" in data)
