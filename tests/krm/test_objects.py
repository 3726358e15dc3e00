"""krm.objects: every object of whole inputs, read as the rename reads them (what `krmfn plan` takes in)."""

import pytest

from krmfn.krm.limits import Limits
from krmfn.krm.objects import read_objects
from krmfn.results import KrmfnError

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: b\n"


def test_a_stream_s_documents_and_a_list_s_entries_are_the_objects_in_order():
    stream = ("# Source: chart/templates/cm.yaml\n---\n" + CM.format(name="one") + "\n---\n"
              "apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n- " + CM.format(name="two").replace("\n", "\n  ").rstrip()
              + "\n")
    objects = read_objects([stream.encode(), CM.format(name="three").encode()], ["a.yaml", "b.yaml"])
    assert [o.name for o in objects] == ["one", "two", "three"]
    assert [o.index for o in objects] == [0, 1, 0]


def test_a_resource_list_s_items_are_the_objects():
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + CM.format(name="x").replace(
        "\n", "\n  ").rstrip() + "\n"
    assert [o.name for o in read_objects([rl.encode()], [None])] == ["x"]


def test_a_bad_document_is_refused_naming_the_file_and_document():
    bad = CM.format(name="ok") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: [not, a, map]\n"
    with pytest.raises(KrmfnError) as caught:
        read_objects([bad.encode()], ["render.yaml"])
    assert caught.value.results[0].message == "document 2 of render.yaml (ConfigMap) has no metadata map"


def test_the_input_limits_hold_over_all_inputs_together():
    text = CM.format(name="a").encode()
    with pytest.raises(KrmfnError):
        read_objects([text, text], ["a", "b"], Limits(max_input_bytes=len(text) + 1))
