"""krm.limits.check_inputs: several inputs read as one, each checked and normalised, an error naming its input."""

import pytest

from krmfn.krm.limits import Limits, check_inputs
from krmfn.results import KrmfnError


def test_each_input_is_normalised_and_keeps_its_form():
    crlf, bom = b"a: 1\r\nb: 2\r\n", b"\xef\xbb\xbfa: 1\n"
    [(_, form1, text1), (_, form2, text2)] = check_inputs([crlf, bom], ["a.yaml", "b.yaml"], Limits())
    assert (text1, text2) == (b"a: 1\nb: 2\n", b"a: 1\n")
    assert (form1.crlf, form1.bom, form2.crlf, form2.bom) == (True, False, False, True)


def test_a_bad_input_is_named_by_its_source():
    with pytest.raises(KrmfnError) as caught:
        check_inputs([b"a: 1\n", b"a: \x00\n"], ["good.yaml", "bad.yaml"], Limits())
    assert "bad.yaml" in caught.value.results[0].message and "good.yaml" not in caught.value.results[0].message


def test_the_inputs_are_one_input_for_the_size_limit():
    text = b"# a comment a render carries, long enough that the node estimate stays low\na: 1\n"
    check_inputs([text], ["a"], Limits(max_input_bytes=len(text)))
    with pytest.raises(KrmfnError, match="MiB"):
        check_inputs([text, text], ["a", "b"], Limits(max_input_bytes=len(text) + 1))
