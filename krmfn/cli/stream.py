"""Plain multi-document YAML streams (Helm, kustomize exec plugins, files) through the function.

Why a wrapper and not a second engine: every plain-stream mode puts its documents into one
ResourceList, runs :func:`krmfn.core.function.run_resource_list` on it, and takes the items back
out, so these modes behave exactly as the KRM function does.

Why split by lines and not by parsing: the core returns an untouched item byte for byte, so a
document that the function does not change comes back byte for byte too, comments and all;
comments and separators *between* documents (Helm's ``# Source:`` lines) are kept outside the
items and survive even for documents the function edits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from krmfn.core.function import Outcome, run_resource_list
from krmfn.krm.limits import Limits, check_input
from krmfn.results import KrmfnError, Result, has_errors
from krmfn.yaml.encoding import BOM as _BOM
from krmfn.yaml.encoding import check_utf8
from krmfn.yaml.split import Origin, cut
from krmfn.yaml.tree import Doc

# A document separator or end marker, with nothing but an optional comment after it.
MARKER = re.compile(rb"(?:---|\.\.\.)(?:[ \t]+#.*)?[ \t]*")
# A separator followed by content on the same line (``--- !tag``, ``--- {a: 1}``).
_NULL_DOCUMENT_MAX = 256  # bytes: a null document with its comments
_INLINE_START = re.compile(rb"---[ \t]+(?=[^ \t#\r\n])")
# Every line break libyaml (YAML 1.1) reads, as go-yaml writes them: after a raw U+2028 inside a
# block scalar, go-yaml indents the rest of the value, so the indent after it counts as a line's.
_BREAK = re.compile(rb"(\r\n|\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9])")


def _yaml_lines(text: bytes) -> list[bytes]:
    """``text`` cut after each line break as libyaml reads them (``\\n``, ``\\r``, NEL, U+2028, U+2029)."""
    parts = _BREAK.split(text)  # line, break, line, break, ..., the rest
    lines = [line + brk for line, brk in zip(parts[0::2], parts[1::2], strict=False)]
    return [*lines, parts[-1]] if parts[-1] else lines


def _is_gap_line(line: bytes) -> bool:
    """A line that is never part of a document's content: blank, a comment, a marker, a directive."""
    bare = line.rstrip(b"\r\n")
    stripped = bare.lstrip(b" \t")
    return (not stripped or stripped.startswith(b"#") or bool(MARKER.fullmatch(bare))
            or bare.startswith(b"%"))


@dataclass
class Stream:
    """A YAML stream as ``gaps[0] body[0] gaps[1] body[1] ... gaps[n]``.

    ``gaps`` hold separators, directives, comments and blank lines between documents;
    ``bodies`` the documents' own text. ``"".join`` of the two, interleaved, is the input.
    """

    gaps: list[bytes]
    bodies: list[bytes]

    def join(self, bodies: list[bytes] | None = None) -> bytes:
        bodies = self.bodies if bodies is None else bodies
        out = [self.gaps[0]]
        for i, body in enumerate(bodies):
            gap = self.gaps[i]
            if body != self.bodies[i] and _INLINE_START.search(gap.rsplit(b"\n", 1)[-1]):
                # ``--- {a: 1}`` edited: the new body starts on a line of its own.
                out[-1] = out[-1].rstrip(b" \t") + b"\n"
            out += [body, self.gaps[i + 1]]
        return b"".join(out)


def split(data: bytes) -> Stream:
    """Cut a stream into gaps and document bodies, by lines.

    A document's trailing comments at column 0 (and what follows them) go into the next gap;
    trailing blank lines before them stay in the body (a ``|+`` block scalar keeps them).
    """
    lines = data.splitlines(keepends=True)
    gaps: list[bytes] = []
    bodies: list[bytes] = []
    gap: list[bytes] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        inline = _INLINE_START.match(line)
        if inline:  # content after "--- " on the marker line: the body starts there
            gap.append(line[:inline.end()])
            lines[i] = line[inline.end():]
        elif _is_gap_line(line):
            gap.append(line)
            i += 1
            continue
        # A body: up to the next column-0 separator (or end marker).
        j = i + 1
        while j < len(lines) and not starts_document(lines[j]):
            j += 1
        body = lines[i:j]
        end = len(body)
        while end > 1 and _is_gap_line(body[end - 1]):
            end -= 1
        # Of the trailing gap lines, comments at column 0 (and everything after the first one)
        # leave the body; blank lines before the first such comment stay in it.
        cut = len(body)
        for k in range(end, len(body)):
            if body[k].startswith(b"#"):
                cut = k
                break
        gaps.append(b"".join(gap))
        bodies.append(b"".join(body[:cut]))
        gap = list(body[cut:])
        i = j
    gaps.append(b"".join(gap))
    return Stream(gaps, bodies)


