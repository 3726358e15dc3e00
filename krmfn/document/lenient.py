"""A flow collection closed at its key's indentation, read as every other tool reads it.

Why: real manifests write ``args: [`` ... ``]`` with the closing bracket under the key (an Argo
Workflows example, an istio sample). YAML wants it indented past the key and rapidyaml refuses
it, while PyYAML, ruamel, kubectl, kustomize and kpt all read it; so krmfn failed the whole render.

Only where rapidyaml's error points at a line inside a flow collection that the flow tokenizer
finds opened on the key's line above it (the closing bracket, or a multi-line string closed
there, ``"]``), are that collection's lines indented one column past the key and the item
parsed again. Inside a flow collection, leading white space means nothing (a quoted or plain
scalar's continuation lines drop it), so the value is the one the lenient tools read. The
offsets the tree gives are moved back to the text as written (``Doc.shifts``), so that edits
still land in the item's own text.
"""

from __future__ import annotations

from krmfn.document import flow
from krmfn.document.scalars import Lazy
from krmfn.document.tree import Doc, YamlError

_OPENER = Lazy(rb"[\[{]")
MAX_LINES = 64  # closing lines mended in one item at most


def _line_bounds(text: bytes, line: int) -> tuple[int, int] | None:
    """Where the 1-based ``line`` starts and ends (before its newline)."""
    start = 0
    for _ in range(line - 1):
        start = text.find(b"\n", start) + 1
        if start == 0:
            return None
    end = text.find(b"\n", start)
    return start, end if end >= 0 else len(text)


def _padded(text: bytes, line: int) -> tuple[bytes, list[tuple[int, int]]] | None:
    """``text`` with the lines of the flow collection that holds ``line`` indented one column past
    the key whose line opened it; and the insertions made (offset in ``text``, spaces)."""
    bounds = _line_bounds(text, line)
    if bounds is None:
        return None
    start, end = bounds
    body = text[start:end]
    indent = len(body) - len(body.lstrip(b" "))
    if not body.strip(b" "):
        return None
    key_start = start
    while key_start > 0:  # the nearest line above at or left of this one: the key's
        key_start = text.rfind(b"\n", 0, key_start - 1) + 1
        above = text[key_start:text.find(b"\n", key_start)]
        content = above.lstrip(b" ")
        if content and not content.startswith(b"#") and len(above) - len(content) <= indent:
            break
    else:
        return None
    key_end = text.find(b"\n", key_start)
    key_line = text[key_start:key_end]
    key_column = len(key_line) - len(key_line.lstrip(b" -"))
    opener = _OPENER.search(key_line)
    if opener is None or key_column + 1 <= indent:
        return None
    try:
        closed = flow.skip_collection(text, key_start + opener.start())
    except flow.FlowError:
        return None
    if closed <= start:  # the collection ends before this line: not what rapidyaml stumbled on
        return None
    want = key_column + 1
    inserts: list[tuple[int, int]] = []  # (offset in ``text``, spaces)
    pos = key_end + 1
    while pos < closed:  # every line inside the collection, up to the one that closes it
        nl = text.find(b"\n", pos)
        nl = len(text) if nl < 0 else nl
        here = text[pos:nl]
        short = want - (len(here) - len(here.lstrip(b" ")))
        if short > 0 and here.strip(b" "):
            inserts.append((pos, short))
        pos = nl + 1
    if not inserts:
        return None
    pieces, last = [], 0
    for at, count in inserts:
        pieces += [text[last:at], b" " * count]
        last = at
    pieces.append(text[last:])
    return b"".join(pieces), inserts


def reparse(source: bytes, error: YamlError) -> Doc:
    """``source`` parsed with its flow collections' lines indented past their keys, or ``error``
    raised again where that is not what rapidyaml stumbled on."""
    text, shifts = source, list[tuple[int, int]]()
    err = error
    for _ in range(MAX_LINES):
        padded = _padded(text, err.line) if err.line else None
        if padded is None:
            raise error
        text, inserts = padded
        # Earlier insertions move with the text after each new one; the new ones, in the new text.
        shifts = [(at + sum(n for a, n in inserts if a <= at), count) for at, count in shifts]
        added = 0
        for at, count in inserts:
            shifts.append((at + added, count))
            added += count
        try:
            doc = Doc.parse(bytearray(text))
        except YamlError as again:
            err = again
            continue
        doc.shifts = sorted(shifts)
        return doc
    raise error


__all__ = ["reparse"]
