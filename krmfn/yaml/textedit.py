"""Edits made in an item's own text, located by the exact spans libyaml gives, and what each means.

Why this is the one way krmfn writes: every byte it does not own stays as it was (comments,
quotes, ``|`` blocks, key order). An :class:`Edit` replaces bytes ``start:end`` of the item's
text; its ``change`` says what that does to the item's value, so that yaml.verify can read
the new text back and compare it with the old value plus exactly the planned changes before
anything is written. Where a field cannot be edited in place (a ``|`` block holding a name),
:class:`NotEditable` names the field: krmfn refuses rather than guesses.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.yaml.scalars import dquote, scalar
from krmfn.yaml.tree import ALIAS, MAP, SCALAR, SEQ, Doc, Node


@dataclass(frozen=True, slots=True)
class SetScalar:
    """The node (a scalar or an alias) now holds ``value``: a string, or ``True`` for ``true``."""

    node: Node
    value: str | bool


# A value added: a string, ``True`` (written ``true``), or a map of strings.
Value = str | bool | dict


@dataclass(frozen=True, slots=True)
class AddEntries:
    """Entries added at the end of map ``node`` (or just before its entry ``before``)."""

    node: Node
    entries: tuple[tuple[str, Value], ...]
    before: int = -1


@dataclass(frozen=True, slots=True)
class FillNull:
    """The null at ``node`` becomes a map of these entries."""

    node: Node
    entries: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class RemoveEntry:
    """The entry ``key`` of map ``node`` is gone."""

    node: Node
    key: str


@dataclass(frozen=True, slots=True)
class AddItems:
    """Strings added to a list just after its entry ``node``."""

    node: Node
    values: tuple[str, ...]


Change = SetScalar | AddEntries | FillNull | RemoveEntry | AddItems


@dataclass(frozen=True, slots=True, eq=False)
class Edit:
    """Bytes ``start:end`` of the item's text become ``text``; ``change`` is what that means."""

    start: int
    end: int
    text: str
    change: Change | None = None


class NotEditable(ValueError):
    """A field krmfn would have to change but cannot write in place; ``node`` is the field."""

    def __init__(self, node: Node, why: str):
        super().__init__(why)
        self.node = node


def splice(source: bytes, edits: list[Edit]) -> bytes:
    """``source`` with every edit made. Identical edits count once; overlapping ones are a bug."""
    out, pos = [], 0
    last: Edit | None = None
    unique = {(e.start, e.end, e.text): e for e in edits}
    for edit in sorted(unique.values(), key=_order):
        if last is not None and edit.start < pos:
            raise ValueError(f"overlapping edits at {edit.start}")
        out += [source[pos:edit.start], edit.text.encode()]
        pos = edit.end
        last = edit
    out.append(source[pos:])
    return b"".join(out)


def _order(edit: Edit) -> tuple[int, int, int]:
    """By offset; lines inserted at one offset deepest first, so that each lands inside the map
    it belongs to (an entry of a map that ends there, then the parent's next key)."""
    lines = edit.text.lstrip("\n")
    return edit.start, edit.end, len(lines.lstrip(" ")) - len(lines) if edit.start == edit.end else 0


def _value_start(doc: Doc, node: Node) -> int:
    """Where a scalar's own text starts, after its anchor and tag (characters)."""
    text, pos = doc.text, doc.start[node]
    if doc.anchor[node] is None and doc.tag[node] is None:
        return pos
    while text[pos:pos + 1] in ("&", "!"):
        while pos < len(text) and text[pos] not in " \t\n":
            pos += 1
        while pos < len(text) and text[pos] in " \t\n":
            pos += 1
    return pos


def _text_of(value: Value, json_like: bool = False) -> str:
    if value is True:
        return "true"
    assert isinstance(value, str)
    return dquote(value) if json_like else scalar(value)


Site = tuple  # (node, start, end, style, tail): where a scalar's own text is, in bytes, its style, what follows


def site(doc: Doc, node: Node) -> Site:
    """Where the scalar (or alias) at ``node`` is written, so that it can be replaced without the
    tree (the scan keeps this, not the tree). A ``|``/``>`` block is replaced whole, its lines
    included. Raises NotEditable where it cannot be."""
    kind = doc.kind[node]
    if kind not in (SCALAR, ALIAS):
        raise NotEditable(node, f"it is {doc.describe(node)}, not text")
    if kind == SCALAR and doc.tag[node] is not None:
        raise NotEditable(node, "it carries a tag; write it as plain text")
    style = doc.style[node] if kind == SCALAR else None
    start = _value_start(doc, node) if kind == SCALAR else doc.start[node]
    if style in ("|", ">"):
        end = doc.content_end(node)
        return node, doc.at(start), doc.at(end), style, "\n" if doc.text[end - 1:end] == "\n" else ""
    return node, doc.at(start), doc.at(doc.end[node]), style, ""


