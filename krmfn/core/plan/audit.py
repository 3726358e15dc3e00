"""Pass: the roll-path audit (core.report.audit): references read where a change would not roll the
workload, and immutable objects whose name stays."""

from __future__ import annotations

from krmfn.core.plan.state import Planning


def audit(p: Planning) -> None:
    if (p.scanned.reads or p.scanned.immutable) and p.config.audit != "off":
        from krmfn.core.report.audit import at_level, immutables, roll_paths  # here, for start-up time: those runs

        p.results += at_level(roll_paths(p.scanned, p.index) + immutables(p.scanned, p.index), p.config.audit)
