"""The rule before anything is written: an item whose text krmfn changed is read again by the
parser and must mean exactly its old value plus the planned changes.

Why: an edit is a splice of text, and a splice that is wrong in some shape nobody tested (an
indentless list, a block scalar at the end of a file, an anchor) would otherwise write a wrong
value with exit 0. Here a difference is an error naming the item and the field, whatever bug
made it. Meaning is compared, not bytes: a node's depth, kind, key, value (a plain scalar that
YAML reads as a number, boolean or null is told apart from a string), tag and anchor, in
document order; comments, layout and quoting styles that read the same do not count.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Iterable

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from krmfn.yaml.scalars import NULLS, non_string_plain
from krmfn.yaml.textedit import AddEntries, AddItems, Change, FillNull, RemoveEntry, SetScalar, Value
from krmfn.yaml.tree import (
    ALIAS,
    MAP,
    SCALAR,
    SEQ,
    STREAM,
    Doc,
    Node,
    YamlError,
    _error,
    as_read,
    parse_item,
    yaml_events,
)

Row = tuple  # (depth, kind, key, value, tag, anchor)


def _meaning(value: str | None, plain: bool) -> object:
    """A scalar's value as its type reads it: a plain ``true``, ``12`` or ``null`` is not a string."""
    if value is None or not plain:
        return value
    if value in NULLS or non_string_plain(value):
        return ("!", value)
    return value


def rows(text: bytes) -> tuple[list[Row], list[int]]:
    """Every node of a text as what it means, in document order (node ids as Doc gives them: the
    stream is 0), and where each node's subtree ends. One event pass, no tree: the check reads
    changed item's new text (its input's rows come from the scan's tree: :func:`rows_of`)."""
    out: list[Row] = [(0, STREAM, None, None, None, None)]
    stops: list[int] = [0]
    stack: list[tuple[int, bool, bool]] = []  # (node, is a map, a key is wanted next)
    is_map = want_key = False
    key: object = None
    depth = 1
    SC, AL, MS, SS = ScalarEvent, AliasEvent, MappingStartEvent, SequenceStartEvent
    try:
        for ev in yaml_events(as_read(text.decode("utf-8"))):
            c = ev.__class__
            if c is SC or c is AL:
                if want_key:
                    key = _meaning(ev.value, not ev.style) if c is SC else ("*", ev.anchor)
                    want_key = False
                    continue
                n = len(out)
                if c is SC:
                    tag = ev.tag if ev.tag != "!" else None
                    out.append((depth, SCALAR, key, _meaning(ev.value, not ev.style and tag is None), tag, ev.anchor))
                else:
                    out.append((depth, ALIAS, key, ev.anchor, None, None))
                stops.append(n + 1)
                key = None
                want_key = is_map
            elif c is MS or c is SS:
                n = len(out)
                out.append((depth, MAP if c is MS else SEQ, key, None, ev.tag, ev.anchor))
                stops.append(0)
                stack.append((n, is_map, want_key))
                key = None
                is_map = want_key = c is MS
                depth += 1
            elif c is MappingEndEvent or c is SequenceEndEvent:
                n, is_map, _ = stack.pop()
                stops[n] = len(out)
                want_key = is_map
                depth -= 1
    except yaml.YAMLError as exc:
        raise _error(exc) from None
    except UnicodeDecodeError as exc:
        raise YamlError(f"not UTF-8 at byte {exc.start}") from None
    stops[0] = len(out)
    return out, stops


def rows_of(doc: Doc) -> tuple[list[Row], list[int]]:
    """:func:`rows` of the text ``doc`` was parsed from, taken from its tree: the same rows that
    one more event pass over that text gives (tests/yaml/test_verify.py holds them equal over
    the YAML test suite and real manifests)."""
    return list(zip(*_columns(doc))), list(doc.stop)


def _columns(doc: Doc) -> tuple[array, bytes, list, list, list, list]:
    """:func:`rows_of` as six columns: depth, kind, key, value, tag, anchor."""
    kind, kname, kplain, val, style, tag, up = doc.kind, doc.kname, doc.kplain, doc.val, doc.style, doc.tag, doc.up
    key_aliases = doc.key_aliases
    depth = array("I", bytes(4 * len(kind)))
    keys: list = [None] * len(kind)
    values: list = [None] * len(kind)
    for n in range(1, len(kind)):
        depth[n] = depth[up[n]] + 1
        k = kname[n]
        if k is not None:
            keys[n] = ("*", key_aliases[n]) if key_aliases and n in key_aliases else _meaning(k, kplain[n])
        c = kind[n]
        if c == SCALAR:
            values[n] = _meaning(val[n], style[n] is None and tag[n] is None)
        elif c == ALIAS:
            values[n] = val[n]  # the anchor it names (an alias carries no tag or anchor of its own)
    return depth, bytes(kind), keys, values, tag, doc.anchor


