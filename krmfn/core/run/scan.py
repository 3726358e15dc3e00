"""The scan, the first step of the rename: read every item once, keeping only what the plan needs.

For each item, while its tree is alive: an opted-in object of a renamed kind is hashed (and its
own text edits prepared); a referrer's names of such objects are noted, with where each sits in
the item's text. The tree is dropped after, so memory follows one item, not the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, NamedTuple

from krmfn.core.config import Config, Strategy
from krmfn.core.naming import hashing
from krmfn.core.naming.content import (
    check_unique_keys,
    content,
    content_family,
    family_of,
    made_names,
    original_name,
    stale_original,
)
from krmfn.core.naming.renamed import renamed_edits
from krmfn.core.naming.retention import KUSTOMIZE_HASHES, OPT_IN, OPTED_OUT, ORIGINAL_NAME, retention_annotations
from krmfn.core.naming.strategy import STRATEGY, content_digest, strategy_of
from krmfn.core.references.kinds import BY_KIND, RenamedKind, reference_kind, renamed_kind
from krmfn.core.references.known import read_by_name
from krmfn.core.references.table import template_metadata
from krmfn.core.references.walk import ReferenceTable, find
from krmfn.core.report.rollout import Verdict, verdict
from krmfn.core.report.rollpath import Read, has_checksum, read_via
from krmfn.core.selection.filled import explicit, filled_by, left_alone, refuse
from krmfn.core.selection.optin import (
    MARK_BYTES,
    OWN_BYTES,
    ROLL_TOOLS,
    Mark,
    check_own_keys,
    may_mark,
    misplaced,
    own_choice,
    read_marks,
)
from krmfn.core.selection.selector import DNS_SUBDOMAIN
from krmfn.krm.envelope import ResourceList
from krmfn.krm.resource import Resource, known_resource, read_resource
from krmfn.results import InputError, ReferenceProblem, ResourceRef, Result
from krmfn.yaml.follow import Walk
from krmfn.yaml.split import ItemText
from krmfn.yaml.textedit import Edit, NotEditable, replace_scalar, site
from krmfn.yaml.tree import Doc, Node

if TYPE_CHECKING:
    from krmfn.core.naming.annotate import Prepared

MAX_NAME = 253
# Kinds whose text may mention ConfigMaps without naming one (data, schemas): never searched
# for unplaced references (a CRD's schema can be megabytes of "configMapRef" properties).
NOT_REFERRERS = frozenset({*BY_KIND, "CustomResourceDefinition"})
# The renamed kinds whose references are looked for where the table does not look, and the bytes
# each of their shapes holds (core.references.unplaced.SHAPES, not imported here for start-up time).
UNPLACED_MARKERS = (("ConfigMap", b"onfigMap"), ("Secret", b"ecret"))
# Bytes the text of every such shape holds (its key, or a ``kind:`` value): a text with none of
# them has no reference-shaped field, whatever else mentions a renamed kind (a Role's
# ``resources: [secrets]``), and is not parsed for one (tests/core/test_unplaced.py holds this).
SHAPE_BYTES = (b"onfigMap", b"secretRef", b"secretKeyRef", b"secretName", b"Secret")


@dataclass(slots=True, repr=False, eq=False)
class Hashed:
    """One opted-in object of a renamed kind (a ConfigMap) and what the run does to it."""

    res: Resource
    original: str
    new_name: str
    referrers: dict[ResourceRef, None] = field(default_factory=dict)  # an ordered set
    edits: list[Edit] = field(default_factory=list)  # the rename in its own text (made while its tree was read)
    # suffix: renamed <original>-<hash>; annotation: keeps its name, referrers carry a hash of its
    # content (core.naming.strategy); off: opted out after krmfn renamed it, so it gets its name back.
    strategy: Strategy = Strategy.SUFFIX
    content: str = ""  # annotation: a digest of its content, for its referrers' pod-template hash
    by_select: bool = False  # opted in by nothing but the function config's select: all
    # What references carry when its controller makes an object of another name (an ExternalSecret's
    # spec.target.name): its new name and its family. "": the object's own (new_name, original).
    made: str = ""
    made_family: str = ""

    @property
    def ref_name(self) -> str:
        """The name references to it carry after this run."""
        return self.made or self.new_name

    @property
    def ref_family(self) -> str:
        """The name references to it carried before krmfn hashed it."""
        return self.made_family or self.original


@dataclass(slots=True, repr=False, eq=False)
class Reference:
    """A scalar in a referrer that names an object of a renamed kind; ``site``: where its text is
    (yaml.textedit.site), so that the write needs no tree; None where it cannot be edited."""

    node: Node
    name: str
    site: tuple | None
    namespace: str | None = None  # named beside the reference (Node); None: the referrer's rules
    prefix: str = ""  # text before the name in the same scalar (``namespace/``)
    unplaced: bool = False  # shaped like a reference where the table does not look: warn only
    kind: str = "ConfigMap"  # the renamed kind it names
    in_known_kind: bool = False  # unplaced, in a kind the table knows (outside its paths)


class Declined(NamedTuple):
    """Why an object of a renamed kind is never hashed in this run."""

    why: str
    outside: bool = False  # a controller writes its content: it changes outside Git (core.report.rotation)


@dataclass(repr=False, eq=False)
class Scanned:
    """What the plan needs from the items, read one item at a time."""

    resources: list[Resource] = field(default_factory=list)
    renamed: list[Resource] = field(default_factory=list)  # every object of a renamed kind
    hashed: list[Hashed] = field(default_factory=list)
    references: dict[int, list[Reference]] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)
    # objects never hashed, and why: their own annotation says "false", a controller fills them
    # (core.selection.filled: the reason's ``outside`` is set, its content is not the render's), or a program
    # reads them by name (core.references.known)
    declined: dict[int, Declined] = field(default_factory=dict)
    # Objects not hashed (yet) whose name is a hashed name of the family they record: a mark
    # names them by that family name (item index -> the family name).
    families: dict[int, str] = field(default_factory=dict)
    marks: dict[int, list[Mark]] = field(default_factory=dict)  # workloads' opt-in marks, by item
    # What a new pod template does to each referrer that runs pods (core.report.rollout), by item.
    rollouts: dict[int, Verdict] = field(default_factory=dict)
    # The roll-path audit (core.report.rollpath): references read through env, envFrom or a subPath mount
    # by a workload without a checksum/* annotation, with every roll mark it carries, by item.
    reads: dict[int, list[tuple[int, Read]]] = field(default_factory=dict)  # (place in references[item], how)
    roll_marks: dict[int, list[Mark]] = field(default_factory=dict)
    immutable: set[int] = field(default_factory=set)  # objects of a renamed kind with immutable: true
    # Objects whose controller makes an object of another name (an ExternalSecret's spec.target.name):
    # item index -> (that name, its family). Others are named by their own name and family.
    made: dict[int, tuple[str, str]] = field(default_factory=dict)
    # Where each referrer's stable-name annotation goes (core.naming.annotate), by item: found
    # while its tree is read, in runs that may hold a stable-name object.
    templates: dict[int, Prepared] = field(default_factory=dict)

    def named_as(self, res: Resource) -> tuple[str, str]:
        """The (kind, name) a reference to this object of a renamed kind carries."""
        made = self.made.get(res.index)
        return reference_kind(res.api_version, res.kind), res.name if made is None else made[0]

    def family_as(self, res: Resource, family: str) -> tuple[str, str]:
        """The (kind, family name) a reference to it carried before krmfn hashed it."""
        made = self.made.get(res.index)
        return reference_kind(res.api_version, res.kind), family if made is None else made[1]


def _scan_renamed(res: Resource, kind: RenamedKind, config: Config, retention: dict[str, str], out: Scanned) -> None:
    """An object of a renamed kind: noted for the plan, and hashed when it or the config opts it in."""
    out.renamed.append(res)
    check_unique_keys(res)
    if b"immutable" in res.source and res.tree.scalar(res.tree.get(res.node, "immutable")) == "true":
        out.immutable.add(res.index)
    original = family_of(res, kind)
    made = made_names(res, kind, original)
    if made is not None:
        out.made[res.index] = made[1:]
    stale = stale_original(res)
    if stale is not None:
        out.results.append(stale)
    filled = filled_by(res) if kind.kind == "Secret" else None
    if filled is not None:
        why, outside = filled
        how = explicit(res, original, config)
        if how is not None:
            raise refuse(res, why, how)
        out.declined[res.index] = Declined(why, outside)
        if own_choice(res, kind, original, config):  # select, a selector: say why it is not hashed (under -v)
            out.results.append(left_alone(res, why))
        return
    choice = own_choice(res, kind, original, config)
    if choice and explicit(res, original, config) is None:  # select or a selector: not a reader krmfn can follow
        known = read_by_name(res, original)
        if known is not None:
            out.declined[res.index] = Declined(known)
            out.results.append(left_alone(res, known, "renamed"))
            return
    if choice is None:  # a workload's mark may still opt it in (core.plan.marks)
        if ORIGINAL_NAME in res.annotations and original != res.name:  # krmfn renamed it: a mark may name its family
            out.families[res.index] = original
        return
    if not choice:
        out.declined[res.index] = Declined(OPTED_OUT)
        if ORIGINAL_NAME in res.annotations:  # krmfn renamed it before: the way out (core.naming.restore)
            from krmfn.core.naming.restore import renamed_before, restore_edits  # here, for start-up time: rare

            if renamed_before(res, original):
                out.hashed.append(_made(Hashed(res, original, original, edits=restore_edits(res, original),
                                               strategy=Strategy.OFF), kind, made))
        if original in config.names and kind.kind in config.kinds:
            out.results.append(Result(f"not hashed: its opt-out annotation ({OPT_IN}: false) wins over the "
                                      "function config's names", "info", res.ref))
        return
    h = hash_object(res, kind, original, config, retention, out.results)
    if h is not None:
        # Opted in by select: all alone: a rename may break a program that reads it by a fixed name.
        h.by_select = (OPT_IN not in res.annotations and original not in config.names
                       and not config.selector.matches(res.labels))
        out.hashed.append(h)


def hash_object(res: Resource, kind: RenamedKind, original: str, config: Config, retention: dict[str, str],
                results: list[Result]) -> Hashed | None:
    """An opted-in object's new name and its own text edits; None when kustomize hashes it itself.
    Raises on a value or name Kubernetes would refuse."""
    if res.annotations.get(KUSTOMIZE_HASHES) == "enabled":
        results.append(Result(f"left alone: kustomize adds its own hash suffix to this {kind.kind} "
                              f"({KUSTOMIZE_HASHES})", "info", res.ref))
        return None
    made = made_names(res, kind, original)
    if strategy_of(res, config) is Strategy.ANNOTATION:
        return _made(_stable(res, original_name(res), kind.hash_input(content(res, kind)), results), kind, made)
    if kind.check is not None:
        kind.check(res)
    if not DNS_SUBDOMAIN.fullmatch(original):  # the API server would refuse the hashed name
        fixed = re.sub(r"[^a-z0-9.-]+", "-", original.lower()).strip("-.") or "config"
        raise ReferenceProblem(f"{original!r} is not a valid {kind.kind} name: Kubernetes allows lowercase "
                               "letters, digits, '-' and '.', starting and ending with a letter or digit; rename "
                               f"it, e.g. to {fixed!r}", res.ref, "metadata.name")
    doc = res.tree
    for key in ("annotations", "labels"):
        node = doc.get(res.metadata, key)
        if node is not None and not doc.is_map(node) and not doc.is_null(node):
            raise InputError(f"metadata.{key} is {doc.describe(node)}, not a map", res.ref, f"metadata.{key}")
    encoded = kind.hash_input(content(res, kind))
    digest = hashing.digest(config.algorithm, encoded)
    if original == res.name and ORIGINAL_NAME not in res.annotations:
        # Already named by its content, under any algorithm (kustomize's generator): never a second
        # suffix; under this run's algorithm, the name is kept.
        original = content_family(res.name, encoded) or original
    new_name = f"{original}-{digest}"
    if len(new_name) > MAX_NAME:
        raise ReferenceProblem(f"the hashed name would be {len(new_name)} characters, over Kubernetes' {MAX_NAME}; "
                               f"shorten the {kind.kind}'s name", res.ref, "metadata.name")
    h = Hashed(res, original, new_name, edits=renamed_edits(res, original, new_name, retention, kind.immutable))
    if made is not None:
        node, name, family = made
        h.made, h.made_family = f"{family}-{digest}", family
        if len(h.made) > MAX_NAME:
            raise ReferenceProblem(f"the hashed name of the {kind.refers_as or 'object'} it makes would be "
                                   f"{len(h.made)} characters, over Kubernetes' {MAX_NAME}; shorten "
                                   f"{'.'.join(kind.made_name)}", res.ref, ".".join(kind.made_name))
        if name != h.made:
            h.edits.append(replace_scalar(res.tree, node, h.made))
    return h


def _made(h: Hashed, kind: RenamedKind, made: tuple[Node, str, str] | None) -> Hashed:
    """An object that keeps its name or gets it back: what its controller makes does too."""
    if made is not None:
        node, name, family = made
        h.made = h.made_family = family
        if name != family and h.edits:  # the restore: its own name goes back, and this one with it
            h.edits.append(replace_scalar(h.res.tree, node, family))
    return h


def _stable(res: Resource, original: str, encoded: str, results: list[Result]) -> Hashed:
    """An object under the stable-name strategy: it keeps (or gets back) its original name and
    its referrers carry a digest of its content (core.naming.strategy)."""
    edits: list[Edit] = []
    if ORIGINAL_NAME in res.annotations:  # switched from the suffix strategy
        from krmfn.core.naming.restore import renamed_before, restore_edits  # here, for start-up time: rare

        if renamed_before(res, original):
            edits = restore_edits(res, original)
    if edits == [] and res.tree.scalar(res.tree.get(res.node, "immutable")) == "true":
        results.append(Result(f"immutable: true and a name that stays (strategy: annotation): the API server refuses "
                              f"every later change of this {res.kind}'s data. Remove immutable, or use the suffix "
                              "strategy for it", "warning", res.ref, "immutable"))
    return Hashed(res, original, original, edits=edits, strategy=Strategy.ANNOTATION, content=content_digest(encoded))


def _scan_marks(res: Resource, config: Config, out: Scanned) -> None:
    """A workload's opt-in marks, for the plan; and a mark written in its pod template instead,
    where nothing reads it (a warning saying where it belongs)."""
    marks = read_marks(res, config)
    if marks:
        out.marks[res.index] = marks
    path = template_metadata(res.api_version, res.kind)
    doc = res.tree
    node = doc.path(res.node, *path, "annotations") if path else None
    if path is None or node is None:
        return
    where = ".".join(path)
    for key in misplaced(doc.scalar_map(doc.resolve(node)), config):
        out.results.append(Result(
            f"{key} sits in the pod template's annotations, where nothing reads it (the pods would carry it): move "
            f"it to the {res.kind}'s own metadata.annotations", "warning", res.ref, f"{where}.annotations[{key}]"))


def _scan_reads(res: Resource, refs: list[Reference], config: Config, out: Scanned) -> None:
    """What the roll-path audit needs of a workload: how each reference is read, unless its pod
    template's checksum/* annotation rolls it; and every roll mark it carries, honoured or not."""
    doc = res.tree
    path = template_metadata(res.api_version, res.kind)
    node = doc.path(res.node, *path, "annotations") if path else None
    if node is not None and has_checksum(doc.scalar_map(doc.resolve(node))):
        return
    reads = [(i, read) for i, ref in enumerate(refs) if (read := read_via(doc, ref.node, res.node)) is not None]
    if not reads:
        return
    out.reads[res.index] = reads
    if any(MARK_BYTES[tool] in res.source for tool in ROLL_TOOLS):
        try:
            out.roll_marks[res.index] = read_marks(res, replace(config, honor=frozenset(ROLL_TOOLS)))
        except InputError:  # a mark krmfn cannot read: assume it rolls (the honoured run says why)
            out.roll_marks[res.index] = [Mark("", ("ConfigMap", "Secret"))]


