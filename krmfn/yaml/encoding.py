"""The input's text encoding: UTF-8 only, checked once, with a BOM and CR line ends taken off.

Why here, once: every mode (ResourceList, streams, files) must refuse the same bytes with the
same message, and spans, edits and the check after them work on one form of line break.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from krmfn.results import InputError

BOM = b"\xef\xbb\xbf"
BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"))
# Raw control characters YAML does not allow (tab, LF and CR are allowed); krm.limits looks for
# them too, before parsing.
CONTROLS = bytes(range(0x00, 0x09)) + b"\x0b\x0c" + bytes(range(0x0e, 0x20)) + b"\x7f"
CONTROL = re.compile(b"[" + re.escape(CONTROLS) + b"]")
_SAMPLE = 512  # bytes looked at to tell UTF-16 or UTF-32 text from binary data


def first_bad_byte(data: bytes, step: int = 1 << 20) -> int | None:
    """Where the first byte that is not UTF-8 is, or None. Decoded a MiB at a time: a decoded
    copy of the whole input would stay in the process's memory after it is freed."""
    if data.isascii():
        return None
    view, pos = memoryview(data), 0
    step = max(step, 4)  # at least one whole character (or an error) in every step
    while pos < len(data):
        try:
            _, used = codecs.utf_8_decode(view[pos:pos + step], "strict", pos + step >= len(data))
        except UnicodeDecodeError as exc:
            return pos + exc.start
        pos += used  # a character cut at the step's end is decoded with the next step
    return None


def check_utf8(data: bytes) -> None:
    """Raise InputError naming the line and column of the first byte that is not UTF-8."""
    bad = first_bad_byte(data)
    if bad is not None:
        line = data.count(b"\n", 0, bad) + 1
        col = bad - data.rfind(b"\n", 0, bad)
        raise InputError(f"the input is not UTF-8: line {line}, column {col} holds the byte 0x{data[bad]:02x}; "
                         "save it as UTF-8 (krmfn reads UTF-8 only)")


def wide_encoding(data: bytes) -> str | None:
    """"UTF-16" or "UTF-32" when ``data`` (with zero bytes in it) reads as such text without a
    byte order mark: mostly text, the zero bytes in the same places of every character. Else None:
    zero bytes anywhere else are binary data, and a message must not call them UTF-16."""
    sample = data[:_SAMPLE]
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        columns = [sample[r::width] for r in range(width)]
        if min(len(c) for c in columns) < 4:
            continue
        zeros = [c.count(0) / len(c) for c in columns]
        text = [r for r, z in enumerate(zeros) if z <= 0.1]
        if len(text) == 1 and all(z >= 0.9 for r, z in enumerate(zeros) if r != text[0]):
            return name
    return None


def not_text(data: bytes) -> str | None:
    """What ``data`` is, in a few words, when it is not UTF-8 text that YAML allows; None when it is.
    For a directory walk, which leaves such files out and says what each one is."""
    for bom, name in BOMS:
        if data.startswith(bom):
            return f"{name} text"
    if b"\x00" in data:
        wide = wide_encoding(data)
        return f"{wide} text without a byte order mark" if wide else "binary data (it holds zero bytes)"
    bad = first_bad_byte(data)
    if bad is not None:
        line = data.count(b"\n", 0, bad) + 1
        return f"not UTF-8 text (line {line} holds the byte 0x{data[bad]:02x})"
    control = CONTROL.search(data)
    if control is not None:
        line = data.count(b"\n", 0, control.start()) + 1
        return f"not YAML text (line {line} holds the control character U+{data[control.start()]:04X})"
    return None


def as_lf_utf8(data: bytes) -> bytes:
    """The input without a byte order mark (allowed by YAML, and dropped) and with CRLF or lone
    CR line breaks as LF (one form for every span and edit); raises InputError where it is not UTF-8."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    check_utf8(data)
    return data


class TextForm:
    """A byte order mark and CRLF line breaks, taken off before reading and put back on the output.

    Why: an item krmfn does not change leaves byte for byte as it came, and YAML reads CRLF and LF
    alike. The rule: a BOM is put back; CRLF is put back when every line break of the input was
    CRLF (mixed or lone CR line breaks come out as LF). A plain class: a dataclass costs start-up time.
    """

    __slots__ = ("bom", "crlf")

    def __init__(self, bom: bool = False, crlf: bool = False):
        self.bom = bom
        self.crlf = crlf

    @classmethod
    def of(cls, data: bytes) -> TextForm:
        if b"\r" not in data:
            return cls(data.startswith(BOM), False)
        crlf = data.count(b"\r\n")
        return cls(data.startswith(BOM), crlf == data.count(b"\n") == data.count(b"\r"))

    def plain(self, pieces: list[bytes]) -> Iterator[bytes]:
        """What :meth:`restore` gave, back in its LF, BOM-less form, piece by piece as asked (a
        CRLF never spans two pieces: each piece's line breaks were restored in it)."""
        for n, piece in enumerate(pieces):
            if n == 0 and self.bom and piece.startswith(BOM):
                piece = piece[len(BOM):]
            yield piece.replace(b"\r\n", b"\n") if self.crlf else piece

    def restore(self, pieces: list[bytes]) -> list[bytes]:
        """Output pieces (LF, no BOM) in the input's form."""
        if self.crlf:
            pieces = [p.replace(b"\n", b"\r\n") for p in pieces]
        return [BOM, *pieces] if self.bom and pieces else pieces
