"""What each change does to its referrers: one result per referrer of a renamed object, with the
field that decides it (docs/rollouts.md has the table)."""

from __future__ import annotations

import textwrap

import pytest
import yaml
from conftest import exit_code, resource_list, run
from tooling import REPO

from krmfn.core.report import rollout
from krmfn.yaml.tree import parse_item

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {krmfn.dev/content-hash: "true"}
  data: {key: one}
"""

POD_SPEC = """\
containers:
- name: main
  image: nginx
  envFrom:
  - configMapRef: {name: app}
"""


def workload(api_version: str, kind: str, spec: str = "") -> str:
    """A workload whose pod template reads ConfigMap app (a Pod: its own spec); ``spec``: more of its spec."""
    body = POD_SPEC if kind == "Pod" else "template:\n  spec:\n" + textwrap.indent(POD_SPEC, "    ")
    return (f"- apiVersion: {api_version}\n  kind: {kind}\n  metadata: {{name: w}}\n  spec:\n"
            + textwrap.indent(body + spec, "    "))


def fates(items: str, config: str | None = None) -> list:
    out = run(resource_list(items, config))
    assert exit_code(out) == 0, out.results
    return [r for r in out.results if r.resource is not None and r.resource.name == "w"]


@pytest.mark.parametrize("api_version, kind, spec, severity, path, words", [
    ("apps/v1", "Deployment", "", "info", "spec.strategy.type", "RollingUpdate replaces its pods"),
    ("apps/v1", "Deployment", "strategy: {type: RollingUpdate}\n", "info", "spec.strategy.type", "rolls out when"),
    ("apps/v1", "Deployment", "strategy: {type: Recreate}\n", "warning", "spec.strategy.type", "with downtime"),
    ("apps/v1", "Deployment", "paused: true\n", "warning", "spec.paused", "rolls out only when resumed"),
    ("apps/v1", "StatefulSet", "", "info", "spec.updateStrategy.type", "one at a time"),
    ("apps/v1", "StatefulSet", "updateStrategy: {type: OnDelete}\n", "warning", "spec.updateStrategy.type",
     "until its pods are deleted"),
    ("apps/v1", "DaemonSet", "updateStrategy:\n  type: OnDelete\n", "warning", "spec.updateStrategy.type",
     "keep old versions (retention)"),
    ("apps/v1", "DaemonSet", "", "info", "spec.updateStrategy.type", "node by node"),
    ("apps/v1", "ReplicaSet", "", "warning", "spec.template", "leaves running pods alone"),
    ("v1", "ReplicationController", "", "warning", "spec.template", "a ReplicationController leaves running pods"),
    ("v1", "Pod", "", "warning", "spec", "a Pod's spec is immutable"),
    ("batch/v1", "Job", "", "warning", "spec.template", "set suffixJobs: true"),
    ("argoproj.io/v1alpha1", "Rollout", "paused: true\n", "warning", "spec.paused", "is paused"),
    ("apps.kruise.io/v1beta1", "StatefulSet", "updateStrategy: {type: OnDelete}\n", "warning",
     "spec.updateStrategy.type", "until its pods are deleted"),
    ("apps.kruise.io/v1alpha1", "CloneSet", "updateStrategy: {paused: true}\n", "warning", "spec.updateStrategy.paused",
     "is paused"),
])
def test_each_kind_says_what_a_change_does_with_the_field_that_decides(api_version, kind, spec, severity, path,
                                                                         words):
    found = fates(CM + workload(api_version, kind, spec))
    assert len(found) == 1, found
    result = found[0]
    assert (result.severity, result.field_path, result.resource.kind) == (severity, path, kind)
    assert words in result.message
    assert "when ConfigMap app changes" in result.message


def test_a_cronjob_takes_it_at_its_next_job_unless_suspended():
    cron = ("- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: w}\n  spec:\n    schedule: '@daily'\n"
            "SUSPEND    jobTemplate:\n      spec:\n        template:\n          spec:\n"
            + textwrap.indent(POD_SPEC, " " * 12))
    (running,) = fates(CM + cron.replace("SUSPEND", ""))
    assert running.severity == "info" and "next Job" in running.message and running.field_path == "spec.jobTemplate"
    (suspended,) = fates(CM + cron.replace("SUSPEND", "    suspend: true\n"))
    assert suspended.severity == "warning" and suspended.field_path == "spec.suspend"


def test_a_job_renamed_by_suffix_jobs_gets_the_jobs_own_info_instead():
    items = CM + workload("batch/v1", "Job")
    (without,) = fates(items)
    assert without.field_path == "spec.template"
    out = run(resource_list(items, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {suffixJobs: 'true'}"))
    on_job = [r for r in out.results if r.resource is not None and r.resource.kind == "Job"]
    assert len(on_job) == 1 and "suffixJobs" in on_job[0].message and on_job[0].field_path is None


@pytest.mark.parametrize("api_version,kind", [("batch/v1", "Job"), ("v1", "Pod")])
def test_an_object_named_by_generate_name_is_new_each_time_so_nothing_is_applied_over_a_live_one(api_version, kind):
    items = CM + workload(api_version, kind).replace("metadata: {name: w}", "metadata: {generateName: w-}")
    out = run(resource_list(items))
    (fate,) = [r for r in out.results if r.resource is not None and r.resource.name == "w-"]
    assert fate.severity == "info" and fate.field_path == "metadata.generateName"
    assert "cannot be applied" not in fate.message and f"is a new {kind} each time it is created" in fate.message
    named = items.replace("metadata: {generateName: w-}", "metadata: {name: w, generateName: w-}")
    assert "cannot be applied over the live" in fates(named)[0].message  # a name is applied: immutable again


def test_suffix_jobs_leaves_a_generate_name_job_alone():
    items = CM + workload("batch/v1", "Job").replace("metadata: {name: w}", "metadata: {generateName: w-}")
    out = run(resource_list(items, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {suffixJobs: 'true'}"))
    assert exit_code(out) == 0, out.results
    job = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] == "Job"][0]
    assert job["metadata"] == {"generateName": "w-"}
    assert [r.field_path for r in out.results if r.resource.kind == "Job"] == ["metadata.generateName"]


def test_the_same_results_on_a_rerun_of_the_output():
    """kpt renders twice in place: the second run reads hashed names and must say the same."""
    first = run(resource_list(CM + workload("apps/v1", "Deployment", "strategy: {type: Recreate}\n")))
    again = run(first.text)
    assert [str(r) for r in again.results] == [str(r) for r in first.results]


def test_no_result_for_a_referrer_of_nothing_renamed_or_without_pods():
    plain = CM.replace('"true"', '"false"')
    assert fates(plain + workload("apps/v1", "Deployment")) == []
    role = ("- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata: {name: w}\n  rules:\n"
            "  - {apiGroups: [''], resources: [configmaps], resourceNames: [app], verbs: [get]}\n")
    assert fates(CM + role) == []


def test_several_objects_in_one_result():
    two = CM + CM.replace("name: app", "name: more").replace("one", "two")
    more = "- configMapRef: {name: app}\n          - configMapRef: {name: more}\n"
    spec = workload("apps/v1", "Deployment").replace("- configMapRef: {name: app}\n", more)
    (result,) = fates(two + spec)
    assert "when ConfigMap app or ConfigMap more changes (their hashed names app-" in result.message


def test_the_verdict_is_read_from_the_objects_own_fields():
    doc, node = parse_item(b"- apiVersion: apps/v1\n  kind: Deployment\n  spec:\n    paused: true\n"
                           b"    strategy: {type: Recreate}\n")
    severity, path, _ = rollout.verdict(doc, node, "apps/v1", "Deployment")
    assert (severity, path) == ("warning", "spec.paused")  # paused first: nothing rolls at all
    assert rollout.verdict(doc, node, "v1", "ConfigMap") is None
    assert rollout.way("apps.kruise.io/v1beta1", "StatefulSet").group == "apps.kruise.io"
    assert rollout.way("apps/v1", "StatefulSet").group is None


# --- "nothing references it": what select: all may rename under a program that reads a fixed name ---

UNREFERENCED = """\
- apiVersion: v1
  kind: {kind}
  metadata:
    name: legacy-settings
    namespace: argocd{annotations}
  data: {{url: aHR0cHM6Ly9hcmdv}}
