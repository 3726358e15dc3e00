"""suffixJobs: a Job naming hashed ConfigMaps gets a suffix from their names; CronJobs do not."""

from __future__ import annotations

import pytest
from conftest import exit_code, items_by_name, resource_list, run

from krmfn.core.naming import hashing, jobs

ON_TYPED = "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: h}\nsuffixJobs: true"
ON_KPT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: {suffixJobs: 'true'}"


def cm(name: str = "app", value: str = "one") -> str:
    return f"""\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    annotations: {{krmfn.dev/content-hash: "true"}}
  data: {{key: {value}}}
"""


def hashed(name: str = "app", value: str = "one") -> str:
    return f"{name}-{hashing.suffix('kustomize', {'key': value}, None)}"


def job(name: str = "migrate", refs: tuple[str, ...] = ("app",), kind: str = "Job") -> str:
    env = "".join(f"\n          - configMapRef: {{name: {r}}}" for r in refs)
    pod = f"""      spec:
        restartPolicy: Never
        containers:
        - name: m
          image: busybox  # a comment the splice keeps
          envFrom:{env or " []"}
"""
    if kind == "CronJob":
        body = "  spec:\n    schedule: '@daily'\n    jobTemplate:\n      spec:\n        template:\n" + \
            "".join("    " + line + "\n" for line in pod.splitlines())
    else:
        body = "  spec:\n    template:\n" + pod
    return f"- apiVersion: batch/v1\n  kind: {kind}\n  metadata:\n    name: {name}\n" + body


def names(out, kind: str = "Job") -> list[str]:
    return [n for k, n in items_by_name(out) if k == kind]


@pytest.mark.parametrize("config", [ON_TYPED, ON_KPT])
def test_a_job_naming_a_hashed_configmap_gets_a_suffix_from_it(config):
    out = run(resource_list(cm() + job(), config))
    assert exit_code(out) == 0, out.results
    assert names(out) == [f"migrate-{jobs.job_suffix([hashed()])}"]
    [info] = [r for r in out.results if r.resource.kind == "Job"]
    assert info.severity == "info" and info.resource.name == names(out)[0]
    assert "Job migrate is now" in info.message and "suffixJobs" in info.message
    assert "  # a comment the splice keeps" in out.text  # the Job's text is spliced, not re-emitted


def test_off_by_default():
    out = run(resource_list(cm() + job()))
    assert names(out) == ["migrate"]


def test_idempotent_and_a_data_change_replaces_the_suffix():
    first = run(resource_list(cm() + job(), ON_TYPED))
    assert run(first.text).text == first.text
    second = run(first.text.replace("key: one", "key: two"))
    assert names(second) == [f"migrate-{jobs.job_suffix([hashed(value='two')])}"]
    assert names(second) != names(first)
    assert run(second.text).text == second.text


def test_the_suffix_covers_every_hashed_configmap_and_ignores_others():
    out = run(resource_list(cm("a") + cm("b") + job(refs=("b", "a", "not-in-input")), ON_TYPED))
    assert names(out) == [f"migrate-{jobs.job_suffix([hashed('a'), hashed('b')])}"]


def test_cronjobs_and_jobs_without_hashed_configmaps_keep_their_names():
    out = run(resource_list(cm() + job("nightly", kind="CronJob") + job("plain", refs=("elsewhere",)), ON_TYPED))
    assert names(out, "CronJob") == ["nightly"] and names(out) == ["plain"]
    assert not [r for r in out.results if "is now" in r.message and r.resource.kind != "ConfigMap"]


def test_the_configmap_result_names_the_job_by_its_new_name():
    out = run(resource_list(cm() + job(), ON_TYPED))
    [info] = [r for r in out.results if r.resource.kind == "ConfigMap"]
    assert f"Job/{names(out)[0]}" in info.message


def test_a_quoted_name_is_renamed_too():
    out = run(resource_list(cm() + job().replace("name: migrate", 'name: "migrate"'), ON_TYPED))
    assert names(out) == [f"migrate-{jobs.job_suffix([hashed()])}"]


def test_a_name_too_long_for_a_job_is_an_error():
    out = run(resource_list(cm() + job("m" * 53), ON_TYPED))
    assert exit_code(out) == 1
    [err] = out.results
    assert "63" in err.message and err.field_path == "metadata.name" and err.resource.kind == "Job"
    assert exit_code(run(resource_list(cm() + job("m" * 52), ON_TYPED))) == 0


def test_a_job_of_another_group_is_not_a_batch_job():
    other = job().replace("apiVersion: batch/v1", "apiVersion: example.com/v1")
    out = run(resource_list(cm() + other, ON_TYPED))
    assert names(out) == ["migrate"]


def test_base_name_strips_only_a_suffix_of_its_own_form():
    assert jobs.base_name("migrate-ft8bt42t8g") == "migrate"
    assert jobs.base_name("migrate-v2") == "migrate-v2"
    assert jobs.base_name("db-migrate") == "db-migrate"
