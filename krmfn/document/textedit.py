"""Edits made in an item's own text, so that every byte krmfn does not own stays as it was.

Edits are located by offsets a parsed tree gave (:meth:`Doc.offset`); the functions at the
end find them for a block or flow map's entries:

- ``(offset, old, new)``: the scalar written as ``old`` at ``offset`` becomes ``new``;
- ``(offset, "", lines)``: whole lines inserted at a line start (a key added to a block map);
  several at one offset go deepest first;
- ``(offset, lines, "")``: whole lines removed from a line start (a key krmfn no longer owns).
- ``(offset, "", text)``, ``text`` without a line break: inserted where it is (entries added to
  a flow map, before its closing brace).

:func:`splice` refuses (returns None) whenever the text is not plainly what the tree says:
an escaped, folded or aliased scalar, a flow collection, an offset that is not a line start.
The caller then re-emits the item from its tree instead, which is always correct but drops
comments and normalises style.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from krmfn.document.native import NONE
from krmfn.document.scalars import Lazy, dquote, plain_safe, scalar
from krmfn.document.tree import Doc

if TYPE_CHECKING:
    from krmfn.document import flow

Edit = tuple[int | None, str, str]

_DQUOTED = Lazy(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SQUOTED = Lazy(rb"'(?:[^']|'')*'")
_GAP = Lazy(rb"(?:[ \t\r\n]+|#[^\n]*)*")

# What may stand before and after a plain scalar's text, so that it is the whole scalar.
_PLAIN_BEFORE = frozenset(b" -:[{,")
_PLAIN_AFTER = frozenset(b" \n,]}#")


def splice(source: bytes, edits: list[Edit]) -> bytes | None:
    """``source`` with every edit made, or None when one cannot be made in the text."""
    out, pos = [], 0
    for offset, old, new in sorted(edits, key=_order):
        if offset is None or offset < pos:
            return None
        new_b = new.encode()
        if not old:  # an insertion: of whole lines at a line start, or of text within a line (a flow map)
            if b"\n" in new_b and (not (offset == 0 or source[offset - 1] == 0x0A) or not new_b.endswith(b"\n")):
                return None
            out += [source[pos:offset], new_b]
            pos = offset
            continue
        old_b = old.encode()
        end = offset + len(old_b)
        if not new and old_b.endswith(b"\n"):  # a removal of whole lines
            if not (offset == 0 or source[offset - 1] == 0x0A) or source[offset:end] != old_b:
                return None
            out.append(source[pos:offset])
            pos = end
            continue
        if offset < 1 or (offset == pos and pos) or source[offset:end] != old_b:
            return None
        before, after = source[offset - 1], source[end] if end < len(source) else 0x0A
        if before in b"'\"":
            if after != before or any(q in text for text in (old_b, new_b) for q in (before, 0x5C)):  # 0x5C: \
                return None
        elif before not in _PLAIN_BEFORE or after not in _PLAIN_AFTER:
            return None
        out += [source[pos:offset], new_b]
        pos = end
    out.append(source[pos:])
    return b"".join(out)


def _order(edit: Edit) -> tuple[int, int]:
    """By offset; lines inserted at one offset deepest first, so that each closes inside the
    structure it belongs to (an entry of a map that ends there, then the parent's next key),
    and before lines removed from there."""
    offset, old, new = edit
    return -1 if offset is None else offset, (1 if not new else 0) if old else len(new.lstrip(" ")) - len(new)


def line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def key_column(source: bytes, offset: int) -> int | None:
    """The column of a block map's key that starts at ``offset`` (at its opening quote, if quoted),
    or None when something other than indentation (or the ``- `` of a list entry) stands before
    it on its line."""
    start = line_start(source, offset)
    lead = source[start:offset]
    if (lead.strip(b" ") and lead.strip(b" -")) or b"\t" in lead:
        return None
    return offset - start


def end_of_line(source: bytes, offset: int) -> int | None:
    """Where the line holding ``offset`` ends (after its newline); None on the last, unended line."""
    end = source.find(b"\n", offset)
    return None if end < 0 else end + 1


def content_end(source: bytes, column: int) -> int:
    """Where an item's own lines end: before the comment lines that trail it at or left of its
    keys' ``column`` (a comment about the next item, which the split gave to this one). A
    deeper ``#`` line may be a block scalar's content, and a blank line may be one too: both stay."""
    end = len(source)
    while end:
        start = source.rfind(b"\n", 0, end - 1) + 1
        line = source[start:end]
        text = line.lstrip(b" ")
        if not text.startswith(b"#") or len(line) - len(text) > column:
            break
        end = start
    return end


# --- edits located with the item's tree -----------------------------------------------------

def key_start(doc: Doc, source: bytes, node: int) -> int | None:
    """Where a map entry's key starts in the text: its first character, or its opening quote."""
    at = doc.key_offset(node)
    if not at:
        return at
    return at - 1 if source[at - 1:at] in (b'"', b"'") and doc.is_key_quoted(node) else at


def _key_end(doc: Doc, source: bytes, node: int, start: int) -> int | None:
    """Where a map entry's key text ends (after its closing quote)."""
    if source[start:start + 1] in (b'"', b"'"):
        quoted = (_DQUOTED if source[start] == 0x22 else _SQUOTED).match(source, start)
        return quoted.end() if quoted else None
    text = doc.key(node).encode()
    return start + len(text) if source[start:start + len(text)] == text else None


def one_line_end(doc: Doc, source: bytes, node: int) -> int | None:
    """Where the line of a ``key: value`` entry ends, when its value is a one-line scalar on
    the key's own line (the common case, found from the tree alone); else None."""
    key_at, value_at, text = doc.key_offset(node), doc.offset(node), doc.str(node)
    if key_at is None or value_at is None or text is None or "\n" in text:
        return None
    end = end_of_line(source, key_at)
    if end is None or not key_at < value_at < end or source[value_at:value_at + len(text.encode())] != text.encode():
        return None
    return end


def entry_end(doc: Doc, source: bytes, node: int) -> int | None:
    """Where the text of a block map's entry ends: a one-line scalar's line, a block map's last
    entry's end; else at the first line after the key's with something at or left of the key's
    column (or at the end of the text). None where that is unclear: the key not alone at its
    line's start, no line break after it, or a flow collection that closes there."""
    if doc.is_map(node) and doc.is_block(node):
        last = doc.last_child(node)
        if last != NONE:
            return entry_end(doc, source, last)
    elif doc.is_scalar(node):
        end = one_line_end(doc, source, node)
        if end is not None:
            return end
    key_at = key_start(doc, source, node)
    column = key_column(source, key_at) if key_at is not None else None
    if key_at is None or column is None:
        return None
    pos = end_of_line(source, key_at)
    if pos is None:
        return None
    shallow = re.compile(rb"\n( {0,%d})(?=[^ \n])" % column).search(source, pos - 1)
    if shallow is None:
        return len(source)
    if source[shallow.end():shallow.end() + 1] in (b"]", b"}", b"\t"):
        return None  # a flow collection closed at the key's column, or a tab: not a plain end
    return shallow.start() + 1


def flow_end(doc: Doc, source: bytes, node: int) -> tuple[int, list[flow.Entry]] | None:
    """A flow map's entries and where its closing brace is: the map under a key, or (no key) the
    map of a list entry (an item written ``- {...}``)."""
    if doc.has_key(node):
        key_at = key_start(doc, source, node)
        after = _key_end(doc, source, node, key_at) if key_at is not None else None
        if after is None:
            return None
        colon = _skip(source, after)
        if source[colon:colon + 1] != b":":
            return None
        brace = _skip(source, colon + 1)
    else:
        dash = _skip(source, 0)
        if source[dash:dash + 1] != b"-":
            return None
        brace = _skip(source, dash + 1)
    if source[brace:brace + 1] != b"{":
        return None
    from krmfn.document import flow  # here, for start-up time: only flow maps need it

    try:
        entries, end = flow.collection(source, brace)
    except flow.FlowError:
        return None
    return end - 1, entries


def _skip(source: bytes, pos: int) -> int:
    """The offset after the white space and comments at ``pos``."""
    m = _GAP.match(source, pos)
    return m.end() if m else pos


def _json_like(doc: Doc, source: bytes, node: int, entries: list[flow.Entry]) -> bool:
    """Whether a flow map is written as JSON (its first key, or its own key, double-quoted)."""
    if entries:
        return source[entries[0].start:entries[0].start + 1] == b'"'
    at = key_start(doc, source, node) if doc.has_key(node) else None
    return at is not None and source[at:at + 1] == b'"'


def _flow_entries(wanted: dict[str, str], json_like: bool) -> str:
    """``key: value`` pairs for a flow map, quoted as JSON where it is JSON (so that it stays JSON-like)."""
    write = dquote if json_like else scalar
    return ", ".join(f"{write(k)}: {write(v)}" for k, v in wanted.items())


def add_to_flow_map(doc: Doc, source: bytes, node: int, wanted: dict[str, str]) -> Edit | None:
    """An insertion of ``wanted``'s entries into the flow map ``node``: after its last entry, or
    inside an empty ``{}``."""
    found = flow_end(doc, source, node)
    if found is None:
        return None
    close, entries = found
    pairs = _flow_entries(wanted, _json_like(doc, source, node, entries))
    if entries:
        return (entries[-1].end, "", ", " + pairs)
    return (close, "", pairs)


def add_entry(doc: Doc, source: bytes, parent: int, key: str, value: str, literal: bool, column: int) -> Edit | None:
    """An insertion of ``key: value`` at the end of map ``parent`` (block entries at ``column``);
    ``literal`` writes the value plain (``true``)."""
    text = value if literal else scalar(value)
    if doc.is_block(parent):  # an item's own map ends with its text
        end = entry_end(doc, source, parent) if doc.has_key(parent) else content_end(source, column)
        return None if end is None else (end, "", f"{' ' * column}{key}: {text}\n")
    found = flow_end(doc, source, parent)
    if found is None:
        return None
    close, entries = found
    pair = f"{dquote(key) if _json_like(doc, source, parent, entries) else key}: {text}"
    return (entries[-1].end, "", ", " + pair) if entries else (close, "", pair)


def map_edits(doc: Doc, source: bytes, parent: int, key: str, wanted: dict[str, str],
              column: int, step: int) -> list[Edit] | None:
    """Edits that make map ``key`` of map ``parent`` (block entries at ``column``) hold ``wanted``:
    changed values replaced, missing keys added after the last entry, the map itself added at
    the end of ``parent`` when there is none. Block and flow maps alike (a flow map keeps its
    style: entries are added inside its braces)."""
    node = doc.get(parent, key)
    if node is None:
        if doc.is_block(parent):
            end = entry_end(doc, source, parent)
            if end is None:
                return None
            entries = "".join(f"{' ' * (column + step)}{scalar(k)}: {scalar(v)}\n" for k, v in wanted.items())
            return [(end, "", f"{' ' * column}{key}:\n{entries}")]
        found = flow_end(doc, source, parent)
        if found is None:
            return None
        close, siblings = found
        json_like = _json_like(doc, source, parent, siblings)
        inner = _flow_entries(wanted, json_like)
        name = dquote(key) if json_like else key
        pair = f"{name}: {{{inner}}}"
        return [(siblings[-1].end, "", ", " + pair) if siblings else (close, "", pair)]
    if not doc.is_map(node):
        return None  # null: re-emit
    children = dict(doc.items(node))
    edits: list[Edit] = []
    missing: dict[str, str] = {}
    for name, value in wanted.items():
        child = children.get(name)
        current = None if child is None else doc.str(child)
        if child is None:
            missing[name] = value
        elif current != value:
            if not doc.is_scalar(child) or not plain_safe(value):
                return None
            edits.append((doc.offset(child), current or "", value))
    if not missing:
        return edits
    if not doc.is_block(node):
        added = add_to_flow_map(doc, source, node, missing)
        return None if added is None else edits + [added]
    last = doc.last_child(node)
    key_at = key_start(doc, source, last)
    end = entry_end(doc, source, last)
    indent = key_column(source, key_at) if key_at is not None else None
    if end is None or indent is None:
        return None
    edits.append((end, "", "".join(f"{' ' * indent}{scalar(k)}: {scalar(v)}\n" for k, v in missing.items())))
    return edits


__all__ = ["Edit", "add_entry", "add_to_flow_map", "content_end", "end_of_line", "entry_end", "flow_end", "key_column",
           "key_start", "line_start", "map_edits", "one_line_end", "splice"]
