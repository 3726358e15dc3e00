"""The KRM envelope: ResourceList in, ResourceList with ``results`` out.

See the KRM functions specification (kustomize ``cmd/config/docs/api-conventions/
functions-spec.md``). Items stay the very texts that were read, in their order; only the
``results`` field of the envelope is written here. Whatever the input's shape (block or flow
style, JSON, a leading ``---``, CRLF, a BOM), yaml.split cuts it into its objects' own texts
by the parser's events; Lists among the items are read as their entries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from krmfn.krm.data import results_json, results_yaml
from krmfn.results import InputError, Result, in_source
from krmfn.yaml.encoding import TextForm
from krmfn.yaml.split import Cut, ItemReader, Origin, Texts, cut, join
from krmfn.yaml.tree import Doc, Node, Unreadable, YamlError
from krmfn.yaml.verify import frame_difference

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")


@dataclass(repr=False, eq=False)
class ResourceList:
    """The envelope (its own small tree) and the objects' texts, read one at a time. A plain
    stream (or several files) is read the same way: its documents are the objects, and its
    envelope is made from the function config the shell was given."""

    envelope: Doc
    node: Node
    layout: Cut
    function_config: Node | None
    names: Sequence[str | None] | None = None  # a stream's name (a file's path) for each part of ``layout``
    # the BOM and line breaks each input came with (one: a ResourceList or a single stream), for the output
    forms: list[TextForm] = field(default_factory=lambda: [TextForm()])

    @property
    def form(self) -> TextForm:
        """The form of a ResourceList, or of a single stream."""
        return self.forms[0]

    def item_name(self, index: int) -> str:
        layout = self.layout
        number = layout.outer[index] if index < len(layout.outer) else index
        if layout.stream:
            part = layout.part_of(index) if layout.parts else 0
            local = number - (layout.parts[part][3] if layout.parts else 0)
            source = self.names[part] if self.names is not None and part < len(self.names) else None
            base = f"document {local + 1}" + (f" of {source}" if source else "")
        else:
            base = f"item {number}"
        entries = layout.entries.get(number)
        if entries is not None:
            return f"{base}, entry {index - entries[0]}"
        return base

    def origin(self, index: int) -> Origin:
        """Where an item's text is in the input (for a message's line and column)."""
        return self.layout.origin(index)

    def placer(self, index: int) -> Callable[[int, int], tuple[int, int]]:
        """Where a line and column of an item's text are in the input; its origin is found only
        when a message asks."""
        return lambda line, col: self.origin(index).place(line, col)

    def identity(self, index: int) -> dict[str, str] | None:
        """An object's apiVersion, kind, name and namespace as the cut read them (None: not plain
        enough to know without parsing the object)."""
        idents = self.layout.idents
        return idents[index] if index < len(idents) else None

    def forget_identities(self) -> None:
        """Called once the scan is done: the identities it alone reads (a dict an object) are let go."""
        self.layout.idents = []

    @property
    def sources(self) -> Texts:
        """Every object's text, Lists' entries in their place (sliced from the input when asked)."""
        return self.layout.items


def _check_envelope(doc: Doc) -> Node:
    docs = doc.documents()
    if len(doc.all_documents()) > 1:
        docs = doc.all_documents()
    if not docs:
        raise InputError("the input is empty; expected a ResourceList (kind: ResourceList, "
                         "apiVersion: config.kubernetes.io/v1)")
    if len(docs) > 1:
        raise InputError(f"the input holds {len(docs)} YAML documents; a ResourceList is exactly one "
                         "(use `krmfn --stream` for a plain multi-document stream)")
    root = docs[0]
    if not doc.is_map(root):
        raise InputError(f"the input is {doc.describe(root)}, not a ResourceList")
    kind = doc.scalar(doc.get(root, "kind"))
    api_version = doc.scalar(doc.get(root, "apiVersion"))
    if kind != "ResourceList" or api_version not in RESOURCE_LIST_VERSIONS:
        raise InputError(f"the input is kind {kind or '(none)'}, apiVersion {api_version or '(none)'}; expected a KRM "
                         f"ResourceList: kind ResourceList, apiVersion {' or '.join(RESOURCE_LIST_VERSIONS)}")
    items = doc.get(root, "items")
    if items is not None and not doc.is_null(items) and not doc.is_seq(items):
        raise InputError(f"the ResourceList's items is {doc.describe(items)}, not a list")
    duplicate = doc.duplicate_key(root)
    if duplicate is not None:
        raise InputError(f"the ResourceList has the key {duplicate} twice")
    return root


def read_resource_list(data: bytes, form: TextForm = TextForm(), reader: ItemReader | None = None) -> ResourceList:
    """Cut the input, read and check its envelope; items are read later, one at a time, or by
    ``reader`` as the cut goes (core.run.stream).

    ``form``: the BOM and line breaks the input came with, for :func:`render`.
    """
    _no_tags(data)
    layout = cut(data, reader=reader)
    envelope = Doc.parse(layout.envelope)
    root = _check_envelope(envelope)
    fc = envelope.get(root, "functionConfig")
    if fc is not None and envelope.is_null(fc):
        fc = None
    return ResourceList(envelope, root, layout, fc, None, [form])


def read_streams(texts: Sequence[bytes], function_config: bytes | None, names: Sequence[str | None],
                 forms: Sequence[TextForm], reader: ItemReader | None = None) -> ResourceList:
    """Plain streams (UTF-8, LF, no BOM: one, or a file each) read as one input by the same cut:
    their documents are the objects. ``function_config``: the config as YAML text (from flags);
    ``reader``: reads the objects of one stream as the cut goes (core.run.stream)."""
    cuts = []
    for text, name in zip(texts, names):
        try:
            _no_tags(text)
            cuts.append(cut(text, stream=True, reader=reader if len(texts) == 1 else None))
        except YamlError as exc:
            raise stream_error(exc, text, name) from None
        except InputError as exc:
            raise in_source(exc, name) from None
    layout = cuts[0] if len(cuts) == 1 else join(cuts)
    envelope, root, fc = stream_envelope(function_config)
    return ResourceList(envelope, root, layout, fc, list(names), list(forms) or [TextForm()])


def stream_envelope(function_config: bytes | None) -> tuple[Doc, Node, Node | None]:
    """The envelope a plain stream is read with: its function config (YAML text, from flags) under
    ``functionConfig``, its root and that node."""
    envelope = Doc.parse(b"functionConfig: " + function_config + b"\n" if function_config else b"{}")
    root = envelope.documents()[0]
    return envelope, root, envelope.get(root, "functionConfig")


def stream_error(exc: YamlError, text: bytes, name: str | None) -> InputError:
    """A stream that does not read, named by the document the parser stopped in and placed in
    the stream's own lines."""
    who = (f"document {exc.document}" if exc.document else "the input") + (f" of {name}" if name else "")
    lead = "cannot be read by krmfn" if isinstance(exc, Unreadable) else "is not valid YAML"
    if not exc.line:
        return InputError(f"{who} {lead}: {exc.problem}")
    lines = text.split(b"\n")
    return InputError(f"{who} {lead}: {exc.problem} at line {exc.line}, column {exc.col}{hint(lines, exc.line)}")


