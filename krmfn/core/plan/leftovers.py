"""Pass: old names of renamed objects still written where no reference is (core.report.leftover).
Runs with no rename pay nothing for it."""

from __future__ import annotations

from krmfn.core.config import Strategy
from krmfn.core.plan.state import Planning


def leftovers(p: Planning) -> None:
    moved = [h for h in p.scanned.hashed if h.strategy is Strategy.SUFFIX and h.new_name != h.original]
    if moved:
        from krmfn.core.report.leftover import leftovers  # here, for start-up time: only renaming runs need it

        p.results += leftovers(p.scanned, moved)
