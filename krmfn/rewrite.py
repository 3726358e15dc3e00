"""The rename and the rewrite: plan every change first, then apply it.

Planning reads only; it raises :class:`FunctionError` on bad input before any node is
touched, so a failed run never leaves a half-rewritten tree. Applying is mechanical.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field

from . import hashing
from .config import Config
from .envelope import FunctionError, Resource, ResourceList, ResourceRef, Result, error
from .references import Found, ReferenceTable, builtin_specs, find
from .retention import (FAMILY, KUSTOMIZE_HASHES, OPT_IN, ORIGINAL_NAME, family_label, merge_annotation,
                        retention_annotations)

MAX_NAME = 253
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# Kinds without a namespace: their references may name a ConfigMap in any namespace.
CLUSTER_SCOPED = frozenset({"Node", "ClusterRole", "ClusterWorkflowTemplate", "Namespace"})


def same_namespace(a: str, b: str) -> bool:
    """kustomize's rule: an empty namespace and ``default`` are the same."""
    return (a or "default") == (b or "default")


@dataclass
class Hashed:
    """One opted-in ConfigMap and what the run does to it."""

    res: Resource
    original: str
    new_name: str
    referrers: list[ResourceRef] = field(default_factory=list)


@dataclass
class Rewrite:
    node: int
    target: Hashed


@dataclass
class Plan:
    hashed: list[Hashed]
    rewrites: list[Rewrite]
    results: list[Result]


def _string_map(res: Resource, key: str, binary: bool) -> dict[str, str] | None:
    """``data`` or ``binaryData`` as text, after checking every value is a string."""
    doc = res.doc
    node = doc.get(res.node, key)
    if node is None or doc.is_null(node):
        return None
    node = doc.resolve(node)
    if not doc.is_map(node):
        raise error(f"{key} is {doc.describe(node)}, not a map of strings", res.ref, key)
    out: dict[str, str] = {}
    for k, child in doc.items(node):
        path = f"{key}.{k}" if k and "." not in k else f"{key}[{k}]"
        if k in out:
            raise error(f"{key} has the key {k!r} twice", res.ref, path)
        if not doc.is_string(child):
            raise error(f"{path} is {doc.describe(doc.resolve(child))} that YAML reads as a non-string; "
                        "quote it", res.ref, path)
        value = doc.str(child) or ""
        if binary:
            try:
                base64.b64decode("".join(value.split()), validate=True)
            except (binascii.Error, ValueError):
                raise error(f"{path} is not valid base64", res.ref, path) from None
        out[k] = value
    return out


def _opted_in(res: Resource, original: str, config: Config) -> bool:
    value = res.annotations.get(OPT_IN)
    if value == "true":
        return True
    if value == "false":
        return False
    if value is not None:
        raise error(f'annotation {OPT_IN} is {value!r}; use "true" or "false"', res.ref,
                    f"metadata.annotations[{OPT_IN}]")
    return (config.select == "all" or original in config.names or config.selector.matches(res.labels))


def _original_name(res: Resource, algorithm: str) -> str:
    """The family name: from the annotation when the current name is that name or a hashed form of it."""
    recorded = res.annotations.get(ORIGINAL_NAME)
    if recorded and (res.name == recorded or res.name.startswith(recorded + "-")):
        return recorded
    return res.name


def _plan_configmaps(items: list[Resource], config: Config, results: list[Result]) -> list[Hashed]:
    seen: dict[tuple[str, str], Resource] = {}
    hashed: list[Hashed] = []
    for res in items:
        if res.kind != "ConfigMap" or res.api_version != "v1":
            continue
        key = (res.namespace or "default", res.name)
        if key in seen:
            raise error(f"ConfigMap {res.name!r} appears twice in namespace {key[0]!r} "
                        f"(as {seen[key].ref} and {res.ref}); remove one", res.ref)
        seen[key] = res
        original = _original_name(res, config.algorithm)
        if not _opted_in(res, original, config):
            continue
        if res.annotations.get(KUSTOMIZE_HASHES) == "enabled":
            results.append(Result(f"left alone: kustomize adds its own hash suffix to this ConfigMap ({KUSTOMIZE_HASHES})",
                                  "info", res.ref))
            continue
        data = _string_map(res, "data", binary=False)
        binary = _string_map(res, "binaryData", binary=True)
        new_name = f"{original}-{hashing.suffix(config.algorithm, data, binary)}"
        if len(new_name) > MAX_NAME:
            raise error(f"the hashed name would be {len(new_name)} characters, over Kubernetes' {MAX_NAME}; "
                        "shorten the ConfigMap's name", res.ref, "metadata.name")
        hashed.append(Hashed(res, original, new_name))
    return hashed