def _no_tags(data: bytes) -> None:
    if data.startswith(b"%TAG") or data.find(b"\n%TAG") >= 0:
        raise InputError("a %TAG directive: krmfn reads each object apart from the stream's directives, so its "
                         "tags would read differently; resolve the tags in the objects")


def item_error(exc: YamlError, data: bytes) -> Result | None:
    """The error of a ResourceList that does not read, named by the block-list item it falls in
    (``item 3``) and placed in its text; None when it is not in an item of a block ``items:`` list
    (the whole input is then named). A plain stream's is :func:`stream_error`."""
    if not exc.line:
        return None
    lines = data.split(b"\n")
    try:
        items_at = next(i for i, line in enumerate(lines) if line.rstrip() == b"items:")
    except StopIteration:
        return None
    starts = []
    indent = None
    for i in range(items_at + 1, len(lines)):
        text = lines[i]
        stripped = text.lstrip(b" ")
        if indent is None and stripped.startswith(b"- "):
            indent = len(text) - len(stripped)
        if indent is not None and text[:indent].strip() == b"" and text[indent:indent + 2] == b"- ":
            starts.append(i + 1)  # 1-based
        elif text[:1] not in (b" ", b"-", b"#", b""):
            break
    # The parser may stop past the item that is wrong (an unclosed bracket): the first item that
    # does not read alone is the one to name.
    index, problem, line, col = -1, exc.problem, exc.line, exc.col
    own_line = 0
    bounds = starts + [len(lines) + 1]
    for i, first in enumerate(starts):
        try:
            chunk = b"\n".join(lines[first - 1:bounds[i + 1] - 1])
            Doc.parse(chunk if chunk.endswith(b"\n") else chunk + b"\n")
        except YamlError as own:
            index, problem = i, own.problem
            line, col = (own.line or 1), own.col
            own_line = line
            break
    if index < 0:
        before = [s for s in starts if s <= exc.line]
        if not before:
            return None
        index = len(before) - 1
        line = exc.line - before[-1] + 1
    line += starts[index] - 1
    return Result(f"item {index} is not valid YAML: {problem} at line {line}, column {col}"
                  f"{hint(lines, starts[index] - 1 + (own_line if own_line else exc.line - starts[index] + 1))}",
                  "error")


