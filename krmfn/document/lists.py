"""Objects inside ``kind: List`` and typed lists (``ConfigMapList``, ``RoleList``) read as items.

Why: kube-prometheus publishes its 33 Grafana dashboards as one ConfigMapList, and its RBAC as
RoleList and RoleBindingList; ``kubectl apply`` reads the objects inside, while kpt and
kustomize pass the List on as one object. So krmfn reads each object inside a List as an item
of its own (hashed, referenced from outside, rewritten), and writes the List back as the List
it was: untouched, byte for byte; changed, with its untouched entries byte for byte.

A List is an item whose kind ends in ``List``, with an ``items`` list and no ``metadata.name``.
Only items whose text holds ``List`` are looked at (a byte search), and only those whose
``kind`` line says so are parsed here. One level: a List inside a List is an ordinary item.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from krmfn.document import flow
from krmfn.document.chunks import Origin, SplitError, column_of, line_of, lines_of
from krmfn.document.resource import parse_item
from krmfn.document.scalars import Lazy
from krmfn.document.tree import Doc, YamlError
from krmfn.results import InputError

_LIST_KIND = Lazy(rb"""["']?kind["']?[ \t]*:[ \t]*["']?[A-Za-z0-9]*List["']?[ \t]*(?:[,}#\r\n]|$)""")
_ITEM_LINE = Lazy(rb"^( *)([^ \n#])", re.M)
_WHITE = b" \t\r\n"


@dataclass(frozen=True, repr=False, eq=False)
class Group:
    """One List among the items: its entries are the flat items ``first`` to ``first + count``.

    ``pieces`` is the List's text around its entries (``pieces[0] e0 pieces[1] ... pieces[count]``)
    when they are its own lines (a block list); for a flow list, ``pieces`` is the List written in
    block style around the entries, used only when an entry changed.
    """

    outer: int
    first: int
    count: int
    text: bytes
    pieces: tuple[bytes, ...]

    def join(self, entries: Sequence[bytes], sources: Sequence[bytes]) -> bytes:
        """The List's output text: as it came when no entry changed."""
        if all(out is src or out == src for out, src in zip(entries, sources)):
            return self.text
        out = [self.pieces[0]]
        for entry, piece in zip(entries, self.pieces[1:]):
            out += [entry, piece]
        return b"".join(out)


@dataclass(frozen=True, repr=False, eq=False)
class Flat:
    """The items as the core reads them: Lists replaced by their entries."""

    sources: list[bytes]
    names: list[str]
    origins: list[Origin]
    groups: list[Group]
    outer: int  # how many top-level items there are

    def unflatten(self, outputs: Sequence[bytes]) -> list[bytes]:
        """The top-level items' texts from the flat items' output texts."""
        if not self.groups:
            return list(outputs)
        out: list[bytes] = []
        pos = 0
        for group in self.groups:
            out += outputs[pos:group.first]
            end = group.first + group.count
            out.append(group.join(outputs[group.first:end], self.sources[group.first:end]))
            pos = end
        out += outputs[pos:]
        return out


def flatten(items: Sequence[bytes], names: Sequence[str], origins: Sequence[Origin]) -> Flat:
    """Lists among ``items`` replaced by their entries. Raises InputError for a List whose
    entries cannot be cut for certain."""
    sources: list[bytes] = []
    flat_names: list[str] = []
    flat_origins: list[Origin] = []
    groups: list[Group] = []
    for index, text in enumerate(items):
        found = _entries(text, names[index]) if b"List" in text and _LIST_KIND.search(text) else None
        if found is None:
            sources.append(text)
            flat_names.append(names[index])
            flat_origins.append(origins[index])
            continue
        kind, entries, pieces = found
        groups.append(Group(index, len(sources), len(entries), text, pieces))
        for j, (entry, line, first_col, col) in enumerate(entries):
            sources.append(entry)
            flat_names.append(f"{names[index]}, entry {j} of its {kind}")
            flat_origins.append(origins[index].inner(line, first_col, col))
    return Flat(sources, flat_names, flat_origins, groups, len(items))


Entries = list[tuple[bytes, int, int, int]]  # (text, line offset in the List's text, column deltas)


def _entries(text: bytes, name: str) -> tuple[str, Entries, tuple[bytes, ...]] | None:
    """A List's kind, its entries and the pieces around them; None when the item is no List."""
    try:
        doc, node = parse_item(text)
    except YamlError:
        return None  # reading the item reports it
    if not doc.is_map(node):
        return None
    kind = doc.str_at(node, b"kind") or ""
    items = doc.get_b(node, b"items")
    metadata = doc.get_b(node, b"metadata")
    if not kind.endswith("List") or items is None or not doc.is_seq(items) or \
            (metadata is not None and doc.is_map(metadata) and doc.get_b(metadata, b"name") is not None):
        return None
    try:
        found = _block_list(doc, node, items, text) if doc.is_block(node) else _flow_list(text)
    except (SplitError, flow.FlowError) as exc:
        line, col = line_of(text, exc.offset), column_of(text, exc.offset)
        raise InputError(f"{name} ({kind}) cannot be cut into its objects: {exc} at line {line}, column {col} of "
                         "the item; write it as a block-style list, or as separate documents") from None
    entries, pieces = found
    if len(entries) != doc.tree.num_children(items):
        raise InputError(f"{name} ({kind}): its items could not be told apart; write it as separate documents")
    return kind, entries, pieces


