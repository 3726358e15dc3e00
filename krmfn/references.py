"""Where ConfigMaps are named: the reference table, as data, and the walk that finds them.

A :class:`FieldSpec` says "in objects of this kind (and group), the path P holds a ConfigMap
name", in the grammar of kustomize's ``nameReference`` field specs: ``/``-separated keys,
lists traversed implicitly. The built-in table is generated from two small tables: which
kinds hold a pod spec and where, and where a pod spec names ConfigMaps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from . import yamldoc as raw
from .yamldoc import NONE, Doc

# Kinds that hold a pod spec, and the path to it. group None: any API group (as kustomize).
POD_SPEC_KINDS: tuple[tuple[str | None, str, str], ...] = (
    ("", "Pod", "spec"),
    ("", "PodTemplate", "template/spec"),
    ("", "ReplicationController", "spec/template/spec"),
    (None, "Deployment", "spec/template/spec"),
    (None, "ReplicaSet", "spec/template/spec"),
    (None, "DaemonSet", "spec/template/spec"),
    (None, "StatefulSet", "spec/template/spec"),
    ("batch", "Job", "spec/template/spec"),
    ("batch", "CronJob", "spec/jobTemplate/spec/template/spec"),
)

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
# Inside one container.
CONTAINER_FIELDS = ("env/valueFrom/configMapKeyRef/name", "envFrom/configMapRef/name")
# Inside a pod spec, beside the containers.
POD_FIELDS = ("volumes/configMap/name", "volumes/projected/sources/configMap/name")


@dataclass(frozen=True)
class FieldSpec:
    kind: str
    path: tuple[str, ...]
    group: str | None = None
    version: str | None = None

    @property
    def path_text(self) -> str:
        return "/".join(p.replace("/", "\\/") for p in self.path)

    def selects(self, group: str, version: str, kind: str) -> bool:
        return (kind == self.kind and (self.group is None or self.group == group)
                and (self.version is None or self.version == version))


def split_path(path: str) -> tuple[str, ...]:
    """Split a field-spec path on ``/``, where ``\\/`` is a slash inside a key."""
    parts, cur, i = [], [], 0
    while i < len(path):
        if path[i] == "\\" and i + 1 < len(path) and path[i + 1] == "/":
            cur.append("/")
            i += 2
            continue
        if path[i] == "/":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(path[i])
        i += 1
    parts.append("".join(cur))
    return tuple(parts)


def pod_spec_paths(prefix: str) -> list[str]:
    """Every path, below a pod spec at ``prefix``, that names a ConfigMap."""
    paths = [f"{prefix}/{lst}/{f}" for lst in CONTAINER_LISTS for f in CONTAINER_FIELDS]
    paths += [f"{prefix}/{f}" for f in POD_FIELDS]
    return paths


def builtin_specs() -> tuple[FieldSpec, ...]:
    return tuple(FieldSpec(kind, split_path(p), group)
                 for group, kind, prefix in POD_SPEC_KINDS for p in pod_spec_paths(prefix))


def parse_field_specs(value: object) -> list[FieldSpec]:
    """User field specs, as kustomize writes them: ``[{kind, group?, version?, path}]``."""
    if not isinstance(value, list):
        raise ValueError("must be a list of field specs ({kind, group, version, path})")
    specs = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or not entry.get("kind") or not entry.get("path"):
            raise ValueError(f"entry {i} needs kind and path")
        specs.append(FieldSpec(entry["kind"], split_path(entry["path"]), entry.get("group"), entry.get("version")))
    return specs


# A trie of paths: key (bytes, as rapidyaml looks it up) -> sub-trie; the key END, mapped
# to None, marks where a ConfigMap name sits.
Trie = dict
END = b""


def compile_trie(specs: list[FieldSpec]) -> Trie:
    """Merge paths so that shared prefixes (``spec/template/spec``) are walked once."""
    root: Trie = {}
    for spec in specs:
        node = root
        for key in spec.path:
            node = node.setdefault(key.encode(), {})
        node[END] = None
    return root


@dataclass
class ReferenceTable:
    """Field specs indexed by kind, compiled per (apiVersion, kind) into a trie on first use."""

    by_kind: dict[str, list[FieldSpec]]
    _tries: dict[tuple[str, str], Trie] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: tuple[FieldSpec, ...] | list[FieldSpec]) -> ReferenceTable:
        by_kind: dict[str, list[FieldSpec]] = {}
        for spec in specs:
            bucket = by_kind.setdefault(spec.kind, [])
            if spec not in bucket:
                bucket.append(spec)
        return cls(by_kind)

    def specs_for(self, api_version: str, kind: str) -> list[FieldSpec]:
        group, _, version = api_version.rpartition("/")
        return [s for s in self.by_kind.get(kind, ()) if s.selects(group, version, kind)]

    def trie_for(self, api_version: str, kind: str) -> Trie:
        key = (api_version, kind)
        trie = self._tries.get(key)
        if trie is None:
            trie = self._tries[key] = compile_trie(self.specs_for(api_version, kind))
        return trie


def find(doc: Doc, node: int, trie: Trie) -> list[int]:
    """Every scalar the trie leads to below ``node``; lists are traversed implicitly.

    The hottest loop of a run (every workload, every path): it calls rapidyaml directly and
    builds no paths; :meth:`Doc.path_of` makes one when a result needs it.
    """
    t, may_alias, resolve = doc.tree, doc.may_alias, doc.resolve
    is_seq, find_child, first_child, next_sibling = raw.is_seq, raw.find_child, raw.first_child, raw.next_sibling
    has_val = raw.has_val
    found: list[int] = []
    stack: list[tuple[int, Trie]] = [(node, trie)]
    pop, push = stack.pop, stack.append
    while stack:
        node, trie = pop()
        if may_alias:
            node = resolve(node)
        if is_seq(t, node):
            child = first_child(t, node)
            while child != NONE:
                push((child, trie))
                child = next_sibling(t, child)
            continue
        for key, sub in trie.items():
            if sub is None:
                if has_val(t, node):  # a scalar; nulls and non-strings are the caller's to skip
                    found.append(node)
            else:
                child = find_child(t, node, key)  # NONE for scalars and lists too
                if child != NONE:
                    push((child, sub))
    found.sort()  # document order, whatever the stack's order
    return found