def replace_at(where: Site, value: str) -> Edit:
    """The scalar at a :func:`site` becomes ``value``, in the style it has (plain stays plain
    where it can, quotes stay quotes; a block becomes a one-line scalar)."""
    node, start, end, style, tail = where
    if style == "'" and value.isprintable() and "\n" not in value:
        text = "'" + value.replace("'", "''") + "'"
    elif style == '"':
        text = dquote(value)
    else:
        text = scalar(value)
    return Edit(start, end, text + tail, SetScalar(node, value))


def replace_scalar(doc: Doc, node: Node, value: str) -> Edit:
    """The scalar (or alias) at ``node`` becomes ``value``; an anchor or tag on it stays."""
    return replace_at(site(doc, node), value)


def set_true(doc: Doc, node: Node) -> Edit:
    """The scalar at ``node`` becomes ``true``."""
    if doc.kind[node] != SCALAR or doc.style[node] in ("|", ">"):
        raise NotEditable(node, "it is not a one-line scalar")
    start = _value_start(doc, node) if doc.tag[node] is None else doc.start[node]
    return Edit(doc.at(start), doc.at(doc.end[node]), "true", SetScalar(node, True))


def _line_end(text: str, pos: int) -> int:
    """After the line break that ends the line where content ends at ``pos`` (or the text's end)."""
    if pos and text[pos - 1] == "\n":
        return pos
    end = text.find("\n", pos)
    return len(text) if end < 0 else end + 1


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _last_leaf(doc: Doc, node: Node) -> int:
    while doc.kind[node] in (MAP, SEQ):
        kids = doc.kids[node]
        if not kids or doc.style[node]:
            return node
        node = kids[-1]
    return node


def entry_column(doc: Doc, node: Node) -> int:
    """The column of a block map's keys."""
    first = (doc.kids[node] or [node])[0]
    at = doc.kstart[first] if doc.kstart[first] >= 0 else doc.start[node]
    return doc.column(at)


def _block_lines(entries: tuple[tuple[str, Value], ...], column: int, step: int) -> str:
    out = []
    for key, value in entries:
        if isinstance(value, dict):
            out.append(f"{' ' * column}{scalar(key)}:\n")
            out.append(_block_lines(tuple(value.items()), column + step, step))
        else:
            out.append(f"{' ' * column}{scalar(key)}: {_text_of(value)}\n")
    return "".join(out)


def _flow_pairs(entries: tuple[tuple[str, Value], ...], json_like: bool) -> str:
    write = dquote if json_like else scalar
    pairs = []
    for key, value in entries:
        if isinstance(value, dict):
            pairs.append(f"{write(key)}: {{{_flow_pairs(tuple(value.items()), json_like)}}}")
        else:
            pairs.append(f"{write(key)}: {_text_of(value, json_like)}")
    return ", ".join(pairs)


def _json_like(doc: Doc, node: Node) -> bool:
    """A flow map written as JSON (its first key, or its own key, double-quoted)."""
    kids = doc.kids[node] or []
    if kids:
        return doc.text[doc.kstart[kids[0]]:doc.kstart[kids[0]] + 1] == '"'
    return doc.kstart[node] >= 0 and doc.text[doc.kstart[node]] == '"'


def add_entries(doc: Doc, node: Node, entries: tuple[tuple[str, Value], ...], step: int = 2,
                first: bool = False) -> Edit:
    """Entries added at the end of map ``node`` (block lines at its keys' column, or pairs inside
    its braces); ``first``: as its first entries, where a block map's first key starts its line."""
    text = doc.text
    change = AddEntries(node, entries)
    kids = doc.kids[node] or []
    if first and kids and not doc.style[node]:
        k = doc.kstart[kids[0]]
        at = _line_start(text, k)
        if not text[at:k].strip(" "):
            return Edit(doc.at(at), doc.at(at), _block_lines(entries, k - at, step), AddEntries(node, entries, kids[0]))
    if doc.style[node]:  # a flow map: inside its braces
        close = doc.end[node] - 1
        pairs = _flow_pairs(entries, _json_like(doc, node))
        lead = ", " if doc.kids[node] else ""
        return Edit(doc.at(close), doc.at(close), lead + pairs, change)
    column = entry_column(doc, node)
    end = doc.content_end(node)
    pos = _line_end(text, end)
    lines = _block_lines(entries, column, step)
    # the text ends with no line break (as_read may have ended a last line of spaces for libyaml)
    unended = pos == len(text) and not (doc.source if doc.source is not None else text.encode()).endswith(b"\n")
    leaf = _last_leaf(doc, node)
    if doc.kind[leaf] == SCALAR and doc.style[leaf] in ("|", ">") and (unended or _keeps(text, doc.start[leaf])):
        # a block scalar at the end of an unended text: a line break after it would join its
        # value; a ``|+`` block: go-yaml and libyaml count the empty lines before a comment after
        # it differently, so a key there could change what one of them reads. The entries go
        # before the map's last entry.
        last = (doc.kids[node] or [node])[-1]
        at = _line_start(text, doc.kstart[last])
        return Edit(doc.at(at), doc.at(at), lines, AddEntries(node, entries, last))
    if unended:
        lines = "\n" + lines[:-1]
    return Edit(doc.at(pos), doc.at(pos), lines, change)


