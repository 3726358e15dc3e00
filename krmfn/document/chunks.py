"""Split a block-style ResourceList into its envelope and one text chunk per item.

Why: an item that krmfn does not change goes out byte for byte as it came in (comments and
all); each item is parsed alone and its tree dropped once read, so memory follows the largest
item rather than the whole list; and a changed name is spliced into the item's own text.

Every orchestrator writes ResourceLists in block style (``items:`` then ``- `` entries). The
splitter is strict: on anything it is not sure of (flow style, tabs, CRLF, a BOM, directives,
quoted top-level keys, a line that breaks the items' indentation) it returns None, and the
caller re-emits the whole document in block style with rapidyaml first.

Only "shallow" lines are looked at (column 0, and up to the items' column inside ``items``),
found by regular expressions, so a 7 MB list costs a few milliseconds here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# A line at column 0 (after a newline: much faster to search for than a multi-line "^").
_COL0 = re.compile(rb"\n([^ \n][^\n]*)")
_TOP_KEY = re.compile(rb"([A-Za-z_][A-Za-z0-9_.-]*)[ ]*:(?:[ ]+([^#]*?))?[ ]*(?:#.*)?")
_TAB_INDENT = re.compile(rb"\n *\t")  # the first line is checked apart: "^|" would slow the search
_LEADING_TAB = re.compile(rb" *\t")
_FIRST_ITEM_LINE = re.compile(rb"^( *)([^ \n#])", re.M)


@dataclass(frozen=True, repr=False, eq=False)
class Block:
    """One top-level key of the envelope and its text (key line included)."""

    key: str
    text: bytes


@dataclass(frozen=True, repr=False, eq=False)
class Split:
    prefix: bytes  # blank lines and comments before the first key
    blocks: list[Block]  # in order; the items block holds only its key line
    items: list[bytes]  # each item's text, with its "- " and original indentation
    indent: int  # the column of the items' "- "

    def envelope(self) -> bytes:
        """The envelope without items or results, for reading kind, apiVersion, functionConfig."""
        return b"".join(_ended(b.text) for b in self.blocks if b.key not in ("items", "results"))


def _ended(text: bytes) -> bytes:
    return text if not text or text.endswith(b"\n") else text + b"\n"


def _col0_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for each line that starts at column 0 with something other than a space."""
    if data and data[:1] not in b" \n":
        yield 0, data[:data.find(b"\n")] if b"\n" in data else data
    for m in _COL0.finditer(data):
        yield m.start() + 1, m.group(1)


def split(data: bytes) -> Split | None:
    """The parts of a block-style ResourceList, or None where a plain split could be wrong.

    Works in offsets of ``data``: no copy of the whole input is made (each would stay in the
    process's memory after it is freed), only the items' own texts.
    """
    if b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    if b"\t" in data and (_LEADING_TAB.match(data) or _TAB_INDENT.search(data)):
        return None
    # Top-level lines: keys start blocks; comments stay with what precedes them.
    starts: list[tuple[int, str]] = []
    dashes: list[tuple[int, bool]] = []  # column-0 entries (where, bare "-"): the items' cuts at column 0
    items_block = -1
    for at, line in _col0_lines(data):
        if line.startswith(b"#"):
            continue
        if line.startswith(b"- ") or line == b"-":
            if not starts:
                return None
            dashes.append((at, line == b"-"))
            continue  # an entry of the current block's list (items are cut below)
        key = _TOP_KEY.fullmatch(line)
        if not key:
            return None  # ---, ..., %YAML, flow or quoted keys: let rapidyaml normalise it
        name = key.group(1).decode()
        if any(k == name for _, k in starts):
            return None
        inline = (key.group(2) or b"").strip()
        if name == "items":
            if inline and inline != b"[]":
                return None
            items_block = len(starts) if not inline else -1
        starts.append((at, name))
    if not starts:
        return None
    bounds = [s for s, _ in starts] + [len(data)]
    if any(line.strip() and not line.lstrip().startswith(b"#") for line in data[:bounds[0]].split(b"\n")):
        return None  # content before the first key (`` ---``, an indented line): let rapidyaml judge it
    blocks = [Block(k, data[bounds[i]:bounds[i + 1]] if i != items_block else b"") for i, (_, k) in enumerate(starts)]
    if items_block < 0:
        return Split(data[:bounds[0]], blocks, [], 0)
    lo, hi = bounds[items_block], bounds[items_block + 1]
    body = data.find(b"\n", lo, hi) + 1 or hi  # the items' text starts after the key line
    first = _FIRST_ITEM_LINE.search(data, body, hi)
    if first is None:
        items: list[bytes] = []
        indent = 0
        cuts = [hi]
    else:
        indent = len(first.group(1))
        if data[first.start(2):first.start(2) + 2] not in (b"- ", b"-\n"):
            return None
        if indent == 0:  # the column-0 pass saw every such line already
            mine = [(d, bare) for d, bare in dashes if body <= d < hi]
            if any(bare for _, bare in mine):
                return None  # a bare "-": an entry on the next line; let rapidyaml normalise it
            cuts = [d for d, _ in mine]
        else:
            found = _shallow_cuts(data, body, hi, indent)
            if found is None:
                return None
            cuts = found
        # Text before the first item (blank lines, comments) stays with the key line.
        items = [data[a:b] for a, b in zip(cuts, cuts[1:] + [hi])]
    blocks[items_block] = Block("items", data[lo:cuts[0]])
    return Split(data[:bounds[0]], blocks, items, indent)


def _shallow_cuts(data: bytes, start: int, end: int, indent: int) -> list[int] | None:
    """Where items start in ``data[start:end]``: every line at or above the items' column must open one."""
    shallow = re.compile(rb"\n( {0,%d})(?=[^ \n#])" % indent)
    cuts = []
    # From the newline before ``start``: its first line is one of the lines looked at.
    for m in shallow.finditer(data, start - 1, end):
        if len(m.group(1)) != indent or data[m.end():m.end() + 2] != b"- ":
            return None
        cuts.append(m.start() + 1)
    return cuts


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
