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
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

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

from krmfn.yaml.probe import IDENTITY
from krmfn.yaml.scalars import NULLS, non_string_plain
from krmfn.yaml.tree import ByteOffsets, YamlError, _error, as_read, block_scalar_end, yaml_events


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


class ItemText:
    """An object's text as its span of the input: read (copied) only when asked for, so that
    what is kept of every object for the whole run does not hold a second copy of the input.
    A plain class: a dataclass costs start-up time."""

    __slots__ = ("data", "end", "start")

    def __init__(self, data: bytes, start: int, end: int):
        self.data, self.start, self.end = data, start, end

    def read(self) -> bytes:
        return self.data[self.start:self.end]


class Texts(Sequence[bytes]):
    """Each object's text, sliced from the input as it is asked for (:class:`ItemText`)."""

    __slots__ = ("data", "slots")

    def __init__(self, data: bytes, slots: list[tuple[int, int]]):
        self.data, self.slots = data, slots

    def __len__(self) -> int:
        return len(self.slots)

    def __iter__(self) -> Iterator[bytes]:
        data = self.data
        return (data[a:b] for a, b in self.slots)

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        if isinstance(index, slice):
            return [self.data[a:b] for a, b in self.slots[index]]
        a, b = self.slots[index]
        return self.data[a:b]

    def span(self, index: int) -> ItemText:
        """Object ``index``'s text, not yet read."""
        a, b = self.slots[index]
        return ItemText(self.data, a, b)


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

    @property
    def items(self) -> Texts:
        """Each object's text (its slot of ``data``)."""
        return Texts(self.data, self.slots)

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

    def replacements(self, items: Sequence[bytes], results: bytes) -> list[tuple[int, int, bytes]]:
        """Every span of the input that the output replaces, in order, with its new text: each
        slot with its object's text, and the old ``results`` (or the place new ones go).
        ``results``: the new entry as the envelope writes it, block YAML (``results:`` and its
        lines) or, in a flow envelope (:attr:`flow_top`), a flow entry (``"results": [...]``)."""
        data = self.data
        cuts: list[tuple[int, int, bytes]] = [(a, b, t) for (a, b), t in zip(self.slots, items)]
        if self.stream:
            return cuts
        if self.results is not None:
            a, b = self.results
            if self.flow_top:
                new = results
                if not new:  # the entry goes, with the comma beside it
                    a, b = _with_comma(data, a, b)
                cuts.append((a, b, new))
            else:
                cuts.append((a, b, results))
        elif results and self.flow_top:
            close = self.top_end - 1
            cuts.append((close, close, b", " + results))
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
    return Cut(joined, slots, None, len(joined), 0, False, b"", lists, outer, idents, windows, True,
               documents, parts)


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


# metadata's keys an identity holds, and the key each goes under (one string, not one an object)
_META = {key: "metadata." + key for key in ("name", "namespace", "generateName")}


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
    return tag is None and not ev.style and ev.value in NULLS  # type: ignore[attr-defined]




class _NotAList(Exception):
    """The input is not one map with an ``items`` list: the envelope check says why."""


def cut(data: bytes, stream: bool = False, reader: ItemReader | None = None) -> Cut:
    """Cut a ResourceList, or with ``stream`` a plain multi-document stream (UTF-8, LF, no BOM),
    into its objects' texts; raises YamlError for text that is not YAML, and leaves the rest of
    the checks (one document, a map, its kind) to the envelope's reader. ``reader``: given each
    object as the pass closes it (:class:`ItemReader`)."""
    text = data.decode("utf-8")
    to_b: Callable[[int], int] = (lambda i: i) if text.isascii() else ByteOffsets(text)
    slots = _Slots(text, data, to_b, stream, reader)
    try:
        found = _events(text, data, slots, stream)
    except yaml.YAMLError as exc:
        error = _error(exc)
        if stream:
            error.document = _documents_begun(text)
        raise error from None
    except _NotAList:
        return Cut(data, [], None, len(data), 0, False, data)
    top_start, top_end, flow_top, results, seq, entries, documents = found
    done = Cut(data, slots.slots, None, len(data), 0, False, b"", slots.lists, slots.outer, slots.idents)
    if stream:
        done.windows, done.stream, done.documents = slots.windows(entries), True, documents
        return done
    envelope = data
    if seq is not None and entries:
        if seq[1]:  # a flow list: its entries out, its brackets stay
            envelope = data[:to_b(entries[0].start)] + data[to_b(entries[-1].end):]
        else:
            first = to_b(text.rfind("\n", 0, entries[0].start) + 1)
            envelope = data[:first] + b" []\n" + data[to_b(_line_end(text, entries[-1].end)):]
    if results is not None:
        a, b = results
        done.results = (to_b(a), to_b(b if flow_top else _line_end(text, b)))
    done.top_end, done.top_start, done.flow_top, done.envelope = to_b(top_end), to_b(top_start), flow_top, envelope
    done.windows = [b for _, b in done.slots]
    return done


