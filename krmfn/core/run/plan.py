"""Pass 2 of the rewrite: resolve every reference against every object of a renamed kind.

Namespaces (empty and ``default`` are the same), re-runs (a name that already ends in a
suffix), ambiguity and ``suffixJobs`` are settled here, and every problem raises a
:class:`~krmfn.results.ReferenceProblem` before any output exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from krmfn.core.config import Config, Strategy
from krmfn.core.naming.retention import ORIGINAL_NAME
from krmfn.core.references.kinds import plural, reference_kind
from krmfn.core.references.lookup import Index
from krmfn.core.references.table import WRITERS
from krmfn.core.report.outcomes import check_names_back, fixed_names, kept, settle
from krmfn.core.report.silence import silenced
from krmfn.core.run.scan import Declined, Hashed, Reference, Scanned
from krmfn.core.selection.filled import explicit, left_alone, refuse
from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem, ResourceRef, Result
from krmfn.yaml.tree import Node

if TYPE_CHECKING:
    from krmfn.core.naming.annotate import Annotation
    from krmfn.core.naming.jobs import Rename
    from krmfn.yaml.textedit import Edit

@dataclass(repr=False, eq=False, slots=True)
class ItemChange:
    """All the write does to one item, in one record: its own new name (or its name back), the
    references it rewrites, a ``suffixJobs`` rename, and the stable-name pod-template hash."""

    hashed: Hashed | None = None
    rewrites: list[tuple[Reference, Hashed]] = field(default_factory=list)
    rename: Rename | None = None
    template: Annotation | None = None
    rotation: list[Edit] = field(default_factory=list)  # Reloader's reload annotations (core.report.rotation)


@dataclass(repr=False, eq=False)
class Plan:
    changes: list[ItemChange | None]  # one per item, in input order; None: the item is untouched
    results: list[Result]

    def of(self, index: int) -> ItemChange | None:
        return self.changes[index]


def _check_duplicates(renamed: list[Resource], item_name: Callable[[int], str], empty: str) -> None:
    seen: dict[tuple[str, str, str], Resource] = {}
    for res in renamed:
        key = (res.namespace or empty, res.name, res.kind)
        if key in seen:
            raise ReferenceProblem(f"{res.kind} {res.name!r} appears twice in namespace {key[0]!r} "
                        f"({item_name(seen[key].index)} and {item_name(res.index)}); remove one", res.ref)
        seen[key] = res


def _where(res: Resource, node: Node) -> str:
    """The field path of a node, for a message: the item is parsed again if its tree was dropped."""
    return res.tree.path_of(node, res.node)


def _optional(res: Resource, node: Node) -> bool:
    doc = res.tree
    parent = doc.parent(node)
    return parent is not None and doc.str(doc.get(parent, "optional")) == "true"


def _trapped(res: Resource, ref: Reference, found: list[tuple[Resource, Hashed | None]], index: Index,
             trapped: dict[int, dict[ResourceRef, None]], results: list[Result]) -> None:
    """A reference that means an object of the input only in another namespace: one warning per
    referrer and object (core.references.namespaces), and each object notes who named it."""
    if all(res.ref in trapped.get(r.index, ()) for r, _ in found):
        return
    from krmfn.core.references.namespaces import trap  # here, for start-up time: only a namespace mismatch needs it

    here = ref.namespace if ref.namespace is not None else res.namespace
    results.append(trap(f"references {ref.kind} {ref.name}", res, here, found, index.empty, _where(res, ref.node)))
    for r, _ in found:
        trapped.setdefault(r.index, {})[res.ref] = None


def written_by_controllers(scanned: Scanned, empty: str) -> dict[tuple[str, str], str]:
    """Each Secret an object of the input has its controller write (a Certificate's ``secretName``, a
    SecretProviderClass's ``secretObjects``, a Vault Secrets Operator destination: core.references.table's
    writer rows), by namespace and name, with why in a few words."""
    named: dict[tuple[str, str], str] = {}
    for item, refs in scanned.references.items():
        res = scanned.resources[item]
        if (res.api_version.rpartition("/")[0], res.kind) not in WRITERS:
            continue
        for ref in refs:
            if ref.kind == "Secret" and not ref.unplaced:
                named.setdefault((res.namespace or empty, ref.name),
                                 f"{res.kind} {res.name}'s controller writes it ({_where(res, ref.node)})")
    return named


def _leave_written_alone(scanned: Scanned, named: dict[tuple[str, str], str], config: Config,
                         results: list[Result]) -> None:
    """Take out of the plan each hashed Secret a controller writes (core.selection.filled)."""
    kept = []
    for h in scanned.hashed:
        why = named.get((h.res.namespace or config.default_namespace, h.original)) if h.res.kind == "Secret" else None
        if why is None:
            kept.append(h)
            continue
        how = explicit(h.res, h.original, config)
        if how is not None:
            raise refuse(h.res, why, how)
        scanned.declined[h.res.index] = Declined(why, outside=True)
        results.append(left_alone(h.res, why))
    scanned.hashed[:] = kept


def _rotation(scanned: Scanned, index: Index, written: dict[tuple[str, str], str], config: Config,
              changes: list[ItemChange | None], results: list[Result]) -> None:
    """What each workload reads that rotates outside Git (core.report.rotation): Reloader's annotations
    under ``rotation: reloader``, and the audit's words on it."""
    if not scanned.rollouts or (config.rotation == "off" and config.audit == "off"):
        return
    from krmfn.core.report.rotation import findings, reads, reload_edits  # here, for start-up time: workloads only

    found = reads(scanned, index, written, config.default_namespace, _where)
    if config.rotation == "reloader":
        for item, edits in reload_edits(scanned, found).items():
            change = changes[item] or ItemChange()
            change.rotation = edits
            changes[item] = change
    if config.audit != "off":
        from krmfn.core.report.audit import at_level  # here, for start-up time: only those runs

        results += at_level(findings(scanned, found, config), config.audit)


