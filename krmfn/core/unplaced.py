"""Warnings for ConfigMap references krmfn cannot place: fields shaped like one, where the reference
table does not look (in kinds it does not know, or outside the paths it has for a kind it knows).

Why: a reference krmfn does not rewrite keeps naming the old ConfigMap, and nothing fails
until the workload rolls. When such a field names an opted-in ConfigMap, the warning gives its
exact path and a field spec ready to paste into ``fieldSpecs``.

Two steps, so that only the rare match pays for the details: :func:`candidates` runs in the
scan (cheap, and only on items whose text mentions ``onfigMap``); :func:`warning` runs in the
plan, for candidates whose name matches an opted-in ConfigMap. A ConfigMap named only so is not
also said to be referenced by nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.fieldspec import join_path
from krmfn.core.table import pod_spec_paths
from krmfn.document.resource import Resource
from krmfn.document.scalars import dquote, plain_safe
from krmfn.document.tree import Doc
from krmfn.results import Result

# Every shape below contains this, so an item's text without it has none (configMap, ConfigMap...):
# rewrite.scan searches the item's bytes for it before walking any tree.
MARKER = b"onfigMap"
# Keys whose value, a map, names a ConfigMap in its ``name``.
REFERENCE_MAPS = ("configMapRef", "configMapKeyRef", "configMap")
# Keys whose value is a ConfigMap's name.
REFERENCE_SCALARS = ("configMapName",)
# A map that names a kind beside a name: ``{kind: ConfigMap, name: x}`` (Flux ``valuesFrom``-like).
KIND_KEY, KIND = "kind", "ConfigMap"
# A map with a list under this key is pod-spec-like: suggest field specs for all of it.
POD_SPEC_KEY = "containers"


def candidates(doc: Doc, top: int, skip: int | None = None) -> list[int]:
    """Scalars below ``top`` (not below ``skip``, the metadata) shaped like a ConfigMap name."""
    found: dict[int, None] = {}
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
            if key in REFERENCE_MAPS:
                name = doc.get(doc.resolve(child), "name")
                if name is not None and doc.string(name) is not None:
                    found[name] = None
            elif key in REFERENCE_SCALARS and doc.string(child) is not None:
                found[child] = None
            elif key == KIND_KEY and node != top and doc.str(child) == KIND:
                name = doc.get(node, "name")
                if name is not None and doc.string(name) is not None:
                    found[name] = None
            stack.append(child)
    return sorted(found)  # document order


@dataclass(frozen=True)
class Suggestion:
    """Field specs that would place a reference: its own path, or its whole pod spec."""

    specs: tuple[str, ...]  # each a one-line YAML flow map, ready to paste as a list entry
    pod_spec: str | None  # the pod-spec-like map's field path, when there is one


def _keys(doc: Doc, node: int, top: int) -> list[tuple[str, int]]:
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


def suggest(res: Resource, node: int) -> Suggestion:
    doc = res.tree
    steps = _keys(doc, node, res.node)
    keys = [k for k, _ in steps]
    by_kind = bool(steps) and doc.str(doc.get(steps[-1][1], KIND_KEY)) == KIND and keys[-1] == "name"
    head = f"kind: {_flow(res.kind)}" + (f", group: {_flow(res.group)}" if res.group else "")
    exact = (join_path(keys), f", when: {{{KIND_KEY}: {KIND}}}" if by_kind else "")
    specs = [exact]
    pod_spec = None
    for depth in range(len(steps) - 1, -1, -1):  # the nearest pod-spec-like map above the reference
        holder = steps[depth][1]
        containers = doc.get(holder, POD_SPEC_KEY)
        if containers is not None and doc.is_seq(doc.resolve(containers)):
            specs = [(p, "") for p in pod_spec_paths(join_path(keys[:depth]))]
            if exact not in specs:
                specs.append(exact)
            pod_spec = doc.path_of(holder, res.node) or "(the object itself)"
            break
    return Suggestion(tuple(f"{{{head}, path: {_flow(p)}{when}}}" for p, when in specs), pod_spec)


def warning(res: Resource, node: int, name: str, new_name: str, known: bool = False) -> Result:
    """The warning for one unplaced reference that names the opted-in ConfigMap ``new_name``;
    ``known``: in a kind the reference table knows, outside the paths it has for it."""
    where = res.tree.path_of(node, res.node)
    kind = f"{res.kind} ({res.group})" if res.group else res.kind
    s = suggest(res, node)
    why = (f"krmfn does not rewrite this field of {kind}" if known else
           f"krmfn does not know where {kind} names ConfigMaps")
    if name != new_name:
        fate = (f"names ConfigMap {name}, which krmfn renames to {new_name}, but {why}: it is left unchanged and "
                "keeps naming the old ConfigMap.")
    else:
        fate = (f"names ConfigMap {name}, krmfn's hashed name for it today, but {why}: it will keep this name "
                "when the ConfigMap's data changes.")
    scope = f"; it sits in a pod spec at {s.pod_spec}, so these cover all of it" if s.pod_spec else ""
    message = (f"{fate} To rewrite it, add to the function config's fieldSpecs{scope}:\n"
               + "\n".join(f"- {spec}" for spec in s.specs))
    return Result(message, "warning", res.ref, where, name, new_name)


__all__ = ["MARKER", "Suggestion", "candidates", "suggest", "warning"]
