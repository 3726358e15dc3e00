"""Pass 1 of the rewrite: read every item once, keeping only what planning needs.

For each item, while its tree is alive: an opted-in object of a renamed kind is hashed (and its
own text edits prepared); a referrer's names of such objects are noted, with where each sits in
the item's text. The tree is dropped after, so memory follows one item, not the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from krmfn.core import hashing
from krmfn.core.config import Config
from krmfn.core.fieldspec import FieldSpec
from krmfn.core.kinds import RenamedKind, renamed_kind
from krmfn.core.renamed import renamed_edits
from krmfn.core.retention import KUSTOMIZE_HASHES, OPT_IN, ORIGINAL_NAME, retention_annotations
from krmfn.core.walk import ReferenceTable, find
from krmfn.document.envelope import ResourceList
from krmfn.document.resource import Resource, read_resource
from krmfn.document.textedit import Edit
from krmfn.results import InputError, ReferenceProblem, ResourceRef, Result

MAX_NAME = 253
# A DNS subdomain (RFC 1123), as Kubernetes requires of a ConfigMap's name.
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
# Kinds whose text may mention ConfigMaps without naming one (data, schemas): never searched
# for unplaced references (a CRD's schema can be megabytes of "configMapRef" properties).
NOT_REFERRERS = frozenset({"ConfigMap", "Secret", "CustomResourceDefinition"})


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
    unplaced: bool = False  # shaped like a reference where the table does not look: warn only
    kind: str = "ConfigMap"  # the renamed kind it names
    in_known_kind: bool = False  # unplaced, in a kind the table knows (outside its paths)


@dataclass(repr=False, eq=False)
class Scanned:
    """What the plan needs from the items, read one item at a time."""

    resources: list[Resource] = field(default_factory=list)
    renamed: list[Resource] = field(default_factory=list)  # every object of a renamed kind
    hashed: list[Hashed] = field(default_factory=list)
    references: dict[int, list[Reference]] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)


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
    digest = hashing.digest(config.algorithm, kind.hash_input(content))
    if original == res.name and res.name.endswith(f"-{digest}") and ORIGINAL_NAME not in res.annotations:
        original = res.name[:-len(digest) - 1]  # already named by its content (kustomize's generator): kept
    new_name = f"{original}-{digest}"
    if len(new_name) > MAX_NAME:
        raise ReferenceProblem(f"the hashed name would be {len(new_name)} characters, over Kubernetes' {MAX_NAME}; "
                               f"shorten the {kind.kind}'s name", res.ref, "metadata.name")
    h = Hashed(res, original, new_name)
    h.edits = renamed_edits(res, original, new_name, retention)
    out.hashed.append(h)


def scan(rl: ResourceList, config: Config, tables: dict[str, ReferenceTable], start: int = 0,
         stop: int | None = None) -> Scanned:
    """Read every item (of ``start:stop``) once, keeping only what planning needs; each
    tree is dropped after. ``tables``: the reference table of each renamed kind."""
    out = Scanned()
    retention = retention_annotations(config.retention)
    for index in range(start, len(rl.sources) if stop is None else stop):
        source = rl.sources[index]
        res = read_resource(source, index, rl.item_name(index), rl.placer(index))
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
        # Reference-shaped fields the table does not cover: in a kind it does not know, or, in one
        # it knows, when the text mentions ConfigMaps more often than the walk found names (cheap).
        if res.kind not in NOT_REFERRERS and \
                (source.count(b"onfigMap") not in (0, len(refs)) if known else source.find(b"onfigMap") >= 0):
            from krmfn.core import unplaced  # here, for start-up time: few runs need it

            doc = res.tree
            placed = {ref.node for ref in refs}
            refs += [Reference(node, doc.string(node) or "", None, unplaced=True, in_known_kind=known)
                     for node in unplaced.candidates(doc, res.node, res.metadata) if node not in placed]
        if refs:
            out.references[index] = refs
        res.drop()
    return out
