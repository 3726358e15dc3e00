"""Flow-style ResourceLists (JSON, ``{...}``, ``items: [...]``) cut into their items' own texts.

Why apart from document.chunks: only such inputs need it (every orchestrator writes block style),
and a module costs start-up time. The envelope is written in block style, one ``key: value`` line
per entry with the value's text as it was, each item as ``- `` and its own text: the output
parses to the same ResourceList and every item's text is in it unchanged. :func:`check_cut`
then reads each cut item against a parse of the whole, so a cut the tokenizer got wrong is
refused, never used.
"""

from __future__ import annotations

import ryml

from krmfn.document import flow
from krmfn.document.chunks import (
    MARKER,
    NULL_TEXTS,
    Block,
    FlowShape,
    Origin,
    Split,
    SplitError,
    column_of,
    first_content,
    key_name,
    lines_of,
    more_content,
)
from krmfn.document.compare import data_of, differences
from krmfn.document.resource import parse_item
from krmfn.document.tree import Doc, YamlError
from krmfn.results import InputError

_WHITE = b" \t\r\n"


def layout(data: bytes, shape: FlowShape) -> Split:
    """The parts of a ResourceList the block splitter found in flow style, checked against a parse
    of the whole: first cut as JSON (fast), and where that cut reads differently, cut again as
    flow YAML. Raises SplitError where the text cannot be cut, InputError where no cut reads right."""
    whole = Doc.parse(data)
    docs = whole.documents()
    top = docs[0] if len(docs) == 1 and whole.is_map(docs[0]) else None
    try:
        fast = _cut(data, shape, fast=True)
        if top is None or check_cut(whole, top, fast) is None:
            return fast  # (a text that is no ResourceList is refused by the caller, saying why)
    except SplitError:
        pass
    careful = _cut(data, shape, fast=False)
    wrong = check_cut(whole, top, careful) if top is not None else None
    if wrong is not None:
        raise InputError(wrong)
    return careful


def _cut(data: bytes, shape: FlowShape, fast: bool) -> Split:
    if shape.split is None:
        return _flow_layout(data, shape.bracket, fast)
    items, origins = _flow_items(data, shape.bracket, shape.end, fast)
    s = shape.split
    return Split(s.prefix, s.blocks, items, 0, origins, by_tokenizer=True)


# --- flow style -------------------------------------------------------------------------------

def _flow_items(data: bytes, bracket: int, end: int, fast: bool) -> tuple[list[bytes], list[Origin]]:
    """The entries of the flow list at ``bracket``, each as ``- `` and its own text."""
    try:
        entries, after = flow.collection(data, bracket, fast)
    except flow.FlowError as exc:
        raise SplitError(f"items: {exc}", exc.offset) from None
    rest = first_content(data, after, end)
    if rest is not None:
        raise SplitError("text after the items' closing ']'", rest)
    lines = lines_of(data, [e.start for e in entries])
    return [item_text(data, e) for e in entries], [_flow_origin(data, e.start, line) for e, line in zip(entries, lines)]


def item_text(data: bytes, entry: flow.Entry) -> bytes:
    """A flow list entry as a block list entry: ``- `` and the entry's text, its later lines
    indented past the dash where they were not (see flow.pad_lines)."""
    return b"- " + flow.pad_lines(data[entry.start:entry.end], 1) + b"\n"


def _flow_origin(data: bytes, start: int, line: int) -> Origin:
    """Where a flow entry's text, written after ``- ``, is in the input (its first line moved)."""
    return Origin(line, column_of(data, start) - 3, 0)


def _flow_layout(data: bytes, brace: int, fast: bool) -> Split:
    """A flow document: its envelope as block ``key: value`` lines, its items as ``- `` entries."""
    try:
        entries, after = flow.collection(data, brace, fast)
    except flow.FlowError as exc:
        raise SplitError(str(exc), exc.offset) from None
    rest = first_content(data, after, len(data))
    if rest is not None:
        marker = MARKER.match(data, rest)
        if not (marker and marker.group(2) is not None) or more_content(data, marker.end()):
            raise SplitError("text after the document's closing '}'", rest)
    line_start = data.rfind(b"\n", 0, brace) + 1
    prefix = data[:line_start]
    if data[line_start:brace].strip(_WHITE):  # ``--- {``: the marker goes on a line of its own
        prefix += b"---\n"
    blocks: list[Block] = []
    items: list[bytes] = []
    origins: list[Origin] = []
    for entry in entries:
        key = entry.key(data)
        if entry.colon is None or b"\n" in key or not key:
            raise SplitError("a top-level entry that is not a one-line 'key: value'", entry.start)
        name = key_name(key, entry.start)
        if any(b.key == name for b in blocks):
            raise SplitError(f"the top-level key {name!r} twice", entry.start)
        value = entry.value(data)
        if name != "items":
            blocks.append(Block(name, key + b": " + flow.pad_lines(value, 1) + b"\n"))
            continue
        if value in NULL_TEXTS or value == b"[]":
            blocks.append(Block(name, key + b": []\n"))
            continue
        at = first_content(data, entry.colon + 1, entry.end)
        if at is None or data[at] != 0x5B:
            raise SplitError("items is not a list", at or entry.colon)
        items, origins = _flow_items(data, at, entry.end, fast)
        blocks.append(Block(name, key + b":\n"))
    return Split(prefix, blocks, items, 0, origins, by_tokenizer=True)


def _json(doc: Doc, node: int) -> str | None:
    """A node as rapidyaml writes it in JSON, or None where its writer refuses (too deep)."""
    try:
        return str(ryml.emit_json(doc.tree, node))
    except (ryml.ExceptionVisit, ryml.ExceptionBasic):
        return None


def check_cut(whole: Doc, top: int, layout: Split) -> str | None:
    """Why a cut of a flow-style list is wrong, or None: each item, read alone, must be what
    ``whole`` (the input parsed whole, its ResourceList at ``top``) says, and so must the
    envelope written in block style."""
    items = whole.get(top, "items")
    read = list(whole.children(items)) if items is not None and whole.is_seq(items) else []
    if len(read) != len(layout.items):
        return (f"the ResourceList holds {len(read)} items, but {len(layout.items)} were cut out of its text; "
                "write it in block style")
    for index, (node, text) in enumerate(zip(read, layout.items)):
        try:
            doc, item = parse_item(text)
        except YamlError:
            return f"item {index} does not read alone as it reads in the list; write the ResourceList in block style"
        if _json(whole, node) == _json(doc, item) is not None:
            continue  # rapidyaml writes both the same: the same data (the walk below is the slow, exact check)
        wrong = differences(data_of(whole, node), data_of(doc, item))
        if wrong:
            return (f"item {index} did not read the same cut out of the list as in it ({wrong[0]}); write the "
                    "ResourceList in block style")
    envelope = Doc.parse(layout.envelope() or b"{}")
    roots = envelope.documents()
    mine = {whole.key(c): data_of(whole, c) for c in whole.children(top) if whole.key(c) not in ("items", "results")}
    theirs = data_of(envelope, roots[0]) if roots else {}
    wrong = differences(mine, theirs)
    return f"the ResourceList's {wrong[0]} did not read the same written in block style" if wrong else None