# Characters libyaml and go-yaml read as line breaks, which editors show as nothing.
_BREAKS = (("\u2028", "U+2028 (LINE SEPARATOR)", "\\u2028"), ("\u2029", "U+2029 (PARAGRAPH SEPARATOR)", "\\u2029"),
           ("\x85", "U+0085 (NEXT LINE)", "\\N"))


def hint(lines: list[bytes], line: int) -> str:
    """What to add to a parse error at 1-based ``line``: a tab in the indentation, or an invisible
    line break, on that line or the two before it."""
    for n in range(max(1, line - 2), min(line, len(lines)) + 1):
        text = lines[n - 1]
        if text.lstrip(b" ?:-").startswith(b"\t") and text[:1] in (b" ", b"\t", b"-", b"?", b":"):
            return f"; line {n} has a tab in its indentation (or after a '-'), and YAML indents with spaces only"
        decoded = text.decode("utf-8", "replace")
        for char, name, escape in _BREAKS:
            if char in decoded:
                return (f"; line {n}, column {decoded.index(char) + 1} holds {name}, which YAML reads as a line "
                        f'break: write it escaped in a double-quoted string ("{escape}"), or remove it')
    return ""


def render(rl: ResourceList, items: Sequence[bytes], results: list[Result], prove: bool = True) -> list[bytes]:
    """The output ResourceList's pieces: envelope as read, ``items`` (one per object), and
    ``results`` (replacing any old ones, so that a run over its own output changes nothing), in
    the input's form (BOM, CRLF); proven (:func:`_prove`) unless it gives back the input's items."""
    layout = rl.layout
    written = results_json if layout.flow_top else results_yaml
    cuts = layout.replacements(items, written(results).encode() if results else b"")
    pieces = rl.form.restore(layout.assemble(cuts))
    if prove:
        _prove(rl, cuts, [pieces])
    return pieces


def render_streams(rl: ResourceList, items: Sequence[bytes]) -> list[bytes]:
    """Each plain stream's output, ``items`` in place of its objects and every other byte as read,
    in its own form (BOM, CRLF), proven (:func:`_prove`)."""
    layout = rl.layout
    cuts = layout.replacements(items, b"")
    if not layout.parts:
        outputs = [b"".join(rl.form.restore(layout.assemble(cuts)))]
    else:
        outputs = [b"".join(form.restore(pieces)) for form, pieces in zip(rl.forms, layout.assemble_parts(cuts))]
    _prove(rl, cuts, [[out] for out in outputs])
    return outputs


def _prove(rl: ResourceList, cuts: list[tuple[int, int, bytes]], outputs: list[list[bytes]]) -> None:
    """The last check, on the bytes to be written (each output's pieces): each output (a stream,
    a file, the ResourceList) is its input with exactly the objects' new texts (and the results) in
    place, every other byte, separators included, as read. With the check of each changed object's text in its window
    (core.run.write), this proves the output reads as planned; a difference is an error, nothing is written."""
    layout = rl.layout
    forms = rl.forms
    ranges = [(a, b) for a, b, _, _ in layout.parts] or [(0, len(layout.data))]
    wrong = frame_difference(layout.data, ranges, cuts, [form.plain(pieces) for form, pieces in zip(forms, outputs)])
    if wrong is not None:
        at, part = wrong
        who = rl.names[part] if rl.names and part < len(rl.names) and rl.names[part] else "the output"
        raise InputError(f"{who} would not be its input with only krmfn's changes made: byte {at} differs; krmfn "
                         "writes nothing rather than a wrong value: please report this with the input")


__all__ = ["RESOURCE_LIST_VERSIONS", "ResourceList", "YamlError", "item_error", "read_resource_list", "read_streams",
           "render", "render_streams"]
