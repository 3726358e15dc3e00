"""yaml.split on its own: where the cut puts each object's text, and what it leaves as frame.

Why here and not only end to end: a slot one line too long or too short shows up downstream
as a verify error about some item's meaning, which does not say the cut was wrong.
"""

from __future__ import annotations

import pytest
import yaml

from krmfn.yaml.split import Cut, cut, join
from krmfn.yaml.tree import YamlError

# As helm template prints a chart: a "# Source:" comment after each "---", empty lines around.
HELM = b"""---
# Source: app/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  a: "1"

---
# Source: app/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: web
"""

# As kpt hands a ResourceList over: block items with index annotations, a functionConfig after.
RESOURCE_LIST = b"""apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
# the config
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
  data: {a: b}

- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: d
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: fc}
"""


def texts(c: Cut) -> list[bytes]:
    return [c.data[a:b] for a, b in c.slots]


def test_a_helm_stream_is_cut_into_its_documents_comments_and_all():
    c = cut(HELM, stream=True)
    assert c.stream and c.documents == 2
    first, second = texts(c)
    assert first.startswith(b"apiVersion: v1\n") and first.endswith(b'  a: "1"\n\n')  # its empty line too
    assert second.startswith(b"apiVersion: apps/v1\n") and second.endswith(b"namespace: web\n")
    # the frame keeps the separators and the Source comments: the slots and the frame are the input
    assert b"# Source: app/templates/deploy.yaml" in HELM[c.slots[0][1]:c.slots[1][0]]
    assert b"".join(c.assemble(c.replacements(texts(c), b""))) == HELM


def test_a_stream_reads_each_documents_identity_without_parsing_it():
    c = cut(HELM, stream=True)
    assert c.idents == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata.name": "app-config"},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata.name": "app", "metadata.namespace": "web"},
    ]


def test_a_null_document_is_counted_but_is_no_object():
    c = cut(b"---\n# empty: a value left unset\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n",
            stream=True)
    assert c.documents == 2 and len(c.slots) == 1
    assert c.outer == [1]  # the object is the second document


def test_the_window_of_a_document_runs_to_the_next_separator():
    c = cut(HELM, stream=True)
    assert c.after(0) == b"---\n# Source: app/templates/deploy.yaml\n"  # the empty line is the slot's
    assert c.after(1) == b""


def test_a_resource_list_block_item_starts_after_the_previous_one():
    c = cut(RESOURCE_LIST)
    first, second = texts(c)
    assert RESOURCE_LIST[:c.slots[0][0]].endswith(b"items:\n# the config\n")  # a comment before the first stays
    assert first == b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data: {a: b}\n\n"
    assert second.startswith(b"- apiVersion: apps/v1\n") and second.endswith(b"    name: d\n")
    assert not c.flow_top


def test_the_envelope_is_the_list_without_its_items():
    c = cut(RESOURCE_LIST)
    assert b"kind: ConfigMap\n  metadata:\n    name: c" not in c.envelope
    assert yaml.safe_load(c.envelope) == {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [],
                                          "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap",
                                                             "metadata": {"name": "fc"}}}


def test_old_results_are_replaced_and_new_ones_go_after_the_envelope():
    data = RESOURCE_LIST + b"results:\n- message: old\n  severity: info\n"
    c = cut(data)
    assert c.results is not None and data[c.results[0]:c.results[1]].startswith(b"results:\n- message: old")
    new = b"".join(c.assemble(c.replacements(texts(c), b"results:\n- message: new\n")))
    assert new == RESOURCE_LIST + b"results:\n- message: new\n"


def test_a_json_envelope_keeps_its_items_in_place_and_results_inside_its_braces():
    data = b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"kind": "A"}, {"kind": "B"}]}\n'
    c = cut(data)
    assert texts(c) == [b'{"kind": "A"}', b'{"kind": "B"}'] and c.flow_top
    out = b"".join(c.assemble(c.replacements(texts(c), b'"results": [{"message": "hi"}]')))
    assert out.endswith(b'{"kind": "B"}], "results": [{"message": "hi"}]}\n')


def test_a_kind_list_in_a_stream_is_cut_into_its_entries():
    data = (b"apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n"  # as kubectl get -o yaml prints it
            b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
            b"- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: b\n")
    c = cut(data, stream=True)
    assert [t.split(b"\n")[1] for t in texts(c)] == [b"  kind: ConfigMap", b"  kind: Secret"]
    assert c.lists == [(0, "List")] and c.outer == [0, 0]
    assert c.entries == {0: (0, 2)}


def test_a_kind_ending_in_list_that_holds_no_objects_is_one_object():
    data = b"apiVersion: x/v1\nkind: AllowList\nmetadata: {name: a}\nitems: [x, y]\n"
    c = cut(data, stream=True)
    assert texts(c) == [data] and c.lists == []


def test_a_block_scalar_kept_with_plus_keeps_its_trailing_empty_lines():
    data = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: |+\n    v\n\n\n---\nkind: B\n"
    first = texts(cut(data, stream=True))[0]
    assert first.endswith(b"    v\n\n\n")


def test_an_alias_in_an_object_leaves_its_identity_unknown():
    data = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n a\n  labels: {x: *n}\n"
    assert cut(data, stream=True).idents == [None]


def test_a_plain_value_read_as_another_type_is_no_identity():
    data = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 0777\n"
    assert cut(data, stream=True).idents == [{"apiVersion": "v1", "kind": "ConfigMap"}]


@pytest.mark.parametrize("data", [b"- a\n- b\n", b"a: 1\n---\nb: 2\n", b"just text\n", b"kind: x\nitems: 3\n"])
def test_what_is_not_one_map_with_an_items_list_is_left_to_the_envelope_check(data):
    c = cut(data)
    assert c.slots == [] and c.envelope == data


def test_text_that_is_not_yaml_says_which_document_it_stopped_in():
    with pytest.raises(YamlError) as info:
        cut(b"a: 1\n---\nb: [1,\n", stream=True)
    assert info.value.document == 2


def test_several_streams_joined_number_their_documents_on():
    one, two = cut(HELM, stream=True), cut(b"kind: A\n---\nkind: B\n", stream=True)
    joined = join([one, two])
    assert joined.data == HELM + b"kind: A\n---\nkind: B\n"
    assert joined.outer == [0, 1, 2, 3] and joined.documents == 4
    assert joined.part_of(1) == 0 and joined.part_of(2) == 1
    assert texts(joined)[2:] == [b"kind: A\n", b"kind: B\n"]
    assert joined.origin(3).line == 3  # in its own file's lines
    pieces = joined.assemble_parts(joined.replacements(texts(joined), b""))
    assert [b"".join(p) for p in pieces] == [HELM, b"kind: A\n---\nkind: B\n"]
