"""The reference walk: field specs compiled into tries per kind, and the loops that follow them.

Why tries: paths share long prefixes (``spec/template/spec``), walked once per object; the
walk is the hottest loop of a run and reads the tree's arrays directly. One compiled walk runs
over either form an object comes in: the tree (:func:`find`: the rename, ``krmfn plan``) or
plain data as ``json.loads`` gives it (:func:`find_in_data`: gc's live state), so a row added
to the table reaches every command.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from krmfn.core.references.fieldspec import FieldSpec, split_path
from krmfn.core.references.table import BUILTIN, NOTICES, Entry, Notice
from krmfn.yaml.follow import Walk, follow
from krmfn.yaml.tree import Doc, Node

# --- compiled tries and the walk ------------------------------------------------------------

# A trie of paths: key -> sub-trie. The key END marks where
# a name sits: it maps each renamed kind named there to None (found as it is) or to a leaf, the
# tuple of that kind's specs with attributes (the first that accepts a scalar wins).
Trie = dict
END = ""
Leaf = tuple  # tuple[FieldSpec, ...]

# The same trie as nested tuples for the walk (yaml.follow): ``(((key, Walk), ...), end)``, where
# ``end`` is None (no name ends here), the renamed kind's name (one kind, found as it is: the
# common case), or ``((kind, Leaf or None), ...)``. Tuples unpack faster than dicts iterate.
# What the walk finds: the scalar, the renamed kind it names, and the spec when it has
# attributes to apply (a namespace beside it, a ``namespace/`` prefix), else None.
Found = tuple  # tuple[Node, str, FieldSpec | None]


def compile_walk(trie: Trie) -> Walk:
    ends: dict[str, Leaf | None] | None = trie.get(END)
    end: object = None
    if ends is not None:
        end = next(iter(ends)) if len(ends) == 1 and None in ends.values() else tuple(ends.items())
    return tuple((key, compile_walk(sub)) for key, sub in trie.items() if key != END), end


def _match(leaf: Leaf, doc: Doc, node: Node) -> FieldSpec | None:
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
            node = node.setdefault(key, {})
        ends = node.setdefault(END, {})
        kind = spec.refers_to
        if spec.plain:
            ends[kind] = None  # found whatever else of this kind ends here
        elif kind not in ends:
            ends[kind] = (spec,)
        elif ends[kind] is not None and spec not in ends[kind]:
            ends[kind] += (spec,)
    return root


@dataclass
class ReferenceTable:
    """Where each kind names objects of the renamed kinds: the built-in rows and user field specs
    by kind, made into field specs and compiled into one walk per (apiVersion, kind) on first use.

    Why on first use: the built-in table holds hundreds of specs, and a run meets a few kinds;
    building them all would cost every one-item run more than its own work.
    """

    rows: dict[str, list[Entry | FieldSpec]]  # by kind: built-in rows and user specs, in order
    notices: tuple[Notice, ...] = ()
    notice_kinds: frozenset[str] = field(init=False)  # a set test per item, before any notice work
    _specs: dict[tuple[str, str], list[FieldSpec]] = field(default_factory=dict)
    _notices: dict[tuple[str, str], tuple[Notice, ...]] = field(default_factory=dict)
    _walks: dict[tuple[str, str], Walk | None] = field(default_factory=dict)
    _keys: dict[tuple[str, str], tuple[bytes, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.notice_kinds = frozenset(n.kind for n in self.notices)

    @classmethod
    def of(cls, rows: Iterable[Entry | FieldSpec], notices: tuple[Notice, ...] = ()) -> ReferenceTable:
        by_kind: dict[str, list[Entry | FieldSpec]] = {}
        for row in rows:
            by_kind.setdefault(row.kind, []).append(row)
        return cls(by_kind, notices)

    @classmethod
    def builtin(cls, extra: Iterable[FieldSpec] = ()) -> ReferenceTable:
        """The whole built-in table (with its notices), plus user field specs: what a run walks."""
        return cls.of((*BUILTIN, *extra), NOTICES)

    @property
    def by_kind(self) -> dict[str, list[FieldSpec]]:
        """Every spec, by kind (gc reads every referrer kind; a run never needs them all)."""
        out: dict[str, list[FieldSpec]] = {}
        for kind, rows in self.rows.items():
            specs = (s for row in rows for s in (row.specs() if isinstance(row, Entry) else (row,)))
            out[kind] = list(dict.fromkeys(specs))
        return out

    def specs_for(self, api_version: str, kind: str) -> list[FieldSpec]:
        key = (api_version, kind)
        found = self._specs.get(key)
        if found is None:
            group, _, version = api_version.rpartition("/")
            specs = (s for row in self.rows.get(kind, ())
                     if not isinstance(row, Entry) or row.group is None or row.group == group
                     for s in (row.specs() if isinstance(row, Entry) else (row,)))
            found = self._specs[key] = [s for s in dict.fromkeys(specs) if s.selects(group, version, kind)]
        return found

    def trie_for(self, api_version: str, kind: str) -> Trie:
        return compile_trie(self.specs_for(api_version, kind))

    def walk_for(self, api_version: str, kind: str) -> Walk | None:
        """The kind's trie compiled for :func:`find`; None when the kind names no renamed object."""
        key = (api_version, kind)
        if key not in self._walks:
            trie = self.trie_for(api_version, kind) if kind in self.rows else None
            self._walks[key] = compile_walk(trie) if trie else None
        return self._walks[key]

    def may_name(self, api_version: str, kind: str, source: bytes) -> bool:
        """Whether an object's text can hold a name at one of its kind's paths: a path is followed
        only through keys written in the text, so the longest key of one of them is in it. Why:
        the scan need not parse an object that reads nothing (most Deployments of a render, every
        Role without ``resourceNames``). A backslash could escape a key's letters in a quoted key:
        a text with one is always read."""
        key = (api_version, kind)
        keys = self._keys.get(key)
        if keys is None:
            keys = self._keys[key] = tuple(sorted({max(s.path, key=len).encode()
                                                   for s in self.specs_for(api_version, kind) if s.path}))
        return b"\\" in source or any(k in source for k in keys)

    def notes(self, doc: Doc, node: Node, api_version: str, kind: str) -> list[tuple[str, str]]:
        """``(field path, message)`` for each notice whose field the object has."""
        key = (api_version, kind)
        notices = self._notices.get(key)
        if notices is None:
            group, _, _ = api_version.rpartition("/")
            notices = self._notices[key] = tuple(
                n for n in self.notices if n.kind == kind and (n.group is None or n.group == group))
        out = []
        for notice in notices:
            at: Node | None = node
            for step in split_path(notice.path):
                at = doc.get(doc.resolve(at), step) if at is not None else None
            if at is not None and not doc.is_null(at):
                values = _Blank(doc.scalar_map(doc.resolve(at)))
                out.append((".".join(split_path(notice.path)), notice.message.format_map(values)))
        return out


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def find(doc: Doc, node: Node, trie: Trie | Walk) -> list[Found]:
    """Every scalar the trie leads to below ``node``, with the renamed kind it names; lists are
    traversed implicitly. Scalars found through a spec with attributes are kept only when its
    conditions hold, and come with that spec (for the namespace it names, or a ``namespace/`` prefix).

    How aliases are followed, and the order: :func:`krmfn.yaml.follow.follow`, the traversal.
    """
    walk = compile_walk(trie) if isinstance(trie, dict) else trie
    found: list[Found] = []
    for at, end in follow(doc, node, walk):  # nulls and non-strings are the caller's to skip
        if end.__class__ is str:
            found.append((at, end, None))
        else:  # several kinds end here, or specs with attributes: rare
            for target_kind, leaf in end:  # type: ignore[attr-defined]
                spec = None if leaf is None else _match(leaf, doc, at)
                if leaf is None or spec is not None:
                    found.append((at, target_kind, spec))
    found.sort(key=lambda f: (f[0], f[1]))  # by node, then kind: a Role rule's names in one order, as before
    return found


def find_in_data(value: object, walk: Walk) -> list[tuple[str, str]]:
    """Every non-empty string the walk leads to below ``value`` (plain data: dicts, lists,
    scalars), with the renamed kind it names; lists are traversed implicitly, in order.

    The walk's conditions (``when``) are not checked here: they read the tree. A caller that
    keeps what is named (gc) then keeps more, never less.
    """
    found: list[tuple[str, str]] = []
    _visit(value, walk[0], walk[1], found)
    return found


def _visit(value: object, pairs: tuple, end: object, found: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, sub in pairs:
            if key in value:
                _visit(value[key], sub[0], sub[1], found)
    elif isinstance(value, list):
        for child in value:
            _visit(child, pairs, end, found)
    elif end is not None and isinstance(value, str) and value:
        if end.__class__ is str:
            found.append((value, end))
        else:  # several kinds end here, or specs with attributes: every kind, whatever its conditions
            found.extend((value, kind) for kind, _ in end)  # type: ignore[attr-defined]
