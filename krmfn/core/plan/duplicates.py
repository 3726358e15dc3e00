"""Pass: an object of a renamed kind that appears twice in a namespace is an error, before anything
else: which one a reference means would be undefined, and the API server keeps only the last."""

from __future__ import annotations

from krmfn.core.plan.state import Planning
from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem


def check(p: Planning) -> None:
    seen: dict[tuple[str, str, str], Resource] = {}
    for res in p.scanned.renamed:
        key = (res.namespace or p.empty, res.name, res.kind)
        if key in seen:
            raise ReferenceProblem(f"{res.kind} {res.name!r} appears twice in namespace {key[0]!r} "
                                   f"({p.item_name(seen[key].index)} and {p.item_name(res.index)}); remove one",
                                   res.ref)
        seen[key] = res
