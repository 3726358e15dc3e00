"""yaml.scalars on its own: a value krmfn writes reads back as the same string to YAML 1.1 and
1.2 readers alike, and stays plain only where that is certain."""

from __future__ import annotations

import pytest
import yaml

from krmfn.yaml.scalars import dquote, go_timestamp, non_string_plain, plain_safe, scalar


@pytest.mark.parametrize("text", ["on", "yes", "No", "0777", "1e3", "0x1F", "~", "null", "true", ".inf", "-1"])
def test_a_word_some_reader_takes_for_another_type_is_not_plain(text):
    assert non_string_plain(text)
    assert not plain_safe(text)
    assert scalar(text).startswith('"')


@pytest.mark.parametrize("text", ["app-config-7f9c2b", "nginx", "v1.2.3", "a/b_c.d", "key=value"])
def test_a_name_as_kubectl_writes_it_stays_plain(text):
    assert plain_safe(text) and scalar(text) == text


@pytest.mark.parametrize("text", ["2024-01-02", "a, b", "x: y", "#no", "", " lead", "a\nb"])
def test_a_date_a_comma_or_a_yaml_indicator_is_quoted(text):
    assert not plain_safe(text)


@pytest.mark.parametrize("text", ['say "hi"', "back\\slash", "tab\there", "line\nbreak", "nel\x85", "ls\u2028",
                                  "bom\ufeff", "bell\x07", "ünïcode"])
def test_a_double_quoted_scalar_reads_back_as_the_same_string(text):
    written = dquote(text)
    assert written.startswith('"') and written.endswith('"')
    assert yaml.safe_load("k: " + written) == {"k": text}
    assert "\u2028" not in written and "\x85" not in written  # written escaped, never raw


def test_booleans_and_numbers_are_written_as_yaml_reads_them():
    assert [scalar(True), scalar(False), scalar(12)] == ["true", "false", "12"]


@pytest.mark.parametrize(("text", "taken"), [("2024-01-02", True), ("2024-01-02T03:04:05Z", True),
                                             ("2024-01-02 03:04:05.5 +01:00", True), ("2024-1-2x", False),
                                             ("v2024-01-02", False)])
def test_go_yaml_timestamps(text, taken):
    assert go_timestamp(text) is taken
