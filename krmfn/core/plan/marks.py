"""Pass: what workloads' opt-in marks opt in (core.selection.adopt). It waits for the whole scan,
since a workload may come after the ConfigMaps it marks."""

from __future__ import annotations

from krmfn.core.plan.state import Planning


def adopt(p: Planning) -> None:
    if not p.scanned.marks:
        return
    from krmfn.core.selection.adopt import adopt  # here, for start-up time: only runs with workload marks need it

    adopted = adopt(p.scanned, p.config, p.index, p.results)
    p.missing, p.marked = adopted.missing, adopted.named
