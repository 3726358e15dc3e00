"""What rotates outside Git (core.report.rotation): Reloader's annotations naming exactly those objects
under ``rotation: reloader``, the audit's warning where nothing rolls them, the blanket mark
reported with its replacement, and the plan's words on what rolls each workload (issue #37)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from conftest import exit_code, resource_list, run
from tooling import EXAMPLES, REPO, check_golden

EXAMPLE = EXAMPLES / "rotation"
CONFIG = ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: fc}\n"
          "select: all\nkinds: [ConfigMap, ExternalSecret]\n")
OBJECTS = """\
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app-config}
  data: {LOG_LEVEL: info}
- apiVersion: external-secrets.io/v1
  kind: ExternalSecret
  metadata: {name: db}
  spec:
    secretStoreRef: {name: vault, kind: ClusterSecretStore}
    target: {name: db-creds}
    data: [{secretKey: password, remoteRef: {key: db, property: password}}]
- apiVersion: cert-manager.io/v1
  kind: Certificate
  metadata: {name: tls}
  spec: {secretName: tls, issuerRef: {name: ca}}
- apiVersion: v1
  kind: Secret
  metadata: {name: sa-token}
  type: kubernetes.io/service-account-token
"""


def workload(kind: str = "Deployment", api: str = "apps/v1", annotations: str = "") -> str:
    meta = f"\n    annotations: {{{annotations}}}" if annotations else ""
    pod = "spec:\n    template:\n      spec:" if kind != "CronJob" else \
        "spec:\n    schedule: '@daily'\n    jobTemplate:\n      spec:\n        template:\n          spec:"
    pad = " " * (8 if kind != "CronJob" else 12)
    return (f"- apiVersion: {api}\n  kind: {kind}\n  metadata:\n    name: web{meta}\n  {pod}\n"
            f"{pad}imagePullSecrets: [{{name: registry}}]\n"
            f"{pad}containers:\n{pad}- name: c\n{pad}  envFrom:\n{pad}  - configMapRef: {{name: app-config}}\n"
            f"{pad}  - secretRef: {{name: db-creds}}\n{pad}  - secretRef: {{name: tls}}\n"
            f"{pad}  - secretRef: {{name: sa-token}}\n{pad}  - configMapRef: {{name: other-team}}\n")


def go(items: str, extra: str = ""):  # noqa: ANN201
    out = run(resource_list(items, CONFIG + extra))
    assert exit_code(out) == 0, out.results
    return out


def test_the_example_gives_its_expected_output_and_a_second_run_changes_nothing():
    check_golden(EXAMPLE)


def test_reloader_is_told_exactly_what_changes_outside_git_by_its_output_names():
    out = go(OBJECTS + workload(), "rotation: reloader\n")
    items = yaml.safe_load(out.text)["items"]
    web = items[-1]
    es = next(i for i in items if i["kind"] == "ExternalSecret")
    target = es["spec"]["target"]["name"]
    assert target.startswith("db-creds-")
    notes = web["metadata"]["annotations"]
    assert notes["secret.reloader.stakater.com/reload"] == ",".join(sorted([target, "sa-token", "tls"]))
    assert notes["configmap.reloader.stakater.com/reload"] == "other-team"  # another team's: not in the input
    assert "registry" not in str(notes)  # an image pull secret is the kubelet's
    assert not any(n.startswith("app-config") for n in notes["configmap.reloader.stakater.com/reload"].split(","))
    assert run(out.text).text == out.text  # a re-run writes the same list


@pytest.mark.parametrize("kind,api", [("StatefulSet", "apps/v1"), ("CronJob", "batch/v1"),
                                      ("Rollout", "argoproj.io/v1alpha1")])
def test_every_kind_reloader_rolls_gets_the_annotations(kind, api):
    out = go(OBJECTS + workload(kind, api), "rotation: reloader\n")
    web = yaml.safe_load(out.text)["items"][-1]
    assert "secret.reloader.stakater.com/reload" in web["metadata"]["annotations"]


def test_without_rotation_the_audit_warns_where_nothing_rolls_a_workload():
    out = go(OBJECTS + workload())
    [warning] = [r for r in out.results if r.severity == "warning" and "outside Git" in r.message]
    assert warning.resource.kind == "Deployment"
    assert warning.message.startswith("nothing rolls this Deployment when Secret db-creds-")
    assert "Secret tls" in warning.message and "set rotation: reloader" in warning.message
    assert "other-team" not in warning.message  # absent from the input: named for Reloader, not warned about
    assert "ExternalSecret db's target" in warning.detail and "service-account token" in warning.detail
    assert len(warning.message) <= 200
    quiet = go(OBJECTS + workload(annotations='secret.reloader.stakater.com/reload: "x"'))
    assert not [r for r in quiet.results if "outside Git" in r.message]  # the user names what Reloader watches
    off = go(OBJECTS + workload(), "audit: off\n")
    assert not [r for r in off.results if "outside Git" in r.message]


def test_reloader_does_not_roll_a_job_and_the_warning_says_so():
    job = workload("Job", "batch/v1")
    out = go(OBJECTS + job, "rotation: reloader\n")
    assert "annotations" not in yaml.safe_load(out.text)["items"][-1]["metadata"]
    [warning] = [r for r in out.results if "outside Git" in r.message]
    assert "Reloader does not roll a Job" in warning.message


def test_a_blanket_reloader_mark_is_reported_with_the_precise_one():
    out = go(OBJECTS + workload(annotations='reloader.stakater.com/auto: "true"'))
    [warning] = [r for r in out.results if "reloader.stakater.com/auto" in r.message]
    assert warning.field_path == "metadata.annotations[reloader.stakater.com/auto]"
    assert "krmfn rolls it at render on ConfigMap app-config-" in warning.detail  # the long form, under -v
    assert 'secret.reloader.stakater.com/reload: "db-creds-' in warning.detail
    assert "the precise reload annotations krmfn -v prints" in warning.message and len(warning.message) <= 200
    written = go(OBJECTS + workload(annotations='reloader.stakater.com/auto: "true"'), "rotation: reloader\n")
    [again] = [r for r in written.results if "reloader.stakater.com/auto" in r.message]
    assert "krmfn wrote the precise reload annotations: remove it" in again.message


def test_rotation_reloader_and_honor_reloader_together_are_refused():
    out = run(resource_list(OBJECTS + workload(), CONFIG + "rotation: reloader\nhonor: [reloader]\n"))
    assert exit_code(out) == 1 and "choose one" in out.results[0].message


def test_the_plan_says_what_rolls_each_workload(tmp_path):
    config = CONFIG + "rotation: reloader\n"
    before = run(resource_list(OBJECTS + workload(), config)).text
    after = run(resource_list(OBJECTS.replace("LOG_LEVEL: info", "LOG_LEVEL: debug") + workload(), config)).text
    (tmp_path / "old.yaml").write_text(before)
    (tmp_path / "new.yaml").write_text(after)
    done = subprocess.run([sys.executable, "-m", "krmfn", "plan", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if "rolls at render on" in x)
    assert "rolls at render on: ConfigMap app-config, Secret db" in line
    assert "rolls at rotation via Reloader on: ConfigMap other-team, Secret db-creds-" in line and "Secret tls" in line
    as_json = subprocess.run([sys.executable, "-m", "krmfn", "plan", "-o", "json", str(tmp_path / "old.yaml"),
                              str(tmp_path / "new.yaml")], capture_output=True, text=True, cwd=REPO, check=False)
    [roll] = yaml.safe_load(as_json.stdout)["workloads"]
    assert roll["rollsAtRender"] == ["ConfigMap app-config", "Secret db"] and "Secret tls" in roll["rollsAtRotation"]