"""


@pytest.mark.parametrize("kind, example", [("ConfigMap", "Argo CD's argocd-cm"), ("Secret", "a TLS Secret")])
def test_nothing_references_it_says_what_select_all_may_break_and_how_to_opt_out(kind, example):
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {select: all, kinds: 'ConfigMap,Secret'}"
    out = run(resource_list(UNREFERENCED.format(kind=kind, annotations=""), config))
    (warning,) = out.results
    assert warning.severity == "warning" and "nothing in the input references it" in warning.message
    assert "select: all opted it in" in warning.detail and example in warning.detail  # the long form, under -v
    assert 'opt it out with krmfn.dev/content-hash: "false"' in warning.detail
    assert "krmfn.dev/strategy: annotation" in warning.detail and len(warning.message) <= 200


@pytest.mark.parametrize("how", ["annotation", "names"])
def test_an_object_opted_in_by_its_own_annotation_or_by_name_is_not_told_about_select_all(how):
    annotations = '\n    annotations: {krmfn.dev/content-hash: "true"}' if how == "annotation" else ""
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {select: all, names: legacy-settings}"
    out = run(resource_list(UNREFERENCED.format(kind="ConfigMap", annotations=annotations), config))
    (warning,) = out.results
    assert "nothing in the input references it" in warning.message and "select: all" not in warning.message


# --- examples/rollouts: every verdict on one ConfigMap's workloads -------------------------------

EXAMPLE = REPO / "examples" / "rollouts"


def test_the_rollouts_example_is_its_golden_output_twice_over():
    expected = (EXAMPLE / "expected-output.yaml").read_text()
    first = run((EXAMPLE / "input.yaml").read_text())
    assert exit_code(first) == 0 and first.text == expected, \
        "regenerate with: .venv/bin/krmfn < examples/rollouts/input.yaml > examples/rollouts/expected-output.yaml"
    assert run(first.text).text == expected


def test_the_rollouts_example_says_each_workloads_fate():
    results = yaml.safe_load((EXAMPLE / "expected-output.yaml").read_text())["results"]
    fates = {r["resourceRef"]["name"]: (r["severity"], r["field"]["path"]) for r in results if "field" in r}
    assert fates == {
        "web": ("info", "spec.strategy.type"),
        "legacy": ("warning", "spec.strategy.type"),
        "canary": ("warning", "spec.paused"),
        "db": ("warning", "spec.updateStrategy.type"),
        "debug": ("warning", "spec"),
        "migrate": ("warning", "spec.template"),
    }
