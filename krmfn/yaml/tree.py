"""The document model: a YAML text read by libyaml into nodes that know their exact spans.

Why libyaml (through PyYAML's C parser): kustomize and kubectl read through go-yaml, a port of
libyaml, so the same scanner reads the same bytes the same way, and what krmfn hashes is what
kustomize hashes by construction. Its events carry each node's start and end, style, tag and
anchor: all that editing a text in place needs. Nothing here ever writes YAML from a tree: every
change is a splice of the item's own text (yaml.textedit), read back before it is written.

Nodes are plain ``int`` ids in document order (a node's descendants follow it, up to
``stop[node]``); node 0 is the stream, whose children are the documents. Offsets are byte
offsets into the text as given (libyaml counts characters; non-ASCII texts are mapped back).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import NewType, cast

import yaml
from yaml._yaml import CParser
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from krmfn.results import InputError
from krmfn.yaml.scalars import NULLS, go_timestamp, non_string_plain

# A node of a Doc: a handle that only this package makes (Doc gives them out and takes them back);
# the layers above hold and pass nodes, never make one from a number or compute with one
# (tests/architecture/test_layers.py, and mypy: an int is not a Node).
Node = NewType("Node", int)

STREAM, SCALAR, MAP, SEQ, ALIAS = 0, 1, 2, 3, 4
NONE = Node(-1)  # no node: a resource read without its tree, a stream's parent
MERGE = "<<"
_STR_TAGS = frozenset(("tag:yaml.org,2002:str", "!!str"))
_NULL_TAGS = frozenset(("tag:yaml.org,2002:null", "!!null"))
_BOM = "\ufeff"
# A ``?`` just after a flow collection's opening or a comma, with text right after it.
_FLOW_QUESTION = re.compile(r"[\[{,][ \t\n]*\?(?=[^ \t\n])")


class YamlError(InputError):
    """Text that is not YAML libyaml can read.

    ``detail`` is the problem alone (``message`` adds the "not valid YAML" lead), so that a
    caller can place it (an item, a file) without taking the message apart; ``line`` and
    ``col`` are 1-based, 0 when unknown.
    """

    def __init__(self, detail: str, line: int = 0, col: int = 0, lead: str = "not valid YAML", problem: str = ""):
        super().__init__(f"{lead}: {detail}" if lead else detail)
        self.detail = detail
        self.line = line
        self.col = col
        self.problem = problem or detail  # the detail without its position
        self.document = 0  # in a plain stream, the document it falls in (1-based; 0: not known)

    def placed(self, place: Callable[[int, int], tuple[int, int]]) -> str:
        """The detail with its line and column moved (to the input's, from an item's own text)."""
        if not self.line:
            return self.detail
        line, col = place(self.line, self.col)
        return f"{self.problem} at line {line}, column {col}"


class Unreadable(YamlError):
    """Valid YAML that krmfn cannot hold (a map or list used as a key): refused."""

    def __init__(self, problem: str, line: int = 0, col: int = 0):
        detail = f"{problem} at line {line}, column {col}" if line else problem
        super().__init__(detail, line, col, lead="krmfn cannot read it", problem=problem)


def _error(exc: yaml.YAMLError) -> YamlError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if mark is not None and context == "while scanning a block scalar" and "tab character" in problem:
        # valid YAML that go-yaml reads and libyaml 0.2.5 refuses (ruamel writes a lone tab so)
        return Unreadable("a | or > block whose first line holds a tab after its indentation, which libyaml "
                          'cannot read; write the value double-quoted ("\\t")', mark.line + 1, mark.column + 1)
    if context:
        problem = f"{problem} ({context})"
    if mark is None:
        return YamlError(problem)
    return YamlError(f"{problem} at line {mark.line + 1}, column {mark.column + 1}", mark.line + 1, mark.column + 1,
                     problem=problem)


def block_scalar_end(text: str, start: int, end: int) -> int:
    """A ``|`` or ``>`` block scalar's end, from libyaml's span ``start:end``: after its last line
    with content. libyaml counts the empty lines after it in, which are not the scalar's when the
    next key follows them; a ``|+`` (keep) block's trailing empty lines are its value, and so is
    a last line of spaces more indented than the block's text (yaml-test-suite L24T)."""
    header_end = text.find("\n", start)
    header = text[start:header_end if header_end >= 0 else end]
    if "+" in header or any(ch.isdigit() for ch in header):
        return end
    indent = _block_indent(text, header_end + 1, end) if header_end >= 0 else None
    if indent is None:
        return end
    pos = end
    while pos > start:
        line_start = text.rfind("\n", start, pos - 1) + 1
        line = text[line_start:pos].rstrip("\r\n")
        if line.strip(" \t") or len(line) - len(line.lstrip(" ")) > indent:
            return pos
        if line_start <= start:
            break
        pos = line_start
    return end


