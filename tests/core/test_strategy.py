"""The stable-name mode (strategy annotation): the object keeps its name and stays mutable, and
every referrer's pod template carries krmfn.dev/config-hash, a digest over the content of every
such object it references."""

from __future__ import annotations

import pytest
import yaml
from conftest import exit_code, resource_list, run

from krmfn.core.naming.annotate import annotation, prepare
from krmfn.core.naming.strategy import config_hash, content_digest
from krmfn.krm.envelope import read_resource_list
from krmfn.krm.resource import read_resource
from krmfn.yaml.textedit import add_entries, replace_scalar, set_map, splice

KEY = "krmfn.dev/config-hash"


def cm(name: str = "app", value: str = "one", strategy: str | None = None, kind: str = "ConfigMap",
       extra: str = "") -> str:
    notes = f"\n      krmfn.dev/strategy: {strategy}" if strategy else ""
    body = f"data: {{key: {value}}}" if kind == "ConfigMap" else f"stringData: {{password: {value}}}"
    return f"""\
- apiVersion: v1
  kind: {kind}
  metadata:
    name: {name}
    annotations:
      krmfn.dev/content-hash: "true"{notes}{extra}
  {body}
"""


def deployment(name: str = "web", refs: tuple[str, ...] = ("app",), template_metadata: str = "",
               kind: str = "Deployment", api_version: str = "apps/v1", annotations: str = "") -> str:
    env = "".join(f"\n          - configMapRef: {{name: {r}}}" for r in refs)
    return f"""\
- apiVersion: {api_version}
  kind: {kind}
  metadata:
    name: {name}{annotations}
  spec:
    template:{template_metadata}
      spec:
        containers:
        - name: main
          image: nginx
          envFrom:{env}
"""


def annotated(**more: object) -> str:
    return yaml.safe_dump({"apiVersion": "fn.krmfn.dev/v1alpha1", "kind": "ContentHash", "metadata": {"name": "c"},
                           "strategy": "annotation", **more})


def items(out) -> dict[tuple[str, str], dict]:
    return {(i["kind"], i["metadata"]["name"]): i for i in yaml.safe_load(out.text)["items"]}


def template_hash(out, name: str = "web", kind: str = "Deployment") -> str | None:
    item = items(out)[(kind, name)]
    return ((item["spec"]["template"].get("metadata") or {}).get("annotations") or {}).get(KEY)


def ok(text: str, config: str | None = None):
    out = run(resource_list(text, config))
    assert exit_code(out) == 0, out.results
    return out


def test_the_object_keeps_its_name_and_the_pod_template_gets_one_annotation_and_nothing_else_changes():
    out = ok(cm() + deployment(), annotated())
    value = template_hash(out)
    # Exactly the lines the annotation needs, added to the template; every other byte as it was.
    added = f"    template:\n      metadata:\n        annotations:\n          {KEY}: {value}\n"
    expected = resource_list(cm() + deployment().replace("    template:\n", added), annotated())
    assert out.text.split("results:")[0] == expected
    assert value == config_hash([("ConfigMap", "default", "app",
                                  content_digest('{"data":{"key":"one"},"kind":"ConfigMap","name":""}'))], "kustomize")
    (info,) = [r for r in out.results if r.resource.kind == "ConfigMap"]
    assert info.message == ("ConfigMap app keeps its name (strategy: annotation); a change of its content rolls "
                            "Deployment/web through krmfn.dev/config-hash")


def test_twice_is_once():
    first = ok(cm() + deployment(), annotated())
    again = run(first.text)
    assert again.text == first.text


def test_it_changes_exactly_when_a_referenced_objects_content_changes():
    base = template_hash(ok(cm() + deployment(), annotated()))
    assert template_hash(ok(cm(value="two") + deployment(), annotated())) != base
    labelled = cm().replace("    name: app\n", "    name: app\n    labels: {tier: web}\n")
    assert template_hash(ok(labelled + deployment(), annotated())) == base  # labels are not content
    unrelated = cm("other", "x")
    assert template_hash(ok(cm() + unrelated + deployment(), annotated())) == base  # not referenced


def test_reference_order_does_not_matter():
    both = cm("a", "v1") + cm("b", "v2")
    one = ok(both + deployment("x", ("a", "b")) + deployment("y", ("b", "a", "a")), annotated())
    assert template_hash(one, "x") == template_hash(one, "y") is not None


