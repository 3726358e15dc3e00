"""The function's configuration: typed and ConfigMap forms, and clear errors."""

from __future__ import annotations

import pytest
from conftest import exit_code, resource_list, run

from krmfn.core.config import Config
from krmfn.core.selection.selector import LabelSelector, Requirement
from krmfn.results import Where


def config_of(fc: str):
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n"
    return run(text + "".join(f"  {line}\n" for line in fc.splitlines()))


def test_no_function_config_means_annotated_only_kustomize_hash():
    assert Config().select == "annotated" and Config().algorithm == "kustomize"


@pytest.mark.parametrize("fc,fragment", [
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {selct: all}", "unknown field 'selct'"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {select: some}", "'select' must be one of annotated, all"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {algorithm: md5}", "'algorithm' must be one of kustomize, sha256"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {retention: 'helm,kapp'}", "unknown target 'kapp'"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {selector: 'a in b'}", "not a label selector kubectl would read"),
    ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: c}\nhashAll: true", "unknown field 'hashAll'"),
    ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: c}\nsuffixJobs: maybe", "must be true or false"),
    ("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: c}\nselector: {matchExpressions: [{key: a, operator: Near}]}", "operator"),
    ("apiVersion: example.com/v1\nkind: Other\nmetadata: {name: c}", "krmfn takes kind ContentHash"),
])
def test_bad_config_is_an_error_that_names_it(fc, fragment):
    out = config_of(fc)
    assert exit_code(out) == 1
    assert fragment in out.results[0].message, out.results[0].message
    assert out.results[0].severity == "error"


def test_typed_and_configmap_forms_build_the_same_config():
    items = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {tier: web}}, data: {k: v}}\n"
    typed = run(resource_list(items, """\
apiVersion: fn.krmfn.dev/v1alpha1
kind: ContentHash
metadata: {name: c}
selector: {matchExpressions: [{key: tier, operator: In, values: [web, api]}]}
retention: [flux, argocd]
"""))
    plain = run(resource_list(items, """\
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {selector: 'tier in (web,api)', retention: 'flux,argocd'}
"""))
    assert exit_code(typed) == exit_code(plain) == 0
    assert typed.text.split("functionConfig")[0] == plain.text.split("functionConfig")[0]


@pytest.mark.parametrize("text,labels,expected", [
    ("app=web", {"app": "web"}, True),
    ("app==web", {"app": "api"}, False),
    ("app!=web", {}, True),
    ("tier in (a, b),!legacy", {"tier": "b"}, True),
    ("tier in (a, b),!legacy", {"tier": "b", "legacy": ""}, False),
    ("tier notin (a)", {"tier": "a"}, False),
    ("hashed", {"hashed": "x"}, True),
])
def test_label_selector_strings(text, labels, expected):
    assert LabelSelector.parse(text, Where("selector")).matches(labels) is expected


def test_empty_selector_selects_nothing():
    assert not LabelSelector().matches({"a": "b"})
    assert LabelSelector((Requirement("a", "Exists"),)).matches({"a": ""})


TYPED = "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: c}\n"


@pytest.mark.parametrize("fields,field,fragment", [
    ("select: all\nselect: annotated", "select", 'the key "select" twice'),
    ("selector:\n  matchLabels: {tier: web}\n  matchLabels: {tier: api}", "selector", 'the key "matchLabels" twice in selector'),
    ("selector: {matchLabels: {tier: [web]}}", "selector", "matchLabels.tier must be one label value (a string), not a list"),
    ("selector: {matchExpressions: [{key: tier, operator: In}]}", "selector", "uses In, which needs values"),
    ("selector: {matchExpressions: [{key: tier, operator: Exists, values: [a]}]}", "selector", "takes no values"),
    ("selector: {matchExpressions: [tier]}", "selector", "matchExpressions[0] must be a map"),
    ("selector: {matchExpressions: [{key: tier, operator: In, values: [a], extra: 1}]}", "selector", 'unknown field "extra"'),
    ("names: [1, 2]", "names", "entry 0 is the number 1 (quote it)"),
    ("names: {a: b}", "names", "not a map"),
    ("defaultNamespace: 5", "defaultNamespace", "not the number 5"),
    ("suffixJobs: 3", "suffixJobs", "must be true or false, not the number 3"),
    ("kinds: []", "kinds", "names no kind"),
    ("select: [all]", "select", "not a list"),
    ("fieldSpecs: [{kind: Foo, path: " + "/".join(["a"] * 500) + "}]", "fieldSpecs", "500 segments, over the limit of 64"),
    ("names: [" + ",".join(f"n{i}" for i in range(10_001)) + "]", "names", "10,001 entries, over the limit of 10,000"),
])
def test_the_function_config_is_read_as_strictly_as_kubectl_decodes(fields, field, fragment):
    """Duplicate keys, unknown fields, wrong types and empty required lists: an error naming the
    field and what it takes, in plain words (no Python reprs), and one sentence for every limit."""
    out = config_of(TYPED + fields)
    assert exit_code(out) == 1, out.results
    [error] = [r for r in out.results if r.severity == "error"]
    assert fragment in error.message, error.message
    assert error.field_path.startswith(field) or field in error.message
    assert "{'" not in error.message and "['" not in error.message and "\n" not in error.message
    assert len(error.message) < 400  # one sentence, whatever the input's size