def _block_indent(text: str, pos: int, end: int) -> int | None:
    """The indentation of a block scalar's first line with content (None: it has none)."""
    while pos < end:
        brk = text.find("\n", pos, end)
        line = text[pos:end if brk < 0 else brk]
        if line.strip(" \t\r"):
            return len(line) - len(line.lstrip(" "))
        if brk < 0:
            return None
        pos = brk + 1
    return None


class ByteOffsets:
    """Character offsets of a text as byte offsets of its UTF-8 form. Asked mostly in increasing
    order, so each answer encodes only the characters between the last one and this (backwards
    too): linear in the text, where a table of every character's offset cost a Python loop and a
    list entry per character. A long span is encoded a piece at a time: the copy of a 12 MB
    stream's span and its UTF-8 were the whole run's largest allocation (ten 1 MB CRDs: 94 MB)."""

    __slots__ = ("bytes", "chars", "text")

    PIECE = 1 << 16  # characters encoded at once

    def __init__(self, text: str):
        self.text = text
        self.chars = 0
        self.bytes = 0

    def __call__(self, index: int) -> int:
        if index >= self.chars:
            self.bytes += self._length(self.chars, index)
        elif index >= self.chars - index:  # nearer the last answer than the start
            self.bytes -= self._length(index, self.chars)
        else:
            self.bytes = self._length(0, index)
        self.chars = index
        return self.bytes

    def _length(self, a: int, b: int) -> int:
        """The UTF-8 length of ``text[a:b]``."""
        text, piece, n = self.text, self.PIECE, 0
        for at in range(a, b, piece):
            n += len(text[at:min(at + piece, b)].encode("utf-8", "surrogatepass"))
        return n


def yaml_events(text: str | bytes) -> Iterator[Event]:
    """libyaml's events of ``text``, as ``yaml.parse`` with the C loader gives them, without its
    generator or the loader's constructor and resolver: the C parser's own method is called until
    it returns None (a tenth less time over a pass of events)."""
    return iter(CParser(text).get_event, None)


def as_read(text: str) -> str:
    """The text as krmfn gives it to libyaml: a leading byte order mark dropped, and a last line
    that holds only spaces, unended, ended: libyaml 0.2.5 misreads a block scalar there
    (yaml-test-suite L24T), and the same text with the line ended reads as the spec says."""
    if text.startswith(_BOM):
        text = text[1:]
    if text and not text.endswith("\n"):
        last = text[text.rfind("\n") + 1:]
        if last and not last.strip(" \t"):
            text += "\n"
    return text


