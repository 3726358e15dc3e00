"""Scalars rapidyaml 0.15.2 misreads, found in a parsed tree and read again from their source.

Why: rapidyaml decodes some valid scalars wrongly (krmfn.document.quoted names them A to E).
A value krmfn hashes or writes must be what the YAML spec says, so each scalar a detector
flags is decoded again from its own source text with quoted.py, and the tree is told the
right text; the misread of structure (D, a tab right after an indicator) cannot be mended
that way and is refused with its line and column.

Cost: the detectors are byte searches over the whole text (a few per item, at C speed); only a
text they flag is walked node by node here, and only flagged scalars are decoded again.

Where a scalar's source starts is read from the tree itself: the text is parsed in place, so
the view of a plain or quoted scalar points into the buffer at its first character (after the
opening quote), and a block scalar's at its first line. A double-quoted scalar that grows while
decoded (A: ``\\L``, ``\\P``) would be moved out of the buffer, and spoiled; so a text flagged A
is parsed with those escapes written ``\\_`` (:func:`for_parsing`), and every scalar that held one
is read again from the source as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import ryml

from krmfn.document.native import NONE, buffer_address, view_address
from krmfn.document.scalars import Lazy, has_indentation_indicator

# A double- and a single-quoted scalar's whole source, from its opening quote.
_DQUOTED = Lazy(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SQUOTED = Lazy(rb"'(?:[^']|'')*'")
# ``\L`` and ``\P`` escapes (an odd run of backslashes before the letter), for the locating parse.
_GROWING_ESCAPE = Lazy(rb"(?<!\\)((?:\\\\)*)\\[LP]")
# A tab right after an indicator, where rapidyaml takes the indicator for text (D).
_INDICATOR_TAB = Lazy(rb"[-?:]\t")
_WHITE = b" \t\r\n"
# F: a block scalar header with an indentation indicator (``|2``, ``>-4``, ``|+1``); rapidyaml reads
# such a scalar as empty when every line of it holds only spaces (``k: |2-`` then ``   ``: spec ``' '``).
_INDENTATION_INDICATOR = Lazy(rb"[|>][-+]?[1-9]")  # also scalars.has_indentation_indicator's


class Flags:
    """Which misreads a text may suffer, from byte searches alone (a plain class: a dataclass costs
    start-up time, and every run imports this module)."""

    __slots__ = ("escaped_break", "escaped_white", "grows", "indented_block", "indicator_tab", "tab_fold")

    def __init__(self, grows: bool = False, tab_fold: bool = False, escaped_break: bool = False,
                 indicator_tab: bool = False, escaped_white: bool = False, indented_block: bool = False):
        self.grows = grows  # A
        self.tab_fold = tab_fold  # B
        self.escaped_break = escaped_break  # C
        self.indicator_tab = indicator_tab  # D
        self.escaped_white = escaped_white  # E
        self.indented_block = indented_block  # F

    def __bool__(self) -> bool:
        return (self.grows or self.tab_fold or self.escaped_break or self.indicator_tab or self.escaped_white
                or self.indented_block)


NO_FLAGS = Flags()


def flags(data: bytes | bytearray) -> Flags:
    """The byte searches: nothing but three ``in`` tests for a text with no backslash, tab or block scalar."""
    backslash, tab = b"\\" in data, b"\t" in data
    indented = has_indentation_indicator(data)
    if not (backslash or tab or indented):
        return NO_FLAGS
    from krmfn.document import quoted  # here, for start-up time: only such texts need the detectors

    src = bytes(data)
    return Flags(backslash and quoted.grows_after_escape(src), tab and quoted.tab_before_break(src),
                 backslash and quoted.empty_line_after_escaped_break(src), tab and quoted.tab_after_indicator(src),
                 backslash and quoted.escaped_white_line(src), indented)


def for_parsing(source: bytes) -> bytearray:
    """The text rapidyaml is given: every ``\\L`` and ``\\P`` written ``\\_``, the same length, so
    offsets stay, and decoded no longer than its source, so rapidyaml neither moves a scalar out
    of the text (where its source could not be found) nor spoils it (A), nor refuses one it has
    spoiled; :func:`fixes` then reads each scalar that held one from its source."""
    if b"\\L" not in source and b"\\P" not in source:
        return bytearray(source)
    return bytearray(_GROWING_ESCAPE.sub(rb"\1\\_", source))


class Misread(ValueError):
    """A construct rapidyaml reads wrongly and krmfn cannot mend; ``offset`` is where, in the text."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


