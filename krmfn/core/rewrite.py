"""The rename and the rewrite: read every item, plan every change, then write each item.

Three passes, so that a failed run never leaves anything half-written:

1. :func:`scan` reads one item at a time while its tree is alive: a ConfigMap's hash, or a
   referrer's ConfigMap names (with where each sits in the item's text);
2. :func:`plan` resolves every reference against every ConfigMap (namespaces, re-runs,
   ambiguity) and raises a :class:`~krmfn.results.KrmfnError` before any output exists;
3. :func:`write` produces each item's text: as it came in when untouched, edited in its own
   text otherwise (names replaced, a hashed ConfigMap's added lines inserted: textedit.py),
   re-emitted from its tree only where its text cannot be edited in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from krmfn.core import hashing
from krmfn.core.config import Config
from krmfn.core.fieldspec import FieldSpec
from krmfn.core.kinds import RenamedKind, renamed_kind
from krmfn.core.walk import ReferenceTable, find
from krmfn.document.chunks import indent_item
from krmfn.document.envelope import ResourceList
from krmfn.document.resource import Resource, read_resource
from krmfn.document.textedit import Edit, key_column, map_edits, splice
from krmfn.document.tree import YamlError
from krmfn.results import InputError, ReferenceProblem, ResourceRef, Result

if TYPE_CHECKING:
    from krmfn.core.jobs import Rename
from krmfn.core.retention import (
    FAMILY,
    KUSTOMIZE_HASHES,
    OPT_IN,
    ORIGINAL_NAME,
    family_label,
    merge_annotation,
    retention_annotations,
)

MAX_NAME = 253
# A DNS subdomain (RFC 1123), as Kubernetes requires of a ConfigMap's name.
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
# Kinds without a namespace: their references may name a ConfigMap in any namespace.
CLUSTER_SCOPED = frozenset({"Node", "ClusterRole", "ClusterWorkflowTemplate", "Namespace"})
# Kinds whose text may mention ConfigMaps without naming one (data, schemas): never searched
# for unplaced references (a CRD's schema can be megabytes of "configMapRef" properties).
NOT_REFERRERS = frozenset({"ConfigMap", "Secret", "CustomResourceDefinition"})


def same_namespace(a: str, b: str) -> bool:
    """kustomize's rule: an empty namespace and ``default`` are the same."""
    return (a or "default") == (b or "default")


@dataclass(slots=True, repr=False, eq=False)
class Hashed:
    """One opted-in object of a renamed kind (a ConfigMap) and what the run does to it."""

    res: Resource
    original: str
    new_name: str
    referrers: dict[ResourceRef, None] = field(default_factory=dict)  # an ordered set
    edits: list[Edit] | None = None  # the rename in its own text (made while its tree was read); None: re-emit


@dataclass(slots=True, repr=False, eq=False)
class Reference:
    """A scalar in a referrer that names an object of a renamed kind; ``offset``: where its text starts."""

    node: int
    name: str
    offset: int | None
    namespace: str | None = None  # named beside the reference (Node); None: the referrer's rules
    prefix: str = ""  # text before the name in the same scalar (``namespace/``)
    unplaced: bool = False  # shaped like a reference in a kind the table does not know: warn only
    kind: str = "ConfigMap"  # the renamed kind it names


@dataclass(repr=False, eq=False)
class Scanned:
    """What the plan needs from the items, read one item at a time."""

    resources: list[Resource] = field(default_factory=list)
    renamed: list[Resource] = field(default_factory=list)  # every object of a renamed kind
    hashed: list[Hashed] = field(default_factory=list)
    references: dict[int, list[Reference]] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)


@dataclass(repr=False, eq=False)
class Plan:
    hashed: dict[int, Hashed]  # by item index
    rewrites: dict[int, list[tuple[Reference, Hashed]]]  # by item index
    results: list[Result]
    renames: dict[int, Rename] = field(default_factory=dict)  # suffixJobs, by item index


# --- pass 1: scan ---------------------------------------------------------------------------

def _entry_path(key: str, k: str) -> str:
    return f"{key}.{k}" if k and "." not in k else f"{key}[{k}]"


