"""One item of a ResourceList: its identity, and its own parsed tree while it is read or edited.

Why items are parsed one at a time: memory follows one item, not the whole list, and an
untouched item is written back as the very text it came in as.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from krmfn.results import InputError, ResourceRef
from krmfn.yaml.split import ItemText
from krmfn.yaml.tree import NONE, Doc, Node, Unreadable, YamlError, parse_item
from krmfn.yaml.verify import packed_meaning


@dataclass(slots=True, repr=False, eq=False)
class Resource:
    """One item: its identity, and while it is being read or edited, its own parsed tree.

    ``source`` is the item's text as it came in (held as its span of the input, ``text``, where
    the cut gave one); ``doc`` is None once the tree is dropped, and :meth:`reload` parses
    ``source`` again (node ids come out the same).
    """

    doc: Doc | None
    node: Node
    api_version: str
    kind: str
    name: str
    namespace: str
    metadata: Node
    index: int
    text: bytes | ItemText
    aliases: bool = False  # its text has an alias (the write then reads it again to keep them right)
    meaning: bytes | None = None  # what its tree read as, kept by drop(keep_meaning=True) for the check before writing
    _annotations: dict[str, str] | None = field(default=None, repr=False)
    _labels: dict[str, str] | None = field(default=None, repr=False)

    @property
    def source(self) -> bytes:
        text = self.text
        return text if text.__class__ is bytes else text.read()  # type: ignore[union-attr]

    @property
    def ref(self) -> ResourceRef:
        """The object as read: results name it so even after the function renames it."""
        return ResourceRef(self.api_version, self.kind, self.name, self.namespace)

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def annotations(self) -> dict[str, str]:
        """The annotations as read (edits made later by the function are not seen here)."""
        if self._annotations is None:
            self._annotations = self.tree.scalar_map(self.tree.get(self.metadata, "annotations"))
        return self._annotations

    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:
            self._labels = self.tree.scalar_map(self.tree.get(self.metadata, "labels"))
        return self._labels

    @property
    def tree(self) -> Doc:
        if self.doc is None:
            self.reload()
        assert self.doc is not None
        return self.doc

    def reload(self) -> None:
        self.doc, self.node = parse_item(self.source)
        metadata = self.doc.get(self.node, "metadata")
        if metadata is not None:
            self.metadata = metadata

    def drop(self, keep_meaning: bool = False) -> None:
        """Forget the tree (memory follows one item, not the list); identity stays. ``keep_meaning``:
        keep what it reads as, packed small (yaml.verify), so that the check before writing an
        item that changes reads only its new text, not its old one again."""
        if keep_meaning and self.doc is not None:
            self.meaning = packed_meaning(self.doc)
        self.doc = None


def known_resource(source: bytes | ItemText, index: int, ident: dict[str, str] | None) -> Resource | None:
    """An object known from what the cut read (yaml.split), without parsing it: its tree is
    read only if something asks for it. None when the cut could not tell it for certain."""
    if ident is None:
        return None
    kind, api_version = ident.get("kind"), ident.get("apiVersion")
    name = ident.get("metadata.name") or (ident.get("metadata.generateName") if kind != "ConfigMap" else None)
    if not kind or not api_version or not name:
        return None
    return Resource(None, NONE, api_version, kind, name, ident.get("metadata.namespace") or "", NONE, index, source)


def read_resource(source: bytes | ItemText, index: int, where: str | None = None,
                  place: Callable[[int, int], tuple[int, int]] | None = None) -> Resource:
    """Parse and check one item; errors name it ``where`` (default: by its position), and a
    position in its text as ``place`` gives it in the input (default: in the item's text)."""
    where = where or f"item {index}"
    try:
        doc, node = parse_item(source if isinstance(source, bytes) else source.read())
    except YamlError as exc:
        what = "cannot be read by krmfn" if isinstance(exc, Unreadable) else "is not valid YAML"
        at = exc.placed(place) if place is not None else f"{exc.detail} (lines counted from the item's first line)"
        raise InputError(f"{where} {what}: {at}") from None
    return resource_of(doc, node, source, index, where)


def resource_of(doc: Doc, node: Node, source: bytes | ItemText, index: int, where: str) -> Resource:
    """An item from its tree, checked as :func:`read_resource` checks it (``where``: its name in
    a message)."""
    if not doc.is_map(node):
        raise InputError(f"{where} is {doc.describe(node)}, not a Kubernetes object (a map with apiVersion, kind "
                         "and metadata)")
    kind = doc.scalar(doc.get(node, "kind"))
    api_version = doc.scalar(doc.get(node, "apiVersion"))
    metadata = doc.get(node, "metadata")
    name = doc.scalar(doc.get(metadata, "name")) if metadata is not None else None
    if not kind:
        raise InputError(f"{where} has no kind")
    if not api_version:
        raise InputError(f"{where} ({kind}) has no apiVersion")
    if metadata is None or not doc.is_map(metadata):
        raise InputError(f"{where} ({kind}) has no metadata map")
    if not name and kind != "ConfigMap":  # a Workflow or Job created with generateName has no name yet
        name = doc.scalar(doc.get(metadata, "generateName"))
    if not name:
        raise InputError(f"{where} ({kind}) has no metadata.name")
    name_node = doc.get(metadata, "name")
    if kind == "ConfigMap" and (name_node is None or doc.string(name_node) is None):  # the name krmfn builds on
        raise InputError(f"{where} ({kind}) has a metadata.name that YAML reads as a non-string ({name}); "
                    "write it as plain text")
    namespace = doc.scalar(doc.get(metadata, "namespace")) or ""
    # one string for each kind and apiVersion: thousands of objects keep theirs for the whole run
    return Resource(doc, node, sys.intern(api_version), sys.intern(kind), name, namespace, metadata, index, source)
