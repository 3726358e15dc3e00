"""The rename's plan as a list of passes, in order: each reads what the scan (core.run.scan) and
the passes before it left in the :class:`~krmfn.core.plan.state.Planning`, and adds to it. Nothing
is written here: every problem raises before any output exists, and the write (core.run.write)
takes the :class:`~krmfn.core.plan.state.RenamePlan` that comes out.
"""

from __future__ import annotations

from collections.abc import Callable

from krmfn.core.config import Config
from krmfn.core.plan import (
    audit,
    duplicates,
    leftovers,
    lookup,
    marks,
    objects,
    own,
    referrers,
    rotation,
    unmatched,
    wording,
    written,
)
from krmfn.core.plan.state import Planning, RenamePlan
from krmfn.core.run.scan import Scanned

Pass = Callable[[Planning], None]

PASSES: tuple[Pass, ...] = (
    duplicates.check,  # an object twice in a namespace: an error first
    written.leave_alone,  # Secrets a controller of the input writes leave the plan
    lookup.build,  # every object of a renamed kind by the names references carry
    marks.adopt,  # what workloads' marks opt in
    own.own_changes,  # each hashed object's own new name
    referrers.resolve,  # every reference: its target, the rewrite, the referrer's rollout
    objects.report,  # a result for each hashed object, then each referrer's rollout
    rotation.rotation,  # what rotates outside Git: Reloader's annotations, the audit's words
    leftovers.leftovers,  # old names still written where no reference is
    audit.audit,  # references read where a change would not roll
    unmatched.unmatched,  # rules of the config that matched nothing
    wording.as_output,  # results silenced where asked, and naming objects as written
)


def plan(scanned: Scanned, config: Config, item_name: Callable[[int], str] = "item {}".format) -> RenamePlan:
    p = Planning.of(scanned, config, item_name)
    for step in PASSES:
        step(p)
    return RenamePlan(p.changes, p.results)
