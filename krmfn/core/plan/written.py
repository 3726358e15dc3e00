"""Pass: Secrets a controller of the input writes (a Certificate's ``secretName``, a
SecretProviderClass's ``secretObjects``, a Vault Secrets Operator destination: core.references.table's
writer rows). Their content is not the render's, so hashing them would roll nothing: they are taken
out of the plan (core.selection.filled), and later passes know them (``Planning.written``)."""

from __future__ import annotations

from krmfn.core.plan.state import Planning, where
from krmfn.core.references.table import WRITERS
from krmfn.core.run.scan import Declined, Scanned
from krmfn.core.selection.filled import explicit, left_alone, refuse


def leave_alone(p: Planning) -> None:
    p.written = written_by_controllers(p.scanned, p.empty)
    if not p.written or not p.scanned.hashed:
        return
    kept = []
    for h in p.scanned.hashed:
        why = p.written.get((h.res.namespace or p.empty, h.original)) if h.res.kind == "Secret" else None
        if why is None:
            kept.append(h)
            continue
        how = explicit(h.res, h.original, p.config)
        if how is not None:
            raise refuse(h.res, why, how)
        p.scanned.declined[h.res.index] = Declined(why, outside=True)
        p.results.append(left_alone(h.res, why))
    p.scanned.hashed[:] = kept


def written_by_controllers(scanned: Scanned, empty: str) -> dict[tuple[str, str], str]:
    """Each Secret an object of the input has its controller write, by namespace and name, with
    why in a few words."""
    named: dict[tuple[str, str], str] = {}
    for item, refs in scanned.references.items():
        res = scanned.resources[item]
        if (res.api_version.rpartition("/")[0], res.kind) not in WRITERS:
            continue
        for ref in refs:
            if ref.kind == "Secret" and not ref.unplaced:
                named.setdefault((res.namespace or empty, ref.name),
                                 f"{res.kind} {res.name}'s controller writes it ({where(res, ref.node)})")
    return named