def starts_document(line: bytes) -> bool:
    return line.startswith((b"---", b"...")) and (bool(MARKER.fullmatch(line.rstrip(b"\r\n")))
                                                   or bool(_INLINE_START.match(line)))


def wrap_item(body: bytes) -> bytes:
    """A document's text as a ResourceList item: ``- `` before its first line, two spaces before
    every other non-empty line, so that its meaning (block scalars included) is unchanged."""
    lines = _yaml_lines(body)
    if not lines:
        return b""
    out = [b"- " + lines[0]]
    out += [b"  " + line if line not in (b"\n", b"\r\n") else line for line in lines[1:]]
    text = b"".join(out)
    return text if text.endswith(b"\n") else text + b"\n"


def unwrap_item(item: bytes, indent: int) -> bytes:
    """The inverse of :func:`wrap_item`, for an item whose ``- `` is at column ``indent``."""
    lines = _yaml_lines(item)
    width = indent + 2
    pad = b" " * width
    out = [lines[0][width:]]
    for line in lines[1:]:
        if line.startswith(pad):
            out.append(line[width:])
        elif not line.strip():
            out.append(line.lstrip(b" \t"))  # a blank line inside the item
        else:
            out.append(line)
    return b"".join(out)


def resource_list(items: list[bytes], function_config: dict[str, object] | None) -> bytes:
    """A block-style ResourceList around ``items``; the config as one JSON line (JSON is YAML)."""
    out = [b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"]
    if function_config is not None:
        out.append(b"functionConfig: " + json.dumps(function_config, ensure_ascii=True).encode() + b"\n")
    out.append(b"items:\n" if items else b"items: []\n")
    out += items
    return b"".join(out)


@dataclass
class StreamOutcome:
    """What a stream run prints: the transformed stream and the results."""

    stdout: bytes
    results: list[Result]

    @property
    def failed(self) -> bool:
        return has_errors(self.results)


def body_origins(text: bytes, stream: Stream) -> list[Origin]:
    """Where each document of ``stream`` (split from ``text``) starts in ``text``, as an origin for
    its wrapped item: the item's columns are two more than the document's (``- `` and indentation)."""
    out, pos, line, counted = [], 0, 1, 0
    for gap, body in zip(stream.gaps, stream.bodies):
        pos += len(gap)
        line += text.count(b"\n", counted, pos)  # counted once over the text, not from the top each time
        counted = pos
        line_start = text.rfind(b"\n", 0, pos) + 1
        out.append(Origin(line, pos - line_start - 2, -2))
        pos += len(body)
    return out


def run_documents(bodies: list[bytes], function_config: dict[str, object] | None, limits: Limits,
                  where: list[str] | None = None, origins: list[Origin] | None = None,
                  labels: Mapping[str, str] | None = None) -> tuple[list[bytes] | None, list[Result]]:
    """Run the function over documents: their new text (None after an error), and the results.

    ``where`` names each document in messages (default: ``document N``); ``origins``: where each
    starts in the user's text (:func:`body_origins`), for a message's line and column.
    """
    names = where or [f"document {i + 1}" for i in range(len(bodies))]
    nulls = [is_null_document(b) for b in bodies]
    if any(nulls):  # Helm's toYaml of an unset value: not an object, passed through untouched
        kept = [i for i, null in enumerate(nulls) if not null]
        new, results = run_documents([bodies[i] for i in kept], function_config, limits, [names[i] for i in kept],
                                     None if origins is None else [origins[i] for i in kept], labels)
        if new is None:
            return None, results
        out = list(bodies)
        for i, body in zip(kept, new):
            out[i] = body
        return out + new[len(kept):], results
    wrapped = resource_list([wrap_item(b) for b in bodies], function_config)
    # The limit applies to the input as the user gave it; the wrapper's own bytes do not count.
    outcome: Outcome = run_resource_list(wrapped, replace(limits, max_input_bytes=max(limits.max_input_bytes,
                                                                                      len(wrapped))), names,
                                         origins, labels)
    results = outcome.results
    if outcome.failed:
        return None, results
    new = _documents(outcome.stdout, bodies, wrapped)
    if len(new) != len(bodies):
        return None, results + [Result(f"the function returned {len(new)} items for {len(bodies)} documents "
                                       "(please report this)", "error")]
    return new, results


def is_null_document(body: bytes) -> bool:
    """A document that reads as null (``null``, ``~``, ``!!null``): short, so parsing it twice is cheap."""
    if len(body) > _NULL_DOCUMENT_MAX:
        return False
    try:
        doc = Doc.parse(body)
    except KrmfnError:
        return False
    docs = doc.all_documents()
    return len(docs) == 1 and doc.is_null(docs[0])


def _documents(output: bytes, bodies: list[bytes], wrapped: bytes) -> list[bytes]:
    """Each output item as a document; a document the function left alone comes back as it was."""
    items = cut(output).items
    return [body if item == wrap_item(body) else unwrap_item(item, len(item) - len(item.lstrip(b" ")))
            for item, body in zip(items, bodies)] + [unwrap_item(i, 0) for i in items[len(bodies):]]


def run_stream(data: bytes, function_config: dict[str, object] | None, limits: Limits = Limits(),
               labels: Mapping[str, str] | None = None) -> StreamOutcome:
    """A multi-document stream in, the same stream with the function applied out."""
    problem = check_text(data, limits)
    if problem is not None:
        return StreamOutcome(b"", [problem])
    form = TextForm.of(data)
    plain = form.plain(data)
    stream = split(plain)
    problem = check_directives(plain, stream)
    if problem is not None:
        return StreamOutcome(b"", [problem])
    bodies, results = run_documents(stream.bodies, function_config, limits, origins=body_origins(plain, stream),
                                    labels=labels)
    if bodies is None:
        return StreamOutcome(b"", results)
    return StreamOutcome(form.restore(stream.join(bodies)), results)


@dataclass(frozen=True)
class TextForm:
    """A byte-order mark and CRLF line ends, taken off before the run and put back after, so that
    a Windows-edited file comes back in its own form (YAML reads both forms the same)."""

    bom: bool
    crlf: bool

    @classmethod
    def of(cls, data: bytes) -> TextForm:
        lf = data.count(b"\n")
        return cls(data.startswith(_BOM), lf > 0 and data.count(b"\r\n") == lf)

    def plain(self, data: bytes) -> bytes:
        data = data[len(_BOM):] if self.bom else data
        return data.replace(b"\r\n", b"\n") if self.crlf else data

    def restore(self, data: bytes) -> bytes:
        data = data.replace(b"\n", b"\r\n") if self.crlf else data
        return _BOM + data if self.bom else data


def check_directives(text: bytes, stream: Stream) -> Result | None:
    """A stream's directives, which krmfn keeps in the gaps and does not pass to each document:
    valid where the whole stream parses (two ``%YAML`` in one document, a directive without its
    ``---``, are errors), and no ``%TAG``, whose handles would read differently apart."""
    lines = [line for gap in stream.gaps for line in gap.splitlines() if line.startswith(b"%")]
    if not lines:
        return None
    try:
        Doc.parse(text)
    except KrmfnError as exc:
        return exc.results[0]
    if any(not line.startswith(b"%YAML") for line in lines):
        return Result("a %TAG or reserved directive: krmfn reads each document of a stream apart from "
                      "the stream's directives, so its tags would read differently; resolve the tags "
                      "in the documents", "error")
    return None


def check_text(data: bytes, limits: Limits) -> Result | None:
    """The input limits and UTF-8, checked on the input as given, so that a message's line and
    column are the user's (the core checks the wrapped text again)."""
    try:
        check_input(data, limits)
        check_utf8(data)
    except KrmfnError as exc:
        return exc.results[0]
    return None
