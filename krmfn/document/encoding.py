"""The input's text encoding: UTF-8 only, checked once, with a BOM and CR line ends taken off.

Why here, once: every mode (ResourceList, streams, files) must refuse the same bytes with the
same message, and spans, edits and the check after them work on one form of line break.
"""

from __future__ import annotations

import codecs

from krmfn.results import InputError

BOM = b"\xef\xbb\xbf"


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

    def restore(self, pieces: list[bytes]) -> list[bytes]:
        """Output pieces (LF, no BOM) in the input's form."""
        if self.crlf:
            pieces = [p.replace(b"\n", b"\r\n") for p in pieces]
        return [BOM, *pieces] if self.bom and pieces else pieces
