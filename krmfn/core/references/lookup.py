"""Which object of a renamed kind a reference means: kustomize's namespace rules, and re-runs.

A reference names an object by its current name (exact), by the name before hashing (the
family: a first run), or by an older hashed name of the family (stale: its data changed). In
a namespaced referrer only objects of its own namespace count; empty and ``default`` are the
same, as in kustomize (or empty means the function config's ``defaultNamespace``, for renders
applied with ``kubectl apply -n NS``); a cluster-scoped referrer may name one in any namespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from krmfn.core.naming import hashing
from krmfn.core.references.kinds import reference_kind
from krmfn.core.run.scan import Hashed, Scanned
from krmfn.krm.resource import Resource

# Kinds without a namespace: their references may name an object in any namespace.
CLUSTER_SCOPED = frozenset({"Node", "ClusterRole", "ClusterWorkflowTemplate", "Namespace", "StorageClass",
                            "PersistentVolume", "ClusterTriggerAuthentication"})


@dataclass(repr=False, eq=False)
class Index:
    """Objects of the renamed kinds in the input, by the names a reference may use for them."""

    by_name: dict[tuple[str, str], list[Resource]]  # by (kind, name), as references name them (Scanned.named_as)
    # By (kind, family name): hashed objects, and objects that record a family in their
    # original-name annotation but are not hashed (yet): by item index, in input order.
    by_family: dict[tuple[str, str], dict[int, Resource]]
    hashed_of: dict[int, Hashed]  # by item index
    stale: re.Pattern[str]
    empty: str = "default"  # what an empty namespace means (the function config's defaultNamespace)
    # Answers by (name, the namespace to look in: None for any): a workload names the same
    # ConfigMap several times, and several workloads name each ConfigMap.
    _memo: dict[tuple[str, str, str | None], list[tuple[Resource, Hashed | None]]] = field(default_factory=dict)

    @classmethod
    def of(cls, scanned: Scanned, algorithm: str, empty: str = "default") -> Index:
        by_name: dict[tuple[str, str], list[Resource]] = {}
        for res in scanned.renamed:
            by_name.setdefault(scanned.named_as(res), []).append(res)
        index = cls(by_name, {}, {}, re.compile(rf"^(.+)-{hashing.suffix_pattern(algorithm)}$"), empty)
        for item, family in scanned.families.items():
            res = scanned.resources[item]
            index.by_family.setdefault(scanned.family_as(res, family), {})[item] = res
        for h in scanned.hashed:
            index.add(h)
        return index

    def add(self, h: Hashed) -> None:
        """One more hashed object (a workload's mark opted it in): earlier answers may change."""
        key = (reference_kind(h.res.api_version, h.res.kind), h.ref_family)
        self.by_family.setdefault(key, {})[h.res.index] = h.res
        self.hashed_of[h.res.index] = h
        self._memo.clear()

    def candidates(self, kind: str, name: str, referrer: Resource,
                   namespace: str | None = None) -> list[tuple[Resource, Hashed | None]]:
        """Objects of ``kind`` a reference to ``name`` may mean: by that name, else by the family
        it names (its name before hashing, or an older hashed name). ``namespace``: the one the
        reference names itself, else the referrer's rules apply."""
        if namespace is None and referrer.kind not in CLUSTER_SCOPED:
            namespace = referrer.namespace
        key = (kind, name, None if namespace is None else namespace or self.empty)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._candidates(kind, name, key[2])
        return found

    def _candidates(self, kind: str, name: str, namespace: str | None) -> list[tuple[Resource, Hashed | None]]:
        def ok(r: Resource) -> bool:
            return namespace is None or (r.namespace or self.empty) == namespace

        found = [r for r in self.by_name.get((kind, name), ()) if ok(r)]
        if not found:
            found = [r for r in self.by_family.get((kind, name), {}).values() if ok(r)]
        if not found:
            m = self.stale.match(name)
            if m:
                found = [r for r in self.by_family.get((kind, m.group(1)), {}).values() if ok(r)]
        return [(r, self.hashed_of.get(r.index)) for r in found]


    def namespace_of(self, res: Resource) -> str:
        """The namespace an object is in, in this render (an empty one read as the rule says)."""
        return res.namespace or self.empty

    def elsewhere(self, kind: str, name: str) -> list[tuple[Resource, Hashed | None]]:
        """The objects a reference to ``name`` would mean in any namespace: asked when it means
        none in its own, so that no message calls an object absent that the input holds."""
        return self._candidates(kind, name, None)
