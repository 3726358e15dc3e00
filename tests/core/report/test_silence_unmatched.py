"""core.report.silence and core.report.unmatched on their own: a warning an object's annotation
silences becomes an info saying so, and a rule that reaches nothing says where it probably meant."""

from __future__ import annotations

from units import scanned

from krmfn.core.report.silence import silenced
from krmfn.core.report.unmatched import quiet_rules
from krmfn.krm.resource import read_resource
from krmfn.results import NOTHING_RENAMED, Result

DEPLOYMENT = b"""- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      krmfn.dev/ignore-warnings: "rollout, namespace"
  spec: {}
"""


def test_a_warning_of_a_class_the_object_ignores_becomes_an_info():
    res = read_resource(DEPLOYMENT, 0)
    warnings = [Result("does not roll", "warning", res.ref, topic="rollout"),
                Result("an old name", "warning", res.ref, topic="leftover-name"),
                Result("an error", "error", res.ref, topic="rollout")]
    out = silenced(warnings, [res])
    assert [(r.severity, r.message) for r in out] == [
        ("info", "does not roll (silenced: krmfn.dev/ignore-warnings)"),
        ("warning", "an old name"),
        ("error", "an error"),  # errors are never silenced
    ]


def test_without_the_annotation_the_results_are_the_same_list():
    res = read_resource(DEPLOYMENT.replace(b"ignore-warnings", b"other"), 0)
    results = [Result("does not roll", "warning", res.ref, topic="rollout")]
    assert silenced(results, [res]) is results


CONFIG_MAP = """
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app-config}
  data: {a: b}
- apiVersion: v1
  kind: Secret
  metadata: {name: app-secret}
  data: {a: Yg==}
"""


def messages(function_config: str | None) -> list[str]:
    _, config, s = scanned(CONFIG_MAP, function_config)
    return [r.message for r in quiet_rules(s, config)]


def test_a_run_that_renames_nothing_says_what_the_input_holds_and_how_to_opt_in():
    _, config, s = scanned(CONFIG_MAP)
    (result,) = quiet_rules(s, config)
    assert result.topic == NOTHING_RENAMED
    assert result.message.startswith("nothing renamed: none of the input's 1 ConfigMap and 1 Secret opts in. ")


def test_a_misspelt_name_gets_the_close_one():
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {names: app-confg}"
    assert messages(config)[0] == "function config field 'names' app-confg matches no ConfigMap in the input; did you mean app-config?"


def test_a_name_of_a_kind_left_out_says_which_kind_holds_it():
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {names: app-secret}"
    assert messages(config)[0] == ("function config field 'names' app-secret matches no ConfigMap in the input "
                                   "(Secret app-secret has that name, but function config field 'kinds' leaves "
                                   "Secrets out)")
