"""What an opted-in object becomes: its hashed name, ``immutable: true``, the original-name
annotation, the family label and the retention annotations.

Written as edits of the object's own text (yaml.textedit), so that its comments and style
stay; each edit says what it changes, for the check before writing (yaml.verify).
"""

from __future__ import annotations

from krmfn.core.naming.retention import FAMILY, ORIGINAL_NAME, family_label, merge_annotation
from krmfn.krm.resource import Resource
from krmfn.yaml.textedit import Edit, add_entries, entry_column, replace_scalar, set_map, set_true


def owned(res: Resource, original: str, retention: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The annotations and labels a hashed ConfigMap must carry."""
    existing = res.annotations
    annotations = {ORIGINAL_NAME: original}
    annotations.update((key, merge_annotation(key, existing.get(key), wanted)) for key, wanted in retention.items())
    return annotations, {FAMILY: family_label(original)}


def renamed_edits(res: Resource, original: str, new_name: str, retention: dict[str, str],
                  immutable: bool = True) -> list[Edit]:
    """The rename as edits of the object's own text (block or flow maps, quoted keys). Raises
    NotEditable naming the field that cannot be written in place. ``immutable``: whether the kind
    has the field (a custom resource does not: its API server would drop or refuse it)."""
    doc = res.tree
    edits: list[Edit] = []
    name = doc.get(res.metadata, "name")
    if res.name != new_name and name is not None:
        edits.append(replace_scalar(doc, name, new_name))
    step = _step(res)
    annotations, labels = owned(res, original, retention)
    for key, wanted in (("annotations", annotations), ("labels", labels)):
        edits += set_map(doc, res.metadata, key, wanted, step)
    if not immutable:
        return edits
    field = doc.get(res.node, "immutable")
    if field is None:
        edits.append(add_entries(doc, res.node, (("immutable", True),), step))
    elif doc.scalar(field) != "true" or not doc.is_plain(field):
        edits.append(set_true(doc, field))
    return edits


def _step(res: Resource) -> int:
    """How far the object indents a map's entries from its key (``metadata``'s from the root's)."""
    doc = res.tree
    if not doc.is_block(res.node) or not doc.is_block(res.metadata):
        return 2
    step = entry_column(doc, res.metadata) - entry_column(doc, res.node)
    return step if step > 0 else 2


__all__ = ["owned", "renamed_edits"]
