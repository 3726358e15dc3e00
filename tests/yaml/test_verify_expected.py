"""yaml.verify's expected meaning, change by change: a new text that makes exactly the planned
change passes the check, and one that makes it wrong (or makes another) is named by its field."""

from __future__ import annotations

import pytest

from krmfn.yaml.textedit import AddEntries, AddItems, FillNull, RemoveEntry, SetScalar
from krmfn.yaml.tree import parse_item
from krmfn.yaml.verify import difference

SOURCE = b"""- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app   # the name
    annotations:
      team: web
      old: x
    labels:
  rules:
  - resourceNames: [app]
"""


def nodes():
    doc, item = parse_item(SOURCE)
    meta = doc.get(item, "metadata")
    names = doc.get(doc.kids[doc.get(item, "rules")][0], "resourceNames")
    return {"item": item, "name": doc.get(meta, "name"), "annotations": doc.get(meta, "annotations"),
            "labels": doc.get(meta, "labels"), "app": doc.kids[names][0]}


CASES = {
    # the change, a text that makes it, a text that makes it wrong, and the field that then differs
    "set": (lambda n: SetScalar(n["name"], "app-abc"),
            SOURCE.replace(b"name: app ", b"name: app-abc "), SOURCE.replace(b"name: app ", b"name: app-xyz "),
            "metadata.name"),
    "add": (lambda n: AddEntries(n["item"], (("immutable", True),)),
            SOURCE + b"  immutable: true\n", SOURCE + b"  immutable: false\n", "immutable"),
    "fill": (lambda n: FillNull(n["labels"], (("family", "app"),)),
             SOURCE.replace(b"labels:\n", b"labels:\n      family: app\n"),
             SOURCE.replace(b"labels:\n", b"labels:\n      family: other\n"), "metadata.labels.family"),
    "remove": (lambda n: RemoveEntry(n["annotations"], "old"),
               SOURCE.replace(b"      old: x\n", b""), SOURCE.replace(b"      team: web\n", b""),
               "metadata.annotations.old"),
    # a list entry naming one object, made to name two: the new names go after it
    "items": (lambda n: AddItems(n["app"], ("app-abc",)),
              SOURCE.replace(b"[app]", b"[app, app-abc]"), SOURCE.replace(b"[app]", b"[app, app-xyz]"),
              "rules[0].resourceNames[1]"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_planned_change_made_passes(case):
    change, right, _, _ = CASES[case]
    assert difference(SOURCE, [change(nodes())], right) is None


@pytest.mark.parametrize("case", CASES)
def test_a_change_made_wrong_is_named_by_its_field(case):
    change, _, wrong, field = CASES[case]
    assert difference(SOURCE, [change(nodes())], wrong) == field


def test_unplanned_the_same_text_is_a_difference():
    _, right, _, _ = CASES["set"]
    assert difference(SOURCE, [], right) == "metadata.name"


def test_several_changes_at_once():
    n = nodes()
    changes = [SetScalar(n["name"], "app-abc"), RemoveEntry(n["annotations"], "old"),
               AddEntries(n["item"], (("immutable", True),))]
    new = SOURCE.replace(b"name: app ", b"name: app-abc ").replace(b"      old: x\n", b"") + b"  immutable: true\n"
    assert difference(SOURCE, changes, new) is None
    assert difference(SOURCE, changes[:2], new) is not None