def _string_map(res: Resource, key: str, binary: bool) -> dict[str, str] | None:
    """A hashed field (``data``, ``binaryData``) as text, after checking every value is a string."""
    doc = res.tree
    node = doc.get(res.node, key)
    if node is None or doc.is_null(node):
        return None
    node = doc.resolve(node)
    if not doc.is_map(node):
        raise InputError(f"{key} is {doc.describe(node)}, not a map of strings", res.ref, key)
    out: dict[str, str] = {}
    for k, child in doc.items(node):
        if k in out:
            raise InputError(f"{key} has the key {k!r} twice; keep one", res.ref, _entry_path(key, k))
        value = doc.string(child)
        if value is None:
            path = _entry_path(key, k)
            target = doc.resolve(child)
            text = None if doc.is_null(target) or not doc.is_scalar(target) else doc.str(target)
            what, fix = (("empty (null)", 'write "" for an empty value') if doc.is_null(target) else
                         (f"{text}, which YAML reads as a number, boolean or tagged value", f'quote it ("{text}")')
                         if text is not None else (doc.describe(target), "write it as text (a | block)"))
            raise InputError(f"{path} is {what}; {res.kind} values must be strings: {fix}", res.ref, path)
        if binary:
            # Imported here, for start-up time: only binaryData needs them.
            import base64
            import binascii

            try:
                base64.b64decode("".join(value.split()), validate=True)
            except (binascii.Error, ValueError):
                raise InputError(f"{_entry_path(key, k)} is not valid base64; {key} holds base64 text "
                                 "(base64 -w0 FILE), or move a text value to data", res.ref,
                                 _entry_path(key, k)) from None
        out[k] = value
    return out


def _opted_in(res: Resource, original: str, config: Config) -> bool:
    value = res.annotations.get(OPT_IN)
    if value == "true":
        return True
    if value == "false":
        return False
    if value is not None:
        raise InputError(f'annotation {OPT_IN} is {value!r}; use "true" or "false"', res.ref,
                    f"metadata.annotations[{OPT_IN}]")
    return config.select == "all" or original in config.names or config.selector.matches(res.labels)


def _original_name(res: Resource) -> str:
    """The family name: from the annotation when the current name is that name or a hashed form of it."""
    recorded = res.annotations.get(ORIGINAL_NAME)
    if recorded and (res.name == recorded or res.name.startswith(recorded + "-")):
        return recorded
    return res.name


def _check_unique_keys(res: Resource) -> None:
    """A key written twice where krmfn reads or writes a ConfigMap: which one counts would depend
    on the reader (the API server refuses it), and a re-run could read the other one."""
    doc = res.tree
    for path, node in (("", res.node), ("metadata", res.metadata),
                       ("metadata.annotations", doc.get_b(res.metadata, b"annotations")),
                       ("metadata.labels", doc.get_b(res.metadata, b"labels"))):
        if node is None or not doc.is_map(node) or not doc.has_duplicate_keys(node):
            continue
        seen: set[str] = set()
        for key, _ in doc.items(node):
            if key in seen:
                where = f"{path}.{key}" if path else key
                raise InputError(f"{path or 'the object'} has the key {key!r} twice; keep one", res.ref, where)
            seen.add(key)


def _scan_renamed(res: Resource, kind: RenamedKind, config: Config, retention: dict[str, str], out: Scanned) -> None:
    """An object of a renamed kind: noted for the plan, and hashed when opted in."""
    out.renamed.append(res)
    original = _original_name(res)
    opted_in = _opted_in(res, original, config)
    _check_unique_keys(res)
    if not opted_in:
        if original in config.names and res.annotations.get(OPT_IN) == "false":
            out.results.append(Result(f"not hashed: its opt-out annotation ({OPT_IN}: false) wins over the "
                                      "function config's names", "info", res.ref))
        return
    if res.annotations.get(KUSTOMIZE_HASHES) == "enabled":
        out.results.append(Result("left alone: kustomize adds its own hash suffix to this ConfigMap "
                                  f"({KUSTOMIZE_HASHES})", "info", res.ref))
        return
    if not _DNS_SUBDOMAIN.fullmatch(original):  # the API server would refuse the hashed name
        fixed = re.sub(r"[^a-z0-9.-]+", "-", original.lower()).strip("-.") or "config"
        raise ReferenceProblem(f"{original!r} is not a valid {kind.kind} name: Kubernetes allows lowercase "
                               "letters, digits, '-' and '.', starting and ending with a letter or digit; rename "
                               f"it, e.g. to {fixed!r}", res.ref, "metadata.name")
    doc = res.tree
    for key in ("annotations", "labels"):
        node = doc.get(res.metadata, key)
        if node is not None and not doc.is_map(node) and not doc.is_null(node):
            raise InputError(f"metadata.{key} is {doc.describe(node)}, not a map", res.ref, f"metadata.{key}")
    content = {key: _string_map(res, key, binary=key in kind.base64) for key in kind.content}
    new_name = f"{original}-{hashing.digest(config.algorithm, kind.hash_input(content))}"
    if len(new_name) > MAX_NAME:
        raise ReferenceProblem(f"the hashed name would be {len(new_name)} characters, over Kubernetes' {MAX_NAME}; "
                               f"shorten the {kind.kind}'s name", res.ref, "metadata.name")
    h = Hashed(res, original, new_name)
    h.edits = _renamed_edits(res, h, retention)
    out.hashed.append(h)


