"""The last word on each referrer, once the referrers pass (core.plan.referrers) has resolved its
references, and on each object that is not renamed.

A referrer may name objects under both strategies (core.naming.strategy): renamed ones (its
references were rewritten), stable ones (its pod template gets ``krmfn.dev/config-hash``) and
objects krmfn gives their names back (core.naming.restore). :func:`settle` decides, for one referrer,
the pod-template annotation, the ``suffixJobs`` rename and the one rollout result (core.report.rollout)
that covers all of them; :func:`kept` words the result of an object that keeps its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from krmfn.core.config import Config, Strategy
from krmfn.core.naming.retention import FAMILY, OPT_IN, ORIGINAL_NAME
from krmfn.core.naming.strategy import CONFIG_HASH, config_hash
from krmfn.core.references.kinds import reference_kind
from krmfn.core.references.lookup import Index
from krmfn.core.references.table import template_metadata
from krmfn.core.report import rollout
from krmfn.core.report.rollout import Verdict
from krmfn.core.run.scan import Hashed, Reference
from krmfn.krm.resource import Resource
from krmfn.results import InputError, ReferenceProblem, ResourceRef, Result

if TYPE_CHECKING:
    from krmfn.core.naming.annotate import Annotation, Prepared
    from krmfn.core.naming.jobs import Rename

# Kinds that name an object to grant access to it, not to use it: nothing to roll, nothing to say.
PERMISSION_ONLY = frozenset({"Role", "ClusterRole"})


class Settled:
    """What one referrer gets. A plain class: a dataclass would compile its methods at every
    start-up, and this module is imported on every run."""

    __slots__ = ("annotation", "fate", "referrer", "rename", "results")

    def __init__(self, referrer: ResourceRef) -> None:
        self.referrer = referrer  # as it will be named (a Job renamed by suffixJobs)
        self.results: list[Result] = []  # said in place
        self.fate: Result | None = None  # the rollout result, said after the objects' results
        self.rename: Rename | None = None  # suffixJobs
        self.annotation: Annotation | None = None  # the stable-name strategy's pod-template hash


def check_names_back(hashed: list[Hashed], index: Index) -> None:
    """An object that gets its original name back must not meet another object of that name
    in its namespace (the user re-added the original beside the renamed one): which one a
    reference means would be undefined, and the API server would take the second as an update."""
    for h in hashed:
        if h.strategy is Strategy.SUFFIX or h.res.name == h.original:
            continue
        namespace = index.namespace_of(h.res)
        for other in index.by_name.get((reference_kind(h.res.api_version, h.res.kind), h.ref_family), ()):
            if other is not h.res and index.namespace_of(other) == namespace:
                raise ReferenceProblem(f"{h.res.kind} {h.res.name} would get its original name back, {h.original}, "
                                       f"but {other.ref} is in the input too; remove one of them", h.res.ref,
                                       "metadata.name")


def settle(res: Resource, targets: dict[int, Hashed], rewrites: list[tuple[Reference, Hashed]],
           verdict: Verdict | None, config: Config, index: Index, template: Prepared | None = None) -> Settled:
    """``targets``: the objects krmfn manages that the referrer names (or that a mark on it
    names), by item; ``rewrites``: its references that change in its text; ``template``: where
    its stable-name annotation goes, as the scan found it (None: read from its tree again)."""
    out = Settled(res.ref)
    renamed: list[Hashed] = []
    stable: list[Hashed] = []
    restored: list[Hashed] = []
    by_strategy = {Strategy.SUFFIX: renamed, Strategy.ANNOTATION: stable, Strategy.OFF: restored}
    for t in targets.values():
        by_strategy[t.strategy].append(t)
    if restored:  # only those whose references change here: a restore rolls once
        rewritten = {t.res.index for _, t in rewrites}
        restored = [t for t in restored if t.res.index in rewritten]
    value = ""
    if stable:
        value = config_hash(((t.res.kind, index.namespace_of(t.res), t.original, t.content) for t in stable),
                            config.algorithm)
        path = template_metadata(res.api_version, res.kind)
        if path is None:  # nothing to carry the hash: said, and no rollout for these
            if res.kind not in PERMISSION_ONLY:
                out.results.append(_nothing_rolls(res, stable))
            stable = []
        else:
            out.annotation = _annotation(res, path, value, template)
    generated = verdict is not None and verdict[1] == rollout.GENERATED  # a new Job each create: no rename
    if config.suffix_jobs and res.kind == "Job" and (renamed or stable) and not generated:
        from krmfn.core.naming import jobs  # here, for start-up time: only suffixJobs runs need it

        if jobs.is_job(res):
            out.rename, result = jobs.rename(res, [t.new_name for t in renamed + stable], value)
            out.results.append(result)
            out.referrer = result.resource or out.referrer  # the Job as it will be named
            return out
    if verdict is not None and (renamed or stable or restored):
        out.fate = rollout.result(out.referrer, verdict, rollout.when(
            [(t.res.kind, t.original, t.new_name) for t in renamed], [(t.res.kind, t.original) for t in stable],
            [(t.res.kind, t.original) for t in restored]))
    return out


def _annotation(res: Resource, path: tuple[str, ...], value: str, template: Prepared | None) -> Annotation:
    """The referrer's pod template with ``value``; a refusal naming the field where it must change
    and cannot be written in place (its template's metadata is not a map)."""
    from krmfn.core.naming.annotate import prepare  # here, for start-up time: stable-name runs only
    from krmfn.yaml.textedit import NotEditable

    try:
        return (template or prepare(res, path)).fill(value)
    except NotEditable as exc:
        field = res.tree.path_of(exc.node, res.node)
        raise InputError(f"{field} must change (the pod-template annotation {CONFIG_HASH}) and cannot be written "
                         f"in place: {exc}", res.ref, field) from None


def _nothing_rolls(res: Resource, stable: list[Hashed]) -> Result:
    one = len(stable) == 1
    names = ", ".join(f"{t.res.kind} {t.original}" for t in stable)
    return Result(f"names {names}, which {'keeps its name' if one else 'keep their names'} (strategy: annotation), "
                  f"but a {res.kind} has no pod template to carry {CONFIG_HASH}: nothing rolls it when "
                  f"{'it changes' if one else 'they change'}. To roll it by a new name, use krmfn.dev/strategy: "
                  f"suffix on {'it' if one else 'them'}", "info", res.ref)


def kept(h: Hashed, named_from: dict[ResourceRef, None] | None) -> Result:
    """The result of an object that keeps its name (strategy annotation) or gets it back (off)."""
    ref = ResourceRef(h.res.api_version, h.res.kind, h.new_name, h.res.namespace)
    by = ", ".join(map(str, h.referrers))
    back = (f"{h.res.kind} {h.res.name} gets its original name back, {h.original}" if h.res.name != h.original
            else f"{h.res.kind} {h.original} keeps its name")
    if h.strategy is Strategy.OFF:
        said = (f"{back}: its {OPT_IN} is \"false\" and krmfn renamed it before, so immutable, {ORIGINAL_NAME} and "
                f"the {FAMILY} label go too")
        follow = f"; references follow: {by}" if by else "; nothing in the input references it"
        return Result(said + follow, "info", ref)
    lead = (f"{back}, and keeps it (strategy: annotation)" if h.res.name != h.original
            else f"{back} (strategy: annotation)")
    if by:
        rolls = [r for r in h.referrers if template_metadata(r.api_version, r.kind) is not None]
        rest = [r for r in h.referrers if template_metadata(r.api_version, r.kind) is None]  # linear in fan-in
        said = f"; a change of its content rolls {', '.join(map(str, rolls))} through {CONFIG_HASH}" if rolls else ""
        if rest:
            said += f"; {', '.join(map(str, rest))} {'names' if len(rest) == 1 else 'name'} it " \
                    "with no pod template to roll (see the info on each)"
        return Result(lead + said, "info", ref)
    if named_from:
        return Result(f"{lead}, but only objects in other namespaces name it: see the warning on each", "warning", ref,
                      detail=", ".join(map(str, named_from)), detail_tag="namedFrom")
    return Result(f"{lead}, and nothing in the input references it: nothing rolls when it changes", "info", ref)


# Programs that read an object by a fixed name, by kind: what select: all may rename under them.
_READ_BY_NAME = {
    "ConfigMap": "Argo CD's argocd-cm, Knative's config-* ConfigMaps, a controller flag such as "
                 "--configmap=NS/NAME",
    "Secret": "a TLS Secret an ingress controller or cert-manager names, a token a controller reads by name, "
              "a flag such as --secret=NS/NAME",
}


def fixed_names(kind: str) -> str:
    """What to add to "nothing references it" when only ``select: all`` opted the object in."""
    examples = _READ_BY_NAME.get(kind, f"a controller flag that names the {kind}")
    return (f"select: all opted it in, and a program that reads a {kind} by a fixed name ({examples}) breaks "
            f'when it is renamed: if one reads it, opt it out with krmfn.dev/content-hash: "false", or keep its '
            "name with krmfn.dev/strategy: annotation")


__all__ = ["PERMISSION_ONLY", "Settled", "check_names_back", "fixed_names", "kept", "settle"]