def packed_meaning(doc: Doc) -> bytes:
    """What an item's tree reads as (:func:`rows_of`), packed small (its columns, marshalled: a
    tenth of the tree's memory), for :func:`difference` to take instead of reading the item's text
    once more. Where a subtree ends follows from the depths (:func:`_stop`)."""
    depth, kinds, keys, values, tags, anchors = _columns(doc)
    # a byte each (bytes() of the array would give its four bytes), but for the rare deeper item
    depths = array("B", depth).tobytes() if max(depth) < 256 else ("I", depth.tobytes())
    return marshal.dumps((depths, kinds, keys, values, tags, anchors))


def _unpacked(meaning: bytes) -> list[Row]:
    depths, kinds, keys, values, tags, anchors = marshal.loads(meaning)
    if isinstance(depths, tuple):
        depths = array(depths[0], depths[1])
    return list(zip(depths, kinds, keys, values, tags, anchors))


def _stop(rows_: list[Row], node: int) -> int:
    """Where node's subtree ends: at the first row after it that is not deeper. Asked only of
    the few nodes a change touches, so the rows need no table of every subtree's end."""
    depth, n, end = rows_[node][0], node + 1, len(rows_)
    while n < end and rows_[n][0] > depth:
        n += 1
    return n


def _item(rows_: list[Row]) -> int:
    """The item's node: the one entry of a block list, or the document itself."""
    return 2 if len(rows_) > 2 and rows_[1][1] == SEQ and rows_[2][0] == 2 else 1


def _value_rows(depth: int, key: str | None, value: Value) -> list[Row]:
    if isinstance(value, dict):
        inner = [r for k, v in value.items() for r in _value_rows(depth + 1, k, v)]
        return [(depth, MAP, key, None, None, None), *inner]
    return [(depth, SCALAR, key, ("!", "true") if value is True else value, None, None)]


def _child(base: list[Row], node: int, key: str) -> int | None:
    """The entry ``key`` of map ``node``, by its rows."""
    n, end = node + 1, _stop(base, node)
    while n < end:
        if base[n][2] == key:
            return n
        n = _stop(base, n)
    return None


_Replaced = dict[int, list[Row]]  # row index -> the rows that take its place
_Removed = dict[int, int]  # first row index removed -> the index after the last
_Inserted = dict[int, list[tuple[int, list[Row]]]]  # row index -> (depth, rows) inserted before it


def expected(base: list[Row], top: int, changes: list[Change]) -> list[Row]:
    """What the item must read as after ``changes``: its rows (``top``, the item, is the last
    subtree of them) with each change made, the unchanged runs copied as slices."""
    return _made(base, top, *_by_row(base, changes))


def _by_row(base: list[Row], changes: list[Change]) -> tuple[_Replaced, _Removed, _Inserted]:
    """Each change as what it does at a row: the rows that replace it, the end of a removed run
    that starts at it, or the rows inserted before it. (Apart from :func:`_made`: one function
    doing both was too branched to check by eye.)"""
    replaced: _Replaced = {}
    removed: _Removed = {}
    inserted: _Inserted = {}
    for change in changes:
        if isinstance(change, SetScalar):
            d, kind, key, _, _, anchor = base[change.node]
            value = ("!", "true") if change.value is True else change.value
            replaced[change.node] = [(d, SCALAR, key, value, None, anchor if kind == SCALAR else None)]
        elif isinstance(change, AddEntries):
            at = _stop(base, change.node) if change.before < 0 else change.before
            d = base[change.node][0] + 1
            inserted.setdefault(at, []).append((d, [r for k, v in change.entries for r in _value_rows(d, k, v)]))
        elif isinstance(change, FillNull):
            d, _, key, _, _, _ = base[change.node]
            replaced[change.node] = _value_rows(d, key, dict(change.entries))
        elif isinstance(change, AddItems):
            d = base[change.node][0]
            inserted.setdefault(_stop(base, change.node), []).append(
                (d, [(d, SCALAR, None, v, None, None) for v in change.values]))
        elif isinstance(change, RemoveEntry):
            child = _child(base, change.node, change.key)
            if child is not None:
                removed[child] = max(removed.get(child, child), _stop(base, child))
    return replaced, removed, inserted


