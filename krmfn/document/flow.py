"""Where the entries of a flow collection (``{...}``, ``[...]``, JSON included) start and end.

Why: an item that krmfn does not change must leave as it came, byte for byte, whatever the
input's shape, so a ResourceList written as JSON or in flow style is cut into its items' own
texts too, as a block-style one is by document.chunks. A tokenizer of flow YAML (quoted
scalars, plain scalars, comments, anchors, tags, aliases, nested collections) finds the cuts;
the caller checks the cut items against a parse of the whole (document.chunks), so a cut this
module got wrong is refused, never used.

Offsets are into the text given; no copy of it is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from krmfn.document.scalars import Lazy

_WHITE = b" \t\r\n"
_DQUOTED = Lazy(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SQUOTED = Lazy(rb"'(?:[^']|'')*'")
_SPACE = Lazy(rb"[ \t\r\n]*")
# White space and comments (a ``#`` after white space or at a line start) between tokens.
_GAP = Lazy(rb"(?:[ \t\r\n]+|(?:(?<=[ \t\r\n])|^)#[^\n]*)*", re.MULTILINE)
# A property (``&anchor``, ``!tag``) or an alias (``*name``): up to white space or a flow indicator.
_TOKEN = Lazy(rb"[^ \t\r\n,\[\]{}]*")
# A run of a plain scalar within one line: no white space, flow indicator, ``:`` or ``#``.
_PLAIN_RUN = Lazy(rb"[^ \t\r\n,\[\]{}:#]+")
_FLOW_INDICATORS = b",[]{}"
_CLOSE = {0x7B: 0x7D, 0x5B: 0x5D}  # { -> }, [ -> ]


class FlowError(ValueError):
    """Text this tokenizer does not take for a flow collection; ``offset``: where, in the text."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Entry:
    """One entry of a flow collection: ``data[start:end]`` is its whole text (key, ``:`` and value
    of a map entry); ``colon``: where its value indicator is, None without one."""

    start: int
    end: int
    colon: int | None = None

    def key(self, data: bytes) -> bytes:
        return data[self.start:self.colon if self.colon is not None else self.end].rstrip(_WHITE)

    def value(self, data: bytes) -> bytes:
        return data[self.colon + 1:self.end].strip(_WHITE) if self.colon is not None else b""


def _gap(data: bytes, pos: int) -> int:
    """The offset after the white space and comments at ``pos``."""
    m = _GAP.match(data, pos)
    return m.end() if m else pos


def _ends_plain(data: bytes, pos: int) -> bool:
    """Whether a ``:`` at ``pos`` is a value indicator in flow context (not a plain scalar's character)."""
    nxt = data[pos + 1:pos + 2]
    return not nxt or nxt in b" \t\r\n" or nxt in _FLOW_INDICATORS


def _plain(data: bytes, pos: int) -> int:
    """The end of the plain scalar starting at ``pos`` (it may go on over several lines)."""
    end = len(data)
    last = pos
    while pos < end:
        run = _PLAIN_RUN.match(data, pos)
        if run:
            pos = last = run.end()
            continue
        ch = data[pos]
        if ch == 0x23:  # "#" right after a character of the scalar: part of it
            pos = last = pos + 1
            continue
        if ch == 0x3A:  # ":"
            if _ends_plain(data, pos):
                return last
            pos = last = pos + 1
            continue
        if ch in _FLOW_INDICATORS:
            return last
        after = _SPACE.match(data, pos).end()
        if after >= end or data[after] in _FLOW_INDICATORS or data[after] == 0x23 or \
                (data[after] == 0x3A and _ends_plain(data, after)):
            return last
        pos = after
    return last


def _node(data: bytes, pos: int, fast: bool = False) -> int:
    """The end of the node (properties included) that starts at ``pos``; ``pos`` itself when there is none."""
    end = len(data)
    while pos < end and data[pos] in b"&!":  # properties, then the node (or nothing: an empty node)
        token = _TOKEN.match(data, pos).end()
        after = _gap(data, token)
        if after >= end or data[after] in b",]}" or (data[after] == 0x3A and _ends_plain(data, after)):
            return token
        pos = after
    if pos >= end:
        return pos
    ch = data[pos]
    if ch in _CLOSE:
        return skip_json(data, pos) if fast else skip_collection(data, pos)
    if ch == 0x22:  # "
        m = _DQUOTED.match(data, pos)
        if m is None:
            raise FlowError("a double-quoted string that is not closed", pos)
        return m.end()
    if ch == 0x27:  # '
        m = _SQUOTED.match(data, pos)
        if m is None:
            raise FlowError("a single-quoted string that is not closed", pos)
        return m.end()
    if ch == 0x2A:  # * an alias
        return _TOKEN.match(data, pos).end()
    if ch in b",]}":
        return pos
    if ch in b"-?:" and (pos + 1 >= end or data[pos + 1] in _WHITE or data[pos + 1] in _FLOW_INDICATORS):
        raise FlowError(f"'{chr(ch)}' cannot start a node in a flow collection", pos)
    if ch in b"|>%@`":
        raise FlowError(f"'{chr(ch)}' cannot start a node in a flow collection", pos)
    return _plain(data, pos)


# JSON between brackets: anything but a quote or a bracket, and double-quoted strings whole.
_JSON_RUN = Lazy(rb'(?:[^"\[\]{}]+|"(?:[^"\\]|\\.)*")*')