def _keeps(text: str, start: int) -> bool:
    """Whether the block scalar whose header is at ``start`` keeps its trailing line breaks (``|+``)."""
    end = text.find("\n", start)
    return "+" in text[start:end if end >= 0 else len(text)].split("#", 1)[0]


def set_map(doc: Doc, parent: Node, key: str, wanted: dict[str, str], step: int = 2,
            first: bool = False) -> list[Edit]:
    """Edits that make map ``key`` of map ``parent`` hold ``wanted`` (strings): changed values
    replaced, missing keys added at its end (or first), the map itself added when absent or null."""
    node = doc.get(parent, key)
    if node is not None and doc.kind[node] == ALIAS:
        raise NotEditable(node, "it is an alias; write the map out")
    if node is None:
        return [add_entries(doc, parent, ((key, dict(wanted)),), step, first)]
    if doc.is_null(node):
        return [_fill_null(doc, node, wanted, step)]
    if doc.kind[node] != MAP:
        raise NotEditable(node, f"it is {doc.describe(node)}, not a map")
    edits: list[Edit] = []
    missing: list[tuple[str, Value]] = []
    own = {doc.kname[c]: c for c in doc.kids[node] or ()}
    for name, value in wanted.items():
        child = own.get(name)
        if child is None:
            missing.append((name, value))
        elif doc.scalar(child) != value or doc.kind[child] != SCALAR:
            edits.append(replace_scalar(doc, child, value))
    if missing:
        edits.append(add_entries(doc, node, tuple(missing), step, first))
    return edits


def _fill_null(doc: Doc, node: Node, wanted: dict[str, str], step: int) -> Edit:
    """A null map value (``annotations:``, ``labels: null``) becomes a flow map of ``wanted``."""
    text = doc.text
    colon = text.find(":", doc.kstart[node])
    pairs = ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in wanted.items())
    written_end = doc.end[node] if doc.val[node] else colon + 1
    return Edit(doc.at(colon + 1), doc.at(max(written_end, colon + 1)), f" {{{pairs}}}",
                FillNull(node, tuple(wanted.items())))


def add_items(doc: Doc, node: Node, values: tuple[str, ...]) -> Edit:
    """Entries added to the list holding ``node``, just after it (``- value`` lines at its dash's
    column, or ``, value`` inside its brackets)."""
    parent = doc.up[node]
    if doc.kind[parent] != SEQ:
        raise NotEditable(node, "it must name two objects and is not in a list")
    text, change = doc.text, AddItems(node, values)
    end = doc.content_end(node)
    if doc.style[parent]:
        return Edit(doc.at(end), doc.at(end), "".join(f", {scalar(v)}" for v in values), change)
    start = doc.start[node]
    dash = text.rfind("-", _line_start(text, start), start)
    if dash < 0 or text[_line_start(text, start):dash].strip(" "):
        raise NotEditable(node, "its list entry does not start its own line")
    column = dash - _line_start(text, start)
    pos = _line_end(text, end)
    lines = "".join(f"{' ' * column}- {scalar(v)}\n" for v in values)
    if pos == len(text) and not text.endswith("\n"):
        lines = "\n" + lines[:-1]
    return Edit(doc.at(pos), doc.at(pos), lines, change)


def remove_entry(doc: Doc, parent: Node, key: str) -> Edit | None:
    """The entry ``key`` of map ``parent`` removed (its lines, or its pair and a comma)."""
    node = doc.get(parent, key)
    if node is None or doc.up[node] != parent:
        return None
    text = doc.text
    change = RemoveEntry(parent, key)
    k = doc.kstart[node]
    end = doc.content_end(node)
    if doc.style[parent]:
        a, b = k, end
        after = text[b:].lstrip(" \t\n")
        if after.startswith(","):
            b = len(text) - len(after) + 1
        else:
            before = text[:a].rstrip(" \t\n")
            if before.endswith(","):
                a = len(before) - 1
        return Edit(doc.at(a), doc.at(b), "", change)
    a = _line_start(text, k)
    if text[a:k].strip(" "):
        raise NotEditable(node, "it does not start its own line")
    return Edit(doc.at(a), doc.at(_line_end(text, end)), "", change)


__all__ = ["AddEntries", "AddItems", "Change", "Edit", "FillNull", "NotEditable", "RemoveEntry", "SetScalar",
           "add_entries", "add_items", "remove_entry", "replace_at", "replace_scalar", "set_map", "set_true", "site",
           "splice"]
