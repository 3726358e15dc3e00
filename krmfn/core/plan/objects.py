"""Pass: one result for each hashed object (what its name became, and who follows it), then what
each change does to each referrer (``Planning.fates``, held back so that the objects are said first)."""

from __future__ import annotations

from krmfn.core.config import Strategy
from krmfn.core.naming.retention import ORIGINAL_NAME
from krmfn.core.plan.state import Planning
from krmfn.core.references.kinds import reference_kind
from krmfn.core.report.outcomes import fixed_names, kept
from krmfn.core.run.scan import Hashed
from krmfn.results import ResourceRef, Result


def report(p: Planning) -> None:
    for h in p.scanned.hashed:
        p.results.append(_result(p, h))
    p.results += p.fates


def _result(p: Planning, h: Hashed) -> Result:
    renamed = ResourceRef(h.res.api_version, h.res.kind, h.new_name, h.res.namespace)
    now = _became(h)
    if h.ref_name != h.new_name:  # its controller makes an object of another name (an ExternalSecret's target)
        now += f", and the {reference_kind(h.res.api_version, h.res.kind)} it makes {h.ref_name}"
    named_from = p.trapped.get(h.res.index)
    if h.strategy is not Strategy.SUFFIX:  # keeps its name, or gets it back
        return kept(h, named_from)
    if h.referrers:
        rolls = ", ".join(str(r) for r in h.referrers)
        return Result(f"{now}; referenced by {rolls}", "info", renamed)
    if named_from:
        return Result(f"{now}, but only objects in other namespaces name it, and they do not follow: see "
                      "the warning on each", "warning", renamed, detail=", ".join(map(str, named_from)),
                      detail_tag="namedFrom", topic="namespace")
    if h.res.index in p.warned:
        return Result(f"{now}; named only where krmfn does not rewrite (see the warning for each place)", "info",
                      renamed)
    return Result(f"{now}, but nothing in the input references it: a workload that "
                  f"names it elsewhere will not follow{' its next change' if _keeps_name(h) else ''}",
                  "warning", renamed, detail=fixed_names(h.res.kind) if h.by_select else None,
                  detail_tag="why", topic="unreferenced")


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
