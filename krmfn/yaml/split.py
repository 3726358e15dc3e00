"""Every form of input cut into one text per object, by one libyaml event pass: a ResourceList's
items, a plain multi-document stream's documents (a file, Helm's output, kubectl's), and the
entries of a ``kind: List`` (or ``ConfigMapList``, ...) in either.

Why: an object krmfn does not change goes out byte for byte as it came in (comments and all);
each object is parsed alone when it is read, so memory follows the largest object rather than
the whole input; and an edit is a splice of the object's own text. The cut follows the parser's
own events, so it holds for every shape the parser reads (block, flow, JSON, indentless lists,
comments and empty lines anywhere, ``---`` with or without content after it, ``...``,
directives): there is no splitter of krmfn's own to be wrong.

An object's text (a *slot*) reads alone exactly as it reads in the whole input:

- an entry of a block list is the lines from the end of the previous entry's slot up to the end
  of the line where this one's content ends (``- `` included, so it parses alone as a one-entry
  list); an entry of a flow list is exactly the entry's own text;
- a document is its root node's text, from the start of its line (or from the node, when the
  node starts on a ``---`` line) to the end of the line where its content ends;
- either way the slot runs on over the lines that hold only spaces after it: a ``|+`` block
  keeps them in its value, and a line of spaces more indented than a block's text is part of it
  (yaml-test-suite L24T), so leaving them out would change what the slot alone reads as.

Everything between slots (separators, directives, comments, empty lines, a List's own keys, the
envelope) is the *frame*: it is never edited, and the check after writing proves it unchanged.
"""

from __future__ import annotations

import bisect
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
from krmfn.yaml.tree import ByteOffsets, YamlError, _error, block_scalar_end


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
    # apiVersion, kind, and metadata's name, namespace and generateName, where each is plain text
    # (no alias anywhere in the object): enough to know the object without parsing it alone
    ident: dict[str, str] = field(default_factory=dict)
    aliased: bool = False
    document: int = 0  # in a stream, which document it is (null documents counted)
    is_map: bool = False  # an entry of a List's items that is a map (an object)


@dataclass(repr=False, eq=False)
class Cut:
    """The input as text and byte offsets: ``slots`` are the objects' texts, in order; ``results``
    the span of an old ``results`` entry (replaced on output); ``top`` the envelope map's span.
    A plain stream has no envelope: ``stream`` is set, ``envelope`` is empty."""

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
    # where the text that can change what each slot reads as ends: a document's runs to the next
    # document (its ``---`` and whatever comments come before it), an entry's is the slot itself
    windows: list[int] = field(default_factory=list)
    stream: bool = False  # a plain multi-document stream, not a ResourceList
    documents: int = 0  # in a stream, how many documents it holds (null documents counted)
    # several streams read as one (files): where each is in ``data``, its first slot and document
    parts: list[tuple[int, int, int, int]] = field(default_factory=list)

    @functools.cached_property
    def items(self) -> list[bytes]:
        """Each object's text (cut once: every item is read by index)."""
        return [self.data[a:b] for a, b in self.slots]

    def after(self, index: int) -> bytes:
        """The frame text after slot ``index`` that still counts for what it reads as."""
        end = self.slots[index][1]
        return self.data[end:self.windows[index]] if index < len(self.windows) else b""

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
        """Where slot ``index`` starts, in its own stream's lines."""
        start = self.slots[index][0]
        base = self.parts[self.part_of(index)][0] if self.parts else 0
        line_start = self.data.rfind(b"\n", base, start) + 1 or base
        return Origin(self.data.count(b"\n", base, start) + 1, start - line_start, 0)

    def part_of(self, index: int) -> int:
        """Which of the streams read as one holds slot ``index``."""
        return bisect.bisect_right([first for _, _, first, _ in self.parts], index) - 1

    def replacements(self, items: list[bytes], results: bytes) -> list[tuple[int, int, bytes]]:
        """Every span of the input that the output replaces, in order, with its new text: each
        slot with its object's text, and the old ``results`` (or the place new ones go)."""
        data = self.data
        cuts: list[tuple[int, int, bytes]] = [(a, b, t) for (a, b), t in zip(self.slots, items)]
        if self.stream:
            return cuts
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
        return cuts

    def assemble(self, cuts: list[tuple[int, int, bytes]]) -> list[bytes]:
        """The output's pieces: the input with each span of ``cuts`` (:meth:`replacements`)
        replaced, everything else as it was."""
        return _pieces(self.data, 0, len(self.data), cuts)

    def assemble_parts(self, cuts: list[tuple[int, int, bytes]]) -> list[list[bytes]]:
        """Of several streams read as one, each one's output pieces."""
        out, at = [], 0
        for start, end, _, _ in self.parts:
            mine = []
            while at < len(cuts) and cuts[at][0] < end:
                mine.append(cuts[at])
                at += 1
            out.append(_pieces(self.data, start, end, mine))
        return out