def plan(scanned: Scanned, config: Config, item_name: Callable[[int], str] = "item {}".format) -> Plan:
    _check_duplicates(scanned.renamed, item_name, config.default_namespace)
    results = list(scanned.results)
    written = written_by_controllers(scanned, config.default_namespace)
    if written and scanned.hashed:
        _leave_written_alone(scanned, written, config, results)
    index = Index.of(scanned, config.algorithm, config.default_namespace)
    missing: set[tuple[int, str, str]] = set()
    marked: dict[int, dict[int, None]] = {}  # objects a mark names beyond the references (stable-name only)
    if scanned.marks:
        from krmfn.core.selection.adopt import adopt  # here, for start-up time: only runs with workload marks need it

        adopted = adopt(scanned, config, index, results)
        missing, marked = adopted.missing, adopted.named
    check_names_back(scanned.hashed, index)

    changes: list[ItemChange | None] = [None] * len(scanned.resources)
    for h in scanned.hashed:
        changes[h.res.index] = ItemChange(hashed=h)
    trapped: dict[int, dict[ResourceRef, None]] = {}  # objects named only from other namespaces: by whom
    fates: list[Result] = []  # what each change does to each referrer (core.report.rollout), said after the objects
    warned: set[int] = set()  # hashed objects named where krmfn cannot rewrite (a warning says so)
    for item in (*scanned.references, *(i for i in marked if i not in scanned.references)):
        refs = scanned.references.get(item, [])
        res = scanned.resources[item]
        named: dict[int, Hashed] = {}  # the hashed ConfigMaps this item names, by item index
        rewrites: list[tuple[Reference, Hashed]] = []
        for ref in refs:
            if ref.unplaced:
                target = next((h for _, h in index.candidates(ref.kind, ref.name, res)
                               if h is not None and h.strategy is Strategy.SUFFIX), None)  # only a rename breaks it
                if target is not None:
                    from krmfn.core.references.unplaced import warning  # here, for start-up time: rare

                    results.append(warning(res, ref.node, ref.kind, ref.name, target.ref_name, ref.in_known_kind))
                    warned.add(target.res.index)
                continue
            candidates = index.candidates(ref.kind, ref.name, res, ref.namespace)
            if not candidates:
                if (item, ref.kind, ref.name) in missing:  # a warning said so already
                    continue
                elsewhere = index.elsewhere(ref.kind, ref.name)
                if elsewhere:  # in the input, in another namespace: never "not in the input"
                    _trapped(res, ref, elsewhere, index, trapped, results)
                    continue
                if (res.api_version.rpartition("/")[0], res.kind) in WRITERS or (
                        ref.kind == "Secret" and (ref.namespace or res.namespace or config.default_namespace,
                                                  ref.name) in written):
                    continue  # a controller of the input makes it: that it is not in the input is the rule
                optional = " (optional)" if _optional(res, ref.node) else ""
                results.append(Result(f"references {ref.kind} {ref.name}{optional}, which is not in the input; "
                                      "left unchanged", "info", res.ref, _where(res, ref.node)))
                continue
            if len(candidates) > 1:
                both = " and ".join(str(c.ref) for c, _ in candidates)
                raise ReferenceProblem(f"the reference to {ref.kind} {ref.name!r} is ambiguous: it could mean {both}; "
                                       f"give the {plural(ref.kind)} distinct names or namespaces", res.ref,
                                       _where(res, ref.node))
            found, target = candidates[0]
            if target is None:
                if found.name != ref.name:  # named by its family: krmfn renamed it before, not this time
                    results.append(Result(
                        f"references {ref.kind} {ref.name}, which krmfn renamed {found.name} before but does not opt "
                        f"in now, so the name names no object: opt {found.name} in again, or name it {found.name}",
                        "warning", res.ref, _where(res, ref.node)))
                continue
            if ref.name != target.ref_name:
                rewrites.append((ref, target))
            named[target.res.index] = target
        named.update((i, index.hashed_of[i]) for i in marked.get(item, ()))
        if named:
            settled = settle(res, named, rewrites, scanned.rollouts.get(item), config, index)
            results += settled.results
            if settled.fate is not None:
                fates.append(settled.fate)
            if rewrites or settled.rename is not None or settled.annotation is not None:
                change = changes[item] or ItemChange()
                change.rewrites, change.rename, change.template = rewrites, settled.rename, settled.annotation
                changes[item] = change
            for target in named.values():
                target.referrers.setdefault(settled.referrer)
        res.drop()
    for h in scanned.hashed:
        renamed = ResourceRef(h.res.api_version, h.res.kind, h.new_name, h.res.namespace)
        now = _became(h)
        if h.ref_name != h.new_name:  # its controller makes an object of another name (an ExternalSecret's target)
            now += f", and the {reference_kind(h.res.api_version, h.res.kind)} it makes {h.ref_name}"
        named_from = trapped.get(h.res.index)
        if h.strategy is not Strategy.SUFFIX:  # keeps its name, or gets it back
            results.append(kept(h, named_from))
        elif h.referrers:
            rolls = ", ".join(str(r) for r in h.referrers)
            results.append(Result(f"{now}; referenced by {rolls}",
                                  "info", renamed))
        elif named_from:
            results.append(Result(f"{now}, but only objects in other namespaces name it, and they do not follow: see "
                                  "the warning on each", "warning", renamed, detail=", ".join(map(str, named_from)),
                                  detail_tag="namedFrom", topic="namespace"))
        elif h.res.index in warned:
            results.append(Result(f"{now}; named only where krmfn does not "
                                  "rewrite (see the warning for each place)", "info", renamed))
        else:
            results.append(Result(f"{now}, but nothing in the input references it: a workload that "
                                  f"names it elsewhere will not follow{' its next change' if _keeps_name(h) else ''}",
                                  "warning", renamed, detail=fixed_names(h.res.kind) if h.by_select else None,
                                  detail_tag="why", topic="unreferenced"))
    results += fates
    _rotation(scanned, index, written, config, changes, results)
    moved = [h for h in scanned.hashed if h.strategy is Strategy.SUFFIX and h.new_name != h.original]
    if moved:  # runs with no rename pay nothing for it
        from krmfn.core.report.leftover import leftovers  # here, for start-up time: only renaming runs need it

        results += leftovers(scanned, moved)
    if (scanned.reads or scanned.immutable) and config.audit != "off":
        from krmfn.core.report.audit import at_level, immutables, roll_paths  # here, for start-up time: only those runs

        results += at_level(roll_paths(scanned, index) + immutables(scanned, index), config.audit)
    if not scanned.hashed or config.names or config.selector.requirements or config.select == "all":
        from krmfn.core.report.unmatched import quiet_rules  # here, for start-up time: only those runs need it

        results += quiet_rules(scanned, config)
    return Plan(changes, _named_as_written(silenced(results, scanned.resources), scanned.hashed))


