"""A ResourceList cut into its envelope and one text per object, by one libyaml event pass.

Why: an object krmfn does not change goes out byte for byte as it came in (comments and all);
each object is parsed alone when it is read, so memory follows the largest object rather than
the whole list; and an edit is a splice of the object's own text. The cut follows the parser's
own events, so it holds for every shape the parser reads (block, flow, JSON, indentless lists,
CRLF, comments anywhere): there is no splitter of its own to be wrong.

An object's text (a *slot*) is, for an entry of a block list, the lines from the end of the
previous entry up to the end of the line where this one's content ends (``- `` included, so it
parses alone as a one-entry list); for an entry of a flow list, exactly the entry's own text.
Items that are a ``kind: List`` (or ``ConfigMapList``, ...) are cut into their entries the same
way: their entries are slots, and the List's own text stays around them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from krmfn.yaml.scalars import non_string_plain
from krmfn.yaml.tree import YamlError, _error, block_scalar_end


class Origin:
    """Where a text (an item's) sits in the input, so that a message can name a line and column
    there: its first line is the input's ``line``; add ``first_column`` to a column on that first
    line, ``column`` to a column on the others. (A plain class: a dataclass costs start-up time.)"""

    __slots__ = ("column", "first_column", "line")

    def __init__(self, line: int = 1, first_column: int = 0, column: int = 0):
        self.line = line
        self.first_column = first_column
        self.column = column

    def place(self, line: int, col: int) -> tuple[int, int]:
        """The input's line and column (1-based) of a position in the text."""
        return self.line + line - 1, max(1, col + (self.first_column if line == 1 else self.column))


@dataclass(slots=True)
class Entry:
    """One entry of a list being cut: where its node starts and its content ends (characters),
    whether the list is flow style, and, for an item, what a List needs: its kind and its own
    ``items`` entries."""

    start: int
    end: int = 0
    flow: bool = False
    kind: str | None = None
    inner: list[Entry] = field(default_factory=list)
    inner_seq: int = -1  # where the item's own ``items`` list starts
    named: bool = False  # it has ``metadata`` (a kind ending in List with a name is an object)
    # apiVersion, kind, and metadata's name, namespace and generateName, where each is plain text
    # (no alias anywhere in the object): enough to know the object without parsing it alone
    ident: dict[str, str] = field(default_factory=dict)
    aliased: bool = False


@dataclass(repr=False, eq=False)
class Cut:
    """The input as text and byte offsets: ``slots`` are the objects' texts, in order; ``results``
    the span of an old ``results`` entry (replaced on output); ``top`` the envelope map's span."""

    data: bytes
    slots: list[tuple[int, int]]
    results: tuple[int, int] | None
    top_end: int  # where the envelope map's content ends (a new ``results`` entry goes there)
    top_start: int  # where its first key is
    flow_top: bool  # the envelope is a flow map (JSON): results are written inside its braces
    has_items: bool  # an ``items`` key holds a list
    envelope: bytes  # the envelope alone (items left out), for reading kind, apiVersion, functionConfig
    lists: list[tuple[int, str]] = field(default_factory=list)  # (first slot, kind) of each List read as its entries
    outer: list[int] = field(default_factory=list)  # each slot's entry of ``items`` (they differ past a List)
    idents: list[dict[str, str] | None] = field(default_factory=list)  # each slot's identity, when plain

    @functools.cached_property
    def items(self) -> list[bytes]:
        """Each object's text (cut once: every item is read by index)."""
        return [self.data[a:b] for a, b in self.slots]

    @functools.cached_property
    def entries(self) -> dict[int, tuple[int, int]]:
        """Each entry of ``items`` that holds more than one slot (a List): its first slot and how
        many. Found once: messages ask it of every item."""
        first: dict[int, tuple[int, int]] = {}
        for index, number in enumerate(self.outer):
            at, n = first.get(number, (index, 0))
            first[number] = (at, n + 1)
        return {number: v for number, v in first.items() if v[1] > 1}

    def origin(self, index: int) -> Origin:
        start = self.slots[index][0]
        line_start = self.data.rfind(b"\n", 0, start) + 1
        return Origin(self.data.count(b"\n", 0, start) + 1, start - line_start, 0)

    def assemble(self, items: list[bytes], results: bytes) -> list[bytes]:
        """The output's pieces: the input with each slot replaced and the results replaced (or
        added at the envelope's end), everything else as it was."""
        data = self.data
        cuts: list[tuple[int, int, bytes]] = [(a, b, t) for (a, b), t in zip(self.slots, items)]
        if self.results is not None:
            a, b = self.results
            if self.flow_top:
                new = _json_results(results)
                if not new:  # the entry goes, with the comma beside it
                    a, b = _with_comma(data, a, b)
                cuts.append((a, b, new))
            else:
                cuts.append((a, b, results))
        elif results and self.flow_top:
            close = self.top_end - 1
            cuts.append((close, close, b", " + _json_results(results)))
        elif results and not data.endswith(b"\n"):
            # the text ends unended (a block scalar there would take a line break into its value):
            # the results go first, at the envelope's first key's line
            first = data.rfind(b"\n", 0, self.top_start) + 1
            cuts.append((first, first, results))
        elif results:
            end = data.find(b"\n", self.top_end) + 1 or len(data)
            cuts.append((end, end, results))
        cuts.sort(key=lambda c: (c[0], c[1]))
        pieces, pos = [], 0
        for a, b, text in cuts:
            pieces += [data[pos:a], text]
            pos = b
        pieces.append(data[pos:])
        return [p for p in pieces if p]


def _json_results(results: bytes) -> bytes:
    """The block ``results:`` text as a flow entry for a JSON envelope (results are plain data)."""
    if not results:
        return b""
    import json  # here, for start-up time: only JSON envelopes need it

    loaded = yaml.load(results, Loader=yaml.CSafeLoader)
    return b'"results": ' + json.dumps(loaded.get("results", []), ensure_ascii=True).encode()


_LINE_BREAK = "\n"


def _line_end(text: str, pos: int) -> int:
    """After the line break that ends the line where content ends at ``pos`` (or the text's end)."""
    if pos and text[pos - 1] == "\n":
        return pos
    end = text.find(_LINE_BREAK, pos)
    return len(text) if end < 0 else end + 1


def _content_end(text: str, ev: object) -> int:
    """Where the content of the node that ``ev`` (its last event of content) closes ends."""
    end = ev.end_mark.index  # type: ignore[attr-defined]
    if ev.__class__ is ScalarEvent and ev.style in ("|", ">"):  # type: ignore[attr-defined]
        return block_scalar_end(text, ev.start_mark.index, end)  # type: ignore[attr-defined]
    return end


_IDENT = frozenset(("apiVersion", "kind"))
_META = frozenset(("name", "namespace", "generateName"))


def _text(ev: object) -> str | None:
    """A scalar event's value where every YAML reader takes it for a string, else None."""
    value = ev.value  # type: ignore[attr-defined]
    if ev.tag is not None and ev.tag != "!":  # type: ignore[attr-defined]
        return None
    if ev.style:  # type: ignore[attr-defined]
        return value
    if value in ("", "~", "null", "Null", "NULL") or non_string_plain(value):
        return None
    return value


class _NotAList(Exception):
    """The input is not one map with an ``items`` list: the envelope check says why."""


def cut(data: bytes) -> Cut:
    """Cut a ResourceList (UTF-8, LF) into its envelope and object texts; raises YamlError for
    text that is not YAML, and leaves the rest of the checks (one document, a map, its kind) to
    the envelope's reader."""
    text = data.decode("utf-8")
    ascii_only = text.isascii()
    try:
        found = _events(text)
    except yaml.YAMLError as exc:
        raise _error(exc) from None
    except _NotAList:
        return Cut(data, [], None, len(data), 0, False, False, data)
    top_start, top_end, flow_top, results, seq, entries = found
    to_b: Callable[[int], int] = (lambda i: i) if ascii_only else _byte_offsets(text)
    slots: list[tuple[int, int]] = []
    lists: list[tuple[int, str]] = []
    outer: list[int] = []
    idents: list[dict[str, str] | None] = []
    if seq is not None:
        prev = text.rfind("\n", 0, seq[0]) + 1 if not seq[1] else -1
        for number, entry in enumerate(entries):
            if entry.kind is not None and _is_list_kind(entry.kind) and entry.inner and not entry.named:
                lists.append((len(slots), entry.kind))
                inner_prev = text.rfind("\n", 0, entry.inner_seq) + 1
                for sub in entry.inner:
                    inner_prev = _slot(text, sub, inner_prev, slots, to_b)
                    outer.append(number)
                    idents.append(None)
                prev = _line_end(text, entry.end) if not entry.flow else -1
                continue
            prev = _slot(text, entry, prev, slots, to_b)
            outer.append(number)
            idents.append(entry.ident if not entry.aliased else None)
    envelope = data
    if seq is not None and entries:
        if seq[1]:  # a flow list: its entries out, its brackets stay
            envelope = data[:to_b(entries[0].start)] + data[to_b(entries[-1].end):]
        else:
            first = to_b(text.rfind("\n", 0, entries[0].start) + 1)
            envelope = data[:first] + b" []\n" + data[to_b(_line_end(text, entries[-1].end)):]
    results_span = None
    if results is not None:
        a, b = results
        results_span = (to_b(a), to_b(b if flow_top else _line_end(text, b)))
    return Cut(data, slots, results_span, to_b(top_end), to_b(top_start), flow_top, seq is not None, envelope,
               lists, outer, idents)


def _with_comma(data: bytes, a: int, b: int) -> tuple[int, int]:
    after = data[b:].lstrip(b" \t\n")
    if after.startswith(b","):
        end = len(data) - len(after) + 1
        return a, end
    before = data[:a].rstrip(b" \t\n")
    if before.endswith(b","):
        return len(before) - 1, b
    return a, b


def _is_list_kind(kind: str) -> bool:
    return kind == "List" or (kind.endswith("List") and kind[:1].isupper())


def _slot(text: str, entry: Entry, prev: int, slots: list[tuple[int, int]], to_b: Callable[[int], int]) -> int:
    """Add an entry's slot; return where the next block entry's slot starts (-1 for flow)."""
    if entry.flow:
        slots.append((to_b(entry.start), to_b(entry.end)))
        return -1
    end = _line_end(text, entry.end)
    start = prev if prev >= 0 else text.rfind("\n", 0, entry.start) + 1
    slots.append((to_b(start), to_b(end)))
    return end


def _byte_offsets(text: str) -> Callable[[int], int]:
    table, pos = [], 0
    for ch in text:
        table.append(pos)
        pos += len(ch.encode("utf-8", "surrogatepass"))
    table.append(pos)
    return table.__getitem__


def _events(text: str) -> tuple:
    """One pass: the envelope map's span, an old ``results`` entry's span, the ``items`` list's
    start (and whether it is flow), each entry's start and content end, and for each entry that
    could be a List, its kind and its own entries.

    Each open container is a frame ``(role, is_map, flow, want_key, key)``; only frames with a
    role (the envelope, ``items``, an entry's own map, a List's ``items``) look at keys, so the
    events deep inside objects cost one test each."""
    SC, AL, MS, SS, DS = ScalarEvent, AliasEvent, MappingStartEvent, SequenceStartEvent, DocumentStartEvent
    docs = 0
    top = [0, 0]
    flow_top = False
    results_start = -1
    results: tuple[int, int] | None = None
    seq: tuple[int, bool] | None = None
    entries: list[Entry] = []
    entry: Entry | None = None
    sub: Entry | None = None
    last: object = None  # the last event of content: a scalar, an alias or a flow collection's end
    stack: list[tuple] = []
    # "": the stream, outside any node; None: a container whose keys do not matter
    role: str | None = ""
    is_map = flow = want_key = False
    key: str | None = None
    for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
        c = ev.__class__
        if c is SC or c is AL:
            last = ev
            if role is None:
                if c is AL and entry is not None:
                    entry.aliased = True
                continue
            if is_map and want_key:
                want_key = False
                key = ev.value if c is SC else None
                if c is AL and entry is not None:
                    entry.aliased = True
                if role == "top" and key == "results":
                    results_start = ev.start_mark.index
                continue
            want_key = is_map
            if role == "":
                raise _NotAList
            if role == "top":
                if key == "results":
                    results = (results_start, _content_end(text, ev))
            elif role == "items":
                entries.append(Entry(ev.start_mark.index, _content_end(text, ev), flow))
            elif role == "entry":
                if c is AL:
                    entry.aliased = True  # type: ignore[union-attr]
                elif key in _IDENT and _text(ev) is not None:
                    entry.ident.setdefault(key, ev.value)  # type: ignore[union-attr]
                if key == "kind" and c is SC:
                    entry.kind = ev.value  # type: ignore[union-attr]
                elif key == "metadata":
                    entry.named = True  # type: ignore[union-attr]
            elif role == "meta":
                if c is AL:
                    entry.aliased = True  # type: ignore[union-attr]
                elif key in _META and _text(ev) is not None:
                    entry.ident.setdefault("metadata." + key, ev.value)  # type: ignore[union-attr]
            elif role == "inner":
                entry.inner.append(Entry(ev.start_mark.index, _content_end(text, ev), flow))  # type: ignore[union-attr]
            continue
        if c is MS or c is SS:
            child: str | None = None
            if role is not None:
                if role == "":
                    if c is not MS:
                        raise _NotAList
                    child, top[0], flow_top = "top", ev.start_mark.index, bool(ev.flow_style)
                elif role == "top":
                    if key == "items" and c is SS and seq is None:
                        child, seq = "items", (ev.start_mark.index, bool(ev.flow_style))
                elif role == "items":
                    entry, child = Entry(ev.start_mark.index, 0, flow), "entry" if c is MS else "whole"
                elif role == "entry":
                    if key == "metadata":
                        entry.named = True  # type: ignore[union-attr]
                        if c is MS:
                            child = "meta"
                    if key == "items" and c is SS:
                        child = "inner"
                        entry.inner_seq = ev.start_mark.index  # type: ignore[union-attr]
                elif role == "inner":
                    sub, child = Entry(ev.start_mark.index, 0, flow), "sub"
            stack.append((role, is_map, flow, want_key, key))
            role, is_map, flow, want_key, key = child, c is MS, bool(ev.flow_style), c is MS, None
            continue
        if c is DS:
            docs += 1
            if docs > 1:
                raise _NotAList
            continue
        if c is MappingEndEvent or c is SequenceEndEvent:
            if flow:
                last = ev
            closing, closing_flow = role, flow
            end = ev.end_mark.index if closing_flow else (_content_end(text, last) if last is not None else
                                                         ev.end_mark.index)
            role, is_map, flow, want_key, key = stack.pop()
            want_key = is_map
            if closing == "top":
                top[1] = end
            elif closing == "entry" or closing == "whole":
                entry.end = end  # type: ignore[union-attr]
                entries.append(entry)  # type: ignore[arg-type]
                entry = None
            elif closing == "sub":
                sub.end = end  # type: ignore[union-attr]
                entry.inner.append(sub)  # type: ignore[union-attr, arg-type]
                sub = None
            if role == "top" and results_start >= 0 and results is None:
                results = (results_start, end)
    return top[0], top[1], flow_top, results, seq, entries

__all__ = ["Cut", "Origin", "YamlError", "cut"]
