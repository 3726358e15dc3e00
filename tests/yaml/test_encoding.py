"""function.py's own helpers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from krmfn.yaml.encoding import first_bad_byte as _not_utf8

# Bytes that make up 1- to 4-byte characters, and bytes that are never UTF-8.
PIECES = st.sampled_from([b"a", b"\n", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xc3", b"\xe2\x82",
                          b"\xff", b"\x80", b"\xed\xa0\x80"])


@given(st.lists(PIECES, max_size=30), st.integers(min_value=1, max_value=9))
def test_the_first_bad_byte_is_found_whatever_the_step(pieces, step):
    data = b"".join(pieces)
    try:
        data.decode("utf-8")
        expected = None
    except UnicodeDecodeError as exc:
        expected = exc.start
    assert _not_utf8(data, step) == expected
