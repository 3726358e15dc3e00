"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very nodes that were read, in their order; only the
``results`` field of the envelope is written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import chunks
from .chunks import Split
from .yamldoc import NONE, Doc, YamlError, scalar

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")
SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class ResourceRef:
    api_version: str
    kind: str
    name: str
    namespace: str = ""

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"

    def to_data(self) -> dict[str, str]:
        out = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True)
class Result:
    """One entry of ``results``: what a reviewer or a pipeline needs to know."""

    message: str
    severity: str = "info"
    resource: ResourceRef | None = None
    field_path: str | None = None
    current: str | None = None
    proposed: str | None = None

    def to_data(self) -> dict[str, object]:
        out: dict[str, object] = {"message": self.message, "severity": self.severity}
        if self.resource is not None:
            out["resourceRef"] = self.resource.to_data()
        if self.field_path is not None:
            fld: dict[str, str] = {"path": self.field_path}
            if self.current is not None:
                fld["currentValue"] = self.current
            if self.proposed is not None:
                fld["proposedValue"] = self.proposed
            out["field"] = fld
        return out

    def __str__(self) -> str:
        where = f"{self.resource}" if self.resource else ""
        if self.field_path:
            where += f" {self.field_path}" if where else self.field_path
        return f"{self.severity}: {where + ': ' if where else ''}{self.message}"


class FunctionError(Exception):
    """A failure reported as error results; the run writes no items."""

    def __init__(self, results: list[Result] | Result):
        self.results = [results] if isinstance(results, Result) else list(results)
        super().__init__("; ".join(r.message for r in self.results))


def error(message: str, resource: ResourceRef | None = None, field_path: str | None = None) -> FunctionError:
    return FunctionError(Result(message, "error", resource, field_path))


@dataclass(slots=True)
class Resource:
    """One item: its identity, and while it is being read or edited, its own parsed tree.

    ``source`` is the item's text as it came in; ``doc`` is None once the tree is dropped,
    and :meth:`reload` parses ``source`` again (node ids come out the same).
    """

    doc: Doc | None
    node: int
    api_version: str
    kind: str
    name: str
    namespace: str
    metadata: int
    index: int
    source: bytes
    _annotations: dict[str, str] | None = field(default=None, repr=False)
    _labels: dict[str, str] | None = field(default=None, repr=False)

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
            self._annotations = self.tree.str_map(self.tree.get(self.metadata, "annotations"))
        return self._annotations

    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:
            self._labels = self.tree.str_map(self.tree.get(self.metadata, "labels"))
        return self._labels

    @property
    def tree(self) -> Doc:
        if self.doc is None:
            self.reload()
        assert self.doc is not None
        return self.doc

    def reload(self) -> None:
        self.doc = parse_item(self.source)[0]

    def drop(self) -> None:
        """Forget the tree (memory follows one item, not the list); identity stays."""
        self.doc = None


def parse_item(source: bytes) -> tuple[Doc, int]:
    """Parse one item's text (``- `` and all) in place from a private copy; the item's node."""
    doc = Doc.parse(bytearray(source))
    root = doc.root
    if doc.is_stream(root):
        root = doc.first_child(root)
    item = doc.first_child(root) if doc.is_seq(root) else NONE
    if item == NONE or doc.next_sibling(item) != NONE:
        raise YamlError("an item's text did not read back as one list entry")
    return doc, item


