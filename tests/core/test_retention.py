"""Retention annotations and the family label, through the whole function (docs/gc.md lists them).

Each target must add exactly the annotations its tool honours, merge with what the user
wrote, stay deterministic and idempotent, and every hashed ConfigMap must carry a valid
``krmfn.dev/family`` label, even for a 253-character name.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import pytest
import yaml
from conftest import exit_code

from krmfn.core.naming.retention import FAMILY, ORIGINAL_NAME, RETENTION, family_label, merge_annotation
from krmfn.core.run.function import run_resource_list

# Kubernetes' label value syntax (k8s.io/apimachinery validation.IsValidLabelValue).
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
ALL_RETENTION_KEYS = {k for annotations in RETENTION.values() for k in annotations}

ITEMS = """
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    annotations:
{annotations}
  data:
    log-level: {data}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: api}}
  spec:
    template:
      spec:
        containers:
        - name: api
          image: api:1
          envFrom: [{{configMapRef: {{name: {name}}}}}]
"""


def items(name: str = "api-config", data: str = "info", **annotations: str) -> str:
    """A hashed-to-be ConfigMap (block-style annotations) and a Deployment that uses it."""
    annotations = {"krmfn.dev/content-hash": "true", **annotations}
    block = textwrap.indent(yaml.safe_dump(annotations, default_flow_style=False, sort_keys=False), " " * 6)
    return ITEMS.format(name=name, data=data, annotations=block.rstrip("\n"))


def resource_list(items_text: str, function_config: str | None) -> str:
    out = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + textwrap.dedent(items_text).strip("\n") + "\n"
    if function_config:
        out += "functionConfig:\n" + textwrap.indent(function_config.strip("\n"), "  ") + "\n"
    return out


@dataclass(frozen=True)
class Run:
    stdout: str
    exit_code: int
    results: list


def run(text: str) -> Run:
    outcome = run_resource_list(text.encode())
    out = outcome.stdout  # str or bytes, whichever the envelope gives
    return Run(out if isinstance(out, str) else bytes(out).decode(), exit_code(outcome), outcome.results)


def typed(*targets: str) -> str:
    return ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: content-hash}\n"
            f"retention: [{', '.join(targets)}]\n")


def hashed_configmap(stdout: str) -> dict:
    [cm] = [i for i in yaml.safe_load(stdout)["items"] if i["kind"] == "ConfigMap"]
    return cm


def transform(items_text: str, function_config: str | None) -> tuple[str, dict]:
    outcome = run(resource_list(items_text, function_config))
    assert exit_code(outcome) == 0, outcome.results
    return outcome.stdout, hashed_configmap(outcome.stdout)


@pytest.mark.parametrize("target,expected", [
    ("helm", {"helm.sh/resource-policy": "keep"}),
    ("flux", {"kustomize.toolkit.fluxcd.io/prune": "disabled"}),
    ("argocd", {"argocd.argoproj.io/sync-options": "Prune=false",
                "argocd.argoproj.io/compare-options": "IgnoreExtraneous"}),
    ("kpt", {"client.lifecycle.config.k8s.io/deletion": "detach"}),
    ("configsync", {"client.lifecycle.config.k8s.io/deletion": "detach"}),
])
def test_each_target_adds_exactly_the_annotations_its_tool_honours(target, expected):
    _, cm = transform(items(), typed(target))
    annotations = cm["metadata"]["annotations"]
    assert {k: v for k, v in annotations.items() if k in ALL_RETENTION_KEYS} == expected
    assert annotations[ORIGINAL_NAME] == "api-config"
    assert cm["metadata"]["labels"] == {FAMILY: "api-config"}
    assert cm["immutable"] is True


def test_no_retention_by_default():
    _, cm = transform(items(), None)
    assert not set(cm["metadata"]["annotations"]) & ALL_RETENTION_KEYS
    assert cm["metadata"]["labels"] == {FAMILY: "api-config"}


def test_all_targets_together_and_the_configmap_form_agree():
    _, from_typed = transform(items(), typed("helm", "flux", "argocd", "kpt", "configsync"))
    _, from_plain = transform(items(), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn-config}\n"
                                       "data:\n  retention: helm,flux,argocd,kpt,configsync\n")
    assert from_typed["metadata"] == from_plain["metadata"]
    annotations = from_typed["metadata"]["annotations"]
    for expected in RETENTION.values():
        assert expected.items() <= annotations.items()


def test_argo_sync_options_are_merged_into_the_users_list():
    _, cm = transform(items(**{"argocd.argoproj.io/sync-options": "ServerSideApply=true"}), typed("argocd"))
    annotations = cm["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/sync-options"] == "ServerSideApply=true,Prune=false"
    assert annotations["argocd.argoproj.io/compare-options"] == "IgnoreExtraneous"


def test_argo_sync_options_merge_in_a_flow_style_annotations_map():
    text = items().replace("      krmfn.dev/content-hash: 'true'",
                           "      {krmfn.dev/content-hash: 'true', argocd.argoproj.io/sync-options: ServerSideApply=true}")
    text = text.replace("    annotations:\n      {", "    annotations: {")
    _, cm = transform(text, typed("argocd"))
    assert cm["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "ServerSideApply=true,Prune=false"


def test_a_value_the_user_chose_is_not_overwritten():
    _, cm = transform(items(**{"argocd.argoproj.io/sync-options": "Prune=confirm",
                               "helm.sh/resource-policy": "keep"}), typed("argocd", "helm"))
    annotations = cm["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/sync-options"] == "Prune=confirm"
    assert annotations["helm.sh/resource-policy"] == "keep"


def test_merge_annotation_keeps_the_users_text_when_nothing_is_missing():
    key = "argocd.argoproj.io/sync-options"
    assert merge_annotation(key, "ServerSideApply=true, Prune=false", "Prune=false") == "ServerSideApply=true, Prune=false"
    assert merge_annotation(key, "A=1, B=2", "Prune=false") == "A=1,B=2,Prune=false"
    assert merge_annotation(key, "", "Prune=false") == "Prune=false"
    assert merge_annotation("helm.sh/resource-policy", "keep", "keep") == "keep"


def test_output_is_deterministic_and_has_no_timestamps():
    text = resource_list(items(), typed("helm", "flux", "argocd", "kpt"))
    first, second = run(text), run(text)
    assert first.stdout == second.stdout
    assert not re.search(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", first.stdout)


@pytest.mark.parametrize("targets", [("argocd",), ("helm", "flux", "argocd", "kpt", "configsync")])
def test_running_on_its_own_output_changes_nothing(targets):
    existing = {"argocd.argoproj.io/sync-options": "ServerSideApply=true"}
    once = run(resource_list(items(**existing), typed(*targets)))
    twice = run(once.stdout)
    assert exit_code(twice) == 0
    assert twice.stdout == once.stdout


def long_name(n: int, stem: str = "settings") -> str:
    """A valid DNS-subdomain name of exactly ``n`` characters."""
    body = (stem + ".tenant-a.") * 40
    return body[: n - 1].rstrip(".-").ljust(n - 1, "x") + "z"


@pytest.mark.parametrize("length", [63, 64, 100, 242])
def test_long_names_give_valid_stable_family_labels(length):
    name = long_name(length)
    assert len(name) == length
    stdout1, v1 = transform(items(name=name, data="info"), typed("flux"))
    _, v2 = transform(items(name=name, data="debug"), typed("flux"))
    assert v1["metadata"]["name"] != v2["metadata"]["name"]
    assert len(v1["metadata"]["name"]) == length + 11 <= 253
    label = v1["metadata"]["labels"][FAMILY]
    assert len(label) <= 63 and LABEL_VALUE.match(label), label
    assert label == v2["metadata"]["labels"][FAMILY]  # one family across versions: gc groups by it
    assert label == (name if length <= 63 else family_label(name))
    assert v1["metadata"]["annotations"][ORIGINAL_NAME] == name  # the full name, for re-runs
    assert run(stdout1).stdout == stdout1


def test_a_253_character_hashed_name_is_accepted_and_labelled():
    name = long_name(242)
    stdout, cm = transform(items(name=name), None)
    assert len(cm["metadata"]["name"]) == 253
    assert LABEL_VALUE.match(cm["metadata"]["labels"][FAMILY])


def test_long_names_sharing_a_prefix_are_different_families():
    a, b = long_name(200, "alpha"), long_name(200, "alpha")[:-1] + "y"
    assert a != b and a[:63] == b[:63]
    assert family_label(a) != family_label(b)
    assert all(len(family_label(n)) <= 63 and LABEL_VALUE.match(family_label(n)) for n in (a, b))


@pytest.mark.parametrize("name", ["a", "a" * 63, "a" * 64, "a." * 126 + "b", "x-" * 126 + "y", "9" * 253])
def test_family_label_is_always_a_valid_label_value(name):
    label = family_label(name)
    assert 0 < len(label) <= 63 and LABEL_VALUE.match(label)
