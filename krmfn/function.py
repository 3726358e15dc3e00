"""The function itself, as a pure transformation: ResourceList bytes in, Outcome out.

No I/O here: the shell (cli.py) reads stdin and writes stdout and stderr.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from .config import read_config
from .envelope import FunctionError, Result, has_errors, read_resource_list, render
from .limits import Limits, check_input, check_parsed, yaml_error
from .parallel import scan_items
from .rewrite import plan, reference_table, write
from .yamldoc import YamlError


@dataclass
class Outcome:
    """What a run prints and returns: the shell only writes these out."""

    pieces: list[bytes]  # written one after the other: no second copy of a large output
    results: list[Result]
    exit_code: int

    @property
    def stdout(self) -> bytes:
        return b"".join(self.pieces)

    @property
    def text(self) -> str:
        return self.stdout.decode()


def _not_utf8(data: bytes, step: int = 1 << 20) -> int | None:
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


def run_resource_list(data: bytes, limits: Limits = Limits()) -> Outcome:
    """ResourceList in, ResourceList out.

    On an error found while reading or planning, the items go back exactly as read, with
    error results: nothing is written until every check has passed.
    """
    try:
        prescan = check_input(data, limits)
    except FunctionError as exc:
        return Outcome([], exc.results, 1)
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark: allowed by YAML, and dropped
        data = data[3:]
    if b"\r" in data:  # CRLF or a lone CR: line breaks to YAML, which rapidyaml reads only as LF
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    bad = _not_utf8(data)
    if bad is not None:
        line = data.count(b"\n", 0, bad) + 1
        col = bad - data.rfind(b"\n", 0, bad)
        return Outcome([], [Result(f"the input is not UTF-8: line {line}, column {col} holds the byte "
                                   f"0x{data[bad]:02x}; save it as UTF-8 (krmfn reads UTF-8 only)", "error")], 1)
    try:
        rl = read_resource_list(data)
    except YamlError as exc:
        return Outcome([], yaml_error(exc, data, prescan, limits), 1)
    except FunctionError as exc:
        return Outcome([], exc.results, 1)
    try:
        check_parsed(rl, prescan, limits)
        config = read_config(rl.envelope, rl.function_config)
        scanned = scan_items(rl, config, reference_table(config), len(data))
        p = plan(scanned, config)
        items, results = write(scanned, p, config, rl.layout.indent), p.results
    except FunctionError as exc:
        items, results = rl.sources, exc.results
    return Outcome(render(rl, items, results), results, 1 if has_errors(results) else 0)
