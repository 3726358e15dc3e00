"""YAML 1.2 flow scalars decoded from their source text, and where rapidyaml 0.15.2 misreads them.

Why: rapidyaml decodes some valid scalars wrongly (its in-place filter corrupts earlier text when
``\\L``/``\\P`` make the text grow, keeps tabs before a line fold, drops the empty line after an
escaped line break, and an escaped space alone on a line). The detectors are byte searches, cheap
enough to run over a whole input; the few scalars they flag can then be decoded again from their
source with the functions here, which follow the spec (sections 7.3.1 to 7.3.3, 1.2.2 wording)
and nothing else (document.mend does it). No state; patterns compiled on first use.
"""

from __future__ import annotations

import re

from krmfn.document.scalars import Lazy

__all__ = [
    "EscapeError",
    "decode_double_quoted",
    "decode_single_quoted",
    "empty_line_after_escaped_break",
    "escaped_white_line",
    "fold_plain",
    "grows_after_escape",
    "misread_by_rapidyaml",
    "misreads",
    "tab_after_indicator",
    "tab_before_break",
]


class EscapeError(ValueError):
    """Source text that is not a valid scalar; ``offset`` is where the fault starts in that text."""

    def __init__(self, message: str, offset: int):
        super().__init__(f"{message} at offset {offset}")
        self.offset = offset


_SIMPLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_HEX = Lazy(r"[0-9A-Fa-f]+")
# Only CR and LF are line breaks in YAML 1.2 (NEL, LS and PS are content); CRLF is one break.
_BREAK = Lazy(r"\r\n?|\n")
# What follows a line break up to the next line's content: empty lines (white space only) and the
# next line's leading white space, all of which folding drops (each empty line leaves a line feed).
_BLANK_LINES = Lazy(r"(?:[ \t]*(?:\r\n?|\n))*[ \t]*")
_DQ_TOKEN = Lazy(r'(?P<text>[^\\"\r\n \t]+)|(?P<white>[ \t]+)|(?P<brk>\r\n?|\n)|(?P<esc>\\)|(?P<quote>")')
_SQ_TOKEN = Lazy(r"(?P<text>[^'\r\n \t]+)|(?P<white>[ \t]+)|(?P<brk>\r\n?|\n)|(?P<esc>'')|(?P<quote>')")
_PLAIN_TOKEN = Lazy(r"(?P<text>[^\r\n \t]+)|(?P<white>[ \t]+)|(?P<brk>\r\n?|\n)")


def _body(source: str, quote: str) -> str:
    if len(source) < 2 or source[0] != quote or source[-1] != quote:
        raise EscapeError(f"a quoted scalar must start and end with {quote}",
                          0 if not source or source[0] != quote else len(source))
    return source[1:-1]


def _fold(body: str, pos: int, escaped: bool) -> tuple[str, int]:
    """What the line break ending just before ``pos`` becomes, and where the next line's content starts.

    Why one helper: every flow style folds alike (7.3.1 and 7.3.3): a lone break is a space, each
    empty line after it a line feed (and then the break itself is dropped); an escaped break is
    dropped but keeps the empty lines after it.
    """
    m = _BLANK_LINES.match(body, pos)
    assert m is not None  # the pattern matches the empty string too
    empty = len(_BREAK.findall(m.group()))
    return ("\n" * empty if empty or escaped else " "), m.end()


def _decode_hex(body: str, pos: int, kind: str) -> tuple[int, int]:
    """The code point of ``\\x``, ``\\u`` or ``\\U`` whose letter is at ``pos - 1``, and the offset after it."""
    size = _HEX_DIGITS[kind]
    digits = body[pos:pos + size]
    if len(digits) != size or not _HEX.fullmatch(digits):
        raise EscapeError(f"\\{kind} needs {size} hex digits", pos - 1)
    return int(digits, 16), pos + size


def decode_double_quoted(source: str) -> str:
    """The text of a double-quoted scalar, given its source including both quotes (spec 7.3.1).

    Raises :class:`EscapeError` (a ValueError) at an escape YAML 1.2 does not define, a lone
    surrogate, or a stray quote; offsets count in ``source``.
    """
    body = _body(source, '"')
    out: list[str] = []
    white = ""  # literal white space not yet written: dropped if a line break follows it
    pos, end = 0, len(body)
    while pos < end:
        m = _DQ_TOKEN.match(body, pos)
        assert m is not None  # the alternatives cover every character
        kind, pos = m.lastgroup, m.end()
        if kind == "text":
            out += (white, m.group())
            white = ""
        elif kind == "white":
            white = m.group()
        elif kind == "brk":
            folded, pos = _fold(body, pos, escaped=False)
            out.append(folded)
            white = ""
        elif kind == "quote":
            raise EscapeError('an unescaped " inside a double-quoted scalar', pos)  # pos - 1 in body, +1 for the quote
        else:
            out.append(white)  # white space before an escape (even an escaped line break) is content
            white = ""
            if pos >= end:
                raise EscapeError("a \\ at the end of a double-quoted scalar", pos)
            code = body[pos]
            brk = _BREAK.match(body, pos)
            if brk:
                folded, pos = _fold(body, brk.end(), escaped=True)
                out.append(folded)
            elif code in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[code])
                pos += 1
            elif code in _HEX_DIGITS:
                point, pos = _decode_hex(body, pos + 1, code)
                if 0xD800 <= point < 0xDC00 and body.startswith("\\u", pos):  # a UTF-16 surrogate pair
                    low, after = _decode_hex(body, pos + 2, "u")
                    if 0xDC00 <= low < 0xE000:
                        point, pos = 0x10000 + ((point - 0xD800) << 10) + (low - 0xDC00), after
                if 0xD800 <= point < 0xE000 or point > 0x10FFFF:
                    raise EscapeError(f"\\{code} names no character (U+{point:04X})", m.start() + 1)
                out.append(chr(point))
            else:
                raise EscapeError(f"\\{code} is not a YAML escape", m.start() + 1)
    out.append(white)
    return "".join(out)


