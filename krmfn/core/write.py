"""Pass 3 of the rewrite: each item's output text, in order.

An untouched item keeps its input bytes; an item with changes gets new names and added lines
spliced into its own text (document.textedit); only an item whose text cannot be edited in
place is re-emitted from its tree, and read back and compared with what it was before anything
is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from krmfn.core.config import Config
from krmfn.core.plan import Plan
from krmfn.core.renamed import owned_paths, rename_in_tree
from krmfn.core.retention import retention_annotations
from krmfn.core.scan import Scanned
from krmfn.document.chunks import indent_item
from krmfn.document.textedit import splice
from krmfn.document.tree import YamlError
from krmfn.results import InputError

if TYPE_CHECKING:
    from krmfn.document.resource import Resource
    from krmfn.document.tree import Doc


def write(scanned: Scanned, p: Plan, config: Config, start: int = 0, stop: int | None = None) -> list[bytes]:
    """Each item's output text (of ``start:stop``), in order."""
    retention = retention_annotations(config.retention)
    out = []
    for res in scanned.resources[start:stop]:
        h = p.hashed.get(res.index)
        # (node, offset, old text, new text): renamed references, and a suffixJobs rename
        edits = [(r.node, r.offset, r.prefix + r.name, r.prefix + t.new_name) for r, t in p.rewrites.get(res.index, [])]
        job = p.renames.get(res.index)
        if job is not None:
            edits.append((job.node, job.offset, job.old, job.new))
        own = h.edits if h else []  # None: its text cannot be edited in place
        template = p.templates.get(res.index)  # the stable-name pod-template hash
        if template is not None and template.edits is None:
            own = None
        text_edits = [(offset, old, new) for _, offset, old, new in edits] + (own or [])
        if template is not None and template.edits:
            text_edits += template.edits
        text = None if own is None else splice(res.source, text_edits) if text_edits else res.source
        if text is None:
            doc = res.tree
            by_text: dict[str, list[int]] = {}
            for node, _, _, new in edits:
                by_text.setdefault(new, []).append(node)
            owned = {doc.path_of(node, res.node) for node, _, _, _ in edits}
            for new, nodes in by_text.items():
                doc.set_strs(nodes, new)
            if h and h.strategy == "suffix":
                rename_in_tree(res, h.original, h.new_name, retention)
                owned |= owned_paths(res, h.original, retention)
            elif h:  # keeps its name, or gets it back (core.restore)
                from krmfn.core.restore import restore_in_tree  # here, for start-up time: rare

                owned |= restore_in_tree(res, h.original)
            if template is not None:
                from krmfn.core.annotate import set_in_tree  # here, for start-up time: stable-name runs only

                owned |= set_in_tree(res, template)
            try:
                text = indent_item(bytes(doc.emit()), leading_spaces(res.source))
            except YamlError as exc:  # nested deeper than rapidyaml writes (limits.py checks first)
                raise InputError(f"{exc}; flatten it, or leave it out of the function's input", res.ref) from None
            text = _checked(res, text, frozenset(owned))
        res.drop()
        out.append(text)
    return out


def leading_spaces(text: bytes) -> int:
    """The column of an item's ``- `` (items of a List sit deeper than the ResourceList's)."""
    return len(text) - len(text.lstrip(b" "))


def _checked(res: Resource, text: bytes, owned: frozenset[str]) -> bytes:
    """An item written again from its tree, read back and compared value by value with what it
    was (but for the fields the function changed) before anything is written. rapidyaml writes an
    empty line of a block scalar as a line of spaces: those lines are emptied where that reads the
    same (a line of more spaces than the block's indentation is content, and stays)."""
    from krmfn.document.compare import data_of, differences  # here, for start-up time: re-emits are rare

    before = data_of(*_parsed(res, res.source))
    trimmed = _empty_lines(text)
    if trimmed != text and not differences(before, data_of(*_parsed(res, trimmed)), owned):
        return trimmed
    wrong = differences(before, data_of(*_parsed(res, text)), owned)
    if wrong:
        raise InputError(f"written again from its tree, it would read differently at {wrong[0]} (through a YAML "
                         "alias of a value krmfn changes, for one); krmfn writes nothing rather than a wrong value: "
                         "write that field without anchors and aliases, or report this", res.ref, wrong[0])
    return text


def _empty_lines(text: bytes) -> bytes:
    """Lines of spaces no longer than the next line's indentation, emptied (there, they are empty)."""
    lines = text.split(b"\n")
    indent = 0
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if line.strip(b" "):
            indent = len(line) - len(line.lstrip(b" "))
        elif line and len(line) <= indent:
            lines[i] = b""
    return b"\n".join(lines)


def _parsed(res: Resource, text: bytes) -> tuple[Doc, int]:
    from krmfn.document.resource import parse_item  # here, for start-up time: re-emits are rare

    try:
        return parse_item(text)
    except YamlError as exc:
        raise InputError(f"written again in block style, it does not read back ({exc.detail}); krmfn writes "
                         "nothing rather than a wrong value: please report this", res.ref) from None