class ItemReader:
    """What reads the objects as the cut's pass closes each (core.run.stream): so that an object
    is parsed once, by the pass itself, its events are kept while it is read and handed over with
    its slot. A base class that wants none and reads nothing."""

    def wants(self, entry: int) -> bool:
        """Whether to keep the events of entry ``entry`` of ``items`` (or document, in a stream)."""
        return False

    def keeps(self, kind: str) -> bool:
        """Whether to go on keeping them once its ``kind`` is read (a kind seldom parsed: no)."""
        return True

    def read(self, index: int, entry: int, source: ItemText, ident: dict[str, str] | None, events: list | None,
             text: str, base: int, dash: int | None) -> None:
        """Slot ``index`` is cut, of entry ``entry`` (a List's entries share it): its bytes, its
        identity as the pass read it, and (when kept) its events with what
        :meth:`krmfn.yaml.tree.Doc.of_events` needs: the slot's text, where it starts in the
        pass's text, and the ``-`` of a block list's entry in it."""


class _Slots:
    """Each entry's slot (or a List's entries' slots), made as the pass closes the entry: so that
    a reader is handed each object with its events while the pass goes on."""

    def __init__(self, text: str, data: bytes, to_b: Callable[[int], int], stream: bool,
                 reader: ItemReader | None):
        self.text, self.data, self.to_b, self.stream, self.reader = text, data, to_b, stream, reader
        self.slots: list[tuple[int, int]] = []
        self.lists: list[tuple[int, str]] = []
        self.outer: list[int] = []
        self.idents: list[dict[str, str] | None] = []
        self.ends: list[tuple[int, int]] = []  # a stream's plain documents: (slot, content's line end)
        self.prev = -1  # where the next block entry's slot starts (-1: its own line's start)

    def begin(self, seq_start: int, flow: bool) -> None:
        """The ``items`` list starts: its first block entry's slot starts at its line."""
        self.prev = -1 if flow else self.text.rfind("\n", 0, seq_start) + 1

    def add(self, number: int, entry: Entry, events: list | None) -> None:
        """Entry ``number`` is closed: its slot (or its entries' slots, for a List)."""
        text, to_b = self.text, self.to_b
        owner = entry.document if self.stream else number
        if _expands(entry):
            first = len(self.slots)
            _list_entries(text, entry, owner, self.slots, self.lists, self.outer, self.idents, to_b)
            self.prev = _line_end(text, entry.end) if not entry.flow else -1
            for index in range(first, len(self.slots)):
                self._cut(index, number, None, None, 0, 0, None)
            return
        dash = None
        if self.stream:
            start = _document_start(text, entry.start)
            end = _slot_end(text, entry.end)
            self.ends.append((len(self.slots), end))
        else:
            start, end = _span(text, entry, self.prev)
            self.prev = -1 if entry.flow else end
            at = _dash(text, start, entry.start) if events is not None and not entry.flow else None
            dash = None if at is None else at - start
        self.slots.append((to_b(start), to_b(end)))
        self.outer.append(owner)
        ident = entry.ident if not entry.aliased else None
        self.idents.append(ident)
        self._cut(len(self.slots) - 1, number, ident,
                  events if dash is not None or self.stream or entry.flow else None, start, end, dash)

    def _cut(self, index: int, number: int, ident: dict[str, str] | None, events: list | None, start: int,
             end: int, dash: int | None) -> None:
        if self.reader is not None:
            a, b = self.slots[index]
            source = ItemText(self.data, a, b)
            text = self.text[start:end] if events is not None else ""
            if events is not None and len(as_read(text)) != len(text):  # read alone, it is ended first
                events = None
            self.reader.read(index, number, source, ident, events, text, start, dash)

    def windows(self, entries: list[Entry]) -> list[int]:
        """A stream's windows: a document's runs to the next document's slot (its ``---`` and the
        comments before it), a List's entry's is its slot."""
        text, to_b = self.text, self.to_b
        windows = [b for _, b in self.slots]
        starts = [_document_start(text, entry.start) for entry in entries] + [len(text)]
        plain = [n for n, entry in enumerate(entries) if not _expands(entry)]
        for (index, end), number in zip(self.ends, plain):
            windows[index] = to_b(max(end, starts[number + 1]))
        return windows


