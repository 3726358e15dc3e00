"""Edits in an item's own text: scalars replaced, lines inserted, anything unclear refused."""

from __future__ import annotations

import pytest

from krmfn.document.textedit import content_end, key_column, map_edits, splice
from krmfn.document.tree import Doc

TEXT = b'a: old\nb: "old"\nc: \'old\'\nd:\n  e: x\n'


def test_a_plain_or_quoted_scalar_is_replaced_in_place():
    assert splice(TEXT, [(3, "old", "new"), (11, "old", "new"), (20, "old", "new")]) == \
        b"a: new\nb: \"new\"\nc: 'new'\nd:\n  e: x\n"


def test_lines_are_inserted_at_a_line_start_deepest_first():
    end = len(TEXT)
    out = splice(TEXT, [(end, "", "f: y\n"), (end, "", "  g: z\n")])
    assert out == TEXT + b"  g: z\nf: y\n"


def test_whole_lines_are_removed_from_a_line_start():
    assert splice(TEXT, [(7, 'b: "old"\n', "")]) == b"a: old\nc: 'old'\nd:\n  e: x\n"
    # a removal and a replacement in one text, an insertion where a line was removed
    assert splice(TEXT, [(3, "old", "new"), (25, "d:\n  e: x\n", ""), (25, "", "f: y\n")]) == \
        b"a: new\nb: \"old\"\nc: 'old'\nf: y\n"


@pytest.mark.parametrize("edit", [
    (8, ': "old"\n', ""),            # a removal that does not start a line
    (7, 'b: "new"\n', ""),           # a removal of text that is not there
])
def test_a_removal_that_is_not_whole_lines_there_is_refused(edit):
    assert splice(TEXT, [edit]) is None


@pytest.mark.parametrize("edit", [
    (4, "old", "new"),            # not where the scalar starts
    (3, "olx", "new"),            # not the text there
    (11, "old", 'n"w'),           # the quote inside double quotes
    (20, "old", "n\\w"),          # a backslash inside quotes
    (5, "", "x: y\n"),            # an insertion that is not at a line start
    (7, "", "x: y\nz"),           # inserted lines must end with a newline
    (None, "old", "new"),         # no offset: the tree's text is not in the source
])
def test_what_cannot_be_edited_in_the_text_is_refused(edit):
    assert splice(TEXT, [edit]) is None


def test_overlapping_replacements_are_refused():
    assert splice(b"a: old\n", [(3, "old", "x"), (3, "old", "y")]) is None


@pytest.mark.parametrize("line,column", [(b"  key: v\n", 2), (b"- key: v\n", 2), (b"  - key: v\n", 4),
                                         (b"a: {key: v}\n", None), (b" \tkey: v\n", None)])
def test_key_column_only_for_keys_that_start_their_line(line, column):
    assert key_column(line, line.index(b"key")) == column


META = b"metadata:\n  name: app  # the name\n  labels:\n    tier: web\n"


def _map_edits(text: bytes, key: str, wanted: dict[str, str]) -> bytes | None:
    doc = Doc.parse(bytearray(text))
    edits = map_edits(doc, text, doc.get(doc.root, "metadata"), key, wanted, 2, 2)
    return None if edits is None else splice(text, edits)


def test_a_missing_key_goes_after_the_maps_last_entry():
    assert _map_edits(META, "labels", {"krmfn.dev/family": "app"}) == META + b"    krmfn.dev/family: app\n"


def test_a_missing_map_goes_at_the_end_of_its_parent():
    assert _map_edits(META, "annotations", {"a": "b"}) == META + b"  annotations:\n    a: b\n"


def test_a_changed_value_is_replaced_and_an_equal_one_left_alone():
    assert _map_edits(META, "labels", {"tier": "api"}) == META.replace(b"tier: web", b"tier: api")
    assert _map_edits(META, "labels", {"tier": "web"}) == META


@pytest.mark.parametrize(("text", "want"), [
    (b"metadata:\n  name: app\n  labels: {tier: web}\n",  # a flow map keeps its style
     b"metadata:\n  name: app\n  labels: {tier: web, krmfn.dev/family: app}\n"),
    (b"metadata:\n  name: app\n  labels:\n    {}\n",  # Helm's toYaml of an empty map
     b"metadata:\n  name: app\n  labels:\n    {krmfn.dev/family: app}\n"),
    (b'metadata:\n  name: app\n  labels:\n    "app.kubernetes.io/name": x  # quoted\n',  # a quoted last key
     b'metadata:\n  name: app\n  labels:\n    "app.kubernetes.io/name": x  # quoted\n    krmfn.dev/family: app\n'),
    (b"metadata:\n  name: app\n  labels:\n    note: |\n      two\n\n      lines\n# end\n",  # a block scalar last
     b"metadata:\n  name: app\n  labels:\n    note: |\n      two\n\n      lines\n    krmfn.dev/family: app\n# end\n"),
    (b'metadata: {"name": "app", "labels": {}}\n',  # JSON stays JSON-like
     b'metadata: {"name": "app", "labels": {"krmfn.dev/family": "app"}}\n'),
])
def test_entries_are_added_to_block_and_flow_maps_in_their_own_style(text, want):
    assert _map_edits(text, "labels", {"krmfn.dev/family": "app"}) == want


def test_a_missing_map_goes_into_a_flow_parent():
    text = b'metadata: {"name": "app"}\n'
    assert _map_edits(text, "labels", {"a": "b"}) == b'metadata: {"name": "app", "labels": {"a": "b"}}\n'


@pytest.mark.parametrize("text", [
    b"metadata:\n  name: app\n  labels:\n",  # null
    b"metadata:\n  name: app\n  labels: !!map {a: b}\n",  # a tag before the flow map
])
def test_what_cannot_be_edited_plainly_is_refused(text):
    assert _map_edits(text, "labels", {"krmfn.dev/family": "app"}) is None


def test_content_end_stops_before_comments_about_the_next_item():
    item = b"- kind: ConfigMap\n  data:\n    s: |\n      # part of the script\n\n# about the next item\n"
    assert item[:content_end(item, 2)] == b"- kind: ConfigMap\n  data:\n    s: |\n      # part of the script\n\n"
    assert content_end(b"- a: 1\n  # indented as a key: trailing\n", 2) == len(b"- a: 1\n")
    assert content_end(b"- a: 1\n", 2) == len(b"- a: 1\n")


def test_an_inline_insertion_must_stay_on_its_line():
    assert splice(b"a: {x: 1}\n", [(8, "", ", y: 2")]) == b"a: {x: 1, y: 2}\n"
    assert splice(b"a: {x: 1}\n", [(8, "", ", y: 2\n")]) is None