def _became(h: Hashed) -> str:
    """What the suffix strategy did to an object's name. One that records no family but is named by
    its content already (kustomize's generator made it) keeps its name, and the message says so.
    One that records its family says what the family is named now, as the run that renamed it
    did: a re-run of the output (kpt renders twice in place) says the same."""
    if _keeps_name(h):
        return f"{h.res.kind} {h.new_name} keeps its name (it ends in its content's suffix already)"
    return f"{h.res.kind} {h.original} is now {h.new_name}"


def _keeps_name(h: Hashed) -> bool:
    return h.new_name == h.res.name and ORIGINAL_NAME not in h.res.annotations


def _named_as_written(results: list[Result], hashed: list[Hashed]) -> list[Result]:
    """Results about an object krmfn renames name it as the output does, wherever in the run they
    were made: kpt shows them beside that object, and a re-run gives the same results."""
    by_name: dict[str, list[Hashed]] = {}  # by the input name first: most results name something else
    for h in hashed:
        if h.new_name != h.res.name:
            by_name.setdefault(h.res.name, []).append(h)
    if not by_name:
        return results
    out = []
    for r in results:
        ref = r.resource
        if ref is not None and ref.name in by_name:
            match = next((h for h in by_name[ref.name] if h.res.ref == ref), None)
            if match is not None:
                r = replace(r, resource=replace(ref, name=match.new_name))
        out.append(r)
    return out