# Kinds whose pods run once: a change they never see is no roll path to audit (core.report.audit).
ONE_SHOT = frozenset({"Pod", "Job"})


def _needs_reading(res: Resource, source: bytes, config: Config, table: ReferenceTable) -> bool:
    """Whether an object's bytes can matter: a renamed kind or a kind the table notes, krmfn's own
    keys or a workload mark in it, a key the table's paths for its kind go through, or a field
    shaped like a reference where references may hide. Real renders are mostly CRDs, RBAC and
    workloads that read no ConfigMap: their objects are never parsed alone. A backslash may
    escape a key's letters: a text with one is read."""
    if renamed_kind(res.api_version, res.kind) is not None or res.kind in table.notice_kinds:
        return True
    if OWN_BYTES in source or may_mark(source, config):
        return True
    if table.walk_for(res.api_version, res.kind) is not None and table.may_name(res.api_version, res.kind, source):
        return True
    return res.kind not in NOT_REFERRERS and (b"\\" in source or any(b in source for b in SHAPE_BYTES))


def _site(doc: Doc, node: Node) -> tuple | None:
    try:
        return site(doc, node)
    except NotEditable:
        return None  # the write reads the item again and names the field


def unread(rl: ResourceList, config: Config, table: ReferenceTable) -> list[Resource | None]:
    """Each item that is never parsed, as known from its cut (its identity) alone; None for an
    item whose bytes can matter. Byte searches only: the work ahead is told before it starts."""
    texts = rl.sources
    return [_unread(texts.span(index), index, rl.identity(index), config, table) for index in range(len(texts))]


