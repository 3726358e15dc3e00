"""The stable-name mode's one edit in a referrer: ``krmfn.dev/config-hash`` in its pod template.

The annotation goes where the controller watches, ``spec.template.metadata.annotations`` (a
CronJob's job template's pod template, as core.references.table's ``template_metadata`` finds it), so
that a new value is a new pod template. It is written as an edit of the referrer's own text,
every other byte kept: the value replaced in place, or the key added as the first entry of
its map, with ``annotations:`` and ``metadata:`` maps added where the template has none, in
block or flow style alike (yaml.textedit); nothing is written from a tree. A second run reads
the same value and changes nothing.

The value is known only once every object it covers is hashed (the plan), while the tree is
read once, in the scan: there :func:`prepare` finds where the annotation goes and makes its
edits with a stand-in value, and the plan puts the value in (:meth:`Prepared.fill`), with no
second parse of the referrer. Only runs that may hold a stable-name object prepare anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.naming.strategy import CONFIG_HASH
from krmfn.krm.resource import Resource
from krmfn.yaml.scalars import dquote, scalar
from krmfn.yaml.textedit import (
    AddEntries,
    Change,
    Edit,
    FillNull,
    NotEditable,
    Site,
    Value,
    add_entries,
    replace_at,
    set_map,
    site,
)
from krmfn.yaml.tree import Node

# The value the edits are made with before the real one is known: plain text in every reader, in
# no digest's alphabet, so that each place it is written is found and replaced (core.naming.strategy).
STAND_IN = "KRMFN.CONFIG.HASH"


@dataclass(frozen=True, repr=False, eq=False)
class Annotation:
    """The pod-template annotation one referrer gets: where, what, and how it is written."""

    path: tuple[str, ...]  # the pod template's metadata, from the object's root
    value: str
    current: str | None  # the value it has now (None: none)
    edits: list[Edit]  # in its own text


class Prepared:
    """Where one referrer's annotation goes, read from its tree: its current value, and either
    the site of that value, the edits that add it (made with :data:`STAND_IN`), or why it cannot
    be written (raised only if a value must be). A plain class: kept per referrer, pickled by
    the parallel scan."""

    __slots__ = ("current", "edits", "error", "path", "site")

    def __init__(self, path: tuple[str, ...], current: str | None, at: Site | None = None,
                 edits: list[Edit] | None = None, error: tuple[Node, str] | None = None):
        self.path = path
        self.current = current
        self.site = at
        self.edits = edits
        self.error = error

    def fill(self, value: str) -> Annotation:
        """The annotation with ``value``: no edit where it is the value already (or nothing can
        carry it); raises NotEditable where it must change and cannot."""
        if self.current == value or (self.site is None and self.edits is None and self.error is None):
            return Annotation(self.path, value, self.current, [])
        if self.error is not None:
            raise NotEditable(*self.error)
        if self.site is not None:
            return Annotation(self.path, value, self.current, [replace_at(self.site, value)])
        return Annotation(self.path, value, self.current, [_filled(e, value) for e in self.edits or ()])


def prepare(res: Resource, path: tuple[str, ...]) -> Prepared:
    """What :class:`Prepared` holds, read from the referrer's tree (metadata at ``path``)."""
    doc = res.tree
    template = doc.path(res.node, *path[:-1])
    metadata = doc.get(template, path[-1]) if template is not None else None
    annotations = doc.get(metadata, "annotations") if metadata is not None else None
    child = doc.get(annotations, CONFIG_HASH) if annotations is not None else None
    current = doc.scalar(child) if child is not None else None
    if template is None:
        return Prepared(path, current)
    try:
        if child is not None:
            return Prepared(path, current, at=site(doc, child))
        if metadata is not None:
            if not doc.is_map(metadata):
                raise NotEditable(metadata, f"it is {doc.describe(metadata)}, not a map")
            return Prepared(path, current, edits=set_map(doc, metadata, "annotations", {CONFIG_HASH: STAND_IN},
                                                         first=True))
        if not doc.is_map(template):
            raise NotEditable(template, f"it is {doc.describe(template)}, not a map")
        return Prepared(path, current, edits=[add_entries(doc, template, ((path[-1], {"annotations": {
            CONFIG_HASH: STAND_IN}}),), first=True)])
    except NotEditable as exc:  # kept as (field, why): an exception does not survive the parallel scan's pickle
        return Prepared(path, current, error=(exc.node, str(exc)))


def annotation(res: Resource, path: tuple[str, ...], value: str) -> Annotation:
    """What makes the referrer's pod template (metadata at ``path``) carry ``value``, from its
    tree (read again if the scan prepared nothing)."""
    return prepare(res, path).fill(value)


def _filled(edit: Edit, value: str) -> Edit:
    """An edit made with the stand-in, with ``value`` in its place: in quotes where the stand-in
    was quoted (a JSON-like flow map), else as :func:`~krmfn.yaml.scalars.scalar` writes it."""
    text = edit.text.replace(f'"{STAND_IN}"', dquote(value)).replace(STAND_IN, scalar(value))
    return Edit(edit.start, edit.end, text, _change_filled(edit.change, value))


def _change_filled(change: Change | None, value: str) -> Change | None:
    if isinstance(change, AddEntries):
        return AddEntries(change.node, _entries_filled(change.entries, value), change.before)
    if isinstance(change, FillNull):
        return FillNull(change.node, _entries_filled(change.entries, value))
    assert change is None, change  # set_map and add_entries make no other change here
    return change


def _entries_filled(entries: tuple[tuple[str, Value], ...], value: str) -> tuple[tuple[str, Value], ...]:
    return tuple((key, value if v == STAND_IN else dict(_entries_filled(tuple(v.items()), value))
                  if isinstance(v, dict) else v) for key, v in entries)


__all__ = ["Annotation", "Prepared", "annotation", "prepare"]