# The text a scalar really holds: (node, whether it is the node's key, the text).
Fix = tuple[int, bool, str]


def _text(view: memoryview | bytes) -> str:
    try:
        return str(view, "utf-8")
    except UnicodeDecodeError:  # surrogates decoded one by one: rejoin the pairs
        loose = bytes(view).decode("utf-8", "surrogatepass")
        return loose.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# A scalar's style: double- or single-quoted, plain, or a block scalar (``|`` or ``>``).
DQUO, SQUO, PLAIN, BLOCK = '"', "'", "", "|"


def _scalars(tree: ryml.Tree) -> list[tuple[int, bool, str, memoryview]]:
    """Every scalar with text, keys and values, that is not an alias: ``(node, is_key, style, view)``."""
    out = []
    stack = [tree.root_id()]
    while stack:
        n = stack.pop()
        if tree.has_key(n) and not tree.is_key_ref(n):
            view = tree.key(n)
            if view is not None and len(view):
                style = DQUO if tree.is_key_dquo(n) else SQUO if tree.is_key_squo(n) else \
                    BLOCK if tree.is_key_literal(n) or tree.is_key_folded(n) else PLAIN
                out.append((n, True, style, view))
        if tree.has_val(n) and not tree.is_container(n) and not tree.is_val_ref(n):
            view = tree.val(n)
            block = tree.is_val_literal(n) or tree.is_val_folded(n)
            if view is not None and (len(view) or block):
                style = DQUO if tree.is_val_dquo(n) else SQUO if tree.is_val_squo(n) else BLOCK if block else PLAIN
                out.append((n, False, style, view))
        child = tree.first_child(n)
        while child != NONE:
            stack.append(child)
            child = tree.next_sibling(child)
    return out


def _aligned(text: bytes, parsed: bytes, start: int) -> Iterator[tuple[int, int]]:
    """``(i, pos)`` for each non-white character ``text[i]`` of a plain or block scalar and where it
    stands in ``parsed``, the text it was read from (such scalars have no escapes: every other
    character is copied as it is; only white space is dropped or folded)."""
    pos, end = start, len(parsed)
    for i, byte in enumerate(text):
        if byte in _WHITE:
            continue
        while pos < end and parsed[pos] in _WHITE:
            pos += 1
        if pos >= end or parsed[pos] != byte:
            raise Misread("a scalar whose text does not follow its source", start)
        yield i, pos
        pos += 1


def _verbatim_end(text: bytes, parsed: bytes, start: int) -> int:
    """Where a plain or block scalar whose text is ``text`` ends in ``parsed``: after the character
    that gives its text's last non-white character."""
    end = start
    for _, pos in _aligned(text, parsed, start):
        end = pos + 1
    return end


def _unsubstitute(text: bytes, parsed: bytes, source: bytes, start: int) -> bytes:
    """A plain or block scalar's text with each character that :func:`for_parsing` changed
    (an ``_`` of ``\\_``) given back as it was written (``L`` or ``P``)."""
    out = bytearray(text)
    for i, pos in _aligned(text, parsed, start):
        out[i] = source[pos]
    return bytes(out)


def _blank_indented_block(source: bytes) -> int | None:
    """Where a block scalar header with an indentation indicator is followed by lines of white space
    only, some with spaces in them (content, where there are more than its indentation), or None."""
    for m in _INDENTATION_INDICATOR.finditer(source):
        pos = source.find(b"\n", m.end()) + 1
        while 0 < pos < len(source):
            end = source.find(b"\n", pos)
            line = source[pos:end if end >= 0 else len(source)]
            if line.strip(b" \r"):
                break
            if b" " in line:
                return m.start()
            pos = end + 1
    return None


