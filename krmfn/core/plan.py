"""Pass 2 of the rewrite: resolve every reference against every object of a renamed kind.

Namespaces (empty and ``default`` are the same), re-runs (a name that already ends in a
suffix), ambiguity and ``suffixJobs`` are settled here, and every problem raises a
:class:`~krmfn.results.ReferenceProblem` before any output exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from krmfn.core import hashing
from krmfn.core.config import Config
from krmfn.core.scan import Hashed, Reference, Scanned
from krmfn.document.resource import Resource
from krmfn.results import ReferenceProblem, ResourceRef, Result

if TYPE_CHECKING:
    from krmfn.core.jobs import Rename

# Kinds without a namespace: their references may name a ConfigMap in any namespace.
CLUSTER_SCOPED = frozenset({"Node", "ClusterRole", "ClusterWorkflowTemplate", "Namespace"})


def same_namespace(a: str, b: str) -> bool:
    """kustomize's rule: an empty namespace and ``default`` are the same."""
    return (a or "default") == (b or "default")


@dataclass(repr=False, eq=False)
class Plan:
    hashed: dict[int, Hashed]  # by item index
    rewrites: dict[int, list[tuple[Reference, Hashed]]]  # by item index
    results: list[Result]
    renames: dict[int, Rename] = field(default_factory=dict)  # suffixJobs, by item index


@dataclass(repr=False, eq=False)
class _Index:
    """Objects of the renamed kinds in the input, by the names a reference may use for them."""

    by_name: dict[tuple[str, str], list[Resource]]  # by (kind, name)
    by_original: dict[tuple[str, str], list[Hashed]]  # by (kind, original name)
    hashed_of: dict[int, Hashed]  # by item index
    stale: re.Pattern[str]
    # Answers by (name, the namespace to look in: None for any): a workload names the same
    # ConfigMap several times, and several workloads name each ConfigMap.
    _memo: dict[tuple[str, str, str | None], list[tuple[Resource, Hashed | None]]] = field(default_factory=dict)

    def candidates(self, kind: str, name: str, referrer: Resource,
                   namespace: str | None = None) -> list[tuple[Resource, Hashed | None]]:
        """Objects of ``kind`` a reference to ``name`` may mean. ``namespace``: the one the
        reference names itself, else the referrer's rules apply."""
        if namespace is None and referrer.kind not in CLUSTER_SCOPED:
            namespace = referrer.namespace
        key = (kind, name, None if namespace is None else namespace or "default")
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._candidates(kind, name, key[2])
        return found

    def _candidates(self, kind: str, name: str, namespace: str | None) -> list[tuple[Resource, Hashed | None]]:
        def ok(r: Resource) -> bool:
            return namespace is None or same_namespace(r.namespace, namespace)

        exact = [r for r in self.by_name.get((kind, name), ()) if ok(r)]
        if exact:
            return [(r, self.hashed_of.get(r.index)) for r in exact]
        family = [h for h in self.by_original.get((kind, name), ()) if ok(h.res)]
        if not family:
            m = self.stale.match(name)
            if m:
                family = [h for h in self.by_original.get((kind, m.group(1)), ()) if ok(h.res)]
        return [(h.res, h) for h in family]


def _check_duplicates(renamed: list[Resource], item_name: Callable[[int], str]) -> None:
    seen: dict[tuple[str, str, str], Resource] = {}
    for res in renamed:
        key = (res.namespace or "default", res.name, res.kind)
        if key in seen:
            raise ReferenceProblem(f"{res.kind} {res.name!r} appears twice in namespace {key[0]!r} "
                        f"({item_name(seen[key].index)} and {item_name(res.index)}); remove one", res.ref)
        seen[key] = res


def _where(res: Resource, node: int) -> str:
    """The field path of a node, for a message: the item is parsed again if its tree was dropped."""
    return res.tree.path_of(node, res.node)