def test_the_objects_own_annotation_wins_over_the_function_config_both_ways():
    out = ok(cm("a", strategy="suffix") + cm("b") + deployment(refs=("a", "b")), annotated())
    got = items(out)
    assert ("ConfigMap", "b") in got and ("ConfigMap", "a") not in got  # a renamed, b kept
    renamed = next(i for (k, n), i in got.items() if n.startswith("a-"))
    env = got[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert [e["configMapRef"]["name"] for e in env] == [renamed["metadata"]["name"], "b"]  # and both at once
    assert template_hash(out) is not None
    out = ok(cm("a", strategy="annotation") + deployment(refs=("a",)))
    assert ("ConfigMap", "a") in items(out) and template_hash(out) is not None


@pytest.mark.parametrize("template_metadata, kept", [
    ("", None),  # no metadata: metadata and annotations added
    ("\n      metadata:\n        labels: {app: web}", "        labels: {app: web}\n"),
    ("\n      metadata:\n        annotations:\n          a: b  # mine\n", "          a: b  # mine\n"),
    (f"\n      metadata:\n        annotations:\n          {KEY}: stale\n", None),  # replaced in place
    (f'\n      metadata:\n        annotations:\n          {KEY}: "stale"\n', None),
    ("\n      metadata:\n        annotations: {a: b}", None),  # flow style: re-emitted
    ("\n      metadata:\n        annotations: {}", None),
    ("\n      metadata: {labels: {app: web}}", None),
])
def test_every_shape_of_pod_template_metadata(template_metadata, kept):
    out = ok(cm() + deployment(template_metadata=template_metadata), annotated())
    value = template_hash(out)
    assert value and value != "stale"
    if kept:
        assert kept in out.text  # comments and style of what was there stay
    assert run(out.text).text == out.text


@pytest.mark.parametrize("template", ["", "\n      metadata:\n        labels: {app: web}",
                                      f"\n      metadata:\n        annotations:\n          {KEY}: old\n"])
def test_a_value_yaml_would_read_as_a_number_is_quoted(template):
    """A digest of digits only (one in a few thousand) must stay a string: annotations are strings."""
    source = resource_list(deployment(template_metadata=template)).encode()
    rl = read_resource_list(source)
    res = read_resource(rl.sources[0], 0)
    a = annotation(res, ("spec", "template", "metadata"), "2456789245")
    text = splice(res.source, a.edits)
    assert text is not None and f'{KEY}: "2456789245"' in text.decode()
    assert yaml.safe_load(text.decode()[2:].replace("\n  ", "\n"))["spec"]["template"]["metadata"]["annotations"][KEY] \
        == "2456789245"


def test_a_cronjobs_annotation_goes_in_its_job_templates_pod_template():
    cron = """\
- apiVersion: batch/v1
  kind: CronJob
  metadata: {name: nightly}
  spec:
    schedule: "@daily"
    jobTemplate:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: busybox
              envFrom:
              - configMapRef: {name: app}
"""
    out = ok(cm() + cron, annotated())
    job = items(out)[("CronJob", "nightly")]["spec"]["jobTemplate"]["spec"]["template"]
    assert KEY in job["metadata"]["annotations"]
    assert KEY not in (items(out)[("CronJob", "nightly")]["metadata"].get("annotations") or {})


def test_referrers_without_a_pod_template_get_an_info_that_nothing_rolls_them():
    prometheus = """\
- apiVersion: monitoring.coreos.com/v1
  kind: Prometheus
  metadata: {name: main}
  spec:
    configMaps: [app]
- apiVersion: helm.toolkit.fluxcd.io/v2
  kind: HelmRelease
  metadata: {name: podinfo}
  spec:
    valuesFrom:
    - {kind: ConfigMap, name: app}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: reader}
  rules:
  - {apiGroups: [""], resources: [configmaps], resourceNames: [app], verbs: [get]}
"""
    out = ok(cm() + prometheus, annotated())
    said = {r.resource.kind: r for r in out.results if "nothing rolls it" in r.message}
    assert set(said) == {"Prometheus", "HelmRelease"}  # a Role grants access: nothing to roll
    assert all(r.severity == "info" and "krmfn.dev/strategy: suffix" in r.message for r in said.values())
    assert out.text.split("results:")[0] == resource_list(cm() + prometheus, annotated())  # nothing written
    (on_object,) = [r for r in out.results if r.resource.kind == "ConfigMap"]
    assert "with no pod template to roll" in on_object.message


def test_a_reloader_list_naming_an_object_the_pod_template_does_not_reference_is_in_the_hash():
    marks = "\n    annotations: {configmap.reloader.stakater.com/reload: 'app'}"
    plain = cm().replace('      krmfn.dev/content-hash: "true"\n', '      x: y\n')
    text = plain + deployment(refs=("other",), annotations=marks)
    config = annotated(honor=["reloader"])
    out = ok(text, config)
    assert not any("will not roll" in r.message for r in out.results)
    value = template_hash(out)
    assert value and template_hash(ok(text.replace("key: one", "key: two"), config)) != value
    # under the suffix strategy the same list only warns: a new name does not roll a workload that does not use it
    suffix = run(resource_list(text, config.replace("strategy: annotation", "strategy: suffix")))
    assert any("will not roll" in r.message for r in suffix.results) and template_hash(suffix) is None


def test_a_job_with_suffix_jobs_gets_a_new_name_when_the_content_changes():
    job = deployment("migrate", kind="Job", api_version="batch/v1")
    config = annotated(suffixJobs=True)
    one = [n for k, n in items(ok(cm() + job, config)) if k == "Job"]
    two = [n for k, n in items(ok(cm(value="two") + job, config)) if k == "Job"]
    assert one[0].startswith("migrate-") and two[0].startswith("migrate-") and one != two


def test_a_job_without_suffix_jobs_is_said_to_fail_to_apply():
    out = ok(cm() + deployment("migrate", kind="Job", api_version="batch/v1"), annotated())
    (fate,) = [r for r in out.results if r.resource.kind == "Job"]
    assert fate.severity == "warning" and "cannot be applied" in fate.message and "config-hash covers" in fate.detail


def test_secrets_too_and_their_values_never_appear():
    out = ok(cm("creds", "hunter2", kind="Secret") + deployment(refs=()).replace(
        "envFrom:", "envFrom:\n          - secretRef: {name: creds}"), annotated())
    assert ("Secret", "creds") in items(out) and template_hash(out)
    assert not any("hunter2" in r.message for r in out.results)


def test_immutable_on_an_object_that_keeps_its_name_is_a_warning():
    out = ok(cm().replace("  data:", "  immutable: true\n  data:") + deployment(), annotated())
    (warning,) = [r for r in out.results if r.severity == "warning"]
    assert warning.field_path == "immutable" and "refuses every later change" in warning.message


def test_switching_a_renamed_object_to_the_annotation_strategy_gives_its_name_back():
    first = ok(cm() + deployment())  # suffix: renamed, immutable
    optin = '      krmfn.dev/content-hash: "true"\n'
    switched = first.text.split("results:")[0].replace(optin, f"{optin}      krmfn.dev/strategy: annotation\n")
    out = run(switched)
    got = items(out)
    assert got[("ConfigMap", "app")]["metadata"]["annotations"] == {"krmfn.dev/content-hash": "true",
                                                                    "krmfn.dev/strategy": "annotation"}
    assert "labels" not in got[("ConfigMap", "app")]["metadata"] and "immutable" not in got[("ConfigMap", "app")]
    env = got[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert env == [{"configMapRef": {"name": "app"}}] and template_hash(out)
    assert any("gets its original name back, app, and keeps it" in r.message for r in out.results)
    assert run(out.text.split("results:")[0]).text.split("results:")[0] == out.text.split("results:")[0]


@pytest.mark.parametrize("where", ["object", "config"])
def test_an_unknown_strategy_is_an_error(where):
    if where == "object":
        out = run(resource_list(cm(strategy="annotations") + deployment()))
        message = "annotation krmfn.dev/strategy is 'annotations'; use one of suffix, annotation"
    else:
        out = run(resource_list(cm() + deployment(), annotated().replace("annotation", "hash")))
        message = "function config field 'strategy' must be one of suffix, annotation, not 'hash'"
    assert exit_code(out) == 1 and message in out.results[0].message


def test_a_reference_krmfn_cannot_place_is_not_warned_about_when_nothing_is_renamed():
    widget = ("- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w}\n  spec:\n"
              "    env:\n    - valueFrom: {configMapKeyRef: {name: app, key: key}}\n")
    renamed = run(resource_list(cm() + widget))
    assert any(r.topic == "unplaced-reference" for r in renamed.results)  # a rename would break it
    kept = ok(cm() + widget, annotated())
    assert not any("krmfn does not know where" in r.message for r in kept.results)  # the name stays valid


def test_a_workloads_own_mark_opts_objects_in_under_the_annotation_strategy_too():
    plain = cm().replace('      krmfn.dev/content-hash: "true"\n', '      x: y\n')
    marked = deployment(annotations='\n    annotations: {krmfn.dev/content-hash: "true"}')
    out = ok(plain + marked, annotated())
    assert ("ConfigMap", "app") in items(out) and template_hash(out)
    assert any(r.message.startswith("opted in by Deployment/web (krmfn.dev/content-hash") for r in out.results)


def _directly(res, path: tuple[str, ...], value: str) -> list:
    """The annotation's edits made from the tree with the value itself (what the prepared ones,
    made with a stand-in before the value is known, must equal once filled)."""
    doc = res.tree
    template = doc.path(res.node, *path[:-1])
    metadata = doc.get(template, path[-1])
    annotations = doc.get(metadata, "annotations") if metadata is not None else None
    child = doc.get(annotations, KEY) if annotations is not None else None
    if child is not None:
        return [replace_scalar(doc, child, value)]
    if metadata is not None:
        return set_map(doc, metadata, "annotations", {KEY: value}, first=True)
    return [add_entries(doc, template, ((path[-1], {"annotations": {KEY: value}}),), first=True)]


SHAPES = ["", "\n      metadata:\n        labels: {app: web}",
          "\n      metadata:\n        annotations:\n          a: b\n",
          f"\n      metadata:\n        annotations:\n          {KEY}: stale\n",
          f"\n      metadata:\n        annotations:\n          {KEY}: 'stale'\n",
          "\n      metadata:\n        annotations: {a: b}", "\n      metadata:\n        annotations: {}",
          "\n      metadata:\n        annotations:\n", "\n      metadata:\n        annotations: null",
          '\n      metadata: {"annotations": {"a": "b"}}', "\n      metadata: {labels: {app: web}}"]


@pytest.mark.parametrize("value", ["0123456789abcdef", "2456789245", "12e4567890123456", "b5g8t2k9mh"])
@pytest.mark.parametrize("shape", SHAPES)
def test_an_annotation_prepared_in_the_scan_is_the_one_made_from_the_tree(shape, value):
    """The scan prepares each referrer's annotation with a stand-in value while its tree is read;
    filled with the value, its edits (their text, quoting included, and what they mean) are those
    made from the tree with the value itself."""
    res = read_resource(read_resource_list(resource_list(deployment(template_metadata=shape)).encode()).sources[0], 0)
    path = ("spec", "template", "metadata")
    filled = prepare(res, path).fill(value).edits
    assert [(e.start, e.end, e.text, e.change) for e in filled] == \
        [(e.start, e.end, e.text, e.change) for e in _directly(res, path, value)]
    assert "KRMFN" not in splice(res.source, filled).decode()


def test_a_stable_name_run_reads_each_referrer_once(monkeypatch):
    """The referrers' annotations were made by parsing each referrer again in the plan."""
    from krmfn.krm.resource import Resource

    again = []
    real = Resource.reload
    monkeypatch.setattr(Resource, "reload", lambda self: again.append(self.name) or real(self))
    body = cm() + "".join(deployment(name=f"web-{i}", template_metadata=SHAPES[i % len(SHAPES)]) for i in range(12))
    out = ok(body, annotated())
    assert sum(template_hash(out, f"web-{i}") is not None for i in range(12)) == 12
    assert again == []


def test_a_pod_template_whose_metadata_is_not_a_map_is_refused_naming_it():
    """It was an internal error (NotEditable escaped the plan)."""
    out = run(resource_list(cm() + deployment(template_metadata="\n      metadata: oops"), annotated()))
    assert exit_code(out) == 1
    [error] = [r for r in out.results if r.severity == "error"]
    assert error.field_path == "spec.template.metadata" and "cannot be written in place" in error.message
