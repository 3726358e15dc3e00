"""The stable-name mode's one edit in a referrer: ``krmfn.dev/config-hash`` in its pod template.

The annotation goes where the controller watches, ``spec.template.metadata.annotations`` (a
CronJob's job template's pod template, as core.table's ``template_metadata`` finds it), so
that a new value is a new pod template. It is written as an edit of the referrer's own text,
every other byte kept: the value replaced in place, or the key added as the first entry of
its map, with ``annotations:`` and ``metadata:`` maps added where the template has none.
Only a template whose text is not plain block YAML (flow maps, ``annotations: {}``, anchors)
is re-emitted from its tree. A second run reads the same value and changes nothing.

Only runs with a stable-name object reach this module: the referrer is parsed again here
(its tree was dropped in the scan), which costs those runs alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.strategy import CONFIG_HASH
from krmfn.document.native import NONE
from krmfn.document.resource import Resource
from krmfn.document.scalars import scalar
from krmfn.document.textedit import Edit, key_column, line_start
from krmfn.document.tree import Doc


@dataclass(frozen=True, repr=False, eq=False)
class Annotation:
    """The pod-template annotation one referrer gets: where, what, and how it is written."""

    path: tuple[str, ...]  # the pod template's metadata, from the object's root
    value: str
    current: str | None  # the value it has now (None: none)
    edits: list[Edit] | None  # in its own text; None: re-emit it (set_in_tree)


def annotation(res: Resource, path: tuple[str, ...], value: str) -> Annotation:
    """What makes the referrer's pod template (metadata at ``path``) carry ``value``."""
    doc = res.tree
    template = doc.path(res.node, *path[:-1])
    metadata = doc.get(template, path[-1]) if template is not None else None
    annotations = doc.get(metadata, "annotations") if metadata is not None else None
    child = doc.get(annotations, CONFIG_HASH) if annotations is not None else None
    current = doc.str(child) if child is not None else None
    if current == value:
        return Annotation(path, value, current, [])
    edits = None if doc.may_alias or template is None else _edits(doc, res.source, template, metadata, annotations,
                                                                 child, path[-1], value)
    return Annotation(path, value, current, edits)


def _edits(doc: Doc, source: bytes, template: int, metadata: int | None, annotations: int | None,
           child: int | None, metadata_key: str, value: str) -> list[Edit] | None:
    if child is not None:  # a value to replace: in place, in the style it has
        if doc.is_plain(child):
            return [(doc.offset(child), doc.str(child) or "", scalar(value))]
        return [(doc.offset(child), doc.str(child) or "", value)]  # quoted: splice keeps the quotes
    entry = f"{CONFIG_HASH}: {scalar(value)}\n"
    if annotations is not None:  # a key to add, as the map's first entry
        at = _first_entry(doc, source, annotations)
        return None if at is None else [(at[0], "", " " * at[1] + entry)]
    # Maps to add, as the first entry of the innermost map there is.
    parent, keys = (metadata, ["annotations"]) if metadata is not None else (template, [metadata_key, "annotations"])
    at = _first_entry(doc, source, parent)
    step = _step(doc, source, parent, at[1]) if at is not None else None
    if at is None or step is None:
        return None
    lines = "".join(f"{' ' * (at[1] + i * step)}{key}:\n" for i, key in enumerate(keys))
    return [(at[0], "", lines + " " * (at[1] + len(keys) * step) + entry)]


def _first_entry(doc: Doc, source: bytes, node: int) -> tuple[int, int] | None:
    """Where a block map's first entry's line starts, and its column; None unless that key
    starts its own line (block style, indentation only before it)."""
    if not doc.is_map(node) or not doc.is_block(node):
        return None
    first = doc.first_child(node)
    at = doc.key_offset(first) if first != NONE else None
    if at is None:
        return None
    start = line_start(source, at)
    if source[start:at].strip(b" "):
        return None
    return start, at - start


def _step(doc: Doc, source: bytes, node: int, column: int) -> int | None:
    """How far a map's entries are indented from its own key: the step for the maps added in it."""
    at = doc.key_offset(node)
    own = key_column(source, at) if at is not None else None
    return column - own if own is not None and column > own else None


def set_in_tree(res: Resource, a: Annotation) -> set[str]:
    """The annotation in the referrer's tree, for re-emitting it; the field path it sets (as
    Doc.path_of writes it), for checking the re-emit."""
    from krmfn.document.compare import step  # here, for start-up time: re-emits are rare

    doc = res.tree
    template = doc.path(res.node, *a.path[:-1])
    if template is None:
        return set()
    annotations = doc.ensure_map(doc.ensure_map(template, a.path[-1]), "annotations")
    doc.set(annotations, CONFIG_HASH, a.value)
    return {step(".".join((*a.path, "annotations")), CONFIG_HASH)}


__all__ = ["Annotation", "annotation", "set_in_tree"]
