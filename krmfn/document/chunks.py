"""Split a ResourceList into its envelope and one text per item, whatever its shape.

Why: an item that krmfn does not change goes out byte for byte as it came in (comments and
all); each item is parsed alone and its tree dropped once read, so memory follows the largest
item rather than the whole list; and a changed name is spliced into the item's own text.

Two shapes, both cut without parsing the whole:

- block style (what every orchestrator writes): only "shallow" lines are looked at (column 0,
  and up to the items' column inside ``items``), found by regular expressions, so a 7 MB list
  costs a few milliseconds here. Quoted top-level keys, a leading ``---`` or ``%YAML`` line, a
  ``...`` end marker, comments anywhere and tabs inside items are fine; ``items:`` may hold a
  flow list;
- a flow document (JSON, ``{...}``): document.flow finds its entries. The envelope is then
  written in block style, one ``key: value`` line per entry with the value's text as it was,
  and each item as ``- `` and its own text: the output parses to the same ResourceList and
  every item's text is in it unchanged.

A text the splitter cannot cut for certain raises :class:`SplitError` naming where; nothing is
ever re-emitted here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from krmfn.document.scalars import Lazy

# A line at column 0 (after a newline: much faster to search for than a multi-line "^").
_COL0 = re.compile(rb"\n([^ \n][^\n]*)")
_TOP_KEY = re.compile(rb"""([A-Za-z_][A-Za-z0-9_.-]*|"[A-Za-z_][A-Za-z0-9_.-]*"|'[A-Za-z_][A-Za-z0-9_.-]*')"""
                      rb"[ ]*:(?:[ ]+([^#]*?))?[ ]*(?:#.*)?")
_FIRST_ITEM_LINE = re.compile(rb"^( *)([^ \n#])", re.M)
MARKER = Lazy(rb"(---|\.\.\.)(?=[ \t]|$)([ \t]*(?:#.*)?$)?")
# The one directive the splitter lets through, as YAML 1.2 writes it (version 1.x, then an optional comment).
YAML_DIRECTIVE = Lazy(rb"%YAML[ \t]+1\.[0-9]+(?:[ \t]+(?:#.*)?)?")
NULL_TEXTS = (b"", b"~", b"null", b"Null", b"NULL")
_WHITE = b" \t\r\n"


class SplitError(ValueError):
    """Text the splitter cannot cut into items for certain; ``offset``: where, in the text."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


class FlowShape(SplitError):
    """A flow document (``bracket`` is its ``{``), or block keys whose ``items`` is a flow list
    (``bracket`` is its ``[``, ending before ``end``; ``split`` holds the rest, ``items`` the key
    line's block). document.flowsplit cuts these; a block-style list never needs it."""

    def __init__(self, bracket: int, split: Split | None = None, items: int = -1, end: int = 0):
        super().__init__("a flow collection", bracket)
        self.bracket = bracket
        self.split = split
        self.items = items
        self.end = end


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

    def inner(self, line_offset: int, first_column: int = 0, column: int = 0) -> Origin:
        """The origin of a text that starts ``line_offset`` lines into this one and whose columns
        are these amounts less than this text's (on its first line, and on the others)."""
        outer_first = self.first_column if line_offset == 0 else self.column
        return Origin(self.line + line_offset, outer_first + first_column, self.column + column)


@dataclass(frozen=True, repr=False, eq=False)
class Block:
    """One top-level key of the envelope and its text (key line included)."""

    key: str
    text: bytes


@dataclass(frozen=True, repr=False, eq=False)
class Split:
    prefix: bytes  # blank lines, comments, directives and ``---`` before the first key
    blocks: list[Block]  # in order; the items block holds only its key line
    items: list[bytes]  # each item's text, with its "- " and original indentation
    indent: int  # the column of the items' "- "
    origins: list[Origin] = field(default_factory=list)  # where each item's text is in the input...
    by_tokenizer: bool = False  # items cut out of a flow list (document.flow), written after "- "
    starts: list[int] = field(default_factory=list)  # ...or where each starts in ``text`` (counted when asked)
    text: bytes = b""

    def origin(self, index: int) -> Origin:
        """Where an item's text is in the input: its line is counted only when a message needs it."""
        if index < len(self.origins):
            return self.origins[index]
        if index < len(self.starts):
            return Origin(line_of(self.text, self.starts[index]))
        return Origin()

    def envelope(self) -> bytes:
        """The envelope without items or results, for reading kind, apiVersion, functionConfig."""
        return b"".join(_ended(b.text) for b in self.blocks if b.key not in ("items", "results"))


def _ended(text: bytes) -> bytes:
    return text if not text or text.endswith(b"\n") else text + b"\n"


def line_of(data: bytes, offset: int) -> int:
    """The 1-based line of an offset."""
    return data.count(b"\n", 0, offset) + 1


def lines_of(data: bytes, offsets: list[int]) -> list[int]:
    """The 1-based lines of ascending offsets, counted once over the text (not from the top each)."""
    out, line, counted = [], 1, 0
    for offset in offsets:
        line += data.count(b"\n", counted, offset)
        counted = offset
        out.append(line)
    return out