def _pieces(data: bytes, start: int, end: int, cuts: list[tuple[int, int, bytes]]) -> list[bytes]:
    """``data[start:end]`` with each span of ``cuts`` (in order, inside it) replaced by its text."""
    pieces, pos = [], start
    for a, b, text in cuts:
        pieces += [data[pos:a], text]
        pos = b
    pieces.append(data[pos:end])
    return [p for p in pieces if p]


def join(cuts: list[Cut]) -> Cut:
    """Several plain streams' cuts as one, over one buffer: each stream's range and first slot
    in ``parts``, its documents numbered on from the stream before."""
    data: list[bytes] = []
    slots: list[tuple[int, int]] = []
    lists: list[tuple[int, str]] = []
    outer: list[int] = []
    idents: list[dict[str, str] | None] = []
    windows: list[int] = []
    parts: list[tuple[int, int, int, int]] = []
    offset = documents = 0
    for c in cuts:
        parts.append((offset, offset + len(c.data), len(slots), documents))
        lists += [(first + len(slots), kind) for first, kind in c.lists]
        slots += [(a + offset, b + offset) for a, b in c.slots]
        windows += [w + offset for w in c.windows]
        outer += [n + documents for n in c.outer]
        idents += c.idents
        documents += c.documents
        offset += len(c.data)
        data.append(c.data)
    joined = b"".join(data)
    return Cut(joined, slots, None, len(joined), 0, False, False, b"", lists, outer, idents, windows, True,
               documents, parts)


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


def _is_null(ev: object) -> bool:
    """A document root that reads as null: empty, ``~``, ``null``, or tagged ``!!null``."""
    if ev.__class__ is not ScalarEvent:
        return False
    tag = ev.tag  # type: ignore[attr-defined]
    if tag == "tag:yaml.org,2002:null":
        return True
    return tag is None and not ev.style and ev.value in _NULLS  # type: ignore[attr-defined]


_NULLS = frozenset(("", "~", "null", "Null", "NULL"))


class _NotAList(Exception):
    """The input is not one map with an ``items`` list: the envelope check says why."""


def cut(data: bytes, stream: bool = False) -> Cut:
    """Cut a ResourceList, or with ``stream`` a plain multi-document stream (UTF-8, LF, no BOM),
    into its objects' texts; raises YamlError for text that is not YAML, and leaves the rest of
    the checks (one document, a map, its kind) to the envelope's reader."""
    text = data.decode("utf-8")
    try:
        found = _events(text, stream)
    except yaml.YAMLError as exc:
        error = _error(exc)
        if stream:
            error.document = _documents_begun(text)
        raise error from None
    except _NotAList:
        return Cut(data, [], None, len(data), 0, False, False, data)
    top_start, top_end, flow_top, results, seq, entries, documents = found
    to_b: Callable[[int], int] = (lambda i: i) if text.isascii() else ByteOffsets(text)
    slots: list[tuple[int, int]] = []
    lists: list[tuple[int, str]] = []
    outer: list[int] = []
    idents: list[dict[str, str] | None] = []
    windows: list[int] = []
    if stream:
        starts = [_document_start(text, entry.start) for entry in entries] + [len(text)]
        for number, entry in enumerate(entries):
            if _expands(entry):
                first = len(slots)
                _list_entries(text, entry, entry.document, slots, lists, outer, idents, to_b)
                windows += [end for _, end in slots[first:]]
                continue
            end = _slot_end(text, entry.end)
            slots.append((to_b(starts[number]), to_b(end)))
            windows.append(to_b(max(end, starts[number + 1])))
            outer.append(entry.document)
            idents.append(entry.ident if not entry.aliased else None)
        return Cut(data, slots, None, len(data), 0, False, False, b"", lists, outer, idents, windows, True,
                   documents)
    if seq is not None:
        prev = text.rfind("\n", 0, seq[0]) + 1 if not seq[1] else -1
        for number, entry in enumerate(entries):
            if _expands(entry):
                _list_entries(text, entry, number, slots, lists, outer, idents, to_b)
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
               lists, outer, idents, [b for _, b in slots])


