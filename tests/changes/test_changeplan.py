"""changes.changeplan without the command line: which keys each kind of workload reads, found through
its pod spec key by key and through the reference table for every other kind."""

from __future__ import annotations

from krmfn.changes import changeplan
from krmfn.core.references.walk import ReferenceTable

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: rules-{suffix}
  annotations: {{krmfn.dev/original-name: rules}}
  labels: {{krmfn.dev/family: rules}}
data: {{a.yaml: "{a}", b.yaml: "1"}}
"""
WORKLOADS = """\
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {{name: main, namespace: mon}}
spec:
  paused: true
  configMaps: [rules-{suffix}]
---
apiVersion: v1
kind: Pod
metadata: {{name: once}}
spec:
  containers: [{{name: c, image: c}}]
  volumes:
  - name: v
    projected:
      sources:
      - configMap: {{name: rules-{suffix}, items: [{{key: b.yaml, path: b}}]}}
"""


def render(suffix: str, a: str, namespace_of_config: str = "") -> list[changeplan.Obj]:
    config = CONFIG.format(suffix=suffix, a=a)
    prom = config.replace("metadata:\n", "metadata:\n  namespace: mon\n")
    return changeplan.read_render((config + "---\n" + prom + WORKLOADS.format(suffix=suffix)).encode())


def test_the_reference_table_finds_what_an_operator_spec_reads() -> None:
    found = changeplan.change_plan(render("aaa", "0"), render("bbb", "1"))
    assert [(c.namespace, c.family, c.changed) for c in found.configs] == [("", "rules", ["a.yaml"]),
                                                                         ("mon", "rules", ["a.yaml"])]
    rolls = {r.name: r for r in found.rolls}
    assert rolls["main"].category == "paused" and rolls["main"].reads == {"ConfigMap rules": ["*"]}
    assert rolls["main"].reads_changed
    # the Pod reads b.yaml only, through a projected volume's items: it would roll for a key it does not read
    assert rolls["once"].category == "cannot-apply" and rolls["once"].reads == {"ConfigMap rules": []}
    assert not rolls["once"].reads_changed and found.categories() >= {"paused", "cannot-apply", "unread"}


def test_nothing_changed_is_an_empty_plan() -> None:
    found = changeplan.change_plan(render("aaa", "0"), render("aaa", "0"))
    assert found.configs == [] and found.rolls == []


APP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-{suffix}
  annotations: {{krmfn.dev/original-name: app}}
  labels: {{krmfn.dev/family: app}}
data: {{level: "{level}"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  template:
    spec:
      containers:
      - name: web
        image: {image}
        resources: {{limits: {{cpu: "{cpu}"}}}}
        env: [{{name: MODE, value: "{mode}"}}]
        envFrom: [{{configMapRef: {{name: app-{suffix}}}}}]
"""
POD = """\
---
apiVersion: v1
kind: Pod
metadata: {{name: solo}}
spec:
  containers: [{{name: solo, image: solo, resources: {{limits: {{cpu: "{cpu}"}}}}}}]
"""


def app(suffix: str = "aaa", level: str = "info", image: str = "web:1.0", cpu: str = "1", mode: str = "a",
        pod_cpu: str = "1") -> list[changeplan.Obj]:
    text = APP.format(suffix=suffix, level=level, image=image, cpu=cpu, mode=mode) + POD.format(cpu=pod_cpu)
    return changeplan.read_render(text.encode())


def test_a_config_change_alone_is_no_other_change_of_the_template():
    """The new hashed name in the template is the config's doing, not another change (issue #36)."""
    found = changeplan.change_plan(app(), app(suffix="bbb", level="debug"))
    [roll] = found.rolls
    assert roll.other == () and "template" not in found.categories()


def test_an_image_change_is_in_the_plan_with_its_old_and_new_image_and_can_gate():
    found = changeplan.change_plan(app(), app(suffix="bbb", level="debug", image="web:1.1"))
    [roll] = found.rolls
    assert roll.other == ("image of container web: web:1.0 -> web:1.1",)
    assert "template" in found.categories() and roll.to_json()["otherChanges"] == list(roll.other)
    alone = changeplan.change_plan(app(), app(image="web:1.1"))  # no config change at all: still the whole story
    [roll] = alone.rolls
    assert roll.name == "web" and roll.reads == {} and roll.other == ("image of container web: web:1.0 -> web:1.1",)


def test_env_and_resources_changes_are_named_and_a_resize_is_said_as_it_happens():
    env = changeplan.change_plan(app(), app(mode="b"))
    assert env.rolls[0].other == ("env of container web",)
    deployment = changeplan.change_plan(app(), app(cpu="2"))
    [roll] = deployment.rolls
    assert roll.other[0] == "resources of container web"
    assert roll.other[1].startswith("resources only: the Deployment still replaces its pods")
    pod = changeplan.change_plan(app(), app(pod_cpu="2"))
    [roll] = pod.rolls
    assert roll.kind == "Pod" and "resized in place where its containers' resizePolicy allows" in roll.other[1]


def _reads(pod_spec: str) -> dict[tuple[str, str], set[str]]:
    [obj] = changeplan.read_render(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{pod_spec}".encode())
    return changeplan.reads_of(obj, ReferenceTable.builtin())


def test_a_pod_spec_is_read_key_by_key_in_the_tables_order_of_its_fields():
    """The table's walk finds the names; the map holding each says which keys (KEYS_READ). The order is
    the table's (containers, then init containers, then volumes), not the text's."""
    found = _reads("  volumes: [{name: v, configMap: {name: vol, items: [{key: a, path: a}, {path: b}]}}]\n"
                   "  initContainers: [{name: i, envFrom: [{secretRef: {name: init}}]}]\n"
                   "  containers:\n  - name: c\n    envFrom: [{configMapRef: {name: whole}}]\n"
                   "    env: [{name: E, valueFrom: {configMapKeyRef: {name: one, key: k}}}]\n")
    every = {changeplan.ALL}
    assert list(found.items()) == [(("ConfigMap", "one"), {"k"}), (("ConfigMap", "whole"), every),
                                   (("Secret", "init"), every), (("ConfigMap", "vol"), {"a", *every})]


def test_a_secret_read_whole_by_any_field_reads_every_key():
    """An image pull secret (or a CSI driver's) is read whole, also when an env var reads one of its keys."""
    found = _reads("  imagePullSecrets: [{name: s}]\n"
                   "  containers: [{name: c, env: [{name: E, valueFrom: {secretKeyRef: {name: s, key: k}}}]}]\n")
    assert found == {("Secret", "s"): {"k", changeplan.ALL}}