def _unread(text: ItemText, index: int, ident: dict[str, str] | None, config: Config,
            table: ReferenceTable) -> Resource | None:
    plain = known_resource(text, index, ident)
    return plain if plain is not None and not _needs_reading(plain, text.read(), config, table) else None


class Scanner:
    """The scan's state over the items it reads, one at a time and in order: :func:`scan` reads
    them by index after the cut, core.run.stream as the cut's pass hands each over."""

    def __init__(self, config: Config, table: ReferenceTable, data: bytes):
        self.config, self.table = config, table
        self.out = Scanned()
        self.retention = retention_annotations(config.retention)
        # a referrer's stable-name annotation is prepared while its tree is read, where a stable-name
        # object may be (the config's strategy, or an object's own annotation: a byte search)
        self.stable = config.strategy is Strategy.ANNOTATION or STRATEGY.encode() in data

    def unread(self, text: ItemText, index: int, ident: dict[str, str] | None) -> Resource | None:
        """The item as its cut knows it, when nothing in it can matter (never parsed); else None."""
        return _unread(text, index, ident, self.config, self.table)

    def may_parse(self, kind: str) -> bool:
        """Whether an object of ``kind`` may be parsed: not a kind parsed only for krmfn's own keys
        or a mark written in it (a CustomResourceDefinition), which seldom are."""
        table = self.table
        return kind in BY_KIND or kind in table.rows or kind in table.notice_kinds or kind not in NOT_REFERRERS

    def skip(self, plain: Resource) -> None:
        self.out.resources.append(plain)

    def add(self, res: Resource) -> None:
        """A parsed item: read, then its tree is dropped."""
        self.out.resources.append(res)
        _scan_item(res, self.config, self.table, self.retention, self.out, self.stable)


