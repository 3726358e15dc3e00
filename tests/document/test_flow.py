"""krmfn.document.flow: where a flow collection's entries start and end, JSON or flow YAML.

Why: a JSON or flow-style ResourceList is cut into its items' own texts with this tokenizer
(document.flowsplit checks every cut against a parse of the whole, and cuts again carefully
where the fast JSON cut was wrong); these pin the tokenizer's own reading.
"""

from __future__ import annotations

import pytest

from krmfn.document.flow import FlowError, collection, pad_lines, skip_collection, skip_json


def entries(text: bytes, fast: bool = False) -> list[tuple[bytes, bytes]]:
    found, end = collection(text, 0, fast)
    assert end == len(text.rstrip())
    return [(e.key(text), e.value(text)) for e in found]


@pytest.mark.parametrize(("text", "want"), [
    (b'{"a": 1, "b": [1,2,{"c":"d,]"}], "e": {}}', [(b'"a"', b"1"), (b'"b"', b'[1,2,{"c":"d,]"}]'), (b'"e"', b"{}")]),
    (b"{a: b c, d: 'it''s', e: x:y, f: http://x/#y, g: [a #c\n , b]}",
     [(b"a", b"b c"), (b"d", b"'it''s'"), (b"e", b"x:y"), (b"f", b"http://x/#y"), (b"g", b"[a #c\n , b]")]),
    (b"{ ? a : b, &x c: *x, !!str d: , e }", [(b"? a", b"b"), (b"&x c", b"*x"), (b"!!str d", b""), (b"e", b"")]),
    (b"[it's, 'q', {k: it's [x]}]", [(b"it's", b""), (b"'q'", b""), (b"{k: it's [x]}", b"")]),
])
def test_entries_of_flow_yaml(text: bytes, want: list) -> None:
    assert entries(text) == want


def test_the_fast_json_cut_agrees_on_json_and_may_differ_on_flow_yaml() -> None:
    json_text = b'[{"a": "]", "b": ["x\\"]"]}, {"c": {}}]'
    assert entries(json_text, fast=True) == entries(json_text)
    assert skip_json(json_text, 0) == skip_collection(json_text, 0) == len(json_text)
    flow_yaml = b"[{k: 'a]'}, {k: it's, # a ]\n  x: y}]"  # single quotes and comments are no JSON
    assert skip_collection(flow_yaml, 0) == len(flow_yaml)
    with pytest.raises(FlowError):
        skip_json(flow_yaml, 0)


def test_nesting_thousands_deep_needs_no_recursion() -> None:
    deep = b"{a: " + b"[" * 5000 + b"]" * 5000 + b", b: 1}"
    assert [k for k, _ in entries(deep)] == [b"a", b"b"]


@pytest.mark.parametrize(("text", "where"), [
    (b"{a: b", "expected ','"), (b"[a, ,b]", "empty entry"), (b"[a, - b]", "cannot start a node"),
    (b"[{a: 1]]", "should close"), (b'["a]', "not closed"),
])
def test_what_is_not_a_flow_collection_is_refused_saying_where(text: bytes, where: str) -> None:
    with pytest.raises(FlowError, match=where):
        collection(text, 0)


def test_pad_lines_indents_only_what_is_left_of_the_column() -> None:
    assert pad_lines(b'{"a":\n"b",\n   "c"\n\n}', 2) == b'{"a":\n  "b",\n   "c"\n\n  }'