def _documents_begun(text: str) -> int:
    """How many documents a stream that does not read had begun where it stops being read (the
    error path only: the stream is read once more, as far as it reads)."""
    n = 0
    try:
        for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
            n += ev.__class__ is DocumentStartEvent
    except yaml.YAMLError:
        pass
    return max(n, 1)


def _list_entries(text: str, entry: Entry, owner: int, slots: list[tuple[int, int]], lists: list[tuple[int, str]],
                  outer: list[int], idents: list[dict[str, str] | None], to_b: Callable[[int], int]) -> None:
    """A List's entries, each a slot of its own (``owner``: the item or document that holds them)."""
    lists.append((len(slots), entry.kind or ""))
    prev = text.rfind("\n", 0, entry.inner_seq) + 1
    for sub in entry.inner:
        prev = _slot(text, sub, prev, slots, to_b)
        outer.append(owner)
        idents.append(None)


def _expands(entry: Entry) -> bool:
    """A ``kind: List`` (or ``ConfigMapList``, ...) whose items are objects is read as its entries,
    as kubectl reads it, whatever its own metadata (kubectl prints ``metadata: {}``); a kind that
    ends in List and holds other items (``AllowList``, ``items: [x]``) is an object."""
    return (entry.kind is not None and _is_list_kind(entry.kind) and bool(entry.inner)
            and all(sub.is_map for sub in entry.inner))


def _document_start(text: str, start: int) -> int:
    """Where a document's slot starts: its root node's line, or the node itself when something
    else (``--- ``) stands before it on that line."""
    line_start = text.rfind("\n", 0, start) + 1
    return line_start if not text[line_start:start].strip(" \t") else start


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
    end = _slot_end(text, entry.end)
    start = prev if prev >= 0 else text.rfind("\n", 0, entry.start) + 1
    slots.append((to_b(start), to_b(end)))
    return end


def _slot_end(text: str, content_end: int) -> int:
    """After the line where content ends at ``content_end``, and after every line past it that
    holds only spaces or tabs: they belong to a ``|+`` block's value, or to a block whose text is
    more indented than they are (L24T), as libyaml reads them in the whole input."""
    end = _line_end(text, content_end)
    n = len(text)
    while end < n:
        brk = text.find("\n", end)
        line_end = n if brk < 0 else brk + 1
        if text[end:line_end].strip(" \t\n"):
            break
        end = line_end
    return end


def _events(text: str, stream: bool = False) -> tuple:
    """One pass: the envelope map's span, an old ``results`` entry's span, the ``items`` list's
    start (and whether it is flow), each entry's start and content end, and for each entry that
    could be a List, its kind and its own entries. With ``stream``, each document's root is an
    entry (a null document, Helm's ``toYaml`` of an unset value, is none).

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
    role: str | None = "items" if stream else ""
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
                if not (stream and _is_null(ev)):
                    entries.append(Entry(ev.start_mark.index, _content_end(text, ev), flow, document=docs))
            elif role == "entry":
                if c is AL:
                    entry.aliased = True  # type: ignore[union-attr]
                elif key in _IDENT and _text(ev) is not None:
                    entry.ident.setdefault(key, ev.value)  # type: ignore[union-attr]
                if key == "kind" and c is SC:
                    entry.kind = ev.value  # type: ignore[union-attr]
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
                    entry, child = Entry(ev.start_mark.index, 0, flow, document=docs), "entry" if c is MS else "whole"
                elif role == "entry":
                    if key == "metadata" and c is MS:
                        child = "meta"
                    if key == "items" and c is SS:
                        child = "inner"
                        entry.inner_seq = ev.start_mark.index  # type: ignore[union-attr]
                elif role == "inner":
                    sub, child = Entry(ev.start_mark.index, 0, flow, is_map=c is MS), "sub"
            stack.append((role, is_map, flow, want_key, key))
            role, is_map, flow, want_key, key = child, c is MS, bool(ev.flow_style), c is MS, None
            continue
        if c is DS:
            docs += 1
            if docs > 1 and not stream:
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
    if stream:
        for e in entries:
            e.document = e.document - 1
    return top[0], top[1], flow_top, results, seq, entries, docs

__all__ = ["Cut", "Origin", "YamlError", "cut"]
