"""Splitting a ResourceList into envelope and item texts, and putting it back together."""

from __future__ import annotations

import pytest

from krmfn.document import chunks

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


@pytest.mark.parametrize("text", [
    b"---\napiVersion: v1\nitems:\n- a: 1\n",               # document marker
    b"apiVersion: v1\nitems: [{a: 1}]\n",                   # flow items
    b'"apiVersion": v1\nitems:\n- a: 1\n',                 # quoted key
    b"apiVersion: v1\r\nitems:\r\n- a: 1\r\n",              # CRLF
    b"apiVersion: v1\nitems:\n  - a: 1\n - b: 2\n",         # broken indentation
    b"apiVersion: v1\nitems:\n- a: 1\n  b: 2\n\tc: 3\n",    # tab
    b"apiVersion: v1\nitems:\n- a: 1\nitems:\n- b: 2\n",    # duplicate key
    b"apiVersion: v1\nitems:\n- a: 1\n-\n  b: 2\n",          # an entry on the line after its dash
])
def test_anything_unusual_is_left_to_the_full_parser(text):
    assert chunks.split(text) is None


def test_indent_item_leaves_blank_lines_empty():
    assert chunks.indent_item(b"- a: |\n    x\n\n    y\n", 2) == b"  - a: |\n      x\n\n      y\n"


def test_a_bare_dash_outside_items_does_not_stop_the_split():
    text = b"apiVersion: v1\nitems:\n- a: 1\n- b: 2\nresults:\n-\n  message: old\n"
    s = chunks.split(text)
    assert s is not None and s.items == [b"- a: 1\n", b"- b: 2\n"]
