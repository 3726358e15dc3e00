"""Results written as block YAML read back as the results, whatever their text."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from krmfn.krm.data import results_yaml
from krmfn.results import ResourceRef, Result

# Text as results carry it: names, paths and messages, with the characters YAML treats specially.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    ["true", "no", "1.5", "~", "", "a: b", "- x", "#c", "'q'", '"d"', "x\ny", "null", "0x1f", "2024-01-01"])
REFS = st.builds(ResourceRef, TEXT, TEXT, TEXT, TEXT)
RESULTS = st.builds(Result, TEXT, st.sampled_from(["error", "warning", "info"]), st.none() | REFS,
                    st.none() | TEXT, st.none() | TEXT, st.none() | TEXT)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(RESULTS, min_size=1, max_size=4))
@example([Result("A\n", "info")])  # once written plain ("$" matched before the line break): read back "A"
def test_results_read_back_as_themselves(results: list[Result]) -> None:
    expected = [r.to_data() for r in results]
    assert yaml.safe_load(results_yaml(results)) == {"results": expected}


def test_the_layout_kpt_shows() -> None:
    result = Result("rolls out", "info", ResourceRef("apps/v1", "Deployment", "api", "demo"), "spec.strategy.type")
    assert results_yaml([result, Result("x: y", "error")]) == (
        "results:\n"
        "  - message: \"rolls out\"\n    severity: info\n"
        "    resourceRef:\n      apiVersion: apps/v1\n      kind: Deployment\n      name: api\n      namespace: demo\n"
        "    field:\n      path: spec.strategy.type\n"
        '  - message: "x: y"\n    severity: error\n')