def read_resource(source: bytes, index: int) -> Resource:
    """Parse and check one item; errors name it by its position."""
    where = f"item {index}"
    try:
        doc, node = parse_item(source)
    except YamlError as exc:
        detail = str(exc).removeprefix("not valid YAML: ")
        raise error(f"{where} is not valid YAML: {detail} (lines counted from the item's first line)") from None
    if not doc.is_map(node):
        raise error(f"{where} is {doc.describe(node)}, not a Kubernetes object (a map with apiVersion, kind and metadata)")
    kind = doc.str_at(node, b"kind")
    api_version = doc.str_at(node, b"apiVersion")
    metadata = doc.get_b(node, b"metadata")
    name = doc.str_at(metadata, b"name") if metadata is not None else None
    if not kind:
        raise error(f"{where} has no kind")
    if not api_version:
        raise error(f"{where} ({kind}) has no apiVersion")
    if metadata is None or not doc.is_map(metadata):
        raise error(f"{where} ({kind}) has no metadata map")
    if not name and kind != "ConfigMap":  # a Workflow or Job created with generateName has no name yet
        name = doc.str_at(metadata, b"generateName")
    if not name:
        raise error(f"{where} ({kind}) has no metadata.name")
    if kind == "ConfigMap" and doc.string(doc.get_b(metadata, b"name")) is None:  # the name krmfn builds on
        raise error(f"{where} ({kind}) has a metadata.name that YAML reads as a non-string ({name}); "
                    "write it as plain text")
    namespace = doc.str_at(metadata, b"namespace") or ""
    return Resource(doc, node, api_version, kind, name, namespace, metadata, index, source)


@dataclass
class ResourceList:
    """The envelope (its own small tree) and the items' texts, read one at a time."""

    envelope: Doc
    node: int
    layout: Split
    function_config: int | None

    @property
    def sources(self) -> list[bytes]:
        return self.layout.items


def _check_envelope(doc: Doc) -> int:
    docs = doc.documents()
    if not docs:
        raise error("the input is empty; expected a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1)")
    if len(docs) > 1:
        raise error(f"the input holds {len(docs)} YAML documents; a ResourceList is exactly one "
                    "(use `krmfn --stream` for a plain multi-document stream)")
    root = docs[0]
    if not doc.is_map(root):
        raise error(f"the input is {doc.describe(root)}, not a ResourceList")
    kind = doc.str(doc.get(root, "kind"))
    api_version = doc.str(doc.get(root, "apiVersion"))
    if kind != "ResourceList" or api_version not in RESOURCE_LIST_VERSIONS:
        raise error(f"the input is kind {kind or '(none)'}, apiVersion {api_version or '(none)'}; expected a KRM "
                    f"ResourceList: kind ResourceList, apiVersion {' or '.join(RESOURCE_LIST_VERSIONS)}")
    items = doc.get(root, "items")
    if items is not None and not doc.is_null(items) and not doc.is_seq(items):
        raise error(f"the ResourceList's items is {doc.describe(items)}, not a list")
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
        raise error(f"the ResourceList could not be read item by item{tab}")
    return layout


def read_resource_list(data: bytes) -> ResourceList:
    """Split the input, read and check its envelope; items are read later, one at a time."""
    layout = chunks.split(data) or _normalise(data)
    envelope = Doc.parse(layout.envelope() or b"{}")
    root = _check_envelope(envelope)
    fc = envelope.get(root, "functionConfig")
    if fc is not None and envelope.is_null(fc):
        fc = None
    return ResourceList(envelope, root, layout, fc)


def render(rl: ResourceList, items: list[bytes], results: list[Result]) -> list[bytes]:
    """The output ResourceList's pieces: envelope as read, ``items``, and ``results``
    (replacing any old ones, so that a run over its own output changes nothing)."""
    text = b""
    if results:
        text = block_yaml({"results": [r.to_data() for r in results]}).encode()
    return chunks.assemble(rl.layout, items, text)


def block_yaml(value: object, indent: str = "") -> str:
    """Block-style YAML for results (maps of strings and lists): written directly, since
    building a tree only to emit it costs more than the run's own work on large inputs."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{indent}{k}:\n{block_yaml(v, indent + '  ')}")
            else:
                out.append(f"{indent}{k}: {scalar(v)}\n")
        return "".join(out)
    if isinstance(value, list):
        out = []
        for v in value:
            body = block_yaml(v, indent + "  ") if isinstance(v, (dict, list)) else f"{indent}  {scalar(v)}\n"
            out.append(f"{indent}- {body[len(indent) + 2:]}")
        return "".join(out)
    return f"{indent}{scalar(value)}\n"


def has_errors(results: list[Result]) -> bool:
    return any(r.severity == "error" for r in results)
