"""Limits on what the function will read, so hostile input fails fast with a clear message.

Why each limit exists (measured with libyaml through PyYAML; docs/limits.md has the figures):

- every node costs about 250 bytes in krmfn's tree (2 MB of ``[a,a,a,...]``, a million
  nodes, took 251 bytes each): 32 MiB of such a list would take
  about 4 GB. Hence the size limit and a node estimate, both checked before anything is
  parsed (libyaml itself refuses nesting deeper than 1,000 levels);
- ``config.to_data`` recurses in Python. Hence the depth limit, 64 levels counted from the
  top of the ResourceList (an item is at level 2, its ``metadata.name`` at level 4);
- krmfn follows aliases when it looks for references and reads the functionConfig, so a
  "billion laughs" alias bomb would make it walk billions of nodes (and a recursive alias,
  ``&a [*a]``, forever). Hence a bound on the nodes aliases add when expanded.

Two steps, both cheap for ordinary input:

1. :func:`check_input`, before parsing: size, encoding, control characters, the node
   estimate, and upper bounds for depth and aliases from the bytes alone (about 10 ms for the
   7.7 MB benchmark list, under 1% of its run);
2. :func:`check_parsed`, once the envelope is read: the exact depth and alias expansion of
   the functionConfig, and of each item the first step could not clear (parsed once more).

Each message says which limit was hit, where, and what to do.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from krmfn.krm.envelope import ResourceList, hint
from krmfn.results import InputError, KrmfnError, ResourceRef, Result, in_source
from krmfn.yaml.encoding import BOMS, CONTROL, CONTROLS, TextForm, as_lf_utf8, first_bad_byte, wide_encoding
from krmfn.yaml.measure import alias_growth, too_deep
from krmfn.yaml.tree import Doc, Node, YamlError, parse_item

MIB = 1 << 20
# The node limit is one node per this many bytes of the size limit: Kubernetes YAML runs at
# about one node per 20 to 30 bytes (the 5,000-item benchmark: one per 26).
BYTES_PER_NODE = 16
# Far deeper than any Kubernetes object (the deepest CRD schemas nest about 30 levels), and
# shallow enough for the recursion in ``config.to_data``.
DEFAULT_MAX_DEPTH = 64


@dataclass(frozen=True)
class Limits:
    """What the function accepts. ``max_input_bytes`` first: callers build ``Limits(size)``."""

    max_input_bytes: int = 32 * MIB
    max_depth: int = DEFAULT_MAX_DEPTH  # levels, counted from the top of the ResourceList
    max_alias_nodes: int = 100_000  # nodes that aliases add, expanded, over the whole input
    max_nodes: int | None = None  # estimated YAML nodes; None: max_input_bytes // BYTES_PER_NODE

    @property
    def node_limit(self) -> int:
        return self.max_nodes if self.max_nodes is not None else self.max_input_bytes // BYTES_PER_NODE


@dataclass(frozen=True, repr=False, eq=False)
class Prescan:
    """What :func:`check_input` could not clear from the bytes alone."""

    deep: bool = False  # some text may nest deeper than the limit
    anchors: bool = False  # some text may define an anchor, so aliases may expand


def _mib(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n % MIB else f"{n // MIB} MiB"


# --- before parsing -------------------------------------------------------------------------

_NODE_CHARS = b"\n,[{-?"  # each node of a YAML text needs at least one of these before it
_FLOW_CHARS = b"[{]}"
_KEEP = _NODE_CHARS + b"]}&" + CONTROLS  # and the control characters YAML does not allow
_DELETE_ALL_BUT_KEEP = bytes(c for c in range(256) if c not in _KEEP)
_ONLY_NODES = bytes(c for c in _KEEP if c not in _NODE_CHARS)
_ONLY_CONTROLS = _NODE_CHARS + b"]}&"
_ONLY_FLOW = bytes(c for c in _KEEP if c not in _FLOW_CHARS)
_FLOW_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 / -1 as signed bytes
# Block indicators on one line (``- - - a``) nest without indentation. A run this long is looked
# for (a long needle is fast to find; ``? `` cannot nest, as krmfn refuses container keys).
COMPACT_RUN = 16
_COMPACT_NEEDLE = b"- " * COMPACT_RUN


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _flow_bound(kept: bytes) -> int:
    """An upper bound on how deep ``[`` and ``{`` nest (brackets in strings count too)."""
    flow = kept.translate(None, _ONLY_FLOW)
    if not flow:
        return 0
    steps = memoryview(flow.translate(_FLOW_STEPS)).cast("b")
    return max(itertools.accumulate(steps)) - min(0, min(itertools.accumulate(steps)))


def _may_nest(text: bytes, flow: int, limit: int) -> bool:
    """Whether ``text`` may nest deeper than ``limit`` levels.

    A block node's depth is at most its column plus one (each level indents by at least a
    column, or by two for ``- ``), and the column of a line's content is its indentation plus
    its run of compact indicators (``- - - a``); flow brackets add their own depth. So a text
    with no line indented ``room`` columns, no run of COMPACT_RUN indicators and flow depth
    ``flow`` cannot be too deep. Block scalars and brackets in strings only make the bound
    looser: a text that fails it is checked exactly after parsing. (Runs of ``- `` with wider
    spacing, or brackets in strings that close what they did not open, can slip through.)
    """
    room = limit - flow - 2 * (COMPACT_RUN - 1)
    if room <= 1:
        return True
    return text.find(b"\n" + b" " * room) >= 0 or text.find(_COMPACT_NEEDLE) >= 0


def _not_text(data: bytes, zero: int) -> None:
    """Say what input with zero bytes is: UTF-16 or UTF-32 text without a byte order mark (to
    convert), or binary data, which no conversion makes a manifest and no message calls text."""
    wide = wide_encoding(data)
    if wide is not None:
        name = wide + ("BE" if data[0] == 0 else "LE")
        zeros = "every other byte is" if wide == "UTF-16" else "three bytes in four are"
        raise InputError(f"the input looks like {name} text without a byte order mark ({zeros} zero); krmfn reads "
                         f"UTF-8: convert it first, e.g. iconv -f {name} -t UTF-8")
    line, col = _line_col(data, zero)
    raise InputError(f"the input is binary data, not text: it holds a zero byte at line {line}, column {col}; "
                     "krmfn reads YAML manifests in UTF-8")


def check_input(data: bytes, limits: Limits) -> Prescan:
    """Refuse input over a limit before parsing any of it; say what the bytes cannot clear."""
    if len(data) > limits.max_input_bytes:
        # Readers stop one byte over the limit: then the size itself is not known.
        size = "over the limit" if len(data) == limits.max_input_bytes + 1 else f"{_mib(len(data))}, over the limit"
        raise InputError(f"the input is {size} of {_mib(limits.max_input_bytes)}; "
                     "if this is expected, raise the limit with --max-input-size")
    for bom, name in BOMS:
        if data.startswith(bom):
            raise InputError(f"the input is {name} text (it starts with a {name} byte order mark); krmfn reads "
                         f"UTF-8: convert it first, e.g. iconv -f {name} -t UTF-8")
    kept = data.translate(None, _DELETE_ALL_BUT_KEEP)
    if kept.translate(None, _ONLY_CONTROLS):
        offset = CONTROL.search(data).start()  # type: ignore[union-attr]
        zero = data.find(b"\x00")
        # Text has no zero bytes: wide text, or not text at all. One stray NUL in UTF-8 text is a
        # control character like the others (to remove, or escape).
        if zero >= 0 and (data.find(b"\x00", zero + 1) >= 0 or first_bad_byte(data) is not None):
            _not_text(data, zero)
        line, col = _line_col(data, offset)
        raise InputError(f"the input holds the control character U+{data[offset]:04X} at line {line}, column {col}, "
                     "which YAML does not allow; remove it, or write it escaped in a double-quoted string "
                     f'("\\x{data[offset]:02x}")')
    nodes = len(kept.translate(None, _ONLY_NODES))
    if nodes > limits.node_limit:
        raise InputError(f"the input holds about {nodes:,} YAML nodes in {_mib(len(data))}, over the limit of "
                     f"{limits.node_limit:,} (one per {BYTES_PER_NODE} bytes of the size limit); Kubernetes "
                     "manifests hold about one per 25 bytes, so this is deeply nested or very dense YAML. "
                     "If it is expected, raise --max-input-size, which raises this limit with it")
    deep = _may_nest(data, _flow_bound(kept), limits.max_depth)
    return Prescan(deep=deep, anchors=b"&" in kept)


# --- after parsing --------------------------------------------------------------------------

# An anchor (``&name``) where a node may start; an alias (``*name``) likewise.
_ANCHOR = re.compile(rb"(?:^|(?<=[\s\[{,:-]))&[^\s,\[\]{}]")
_ALIAS = re.compile(rb"(?:^|(?<=[\s\[{,:-]))\*")  # a bare ``*`` too, so the bound errs high


def check_inputs(texts: Sequence[bytes], names: Sequence[str | None], limits: Limits
                 ) -> list[tuple[Prescan, TextForm, bytes]]:
    """Several inputs read as one (files, streams): together under the size limit, then each
    checked (:func:`check_input`) and put in the form the reader takes (UTF-8, LF, no BOM), with
    the form it had, to give back on output. An error names its input (a file's path)."""
    if sum(len(t) for t in texts) > limits.max_input_bytes:  # all inputs are one input
        check_input(b"".join(texts), limits)
    out = []
    for text, name in zip(texts, names):
        try:
            out.append((check_input(text, limits), TextForm.of(text), as_lf_utf8(text)))
        except KrmfnError as exc:
            raise in_source(exc, name) from None
    return out


def _written(doc: Doc, node: Node | None) -> str | None:
    """A scalar's own text, an alias not followed: what the item writes where its name is."""
    return None if node is None or doc.is_alias(node) else doc.scalar(node)


def _identity(doc: Doc, node: Node, where: str) -> tuple[str, ResourceRef | None]:
    """How a message names an item: ``item 3 (ConfigMap/ns/name)`` and its ref, as far as readable."""
    kind = _written(doc, doc.get(node, "kind")) if doc.is_map(node) else None
    meta = doc.get(node, "metadata") if doc.is_map(node) else None
    name = _written(doc, doc.get(meta, "name")) if meta is not None else None
    if not kind or not name or meta is None:
        return where, None
    ref = ResourceRef(_written(doc, doc.get(node, "apiVersion")) or "", kind, name,
                      _written(doc, doc.get(meta, "namespace")) or "")
    return f"{ref}", ref


def _check_depth(doc: Doc, top: Node, top_level: int, limits: Limits, who: str, ref: ResourceRef | None) -> None:
    node = too_deep(doc, top, top_level, limits.max_depth)
    if node is None:
        return
    path = doc.path_of(node, top)
    raise InputError(f"{'it' if ref else who} nests deeper than {limits.max_depth} levels (counted from the top of the "
                 "ResourceList), more than krmfn reads; flatten it, or leave this object out of the "
                 "function's input (kpt: the pipeline's exclude selector)", ref, path or None)


def _check_aliases(doc: Doc, top: Node, budget: list[int], limits: Limits, who: str,
                   ref: ResourceRef | None) -> None:
    """Charge the tree's alias growth to ``budget`` (what is left of the limit, in a list)."""
    grown, bad = alias_growth(doc)
    if bad is not None:
        node, why = bad
        path = doc.path_of(node, top)
        where = "" if ref else f"{who}: "
        raise InputError(f"{where}{why}; define the anchor before it, in the same item "
                         "(krmfn reads items one at a time)", ref, path or None)
    budget[0] -= grown
    if budget[0] < 0:
        where = "its" if ref else f"{who}'s"
        raise InputError(f"{where} aliases expand to {grown:,} more nodes, over the limit of "
                         f"{limits.max_alias_nodes:,} for the whole input (a \"billion laughs\" alias bomb looks "
                         "like this); expand them, or use fewer", ref)


def check_parsed(rl: ResourceList, prescan: Prescan, limits: Limits) -> None:
    """The exact checks the bytes could not clear: the functionConfig always, items when flagged."""
    budget = [limits.max_alias_nodes]
    if rl.function_config is not None:
        doc = rl.envelope
        _check_depth(doc, rl.function_config, 1, limits, "functionConfig", None)
        if doc.may_alias:
            _check_aliases(doc, rl.function_config, budget, limits, "functionConfig", None)
    if not (prescan.deep or prescan.anchors):
        return
    for index, source in enumerate(rl.sources):
        deep = prescan.deep and _may_nest(source, source.count(b"[") + source.count(b"{"), limits.max_depth)
        anchored = prescan.anchors and b"&" in source and bool(_ANCHOR.search(source)) and bool(_ALIAS.search(source))
        if not (deep or anchored):
            continue
        try:
            doc, node = parse_item(source)
        except YamlError:
            continue  # reading the item reports it, with its position
        who, ref = _identity(doc, node, rl.item_name(index))
        if deep:
            _check_depth(doc, node, 2, limits, who, ref)
        if anchored:
            _check_aliases(doc, node, budget, limits, who, ref)


# --- messages for input that does not parse -------------------------------------------------

def yaml_error(exc: YamlError, data: bytes, prescan: Prescan, limits: Limits) -> list[Result]:
    """What to say when the whole input does not parse (or cannot be written back)."""
    message = exc.message
    if exc.line:
        message += hint(data.split(b"\n", exc.line), exc.line)
    return [Result(f"the input is {message}", "error")]
