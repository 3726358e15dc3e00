"""The document model: a rapidyaml tree that re-emits untouched nodes in their own style.

Why rapidyaml: it parses and emits a 7 MB ResourceList in about 0.2 s and keeps every
scalar's style (plain, quoted, `|`/`>` blocks), flow collections, tags and anchors, where
PyYAML takes ~18 s and forgets styles. It drops comments; kpt restores those itself.

Two rapidyaml gaps are closed here, so that no caller has to know about them:
- its emitter writes double-quoted scalars without re-escaping control characters, NEL,
  U+2028/U+2029 or NUL (a NUL even ends the output early); such scalars are re-rendered
  by :func:`dquote` and emitted verbatim;
- it decodes ``\\uD83D\\uDE00`` surrogate pairs as two separate surrogates; :func:`_text`
  joins them.

Nodes are plain ``int`` ids into the tree; everything else is a method of :class:`Doc`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import ryml

from krmfn.document.native import NONE, buffer_address, view_address
from krmfn.document.native import VAL_DQUO as _VAL_DQUO
from krmfn.document.native import VAL_PLAIN as _VAL_PLAIN
from krmfn.document.native import VAL_SQUO as _VAL_SQUO
from krmfn.document.native import child_pos as _child_pos
from krmfn.document.native import find_child as _find_child
from krmfn.document.native import first_child as _first_child
from krmfn.document.native import has_key as _has_key
from krmfn.document.native import has_val as _has_val
from krmfn.document.native import has_val_anchor as _has_val_anchor
from krmfn.document.native import has_val_tag as _has_val_tag
from krmfn.document.native import is_block as _is_block
from krmfn.document.native import is_key_quoted as _is_key_quoted
from krmfn.document.native import is_key_ref as _is_key_ref
from krmfn.document.native import is_map as _is_map
from krmfn.document.native import is_seq as _is_seq
from krmfn.document.native import is_stream as _is_stream
from krmfn.document.native import is_val_plain as _is_val_plain
from krmfn.document.native import is_val_quoted as _is_val_quoted
from krmfn.document.native import is_val_ref as _is_val_ref
from krmfn.document.native import is_val_squo as _is_val_squo
from krmfn.document.native import key as _key
from krmfn.document.native import last_child as _last_child
from krmfn.document.native import next_sibling as _next_sibling
from krmfn.document.native import parent as _parent
from krmfn.document.native import rem_val_ref as _rem_val_ref
from krmfn.document.native import set_val as _set_val
from krmfn.document.native import set_val_style as _set_val_style
from krmfn.document.native import to_arena as _to_arena
from krmfn.document.native import val as _val
from krmfn.document.native import val_is_null as _val_is_null
from krmfn.document.native import val_tag as _val_tag
from krmfn.document.scalars import dquote, has_indentation_indicator, must_escape, non_string_plain, plain_safe
from krmfn.results import InputError

Text = str  # ``str`` itself inside Doc, whose method str() shadows it there

# An anchor (``&name``); the character before it is checked in Doc.parse (a URL's ``&`` is no anchor).
_ANCHOR = re.compile(rb"&[^\s,\[\]{}]")

# An explicit key in single quotes: it may span lines, and the emitter writes it as an implicit
# key, which may not (a multi-line key is re-rendered double-quoted, as escapes are).
_SQUOTED_EXPLICIT_KEY = re.compile(rb"\?\s+'")
# Escapes whose decoded character rapidyaml's emitter would write raw (see module doc).
_RISKY_ESCAPE = re.compile(rb'\\[0abefvxuUNLP]')


class YamlError(InputError):
    """Text that is not YAML rapidyaml can read, or a tree it cannot write.

    ``detail`` is the problem alone (``message`` adds the "not valid YAML" lead), so that a
    caller can place it (an item, a file) without taking the message apart; ``line`` and
    ``col`` are 1-based, 0 when unknown.
    """

    def __init__(self, detail: str, line: int = 0, col: int = 0, lead: str = "not valid YAML", problem: str = ""):
        super().__init__(f"{lead}: {detail}" if lead else detail)
        self.detail = detail
        self.line = line
        self.col = col
        self.problem = problem or detail  # the detail without its position

    def placed(self, place: Callable[[int, int], tuple[int, int]]) -> str:
        """The detail with its line and column moved (to the input's, from an item's own text)."""
        if not self.line:
            return self.detail
        line, col = place(self.line, self.col)
        return f"{self.problem} at line {line}, column {col}"


class Unreadable(YamlError):
    """Valid YAML that rapidyaml would read wrongly (a misread document.mend cannot mend): refused."""

    def __init__(self, problem: str, line: int = 0, col: int = 0):
        detail = f"{problem} at line {line}, column {col}" if line else problem
        super().__init__(detail, line, col, lead="krmfn cannot read it", problem=problem)


class NotWritable(YamlError):
    """A tree rapidyaml's emitter refuses: it nests deeper than the emitter writes."""

    def __init__(self, detail: str):
        super().__init__(detail, lead="not writable")