def _dash(text: str, start: int, node: int) -> int | None:
    """The ``-`` of the block list entry whose slot starts at ``start`` and whose node starts at
    ``node``: the first character past empty and comment lines (None where there is none)."""
    pos = start
    while pos < node:
        brk = text.find("\n", pos, node)
        line = text[pos:node if brk < 0 else brk]
        body = line.lstrip(" \t")
        if body and not body.startswith("#"):
            return pos + len(line) - len(body) if body.startswith("-") else None
        if brk < 0:
            return None
        pos = brk + 1
    return None


def _documents_begun(text: str) -> int:
    """How many documents a stream that does not read had begun where it stops being read (the
    error path only: the stream is read once more, as far as it reads)."""
    n = 0
    try:
        for ev in yaml_events(text):
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
        start, end = _span(text, sub, prev)
        slots.append((to_b(start), to_b(end)))
        prev = -1 if sub.flow else end
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


def _span(text: str, entry: Entry, prev: int) -> tuple[int, int]:
    """A list entry's slot, in characters: a flow entry's own text; a block entry's lines from
    ``prev`` (where the previous entry's slot ended; -1: from its own line) to its slot's end."""
    if entry.flow:
        return entry.start, entry.end
    return prev if prev >= 0 else text.rfind("\n", 0, entry.start) + 1, _slot_end(text, entry.end)


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


