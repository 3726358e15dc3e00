"""The write, the last step of the rename: each item's output text, in order.

An untouched item keeps its input bytes. An item with changes gets them spliced into its own
text (yaml.textedit), and the new text is read again and compared with the old value plus
exactly the planned changes (yaml.verify) before anything is written: a difference is an
error naming the item and the field, never output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from krmfn.core.config import Config
from krmfn.core.plan.state import RenamePlan
from krmfn.core.run.scan import Scanned
from krmfn.results import InputError
from krmfn.yaml.textedit import Edit, NotEditable, SetScalar, add_items, replace_at, replace_scalar, splice
from krmfn.yaml.tree import Node
from krmfn.yaml.verify import difference

if TYPE_CHECKING:
    from krmfn.krm.resource import Resource


def write(scanned: Scanned, p: RenamePlan, config: Config, after: Callable[[int], bytes] = lambda index: b"",
          start: int = 0, stop: int | None = None) -> list[bytes]:
    """Each item's output text (of ``start:stop``), in order. ``after``: the text that follows an
    item in the output up to the next one (a document's ``---``), read with it by the check."""
    out = []
    for res in scanned.resources[start:stop]:
        edits = item_edits(res, p)
        if not edits:
            out.append(res.source)
            continue
        text = splice(res.source, edits)
        wrong = difference(res.source, [e.change for e in edits if e.change is not None], text, res.meaning,
                           after(res.index))
        if wrong is not None:
            raise InputError(f"written with krmfn's changes, it would read differently at {wrong}; krmfn writes "
                             "nothing rather than a wrong value: please report this with the item", res.ref, wrong)
        res.drop()
        res.meaning = None
        out.append(text)
    return out


def item_edits(res: Resource, p: RenamePlan) -> list[Edit]:
    """Every planned edit of one item: renamed references, a suffixJobs rename, its own rename
    (or restore) and the stable-name pod-template hash."""
    edits: list[Edit] = []
    change = p.of(res.index)
    if change is None:
        return edits
    refs, job = change.rewrites, change.rename
    try:
        if refs:
            names: dict[Node, list[str]] = {}
            sites = {}
            for r, t in refs:
                wanted = names.setdefault(r.node, [])
                sites[r.node] = r.site
                if r.prefix + t.ref_name not in wanted:
                    wanted.append(r.prefix + t.ref_name)
            for node, wanted in names.items():
                where = sites[node]
                edits.append(replace_at(where, wanted[0]) if where is not None
                             else replace_scalar(res.tree, node, wanted[0]))  # raises, naming the field
                if len(wanted) > 1:  # one name for objects of two kinds (a Role rule about both): each keeps it
                    edits.append(add_items(res.tree, node, tuple(wanted[1:])))
        if job is not None:
            edits.append(replace_scalar(res.tree, job.node, job.new))
    except NotEditable as exc:
        field = res.tree.path_of(exc.node, res.node)
        raise InputError(f"{field} must change and cannot be written in place: {exc}", res.ref, field) from None
    h = change.hashed
    if h is not None and h.edits:
        edits += h.edits
    if change.template is not None:
        edits += change.template.edits
    edits += change.rotation
    if edits and res.aliases and res.tree.may_alias:
        found: dict[Node, int] = {}
        for r, _ in refs:
            found[r.node] = found.get(r.node, 0) + 1
        edits += _aliases_kept(res, edits, found)
    return edits


def _aliases_kept(res: Resource, edits: list[Edit], found: dict[Node, int]) -> list[Edit]:
    """Where a changed scalar carries an anchor that other fields alias, those fields keep the old
    value (each alias is written out as it read), so that only the intended field changes. A change
    inside an anchored map or list that is aliased where the change was not planned is refused."""
    doc = res.tree
    changed: dict[Node, int] = {}  # each changed scalar: how many places the plan changes it at
    for e in edits:
        if isinstance(e.change, SetScalar):
            changed[e.change.node] = max(found.get(e.change.node, 1), 1)
    out = []
    for node, times in changed.items():
        aliases = doc.aliases_of(node)
        if aliases:
            old = doc.scalar(node) or ""
            out += [replace_scalar(doc, alias, old) for alias in aliases if alias not in changed]
        parent = doc.parent(node)
        above = doc.anchored_above(parent) if parent is not None else None
        if above is not None and times < 1 + len(doc.aliases_of(above)):
            alias = doc.aliases_of(above)[0]
            field = doc.path_of(alias, res.node)
            raise InputError(f"{doc.path_of(node, res.node)} must change, and {field} is an alias of the map or list "
                             "holding it, where no change is planned; write that field out instead of the alias",
                             res.ref, field)
    return out
