"""``kind: List`` and typed lists (``ConfigMapList``, ``RoleList``): their objects are items.

Why: kube-prometheus publishes its Grafana dashboards as one ConfigMapList and its RBAC as
RoleList/RoleBindingList; krmfn refused them ("has no metadata map"), while kubectl and kustomize
take them. Each object inside is read as an item (hashed, and referenced from outside), and the
List is written back as the List it was, its untouched entries byte for byte.
"""

from __future__ import annotations

import yaml
from conftest import exit_code

from krmfn.core.run.function import Outcome, run_resource_list

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CONFIGMAP_LIST = """\
- apiVersion: v1
  items:
  - apiVersion: v1
    data:
      a.json: |-
        {"x": 1}
    kind: ConfigMap
    metadata:
      name: dash-a   # the first dashboard
      namespace: monitoring
  # a comment between entries
  - apiVersion: v1
    data:
      b.json: |-
        {"y": 2}
    kind: ConfigMap
    metadata:
      name: dash-b
      namespace: monitoring
  kind: ConfigMapList
"""
ROLE_LIST = """\
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleList
  items:
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: reader, namespace: monitoring}
    rules:
    - apiGroups: [""]
      resources: [configmaps]
      resourceNames: [dash-a]
      verbs: [get]
"""
GRAFANA = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: grafana, namespace: monitoring}
  spec:
    template:
      spec:
        containers:
        - name: grafana
        volumes:
        - name: a
          configMap: {name: dash-a}
        - name: b
          configMap: {name: dash-b}
"""


def run(text: str, *args: str) -> Outcome:
    fc = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data: {select: all}\n"
    return run_resource_list((text + fc).encode())


def entries(text: str, index: int) -> list[dict]:
    return yaml.safe_load(text)["items"][index]["items"]


def test_configmaps_in_a_list_are_hashed_and_followed_from_outside() -> None:
    out = run(HEAD + CONFIGMAP_LIST + ROLE_LIST + GRAFANA)
    assert exit_code(out) == 0, out.results
    dashboards = entries(out.text, 0)
    names = [d["metadata"]["name"] for d in dashboards]
    assert all(n.startswith(("dash-a-", "dash-b-")) and d["immutable"] for n, d in zip(names, dashboards))
    doc = yaml.safe_load(out.text)
    assert doc["items"][0]["kind"] == "ConfigMapList" and len(doc["items"]) == 3
    volumes = doc["items"][2]["spec"]["template"]["spec"]["volumes"]
    assert [v["configMap"]["name"] for v in volumes] == names
    assert entries(out.text, 1)[0]["rules"][0]["resourceNames"] == [names[0]]
    assert "  # a comment between entries\n" in out.text and "name: dash-a-" in out.text
    assert "# the first dashboard" in out.text


def test_an_untouched_list_leaves_byte_for_byte() -> None:
    text = HEAD + CONFIGMAP_LIST + ROLE_LIST
    out = run_resource_list(text.encode())  # nothing opted in
    assert exit_code(out) == 0, out.results
    assert out.text.startswith(text)


def test_a_changed_list_keeps_its_untouched_entries_byte_for_byte() -> None:
    other = CONFIGMAP_LIST.replace("  - apiVersion: v1\n    data:\n      b.json",
                                   "  - apiVersion: v1\n    data:\n      b.json", 1)
    text = HEAD + other.replace("name: dash-a   # the first dashboard",
                                "name: dash-a   # the first dashboard\n      annotations: {krmfn.dev/content-hash: \"true\"}")
    out = run_resource_list(text.encode())
    assert exit_code(out) == 0, out.results
    second = other[other.index("  - apiVersion: v1\n    data:\n      b.json"):other.index("  kind: ConfigMapList")]
    assert second in out.text


def test_a_flow_style_list_in_a_json_resource_list() -> None:
    import json

    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [
        {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"k": "v"}},
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}}]},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
         "spec": {"containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "app"}}]}]}}],
        "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"},
                           "data": {"select": "all"}}}
    data = json.dumps(doc, indent=2).encode()
    out = run_resource_list(data)
    assert exit_code(out) == 0, out.results
    got = yaml.safe_load(out.text)
    cm, svc = got["items"][0]["items"]
    assert got["items"][0]["kind"] == "List" and cm["metadata"]["name"].startswith("app-")
    assert svc == doc["items"][0]["items"][1]
    start = data.rindex(b"{", 0, data.index(b'"kind": "Service"'))
    end = data.index(b"}", data.index(b"}", data.index(b'"name": "svc"')) + 1) + 1
    assert data[start:end] in out.stdout  # the untouched entry's own text
    assert got["items"][1]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == cm["metadata"]["name"]
    again = run_resource_list(out.stdout)
    assert again.stdout == out.stdout


def test_an_object_whose_kind_ends_in_list_but_has_a_name_is_an_object() -> None:
    text = HEAD + "- apiVersion: example.com/v1\n  kind: AllowList\n  metadata: {name: a}\n  items: [x]\n"
    out = run_resource_list(text.encode())
    assert exit_code(out) == 0 and out.text.startswith(text)


def test_an_error_in_a_lists_entry_names_its_line_in_the_input() -> None:
    text = HEAD + CONFIGMAP_LIST.replace("      name: dash-b\n", "      name: dash-b\n      bad: [x\n")
    out = run_resource_list(text.encode())
    line = text[:text.index("      bad: [x")].count("\n") + 1
    message = [r.message for r in out.results if r.severity == "error"][0]
    assert message.startswith("item 0 is not valid YAML")  # the List itself does not parse
    assert f"at line {line + 1}," in message, message  # where libyaml stops: the line after it
