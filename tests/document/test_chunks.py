"""Splitting a ResourceList into envelope and item texts, and putting it back together."""

from __future__ import annotations

import pytest

from krmfn.document import chunks
from krmfn.document.envelope import cut

KPT_STYLE = b"""\
# leading comment
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data:
    script: |
      - not an item
      #!/bin/sh
  # a comment inside the item
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
results:
- message: old
"""


def test_kpt_style_list_splits_into_items_and_blocks():
    s = chunks.split(KPT_STYLE)
    assert s is not None
    assert [b.key for b in s.blocks] == ["apiVersion", "kind", "items", "functionConfig", "results"]
    assert len(s.items) == 2 and s.indent == 0
    assert s.items[0].endswith(b"  # a comment inside the item\n")
    assert b"results" not in s.envelope() and b"functionConfig" in s.envelope()
    assert s.prefix == b"# leading comment\n"


def test_reassembly_without_changes_gives_back_the_input_less_old_results():
    s = chunks.split(KPT_STYLE)
    out = b"".join(chunks.assemble(s, s.items, b""))
    assert out == KPT_STYLE[: KPT_STYLE.index(b"results:")]


def test_indented_items_split_at_their_own_column():
    text = b"apiVersion: v1\nkind: ResourceList\nitems:\n  - a: 1\n    b:\n      - x\n  - c: 2\n"
    s = chunks.split(text)
    assert s.indent == 2 and s.items == [b"  - a: 1\n    b:\n      - x\n", b"  - c: 2\n"]


@pytest.mark.parametrize(("text", "items"), [
    (b"---\napiVersion: v1\nitems:\n- a: 1\n", [b"- a: 1\n"]),                         # document marker
    (b"%YAML 1.2\n---\napiVersion: v1\nitems:\n- a: 1\n...\n# end\n", [b"- a: 1\n"]),  # directive, end marker
    (b'"apiVersion": v1\n\'items\':\n- a: 1\n', [b"- a: 1\n"]),                      # quoted keys
    (b"apiVersion: v1\nitems:\n- a: 1\n-\n  b: 2\n", [b"- a: 1\n", b"-\n  b: 2\n"]),    # an entry after its dash
    (b"apiVersion: v1\nitems:\n- a: |\n    x\t\n  \t\n    \ty\n", [b"- a: |\n    x\t\n  \t\n    \ty\n"]),  # tabs
    (b"apiVersion: v1\nitems: [{a: 1}, {b: [2, 3]}]\n", [b"- {a: 1}\n", b"- {b: [2, 3]}\n"]),  # flow items
    (b"apiVersion: v1\nitems: # the items\n  [{a: 1},\n   {b: 2}]\nkind: K\n", [b"- {a: 1}\n", b"- {b: 2}\n"]),
    # flow YAML that is no JSON: the fast cut fails, the careful one is used
    (b"apiVersion: v1\nitems: [{k: 'a]'}, {k: it's, # a ]\n  x: y}]\n", [b"- {k: 'a]'}\n", b"- {k: it's, # a ]\n  x: y}\n"]),
])
def test_every_shape_is_cut_into_the_items_own_texts(text, items):
    s = cut(text)
    assert s.items == items
    assert [b.key for b in s.blocks][:2] == ["apiVersion", "items"]


def test_a_json_document_becomes_block_lines_around_its_items_own_texts():
    text = (b'{\n  "apiVersion": "config.kubernetes.io/v1",\n  "items": [\n    {\n      "kind": "A",\n'
            b'      "n": [1,\n2]\n    },\n    {"kind": "B"}\n  ],\n  "functionConfig": {"x": "}"}\n}\n')
    s = cut(text)
    assert s.by_tokenizer and s.items == [b'- {\n      "kind": "A",\n      "n": [1,\n 2]\n    }\n', b'- {"kind": "B"}\n']
    assert b"".join(chunks.assemble(s, s.items, b"")) == (
        b'"apiVersion": "config.kubernetes.io/v1"\n"items":\n' + b"".join(s.items) + b'"functionConfig": {"x": "}"}\n')
    assert [(o.line, o.first_column) for o in s.origins] == [(4, 2), (9, 2)]


@pytest.mark.parametrize(("text", "where"), [
    (b"apiVersion: v1\nitems:\n  - a: 1\n - b: 2\n", "less indented"),
    (b"apiVersion: v1\nitems:\n- a: 1\n  b: 2\n\tc: 3\n", "tab at the start"),
    (b"apiVersion: v1\nitems:\n- a: 1\nitems:\n- b: 2\n", "twice"),
    (b"apiVersion: v1\nitems: x\n", "not a list"),
    (b"apiVersion: v1\n---\nkind: x\n", "second YAML document"),
    (b"? apiVersion\n: v1\n", "not a plain"),
])
def test_what_cannot_be_cut_for_certain_is_refused_saying_where(text, where):
    with pytest.raises(chunks.SplitError, match=where):
        cut(text)


def test_indent_item_leaves_blank_lines_empty():
    assert chunks.indent_item(b"- a: |\n    x\n\n    y\n", 2) == b"  - a: |\n      x\n\n      y\n"


def test_a_bare_dash_outside_items_does_not_stop_the_split():
    text = b"apiVersion: v1\nitems:\n- a: 1\n- b: 2\nresults:\n-\n  message: old\n"
    s = chunks.split(text)
    assert s is not None and s.items == [b"- a: 1\n", b"- b: 2\n"]
