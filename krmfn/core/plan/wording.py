"""Pass, the last: results as the user reads them. The topics an object's ``krmfn.dev/ignore-warnings``
silences are taken out (core.report.silence), and results about an object krmfn renames name it as
the output does, wherever in the run they were made: kpt shows them beside that object, and a
re-run gives the same results."""

from __future__ import annotations

from dataclasses import replace

from krmfn.core.plan.state import Planning
from krmfn.core.report.silence import silenced
from krmfn.core.run.scan import Hashed
from krmfn.results import Result


def as_output(p: Planning) -> None:
    moved = [h for h in p.scanned.hashed if h.new_name != h.res.name]
    results = silenced(p.results, p.scanned.resources, {h.res.index: h.new_name for h in moved})
    by_name: dict[str, list[Hashed]] = {}  # by the input name first: most results name something else
    for h in moved:
        by_name.setdefault(h.res.name, []).append(h)
    if by_name:
        results = [_as_written(r, by_name) for r in results]
    p.results = results


def _as_written(r: Result, by_name: dict[str, list[Hashed]]) -> Result:
    ref = r.resource
    if ref is not None and ref.name in by_name:
        match = next((h for h in by_name[ref.name] if h.res.ref == ref), None)
        if match is not None:
            return replace(r, resource=replace(ref, name=match.new_name))
    return r