def skip_json(data: bytes, start: int) -> int:
    """:func:`skip_collection` for JSON: one match per bracket (strings and all else jumped at C
    speed). Flow YAML is not JSON (``it's``, ``'[x'``, comments): a caller that cannot tell checks
    the cut, and cuts again with :func:`skip_collection` where it was wrong."""
    run = _JSON_RUN.compiled().match
    stack = [_CLOSE[data[start]]]
    pos, end = start + 1, len(data)
    while stack:
        pos = run(data, pos).end()  # type: ignore[union-attr]  # the pattern matches the empty string
        if pos >= end:
            raise FlowError(f"a flow collection that is not closed with '{chr(stack[0])}'", start)
        ch = data[pos]
        if ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch == stack[-1]:
            stack.pop()
        else:
            raise FlowError(f"'{chr(ch)}' where '{chr(stack[-1])}' should close a flow collection", pos)
        pos += 1
    return pos


# Between the characters that matter for where a collection ends: no quote, bracket or ``#``.
_RUN = Lazy(rb"[^\"'\[\]{}#]+")
_QUOTE_AFTER = b",[{:?"  # a quote after one of these (and white space) starts a quoted scalar


def skip_collection(data: bytes, start: int) -> int:
    """The offset after the flow collection at ``start`` and all it holds, found without recursion
    (JSON may nest thousands deep; the depth limit is document.limits' to report).

    Fast over JSON: runs without quotes, brackets or ``#`` are jumped in one match. A quote
    starts a quoted scalar only at a token's start (after ``[{,:?`` and white space: ``it's``
    is plain text), and ``#`` a comment only after white space. A cut this gets wrong is caught
    by the caller's check against a parse of the whole.
    """
    run = _RUN.compiled().match
    dquoted, squoted = _DQUOTED.compiled().match, _SQUOTED.compiled().match
    stack = [_CLOSE[data[start]]]
    pos, end = start + 1, len(data)
    while stack:
        skipped = run(data, pos)
        if skipped:
            pos = skipped.end()
        if pos >= end:
            raise FlowError(f"a flow collection that is not closed with '{chr(stack[0])}'", start)
        ch = data[pos]
        if ch in _CLOSE:
            stack.append(_CLOSE[ch])
            pos += 1
        elif ch == 0x5D or ch == 0x7D:  # ] }
            if ch != stack[-1]:
                raise FlowError(f"'{chr(ch)}' where '{chr(stack[-1])}' should close a flow collection", pos)
            stack.pop()
            pos += 1
        elif ch == 0x23:  # "#": a comment after white space, else part of a plain scalar
            if data[pos - 1] in _WHITE:
                nl = data.find(b"\n", pos)
                pos = end if nl < 0 else nl
            else:
                pos += 1
        else:  # a quote
            i = pos - 1
            while i > start and data[i] in _WHITE:
                i -= 1
            if data[i] in _QUOTE_AFTER:
                quoted = (dquoted if ch == 0x22 else squoted)(data, pos)
                if quoted is None:
                    raise FlowError("a quoted string that is not closed", pos)
                pos = quoted.end()
            else:
                pos += 1
    return pos


def collection(data: bytes, start: int, fast: bool = False) -> tuple[list[Entry], int]:
    """The entries of the flow map or list whose ``{`` or ``[`` is at ``start``, and the offset
    after its closing bracket. Raises FlowError where the text is not a flow collection.
    ``fast``: skip nested collections as JSON (:func:`skip_json`)."""
    close = _CLOSE[data[start]]
    entries: list[Entry] = []
    pos = _gap(data, start + 1)
    end = len(data)
    while True:
        if pos >= end:
            raise FlowError(f"a flow collection that is not closed with '{chr(close)}'", start)
        if data[pos] == close:
            return entries, pos + 1
        first = pos
        if data[pos] == 0x3F and (pos + 1 >= end or data[pos + 1] in _WHITE):  # "? " an explicit key
            pos = _gap(data, pos + 1)
        last = pos = _node(data, pos, fast)
        after = _gap(data, pos)
        colon = None
        if after < end and data[after] == 0x3A:
            colon = after
            value_at = _gap(data, after + 1)
            value_end = _node(data, value_at, fast)
            last = value_end if value_end > value_at else after + 1
            after = _gap(data, last)
        if last == first:
            raise FlowError("an empty entry in a flow collection", first)
        entries.append(Entry(first, last, colon))
        if after < end and data[after] == 0x2C:  # ","
            pos = _gap(data, after + 1)
        elif after < end and data[after] == close:
            pos = after
        else:
            raise FlowError(f"expected ',' or '{chr(close)}' in a flow collection", after)


def pad_lines(text: bytes, column: int) -> bytes:
    """``text`` (a flow node) with every line after the first indented to at least ``column``.

    Why this keeps its meaning: between a flow node's tokens white space is only separation, and
    a multi-line quoted or plain scalar drops the white space that starts its continuation lines.
    """
    if b"\n" not in text:
        return text
    lines = text.split(b"\n")
    out = [lines[0]]
    for line in lines[1:]:
        indent = len(line) - len(line.lstrip(b" "))
        out.append(line if indent >= column or not line.strip(_WHITE) else b" " * (column - indent) + line)
    return b"\n".join(out)


__all__ = ["Entry", "FlowError", "collection", "pad_lines", "skip_collection", "skip_json"]
