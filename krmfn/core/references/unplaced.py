"""Warnings for references krmfn cannot place: fields shaped like a ConfigMap or Secret reference,
where the reference table does not look (in kinds it does not know, or outside the paths it has
for a kind it knows).

Why: a reference krmfn does not rewrite keeps naming the old object, and nothing fails until the
workload rolls. When such a field names an opted-in object, the warning gives its exact path and
a field spec ready to paste into ``fieldSpecs``.

Two steps, so that only the rare match pays for the details: :func:`candidates` runs in the
scan (cheap, and only on items whose text holds a kind's marker); :func:`warning` runs in the
plan, for candidates whose name matches an opted-in object. An object named only so is not also
said to be referenced by nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from krmfn.core.references.fieldspec import join_path
from krmfn.core.references.table import pod_spec_paths
from krmfn.krm.resource import Resource
from krmfn.results import Result
from krmfn.yaml.scalars import dquote, plain_safe
from krmfn.yaml.tree import Doc, Node


@dataclass(frozen=True)
class Shapes:
    """How a field names an object of one renamed kind, by its keys alone."""

    kind: str
    marker: bytes  # in every shape below, so an item's text without it has none (a byte search first)
    maps: tuple[tuple[str, str], ...]  # (key, field of its map, or of each map in its list, that holds the name)
    scalars: tuple[str, ...]  # keys whose value is a name


SHAPES: dict[str, Shapes] = {s.kind: s for s in (
    Shapes("ConfigMap", b"onfigMap", (("configMapRef", "name"), ("configMapKeyRef", "name"), ("configMap", "name")),
           ("configMapName",)),
    Shapes("Secret", b"ecret", (("secretRef", "name"), ("secretKeyRef", "name"), ("secret", "secretName"),
                                ("imagePullSecrets", "name")), ("secretName",)),
)}
# A map that names a kind beside a name: ``{kind: ConfigMap, name: x}`` (Flux ``valuesFrom``-like).
KIND_KEY = "kind"
# The result's tag that holds the field specs to paste.
DETAIL_TAG = "fieldSpecs"
# A map with a list under this key is pod-spec-like: suggest field specs for all of it.
POD_SPEC_KEY = "containers"


def candidates(doc: Doc, top: Node, skip: Node | None, shapes: Iterable[Shapes]) -> list[tuple[Node, str]]:
    """Scalars below ``top`` (not below ``skip``, the metadata) shaped like a name of one of
    ``shapes``' kinds, with that kind, in document order."""
    maps = {key: (field, s.kind) for s in shapes for key, field in s.maps}
    scalars = {key: s.kind for s in shapes for key in s.scalars}
    kinds = {s.kind for s in shapes}
    found: dict[Node, str] = {}

    def name_in(node: Node, field: str, kind: str) -> None:
        name = doc.get(node, field) if doc.is_map(node) else None
        if name is not None and doc.string(name) is not None:
            found.setdefault(name, kind)

    stack = [top]
    while stack:
        node = doc.resolve(stack.pop())
        if doc.is_seq(node):
            stack.extend(doc.children(node))
            continue
        if not doc.is_map(node):
            continue
        for key, child in doc.items(node):
            if child == skip:
                continue
            if key in maps:
                value = doc.resolve(child)
                for each in (doc.children(value) if doc.is_seq(value) else (value,)):
                    name_in(doc.resolve(each), *maps[key])
            elif key in scalars and doc.string(child) is not None:
                found.setdefault(child, scalars[key])
            elif key == KIND_KEY and node != top and doc.scalar(child) in kinds:
                name_in(node, "name", doc.scalar(child) or "")
            stack.append(child)
    return sorted(found.items())  # document order


@dataclass(frozen=True)
class Suggestion:
    """Field specs that would place a reference: its own path, or its whole pod spec."""

    specs: tuple[str, ...]  # each a one-line YAML flow map, ready to paste as a list entry
    pod_spec: str | None  # the pod-spec-like map's field path, when there is one


def _keys(doc: Doc, node: Node, top: Node) -> list[tuple[str, Node]]:
    """(key, map holding it) from ``top`` down to ``node``; list indexes are left out."""
    steps = []
    while node != top:
        parent = doc.parent(node)
        if parent is None:
            break
        if not doc.is_seq(parent):
            steps.append((doc.key(node), parent))
        node = parent
    return steps[::-1]


def _flow(value: str) -> str:
    return value if plain_safe(value) and "\\" not in value else dquote(value)


def suggest(res: Resource, node: Node, kind: str = "ConfigMap") -> Suggestion:
    """Field specs for a reference to a ``kind`` object at ``node``."""
    doc = res.tree
    steps = _keys(doc, node, res.node)
    keys = [k for k, _ in steps]
    by_kind = bool(steps) and doc.scalar(doc.get(steps[-1][1], KIND_KEY)) == kind and keys[-1] == "name"
    head = f"kind: {_flow(res.kind)}" + (f", group: {_flow(res.group)}" if res.group else "")
    exact = (join_path(keys), f", when: {{{KIND_KEY}: {kind}}}" if by_kind else "")
    specs = [exact]
    pod_spec = None
    for depth in range(len(steps) - 1, -1, -1):  # the nearest pod-spec-like map above the reference
        holder = steps[depth][1]
        containers = doc.get(holder, POD_SPEC_KEY)
        if containers is not None and doc.is_seq(doc.resolve(containers)):
            specs = [(p, "") for p in pod_spec_paths(join_path(keys[:depth]), kind)]
            if exact not in specs:
                specs.append(exact)
            pod_spec = doc.path_of(holder, res.node) or "(the object itself)"
            break
    return Suggestion(tuple(f"{{{head}, path: {_flow(p)}{when}}}" for p, when in specs), pod_spec)


def warning(res: Resource, node: Node, kind: str, name: str, new_name: str, known: bool = False) -> Result:
    """The warning for one unplaced reference that names the opted-in ``kind`` object ``new_name``;
    ``known``: in a kind the reference table knows, outside the paths it has for it."""
    where = res.tree.path_of(node, res.node)
    s = suggest(res, node, kind)
    where_not = "in a field krmfn does not rewrite" if known else f"where krmfn does not know {res.kind} names one"
    if name != new_name:
        fate = f"names {kind} {name} (now {new_name}) {where_not}: it keeps naming the old {kind}."
    else:
        fate = f"names {kind} {name}, its hashed name today, {where_not}: it will not follow a change."
    if kind == "ConfigMap":  # a plain list of field specs means ConfigMaps
        paste = "\n".join(f"- {spec}" for spec in s.specs)
    else:  # others go in a nameReference entry of their kind, as kustomize writes it
        paste = f"- kind: {kind}\n  fieldSpecs:\n" + "\n".join(f"  - {spec}" for spec in s.specs)
    what = "the fieldSpecs entry" if len(s.specs) == 1 else f"the {len(s.specs)} fieldSpecs entries"
    # One line of at most 200 characters; the snippet rides beside it, for -v and the result's tags.
    return Result(f"{fate} Add {what} krmfn -v prints (docs/field-specs.md)", "warning", res.ref, where, name,
                  new_name, paste, DETAIL_TAG, topic="unplaced-reference")


__all__ = ["SHAPES", "Shapes", "Suggestion", "candidates", "suggest", "warning"]
