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
object. Every reference, by the hashed name, an older one or the original, follows back (core.plan).

As with a rename, the edits are made in the object's own text where it is plain block YAML, and
in its tree for re-emitting otherwise.
"""

from __future__ import annotations

from krmfn.core.retention import FAMILY, ORIGINAL_NAME
from krmfn.document.native import NONE
from krmfn.document.resource import Resource
from krmfn.document.textedit import Edit, entry_end, line_start
from krmfn.document.tree import Doc


def renamed_before(res: Resource, original: str) -> bool:
    """Whether krmfn renamed this object in an earlier run: it records ``original`` as its family."""
    return res.annotations.get(ORIGINAL_NAME) == original


def restore_edits(res: Resource, original: str) -> list[Edit] | None:
    """The restore as edits of the object's own text; None where that text is not plain block
    YAML (the tree is re-emitted instead)."""
    doc, source = res.tree, res.source
    if doc.may_alias or not doc.is_block(res.node) or not doc.is_block(res.metadata):
        return None
    edits: list[Edit] = []
    name = doc.get_b(res.metadata, b"name")
    if res.name != original:
        if name is None:
            return None
        edits.append((doc.offset(name), res.name, original))
    immutable = doc.get_b(res.node, b"immutable")
    if immutable is not None and doc.str(immutable) == "true":
        line = _entry_lines(doc, source, immutable)
        if line is None:
            return None
        edits.append(line)
    for key, own in ((b"annotations", ORIGINAL_NAME), (b"labels", FAMILY)):
        node = doc.get_b(res.metadata, key)
        if node is None or not doc.is_map(node) or doc.get(node, own) is None:
            continue
        if not doc.is_block(node):
            return None
        # The only entry: the map goes too, rather than leave an empty ``annotations:`` (null).
        only = doc.first_child(node) == doc.last_child(node)
        line = _entry_lines(doc, source, node if only else doc.get(node, own))  # type: ignore[arg-type]
        if line is None:
            return None
        edits.append(line)
    return edits


def _entry_lines(doc: Doc, source: bytes, node: int) -> Edit | None:
    """The removal of a map entry's lines, from its key's line to its value's end; None when the
    key does not start its line (``- key:``) or the value is not one line or a block map of them."""
    key_at = doc.key_offset(node)
    if key_at is None:
        return None
    start = line_start(source, key_at)
    if source[start:key_at].strip(b" "):
        return None
    end = entry_end(doc, source, node)
    if end is None:
        return None
    return start, source[start:end].decode(), ""


def restore_in_tree(res: Resource, original: str) -> set[str]:
    """The restore in the object's tree, for re-emitting it; the field paths it changed (as
    Doc.path_of writes them), for checking the re-emit."""
    from krmfn.document.compare import step  # here, for start-up time: re-emits are rare

    doc = res.tree
    changed = {"metadata.name", "immutable"}
    name = doc.get(res.metadata, "name")
    if name is not None and res.name != original:
        doc.set_str(name, original)
    immutable = doc.get(res.node, "immutable")
    if immutable is not None and doc.str(immutable) == "true":
        doc.remove(res.node, "immutable")
    for key, own in (("annotations", ORIGINAL_NAME), ("labels", FAMILY)):
        changed.add(step(f"metadata.{key}", own))
        node = doc.get(res.metadata, key)
        if node is not None and doc.is_map(node) and doc.remove(node, own) and doc.first_child(node) == NONE:
            doc.remove(res.metadata, key)
            changed.add(f"metadata.{key}")
    return changed


__all__ = ["renamed_before", "restore_edits", "restore_in_tree"]
