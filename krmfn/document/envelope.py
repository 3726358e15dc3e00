"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very texts that were read, in their order; only the
``results`` field of the envelope is written here. Whatever the input's shape (block or flow
style, JSON, a leading ``---``, CRLF, a BOM), it is cut into its items' own texts
(document.chunks), never re-emitted; Lists among the items are read as their entries
(document.lists).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from krmfn.document import chunks, lists
from krmfn.document.chunks import Origin, Split, SplitError
from krmfn.document.compare import data_of, differences
from krmfn.document.data import block_yaml
from krmfn.document.encoding import TextForm
from krmfn.document.resource import parse_item
from krmfn.document.tree import Doc, YamlError
from krmfn.results import InputError, Result

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")


@dataclass(repr=False, eq=False)
class ResourceList:
    """The envelope (its own small tree) and the items' texts, read one at a time."""

    envelope: Doc
    node: int
    layout: Split
    function_config: int | None
    flat: lists.Flat
    form: TextForm = field(default_factory=TextForm)

    def item_name(self, index: int) -> str:
        """How messages name an item that cannot be named by its kind and name."""
        return self.flat.names[index] if index < len(self.flat.names) else f"item {index}"

    def origin(self, index: int) -> Origin:
        """Where an item's text is in the input (for a message's line and column)."""
        return self.flat.origins[index] if index < len(self.flat.origins) else Origin()

    @property
    def sources(self) -> list[bytes]:
        """Every item's text, Lists' entries in their place."""
        return self.flat.sources


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


def _check_cut(data: bytes, layout: Split, envelope: Doc, root: int) -> None:
    """A list cut by the flow tokenizer: each item, read alone, must be what the whole says."""
    whole = Doc.parse(data)
    top = _check_envelope(whole)
    items = whole.get(top, "items")
    read = list(whole.children(items)) if items is not None and whole.is_seq(items) else []
    if len(read) != len(layout.items):
        raise InputError(f"the ResourceList holds {len(read)} items, but {len(layout.items)} were cut out of its "
                         "text; write it in block style")
    for index, (node, text) in enumerate(zip(read, layout.items)):
        doc, item = parse_item(text)
        wrong = differences(data_of(whole, node), data_of(doc, item))
        if wrong:
            raise InputError(f"item {index} did not read the same cut out of the list as in it ({wrong[0]}); write "
                             "the ResourceList in block style")
    whole_data = data_of(whole, top)
    assert isinstance(whole_data, dict)
    wrong = differences({k: v for k, v in whole_data.items() if k not in ("items", "results")}, data_of(envelope, root))
    if wrong:
        raise InputError(f"the ResourceList's {wrong[0]} did not read the same written in block style")


def read_resource_list(data: bytes, item_names: Sequence[str] | None = None,
                       item_origins: Sequence[Origin] | None = None, form: TextForm = TextForm()) -> ResourceList:
    """Split the input, read and check its envelope; items are read later, one at a time.

    ``item_names`` and ``item_origins``: how messages name each item, and where its text is in
    the user's input (a stream's documents, a file's), when not "item N" of this text.
    ``form``: the BOM and line breaks the input came with, for :func:`render`.
    """
    try:
        layout = chunks.layout(data)
    except SplitError as exc:
        raise _unsplittable(data, exc) from None
    envelope = Doc.parse(layout.envelope() or b"{}")
    root = _check_envelope(envelope)
    if layout.by_tokenizer:
        _check_cut(data, layout, envelope, root)
    fc = envelope.get(root, "functionConfig")
    if fc is not None and envelope.is_null(fc):
        fc = None
    count = len(layout.items)
    names = [item_names[i] if item_names is not None and i < len(item_names) else f"item {i}" for i in range(count)]
    origins = list(item_origins) if item_origins is not None else layout.origins
    flat = lists.flatten(layout.items, names, origins + [Origin()] * (count - len(origins)))
    return ResourceList(envelope, root, layout, fc, flat, form)


def render(rl: ResourceList, items: list[bytes], results: list[Result]) -> list[bytes]:
    """The output ResourceList's pieces: envelope as read, ``items`` (one per item the core read:
    Lists are put back together here), and ``results`` (replacing any old ones, so that a run
    over its own output changes nothing), in the input's form (BOM, CRLF)."""
    text = b""
    if results:
        text = block_yaml({"results": [r.to_data() for r in results]}).encode()
    return rl.form.restore(chunks.assemble(rl.layout, rl.flat.unflatten(items), text))


__all__ = ["RESOURCE_LIST_VERSIONS", "ResourceList", "YamlError", "read_resource_list", "render"]