def _optional(res: Resource, node: int) -> bool:
    doc = res.tree
    parent = doc.parent(node)
    return parent is not None and doc.str(doc.get(parent, "optional")) == "true"


def plan(scanned: Scanned, config: Config, item_name: Callable[[int], str] = "item {}".format) -> Plan:
    _check_duplicates(scanned.renamed, item_name)
    results = list(scanned.results)
    by_name: dict[tuple[str, str], list[Resource]] = {}
    for res in scanned.renamed:
        by_name.setdefault((res.kind, res.name), []).append(res)
    by_original: dict[tuple[str, str], list[Hashed]] = {}
    for h in scanned.hashed:
        by_original.setdefault((h.res.kind, h.original), []).append(h)
    hashed = {h.res.index: h for h in scanned.hashed}
    index = _Index(by_name, by_original, hashed, re.compile(rf"^(.+)-{hashing.suffix_pattern(config.algorithm)}$"))

    rewrites: dict[int, list[tuple[Reference, Hashed]]] = {}
    renames: dict[int, Rename] = {}
    warned: set[int] = set()  # hashed objects named where krmfn cannot rewrite (a warning says so)
    for item, refs in scanned.references.items():
        res = scanned.resources[item]
        named: dict[int, Hashed] = {}  # the hashed ConfigMaps this item names, by item index
        for ref in refs:
            if ref.unplaced:
                target = next((h for _, h in index.candidates(ref.kind, ref.name, res) if h is not None), None)
                if target is not None:
                    from krmfn.core.unplaced import warning  # here, for start-up time: rare

                    results.append(warning(res, ref.node, ref.name, target.new_name, ref.in_known_kind))
                    warned.add(target.res.index)
                continue
            candidates = index.candidates(ref.kind, ref.name, res, ref.namespace)
            if not candidates:
                optional = " (optional)" if _optional(res, ref.node) else ""
                results.append(Result(f"references {ref.kind} {ref.name}{optional}, which is not in the input; "
                                      "left unchanged", "info", res.ref, _where(res, ref.node)))
                continue
            if len(candidates) > 1:
                both = " and ".join(str(c.ref) for c, _ in candidates)
                raise ReferenceProblem(f"the reference to {ref.kind} {ref.name!r} is ambiguous: it could mean {both}; "
                                       f"give the {ref.kind}s distinct names or namespaces", res.ref,
                                       _where(res, ref.node))
            target = candidates[0][1]
            if target is None:
                continue
            if ref.name != target.new_name:
                rewrites.setdefault(item, []).append((ref, target))
            named[target.res.index] = target
        referrer = res.ref
        if named and config.suffix_jobs:
            from krmfn.core import jobs  # here, for start-up time: only suffixJobs runs need it

            if jobs.is_job(res):
                rename, result = jobs.rename(res, [t.new_name for t in named.values()])
                results.append(result)
                referrer = result.resource or referrer  # the Job as it will be named
                if rename is not None:
                    renames[item] = rename
        for target in named.values():
            target.referrers.setdefault(referrer)
        res.drop()
    for h in scanned.hashed:
        renamed = ResourceRef(h.res.api_version, h.res.kind, h.new_name, h.res.namespace)
        if h.referrers:
            rolls = ", ".join(str(r) for r in h.referrers)
            results.append(Result(f"{h.res.kind} {h.original} is now {h.new_name}; referenced by {rolls}",
                                  "info", renamed))
        elif h.res.index in warned:
            results.append(Result(f"{h.res.kind} {h.original} is now {h.new_name}; named only where krmfn does not "
                                  "rewrite (see the warning for each place)", "info", renamed))
        else:
            results.append(Result(f"{h.res.kind} {h.original} is now {h.new_name}, but nothing in the input "
                                  "references it: a workload that names it elsewhere will not follow",
                                  "warning", renamed))
    return Plan(hashed, rewrites, results, renames)