class Doc:
    """One parsed YAML stream: parallel arrays by node id (see the module doc)."""

    __slots__ = (
        "_bytes_at",
        "_index",
        "alias_of",
        "anchor",
        "end",
        "key_aliases",
        "kids",
        "kind",
        "kname",
        "kplain",
        "kstart",
        "may_alias",
        "merges",
        "plain",
        "source",
        "start",
        "stop",
        "style",
        "tag",
        "text",
        "up",
        "val",
    )

    def __init__(self, text: str, source: bytes | None):
        self.text = text
        self.source = source
        self.kind: list[int] = [STREAM]
        self.val: list[str | None] = [None]
        self.start: list[int] = [0]
        self.end: list[int] = [len(text)]
        self.stop: list[int] = [0]
        self.style: list[object] = [None]  # scalars: None (plain), ', ", |, >; containers: True when flow
        self.plain: list[bool] = [False]
        self.tag: list[str | None] = [None]
        self.anchor: list[str | None] = [None]
        self.up: list[Node] = [NONE]  # each node's parent
        self.kname: list[str | None] = [None]  # each map entry's key
        self.kstart: list[int] = [NONE]
        self.kplain: list[bool] = [True]
        self.kids: list[list[Node] | None] = [[]]
        # alias node -> the node it names; an alias of a key's anchor: -1 - that entry's node
        self.alias_of: dict[Node, Node] = {}
        self.key_aliases: dict[int, str] = {}  # a map entry whose key is an alias (``*name : v``): that name
        self.may_alias = False
        self.merges = False  # some map has a ``<<`` key
        self._index: dict[int, dict[str, Node]] = {}
        self._bytes_at: ByteOffsets | None = None

    # --- reading ----------------------------------------------------------------------

    @classmethod
    def parse(cls, data: bytes | bytearray | str) -> Doc:
        """Parse a YAML stream. Raises YamlError with its line and column."""
        if isinstance(data, str):
            text, source = data, None
        else:
            source = bytes(data)
            try:
                text = source.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise YamlError(f"not UTF-8 at byte {exc.start}") from None
        if text.startswith(_BOM) and source is not None:
            source = source[3:]
        text = as_read(text)
        doc = cls(text, source)
        try:
            doc._build(yaml_events(text))
        except yaml.YAMLError as exc:
            raise _error(exc) from None
        if "?" in text or "&" in text:
            doc._check_misreads()
        return doc

    @classmethod
    def of_events(cls, events: list, text: str, source: bytes, base: int, dash: int | None) -> Doc:
        """The tree of one object's text (a slot of the cut, yaml.split), made from the events
        the cut's own pass read it as, not by parsing the text again: what :meth:`parse` of
        ``text`` gives (tests/yaml/test_of_events.py holds them equal over the YAML test suite).
        ``base``: where the text starts in the text the pass read; ``dash``: the ``-`` of a block
        list's entry, in ``text`` (the one-entry list the slot reads as alone), or None.
        Raises YamlError as :meth:`parse` does, placed in the whole text (a caller that places
        errors in the slot parses it instead)."""
        doc = cls(text, source)
        if dash is not None:  # the one-entry block list around the entry, as the slot reads alone
            at = yaml.error.Mark("", base + dash, 0, 0, None, None)
            end = yaml.error.Mark("", base + len(text), 0, 0, None, None)
            events = [SequenceStartEvent(None, None, True, at, at, False), *events, SequenceEndEvent(end, end)]
        try:
            doc._build(events, base, len(text))
        except yaml.YAMLError as exc:
            raise _error(exc) from None
        if "?" in text or "&" in text:
            doc._check_misreads()
        return doc

    def _check_misreads(self) -> None:
        """Refuse the two shapes libyaml 0.2.5 reads against the spec (yaml-test-suite 652Z,
        HM87, Y2GN): a flow key written ``?foo`` (the ``?`` is text there) and an anchor with a
        ``:`` in its name."""
        text = self.text
        if "?" in text:
            starts = None
            for m in _FLOW_QUESTION.finditer(text):
                if starts is None:
                    starts = set(self.start) | {k for k in self.kstart if k >= 0}
                if m.end() in starts:
                    line = text.count("\n", 0, m.end() - 1) + 1
                    col = m.end() - text.rfind("\n", 0, m.end() - 1) - 1
                    raise Unreadable("a flow key or entry that starts with '?' (YAML readers disagree on it); "
                                     "quote it", line, col)
        if "&" in text:
            for name in self.anchor:
                if name is not None and text.find(f"&{name}:") >= 0:
                    at = text.find(f"&{name}:")
                    line = text.count("\n", 0, at) + 1
                    raise Unreadable(f"an anchor with ':' in its name (&{name}:...), which YAML readers read "
                                     "differently; rename the anchor", line, at - text.rfind("\n", 0, at))

    def _build(self, events: Iterable, base: int = 0, limit: int | None = None) -> None:
        """Nodes from a YAML event stream. ``base``, ``limit``: the text's span in the text the
        events were read from (a block collection that closes after the text, at the next
        token there, ends with it, as it does read alone)."""
        kind, val, start, end, stop, style = self.kind, self.val, self.start, self.end, self.stop, self.style
        limit = len(self.text) if limit is None else limit
        plain, tag, anchor = self.plain, self.tag, self.anchor
        key, kstart, kplain = self.kname, self.kstart, self.kplain
        # the only place nodes are made: as the numbers they are
        parent, kids = cast("list[int]", self.up), cast("list[list[int] | None]", self.kids)
        alias_of = cast("dict[int, int]", self.alias_of)
        anchors: dict[str, int] = {}
        cur, in_map, want_key = 0, False, False
        stack: list[tuple[int, bool]] = []
        pkey: str | None = None
        pstart, pplain = NONE, True
        for ev in events:
            c = ev.__class__
            if want_key:
                want_key = False
                if c is ScalarEvent:
                    pkey, pstart, pplain = ev.value, ev.start_mark.index - base, not ev.style
                    if pkey == MERGE and pplain:
                        self.merges = True
                    if ev.anchor is not None:
                        anchors[ev.anchor] = -len(kind) - 1  # names the key of the node that follows
                        self.may_alias = True
                    continue
                if c is AliasEvent:
                    pkey, pstart, pplain = self._key_alias(anchors, ev), ev.start_mark.index - base, True
                    self.key_aliases[len(kind)] = ev.anchor  # the entry's node comes next
                    continue
                if c is MappingEndEvent:
                    end[cur] = min(ev.end_mark.index - base, limit)
                    stop[cur] = len(kind)
                    cur, in_map = stack.pop()
                    want_key = in_map
                    continue
                mark = ev.start_mark
                raise Unreadable("a map or list used as a key, which krmfn cannot hold; write the key as text",
                                 mark.line + 1, mark.column + 1)
            if c is ScalarEvent:
                n = len(kind)
                kind.append(SCALAR)
                val.append(ev.value)
                start.append(ev.start_mark.index - base)
                end.append(ev.end_mark.index - base)
                stop.append(n + 1)
                s = ev.style or None  # libyaml's plain style is ""
                style.append(s)
                plain.append(s is None and ev.implicit[0])
                tag.append(ev.tag if ev.tag != "!" else None)
                a = ev.anchor
                anchor.append(a)
                if a is not None:
                    anchors[a] = n
                    self.may_alias = True
            elif c is MappingStartEvent or c is SequenceStartEvent:
                n = len(kind)
                kind.append(MAP if c is MappingStartEvent else SEQ)
                val.append(None)
                start.append(ev.start_mark.index - base)
                end.append(0)
                stop.append(0)
                style.append(ev.flow_style)
                plain.append(False)
                tag.append(ev.tag)
                a = ev.anchor
                anchor.append(a)
                if a is not None:
                    anchors[a] = n
                    self.may_alias = True
            elif c is MappingEndEvent or c is SequenceEndEvent:
                end[cur] = min(ev.end_mark.index - base, limit)
                stop[cur] = len(kind)
                cur, in_map = stack.pop()
                want_key = in_map
                continue
            elif c is AliasEvent:
                n = len(kind)
                target = anchors.get(ev.anchor)
                if target is None:
                    mark = ev.start_mark
                    raise YamlError(f"the alias *{ev.anchor} names no anchor before it at line {mark.line + 1}, "
                                    f"column {mark.column + 1}", mark.line + 1, mark.column + 1,
                                    problem=f"the alias *{ev.anchor} names no anchor before it")
                if target >= 0 and stop[target] == 0 and kind[target] != SCALAR:
                    mark = ev.start_mark
                    problem = f"the alias *{ev.anchor} is inside the node it names (a recursive alias)"
                    raise YamlError(f"{problem} at line {mark.line + 1}, column {mark.column + 1}", mark.line + 1,
                                    mark.column + 1, problem=problem)
                alias_of[n] = target
                kind.append(ALIAS)
                val.append(ev.anchor)
                start.append(ev.start_mark.index - base)
                end.append(ev.end_mark.index - base)
                stop.append(n + 1)
                style.append(None)
                plain.append(False)
                tag.append(None)
                anchor.append(None)
            elif c is DocumentStartEvent:
                anchors = {}  # anchors do not cross documents
                continue
            else:  # stream and document ends
                continue
            parent.append(cur)
            key.append(pkey)
            kstart.append(pstart)
            kplain.append(pplain)
            pkey, pstart = None, NONE
            kids[cur].append(n)  # type: ignore[union-attr]
            if c is MappingStartEvent or c is SequenceStartEvent:
                kids.append([])
                stack.append((cur, in_map))
                cur, in_map = n, c is MappingStartEvent
                want_key = in_map
            else:
                kids.append(None)
                want_key = in_map
        stop[0] = len(kind)

    def _key_alias(self, anchors: dict[str, int], ev: AliasEvent) -> str:
        """The text of a key written as an alias (``*name : value``): the scalar or key it names."""
        target = anchors.get(ev.anchor)
        if target is not None and target < 0:
            found = self.kname[-target - 1]
            if found is not None:
                return found
        if target is not None and target >= 0 and self.kind[target] == SCALAR:
            return self.val[target] or ""
        mark = ev.start_mark
        raise YamlError(f"the key *{ev.anchor} is not an alias of a scalar at line {mark.line + 1}, column "
                        f"{mark.column + 1}", mark.line + 1, mark.column + 1,
                        problem=f"the key *{ev.anchor} is not an alias of a scalar")

    # --- offsets ----------------------------------------------------------------------

    def at(self, index: int) -> int:
        """The byte offset of a character offset of the text (they differ only past non-ASCII text)."""
        if self._bytes_at is None:
            if self.text.isascii():
                return index
            self._bytes_at = ByteOffsets(self.text)
        return self._bytes_at(index)

    def content_end(self, node: Node) -> int:
        """The character offset after the node's last character of content."""
        kind = self.kind[node]
        while kind in (MAP, SEQ):
            if self.style[node]:  # a flow collection ends with its bracket
                break
            kids = self.kids[node]
            if not kids:
                break
            node = kids[-1]
            kind = self.kind[node]
        if kind == SCALAR and self.style[node] in ("|", ">"):
            return self._block_scalar_end(node)
        return self.end[node]

    def _block_scalar_end(self, node: Node) -> int:
        return block_scalar_end(self.text, self.start[node], self.end[node])

    def offset(self, node: Node) -> int | None:
        """Where a scalar's text starts, in bytes (its opening quote included)."""
        if self.kind[node] not in (SCALAR, ALIAS):
            return None
        return self.at(self.start[node])

    def column(self, index: int) -> int:
        """The 0-based column of a character offset."""
        return index - self.text.rfind("\n", 0, index) - 1

    # --- navigation -------------------------------------------------------------------

    def documents(self) -> list[Node]:
        """The documents that hold something: one id per ``---`` section (empty ones left out)."""
        return [d for d in self.kids[0] or () if not self.is_null(d)]

    def all_documents(self) -> list[Node]:
        """Every document of the stream, null ones included."""
        return list(self.kids[0] or ())

    def get(self, node: Node | None, key: str) -> Node | None:
        """The child of map ``node`` under ``key`` (merge keys followed), or None."""
        if node is None:
            return None
        if self.kind[node] == ALIAS:
            node = self.resolve(node)
        if self.kind[node] != MAP:
            return None
        kids = self.kids[node]
        assert kids is not None
        if len(kids) > 12:
            index = self._index.get(node)
            if index is None:
                index = self._index[node] = {}
                for child in reversed(kids):  # the first of duplicate keys wins
                    index[self.kname[child]] = child  # type: ignore[index]
            found = index.get(key)
        else:
            keys = self.kname
            found = next((c for c in kids if keys[c] == key), None)
        if found is None and self.merges:
            merged = self._merged(node)
            if merged:
                return next((c for m in merged for c in (self.get(m, key),) if c is not None), None)
        return found

    def path(self, node: Node | None, *keys: str) -> Node | None:
        """The node below ``node`` at ``keys`` (map keys), or None."""
        for key in keys:
            node = self.get(node, key)
            if node is None:
                return None
        return node

    def _merged(self, node: Node) -> list[Node]:
        """The maps a ``<<`` entry of ``node`` merges in, in the order they win."""
        kids = self.kids[node] or []
        out: list[Node] = []
        for child in kids:
            if self.kname[child] == MERGE and self.kplain[child]:
                target = self.resolve(child)
                if self.kind[target] == MAP:
                    out.append(target)
                elif self.kind[target] == SEQ:
                    out += [m for m in (self.resolve(c) for c in self.kids[target] or ()) if self.kind[m] == MAP]
        return out

    def children(self, node: Node) -> Iterator[Node]:
        if self.kind[node] == ALIAS:
            node = self.resolve(node)
        return iter(self.kids[node] or ())

    def items(self, node: Node) -> Iterator[tuple[str, Node]]:
        """A map's entries, merge keys resolved (its own entries win over merged ones)."""
        if self.kind[node] == ALIAS:
            node = self.resolve(node)
        keys = self.kname
        kids = self.kids[node] or []
        merged = self._merged(node) if self.merges else []
        if not merged:
            for child in kids:
                yield keys[child] or "", child
            return
        seen = {keys[c] for c in kids if not (keys[c] == MERGE and self.kplain[c])}
        for child in kids:
            if not (keys[child] == MERGE and self.kplain[child]):
                yield keys[child] or "", child
        for m in merged:
            for k, child in self.items(m):
                if k not in seen:
                    seen.add(k)
                    yield k, child

    def is_block(self, node: Node) -> bool:
        """A map or list written in block style (not ``{...}`` or ``[...]``)."""
        return self.kind[node] in (MAP, SEQ) and not self.style[node]

    def is_plain(self, node: Node) -> bool:
        """A scalar written without quotes (not a ``|``/``>`` block, not an alias)."""
        return self.kind[node] == SCALAR and self.style[node] is None

    def is_alias(self, node: Node) -> bool:
        return self.kind[node] == ALIAS

    def is_map(self, node: Node) -> bool:
        kind = self.kind[node]
        return kind == MAP or (kind == ALIAS and self.kind[self.resolve(node)] == MAP)

    def is_seq(self, node: Node) -> bool:
        kind = self.kind[node]
        return kind == SEQ or (kind == ALIAS and self.kind[self.resolve(node)] == SEQ)

    def is_scalar(self, node: Node) -> bool:
        kind = self.kind[node]
        return kind == SCALAR or (kind == ALIAS and self.kind[self.resolve(node)] == SCALAR)

    def parent(self, node: Node) -> Node | None:
        p = self.up[node]
        return None if p == NONE else p

    def is_null(self, node: Node) -> bool:
        """A null: a plain ``null``, ``~`` or nothing, or a ``!!null`` tag (aliases followed)."""
        if self.kind[node] == ALIAS:
            node = self.resolve(node)
        if self.kind[node] != SCALAR:
            return False
        tag = self.tag[node]
        if tag is not None:
            return tag in _NULL_TAGS
        return self.style[node] is None and self.val[node] in NULLS

    def describe(self, node: Node) -> str:
        """What kind of YAML value this is, for error messages."""
        if self.is_map(node):
            return "a map"
        if self.is_seq(node):
            return "a list"
        if self.is_null(node):
            return "null"
        return "a scalar"

    def resolve(self, node: Node) -> Node:
        """Follow an alias (``*name``) to its anchored node; other nodes are returned as they are.
        An alias of a key's anchor stays itself (its text is that key's, see :meth:`scalar`)."""
        if self.kind[node] != ALIAS:
            return node
        target = self.alias_of[node]
        return node if target < 0 else target

    def scalar(self, node: Node | None) -> str | None:
        """A scalar's text, aliases followed (None for a missing or non-scalar node): for comparing a value."""
        if node is None:
            return None
        kind = self.kind[node]
        if kind == SCALAR:
            return self.val[node]
        if kind == ALIAS:
            target = self.alias_of[node]
            if target < 0:
                return self.kname[-target - 1]
            return self.val[target] if self.kind[target] == SCALAR else None
        return None

    def key(self, node: Node) -> str:
        """A map entry's key text ("" for a list entry or a document): for naming a field."""
        return self.kname[node] or ""

    def string(self, node: Node) -> str | None:
        """A scalar's text only if every YAML 1.1 and 1.2 reader takes it for a string: for a value
        Kubernetes must read as text (a name, a data entry)."""
        if self.kind[node] == ALIAS:
            target = self.alias_of[node]
            if target < 0:
                return self.kname[-target - 1]
            node = target
        if self.kind[node] != SCALAR:
            return None
        tag = self.tag[node]
        if tag is not None:
            return self.val[node] if tag in _STR_TAGS else None
        text = self.val[node]
        if self.style[node] is not None:
            return text
        if text in NULLS or non_string_plain(text):  # type: ignore[arg-type]
            return None
        return text

    def is_string_key(self, node: Node) -> bool:
        """Whether the key of map entry ``node`` is text to every reader: not a plain ``true``,
        ``~``, ``1e3`` or ``0800``."""
        key = self.kname[node]
        return key is not None and not (self.kplain[node] and (key in NULLS or non_string_plain(key)))

    def plain_timestamp(self, node: Node) -> bool:
        """Whether scalar ``node`` is plain text that go-yaml v3 (kustomize) reads as a timestamp."""
        return (self.kind[node] == SCALAR and self.style[node] is None and self.tag[node] is None
                and go_timestamp(self.val[node] or ""))

    def scalar_map(self, node: Node | None) -> dict[str, str]:
        """A map's scalar values by key (labels, annotations); non-scalar values are skipped."""
        out: dict[str, str] = {}
        if node is None or not self.is_map(node):
            return out
        for k, child in self.items(node):
            value = self.scalar(child)
            if value is not None:
                out.setdefault(k, value)
        return out

    def has_duplicate_keys(self, node: Node) -> bool:
        """Whether two entries of map ``node`` have the same key (merge keys aside)."""
        keys = [self.kname[c] for c in self.kids[node] or () if not (self.kname[c] == MERGE and self.kplain[c])]
        return len(set(keys)) != len(keys)

    def duplicate_key(self, node: Node) -> str | None:
        """The first key written twice in map ``node``, or None."""
        seen: set[str | None] = set()
        for c in self.kids[node] or ():
            k = self.kname[c]
            if k == MERGE and self.kplain[c]:
                continue
            if k in seen:
                return k
            seen.add(k)
        return None

    def path_of(self, node: Node, top: Node) -> str:
        """The field path from ``top`` down to ``node`` as kpt prints it: ``spec.containers[0].name``."""
        steps = []
        parent = self.up
        while node != top and node > 0:
            up = parent[node]
            if self.kind[up] == SEQ:
                steps.append(f"[{(self.kids[up] or []).index(node)}]")
            elif self.kind[up] == MAP:
                key = self.kname[node] or ""
                steps.append(f"[{key}]" if "." in key or "/" in key else f".{key}")
            node = up
        return "".join(reversed(steps)).lstrip(".")

    def steps_of(self, node: Node, top: Node) -> tuple[str | int, ...]:
        """The path from ``top`` to ``node`` as keys and list positions."""
        steps: list[str | int] = []
        parent = self.up
        while node != top and node > 0:
            up = parent[node]
            steps.append((self.kids[up] or []).index(node) if self.kind[up] == SEQ else self.kname[node] or "")
            node = up
        return tuple(reversed(steps))

    def aliases_of(self, target: Node) -> list[Node]:
        """Every alias that names ``target``."""
        return [a for a, t in self.alias_of.items() if t == target]

    def anchored_above(self, node: Node) -> Node | None:
        """The nearest node at or above ``node`` that carries an anchor some alias names, or None."""
        if not self.alias_of:
            return None
        named = set(self.alias_of.values())
        parent = self.up
        while node > 0:
            if node in named:
                return node
            node = parent[node]
        return None


__all__ = ["ALIAS", "MAP", "NONE", "SCALAR", "SEQ", "Doc", "Node", "Unreadable", "YamlError", "item_node",
           "parse_item"]


def parse_item(source: bytes) -> tuple[Doc, Node]:
    """Parse one object's text: an entry of a block list (``- `` and all) or a flow map; the
    object's node."""
    return item_node(Doc.parse(source))


def item_node(doc: Doc) -> tuple[Doc, Node]:
    """An object's tree (parsed, or made from the cut's pass) and its node: the one document's
    root, or the one entry of the block list it is."""
    docs = doc.all_documents()
    if len(docs) != 1:
        raise YamlError("an item's text did not read back as one object", lead="")
    node = docs[0]
    if doc.kind[node] == SEQ and doc.is_block(node):
        kids = doc.kids[node] or []
        if len(kids) != 1:
            raise YamlError("an item's text did not read back as one list entry", lead="")
        node = kids[0]
    return doc, node
