"""Pass: resolve every reference of every referrer against every object of a renamed kind, and
settle what that does to the referrer (core.report.outcomes.settle): the references it rewrites,
its rollout, a ``suffixJobs`` rename, the stable-name pod-template hash.

Namespaces (empty and ``default`` are the same, or ``defaultNamespace``), re-runs (a name that
already ends in a suffix, or that names the family it records) and ambiguity are settled here; an
ambiguous reference raises a :class:`~krmfn.results.ReferenceProblem` before any output exists.
"""

from __future__ import annotations

from krmfn.core.config import Strategy
from krmfn.core.plan.state import Planning, where
from krmfn.core.references.kinds import plural
from krmfn.core.references.table import WRITERS
from krmfn.core.report.outcomes import settle
from krmfn.core.run.scan import Hashed, Reference
from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem, Result


def resolve(p: Planning) -> None:
    scanned = p.scanned
    for item in (*scanned.references, *(i for i in p.marked if i not in scanned.references)):
        res = scanned.resources[item]
        named: dict[int, Hashed] = {}  # the hashed objects this item names, by item index
        rewrites: list[tuple[Reference, Hashed]] = []
        for ref in scanned.references.get(item, []):
            if ref.unplaced:
                _unplaced(p, res, ref)
                continue
            target = _target(p, item, res, ref)
            if target is None:
                continue
            if ref.name != target.ref_name:
                rewrites.append((ref, target))
            named[target.res.index] = target
        named.update((i, p.index.hashed_of[i]) for i in p.marked.get(item, ()))
        if named:
            _settle(p, item, res, named, rewrites)
        res.drop()


def _settle(p: Planning, item: int, res: Resource, named: dict[int, Hashed],
            rewrites: list[tuple[Reference, Hashed]]) -> None:
    # the prepared annotation is taken, not looked up: once filled it is let go (memory follows the plan)
    settled = settle(res, named, rewrites, p.scanned.rollouts.get(item), p.config, p.index,
                     p.scanned.templates.pop(item, None))
    p.results += settled.results
    if settled.fate is not None:
        p.fates.append(settled.fate)
    if rewrites or settled.rename is not None or settled.annotation is not None:
        change = p.change(item)
        change.rewrites, change.rename, change.template = rewrites, settled.rename, settled.annotation
    for target in named.values():
        target.referrers.setdefault(settled.referrer)


def _unplaced(p: Planning, res: Resource, ref: Reference) -> None:
    """A reference-shaped field where the table does not look: a warning when a rename breaks it."""
    target = next((h for _, h in p.index.candidates(ref.kind, ref.name, res)
                   if h is not None and h.strategy is Strategy.SUFFIX), None)  # only a rename breaks it
    if target is not None:
        from krmfn.core.references.unplaced import warning  # here, for start-up time: rare

        p.results.append(warning(res, ref.node, ref.kind, ref.name, target.ref_name, ref.in_known_kind))
        p.warned.add(target.res.index)


def _target(p: Planning, item: int, res: Resource, ref: Reference) -> Hashed | None:
    """The hashed object a reference means; None (with a result where one is due) when it means none."""
    candidates = p.index.candidates(ref.kind, ref.name, res, ref.namespace)
    if not candidates:
        _not_found(p, item, res, ref)
        return None
    if len(candidates) > 1:
        both = " and ".join(str(c.ref) for c, _ in candidates)
        raise ReferenceProblem(f"the reference to {ref.kind} {ref.name!r} is ambiguous: it could mean {both}; "
                               f"give the {plural(ref.kind)} distinct names or namespaces", res.ref,
                               where(res, ref.node))
    found, target = candidates[0]
    if target is None and found.name != ref.name:  # named by its family: krmfn renamed it before, not this time
        p.results.append(Result(
            f"references {ref.kind} {ref.name}, which krmfn renamed {found.name} before but does not opt "
            f"in now, so the name names no object: opt {found.name} in again, or name it {found.name}",
            "warning", res.ref, where(res, ref.node)))
    return target


def _not_found(p: Planning, item: int, res: Resource, ref: Reference) -> None:
    """A name no object of the input carries in the referrer's namespace."""
    if (item, ref.kind, ref.name) in p.missing:  # a warning said so already
        return
    elsewhere = p.index.elsewhere(ref.kind, ref.name)
    if elsewhere:  # in the input, in another namespace: never "not in the input"
        _trapped(p, res, ref, elsewhere)
        return
    if (res.api_version.rpartition("/")[0], res.kind) in WRITERS or (
            ref.kind == "Secret" and (ref.namespace or res.namespace or p.empty, ref.name) in p.written):
        return  # a controller of the input makes it: that it is not in the input is the rule
    optional = " (optional)" if _optional(res, ref) else ""
    p.results.append(Result(f"references {ref.kind} {ref.name}{optional}, which is not in the input; "
                            "left unchanged", "info", res.ref, where(res, ref.node)))


def _trapped(p: Planning, res: Resource, ref: Reference, found: list[tuple[Resource, Hashed | None]]) -> None:
    """A reference that means an object of the input only in another namespace: one warning per
    referrer and object (core.references.namespaces), and each object notes who named it."""
    if all(res.ref in p.trapped.get(r.index, ()) for r, _ in found):
        return
    from krmfn.core.references.namespaces import trap  # here, for start-up time: only a namespace mismatch needs it

    here = ref.namespace if ref.namespace is not None else res.namespace
    p.results.append(trap(f"references {ref.kind} {ref.name}", res, here, found, p.index.empty,
                          where(res, ref.node)))
    for r, _ in found:
        p.trapped.setdefault(r.index, {})[res.ref] = None


def _optional(res: Resource, ref: Reference) -> bool:
    doc = res.tree
    parent = doc.parent(ref.node)
    return parent is not None and doc.scalar(doc.get(parent, "optional")) == "true"


