"""Pass: each hashed object's own change (its new name, or its name back), once no later pass can
take it out: an object that would get its original name back must not meet another of that name
(core.report.outcomes.check_names_back)."""

from __future__ import annotations

from krmfn.core.plan.state import Planning
from krmfn.core.report.outcomes import check_names_back


def own_changes(p: Planning) -> None:
    check_names_back(p.scanned.hashed, p.index)
    for h in p.scanned.hashed:
        p.change(h.res.index).hashed = h