@dataclass
class _Index:
    """ConfigMaps in the input by the names a reference may use for them."""

    by_name: dict[str, list[Resource]]
    by_original: dict[str, list[Hashed]]
    hashed_of: dict[int, Hashed]
    stale: re.Pattern[str]

    def candidates(self, name: str, referrer: Resource) -> list[tuple[Resource, Hashed | None]]:
        def ok(r: Resource) -> bool:
            return referrer.kind in CLUSTER_SCOPED or same_namespace(r.namespace, referrer.namespace)

        exact = [r for r in self.by_name.get(name, ()) if ok(r)]
        if exact:
            return [(r, self.hashed_of.get(id(r))) for r in exact]
        family = [h for h in self.by_original.get(name, ()) if ok(h.res)]
        if not family:
            m = self.stale.match(name)
            if m:
                family = [h for h in self.by_original.get(m.group(1), ()) if ok(h.res)]
        return [(h.res, h) for h in family]


def plan(rl: ResourceList, config: Config, table: ReferenceTable | None = None) -> Plan:
    results: list[Result] = []
    hashed = _plan_configmaps(rl.items, config, results)
    if table is None:
        table = ReferenceTable.of(builtin_specs() + tuple(config.field_specs))  # type: ignore[operator]
    by_name: dict[str, list[Resource]] = {}
    for res in rl.items:
        if res.kind == "ConfigMap" and res.api_version == "v1":
            by_name.setdefault(res.name, []).append(res)
    by_original: dict[str, list[Hashed]] = {}
    for h in hashed:
        by_original.setdefault(h.original, []).append(h)
    index = _Index(by_name, by_original, {id(h.res): h for h in hashed},
                   re.compile(rf"^(.+)-{hashing.suffix_pattern(config.algorithm)}$"))

    doc = rl.doc
    rewrites: list[Rewrite] = []
    for res in rl.items:
        trie = table.trie_for(res.api_version, res.kind)
        if trie:
            for found in find(doc, res.node, trie):
                _plan_reference(res, found, index, rewrites, results)
    for h in hashed:
        rolls = ", ".join(str(r) for r in h.referrers)
        if h.referrers:
            results.append(Result(f"ConfigMap {h.original} is now {h.new_name}; referenced by {rolls}",
                                  "info", _renamed(h)))
        else:
            results.append(Result(f"ConfigMap {h.original} is now {h.new_name}, but nothing in the input "
                                  "references it: a workload that names it elsewhere will not follow",
                                  "warning", _renamed(h)))
    return Plan(hashed, rewrites, results)


def _renamed(h: Hashed) -> ResourceRef:
    return ResourceRef(h.res.api_version, h.res.kind, h.new_name, h.res.namespace)


def _optional(res: Resource, found: Found) -> bool:
    doc = res.doc
    parent = doc.tree.parent(found.node)
    return doc.str(doc.get(parent, "optional")) == "true" if parent is not None else False


def _plan_reference(res: Resource, found: Found, index: _Index, rewrites: list[Rewrite],
                    results: list[Result]) -> None:
    doc = res.doc
    if not doc.is_string(found.node):
        return
    name = doc.str(found.node) or ""
    candidates = index.candidates(name, res)
    if not candidates:
        optional = " (optional)" if _optional(res, found) else ""
        results.append(Result(f"references ConfigMap {name}{optional}, which is not in the input; left unchanged",
                              "info", res.ref, found.path))
        return
    if len(candidates) > 1:
        both = " and ".join(str(c.ref) for c, _ in candidates)
        raise error(f"the reference to ConfigMap {name!r} is ambiguous: it could mean {both}; "
                    "give the ConfigMaps distinct names or namespaces", res.ref, found.path)
    target = candidates[0][1]
    if target is None:
        return
    rewrites.append(Rewrite(found.node, target))
    if res.ref not in target.referrers:
        target.referrers.append(res.ref)


def apply(rl: ResourceList, plan: Plan, config: Config) -> None:
    doc = rl.doc
    for rw in plan.rewrites:
        if doc.str(rw.node) != rw.target.new_name:
            doc.set_str(rw.node, rw.target.new_name)
    retention = retention_annotations(config.retention)
    for h in plan.hashed:
        res = h.res
        name_node = doc.get(res.metadata, "name")
        if res.name != h.new_name:
            doc.set_str(name_node, h.new_name)
        doc.set(res.node, "immutable", "true", literal=True)
        annotations = doc.ensure_map(res.metadata, "annotations")
        doc.set(annotations, ORIGINAL_NAME, h.original)
        existing = doc.str_map(annotations)
        for key, wanted in retention.items():
            doc.set(annotations, key, merge_annotation(key, existing.get(key), wanted))
        labels = doc.ensure_map(res.metadata, "labels")
        doc.set(labels, FAMILY, family_label(h.original))


def transform(rl: ResourceList, config: Config) -> list[Result]:
    """Hash, rename and rewrite in place; returns the results. Raises before any edit on bad input."""
    p = plan(rl, config)
    apply(rl, p, config)
    return p.results


__all__ = ["transform", "plan", "apply", "FunctionError"]
