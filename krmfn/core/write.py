"""Pass 3 of the rewrite: each item's output text, in order.

An untouched item keeps its input bytes; an item with changes gets new names and added lines
spliced into its own text (document.textedit); only an item whose text cannot be edited in
place is re-emitted from its tree.
"""

from __future__ import annotations

from krmfn.core.config import Config
from krmfn.core.plan import Plan
from krmfn.core.renamed import rename_in_tree
from krmfn.core.retention import retention_annotations
from krmfn.core.scan import Scanned
from krmfn.document.chunks import indent_item
from krmfn.document.textedit import splice
from krmfn.document.tree import YamlError
from krmfn.results import InputError


def write(scanned: Scanned, p: Plan, config: Config, indent: int, start: int = 0,
          stop: int | None = None) -> list[bytes]:
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
            for new, nodes in by_text.items():
                doc.set_strs(nodes, new)
            if h and h.strategy == "suffix":
                rename_in_tree(res, h.original, h.new_name, retention)
            elif h:  # keeps its name, or gets it back (core.restore)
                from krmfn.core.restore import restore_in_tree  # here, for start-up time: rare

                restore_in_tree(res, h.original)
            if template is not None:
                from krmfn.core.annotate import set_in_tree  # here, for start-up time: stable-name runs only

                set_in_tree(res, template)
            try:
                text = indent_item(bytes(doc.emit()), indent)
            except YamlError as exc:  # nested deeper than rapidyaml writes (limits.py checks first)
                raise InputError(f"{exc}; flatten it, or leave it out of the function's input", res.ref) from None
        res.drop()
        out.append(text)
    return out