class _Pass:
    """The state of :func:`_events`' one pass, and one method per kind of event.

    Each open container is a frame ``(role, is_map, flow, want_key, key)``; only frames with a
    role (the envelope, ``items``, an entry's own map, a List's ``items``) look at keys, so the
    events deep inside objects are read by :meth:`skip`, a loop of their own. A role's values and child containers are
    handled by the methods its tables name (a class of small handlers: the pass read as one
    function was too branched to check by eye)."""

    __slots__ = ("docs", "entries", "entry", "events", "flow", "flow_top", "is_map", "kept", "key", "last",
                 "results", "results_start", "role", "seq", "slots", "stack", "stream", "sub", "text", "top_end",
                 "top_start", "want_key")

    def __init__(self, text: str, stream: bool, events: Iterator[object], slots: _Slots):
        self.text = text
        self.events = events
        self.stream = stream
        self.slots = slots
        self.kept: list | None = None  # the events of the entry being read, while its reader wants them
        self.docs = 0
        self.top_start = self.top_end = 0
        self.flow_top = False
        self.results_start = -1
        self.results: tuple[int, int] | None = None
        self.seq: tuple[int, bool] | None = None
        self.entries: list[Entry] = []
        self.entry: Entry | None = None  # the entry of ``items`` (or document) being read
        self.sub: Entry | None = None  # the entry of a List's ``items`` being read
        self.last: object = None  # the last event of content: a scalar, an alias or a flow collection's end
        self.stack: list[tuple] = []
        # "": the stream, outside any node; None: a container whose keys do not matter
        self.role: str | None = "items" if stream else ""
        self.is_map = self.flow = self.want_key = False
        self.key: str | None = None

    def scalar(self, ev: object) -> None:
        """A scalar or an alias: a key of a map whose keys matter, or a value its role reads."""
        self.last = ev
        role = self.role
        assert role is not None  # a container whose keys do not matter is read by skip
        if self.is_map and self.want_key:
            self._key(ev)
            return
        self.want_key = self.is_map
        handler = _VALUE.get(role)
        if handler is not None:
            handler(self, ev)

    def _key(self, ev: object) -> None:
        self.want_key = False
        aliased = ev.__class__ is AliasEvent
        self.key = None if aliased else ev.value  # type: ignore[attr-defined]
        if aliased and self.entry is not None:
            self.entry.aliased = True
        if self.role == "top" and self.key == "results":
            self.results_start = ev.start_mark.index  # type: ignore[attr-defined]

    def _stream_value(self, ev: object) -> None:
        raise _NotAList

    def _top_value(self, ev: object) -> None:
        if self.key == "results":
            self.results = (self.results_start, _content_end(self.text, ev))

    def _items_value(self, ev: object) -> None:
        if not (self.stream and _is_null(ev)):
            start = ev.start_mark.index  # type: ignore[attr-defined]
            self._closed(Entry(start, _content_end(self.text, ev), self.flow, document=self.docs - 1))

    def _closed(self, entry: Entry) -> None:
        """An entry of ``items`` (or a document) is read: its slot is cut, its kept events handed on."""
        self.entries.append(entry)
        kept, self.kept = self.kept, None
        self.slots.add(len(self.entries) - 1, entry, kept)

    def _entry_value(self, ev: object) -> None:
        entry, key = self.entry, self.key
        assert entry is not None
        if ev.__class__ is AliasEvent:
            entry.aliased = True
            return
        if key in IDENTITY and _text(ev) is not None:  # one string for each kind and apiVersion, kept per object
            entry.ident.setdefault(key, sys.intern(ev.value))  # type: ignore[attr-defined]
        if key == "kind":
            entry.kind = ev.value  # type: ignore[attr-defined]
            reader = self.slots.reader
            if self.kept is not None and reader is not None and not reader.keeps(entry.kind):
                self.kept = None

    def _meta_value(self, ev: object) -> None:
        entry = self.entry
        assert entry is not None
        if ev.__class__ is AliasEvent:
            entry.aliased = True
        elif self.key in _META and _text(ev) is not None:
            entry.ident.setdefault(_META[self.key], ev.value)  # type: ignore[attr-defined]

    def _inner_value(self, ev: object) -> None:
        assert self.entry is not None
        start = ev.start_mark.index  # type: ignore[attr-defined]
        self.entry.inner.append(Entry(start, _content_end(self.text, ev), self.flow))

    def open(self, ev: object) -> None:
        """A map or a list starts: a frame for it, with the role its parent's role gives it."""
        is_map = ev.__class__ is MappingStartEvent
        child: str | None = None
        if self.role is not None:
            handler = _CHILD.get(self.role)
            if handler is not None:
                child = handler(self, ev, is_map)
        self.stack.append((self.role, self.is_map, self.flow, self.want_key, self.key))
        self.role, self.is_map, self.flow, self.want_key, self.key = child, is_map, bool(ev.flow_style), is_map, None  # type: ignore[attr-defined]
        if child is None:
            self.skip()

    def skip(self) -> None:
        """The rest of a container whose keys do not matter, up to its end, which closes it as any
        other. Most of an object's events are here: all they change is the last event of content
        (a scalar, an alias, a flow collection's end) and, for an alias, the entry's mark. Where a
        reader wants the entry, its events are kept on the way (:func:`_keeping`)."""
        flows = [self.flow]  # of each container open in it, whether it is flow style
        last = self.last
        for ev in self.events if self.kept is None else _keeping(self.events, self.kept):
            c = ev.__class__
            if c is ScalarEvent:
                last = ev
            elif c is MappingStartEvent or c is SequenceStartEvent:
                flows.append(bool(ev.flow_style))  # type: ignore[attr-defined]
            elif c is MappingEndEvent or c is SequenceEndEvent:
                if len(flows) == 1:
                    self.last = last
                    self.close(ev)
                    return
                if flows.pop():
                    last = ev
            elif c is AliasEvent:
                last = ev
                if self.entry is not None:
                    self.entry.aliased = True

    def _stream_child(self, ev: object, is_map: bool) -> str | None:
        if not is_map:
            raise _NotAList
        self.top_start, self.flow_top = ev.start_mark.index, bool(ev.flow_style)  # type: ignore[attr-defined]
        return "top"

    def _top_child(self, ev: object, is_map: bool) -> str | None:
        if self.key == "items" and not is_map and self.seq is None:
            self.seq = (ev.start_mark.index, bool(ev.flow_style))  # type: ignore[attr-defined]
            self.slots.begin(*self.seq)
            return "items"
        return None

    def _items_child(self, ev: object, is_map: bool) -> str | None:
        start = ev.start_mark.index  # type: ignore[attr-defined]
        self.entry = Entry(start, 0, self.flow, document=self.docs - 1)
        reader = self.slots.reader
        if is_map and reader is not None and reader.wants(len(self.entries)):
            self.kept = [ev]
        return "entry" if is_map else "whole"

    def _entry_child(self, ev: object, is_map: bool) -> str | None:
        if self.key == "metadata" and is_map:
            return "meta"
        if self.key == "items" and not is_map:
            assert self.entry is not None
            self.entry.inner_seq = ev.start_mark.index  # type: ignore[attr-defined]
            return "inner"
        return None

    def _inner_child(self, ev: object, is_map: bool) -> str | None:
        self.sub = Entry(ev.start_mark.index, 0, self.flow, is_map=is_map)  # type: ignore[attr-defined]
        return "sub"

    def close(self, ev: object) -> None:
        """A map or a list ends: where its content ends goes to what its role built."""
        if self.flow:
            self.last = ev
            end = ev.end_mark.index  # type: ignore[attr-defined]
        else:
            last = self.last
            end = _content_end(self.text, last) if last is not None else ev.end_mark.index  # type: ignore[attr-defined]
        closing = self.role
        self.role, self.is_map, self.flow, _, self.key = self.stack.pop()
        self.want_key = self.is_map
        if closing == "top":
            self.top_end = end
        elif closing == "entry" or closing == "whole":
            assert self.entry is not None
            self.entry.end = end
            entry, self.entry = self.entry, None
            self._closed(entry)
        elif closing == "sub":
            assert self.entry is not None and self.sub is not None
            self.sub.end = end
            self.entry.inner.append(self.sub)
            self.sub = None
        if self.role == "top" and self.results_start >= 0 and self.results is None:
            self.results = (self.results_start, end)

    def document(self, ev: object) -> None:
        """A document starts: a ResourceList is one document, a stream counts them."""
        self.docs += 1
        if self.docs > 1 and not self.stream:
            raise _NotAList

    def found(self) -> tuple:
        """What the pass found, as :func:`cut` reads it."""
        return (self.top_start, self.top_end, self.flow_top, self.results, self.seq, self.entries, self.docs)


