"""One warning silenced on one object, as linters allow: ``krmfn.dev/ignore-warnings: "leftover-name"``.

Why: some warnings are about what krmfn cannot know (a name in free text that is not the
ConfigMap's, a Recreate that is meant). The object's owner says so once, by the warning's class;
the warning is then an info, shown under ``-v`` and in the results, never lost, and the other
classes still warn. ``all`` silences every class on that object.
"""

from __future__ import annotations

from dataclasses import replace

from krmfn.core.naming.retention import IGNORE_WARNINGS as IGNORE
from krmfn.krm.resource import Resource
from krmfn.results import Result

_IGNORE_BYTES = IGNORE.encode()


def silenced(results: list[Result], resources: list[Resource], renamed: dict[int, str] | None = None) -> list[Result]:
    """``results`` with each warning its object's annotation silences lowered to an info saying so.
    ``renamed``: the new name of each object krmfn renames, by item, which results may name it by."""
    marked = [res for res in resources if _IGNORE_BYTES in res.source]
    if not marked:  # the common run: one byte search per object, nothing parsed
        return results
    ignored: dict[tuple[str, str, str, str], set[str]] = {}
    for res in marked:
        value = res.annotations.get(IGNORE)
        if value is not None:
            own = res.ref
            named = {c.strip() for c in value.split(",")}
            for name in (own.name, *([renamed[res.index]] if renamed and res.index in renamed else [])):
                ignored[(own.api_version, own.kind, name, own.namespace)] = named
    out = []
    for r in results:
        ref = r.resource
        classes = ignored.get((ref.api_version, ref.kind, ref.name, ref.namespace)) if ref is not None else None
        if r.severity == "warning" and classes and (r.topic in classes or "all" in classes):
            r = replace(r, severity="info", message=f"{r.message} (silenced: {IGNORE})")
        out.append(r)
    return out


__all__ = ["IGNORE", "silenced"]
