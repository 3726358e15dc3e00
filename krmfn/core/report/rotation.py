"""What rotates outside Git, for each workload: the objects it reads whose content is not in the
render, and what rolls it when they change.

Why: krmfn rolls a workload when what it reads changes in Git, by hashing it. An ExternalSecret's
target takes its value from a store, cert-manager renews a certificate, a Secret the CSI driver or
the Vault Secrets Operator syncs, a Secret or ConfigMap another team owns: none of those changes
passes through a render. krmfn knows exactly which objects each workload reads and which of them it
cannot hash, so it can tell Reloader those and no others (``rotation: reloader``), where the
blanket ``reloader.stakater.com/auto`` restarts on every change of everything; and say where
nothing rolls a workload when such an object changes (the roll-path audit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from krmfn.core.config import Config
from krmfn.core.references.lookup import Index
from krmfn.core.run.scan import Scanned
from krmfn.core.selection.optin import RELOADER_AUTO, RELOADER_LISTS
from krmfn.krm.resource import Resource
from krmfn.results import Result
from krmfn.yaml.textedit import Edit, NotEditable, set_map
from krmfn.yaml.tree import Node

# The reload annotation for each kind a workload reads, and the kinds Reloader rolls (stakater/Reloader).
RELOAD = {kind: key for key, kind in RELOADER_LISTS.items()}
RELOADER_BYTES = b"reloader.stakater.com"
RELOADER_ROLLS = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet"),
                            ("argoproj.io", "Rollout"), ("batch", "CronJob"),
                            ("apps.openshift.io", "DeploymentConfig")})


@dataclass(frozen=True, slots=True)
class Outside:
    """An object a workload reads whose content changes outside Git, by the name the output gives it."""

    kind: str  # as the workload names it: ConfigMap or Secret
    name: str
    why: str  # in a few words, for messages
    known: bool  # a controller is known to write it (not merely absent from the input)


@dataclass(slots=True)
class Reads:
    """For one workload: what it reads that rotates outside Git, and what rolls at render."""

    outside: list[Outside] = field(default_factory=list)
    render: list[tuple[str, str]] = field(default_factory=list)  # (kind, name as written) krmfn hashes


def reads(scanned: Scanned, index: Index, written: dict[tuple[str, str], str], empty: str,
          where: Callable[[Resource, Node], str]) -> dict[int, Reads]:
    """Each workload's reads (an item that runs pods), by item, in input order. ``written``: each
    Secret a controller of the input writes (core.plan.written)."""
    out: dict[int, Reads] = {}
    for item in sorted(scanned.rollouts):
        refs = scanned.references.get(item)
        if not refs:
            continue
        res = scanned.resources[item]
        mine = Reads()
        seen: set[tuple[str, str]] = set()
        for ref in refs:
            if ref.unplaced or ref.kind not in RELOAD:
                continue
            found = index.candidates(ref.kind, ref.name, res, ref.namespace)
            one = _classify(scanned, ref.kind, ref.name, found, written, res.namespace or empty)
            if one is None or (one.kind, one.name) in seen:
                continue
            if isinstance(one, Outside) and ref.kind == "Secret" and "imagePullSecrets" in where(res, ref.node):
                continue  # a pull secret is the kubelet's to read, not the program's (its path asked only here)
            seen.add((one.kind, one.name))
            if isinstance(one, Outside):
                mine.outside.append(one)
            else:
                mine.render.append((one.kind, one.name))
        if mine.outside or mine.render:
            out[item] = mine
    return out


@dataclass(frozen=True, slots=True)
class _Render:
    kind: str
    name: str


def _classify(scanned: Scanned, kind: str, name: str, found: list, written: dict[tuple[str, str], str],
              namespace: str) -> Outside | _Render | None:
    if len(found) > 1:
        return None  # ambiguous: an error elsewhere
    if not found:
        why = written.get((namespace, name)) if kind == "Secret" else None
        if why is not None:
            return Outside(kind, name, why, True)
        return Outside(kind, name, "not in the input: another team's or a controller's", False)
    target, hashed = found[0]
    new_name = hashed.ref_name if hashed is not None else name
    if target.kind == "ExternalSecret":
        family = hashed.original if hashed is not None else target.name  # the same on a re-run
        return Outside(kind, new_name, f"ExternalSecret {family}'s target: the operator takes its value from a store",
                       True)
    if hashed is not None:
        return _Render(kind, new_name)
    declined = scanned.declined.get(target.index)
    if declined is not None and declined.outside:
        return Outside(kind, name, declined.why, True)  # a controller fills it (core.selection.filled)
    return None  # in Git and not hashed: the roll-path audit's (core.report.audit)


def reload_edits(scanned: Scanned, found: dict[int, Reads]) -> dict[int, list[Edit]]:
    """``rotation: reloader``: on each workload Reloader rolls, its reload annotations naming exactly
    what it reads that rotates outside Git (krmfn owns their values under this option)."""
    out: dict[int, list[Edit]] = {}
    for item, mine in found.items():
        res = scanned.resources[item]
        if not mine.outside and RELOADER_BYTES not in res.source:
            continue  # nothing to name, and no annotation of Reloader's to keep right: not parsed again
        if (res.api_version.rpartition("/")[0], res.kind) not in RELOADER_ROLLS:
            continue
        wanted = {RELOAD[kind]: ",".join(sorted({o.name for o in mine.outside if o.kind == kind}))
                  for kind in RELOAD}
        wanted = {key: value for key, value in wanted.items() if value}
        have = res.annotations
        if not wanted or all(have.get(k) == v for k, v in wanted.items()):
            continue
        try:
            out[item] = set_map(res.tree, res.metadata, "annotations", wanted)
        except NotEditable:
            continue  # an annotations map written as an alias: the message below names what to add
    return out


def findings(scanned: Scanned, found: dict[int, Reads], config: Config) -> list[Result]:
    """The audit's words on rotation: a workload that reads something a controller changes outside
    Git with nothing to roll it; a blanket Reloader mark, with the precise one to write instead."""
    results: list[Result] = []
    for item, mine in found.items():
        res = scanned.resources[item]
        known = [o for o in mine.outside if o.known]
        if not known and RELOADER_BYTES not in res.source:
            continue  # the common workload: nothing to say, and its text is not parsed again
        have = res.annotations
        blanket = next((key for key in RELOADER_AUTO if have.get(key) == "true"), None)
        if blanket is not None and "reloader" not in config.honor:
            results.append(_blanket(res, blanket, mine, config.rotation == "reloader" and _rolls(res)))
        if not known or blanket is not None or (config.rotation == "reloader" and _rolls(res)):
            continue
        if any(key in have for key in RELOAD.values()):
            continue  # the user names what Reloader watches: theirs to keep right
        names = " and ".join(f"{o.kind} {o.name}" for o in known)
        fix = ("set rotation: reloader to have Reloader roll it on exactly these" if _rolls(res) else
               f"Reloader does not roll a {res.kind}: restart it when they change")
        results.append(Result(f"nothing rolls this {res.kind} when {names} {'changes' if len(known) == 1 else 'change'}"
                              f" outside Git: {fix} (docs/rotation.md)", "warning", res.ref,
                              detail="; ".join(f"{o.kind} {o.name}: {o.why}" for o in known), detail_tag="why",
                              topic="rotation"))
    return results


def _rolls(res: Resource) -> bool:
    return (res.api_version.rpartition("/")[0], res.kind) in RELOADER_ROLLS


def _blanket(res: Resource, key: str, mine: Reads, written: bool) -> Result:
    precise = [f'{RELOAD[kind]}: "{names}"' for kind in RELOAD
               if (names := ",".join(sorted({o.name for o in mine.outside if o.kind == kind})))]
    rendered = ", ".join(f"{kind} {name}" for kind, name in mine.render)
    why = f"krmfn rolls it at render on {rendered}" if rendered else "krmfn hashes nothing it reads"
    if not precise:
        instead = "remove it: nothing it reads changes outside Git"
    elif written:
        instead = "krmfn wrote the precise reload annotations: remove it"
    else:
        instead = "replace it with the precise reload annotations krmfn -v prints (or set rotation: reloader)"
    return Result(f"{key}: \"true\" restarts this {res.kind} on every change of what it reads; {instead}", "warning",
                  res.ref, f"metadata.annotations[{key}]", detail="; ".join([why, *precise]), detail_tag="precise",
                  topic="reloader-auto")


__all__ = ["Outside", "Reads", "findings", "reads", "reload_edits"]
