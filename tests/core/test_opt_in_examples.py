"""The opt-in examples (examples/opt-in/*): golden outputs, re-runs, and what each one shows."""

from __future__ import annotations

import pytest
import yaml
from tooling import REPO, check_golden, golden_examples

EXAMPLES = REPO / "examples" / "opt-in"
NAMES = golden_examples(EXAMPLES)


@pytest.mark.parametrize("name", NAMES)
def test_golden_output_and_idempotence(name):
    check_golden(EXAMPLES / name)


def load(name: str) -> tuple[dict[str, dict], list[dict]]:
    out = yaml.safe_load((EXAMPLES / name / "expected-output.yaml").read_text())
    items = {f"{i['kind']}/{i['metadata'].get('annotations', {}).get('krmfn.dev/original-name', i['metadata']['name'])}": i
             for i in out["items"]}
    return items, out.get("results", [])


def test_secrets_through_env_and_volume():
    items, results = load("secrets")
    creds, tls = items["Secret/db-credentials"], items["Secret/tls"]
    assert creds["immutable"] and tls["immutable"]
    pod = items["Deployment/api"]["spec"]["template"]["spec"]
    assert {e["valueFrom"]["secretKeyRef"]["name"] for e in pod["containers"][0]["env"]} == {creds["metadata"]["name"]}
    assert pod["volumes"][0]["secret"]["secretName"] == tls["metadata"]["name"]
    for value in ("change-me", "svc-reporting"):  # the Secret's values are in the Secret, not in a result
        assert not any(value in r["message"] for r in results)


def test_a_workload_opts_in_what_it_names_and_nothing_else():
    items, results = load("workload")
    assert items["ConfigMap/api-config"]["metadata"]["name"].startswith("api-config-")
    assert items["Secret/api-token"]["metadata"]["name"].startswith("api-token-")
    assert items["ConfigMap/unrelated"]["metadata"]["name"] == "unrelated"
    opted = [r for r in results if r["message"].startswith("opted in by Deployment/api")]
    assert {r["resourceRef"]["kind"] for r in opted} == {"ConfigMap", "Secret"}


def test_the_kyverno_autoreload_deployment():
    items, results = load("kyverno-autoreload")
    config = items["ConfigMap/pint-config"]["metadata"]["name"]
    assert config.startswith("pint-config-")
    assert items["Deployment/pint"]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] == config
    assert any("autoreloader.thaum.xyz/configmap: pint-config" in r["message"] for r in results)
