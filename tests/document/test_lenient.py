"""A flow collection closed at its key's indentation: read as PyYAML, kubectl and kustomize read it.

Why: ``args: [`` ... ``]`` with the bracket under the key (an Argo Workflows example, an istio
sample) made rapidyaml refuse the whole render. Only such closing lines are mended, and only
where the bracket really closes what the key's line opened.
"""

from __future__ import annotations

import pytest
import yaml

from krmfn.document.compare import data_of
from krmfn.document.resource import parse_item
from krmfn.document.tree import YamlError

CASES = [
    pytest.param(b"- name: c\n  args: [\n    \"a\", \"b\"\n  ]\n  x: y\n", id="list-under-its-key"),
    pytest.param(b"- name: c\n  args: [\n    \"a\", \"b\",\n  ] # end\n", id="trailing-comma-and-comment"),
    pytest.param(b"- m: {\n    a: z,\n    b: [x,\n      y]\n  }\n  n: [[\n    a],\n  ]\n", id="maps-and-nested-lists"),
    pytest.param(b"- args: [\n    \"curl -d '{\n      \\\"b\\\": [\n      ]\n    }'\"\n  ]\n", id="brackets-inside-a-string"),
    # Argo Workflows' ci example: a multi-line string closed, with the list, under the key.
    pytest.param(b"- args: [\"\n    cd x &&\n    go build\n  \"]\n  b: y\n", id="a-string-closed-under-its-key"),
    pytest.param(b"- args: [\"a\n  b\", c,\n  d]\n", id="lines-of-a-list-at-its-keys-column"),
]


def _plain(value: object) -> object:
    """compare.data_of's data as PyYAML's (every scalar here is a string)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value[0] if isinstance(value, tuple) else value


@pytest.mark.parametrize("text", CASES)
def test_read_as_pyyaml_reads_it(text: bytes) -> None:
    doc, node = parse_item(text)
    assert [_plain(data_of(doc, node))] == yaml.safe_load(text)


def test_offsets_are_those_of_the_text_as_written() -> None:
    text = b"- args: [\n    a,\n  ]\n  name: app\n"
    doc, node = parse_item(text)
    name = doc.get(node, "name")
    assert doc.shifts and text[doc.offset(name):].startswith(b"app\n")


@pytest.mark.parametrize("text", [
    b"- key: abc\n]\n",  # a plain scalar's line, not a flow collection's end
    b"- a: [x]\n  b:\n ]\n",  # a bracket that closes nothing
    b"- a: [x,\n  y\n",  # never closed
])
def test_anything_else_is_still_refused(text: bytes) -> None:
    with pytest.raises(YamlError):
        parse_item(text)