# A tag: ``!`` starting a token. rapidyaml 0.15.2 crashes (SIGSEGV) on a family of texts where
# several tags pile up on one node (``!\n!\n! !``; ``!t`` ending one line and ``!t !t !t`` the
# next; tags between anchors and ``[``), which is never valid YAML. Manifests almost never hold
# two tags, so a text that does is parsed first in a child process, and refused if that dies.
_TAG = re.compile(rb"(?:^|(?<=[\s\[\]{},?:-]))!")


def _crashes_the_parser(data: bytes | bytearray) -> bool:
    """Whether rapidyaml dies parsing ``data``, asked of a forked child so that krmfn survives."""
    # Here, for start-up time: only a rare text needs them.
    import faulthandler
    import os
    import signal

    pid = os.fork()
    if pid == 0:  # the child: parse, and say nothing but how it ended
        try:
            faulthandler.disable()  # a crash is the expected answer here, not a report
            signal.signal(signal.SIGSEGV, signal.SIG_DFL)  # nor a fuzzer's (atheris installs its own)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            ryml.parse_in_arena(bytes(data), ryml.Tree())
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0  # the child ends with 0 when it parsed


def _parse(data: bytes | bytearray) -> ryml.Tree:
    """Parse into a tree sized up front.

    A ``bytearray`` is parsed in place: the tree borrows it (no second copy of the input) and
    rewrites escaped scalars inside it. ``bytes`` are copied into the tree. rapidyaml prints
    its own message on stderr before raising; the CLI runs inside :func:`quiet_stderr`.
    """
    if data.find(b"!") >= 0:
        first = _TAG.search(data)
        if first is not None and _TAG.search(data, first.end()) is not None and _crashes_the_parser(data):
            line = data.count(b"\n", 0, first.start()) + 1
            raise YamlError(f"tags rapidyaml, krmfn's YAML reader, cannot parse (it crashes on them), from line "
                            f"{line}: a node has one tag", line, problem="tags rapidyaml cannot parse")
    tree = ryml.Tree()
    # Reserve the node count up front, with room for what krmfn adds (metadata and results,
    # estimated from how often ConfigMaps are named): any later growth copies the whole array.
    if len(data) > 1 << 16:  # small trees grow cheaply
        lines, named = data.count(b"\n"), data.count(b"ConfigMap")
        tree.reserve(int(lines * 1.3) + 24 * named + 64)
    try:
        if isinstance(data, bytearray):
            return ryml.parse_in_place(data, tree)
        return ryml.parse_in_arena(data, tree)
    except ryml.ExceptionParse as exc:
        loc = exc.errdata_parse.ymlloc
        if "containers as keys" in exc.msg:  # valid YAML rapidyaml's trees cannot hold
            raise Unreadable("a map or list used as a key, which krmfn's YAML reader cannot hold; write the key as "
                             "text", loc.line, loc.col) from None
        raise YamlError(f"{exc.msg} at line {loc.line}, column {loc.col}",
                        loc.line, loc.col, problem=exc.msg) from None
    except (ryml.ExceptionBasic, ryml.ExceptionVisit) as exc:
        raise YamlError(exc.msg) from None


