"""The stable-name mode's one edit in a referrer: ``krmfn.dev/config-hash`` in its pod template.

The annotation goes where the controller watches, ``spec.template.metadata.annotations`` (a
CronJob's job template's pod template, as core.references.table's ``template_metadata`` finds it), so
that a new value is a new pod template. It is written as an edit of the referrer's own text,
every other byte kept: the value replaced in place, or the key added as the first entry of
its map, with ``annotations:`` and ``metadata:`` maps added where the template has none, in
block or flow style alike (yaml.textedit); nothing is written from a tree. A second run reads
the same value and changes nothing.

Only runs with a stable-name object reach this module: the referrer is parsed again here
(its tree was dropped in the scan), which costs those runs alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.naming.strategy import CONFIG_HASH
from krmfn.krm.resource import Resource
from krmfn.yaml.textedit import Edit, NotEditable, add_entries, replace_scalar, set_map


@dataclass(frozen=True, repr=False, eq=False)
class Annotation:
    """The pod-template annotation one referrer gets: where, what, and how it is written."""

    path: tuple[str, ...]  # the pod template's metadata, from the object's root
    value: str
    current: str | None  # the value it has now (None: none)
    edits: list[Edit]  # in its own text


def annotation(res: Resource, path: tuple[str, ...], value: str) -> Annotation:
    """What makes the referrer's pod template (metadata at ``path``) carry ``value``."""
    doc = res.tree
    template = doc.path(res.node, *path[:-1])
    metadata = doc.get(template, path[-1]) if template is not None else None
    annotations = doc.get(metadata, "annotations") if metadata is not None else None
    child = doc.get(annotations, CONFIG_HASH) if annotations is not None else None
    current = doc.scalar(child) if child is not None else None
    if current == value or template is None:
        return Annotation(path, value, current, [])
    if child is not None:
        edits = [replace_scalar(doc, child, value)]
    elif metadata is not None:
        if not doc.is_map(metadata):
            raise NotEditable(metadata, f"it is {doc.describe(metadata)}, not a map")
        edits = set_map(doc, metadata, "annotations", {CONFIG_HASH: value}, first=True)
    else:
        if not doc.is_map(template):
            raise NotEditable(template, f"it is {doc.describe(template)}, not a map")
        edits = [add_entries(doc, template, ((path[-1], {"annotations": {CONFIG_HASH: value}}),), first=True)]
    return Annotation(path, value, current, edits)


__all__ = ["Annotation", "annotation"]