def scan(rl: ResourceList, config: Config, tables: dict[str, ReferenceTable], start: int = 0,
         stop: int | None = None) -> Scanned:
    """Read every item (of ``start:stop``) once, keeping only what planning needs; each
    tree is dropped after. ``tables``: the reference table of each renamed kind."""
    out = Scanned()
    retention = retention_annotations(config.retention)
    for index in range(start, len(rl.sources) if stop is None else stop):
        source = rl.sources[index]
        res = read_resource(source, index, rl.item_name(index))
        out.resources.append(res)
        kind = renamed_kind(res.api_version, res.kind)
        if kind is not None:
            _scan_renamed(res, kind, config, retention, out)
        refs: list[Reference] = []
        known = False  # whether any table knows the kind (else reference-shaped fields are looked for)
        for target, table in tables.items():
            walk = table.walk_for(res.api_version, res.kind)
            if not walk:
                continue
            known = True
            doc = res.tree
            attrs: dict[int, FieldSpec] = {}  # filled only by specs with conditions or namespaces
            found = []
            for node in find(doc, res.node, walk, attrs):
                name = doc.string(node)
                if name is not None:
                    found.append(Reference(node, name, doc.offset(node), kind=target))
            if attrs:  # rare: the name part of ``namespace/name``, a namespace named beside it
                for ref in found:
                    spec = attrs.get(ref.node)
                    if spec is not None:
                        ref.name, ref.namespace, ref.prefix = spec.target(doc, ref.node, ref.name)
            refs += found
            if res.kind in table.notice_kinds:
                out.results += [Result(message, "info", res.ref, path)
                                for path, message in table.notes(doc, res.node, res.api_version, res.kind)]
        if not known and res.kind not in NOT_REFERRERS and b"onfigMap" in source:  # unplaced.MARKER: cheap
            from krmfn.core import unplaced  # here, for start-up time: few runs need it

            doc = res.tree
            refs = [Reference(node, doc.string(node) or "", None, unplaced=True)
                    for node in unplaced.candidates(doc, res.node, res.metadata)]
        if refs:
            out.references[index] = refs
        res.drop()
    return out


# --- pass 2: plan ---------------------------------------------------------------------------

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
    for item, refs in scanned.references.items():
        res = scanned.resources[item]
        named: dict[int, Hashed] = {}  # the hashed ConfigMaps this item names, by item index
        for ref in refs:
            if ref.unplaced:
                target = next((h for _, h in index.candidates(ref.kind, ref.name, res) if h is not None), None)
                if target is not None:
                    from krmfn.core.unplaced import warning  # here, for start-up time: rare

                    results.append(warning(res, ref.node, ref.name, target.new_name))
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
        else:
            results.append(Result(f"{h.res.kind} {h.original} is now {h.new_name}, but nothing in the input "
                                  "references it: a workload that names it elsewhere will not follow",
                                  "warning", renamed))
    return Plan(hashed, rewrites, results, renames)


# --- pass 3: write --------------------------------------------------------------------------

