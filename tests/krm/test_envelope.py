"""krm.envelope on its own: reading a ResourceList or plain streams into objects, naming a text
that does not read by its item, and putting the output back together byte for byte."""

from __future__ import annotations

import pytest
import yaml

from krmfn.krm.envelope import item_error, read_resource_list, read_streams, render, render_streams
from krmfn.results import InputError, Result
from krmfn.yaml.encoding import TextForm
from krmfn.yaml.tree import YamlError

KPT = b"""apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
    annotations:
      config.kubernetes.io/index: '0'
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: Secret
    metadata: {name: s}
  - apiVersion: v1
    kind: Service
    metadata: {name: svc}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: krmfn-config
  data:
    names: app-config
"""


def test_a_resource_list_reads_its_items_lists_as_entries_and_its_function_config():
    rl = read_resource_list(KPT)
    assert len(rl.sources) == 3
    assert [rl.item_name(i) for i in range(3)] == ["item 0", "item 1, entry 0", "item 1, entry 1"]
    assert rl.function_config is not None
    assert rl.envelope.scalar(rl.envelope.get(rl.function_config, "kind")) == "ConfigMap"
    assert rl.identity(0) == {"apiVersion": "v1", "kind": "ConfigMap", "metadata.name": "app-config"}


@pytest.mark.parametrize(("data", "message"), [
    (b"", "the input is empty"),
    (b"# nothing but a comment\n", "the input is empty"),
    (b"apiVersion: v1\nkind: ConfigMap\n", "the input is kind ConfigMap, apiVersion v1; expected a KRM ResourceList"),
    (b"---\napiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n", "the input holds 2 YAML documents"),
    (b"- a\n", "the input is a list, not a ResourceList"),
    (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n", "items is a map, not a list"),
    (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: ResourceList\nitems: []\n",
     "has the key kind twice"),
    (b"%TAG ! tag:example.com,2000:\n---\na: b\n", "a %TAG directive"),
])
def test_an_input_that_is_not_a_resource_list_says_what_it_is(data, message):
    with pytest.raises(InputError, match=message):
        read_resource_list(data)


def test_an_untouched_render_is_the_input_byte_for_byte():
    rl = read_resource_list(KPT)
    assert b"".join(render(rl, rl.sources, [])) == KPT


def test_results_are_written_after_the_envelope_and_changed_items_in_place():
    rl = read_resource_list(KPT)
    items = [rl.sources[0].replace(b"name: app-config", b"name: app-config-abc"), *rl.sources[1:]]
    out = b"".join(render(rl, items, [Result("renamed", "info")]))
    assert out.startswith(KPT.replace(b"name: app-config\n", b"name: app-config-abc\n"))
    assert out.endswith(b"    names: app-config\nresults:\n  - message: renamed\n    severity: info\n")


def test_a_json_envelope_gets_json_results_that_yaml_readers_read_back():
    """Text past U+FFFF (a name, a message) is written as itself: ASCII-only JSON would write it as
    two escaped surrogates, which libyaml (krmfn's reader, on the next run) refuses."""
    data = (b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", '
            b'"items": [{"kind": "ConfigMap", "metadata": {"name": "a"}}]}\n')
    rl = read_resource_list(data)
    message = "used by Deployment/web😀, see \u2028 \x85 \x7f"
    out = b"".join(render(rl, rl.sources, [Result(message, "info")]))
    assert out.endswith(b'}], "results": [{"message": "used by Deployment/web\xf0\x9f\x98\x80, see \\u2028 \\u0085 '
                        b'\\u007f", "severity": "info"}]}\n')
    assert yaml.load(out, Loader=yaml.CSafeLoader)["results"] == [{"message": message, "severity": "info"}]
    again = read_resource_list(out)  # and the next run reads it and replaces them
    assert b"".join(render(again, again.sources, [Result(message, "info")])) == out


def test_a_crlf_input_is_given_back_in_crlf():
    crlf = KPT.replace(b"\n", b"\r\n")
    rl = read_resource_list(KPT, TextForm.of(crlf))
    assert b"".join(render(rl, rl.sources, [])) == crlf


def test_streams_read_as_one_input_and_go_back_each_to_its_own_file():
    files = [b"# Source: a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
             b"apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n---\n\n"]
    rl = read_streams(files, b"{names: [a]}", ["a.yaml", "b.yaml"], [TextForm(), TextForm()])
    assert [rl.item_name(i) for i in range(2)] == ["document 1 of a.yaml", "document 1 of b.yaml"]
    assert rl.envelope.scalar(rl.envelope.get(rl.function_config, "names")) is None  # a list, read as the config
    assert render_streams(rl, rl.sources) == files


def test_a_stream_that_does_not_read_is_named_by_file_and_document():
    with pytest.raises(InputError, match=r"document 2 of b\.yaml is not valid YAML: .* at line 4, column 1"):
        read_streams([b"kind: A\n---\nkind: [B\n"], None, ["b.yaml"], [TextForm()])


def _error_of(data: bytes) -> Result | None:
    try:
        read_resource_list(data)
    except YamlError as exc:
        return item_error(exc, data)
    raise AssertionError("it read")


def test_a_resource_list_that_does_not_read_is_named_by_its_item_and_line():
    data = KPT.replace(b"    name: app-config\n", b"    name: app-config\n\t  bad: tab\n", 1)
    result = _error_of(data)
    assert result is not None and result.severity == "error"
    assert result.message.startswith("item 0 is not valid YAML: ")
    assert "line 8 has a tab in its indentation" in result.message


def test_an_unclosed_bracket_names_the_item_it_opens_in_not_where_the_parser_stops():
    data = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n- kind: [B\n- kind: C\n"
    result = _error_of(data)
    assert result is not None and result.message.startswith("item 1 is not valid YAML")


def test_an_error_outside_the_items_names_no_item():
    assert _error_of(b"apiVersion: [\nkind: ResourceList\n") is None
