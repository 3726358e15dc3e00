"""The objects workloads' marks opt in: hashed in the plan, once every item has been read.

Why not in the scan: a workload may come after the ConfigMaps it names, and a mark reaches
"every object this workload references", which only the whole scan knows. Each object a mark
opts in gets an info naming the workload and the annotation; an object's own ``"false"``, the
function config's ``kinds`` and Reloader's ``ignore`` still win, each said in an info.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from krmfn.core.config import Config, Strategy
from krmfn.core.naming.content import family_of
from krmfn.core.naming.retention import retention_annotations
from krmfn.core.naming.strategy import strategy_of
from krmfn.core.references.kinds import plural, reference_kind, renamed_kind
from krmfn.core.references.lookup import Index
from krmfn.core.run.scan import Hashed, Reference, Scanned, hash_object
from krmfn.core.selection.optin import Mark, describe, skips, valid_name
from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem, ResourceRef, Result, Severity


@dataclass(repr=False, eq=False)
class Adopted:
    """What the plan needs to know afterwards: references already warned about as missing."""

    missing: set[tuple[int, str, str]] = field(default_factory=set)  # (referrer item, kind, name)
    # Objects a mark names that the workload's pod template does not reference, under the
    # stable-name strategy: its pod-template hash covers them (workload item -> object items).
    named: dict[int, dict[int, None]] = field(default_factory=dict)


def adopt(scanned: Scanned, config: Config, index: Index, results: list[Result]) -> Adopted:
    """Hash every object a mark opts in (added to ``scanned.hashed`` and ``index``)."""
    out = Adopted()
    retention = retention_annotations(config.retention)
    said: set[tuple[int, int, str]] = set()  # (workload, object, what): each info once
    for item, marks in scanned.marks.items():
        workload = scanned.resources[item]
        refs = [r for r in scanned.references.get(item, ()) if not r.unplaced]
        for mark in marks:
            reached: list[tuple[str, str, str | None]]
            if mark.name is not None:
                kind = mark.kinds[0]
                if not valid_name(mark.name):
                    results.append(Result(f"{mark.annotation} names {mark.name!r}, which is not a {kind} name: "
                                          "krmfn reads the list as names (not patterns); nothing is opted in by "
                                          "this entry", "warning", workload.ref,
                                          f"metadata.annotations[{mark.annotation}]"))
                    continue
                reached = [(kind, mark.name, None)]
            else:
                reached = list(dict.fromkeys((r.kind, r.name, r.namespace) for r in refs if r.kind in mark.kinds))
            for kind, name, namespace in reached:
                found = index.candidates(kind, name, workload, namespace)
                if not found:
                    if mark.name is not None or mark.tool != "krmfn":
                        out.missing.add((item, kind, name))
                        results.append(_missing(workload, mark, kind, name, index, namespace))
                    continue
                if len(found) > 1:
                    both = " and ".join(str(r.ref) for r, _ in found)
                    raise ReferenceProblem(f"{mark.annotation} names {kind} {name!r}, which could mean {both}; "
                                           f"give the {plural(kind)} distinct names or namespaces", workload.ref,
                                           f"metadata.annotations[{mark.annotation}]")
                target, hashed = found[0]
                unreferenced = mark.name is not None and not _references(index, workload, refs, target)
                if unreferenced and _renames(hashed, target, config):
                    results.append(_unreferenced(workload, mark, target))
                if hashed is not None:
                    if unreferenced and hashed.strategy is Strategy.ANNOTATION:
                        out.named.setdefault(item, {})[target.index] = None
                    continue
                why = _declined(scanned, config, mark, target)
                if why is not None:
                    if (item, target.index, why) not in said:
                        said.add((item, target.index, why))
                        # kinds leaving it out is a slip to fix (kustomize and Helm never show an info);
                        # its own opt-out is a choice.
                        left_out = target.index not in scanned.declined and target.kind not in config.kinds
                        severity: Severity = "warning" if left_out else "info"
                        results.append(Result(f"not hashed, although {describe(workload.ref, mark)} opts it in: "
                                              f"{why}", severity, target.ref))
                    continue
                target_kind = renamed_kind(target.api_version, target.kind)
                assert target_kind is not None  # the index holds objects of renamed kinds only
                h = hash_object(target, target_kind, family_of(target, target_kind), config, retention, results)
                target.drop()
                if h is None:
                    continue
                scanned.hashed.append(h)
                index.add(h)
                if unreferenced and h.strategy is Strategy.ANNOTATION:
                    out.named.setdefault(item, {})[target.index] = None
                renamed = ResourceRef(target.api_version, target.kind, h.new_name, target.namespace)
                results.append(Result(f"opted in by {describe(workload.ref, mark)}", "info", renamed))
    scanned.hashed.sort(key=lambda h: h.res.index)
    return out


def _renames(hashed: Hashed | None, target: Resource, config: Config) -> bool:
    """Whether the object is (or will be) renamed: only then does a new name fail to roll a
    workload that does not reference it. The stable-name strategy rolls it all the same."""
    if hashed is not None:
        return hashed.strategy is Strategy.SUFFIX
    return strategy_of(target, config) is Strategy.SUFFIX


def _references(index: Index, workload: Resource, refs: list[Reference], target: Resource) -> bool:
    """Whether one of the workload's references means ``target`` (by its name or its family's)."""
    kind = reference_kind(target.api_version, target.kind)
    return any(r.kind == kind and any(c.index == target.index for c, _ in
                                             index.candidates(r.kind, r.name, workload, r.namespace)) for r in refs)


def _declined(scanned: Scanned, config: Config, mark: Mark, target: Resource) -> str | None:
    """Why a mark does not opt this object in, when something with more say decides otherwise."""
    if target.index in scanned.declined:
        return scanned.declined[target.index].why
    if target.kind not in config.kinds:
        wanted = sorted(config.kinds | {target.kind})
        fix = (f"{config.label('kinds')} {','.join(wanted)}" if config.from_shell else
               f"kinds: [{', '.join(wanted)}] in the function config")
        return f"{config.label('kinds')} leaves {plural(target.kind)} out: add {target.kind} ({fix})"
    return skips(mark, target)


def _missing(workload: Resource, mark: Mark, kind: str, name: str, index: Index, namespace: str | None) -> Result:
    elsewhere = index.elsewhere(kind, name)
    if elsewhere:  # in the render, in another namespace: never "not in this render"
        from krmfn.core.references.namespaces import trap  # here, for start-up time: only a namespace mismatch needs it

        return trap(f"{mark.annotation} names {kind} {name}", workload, namespace or workload.namespace, elsewhere,
                    index.empty, f"metadata.annotations[{mark.annotation}]")
    keep = {"reloader": "Reloader", "autoreload": "the Kyverno policy"}.get(mark.tool)
    fix = f"keep {keep} for it, or render it with the rest" if keep else "render it with the rest"
    return Result(f"{mark.annotation} asks to roll for {kind} {name}, which is not in this render: {fix}", "warning",
                  workload.ref, f"metadata.annotations[{mark.annotation}]",
                  detail=f"krmfn cannot roll {workload.kind} {workload.name} when {kind} {name} changes",
                  detail_tag="why")


def _unreferenced(workload: Resource, mark: Mark, target: Resource) -> Result:
    return Result(f"{mark.annotation} names {target.kind} {mark.name}, but the {workload.kind}'s pod template does "
                  f"not reference it: its new name will not roll {workload.kind} {workload.name}", "warning",
                  workload.ref, f"metadata.annotations[{mark.annotation}]")