def _owned(res: Resource, h: Hashed, retention: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The annotations and labels a hashed ConfigMap must carry."""
    existing = res.annotations
    annotations = {ORIGINAL_NAME: h.original}
    annotations.update((key, merge_annotation(key, existing.get(key), wanted)) for key, wanted in retention.items())
    return annotations, {FAMILY: family_label(h.original)}


def _rename_in_tree(res: Resource, h: Hashed, retention: dict[str, str]) -> None:
    """The rename in the ConfigMap's tree, for re-emitting it."""
    doc = res.tree
    name_node = doc.get(res.metadata, "name")
    if res.name != h.new_name and name_node is not None:  # read_resource found it
        doc.set_str(name_node, h.new_name)
    doc.set(res.node, "immutable", "true", literal=True)
    annotations, labels = _owned(res, h, retention)
    for key, wanted in (("annotations", annotations), ("labels", labels)):
        node = doc.ensure_map(res.metadata, key)
        for name, value in wanted.items():
            doc.set(node, name, value)


def _renamed_edits(res: Resource, h: Hashed, retention: dict[str, str]) -> list[Edit] | None:
    """The rename as edits of the ConfigMap's own text, so that its comments and style stay;
    None where its text is not plain block YAML (the tree is re-emitted instead)."""
    doc, source = res.tree, res.source
    metadata_key = doc.get_b(res.node, b"metadata")
    name = doc.get_b(res.metadata, b"name")
    if doc.may_alias or not source.endswith(b"\n") or metadata_key is None or name is None:
        return None
    if not (doc.is_block(res.node) and doc.is_block(res.metadata)):
        return None
    root_at, name_at = doc.key_offset(metadata_key), doc.key_offset(name)
    root = key_column(source, root_at) if root_at is not None else None
    column = key_column(source, name_at) if name_at is not None else None
    if root is None or column is None or column <= root:
        return None
    edits: list[Edit] = []
    if res.name != h.new_name:
        edits.append((doc.offset(name), res.name, h.new_name))
    annotations, labels = _owned(res, h, retention)
    for key, wanted in (("annotations", annotations), ("labels", labels)):
        more = map_edits(doc, source, res.metadata, key, wanted, column, column - root)
        if more is None:
            return None
        edits += more
    immutable = doc.get_b(res.node, b"immutable")
    if immutable is None:  # last: at the item's end, after any lines added to a map that ends there too
        edits.append((len(source), "", f"{' ' * root}immutable: true\n"))
    elif not (doc.is_plain(immutable) and doc.str(immutable) == "true"):
        if not doc.is_plain(immutable):
            return None
        edits.append((doc.offset(immutable), doc.str(immutable) or "", "true"))
    return edits


def write(scanned: Scanned, p: Plan, config: Config, indent: int, start: int = 0,
          stop: int | None = None) -> list[bytes]:
    """Each item's output text (of ``start:stop``), in order."""
    retention = retention_annotations(config.retention)
    out = []
    for res in scanned.resources[start:stop]:
        h = p.hashed.get(res.index)
        # (node, offset, old text, new text): renamed references, and a suffixJobs rename
        edits = [(r.node, r.offset, r.prefix + r.name, r.prefix + t.new_name) for r, t in p.rewrites.get(res.index, [])]
        job = p.renames.get(res.index)
        if job is not None:
            edits.append((job.node, job.offset, job.old, job.new))
        own = h.edits if h else []  # None: its text cannot be edited in place
        text_edits = [(offset, old, new) for _, offset, old, new in edits] + (own or [])
        text = None if own is None else splice(res.source, text_edits) if text_edits else res.source
        if text is None:
            doc = res.tree
            by_text: dict[str, list[int]] = {}
            for node, _, _, new in edits:
                by_text.setdefault(new, []).append(node)
            for new, nodes in by_text.items():
                doc.set_strs(nodes, new)
            if h:
                _rename_in_tree(res, h, retention)
            try:
                text = indent_item(bytes(doc.emit()), indent)
            except YamlError as exc:  # nested deeper than rapidyaml writes (limits.py checks first)
                raise InputError(f"{exc}; flatten it, or leave it out of the function's input", res.ref) from None
        res.drop()
        out.append(text)
    return out


def reference_tables(config: Config) -> dict[str, ReferenceTable]:
    """The reference table of each renamed kind: the built-in rows and the user's field specs."""
    return ReferenceTable.by_renamed_kind(config.field_specs)


def transform(rl: ResourceList, config: Config) -> tuple[list[bytes], list[Result]]:
    """The output items and the results. Raises KrmfnError, before writing anything, on bad input.

    (function.py runs the same three passes with the reading and writing on two cores.)
    """
    scanned = scan(rl, config, reference_tables(config))
    p = plan(scanned, config, rl.item_name)
    return write(scanned, p, config, rl.layout.indent), p.results


__all__ = ["plan", "scan", "transform", "write"]