def scan(rl: ResourceList, config: Config, table: ReferenceTable, start: int = 0,
         stop: int | None = None, plain: list[Resource | None] | None = None) -> Scanned:
    """Read every item (of ``start:stop``) once, keeping only what planning needs; each
    tree is dropped after. ``plain``: :func:`unread`, when it is known already."""
    scanner = Scanner(config, table, rl.layout.data)
    if plain is None:
        plain = unread(rl, config, table)
    for index in range(start, len(rl.sources) if stop is None else stop):
        known = plain[index]
        if known is not None:
            scanner.skip(known)
        else:
            scanner.add(read_resource(rl.sources.span(index), index, rl.item_name(index), rl.placer(index)))
    return scanner.out


def _scan_item(res: Resource, config: Config, table: ReferenceTable, retention: dict[str, str],
               out: Scanned, stable: bool = False) -> None:
    """One parsed item: what it is (an object of a renamed kind), what it names, what marks it
    carries and what a new pod template does to it; then its tree is dropped."""
    index, source = res.index, res.source
    kind = renamed_kind(res.api_version, res.kind)
    if OWN_BYTES in source:  # krmfn's own keys: a misspelt one, an unquoted true (a byte search first)
        check_own_keys(res, None if kind else template_metadata(res.api_version, res.kind), out.results)
    if kind is not None:
        try:
            _scan_renamed(res, kind, config, retention, out)
        except NotEditable as exc:
            where = res.tree.path_of(exc.node, res.node)
            raise InputError(f"{where} must change and cannot be written in place: {exc}", res.ref,
                             where) from None
    walk = table.walk_for(res.api_version, res.kind)
    refs = [] if walk is None else _references(res, walk)
    if res.kind in table.notice_kinds:
        out.results += [Result(message, "info", res.ref, path)
                        for path, message in table.notes(res.tree, res.node, res.api_version, res.kind)]
    if walk is not None and may_mark(source, config):
        _scan_marks(res, config, out)
    if refs or index in out.marks:
        path = template_metadata(res.api_version, res.kind) if stable else None
        if path is not None:
            from krmfn.core.naming.annotate import prepare  # here, for start-up time: stable-name runs only

            out.templates[index] = prepare(res, path)
        found = verdict(res.tree, res.node, res.api_version, res.kind)
        if found is not None:
            out.rollouts[index] = found
            if refs and config.audit != "off" and res.kind not in ONE_SHOT:  # audit: off looks for nothing
                _scan_reads(res, refs, config, out)
    if res.kind not in NOT_REFERRERS:
        refs += _unplaced(res, refs, known=walk is not None)
    if refs:
        out.references[index] = refs
    if res.doc is not None and res.doc.may_alias:
        res.aliases = True
    res.drop(keep_meaning=kind is not None or bool(refs) or index in out.marks)  # the items that can change


