"""Edits made in an item's own text, so that every byte krmfn does not own stays as it was.

Two kinds of edit, both located by offsets a parsed tree gave (:meth:`Doc.offset`); the
functions at the end find them for a block map's entries:

- ``(offset, old, new)``: the scalar written as ``old`` at ``offset`` becomes ``new``;
- ``(offset, "", lines)``: whole lines inserted at a line start (a key added to a block map);
  several at one offset go deepest first;
- ``(offset, lines, "")``: whole lines removed from a line start (a key krmfn no longer owns).

:func:`splice` refuses (returns None) whenever the text is not plainly what the tree says:
an escaped, folded or aliased scalar, a flow collection, an offset that is not a line start.
The caller then re-emits the item from its tree instead, which is always correct but drops
comments and normalises style.
"""

from __future__ import annotations

from krmfn.document.native import NONE
from krmfn.document.scalars import plain_safe, scalar
from krmfn.document.tree import Doc

Edit = tuple[int | None, str, str]

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
        if not old:  # an insertion of whole lines
            if not (offset == 0 or source[offset - 1] == 0x0A) or not new_b.endswith(b"\n"):
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
    """The column of a block map's key at ``offset``, or None when something other than
    indentation (or the ``- `` of a list entry) stands before it on its line."""
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

def one_line_end(doc: Doc, source: bytes, node: int) -> int | None:
    """Where the line of a ``key: value`` entry ends, when its value is a one-line scalar on
    the key's own line; else None."""
    key_at, value_at, text = doc.key_offset(node), doc.offset(node), doc.str(node)
    if key_at is None or value_at is None or text is None or "\n" in text:
        return None
    end = end_of_line(source, key_at)
    if end is None or not key_at < value_at < end or source[value_at:value_at + len(text.encode())] != text.encode():
        return None
    return end


def entry_end(doc: Doc, source: bytes, node: int) -> int | None:
    """Where the text of a map entry ends: a one-line scalar's line, or a block map's last entry."""
    if doc.is_map(node):
        last = doc.last_child(node)
        return entry_end(doc, source, last) if doc.is_block(node) and last != NONE else None
    return one_line_end(doc, source, node)


def map_edits(doc: Doc, source: bytes, parent: int, key: str, wanted: dict[str, str],
              column: int, step: int) -> list[Edit] | None:
    """Edits that make map ``key`` of block map ``parent`` (entries at ``column``) hold ``wanted``:
    changed values replaced, missing keys added after the last entry, the map itself added at
    the end of ``parent`` when there is none."""
    node = doc.get(parent, key)
    if node is None:
        end = entry_end(doc, source, parent)
        if end is None:
            return None
        entries = "".join(f"{' ' * (column + step)}{k}: {scalar(v)}\n" for k, v in wanted.items())
        return [(end, "", f"{' ' * column}{key}:\n{entries}")]
    if not doc.is_map(node) or not doc.is_block(node):
        return None  # null, {} or a flow map: re-emit
    children = dict(doc.items(node))
    edits: list[Edit] = []
    missing = []
    for name, value in wanted.items():
        child = children.get(name)
        current = None if child is None else doc.str(child)
        if child is None:
            missing.append(f"{scalar(name)}: {scalar(value)}\n")
        elif current != value:
            if not doc.is_scalar(child) or not plain_safe(value):
                return None
            edits.append((doc.offset(child), current or "", value))
    if missing:
        last = doc.last_child(node)
        end, key_at = entry_end(doc, source, last), doc.key_offset(last)
        indent = key_column(source, key_at) if key_at is not None else None
        if end is None or indent is None:
            return None
        edits.append((end, "", "".join(" " * indent + line for line in missing)))
    return edits


__all__ = ["Edit", "content_end", "end_of_line", "entry_end", "key_column", "line_start", "map_edits", "one_line_end",
           "splice"]