def column_of(data: bytes, offset: int) -> int:
    """The 1-based column of an offset."""
    return offset - data.rfind(b"\n", 0, offset)


def _col0_lines(data: bytes, start: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for each line from ``start`` (a line start) on that has something at column 0."""
    if start == 0 and data[:1] not in (b"", b" ", b"\n"):
        yield 0, data[:data.find(b"\n")] if b"\n" in data else data
    for m in _COL0.finditer(data, max(start - 1, 0)):
        yield m.start() + 1, m.group(1)


def key_name(text: bytes, offset: int) -> str:
    """A top-level key's text: plain, or quoted (decoded)."""
    if text[:1] not in (b'"', b"'"):
        return text.decode()
    # Here, for start-up time: quoted top-level keys are rare.
    from krmfn.document.quoted import EscapeError, decode_double_quoted, decode_single_quoted

    try:
        raw = text.decode()
        if raw.startswith('"'):
            return decode_double_quoted(raw)
        if raw.startswith("'"):
            return decode_single_quoted(raw)
    except (UnicodeDecodeError, EscapeError):
        raise SplitError("a top-level key krmfn cannot read", offset) from None
    return raw


def _body_start(data: bytes) -> tuple[int, bool]:
    """Where the document's content starts (after blank lines, comments, directives and ``---``),
    and whether it starts on the ``---`` line itself (``--- {...}``)."""
    pos = 0
    end = len(data)
    directive = False  # a %YAML line seen, waiting for its '---'
    marked = False  # past a '---': a directive here would start a second document
    while pos < end:
        nl = data.find(b"\n", pos)
        line = data[pos:nl if nl >= 0 else end]
        bare = line.strip(_WHITE)
        if line.startswith(b"%"):
            # One %YAML line is common; two, a %TAG (whose handles would change how each item
            # reads) or a reserved directive go to the whole-document parse, which names the error.
            if marked or directive or not YAML_DIRECTIVE.fullmatch(line):
                raise SplitError("a directive other than one '%YAML 1.x' line", pos)
            directive = True
            pos = nl + 1 if nl >= 0 else end
            continue
        if not bare or bare.startswith(b"#"):
            pos = nl + 1 if nl >= 0 else end
            continue
        marker = MARKER.match(line) if line.startswith((b"---", b"...")) else None
        if directive and not (marker and marker.group(1) == b"---"):
            raise SplitError("a directive not followed by '---'", pos)
        if marker and marker.group(1) == b"---":
            if marked:
                raise SplitError("a second '---' before any content", pos)
            directive, marked = False, True  # a directive ends at its document's '---'
            if marker.group(2) is not None:  # nothing after it but a comment
                pos = nl + 1 if nl >= 0 else end
                continue
            inline = pos + 3 + len(line[3:]) - len(line[3:].lstrip(b" \t"))
            return inline, True
        return pos, False
    return end, False


def layout(data: bytes) -> Split:
    """The parts of a ResourceList; raises SplitError where a cut could be wrong.

    Works in offsets of ``data``: no copy of the whole input is made (each would stay in the
    process's memory after it is freed), only the items' own texts.
    """
    start, inline = _body_start(data)
    if start < len(data) and data[start] == 0x7B:  # "{": a flow document (JSON, ...)
        raise FlowShape(start)
    if inline:
        raise SplitError("content on the '---' line (a tag, or a node other than a flow map)", start)
    return _block_layout(data, start)


def split(data: bytes) -> Split | None:
    """:func:`layout`, or None where the text cannot be cut for certain."""
    try:
        return layout(data)
    except SplitError:
        return None


# --- block style ------------------------------------------------------------------------------

def _block_layout(data: bytes, body: int) -> Split:
    # Top-level lines: keys start blocks; comments stay with what precedes them.
    starts: list[tuple[int, str]] = []
    dashes: list[tuple[int, bool]] = []  # column-0 entries (where, bare "-"): the items' cuts at column 0
    items_block = -1
    end = len(data)
    for at, line in _col0_lines(data, body):
        if line.startswith(b"#"):
            continue
        if line.startswith(b"\t"):
            if not line.strip(_WHITE):
                continue  # a blank line with a tab in it
            raise SplitError("a tab at the start of a line, where YAML indents with spaces only", at)
        if line.startswith(b"- ") or line.rstrip(b" \t") == b"-":
            if not starts:
                raise SplitError("a list where the ResourceList's keys should be", at)
            dashes.append((at, line.rstrip(b" \t") == b"-"))
            continue  # an entry of the current block's list (items are cut below)
        marker = MARKER.match(line) if line.startswith((b"---", b"...")) else None
        if marker and marker.group(2) is not None:  # ``---`` or ``...`` (and at most a comment)
            if more_content(data, at + len(line)):
                raise SplitError("a second YAML document", at)
            end = at  # the document ends here
            break
        key = _TOP_KEY.fullmatch(line)
        if not key:
            raise SplitError("a top-level line that is not a plain 'key: value' (a flow map, an explicit "
                             "key, a tag or an anchor)", at)
        name = key_name(key.group(1), at)
        if any(k == name for _, k in starts):
            raise SplitError(f"the top-level key {name!r} twice", at)
        inline = (key.group(2) or b"").strip()
        if name == "items" and inline != b"[]":  # ``items: []`` is kept as it is, like any other key
            if inline not in NULL_TEXTS and not inline.startswith(b"["):
                raise SplitError("items is not a list", at + key.start(2))
            items_block = len(starts)
        starts.append((at, name))
    if not starts:
        raise SplitError("no top-level key", body)
    bounds = [s for s, _ in starts] + [end]
    for line in data[body:bounds[0]].split(b"\n"):
        if line.strip(_WHITE) and not line.lstrip(_WHITE).startswith(b"#"):
            raise SplitError("content before the first key", body)
    blocks = [Block(k, data[bounds[i]:bounds[i + 1]] if i != items_block else b"") for i, (_, k) in enumerate(starts)]
    prefix = data[:bounds[0]]
    if items_block < 0:
        return Split(prefix, blocks, [], 0, [])
    lo, hi = bounds[items_block], bounds[items_block + 1]
    body_at = data.find(b"\n", lo, hi) + 1 or hi  # the items' text starts after the key line
    colon = data.find(b":", lo, body_at or hi)
    bracket = first_content(data, colon + 1, hi)
    if bracket is not None and data[bracket] == 0x5B:  # "[": a flow list, on the key's line or after it
        blocks[items_block] = Block("items", data[lo:colon] + b":\n")
        raise FlowShape(bracket, Split(prefix, blocks, [], 0), items_block, hi)
    first = _FIRST_ITEM_LINE.search(data, body_at, hi)
    if first is None:
        items = []
        indent = 0
        cuts = [hi]
    else:
        indent = len(first.group(1))
        dash = first.start(2)
        if data[dash] != 0x2D or data[dash + 1:dash + 2] not in (b" ", b"\n", b"\t", b""):  # "-"
            raise SplitError("items is not a block list", dash)
        # At column 0, the column-0 pass saw every such line already.
        cuts = [d for d, _ in dashes if body_at <= d < hi] if indent == 0 else _shallow_cuts(data, body_at, hi, indent)
        # Text before the first item (blank lines, comments) stays with the key line.
        items = [data[a:b] for a, b in zip(cuts, cuts[1:] + [hi])]
    blocks[items_block] = Block("items", data[lo:cuts[0]])
    return Split(prefix, blocks, items, indent, starts=cuts[:len(items)], text=data)


def more_content(data: bytes, pos: int) -> bool:
    """Whether anything but blank lines, comments and document markers follows ``pos``."""
    for line in data[pos:].split(b"\n"):
        bare = line.strip(_WHITE)
        if bare and not bare.startswith(b"#") and not MARKER.fullmatch(bare):
            return True
    return False


def first_content(data: bytes, pos: int, end: int) -> int | None:
    """The offset of the first character after ``pos`` that is not white space or a comment."""
    while pos < end:
        ch = data[pos]
        if ch in _WHITE:
            pos += 1
        elif ch == 0x23:  # "#": to the end of its line
            nl = data.find(b"\n", pos, end)
            pos = end if nl < 0 else nl
        else:
            return pos
    return None


def _shallow_cuts(data: bytes, start: int, end: int, indent: int) -> list[int]:
    """Where items start in ``data[start:end]``: every line at or above the items' column must open one."""
    shallow = re.compile(rb"\n( {0,%d})(?=[^ \n#])" % indent)
    cuts = []
    # From the newline before ``start``: its first line is one of the lines looked at.
    for m in shallow.finditer(data, start - 1, end):
        at = m.end()
        if data[at] == 0x09:  # a tab: a blank line, or a tab in an indentation
            nl = data.find(b"\n", at, end)
            if not data[at:nl if nl >= 0 else end].strip(_WHITE):
                continue
            raise SplitError("a tab at the start of a line, where YAML indents with spaces only", at)
        if len(m.group(1)) != indent or data[at:at + 1] != b"-" or data[at + 1:at + 2] not in (b" ", b"\n", b"\t"):
            raise SplitError("a line less indented than the items, or an item that does not start with '- '", at)
        cuts.append(m.start() + 1)
    return cuts


# --- writing ----------------------------------------------------------------------------------

def indent_item(text: bytes, indent: int) -> bytes:
    """rapidyaml emits an item at column 0; move it to the list's column (blank lines stay empty)."""
    if indent == 0:
        return text
    pad = b" " * indent
    return b"".join(pad + line if line.strip() else line for line in text.splitlines(keepends=True))


def assemble(split: Split, items: list[bytes], results: bytes) -> list[bytes]:
    """The output's pieces: the envelope as read (old results dropped), new items, new results."""
    pieces = [split.prefix]
    for block in split.blocks:
        if block.key == "results":
            continue
        pieces.append(_ended(block.text) if block.key == "items" and items else block.text)
        if block.key == "items":
            pieces.extend(items)
    if results:
        if pieces and pieces[-1] and not pieces[-1].endswith(b"\n"):
            pieces.append(b"\n")
        pieces.append(results)
    return pieces