def decode_single_quoted(source: str) -> str:
    """The text of a single-quoted scalar, given its source including both quotes (spec 7.3.2)."""
    body = _body(source, "'")
    out: list[str] = []
    white = ""
    pos, end = 0, len(body)
    while pos < end:
        m = _SQ_TOKEN.match(body, pos)
        assert m is not None
        kind, pos = m.lastgroup, m.end()
        if kind in ("text", "esc"):
            out += (white, "'" if kind == "esc" else m.group())
            white = ""
        elif kind == "white":
            white = m.group()
        elif kind == "brk":
            folded, pos = _fold(body, pos, escaped=False)
            out.append(folded)
            white = ""
        else:
            raise EscapeError("a lone ' inside a single-quoted scalar", pos)
    out.append(white)
    return "".join(out)


def fold_plain(source: str) -> str:
    """The text of a (multi-line) plain scalar, given its source without comment (spec 7.3.3).

    White space at either end is dropped: a plain scalar neither starts nor ends with it.
    """
    body = source.strip(" \t")
    out: list[str] = []
    white = ""
    pos, end = 0, len(body)
    while pos < end:
        m = _PLAIN_TOKEN.match(body, pos)
        assert m is not None
        kind, pos = m.lastgroup, m.end()
        if kind == "text":
            out += (white, m.group())
            white = ""
        elif kind == "white":
            white = m.group()
        else:
            folded, pos = _fold(body, pos, escaped=False)
            out.append(folded)
            white = ""
    return "".join(out)


# --- where rapidyaml 0.15.2 misreads (byte searches; a false alarm only costs a second decoding) ---

_ESCAPE_PAIR = Lazy(rb"\\(.)", re.DOTALL)
_TAB_BEFORE_BREAK = Lazy(rb"\t[ \t]*[\r\n]")
# An escaped line break (an odd run of backslashes before it) followed by a white-space-only line.
_ESCAPED_BREAK_EMPTY_LINE = Lazy(rb"(?<!\\)(?:\\\\)*\\(?:\r\n?|\n)[ \t]*[\r\n]")


def grows_after_escape(source: bytes) -> bool:
    """A: a ``\\L`` or ``\\P`` after another escape (``\\n``, ``\\r``, ``\\\\``, ``\\x0a``, ...).

    Why: the two escapes that decode longer than their source make rapidyaml redo its in-place
    decoding over text already decoded, so earlier line feeds fold, CRs vanish, backslashes escape
    (whether written ``\\n`` or ``\\x0a``); any earlier escape is taken as a warning, since a false
    alarm only costs decoding the scalar once more.
    """
    if b"\\L" not in source and b"\\P" not in source:
        return False
    seen = False
    for m in _ESCAPE_PAIR.finditer(source):
        if m.group(1) not in b"LP":
            seen = True
        elif seen:
            return True
    return False


def tab_before_break(source: bytes) -> bool:
    """B: a tab in the white space before a line break; rapidyaml may keep it in a fold (spec drops it)."""
    return b"\t" in source and _TAB_BEFORE_BREAK.search(source) is not None


def empty_line_after_escaped_break(source: bytes) -> bool:
    """C: an escaped line break followed by an empty line; rapidyaml loses that line's line feed."""
    return (b"\\\n" in source or b"\\\r" in source) and _ESCAPED_BREAK_EMPTY_LINE.search(source) is not None


# A line of a multi-line double-quoted scalar that holds only an escaped space or tab (and white space).
_ESCAPED_WHITE_LINE = Lazy(rb"[\r\n][ \t]*\\[ \t][ \t]*[\r\n]")


def escaped_white_line(source: bytes) -> bool:
    """E: a line that holds only an escaped space or tab (``\\ ``) between two line breaks; rapidyaml
    drops that escaped character (``"a`` newline `` \\ `` newline ``b"`` reads ``'a  b'``, spec: ``'a   b'``)."""
    return b"\\" in source and _ESCAPED_WHITE_LINE.search(source) is not None


_TAB_AFTER_INDICATOR = Lazy(rb"[-?:]\t")


def tab_after_indicator(text: bytes) -> bool:
    """D: a tab right after ``-``, ``?``, ``:`` or ``---``; rapidyaml then reads the indicator as text
    (``k:<TAB>v`` becomes the scalar ``'k:\\tv'``). A misread of structure, not of a scalar: nothing
    here mends it, so a caller can only refuse the input (or read it otherwise)."""
    return b"\t" in text and _TAB_AFTER_INDICATOR.search(text) is not None


def misreads(source: bytes) -> tuple[str, ...]:
    """Which of the known misreads (``"A"`` to ``"E"``) a scalar's source (or a whole text) may suffer."""
    found = []
    if grows_after_escape(source):
        found.append("A")
    if tab_before_break(source):
        found.append("B")
    if empty_line_after_escaped_break(source):
        found.append("C")
    if tab_after_indicator(source):
        found.append("D")
    if escaped_white_line(source):
        found.append("E")
    return tuple(found)


def misread_by_rapidyaml(source: bytes) -> bool:
    """Whether rapidyaml 0.15.2 may decode this scalar (A to C and E: mended by decoding its source here) wrongly."""
    return (grows_after_escape(source) or tab_before_break(source) or empty_line_after_escaped_break(source)
            or escaped_white_line(source))
