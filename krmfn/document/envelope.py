"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very texts that were read, in their order; only the
``results`` field of the envelope is written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from krmfn.document import chunks
from krmfn.document.chunks import Split
from krmfn.document.data import results_yaml
from krmfn.document.tree import Doc
from krmfn.results import InputError, Result

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")


@dataclass(repr=False, eq=False)
class ResourceList:
    """The envelope (its own small tree) and the items' texts, read one at a time."""

    envelope: Doc
    node: int
    layout: Split
    function_config: int | None
    # How messages name each item: "item N" unless the caller knows better ("document 2 of a.yaml").
    item_names: Sequence[str] | None = None

    def item_name(self, index: int) -> str:
        names = self.item_names
        return names[index] if names is not None and index < len(names) else f"item {index}"

    @property
    def sources(self) -> list[bytes]:
        return self.layout.items


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


def _normalise(data: bytes) -> Split:
    """Parse the whole input and re-emit it in block style, so that it splits."""
    doc = Doc.parse(data)
    root = _check_envelope(doc)
    doc.block_style(root)
    items = doc.get(root, "items")
    if items is not None and doc.is_seq(items):
        doc.block_style(items)
    text = bytes(doc.emit())
    if text.startswith(b"---\n"):  # the input's one document came after a ``---`` (or a directive)
        text = text[4:]
    layout = chunks.split(text)
    if layout is None:
        tab = "; it has a tab after a '-' or in an indentation, where YAML allows only spaces" if b"\t" in data else ""
        raise InputError(f"the ResourceList could not be read item by item{tab}")
    return layout


def read_resource_list(data: bytes, item_names: Sequence[str] | None = None) -> ResourceList:
    """Split the input, read and check its envelope; items are read later, one at a time."""
    layout = chunks.split(data) or _normalise(data)
    envelope = Doc.parse(layout.envelope() or b"{}")
    root = _check_envelope(envelope)
    fc = envelope.get(root, "functionConfig")
    if fc is not None and envelope.is_null(fc):
        fc = None
    return ResourceList(envelope, root, layout, fc, item_names)


def render(rl: ResourceList, items: list[bytes], results: list[Result]) -> list[bytes]:
    """The output ResourceList's pieces: envelope as read, ``items``, and ``results``
    (replacing any old ones, so that a run over its own output changes nothing)."""
    text = b""
    if results:
        text = results_yaml(results).encode()
    return chunks.assemble(rl.layout, items, text)
