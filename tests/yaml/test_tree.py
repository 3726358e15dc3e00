"""The document model's own helpers: where a scalar's text sits in the source."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krmfn.krm.data import to_data
from krmfn.yaml.tree import ByteOffsets, Doc, YamlError


@pytest.mark.parametrize("text,key,value_at", [
    (b'a: ""\n', b"a", 3), (b"x: 1\nlong: " + b"y" * 300 + b"\n", b"long", 11),
    (b"a: 'q'  # c\n", b"a", 3), ("a: é\nb: x\n".encode(), b"b", 9),
])
def test_offsets_point_at_the_text_in_the_source(text, key, value_at):
    doc = Doc.parse(bytearray(text))
    node = doc.get(doc.documents()[0], key.decode())
    assert doc.offset(node) == value_at
    assert text[doc.at(doc.kstart[node]):].startswith(key)


@pytest.mark.parametrize("text,duplicate", [(b"a: 1\nb: 2\n", False), (b"a: 1\na: 2\n", True),
                                            (b'a: 1\n"a": 2\n', True), (b"x: 1\ny: 2\nz: 3\ny: 4\n", True),
                                            (b'? "\\x01"\n: 1\n? "\\u0001"\n: 2\n', True), (b"{}", False)])
def test_duplicate_keys_are_found_however_they_are_written(text, duplicate):
    doc = Doc.parse(bytearray(text))
    assert doc.has_duplicate_keys(doc.documents()[0]) is duplicate


def test_a_byte_order_mark_is_not_content():
    """A BOM is dropped before parsing, in bytes and bytearray alike (the fuzz test once found a parser
    that misread the block list after one)."""
    text = b"a: 1\nb:\n- c: 1\n  d: 2\n"
    for data in (b"\xef\xbb\xbf" + text, bytearray(b"\xef\xbb\xbf" + text)):
        doc = Doc.parse(data)
        assert to_data(doc, doc.documents()[0]) == {"a": "1", "b": [{"c": "1", "d": "2"}]}


def test_three_tags_in_a_block_scalar_are_text():
    doc = Doc.parse(b"x: |\n  !t\n  !a !b !c\n")
    assert to_data(doc, doc.documents()[0]) == {"x": "!t\n!a !b !c\n"}


class _SmallPieces(ByteOffsets):
    PIECE = 3  # so that every span is encoded in several pieces


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(st.sampled_from("ab\né’こ😀"), max_size=40), st.lists(st.integers(0, 40), max_size=12))
def test_byte_offsets_are_the_utf8_length_before_each_character_asked_in_any_order(text, asked):
    for offsets in (ByteOffsets(text), _SmallPieces(text)):
        for index in (min(i, len(text)) for i in asked):
            assert offsets(index) == len(text[:index].encode("utf-8"))
