"""A flow collection closed at its key's indentation, read as every other tool reads it.

Why: real manifests write ``args: [`` ... ``]`` with the closing bracket under the key (an Argo
Workflows example, an istio sample). YAML wants it indented past the key and rapidyaml refuses
it, while PyYAML, ruamel, kubectl, kustomize and kpt all read it; so krmfn failed the whole render.

Only where rapidyaml's error points at a line that holds nothing but closing brackets (and
commas, and a comment), and the flow tokenizer finds that this very bracket closes a collection
opened on the key's line, is the line indented one column past the key and parsed again. Inside
a flow collection, leading white space means nothing (a quoted scalar's continuation lines drop
it), so the value is the one the lenient tools read. The offsets the tree gives are moved back
to the text as written (``Doc.shifts``), so that edits still land in the item's own text.
"""

from __future__ import annotations

from krmfn.document import flow
from krmfn.document.scalars import Lazy
from krmfn.document.tree import Doc, YamlError

_CLOSERS = Lazy(rb"( *)[\]}][\]},\t ]*(?:#[^\n]*)?")
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


def _padded(text: bytes, line: int) -> tuple[bytes, int, int] | None:
    """``text`` with the closing line ``line`` indented past its key, where and by how much."""
    bounds = _line_bounds(text, line)
    if bounds is None:
        return None
    start, end = bounds
    closers = _CLOSERS.fullmatch(text, start, end)
    if closers is None:
        return None
    indent = len(closers.group(1))
    key_start = start
    while key_start > 0:  # the nearest line above at or left of the bracket: the key's
        key_start = text.rfind(b"\n", 0, key_start - 1) + 1
        above = text[key_start:text.find(b"\n", key_start)]
        content = above.lstrip(b" ")
        if content and not content.startswith(b"#") and len(above) - len(content) <= indent:
            break
    else:
        return None
    key_line = text[key_start:text.find(b"\n", key_start)]
    key_column = len(key_line) - len(key_line.lstrip(b" -"))
    opener = _OPENER.search(key_line)
    need = key_column + 1 - indent
    if opener is None or need <= 0:
        return None
    try:
        closed = flow.skip_collection(text, key_start + opener.start())
    except flow.FlowError:
        return None
    if closed != start + indent + 1:  # not this bracket that closes what the key's line opened
        return None
    return text[:start] + b" " * need + text[start:], start, need


def reparse(source: bytes, error: YamlError) -> Doc:
    """``source`` parsed with its flow collections' closing lines indented past their keys, or
    ``error`` raised again where that is not what rapidyaml stumbled on."""
    text, shifts = source, list[tuple[int, int]]()
    err = error
    for _ in range(MAX_LINES):
        padded = _padded(text, err.line) if err.line else None
        if padded is None:
            raise error
        text, at, count = padded
        shifts = [(pos + count if pos > at else pos, n) for pos, n in shifts] + [(at, count)]
        try:
            doc = Doc.parse(bytearray(text))
        except YamlError as again:
            err = again
            continue
        doc.shifts = sorted(shifts)
        return doc
    raise error


__all__ = ["reparse"]
