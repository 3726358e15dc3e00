"""Pass: every object of a renamed kind, by the names references may carry (core.references.lookup),
built once the set of hashed objects is known (after passes.written took some out)."""

from __future__ import annotations

from krmfn.core.plan.state import Planning
from krmfn.core.references.lookup import Index


def build(p: Planning) -> None:
    p.index = Index.of(p.scanned, p.config.algorithm, p.empty)
