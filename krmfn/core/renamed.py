"""What an opted-in object becomes: its hashed name, ``immutable: true``, the original-name
annotation, the family label and the retention annotations.

Two ways to write it, with one meaning: as edits of the object's own text (so that its comments
and style stay), or, where its text is not plain block YAML, set in its tree for re-emitting.
"""

from __future__ import annotations

from krmfn.core.retention import FAMILY, ORIGINAL_NAME, family_label, merge_annotation
from krmfn.document.resource import Resource
from krmfn.document.textedit import Edit, add_entry, key_column, key_start, map_edits


def owned(res: Resource, original: str, retention: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The annotations and labels a hashed ConfigMap must carry."""
    existing = res.annotations
    annotations = {ORIGINAL_NAME: original}
    annotations.update((key, merge_annotation(key, existing.get(key), wanted)) for key, wanted in retention.items())
    return annotations, {FAMILY: family_label(original)}


def owned_paths(res: Resource, original: str, retention: dict[str, str]) -> set[str]:
    """The field paths the rename changes (as Doc.path_of writes them), for checking a re-emit."""
    from krmfn.document.compare import step  # here, for start-up time: re-emits are rare

    annotations, labels = owned(res, original, retention)
    return ({"metadata.name", "immutable"} | {step("metadata.annotations", k) for k in annotations}
            | {step("metadata.labels", k) for k in labels})


def rename_in_tree(res: Resource, original: str, new_name: str, retention: dict[str, str]) -> None:
    """The rename in the ConfigMap's tree, for re-emitting it."""
    doc = res.tree
    name_node = doc.get(res.metadata, "name")
    if res.name != new_name and name_node is not None:  # read_resource found it
        doc.set_str(name_node, new_name)
    doc.set(res.node, "immutable", "true", literal=True)
    annotations, labels = owned(res, original, retention)
    for key, wanted in (("annotations", annotations), ("labels", labels)):
        node = doc.ensure_map(res.metadata, key)
        for name, value in wanted.items():
            doc.set(node, name, value)


def renamed_edits(res: Resource, original: str, new_name: str, retention: dict[str, str]) -> list[Edit] | None:
    """The rename as edits of the ConfigMap's own text, so that its comments and style stay
    (block or flow maps, quoted keys); None where its text cannot be edited plainly (the tree
    is re-emitted instead)."""
    doc, source = res.tree, res.source
    metadata_key = doc.get_b(res.node, b"metadata")
    name = doc.get_b(res.metadata, b"name")
    if not source.endswith(b"\n") or metadata_key is None or name is None:
        return None
    if doc.may_alias and _anchored(res, name):  # an alias of what changes would change with it
        return None
    root = column = 0
    if doc.is_block(res.node):
        root_at = key_start(doc, source, metadata_key)
        found = key_column(source, root_at) if root_at is not None else None
        if found is None:
            return None
        root = found
    if doc.is_block(res.metadata):
        name_at = key_start(doc, source, name)
        found = key_column(source, name_at) if name_at is not None else None
        if found is None or found <= root:
            return None
        column = found
    edits: list[Edit] = []
    if res.name != new_name:
        edits.append((doc.offset(name), res.name, new_name))
    annotations, labels = owned(res, original, retention)
    for key, wanted in (("annotations", annotations), ("labels", labels)):
        more = map_edits(doc, source, res.metadata, key, wanted, column, column - root)
        if more is None:
            return None
        edits += more
    immutable = doc.get_b(res.node, b"immutable")
    if immutable is None:  # last: at the item's end, after any lines added to a map that ends there too
        added = add_entry(doc, source, res.node, "immutable", "true", True, root)
        if added is None:
            return None
        edits.append(added)
    elif not (doc.is_plain(immutable) and doc.str(immutable) == "true"):
        if not doc.is_plain(immutable):
            return None
        edits.append((doc.offset(immutable), doc.str(immutable) or "", "true"))
    return edits


def _anchored(res: Resource, name: int) -> bool:
    """Whether what the rename changes carries an anchor: the name, ``immutable``, or a map it adds
    entries to (an alias of one would change with it; values it leaves alone may be aliased)."""
    doc = res.tree
    nodes = (res.node, res.metadata, name, doc.get_b(res.node, b"immutable"),
             doc.get_b(res.metadata, b"annotations"), doc.get_b(res.metadata, b"labels"))
    return any(n is not None and doc.has_anchor(n) for n in nodes)
