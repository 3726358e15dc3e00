"""Pass: the function config's names and selectors that matched nothing, and a run that renamed
nothing (core.report.unmatched): a rule that quietly does nothing is said."""

from __future__ import annotations

from krmfn.core.plan.state import Planning


def unmatched(p: Planning) -> None:
    config = p.config
    if not p.scanned.hashed or config.names or config.selector.requirements or config.select == "all":
        from krmfn.core.report.unmatched import quiet_rules  # here, for start-up time: only those runs need it

        p.results += quiet_rules(p.scanned, config)