def _made(base: list[Row], top: int, replaced: _Replaced, removed: _Removed, inserted: _Inserted) -> list[Row]:
    """The rows from ``top`` on with the changes :func:`_by_row` placed made, in row order."""
    end = len(base)
    out: list[Row] = []
    copied = skip = top  # rows before ``copied`` are dealt with; those before ``skip`` are removed
    for at in sorted(p for p in {*replaced, *removed, *inserted} if top <= p <= end):
        start = max(copied, skip)
        if start < at:
            out += base[start:at]
        copied = at
        if at in inserted:  # several insertions at one place: the deepest first, as textedit writes them
            for _, rows_added in sorted(inserted[at], key=lambda g: -g[0]):
                out += rows_added
        if at == end:
            break
        skip = max(skip, removed.get(at, skip))
        if at < skip:
            copied = at + 1
        elif at in replaced:
            out += replaced[at]
            copied = at + 1
    start = max(copied, skip)
    if start < end:
        out += base[start:end]
    return out


def difference(source: bytes, changes: list[Change], new_text: bytes, meaning: bytes | None = None,
               after: bytes = b"") -> str | None:
    """None when ``new_text`` reads as the item ``source`` with ``changes`` made; else the field
    path where it first differs (or why it does not read at all). ``meaning``: what ``source``
    reads as, from the scan's tree (:func:`packed_meaning`); without it the source is read again.
    ``after``: the text that follows the item in the output up to the next one (a ``---`` and the
    comments before it), read with it, so that what follows the new text counts as it will when
    the output is read; what it holds past the item must read as null documents."""
    base = _unpacked(meaning) if meaning is not None else rows(source)[0]
    top = _item(base)
    want = expected(base, top, changes)
    try:
        got, got_stops = rows(new_text + after)
    except YamlError as exc:
        return f"(the whole item: it does not read back: {exc.detail})"
    new_top = _item(got)
    end = got_stops[new_top]
    have = got[new_top:end]
    if want == have and all(_is_null_document(row) for row in got[end:]):
        return None
    if want == have:
        return "(what follows the item: it reads as more than the item)"
    new_doc, node = parse_item(new_text)
    for i, (a, b) in enumerate(zip(want, have)):
        if a != b:
            return new_doc.path_of(Node(node + i), node) or "(the item itself)"
    return new_doc.path_of(Node(node + min(len(want), len(have)) - 1), node) or "(the item's end)"


def _is_null_document(row: Row) -> bool:
    depth, kind, _, value, tag, _ = row
    return depth == 1 and kind == SCALAR and (tag == "tag:yaml.org,2002:null" or
                                              (tag is None and isinstance(value, tuple) and value[1] in NULLS))


def frame_difference(data: bytes, ranges: list[tuple[int, int]], cuts: list[tuple[int, int, bytes]],
                     outputs: list[Iterable[bytes]]) -> tuple[int, int] | None:
    """None when each output (its pieces, read as one text) is its range of ``data`` with each
    span of ``cuts`` replaced by its text and every other byte as it was; else the first byte
    that differs and which output.

    Why bytes and not meaning: the frame (separators, directives, comments, a List's own keys, the
    envelope) is never edited, so byte equality is the exact rule, and it also proves that each
    changed object is followed by the very text its check read it with. Why pieces: a joined
    copy of a large output would be the run's largest allocation."""
    at = 0
    for part, ((start, end), pieces) in enumerate(zip(ranges, outputs)):
        last = part == len(ranges) - 1
        out, pos = _Joined(pieces), start
        while at < len(cuts) and (cuts[at][0] < end or (last and cuts[at][0] == end)):
            a, b, text = cuts[at]
            for want in (data[pos:a], text):
                got = out.read(len(want))
                if got != want:
                    return out.at - len(got) + _first_difference(got, want), part
            pos, at = b, at + 1
        rest = data[pos:end]
        got = out.read(len(rest))
        if got != rest or not out.done():
            return out.at - len(got) + _first_difference(got, rest), part
    return None


class _Joined:
    """Pieces read front to back as one text, a span at a time, never joined whole; each piece is
    taken from its iterator only when reached (a CRLF output is turned back to LF piece by piece)."""

    __slots__ = ("at", "offset", "piece", "pieces")

    def __init__(self, pieces: Iterable[bytes]):
        self.pieces = iter(pieces)
        self.piece = b""  # the piece being read, from ``offset`` in it
        self.offset = 0
        self.at = 0  # how much has been read

    def read(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer at the end)."""
        got = []
        while n > 0:
            if self.offset >= len(self.piece):
                piece = next(self.pieces, None)
                if piece is None:
                    break
                self.piece, self.offset = piece, 0
                continue
            take = self.piece[self.offset:self.offset + n]
            got.append(take)
            n -= len(take)
            self.at += len(take)
            self.offset += len(take)
        return got[0] if len(got) == 1 else b"".join(got)

    def done(self) -> bool:
        """Whether every byte has been read."""
        return self.offset >= len(self.piece) and not any(self.pieces)


def _first_difference(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


__all__ = ["difference", "expected", "frame_difference", "packed_meaning", "rows", "rows_of"]
