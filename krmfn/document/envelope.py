"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very texts that were read, in their order; only the
``results`` field of the envelope is written here. Whatever the input's shape (block or flow
style, JSON, a leading ``---``, CRLF, a BOM), it is cut into its items' own texts
(document.chunks), never re-emitted; Lists among the items are read as their entries
(document.lists).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from krmfn.document import chunks
from krmfn.document.chunks import Origin, Split, SplitError
from krmfn.document.data import results_yaml
from krmfn.document.encoding import TextForm
from krmfn.document.tree import Doc, YamlError
from krmfn.results import InputError, Result

if TYPE_CHECKING:
    from krmfn.document.lists import Flat

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")


@dataclass(repr=False, eq=False)
class ResourceList:
    """The envelope (its own small tree) and the items' texts, read one at a time."""

    envelope: Doc
    node: int
    layout: Split
    function_config: int | None
    names: Sequence[str] | None  # how messages name each item that cannot be named by kind and name
    origins: list[Origin] | None  # where each item's text is in the user's input; None: ask layout
    flat: Flat | None = None  # Lists among the items, read as their objects (document.lists)
    form: TextForm = field(default_factory=TextForm)

    def item_name(self, index: int) -> str:
        names = self.flat.names if self.flat is not None else self.names
        return names[index] if names is not None and index < len(names) else f"item {index}"

    def origin(self, index: int) -> Origin:
        """Where an item's text is in the input (for a message's line and column)."""
        if self.flat is not None:
            origins = self.flat.origins
        elif self.origins is None:
            return self.layout.origin(index)
        else:
            origins = self.origins
        return origins[index] if index < len(origins) else Origin()

    def placer(self, index: int) -> Callable[[int, int], tuple[int, int]]:
        """Where a line and column of an item's text are in the input; its origin is found only
        when a message asks (counting lines from the top for every item would cost a pass each)."""
        return lambda line, col: self.origin(index).place(line, col)

    @property
    def sources(self) -> list[bytes]:
        """Every item's text, Lists' entries in their place."""
        return self.flat.sources if self.flat is not None else self.layout.items


def _check_envelope(doc: Doc) -> int:
    docs = doc.documents()
    if not docs:
        raise InputError("the input is empty; expected a ResourceList (kind: ResourceList, "
                         "apiVersion: config.kubernetes.io/v1)")
    if len(docs) > 1:
        raise InputError(f"the input holds {len(docs)} YAML documents; a ResourceList is exactly one "
                         "(use `krmfn --stream` for a plain multi-document stream)")
    root = docs[0]
    if not doc.is_map(root):
        raise InputError(f"the input is {doc.describe(root)}, not a ResourceList")
    kind = doc.str(doc.get(root, "kind"))
    api_version = doc.str(doc.get(root, "apiVersion"))
    if kind != "ResourceList" or api_version not in RESOURCE_LIST_VERSIONS:
        raise InputError(f"the input is kind {kind or '(none)'}, apiVersion {api_version or '(none)'}; expected a KRM "
                         f"ResourceList: kind ResourceList, apiVersion {' or '.join(RESOURCE_LIST_VERSIONS)}")
    items = doc.get(root, "items")
    if items is not None and not doc.is_null(items) and not doc.is_seq(items):
        raise InputError(f"the ResourceList's items is {doc.describe(items)}, not a list")
    return root


def _unsplittable(data: bytes, exc: SplitError) -> InputError:
    """Why a text the splitter cannot cut is refused: what the whole document says first (not a
    ResourceList, two documents, not YAML), else where the cut was unsure."""
    doc = Doc.parse(data)  # raises YamlError, with its line and column, for text that is not YAML
    _check_envelope(doc)
    line, col = chunks.line_of(data, exc.offset), chunks.column_of(data, exc.offset)
    return InputError(f"the ResourceList could not be cut into its items for certain: {exc} at line {line}, "
                      f"column {col}; krmfn never re-writes items it does not change, so it reads a ResourceList "
                      "item by item (block style as kpt writes it, or JSON)")


def cut(data: bytes) -> Split:
    """The input cut into its items: block style by document.chunks, flow style by document.flowsplit
    (which checks its cut against a parse of the whole)."""
    try:
        return chunks.layout(data)
    except chunks.FlowShape as shape:
        from krmfn.document import flowsplit  # here, for start-up time: flow-style lists are rare

        return flowsplit.layout(data, shape)


def read_resource_list(data: bytes, item_names: Sequence[str] | None = None,
                       item_origins: Sequence[Origin] | None = None, form: TextForm = TextForm()) -> ResourceList:
    """Split the input, read and check its envelope; items are read later, one at a time.

    ``item_names`` and ``item_origins``: how messages name each item, and where its text is in
    the user's input (a stream's documents, a file's), when not "item N" of this text.
    ``form``: the BOM and line breaks the input came with, for :func:`render`.
    """
    try:
        layout = cut(data)
    except SplitError as exc:
        raise _unsplittable(data, exc) from None
    envelope = Doc.parse(layout.envelope() or b"{}")
    root = _check_envelope(envelope)
    fc = envelope.get(root, "functionConfig")
    if fc is not None and envelope.is_null(fc):
        fc = None
    count = len(layout.items)
    names = item_names
    origins = list(item_origins) if item_origins is not None else None
    flat = None
    if data.find(b"List") >= 0 and any(item.find(b"List") >= 0 for item in layout.items):  # Lists are rare
        from krmfn.document import lists  # here, for start-up time

        every = origins or [layout.origin(i) for i in range(count)]
        named = [names[i] if names is not None and i < len(names) else f"item {i}" for i in range(count)]
        flat = lists.flatten(layout.items, named, every + [Origin()] * (count - len(every)))
        flat = flat if flat.groups else None
    return ResourceList(envelope, root, layout, fc, names, origins, flat, form)


def render(rl: ResourceList, items: list[bytes], results: list[Result]) -> list[bytes]:
    """The output ResourceList's pieces: envelope as read, ``items`` (one per item the core read:
    Lists are put back together here), and ``results`` (replacing any old ones, so that a run
    over its own output changes nothing), in the input's form (BOM, CRLF)."""
    text = b""
    if results:
        text = results_yaml(results).encode()
    top = rl.flat.unflatten(items) if rl.flat is not None else items
    return rl.form.restore(chunks.assemble(rl.layout, top, text))


__all__ = ["RESOURCE_LIST_VERSIONS", "ResourceList", "YamlError", "cut", "read_resource_list", "render"]