def _references(res: Resource, walk: Walk) -> list[Reference]:
    """The names of objects of renamed kinds at the paths the table gives for the item's kind."""
    doc = res.tree
    refs = []
    for node, target, spec in find(doc, res.node, walk):
        name = doc.string(node)
        if name is None:
            continue
        ref = Reference(node, name, _site(doc, node), kind=target)
        if spec is not None:  # rare: the name part of ``namespace/name``, a namespace named beside it
            ref.name, ref.namespace, ref.prefix = spec.target(doc, node, name)
        refs.append(ref)
    return refs


def _unplaced(res: Resource, refs: list[Reference], known: bool) -> list[Reference]:
    """Reference-shaped fields the table does not cover: in a kind it does not know (``known``
    false), or, in one it knows, when the text mentions a renamed kind more often than the walk
    found names of it. A byte count: most items pay nothing more."""
    shapes = []
    for target, mark in UNPLACED_MARKERS:
        mentions = res.source.count(mark)
        if mentions and (not known or mentions != sum(r.kind == target for r in refs)):
            shapes.append(target)
    if not shapes:
        return []
    from krmfn.core.references import unplaced  # here, for start-up time: few runs need it

    doc = res.tree
    placed = {ref.node for ref in refs}
    return [Reference(node, doc.string(node) or "", None, unplaced=True, kind=target, in_known_kind=known)
            for node, target in unplaced.candidates(doc, res.node, res.metadata,
                                                   [unplaced.SHAPES[k] for k in shapes])
            if node not in placed]
