"""Results written as block YAML read back as the results, whatever their text; the one loader of small files."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from krmfn.krm.data import DocumentCount, DuplicateKey, load_one, results_json, results_yaml
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
    # a JSON envelope's entry, read as the JSON (and YAML) it is part of
    assert json.loads("{" + results_json(results) + "}") == {"results": expected}
    for loader in (yaml.SafeLoader, yaml.CSafeLoader):
        assert yaml.load("{" + results_json(results) + "}", Loader=loader) == {"results": expected}


def test_the_layout_kpt_shows() -> None:
    result = Result("rolls out", "info", ResourceRef("apps/v1", "Deployment", "api", "demo"), "spec.strategy.type")
    assert results_yaml([result, Result("x: y", "error")]) == (
        "results:\n"
        "  - message: \"rolls out\"\n    severity: info\n"
        "    resourceRef:\n      apiVersion: apps/v1\n      kind: Deployment\n      name: api\n      namespace: demo\n"
        "    field:\n      path: spec.strategy.type\n"
        '  - message: "x: y"\n    severity: error\n')


def test_one_loader_reads_the_one_document_of_a_small_file():
    """The config file, a field-spec value and gc's YAML live state are read by one loader; each
    caller words its own error."""
    assert load_one(b"a: 1\n") == {"a": "1"} and load_one(b"a: 1\n", typed=True) == {"a": 1}
    assert load_one(b"", empty=True) is None
    for text in (b"", b"a: 1\n---\nb: 2\n"):
        with pytest.raises(DocumentCount):
            load_one(text)
    with pytest.raises(DuplicateKey):
        load_one(b"a: 1\na: 2\n", typed=True)
