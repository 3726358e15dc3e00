"""The reference walk: field specs compiled into tries per kind, and the loop that follows them.

Why tries: paths share long prefixes (``spec/template/spec``), walked once per object; the
walk is the hottest loop of a run and calls rapidyaml's functions directly (document.native).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from krmfn.core.fieldspec import FieldSpec, split_path
from krmfn.core.table import NOTICES, Notice, table_specs
from krmfn.document import native as raw
from krmfn.document.native import NONE
from krmfn.document.tree import Doc

# --- compiled tries and the walk ------------------------------------------------------------

# A trie of paths: key (bytes, as rapidyaml looks it up) -> sub-trie. The key END marks where
# a ConfigMap name sits: mapped to None (found as it is) or to a leaf, the tuple of specs with
# attributes that end there (the first that accepts a scalar wins).
Trie = dict
END = b""
Leaf = tuple  # tuple[FieldSpec, ...]


# The same trie as nested tuples for the walk: ``(((key, Walk), ...), end)``, where ``end`` is
# None (no name ends here), True (found as it is) or a Leaf. Tuples unpack faster than dicts iterate.
Walk = tuple


def compile_walk(trie: Trie) -> Walk:
    end = (True if trie[END] is None else trie[END]) if END in trie else None
    return tuple((key, compile_walk(sub)) for key, sub in trie.items() if key != END), end


def _match(leaf: Leaf, doc: Doc, node: int) -> FieldSpec | None:
    return next((s for s in leaf if s.accepts(doc, node)), None)


def _leaf_specs(spec: FieldSpec) -> list[FieldSpec]:
    """A spec, and, where it may end at a map, the same spec continued to the map's name."""
    if not spec.maps:
        return [spec]
    return [replace(spec, maps=False),
            replace(spec, path=spec.path + ("name",), namespace_from=spec.namespace_from or "namespace",
                    maps=False)]


def compile_trie(specs: Iterable[FieldSpec]) -> Trie:
    """Merge paths so that shared prefixes (``spec/template/spec``) are walked once."""
    root: Trie = {}
    for spec in (s for given in specs for s in _leaf_specs(given)):
        node = root
        for key in spec.path:
            node = node.setdefault(key.encode(), {})
        if spec.plain:
            node[END] = None  # found whatever else ends here
        elif END not in node:
            node[END] = (spec,)
        elif node[END] is not None and spec not in node[END]:
            node[END] += (spec,)
    return root


