"""core.selection.optin and core.selection.filled on their own: what an object's annotation or
the function config decides, what marks a workload carries, and which Secrets a controller fills."""

from __future__ import annotations

import pytest

from krmfn.core.config import Config
from krmfn.core.references.kinds import CONFIGMAP
from krmfn.core.selection.filled import explicit, filled_by, left_alone
from krmfn.core.selection.optin import may_mark, misplaced, own_choice, read_marks, skips, valid_name
from krmfn.krm.resource import read_resource
from krmfn.results import InputError


def item(text: str):
    return read_resource(text.encode(), 0)


def config_map(annotations: str = "{}", labels: str = "{}", name: str = "app-config"):
    return item(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n"
                f"    annotations: {annotations}\n    labels: {labels}\n  data: {{a: b}}\n")


def workload(annotations: str):
    return item(f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    annotations:\n"
                f"{annotations}  spec: {{}}\n")


@pytest.mark.parametrize(("annotations", "config", "choice"), [
    ('{krmfn.dev/content-hash: "true"}', Config(), True),
    ('{krmfn.dev/content-hash: "false"}', Config(select="all"), False),  # the object's own word wins
    ("{}", Config(), None),  # only a workload's mark can still opt it in
    ("{}", Config(names=frozenset({"app-config"})), True),
    ("{}", Config(select="all"), True),
    ("{}", Config(select="all", kinds=frozenset({"Secret"})), None),
])
def test_the_object_or_the_config_decides(annotations, config, choice):
    assert own_choice(config_map(annotations), CONFIGMAP, "app-config", config) is choice


def test_an_opt_in_that_is_neither_true_nor_false_is_an_error_naming_the_annotation():
    with pytest.raises(InputError, match=r"annotation krmfn.dev/content-hash is 'yes'; use \"true\" or \"false\""):
        own_choice(config_map("{krmfn.dev/content-hash: 'yes'}"), CONFIGMAP, "app-config", Config())


def test_a_workloads_marks_are_read_for_the_tools_it_honours():
    res = workload('      krmfn.dev/content-hash: "true"\n      configmap.reloader.stakater.com/reload: "a, b"\n')
    assert [m.describe() for m in read_marks(res, Config())] == ["krmfn.dev/content-hash"]
    marks = read_marks(res, Config(honor=frozenset({"reloader"})))
    assert [m.describe() for m in marks] == ["krmfn.dev/content-hash", "configmap.reloader.stakater.com/reload: a",
                                             "configmap.reloader.stakater.com/reload: b"]


def test_a_reloader_list_that_names_an_object_twice_is_an_error():
    res = workload('      configmap.reloader.stakater.com/reload: "a,a"\n')
    with pytest.raises(InputError, match="names a twice"):
        read_marks(res, Config(honor=frozenset({"reloader"})))


def test_a_search_mark_skips_an_object_without_the_match_annotation():
    res = workload('      reloader.stakater.com/search: "true"\n')
    (mark,) = read_marks(res, Config(honor=frozenset({"reloader"})))
    assert skips(mark, config_map()) == 'it lacks reloader.stakater.com/match: "true"'
    assert skips(mark, config_map('{reloader.stakater.com/match: "true"}')) is None


def test_marks_in_the_pod_template_and_byte_searches():
    assert misplaced({"krmfn.dev/content-hash": "true", "other": "x"}, Config()) == ["krmfn.dev/content-hash"]
    assert may_mark(b"krmfn.dev/content-hash", Config()) and not may_mark(b"reloader.stakater.com/auto", Config())
    assert valid_name("app-config.v2") and not valid_name("App") and not valid_name("a" * 254)


@pytest.mark.parametrize(("secret", "filled"), [
    ("  type: kubernetes.io/service-account-token\n", True),
    ("  metadata:\n    name: s\n    annotations: {cert-manager.io/certificate-name: c}\n", True),
    ("  type: kubernetes.io/tls\n", True),  # no data: typed, so a controller fills it
    ("  type: Opaque\n", False),  # no data, but no rotation is assumed
    ("  data: {a: YQ==}\n", None),
])
def test_a_secret_a_controller_fills_says_why(secret, filled):
    text = "- apiVersion: v1\n  kind: Secret\n" + ("" if "metadata" in secret else "  metadata: {name: s}\n") + secret
    found = filled_by(item(text))
    assert (found[1] if found is not None else None) is filled


def test_how_an_object_was_named_one_by_one():
    assert explicit(config_map('{krmfn.dev/content-hash: "true"}'), "app-config", Config()) == \
        'its own annotation krmfn.dev/content-hash: "true"'
    assert explicit(config_map(), "app-config", Config(names=frozenset({"app-config"}))) == "function config field 'names'"
    assert explicit(config_map(), "app-config", Config()) is None
    assert left_alone(config_map(), "why").message == "left alone: why; a renamed or immutable copy would be one it never writes"