def _needs_decoding(span: bytes, substituted: bool) -> bool:
    """Whether a quoted scalar's source is one rapidyaml (or the substitution) may have read wrongly."""
    # Here, for start-up time (flags() imported it for any text that gets here).
    from krmfn.document.quoted import empty_line_after_escaped_break, escaped_white_line, tab_before_break
    return ((substituted and (b"\\L" in span or b"\\P" in span)) or tab_before_break(span)
            or empty_line_after_escaped_break(span) or escaped_white_line(span))


def fixes(tree: ryml.Tree, buffer: bytearray, parsed: bytes, source: bytes, found: Flags) -> list[Fix]:
    """The scalars of ``tree`` whose text differs from the spec's, each with its right text.

    ``tree`` was parsed in place from ``buffer``, which held ``parsed`` (:func:`for_parsing` of
    ``source``); ``found``: what :func:`flags` found in ``source``. Raises :class:`Misread` for a
    misread of structure (D), or a scalar whose source cannot be found.
    """
    from krmfn.document.quoted import fold_plain, tab_before_break  # here, for start-up time: see flags()

    base, size = buffer_address(buffer), len(buffer)
    substituted = parsed != source
    out: list[Fix] = []
    for node, is_key, style, view in _scalars(tree):
        at = view_address(view) - base
        if style == BLOCK and not bytes(view).strip(b"\n"):
            blank = _blank_indented_block(source) if found.indented_block else None
            if blank is not None:
                raise Misread("a block scalar with an indentation indicator whose lines hold only spaces, which "
                              "rapidyaml reads as empty; write the value double-quoted", blank)
            continue  # an empty block scalar's view may point anywhere
        if not 0 <= at < size:
            raise Misread("a scalar rapidyaml moved out of its text", 0)
        if style in (DQUO, SQUO):
            found_span = (_DQUOTED if style == DQUO else _SQUOTED).match(source, at - 1)
            if found_span is None:
                raise Misread("a quoted scalar whose source cannot be found", max(at - 1, 0))
            span = found_span.group()
            if _needs_decoding(span, substituted):
                out.append((node, is_key, _decode(style, span, at - 1)))
            continue
        raw = bytes(view)
        if style == PLAIN and b"\t" in raw:  # the plain misreads (B, D) both leave a tab in the text
            text = _text(raw)
            if found.indicator_tab and (text.startswith(("-\t", "?\t", ":\t", "---\t")) or ":\t" in text):
                hit = _INDICATOR_TAB.search(source, at)
                indicator = chr(source[hit.start()]) if hit else "-"
                raise Misread(f"a tab right after '{indicator}', which rapidyaml (krmfn's YAML reader) takes for "
                              "text, not YAML structure; write a space there instead of the tab",
                              hit.start() + 1 if hit else at)
            if found.tab_fold:
                span = source[at:_verbatim_end(raw, parsed, at)]
                if tab_before_break(span):
                    out.append((node, is_key, fold_plain(span.decode())))
                    continue
        if substituted and b"\\_" in raw:
            if style == PLAIN:
                span = source[at:_verbatim_end(raw, parsed, at)]
                out.append((node, is_key, fold_plain(span.decode())))
            else:
                fixed = _unsubstitute(raw, parsed, source, at)
                if fixed != raw:
                    out.append((node, is_key, _text(fixed)))
    return out


def _decode(style: str, span: bytes, start: int) -> str:
    from krmfn.document.quoted import EscapeError, decode_double_quoted, decode_single_quoted  # start-up time

    try:
        text = span.decode()
        return decode_double_quoted(text) if style == DQUO else decode_single_quoted(text)
    except (EscapeError, UnicodeDecodeError) as exc:
        raise Misread(f"a quoted scalar that cannot be decoded ({exc})", start) from None