def _key_column(text: bytes, offset: int) -> int:
    return offset - (text.rfind(b"\n", 0, offset) + 1)


def _block_list(doc: Doc, node: int, items: int, text: bytes) -> tuple[Entries, tuple[bytes, ...]]:
    """The entries of a block-style List: their own lines, or (``items: [...]``) a flow list's."""
    key_at = doc.key_offset(items)
    if key_at is None:
        raise SplitError("an items key krmfn cannot find in the text", 0)
    column = _key_column(text, key_at)
    if text[key_at - 1:key_at] in (b'"', b"'"):
        column -= 1
    colon = text.find(b":", key_at)
    pos = colon + 1
    while pos < len(text) and text[pos] in b" \t":
        pos += 1
    if text[pos:pos + 1] == b"#":
        pos = text.find(b"\n", pos)
    start = _skip_blank(text, pos)
    if start < len(text) and text[start] == 0x5B:  # "[": a flow list under a block key
        entries, after = flow.collection(text, start)
        lines = [b" " * column + b"- " + flow.pad_lines(text[e.start:e.end], column + 1) + b"\n" for e in entries]
        line_end = text.find(b"\n", after)
        tail = text[line_end + 1:] if line_end >= 0 else b""
        head = text[:colon + 1] + b"\n"
        starts = lines_of(text, [e.start for e in entries])
        return ([(line, at - 1, column_of(text, e.start) - (column + 3), 0)
                 for line, e, at in zip(lines, entries, starts)], (head, *[b""] * (len(entries) - 1), tail))
    body = text.find(b"\n", colon) + 1
    first = _ITEM_LINE.search(text, body)
    if first is None or len(first.group(1)) < column or text[first.start(2)] != 0x2D:
        return [], (text,)  # no entries (``items:`` then null, or nothing)
    dash = len(first.group(1))
    cuts: list[int] = []
    end = len(text)
    shallow = re.compile(rb"\n( {0,%d})(?=[^ \n#])" % dash)
    for m in shallow.finditer(text, body - 1):
        at = m.end()
        col = len(m.group(1))
        if col == dash and text[at] == 0x2D and text[at + 1:at + 2] in (b" ", b"\n", b""):
            cuts.append(m.start() + 1)
        elif col <= column and text[at] != 0x09:
            end = m.start() + 1
            break
        elif text[at] == 0x09 and not text[at:text.find(b"\n", at)].strip(_WHITE):
            continue
        else:
            raise SplitError("a line between the items' column and their key's", at)
    bounds = cuts + [end]
    starts = lines_of(text, cuts)
    found: Entries = [(text[a:b], at - 1, 0, 0) for (a, b), at in zip(itertools.pairwise(bounds), starts)]
    return found, (text[:cuts[0]], *[b""] * (len(cuts) - 1), text[end:])


def _skip_blank(text: bytes, pos: int) -> int:
    """The offset of the first character after ``pos`` that is not white space or a comment line."""
    while pos < len(text):
        if text[pos] in _WHITE:
            pos += 1
        elif text[pos] == 0x23:
            nl = text.find(b"\n", pos)
            pos = len(text) if nl < 0 else nl
        else:
            break
    return pos


def _flow_list(text: bytes) -> tuple[Entries, tuple[bytes, ...]]:
    """The entries of a List written as a flow map (``- {"kind": "List", "items": [...]}``).

    When an entry changes, the List is written in block style around them: its other entries
    as ``key: value`` lines with their values' text, the items as block entries.
    """
    brace = text.find(b"{")
    dash = _key_column(text, text.find(b"-"))
    column = dash + 2
    top, _ = flow.collection(text, brace)
    lines: list[bytes] = []
    entries: Entries = []
    pieces: list[bytes] = []
    current = b""
    for entry in top:
        key, value = entry.key(text), entry.value(text)
        if entry.colon is None or b"\n" in key:
            raise SplitError("an entry that is not a one-line 'key: value'", entry.start)
        lead = b" " * dash + b"- " if not lines and not entries and not current else b" " * column
        if key.strip(b"\"'") != b"items":
            current += lead + key + b": " + flow.pad_lines(value, column + 1) + b"\n"
            lines.append(key)
            continue
        bracket = _skip_blank(text, entry.colon + 1)
        inner, _ = flow.collection(text, bracket)
        current += lead + key + b":\n"
        for e in inner:
            pieces.append(current)
            current = b""
            entries.append((b" " * column + b"- " + flow.pad_lines(text[e.start:e.end], column + 1) + b"\n",
                            e.start, column_of(text, e.start) - (column + 3), 0))
    pieces.append(current)
    numbers = lines_of(text, [at for _, at, _, _ in entries])  # offsets, made line offsets at once
    return [(t, line - 1, first, col) for (t, _, first, col), line in zip(entries, numbers)], tuple(pieces)


__all__ = ["Flat", "Group", "flatten"]
