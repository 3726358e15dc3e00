"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very nodes that were read, in their order; only the
``results`` field of the envelope is written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .yamldoc import Doc, YamlError

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
    file: tuple[str, int] | None = None

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
        if self.file is not None:
            out["file"] = {"path": self.file[0], "index": self.file[1]}
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


@dataclass
class Resource:
    """A view of one item: its identity and the nodes the function reads or writes."""

    doc: Doc
    node: int
    api_version: str
    kind: str
    name: str
    namespace: str
    metadata: int
    # Set once the function renames the object; ``ref`` keeps naming it as it was read.
    ref: ResourceRef = field(init=False)

    def __post_init__(self) -> None:
        self.ref = ResourceRef(self.api_version, self.kind, self.name, self.namespace)

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @cached_property
    def annotations(self) -> dict[str, str]:
        """The annotations as read (edits made later by the function are not seen here)."""
        return self.doc.str_map(self.doc.get(self.metadata, "annotations"))

    @property
    def labels(self) -> dict[str, str]:
        return self.doc.str_map(self.doc.get(self.metadata, "labels"))

    @property
    def file(self) -> tuple[str, int] | None:
        ann = self.annotations
        path = ann.get("config.kubernetes.io/path") or ann.get("internal.config.kubernetes.io/path")
        if not path:
            return None
        index = ann.get("config.kubernetes.io/index") or ann.get("internal.config.kubernetes.io/index") or "0"
        return (path, int(index) if index.isdigit() else 0)


def read_resource(doc: Doc, node: int, where: str) -> Resource:
    """Check that ``node`` is a Kubernetes object and return its view; ``where`` names it in errors."""
    if not doc.is_map(node):
        raise error(f"{where} is {doc.describe(node)}, not a Kubernetes object (a map with apiVersion, kind and metadata)")
    kind = doc.str(doc.get(node, "kind"))
    api_version = doc.str(doc.get(node, "apiVersion"))
    metadata = doc.get(node, "metadata")
    name = doc.str(doc.get(metadata, "name")) if metadata is not None else None
    if not kind:
        raise error(f"{where} has no kind")
    if not api_version:
        raise error(f"{where} ({kind}) has no apiVersion")
    if metadata is None or not doc.is_map(metadata):
        raise error(f"{where} ({kind}) has no metadata map")
    if not name:
        raise error(f"{where} ({kind}) has no metadata.name")
    namespace = doc.str(doc.get(metadata, "namespace")) or ""
    return Resource(doc, node, api_version, kind, name, namespace, metadata)


@dataclass
class ResourceList:
    doc: Doc
    node: int
    items: list[Resource]
    function_config: int | None


def read_resource_list(doc: Doc) -> ResourceList:
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
        raise error(f"the input is kind {kind!r}, apiVersion {api_version!r}; expected kind ResourceList, "
                    f"apiVersion {' or '.join(RESOURCE_LIST_VERSIONS)}")
    items_node = doc.get(root, "items")
    if items_node is None or doc.is_null(items_node):
        items: list[Resource] = []
    elif not doc.is_seq(items_node):
        raise error(f"the ResourceList's items is {doc.describe(items_node)}, not a list")
    else:
        items = [read_resource(doc, n, f"item {i}") for i, n in enumerate(doc.children(items_node))]
    fc = doc.get(root, "functionConfig")
    if fc is not None and doc.is_null(fc):
        fc = None
    return ResourceList(doc, root, items, fc)


def write_results(rl: ResourceList, results: list[Result]) -> None:
    """Replace the envelope's ``results``, so that a run over its own output changes nothing."""
    doc = rl.doc
    existing = doc.get(rl.node, "results")
    if existing is not None:
        doc.remove(existing)
    if results:
        doc.build(rl.node, "results", [r.to_data() for r in results])


def has_errors(results: list[Result]) -> bool:
    return any(r.severity == "error" for r in results)


__all__ = ["Doc", "YamlError", "Resource", "ResourceRef", "Result", "FunctionError", "ResourceList",
           "read_resource_list", "read_resource", "write_results", "has_errors", "error"]