# what a value does in a frame of each role (roles not named here ignore their values) ...
_VALUE: dict[str, Callable[[_Pass, object], None]] = {
    "": _Pass._stream_value, "top": _Pass._top_value, "items": _Pass._items_value,
    "entry": _Pass._entry_value, "meta": _Pass._meta_value, "inner": _Pass._inner_value,
}
# ... and which role a map or list opened in it gets (None: its keys do not matter)
_CHILD: dict[str, Callable[[_Pass, object, bool], str | None]] = {
    "": _Pass._stream_child, "top": _Pass._top_child, "items": _Pass._items_child,
    "entry": _Pass._entry_child, "inner": _Pass._inner_child,
}


def _keeping(events: Iterator[object], kept: list) -> Iterator[object]:
    """The events, each kept as it is read (for the entry's reader): only then does the pass's
    hottest loop pay for it."""
    for ev in events:
        kept.append(ev)
        yield ev


def _events(text: str, data: bytes, slots: _Slots, stream: bool = False) -> tuple:
    """One pass: the envelope map's span, an old ``results`` entry's span, the ``items`` list's
    start (and whether it is flow), each entry's start and content end, and for each entry that
    could be a List, its kind and its own entries. With ``stream``, each document's root is an
    entry (a null document, Helm's ``toYaml`` of an unset value, is none)."""
    # libyaml reads ``data``, the text as UTF-8 (its marks count characters either way): given
    # the str, PyYAML would make a UTF-8 copy of it, as large as the input, for the pass's length
    events = yaml_events(data)
    state = _Pass(text, stream, events, slots)
    on = {ScalarEvent: state.scalar, AliasEvent: state.scalar, MappingStartEvent: state.open,
          SequenceStartEvent: state.open, MappingEndEvent: state.close, SequenceEndEvent: state.close,
          DocumentStartEvent: state.document}
    for ev in events:
        if state.kept is not None:  # the entry's own keys and metadata (skip keeps the rest)
            state.kept.append(ev)
        handle = on.get(ev.__class__)
        if handle is not None:
            handle(ev)
    return state.found()

__all__ = ["Cut", "Origin", "YamlError", "cut"]
