"""The way out: an object krmfn renamed before gets its original name back.

Two runs need it. ``krmfn.dev/content-hash: "false"`` on an object that carries krmfn's
``krmfn.dev/original-name`` (a kpt render or ``krmfn -i`` wrote it into the source) means "stop":
without this, the object kept its hashed name and ``immutable: true``, and the next edit of its
data failed to apply. And the stable-name strategy on such an object: it must keep one name, so
it gets the original one back.

What krmfn removes is what krmfn wrote: the hashed name, ``immutable: true`` (an object that
carries ``krmfn.dev/original-name`` got it from krmfn, and an object that keeps its name must stay
mutable to take a change), the original-name annotation and the ``krmfn.dev/family`` label.
Retention annotations stay: krmfn cannot tell them from the user's own, and they only keep an
object. Every reference, by the hashed name, an older one or the original, follows back (core.plan.referrers).
"""

from __future__ import annotations

from krmfn.core.naming.retention import FAMILY, ORIGINAL_NAME
from krmfn.krm.resource import Resource
from krmfn.yaml.textedit import Edit, remove_entry, replace_scalar


def renamed_before(res: Resource, original: str) -> bool:
    """Whether krmfn renamed this object in an earlier run: it records ``original`` as its family."""
    return res.annotations.get(ORIGINAL_NAME) == original


def restore_edits(res: Resource, original: str) -> list[Edit]:
    """The restore as edits of the object's own text."""
    doc = res.tree
    edits: list[Edit] = []
    name = doc.get(res.metadata, "name")
    if res.name != original and name is not None:
        edits.append(replace_scalar(doc, name, original))
    immutable = doc.get(res.node, "immutable")
    if immutable is not None and doc.scalar(immutable) == "true":
        removed = remove_entry(doc, res.node, "immutable")
        if removed is not None:
            edits.append(removed)
    for key, own in (("annotations", ORIGINAL_NAME), ("labels", FAMILY)):
        node = doc.get(res.metadata, key)
        if node is None or not doc.is_map(node) or doc.get(node, own) is None:
            continue
        # The only entry: the map goes too, rather than leave an empty ``annotations:`` (null).
        only = sum(1 for _ in doc.children(node)) == 1
        removed = remove_entry(doc, res.metadata, key) if only else remove_entry(doc, node, own)
        if removed is not None:
            edits.append(removed)
    return edits


__all__ = ["renamed_before", "restore_edits"]
