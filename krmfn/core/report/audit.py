"""The plan's side of the roll-path audit (core.report.rollpath): with what is opted in now known, a
warning for each object a workload reads where a running pod never sees a change and nothing
rolls the workload; and one for ``immutable: true`` on an object krmfn does not rename.

Why here, after adopt: a workload's mark may opt an object in, and only then is it known that
the object rolls. One warning per workload and object, naming every way it is read. The
function config's ``audit`` gives the level: ``warn`` (the default), ``info``, or ``off``, which
the scan and the plan check before looking at all.
"""

from __future__ import annotations

from dataclasses import replace

from krmfn.core.references.lookup import Index
from krmfn.core.report.rollpath import warning
from krmfn.core.run.scan import Scanned
from krmfn.core.selection.optin import skips
from krmfn.results import Result


def roll_paths(scanned: Scanned, index: Index) -> list[Result]:
    """Warnings for config that cannot roll, in item order."""
    results: list[Result] = []
    for item, reads in scanned.reads.items():
        res = scanned.resources[item]
        refs = scanned.references[item]
        names: dict[int, str] = {}  # by object: the name the workload reads it by
        ways: dict[int, tuple[str, list[str], str]] = {}  # by object: kind, how it is read, the first field
        for place, read in reads:
            ref = refs[place]
            found = index.candidates(ref.kind, ref.name, res, ref.namespace)
            if len(found) != 1 or found[0][1] is not None or found[0][0].index in scanned.declined:
                continue  # not in the input, ambiguous (an error elsewhere), opted in, or opted out by choice
            target = found[0][0]
            if any(ref.kind in m.kinds and m.name in (None, ref.name) and skips(m, target) is None
                   for m in scanned.roll_marks.get(item, ())):
                continue
            first = read.mount or res.tree.path_of(ref.node, res.node)
            how = ways.setdefault(target.index, (ref.kind, [], first))[1]
            names.setdefault(target.index, scanned.named_as(target)[1])
            way = "a subPath mount" if read.via == "subPath" else read.via
            if way not in how:
                how.append(way)
        results += [warning(res.ref, kind, names[i], how, path, scanned.resources[i].kind)
                    for i, (kind, how, path) in ways.items()]
        if ways:
            res.drop()
    return results


def immutables(scanned: Scanned, index: Index) -> list[Result]:
    """``immutable: true`` on an object that keeps its name: the next edit of its data fails the apply.
    The stable-name strategy says so itself (core.run.scan), and a name given back (core.naming.restore) drops
    the immutable krmfn added."""
    out = []
    for item in sorted(scanned.immutable):
        if item in index.hashed_of:
            continue
        res = scanned.resources[item]
        out.append(Result(f"immutable: true on a {res.kind} krmfn does not rename: the next change of its data fails "
                          f"the apply; opt it in to krmfn (a new {res.kind} each change), or remove immutable",
                          "warning", res.ref, "immutable", topic="immutable"))
    return out


def at_level(results: list[Result], level: str) -> list[Result]:
    """The audit's findings at the function config's ``audit`` level: ``info`` lowers each warning."""
    return [replace(r, severity="info") for r in results] if level == "info" else results


__all__ = ["at_level", "immutables", "roll_paths"]