def _has_alias(tree: ryml.Tree) -> bool:
    """Whether any key or value of the tree is an alias (``*name``)."""
    t = tree.this
    return any(_is_val_ref(t, n) or _is_key_ref(t, n) for n in range(tree.size()))


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a byte offset."""
    return data.count(b"\n", 0, offset) + 1, offset - data.rfind(b"\n", 0, offset)


def _text(raw: memoryview | None) -> str:
    try:
        return str(raw, "utf-8")  # type: ignore[arg-type]  # None raises: cheaper than a test first
    except TypeError:  # None: a key or value with no text at all (``name:``, ``: x``)
        return ""
    except UnicodeDecodeError:
        # Surrogates decoded one by one ("CESU-8"): rejoin the pairs.
        loose = bytes(raw).decode("utf-8", "surrogatepass")  # type: ignore[arg-type]
        return loose.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass(repr=False, eq=False)
class Doc:
    """One parsed YAML stream and the edits made to it."""

    tree: ryml.Tree
    # The buffer a bytearray input was parsed in place from (the tree points into it), and its address.
    source: bytes | bytearray | None = field(default=None, repr=False)
    _base: int | None = field(default=None, repr=False)
    _anchors: dict[str, list[tuple[int, bool]]] | None = field(default=None, repr=False)
    # Scalars re-rendered by _protect_escapes: node id -> the text they really hold.
    _verbatim: dict[int, str] = field(default_factory=dict, repr=False)
    _verbatim_keys: dict[int, str] = field(default_factory=dict, repr=False)
    # False when the input defines no anchor, so no alias can need resolving.
    may_alias: bool = True
    # Spaces document.lenient added before parsing, (offset in the parsed text, count): offsets
    # given out are moved back to the text as written.
    shifts: list[tuple[int, int]] | None = field(default=None, repr=False)
    raw: object = field(init=False, repr=False)  # the tree's SWIG object: see the note on _c above

    def __post_init__(self) -> None:
        self.raw = self.tree.this

    @classmethod
    def parse(cls, data: bytes | bytearray) -> Doc:
        """Parse a YAML stream; a ``bytearray`` is consumed (parsed in place, see _parse).

        Scalars rapidyaml misreads are read again from their source (document.mend), and a
        misread it cannot mend raises YamlError with its line and column.
        """
        if data[:3] == b"\xef\xbb\xbf":  # a BOM is no content, and rapidyaml misreads the block lists after one
            data = data[3:]
        # Each pattern only where its first character occurs at all (a byte search is far cheaper).
        # ``find``, not ``in``: ``bytes in bytes`` first tries the operand as an integer, and
        # formats the TypeError it then drops (a few thousand instructions a test, per item).
        find = data.find
        backslash = find(b"\\") >= 0
        risky = (backslash and bool(_RISKY_ESCAPE.search(data))) or \
            (find(b"?") >= 0 and bool(_SQUOTED_EXPLICIT_KEY.search(data)))
        may_alias = find(b"&") >= 0 and any(m.start() == 0 or data[m.start() - 1] in b" \t\n\r[{,:-"
                                            for m in _ANCHOR.finditer(data))
        found = None
        if backslash or find(b"\t") >= 0 or ((find(b"|") >= 0 or find(b">") >= 0) and has_indentation_indicator(data)):
            from krmfn.document import mend  # here, for start-up time: only such texts can be misread

            found = mend.flags(data) or None
        source = parsed = b""
        if found:  # mending needs the source as written and a tree parsed in place
            source = bytes(data)
            data = mend.for_parsing(source)
            parsed = bytes(data)
        tree = _parse(data)
        if may_alias:  # an ``&`` in a script or a quoted string is no anchor: ask the tree
            may_alias = _has_alias(tree)
        doc = cls(tree, data if isinstance(data, bytearray) else None, may_alias=may_alias)
        if found:
            assert isinstance(data, bytearray)
            try:
                fixes = mend.fixes(tree, data, parsed, source, found)
            except mend.Misread as exc:
                line, col = _line_col(source, exc.offset)
                raise Unreadable(str(exc), line, col) from None
            for node, is_key, text in fixes:
                doc._set_verbatim(node, is_key, text)
        if risky:
            doc._protect_escapes()
        return doc

    def emit(self) -> bytes | memoryview:
        """The whole stream as YAML, emitted into one buffer (no intermediate str)."""
        t = self.tree
        if t.size() == 0 or t.type(t.root_id()) == ryml.NOTYPE:
            return b""
        try:
            buf = bytearray(ryml.compute_yaml_length(t))
        except ryml.ExceptionVisit:  # its emitter's depth limit (64 levels)
            raise NotWritable("it nests deeper than 64 levels, the most rapidyaml writes") from None
        return ryml.emit_yaml_in_place(t, buf)

    # --- navigation -------------------------------------------------------------------

    @property
    def root(self) -> int:
        return self.tree.root_id()

    def documents(self) -> list[int]:
        """The top-level documents: one id per ``---`` section (the root itself if single)."""
        t = self.tree
        if t.size() == 0:
            return []
        root = t.root_id()
        if t.is_stream(root):
            return list(self.children(root))
        return [] if t.type_has_none(root, ryml.MAP | ryml.SEQ | ryml.VAL) else [root]

    def get(self, node: int, key: str) -> int | None:
        """The child of map ``node`` under ``key``, or None."""
        t = self.raw
        if not _is_map(t, node):
            return None
        child = _find_child(t, node, key.encode())
        return None if child == NONE else child

    def path(self, node: int | None, *keys: str) -> int | None:
        """The node below ``node`` at ``keys`` (map keys), or None."""
        for key in keys:
            if node is None:
                return None
            node = self.get(node, key)
        return node

    def get_b(self, node: int, key: bytes) -> int | None:
        """:meth:`get` with the key already encoded, for hot loops."""
        t = self.raw
        if not _is_map(t, node):
            return None
        child = _find_child(t, node, key)
        return None if child == NONE else child

    def children(self, node: int) -> Iterator[int]:
        t = self.raw
        child = _first_child(t, node)
        while child != NONE:
            yield child
            child = _next_sibling(t, child)

    def items(self, node: int) -> Iterator[tuple[str, int]]:
        for child in self.children(node):
            yield self.key(child), child

    def first_child(self, node: int) -> int:
        return _first_child(self.raw, node)

    def last_child(self, node: int) -> int:
        return _last_child(self.raw, node)

    def next_sibling(self, node: int) -> int:
        return _next_sibling(self.raw, node)

    def has_key(self, node: int) -> bool:
        """Whether the node is a map entry (it has a key), not a list entry or a document."""
        return _has_key(self.raw, node)

    def is_key_quoted(self, node: int) -> bool:
        return _is_key_quoted(self.raw, node)

    def has_anchor(self, node: int) -> bool:
        """Whether the node's value carries an anchor (``&name``)."""
        return _has_val_anchor(self.raw, node)

    def is_stream(self, node: int) -> bool:
        return _is_stream(self.raw, node)

    def is_block(self, node: int) -> bool:
        """A map or list written in block style (not ``{...}`` or ``[...]``)."""
        return _is_block(self.raw, node)

    def is_plain(self, node: int) -> bool:
        """A scalar written without quotes (not a ``|``/``>`` block, not an alias)."""
        return _has_val(self.raw, node) and _is_val_plain(self.raw, node) and not _is_val_ref(self.raw, node)

    def is_map(self, node: int) -> bool:
        return _is_map(self.raw, node)

    def is_seq(self, node: int) -> bool:
        return _is_seq(self.raw, node)

    def offset(self, node: int) -> int | None:
        """Where a scalar's text starts in the bytearray this tree was parsed in place from.

        The text there is the scalar as written only when parsing left it alone (a plain or
        quoted one-liner without escapes); :func:`textedit.splice` checks that before using it.
        """
        t = self.raw
        if not _has_val(t, node) or (self._verbatim and node in self._verbatim):
            return None
        return self._offset_of(_val(t, node))

    def key_offset(self, node: int) -> int | None:
        """:meth:`offset` for a map entry's key."""
        t = self.raw
        if not _has_key(t, node) or node in self._verbatim_keys:
            return None
        return self._offset_of(_key(t, node))

    def _offset_of(self, text: memoryview | None) -> int | None:
        if self.source is None or text is None:  # not parsed in place; no text at all (``key:``)
            return None
        if self._base is None:
            self._base = buffer_address(self.source)
        offset = view_address(text) - self._base
        if self.shifts:
            offset -= sum(count for at, count in self.shifts if at <= offset)
        return offset

    def path_of(self, node: int, top: int) -> str:
        """The field path from ``top`` down to ``node`` as kpt prints it: ``spec.containers[0].name``."""
        t = self.raw
        steps = []
        while node != top and node != NONE:
            parent = _parent(t, node)
            if _is_seq(t, parent):
                steps.append(f"[{_child_pos(t, parent, node)}]")
            else:
                key = self.key(node)
                steps.append(f"[{key}]" if "." in key or "/" in key else f".{key}")
            node = parent
        return "".join(reversed(steps)).lstrip(".")

    def parent(self, node: int) -> int | None:
        p = _parent(self.raw, node)
        return None if p == NONE else p

    def is_scalar(self, node: int) -> bool:
        return _has_val(self.raw, node)

    def is_null(self, node: int) -> bool:
        t = self.raw
        return (_has_val(t, node) and _val_is_null(t, node) and not _is_val_quoted(t, node)
                and not _is_val_ref(t, node) and not _has_val_tag(t, node))

    def describe(self, node: int) -> str:
        """What kind of YAML value this is, for error messages."""
        t = self.tree
        if t.is_map(node):
            return "a map"
        if t.is_seq(node):
            return "a list"
        if self.is_null(node):
            return "null"
        return "a scalar"

    def anchor_index(self) -> dict[str, list[tuple[int, bool]]]:
        """Every anchor by name, in document order: ``(node, whether it anchors the node's key)``.

        The one index of anchors: :meth:`resolve` and the alias limit (document.limits) use it.
        """
        if self._anchors is None:
            t = self.tree
            index: dict[str, list[tuple[int, bool]]] = {}
            stack = [t.root_id()]
            while stack:
                n = stack.pop()
                if t.has_key_anchor(n):
                    index.setdefault(_text(t.key_anchor(n)), []).append((n, True))
                if t.has_val_anchor(n):
                    index.setdefault(_text(t.val_anchor(n)), []).append((n, False))
                stack.extend(ryml.children(t, n))
            for ids in index.values():
                ids.sort()
            self._anchors = index
        return self._anchors

    def alias_target(self, node: int, is_key: bool = False) -> tuple[int, bool]:
        """The anchor an alias names: the closest one of that name before it (node ids follow
        document order), and whether it anchors a key. Raises YamlError when there is none.
        ``is_key``: the alias is the node's key (``*name : value``), not its value."""
        name = _text(self.tree.key_ref(node) if is_key else self.tree.val_ref(node))
        ids = self.anchor_index().get(name, [])
        i = bisect.bisect_left(ids, (node,))
        if i == 0:
            raise YamlError(f"the alias *{name} names no anchor before it")
        return ids[i - 1]

    def resolve(self, node: int) -> int:
        """Follow an alias (``*name``) to its anchored node; other nodes are returned as they are.

        An alias of a key's anchor (``&k containers: [...]`` then ``initContainers: *k``) means
        that key's text: the alias is replaced by that text in the tree, and returned itself.
        """
        if not self.may_alias or not _is_val_ref(self.raw, node):
            return node
        target, on_key = self.alias_target(node)
        if not on_key:
            return target
        self.set_str(node, self.key(target))
        return node

    def str(self, node: int | None) -> str | None:
        """The text of a scalar node (aliases followed), or None for a missing or non-scalar node."""
        if node is None:
            return None
        t = self.raw
        if self.may_alias:
            node = self.resolve(node)
        if not _has_val(t, node):
            return None
        if self._verbatim and node in self._verbatim:
            return self._verbatim[node]
        return _text(_val(t, node))

    def key(self, node: int) -> Text:
        if self._verbatim_keys and node in self._verbatim_keys:
            return self._verbatim_keys[node]
        if self.may_alias and _is_key_ref(self.raw, node):
            return self._aliased_key(node)
        return _text(_key(self.raw, node))

    def _aliased_key(self, node: int) -> Text:
        """The text of a key written as an alias (``*name : value``): the scalar it names."""
        target, on_key = self.alias_target(node, is_key=True)
        if on_key:
            return self.key(target)
        text = self.str(target) if self.is_scalar(target) and not self.tree.is_container(target) else None
        if text is None:
            name = _text(self.tree.key_ref(node))
            raise YamlError(f"the key *{name} is an alias of {self.describe(target)}; a key krmfn reads must be "
                            "text", lead="")
        return text

    def has_duplicate_keys(self, node: int) -> bool:
        """Whether two entries of map ``node`` have the same key (checked without decoding any)."""
        t = self.raw
        if self.may_alias or self._verbatim_keys:  # keys whose text is not the tree's: compare the texts
            keys = [self.key(child) for child in self.children(node)]
            return len(set(keys)) != len(keys)
        child = _first_child(t, node)
        while child != NONE:
            if _find_child(t, node, _key(t, child)) != child:  # the first entry with that key is another
                return True
            child = _next_sibling(t, child)
        return False

    def str_at(self, node: int, key: bytes) -> Text | None:
        """:meth:`str` of the child of map ``node`` under ``key`` (None when absent)."""
        return self.str(self.get_b(node, key))

    def string(self, node: int) -> Text | None:
        """The text of a scalar that every YAML 1.1 and 1.2 reader takes for a string, else None."""
        t = self.raw
        if self.may_alias:
            node = self.resolve(node)
        if not _has_val(t, node):
            return None
        if _has_val_tag(t, node):
            tag = _text(_val_tag(t, node))
            return self.str(node) if tag in ("!!str", "tag:yaml.org,2002:str", "<tag:yaml.org,2002:str>") else None
        if _is_val_quoted(t, node):
            return _text(_val(t, node))
        if self._verbatim and node in self._verbatim:
            return self._verbatim[node]
        if _val_is_null(t, node):
            return None
        text = _text(_val(t, node))
        return None if non_string_plain(text) else text

    def str_map(self, node: int | None) -> dict[Text, Text]:
        """A map of scalars as text (labels, annotations); non-scalar values are skipped."""
        out: dict[Text, Text] = {}
        t = self.raw
        if node is None or not _is_map(t, node):
            return out
        plain = not (self.may_alias or self._verbatim or self._verbatim_keys)
        child = _first_child(t, node)
        while child != NONE:
            if plain:  # the common case, without the checks that str() and key() make
                if _has_val(t, child):
                    out[_text(_key(t, child))] = _text(_val(t, child))
            else:
                value = self.str(child)
                if value is not None:
                    out[self.key(child)] = value
            child = _next_sibling(t, child)
        return out

    # --- edits ------------------------------------------------------------------------

    def set_str(self, node: int, value: Text, quote: bool = False) -> None:
        """Replace a scalar's text, keeping a plain or quoted style (blocks become plain)."""
        self.set_strs([node], value, quote)

    def set_strs(self, nodes: list[int], value: Text, quote: bool = False) -> None:
        """:meth:`set_str` for many nodes: the text is checked and copied into the tree once."""
        t = self.raw
        if must_escape().search(value):
            for node in nodes:
                self._verbatim.pop(node, None)
                if _is_val_ref(t, node):
                    _rem_val_ref(t, node)
                _set_val(t, node, _to_arena(t, dquote(value).encode()), 0)
                _set_val_style(t, node, _VAL_PLAIN)
                self._verbatim[node] = value
            return
        encoded = value.encode()
        safe = not quote and plain_safe(value)
        # One copy shared by every node. The view stays valid while nothing else is added to
        # the arena (an addition may move it; rapidyaml then moves the nodes' pointers, not ours).
        arena = _to_arena(t, encoded)
        for node in nodes:
            was_quoted = _is_val_quoted(t, node)
            if self._verbatim and self._verbatim.pop(node, None) is not None:
                was_quoted = True
            if self.may_alias and _is_val_ref(t, node):
                _rem_val_ref(t, node)
            was_squo = was_quoted and _is_val_squo(t, node)
            _set_val(t, node, arena, 0)
            if safe and not was_quoted:
                _set_val_style(t, node, _VAL_PLAIN)
            else:
                _set_val_style(t, node, _VAL_SQUO if was_squo else _VAL_DQUO)

    def set(self, node: int, key: Text, value: Text, quote: bool = False, literal: bool = False) -> int:
        """Set ``key`` in map ``node`` to a string, adding the key at the end when absent.

        ``literal`` writes ``value`` as a plain scalar, for non-strings such as ``true``.
        """
        t = self.tree
        child = self.get(node, key)
        if child is not None and not t.is_container(child):
            if self.str(child) == value and (not literal or t.is_val_plain(child)):
                return child
        elif child is None:
            child = t.append_child(node)
            t._set_key(child, t.to_arena(key.encode()))
        else:
            t.remove_children(child)
            empty = t.to_arena(b"-")[:0]
            t.to_keyval(child, t.key(child), empty)  # key read after to_arena: it may move memory
        if literal:
            t._set_val(child, t.to_arena(value.encode()))
            t.set_val_style(child, ryml.VAL_PLAIN)
        else:
            self.set_str(child, value, quote)
        return child

    def ensure_map(self, node: int, key: Text) -> int:
        """The map under ``key`` in ``node``, made (or a null made a map) when absent."""
        child = self.get(node, key)
        if child is not None and self.tree.is_map(child):
            return child
        t = self.tree
        if child is not None:
            if not self.is_null(child):
                raise YamlError(f"{key} is {self.describe(child)}, not a map", lead="")
            t.remove(child)
        child = t.append_child(node)
        t.to_map(child, t.to_arena(key.encode()))
        return child

    def remove(self, node: int, key: Text) -> bool:
        """Remove ``key`` (and all below it) from map ``node``; whether it was there."""
        child = self.get(node, key)
        if child is None:
            return False
        self.tree.remove(child)
        return True

    def block_style(self, node: int) -> None:
        """Emit this map or list in block style, and a map's simple keys unquoted (JSON input
        is normalised so that it splits into items)."""
        t = self.tree
        t.set_container_style(node, ryml.BLOCK)
        if _is_map(t, node):
            for child in self.children(node):
                if plain_safe(self.key(child)):
                    t.set_key_style(child, ryml.KEY_PLAIN)

    # --- fidelity ---------------------------------------------------------------------

    def _set_verbatim(self, node: int, is_key: bool, text: Text) -> None:
        """Give a scalar the text it really holds: kept here for reading, and written into the
        tree double-quoted (as a plain scalar, so that the emitter writes it as it is)."""
        t = self.tree
        if is_key:
            t._set_key(node, t.to_arena(dquote(text).encode()))
            t.set_key_style(node, ryml.KEY_PLAIN)
            self._verbatim_keys[node] = text
        else:
            t._set_val(node, t.to_arena(dquote(text).encode()))
            t.set_val_style(node, ryml.VAL_PLAIN)
            self._verbatim[node] = text

    def _protect_escapes(self) -> None:
        """Re-render double-quoted scalars the emitter would spoil (see the module doc)."""
        t = self.tree
        stack = [t.root_id()]
        while stack:
            n = stack.pop()
            if t.has_key(n) and (t.is_key_dquo(n) or t.is_key_squo(n)):
                text = _text(t.key(n))
                if must_escape().search(text) or "\n" in text:  # a line break: written as one line
                    self._set_verbatim(n, True, text)
            if t.has_val(n) and not t.is_container(n) and t.is_val_dquo(n) and t.val(n) is not None:
                text = _text(t.val(n))
                if must_escape().search(text) or text != str(t.val(n), "utf-8", "replace"):
                    self._set_verbatim(n, False, text)
            stack.extend(ryml.children(t, n))
