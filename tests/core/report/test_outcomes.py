"""core.report.outcomes on its own: what one referrer gets (the pod-template hash under the
stable-name strategy, and its rollout result), what an object that keeps its name says, and the
refusal to give a name back that another object of the input holds."""

from __future__ import annotations

import pytest
from units import scanned

from krmfn.core.references.lookup import Index
from krmfn.core.report.outcomes import check_names_back, kept, settle
from krmfn.results import ReferenceProblem
from krmfn.yaml.textedit import splice

STABLE = """
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
    annotations: {krmfn.dev/content-hash: "true", krmfn.dev/strategy: annotation}
  data: {a: "1"}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom:
          - configMapRef: {name: app-config}
"""


def test_a_referrer_of_a_stable_name_gets_the_hash_in_its_pod_template_and_a_rollout_result():
    _, config, s = scanned(STABLE)
    (h,) = s.hashed
    settled = settle(s.resources[1], {0: h}, [], s.rollouts.get(1), config, Index.of(s, config.algorithm))
    assert settled.annotation is not None and settled.annotation.path[-1] == "metadata"
    new = splice(s.resources[1].source, settled.annotation.edits)
    assert f"krmfn.dev/config-hash: {settled.annotation.value}".encode() in new
    assert settled.fate is not None and settled.fate.message.startswith(
        "rolls out when ConfigMap app-config changes (its pod template's krmfn.dev/config-hash covers app-config)")
    assert settled.results == [] and settled.rename is None


def test_a_referrer_with_no_pod_template_says_nothing_rolls_it():
    items = STABLE.replace("kind: Deployment", "kind: ConfigMapUser").replace("apps/v1", "example.com/v1")
    _, config, s = scanned(items)
    settled = settle(s.resources[1], {0: s.hashed[0]}, [], None, config, Index.of(s, config.algorithm))
    assert settled.annotation is None and settled.fate is None
    (result,) = settled.results
    assert "has no pod template to carry krmfn.dev/config-hash" in result.message


def test_an_object_that_keeps_its_name_says_so():
    _, _, s = scanned(STABLE)
    result = kept(s.hashed[0], None)
    assert result.severity == "info" and result.message.startswith(
        "ConfigMap app-config keeps its name (strategy: annotation)")


def test_a_name_given_back_that_another_object_holds_is_refused():
    _, config, s = scanned("""
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config-h29d89cmmt
        annotations: {krmfn.dev/content-hash: "false", krmfn.dev/original-name: app-config}
      data: {a: "1"}
      immutable: true
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: app-config}
      data: {a: "2"}
    """)
    with pytest.raises(ReferenceProblem, match="ConfigMap app-config-h29d89cmmt would get its original name back, "
                                               "app-config, but ConfigMap/app-config is in the input too"):
        check_names_back(s.hashed, Index.of(s, config.algorithm))