@dataclass
class ReferenceTable:
    """Field specs indexed by kind, compiled per (apiVersion, kind) into a trie on first use."""

    by_kind: dict[str, list[FieldSpec]]
    notices: tuple[Notice, ...] = ()
    _tries: dict[tuple[str, str], Trie] = field(default_factory=dict)
    notice_kinds: frozenset[str] = field(init=False)  # a set test per item, before any notice work
    _notices: dict[tuple[str, str], tuple[Notice, ...]] = field(default_factory=dict)
    _walks: dict[tuple[str, str], Walk | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.notice_kinds = frozenset(n.kind for n in self.notices)

    @classmethod
    def of(cls, specs: Iterable[FieldSpec], notices: tuple[Notice, ...] = ()) -> ReferenceTable:
        by_kind: dict[str, dict[FieldSpec, None]] = {}  # ordered sets: a hash each, not a scan of the bucket
        for spec in specs:
            by_kind.setdefault(spec.kind, {})[spec] = None
        return cls({kind: list(bucket) for kind, bucket in by_kind.items()}, notices)

    @classmethod
    def builtin(cls, extra: Iterable[FieldSpec] = ()) -> ReferenceTable:
        """The whole built-in table (with its notices), plus user field specs."""
        return cls.of(table_specs() + tuple(extra), NOTICES)

    @classmethod
    def by_renamed_kind(cls, extra: Iterable[FieldSpec] = ()) -> dict[str, ReferenceTable]:
        """One table per renamed kind (the built-in rows plus user field specs), each walked
        for every referrer; the first carries the notices, said once per object."""
        grouped: dict[str, list[FieldSpec]] = {}
        for spec in table_specs() + tuple(extra):
            grouped.setdefault(spec.refers_to, []).append(spec)
        return {kind: cls.of(specs, NOTICES if i == 0 else ()) for i, (kind, specs) in enumerate(grouped.items())}

    def specs_for(self, api_version: str, kind: str) -> list[FieldSpec]:
        group, _, version = api_version.rpartition("/")
        return [s for s in self.by_kind.get(kind, ()) if s.selects(group, version, kind)]

    def trie_for(self, api_version: str, kind: str) -> Trie:
        key = (api_version, kind)
        trie = self._tries.get(key)
        if trie is None:
            trie = self._tries[key] = compile_trie(self.specs_for(api_version, kind))
        return trie

    def walk_for(self, api_version: str, kind: str) -> Walk | None:
        """The kind's trie compiled for :func:`find`; None when the kind names no ConfigMap."""
        key = (api_version, kind)
        if key not in self._walks:
            trie = self.trie_for(api_version, kind)
            self._walks[key] = compile_walk(trie) if trie else None
        return self._walks[key]

    def notes(self, doc: Doc, node: int, api_version: str, kind: str) -> list[tuple[str, str]]:
        """``(field path, message)`` for each notice whose field the object has."""
        key = (api_version, kind)
        notices = self._notices.get(key)
        if notices is None:
            group, _, _ = api_version.rpartition("/")
            notices = self._notices[key] = tuple(
                n for n in self.notices if n.kind == kind and (n.group is None or n.group == group))
        out = []
        for notice in notices:
            at: int | None = node
            for step in split_path(notice.path):
                at = doc.get(doc.resolve(at), step) if at is not None else None
            if at is not None and not doc.is_null(at):
                values = _Blank(doc.str_map(doc.resolve(at)))
                out.append((".".join(split_path(notice.path)), notice.message.format_map(values)))
        return out


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def find(doc: Doc, node: int, trie: Trie | Walk, attrs: dict[int, FieldSpec] | None = None) -> list[int]:
    """Every scalar the trie leads to below ``node``; lists are traversed implicitly.

    Scalars found through a spec with attributes are kept only when its conditions hold, and
    the spec is recorded in ``attrs`` (for the namespace it names, or a ``namespace/`` prefix).

    The hottest loop of a run (every workload, every path): it calls rapidyaml directly, asks
    whether a node is a list only when none of the trie's keys is found in it (``find_child``
    finds no key in a list), and builds no paths; :meth:`Doc.path_of` makes one when needed.
    """
    walk = compile_walk(trie) if isinstance(trie, dict) else trie
    t, may_alias, resolve = doc.raw, doc.may_alias, doc.resolve
    is_seq, find_child, first_child, next_sibling = raw.is_seq, raw.find_child, raw.first_child, raw.next_sibling
    has_val = raw.has_val
    found: list[int] = []
    stack: list[tuple[int, Walk]] = [(node, walk)]
    pop, push = stack.pop, stack.append
    while stack:
        node, step = pop()
        if may_alias:
            node = resolve(node)
        pairs, end = step
        if end is not None and has_val(t, node):  # a scalar; nulls and non-strings are the caller's to skip
            if end is True:
                found.append(node)
            else:  # a leaf of specs with attributes: rare
                spec = _match(end, doc, node)
                if spec is not None:
                    found.append(node)
                    if attrs is not None:
                        attrs[node] = spec
            continue
        matched = False
        for key, sub in pairs:
            child = find_child(t, node, key)  # NONE for scalars and lists
            if child != NONE:
                push((child, sub))
                matched = True
        if not matched and is_seq(t, node):
            child = first_child(t, node)
            while child != NONE:
                push((child, step))
                child = next_sibling(t, child)
    found.sort()  # document order, whatever the stack's order
    return found
