"""The check before writing reads an item's old meaning from the scan's tree (yaml.verify.rows_of)
and only its new text from libyaml again: the two must be the very rows an event pass gives.

Why: a row the tree gives differently from the event pass would be a refusal of a right
output (or, worse, would hide a wrong one), in exactly the shapes nobody thought to write.
"""

from __future__ import annotations

import pytest
from yaml_suite import cases_or_skip

from krmfn.yaml.textedit import SetScalar
from krmfn.yaml.tree import Doc, YamlError, parse_item
from krmfn.yaml.verify import difference, packed_meaning, rows, rows_of

SHAPES = [
    "a: 1\n",
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x, labels: {a: 'on'}}\n  data: {k: \"12\", n: 12}\n",
    "base: &b {x: 1}\nother:\n  <<: *b\n  y: !!str 2\n",
    "&k key : &v value\n*k : *v\n",  # an alias as a key, and of a key's anchor
    "a: !!null ''\nb: ~\nc:\nd: !custom [1, 2]\ne: ! x\n",
    "\ufeffa: b\n",
    "a: |\n  text\n  ",  # an unended last line of spaces (yaml-test-suite L24T)
    "- |+\n  kept\n\n",
    "x: " + "[" * 300 + "]" * 300 + "\n",  # deeper than a byte holds
    "---\na: 1\n---\n- b\n...\n",
]


@pytest.mark.parametrize("text", SHAPES)
def test_the_tree_gives_the_rows_an_event_pass_gives(text):
    assert rows_of(Doc.parse(text.encode())) == rows(text.encode())


def test_the_tree_gives_the_rows_of_every_suite_case_it_reads():
    compared = 0
    for case in cases_or_skip():
        data = case.yaml.encode()
        try:
            doc = Doc.parse(data)
        except YamlError:
            continue
        assert rows_of(doc) == rows(data), case.id
        compared += 1
    assert compared > 250  # most of the suite's valid cases, not a vacuous loop


@pytest.mark.parametrize("text", SHAPES[:2] + SHAPES[8:9])
def test_a_packed_meaning_checks_as_the_text_read_again_does(text):
    source = text.encode() if text.startswith("- ") else b"- " + text.replace("\n", "\n  ").rstrip(" ").encode()
    doc, _ = parse_item(source)
    meaning = packed_meaning(doc)
    assert difference(source, [], source, meaning) is None
    wrong = SetScalar(len(doc.kind) - 1, "changed")  # planned, but not made: both ways must see it
    assert difference(source, [wrong], source, meaning) == difference(source, [wrong], source) is not None
