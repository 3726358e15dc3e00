"""What a config change does before it merges: two renders compared, object by object.

Why a module apart from the rename planner (core.run.plan): that one plans one render's renames;
this one pairs the versions of each ConfigMap and Secret across two renders (by the family
krmfn records, else by name), says which keys changed, and which workloads roll because of it
and how (the verdicts of core.report.rollout). Secrets are compared but only their key names leave
this module: no value, length or digest of one.
"""

from __future__ import annotations

import base64
import binascii
import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from krmfn.core.naming.retention import FAMILY, ORIGINAL_NAME
from krmfn.core.references.fieldspec import split_path
from krmfn.core.references.kinds import BY_KIND, RENAMED
from krmfn.core.references.table import CONTAINER_LISTS, KEYS_READ, POD_SPEC_KINDS, SHAPE_FIELDS, pod_spec_paths
from krmfn.core.references.walk import ReferenceTable, find
from krmfn.core.report import rollout
from krmfn.core.selection.optin import RELOADER_AUTO, RELOADER_LISTS
from krmfn.krm.data import to_data
from krmfn.krm.objects import read_objects
from krmfn.krm.resource import Resource
from krmfn.yaml.tree import Doc, Node

CONFIG_KINDS = tuple(k.kind for k in RENAMED)  # ConfigMap, Secret, and the secret controllers' kinds
ALL = "*"  # a workload reads every key (envFrom, a whole volume)
MAX_LINES, MAX_WIDTH = 12, 120  # a changed ConfigMap value's diff, trimmed

# Categories a workload's roll falls in: --fail-on names them.
CATEGORIES = ("rolls", "downtime", "on-delete", "cannot-apply", "paused", "no-roll", "unread", "template")


@dataclass(frozen=True)
class Obj:
    """One object of a render, as data, with its tree kept for the rollout verdict."""

    api_version: str
    kind: str
    namespace: str
    name: str
    family: str  # the name its versions share
    data: dict
    doc: Doc
    node: Node


@dataclass
class ConfigChange:
    kind: str
    namespace: str
    family: str
    old_name: str | None
    new_name: str | None
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    diffs: dict[str, list[str]] = field(default_factory=dict)  # ConfigMaps only
    # The names workloads read it by, where they differ (the Secret an ExternalSecret makes): old, new.
    made: tuple[str | None, str | None] = (None, None)

    @property
    def status(self) -> str:
        return "added" if self.old_name is None else "removed" if self.new_name is None else "changed"

    @property
    def renamed(self) -> bool:
        return self.old_name is not None and self.new_name is not None and self.old_name != self.new_name

    @property
    def shows_names(self) -> bool:
        """A Secret's hashed name is a digest of its values (likewise every kind whose values are
        secret, core.references.kinds): a plan never shows it."""
        return not BY_KIND[self.kind].secret

    @property
    def keys(self) -> set[str]:
        return set(self.added) | set(self.removed) | set(self.changed)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "namespace": self.namespace, "name": self.family}
        if self.shows_names:
            out |= {"oldName": self.old_name, "newName": self.new_name}
        out |= {"status": self.status, "renamed": self.renamed, "added": self.added, "removed": self.removed,
                "changed": self.changed}
        if self.kind == "ConfigMap":
            out["diffs"] = self.diffs
        return out


@dataclass
class Roll:
    """One workload that reads a changed object: how it takes the change."""

    kind: str
    namespace: str
    name: str
    category: str
    text: str
    field: str
    replicas: str | None
    reads: dict[str, list[str]]  # "Kind name" -> changed keys it reads ([ALL]: every key)
    reads_changed: bool
    template_changes: bool
    # What rolls it when an object it reads changes: krmfn's hash at render, by object ("ConfigMap
    # app"); Reloader, by the objects its reload annotations name (or its blanket auto mark).
    at_render: tuple[str, ...] = ()
    at_rotation: tuple[str, ...] = ()
    # How its pod template changed for a reason other than config (an image, resources, env, a command).
    other: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "category": self.category,
                "field": self.field, "text": self.text, "replicas": self.replicas, "reads": self.reads,
                "readsChangedKeys": self.reads_changed, "templateChanges": self.template_changes,
                "rollsAtRender": list(self.at_render), "rollsAtRotation": list(self.at_rotation),
                "otherChanges": list(self.other)}


@dataclass
class ChangePlan:
    """What ``krmfn plan OLD NEW`` says: the config changes and the workloads they roll."""

    configs: list[ConfigChange]
    rolls: list[Roll]

    def categories(self) -> set[str]:
        found = {r.category for r in self.rolls}
        found |= {"unread" for r in self.rolls if r.template_changes and not r.reads_changed and r.reads}
        found |= {"template" for r in self.rolls if r.other}
        return found

    def to_json(self) -> dict[str, object]:
        return {"apiVersion": "krmfn.dev/plan/v1", "configs": [c.to_json() for c in self.configs],
                "workloads": [r.to_json() for r in self.rolls]}


# --- reading a render ----------------------------------------------------------------------

def read_render(data: bytes, name: str | None = None) -> list[Obj]:
    """Every object of a render (a ResourceList's items, or each document of a stream), read and
    checked as every mode reads its input (krm.objects); ``name``: the render's in messages."""
    return objects_of(read_objects([data], [name]))


def objects_of(resources: Iterable[Resource]) -> list[Obj]:
    """The objects a plan compares, from the resources read."""
    out = []
    for res in resources:
        doc, node = res.tree, res.node
        data = to_data(doc, node)
        assert isinstance(data, dict)
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        assert isinstance(annotations, dict) and isinstance(labels, dict)
        name, kind = res.name, res.kind
        family = str(annotations.get(ORIGINAL_NAME) or labels.get(FAMILY) or name) if kind in CONFIG_KINDS else name
        out.append(Obj(res.api_version, kind, res.namespace, name, family, data, doc, node))
    return out


# --- configs -------------------------------------------------------------------------------

def _values(obj: Obj | None) -> dict[str, tuple[str, str]]:
    """Each key: (section, value); a Secret's stringData is read as its data would be. The secret
    controllers' kinds: the keys of the Secret they make, where their spec says (core.references.controllers)."""
    out: dict[str, tuple[str, str]] = {}
    if obj is None:
        return out
    if obj.kind not in ("ConfigMap", "Secret"):
        from krmfn.core.references.controllers import made_keys  # here, for start-up time: few plans hold one

        return made_keys(obj.kind, obj.data)
    sections = ("data", "binaryData") if obj.kind == "ConfigMap" else ("data", "stringData")
    for section in sections:
        values = obj.data.get(section)
        if isinstance(values, dict):
            for key, value in values.items():
                text = "" if value is None else str(value)
                if section == "stringData":  # as the API server stores it
                    text = base64.b64encode(text.encode()).decode()
                out[str(key)] = ("data" if section == "stringData" else section, text)
    return out


def _size(text: str) -> int:
    try:
        return len(base64.b64decode("".join(text.split()), validate=True))
    except (binascii.Error, ValueError):
        return len(text)


def _trim(line: str) -> str:
    return line if len(line) <= MAX_WIDTH else line[:MAX_WIDTH - 1] + "…"


def value_diff(old: tuple[str, str], new: tuple[str, str]) -> list[str]:
    """A short diff of one ConfigMap value: unified lines, trimmed; binaryData as sizes."""
    if "binaryData" in (old[0], new[0]):
        sizes = [f"{_size(v)} bytes" if s == "binaryData" else f"{len(v.encode())} bytes of text"
                 for s, v in (old, new)]
        return [f"binary: {sizes[0]} -> {sizes[1]}"]
    lines = [line.rstrip("\n") for line in difflib.unified_diff(
        old[1].splitlines(), new[1].splitlines(), lineterm="", n=1)][2:]
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"... {len(lines) - MAX_LINES} more lines"]
    return [_trim(line) for line in lines]


def config_change(old: Obj | None, new: Obj | None) -> ConfigChange | None:
    """What changed between two versions of one ConfigMap or Secret; None when nothing did."""
    some = new or old
    assert some is not None
    before, after = _values(old), _values(new)
    change = ConfigChange(some.kind, some.namespace, some.family, old.name if old else None,
                          new.name if new else None, made=(_made(old), _made(new)))
    change.added = sorted(set(after) - set(before))
    change.removed = sorted(set(before) - set(after))
    change.changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    if some.kind == "ConfigMap":
        change.diffs = {k: value_diff(before[k], after[k]) for k in change.changed}
    if old is not None and new is not None and not change.keys and _rest(old) == _rest(new):
        return None
    return change


def _rest(obj: Obj) -> object:
    """What else an object holds (type, immutable), apart from its values and names."""
    if obj.kind not in ("ConfigMap", "Secret"):  # a custom resource: its spec, less the made name
        from krmfn.core.references.controllers import made_rest  # here, for start-up time: few plans hold one

        return made_rest(obj.kind, obj.data)
    return {k: v for k, v in obj.data.items() if k not in ("data", "binaryData", "stringData", "metadata")}


def _made(obj: Obj | None) -> str | None:
    """The name workloads read it by, when its controller makes an object of another name."""
    if obj is None:
        return None
    path = BY_KIND[obj.kind].made_name
    found = _at(obj.data, path) if path else None
    return found if isinstance(found, str) and found else obj.name


# --- workloads -----------------------------------------------------------------------------

def _pod_path(obj: Obj) -> tuple[str, ...] | None:
    group = obj.api_version.rpartition("/")[0]
    for g, kind, path in POD_SPEC_KINDS:
        if kind == obj.kind and (g is None or g == group):
            return tuple(path.split("/"))
    return None


def _at(node: object, path: tuple[str, ...]) -> object:
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _read(reads: dict[tuple[str, str], set[str]], kind: str, name: object, key: object) -> None:
    if isinstance(name, str) and name:
        reads.setdefault((kind, name), set()).add(key if isinstance(key, str) else ALL)


def _keys_read(doc: Doc, holder: Node, how: str) -> list[str | None]:
    """The keys a reference reads, from the map that holds its name (core.references.table.KEYS_READ):
    the ``key`` beside it, or each of ``items``' keys; None for a key not given as text (every key)."""
    if how == "items":
        items = doc.get(holder, "items")
        items = doc.resolve(items) if items is not None else None
        listed = list(doc.children(items)) if items is not None and doc.is_seq(items) else []
        return [_text(doc, doc.get(item, "key")) if doc.is_map(item := doc.resolve(c)) else None
                for c in listed] or [None]
    return [_text(doc, doc.get(holder, how))]


def _text(doc: Doc, node: Node | None) -> str | None:
    """A scalar's text; None for none, a null, a map or a list (as plain data reads them)."""
    if node is None:
        return None
    node = doc.resolve(node)
    return None if not doc.is_scalar(node) or doc.is_null(node) else doc.scalar(node)


def _pod_order(steps: tuple[str | int, ...]) -> tuple[tuple[int, int], ...]:
    """Where a reference in a pod spec comes in a plan: in the table's order of its fields
    (containers, init containers, ..., then volumes; env before envFrom), each list in its order."""
    order: list[tuple[int, int]] = []
    keys: tuple[str, ...] = ()
    for step in steps:
        if isinstance(step, int):
            order.append((0, step))
        else:
            order.append((1, _RANK.get((keys, step), len(_RANK))))
            keys += (step,)
    return tuple(order)


def _ranks() -> dict[tuple[tuple[str, ...], str], int]:
    """Each key of a pod spec's reference paths, after the keys before it, by first place in the table."""
    ranks: dict[tuple[tuple[str, ...], str], int] = {}
    for kind in SHAPE_FIELDS:
        for path in pod_spec_paths("", kind):
            keys = split_path(path)
            for i, key in enumerate(keys):
                ranks.setdefault((keys[:i], key), len(ranks))
    return ranks


_RANK = _ranks()


def reads_of(obj: Obj, table: ReferenceTable) -> dict[tuple[str, str], set[str]]:
    """Which keys of which (kind, name) a workload reads, from every reference the table's walk finds
    in it: key by key in its pod spec (the map holding a name says which keys: KEYS_READ), every key
    elsewhere (an operator's spec, Argo's templates)."""
    walk = table.walk_for(obj.api_version, obj.kind)
    found = find(obj.doc, obj.node, walk) if walk is not None else []
    doc, pod = obj.doc, _node_at(obj, _pod_path(obj) or ("spec", "template", "spec"))
    in_pod: list[tuple[Node, str, tuple[str | int, ...]]] = []
    elsewhere: list[tuple[Node, str, None]] = []
    for node, kind, _ in found:
        steps = _below(doc, node, pod) if pod is not None and not doc.is_null(node) else None
        if steps is None:
            elsewhere.append((node, kind, None))
        else:
            in_pod.append((node, kind, steps))
    in_pod.sort(key=lambda f: _pod_order(f[2]))
    reads: dict[tuple[str, str], set[str]] = {}
    for node, kind, steps in in_pod:
        how = KEYS_READ.get(steps[-2]) if len(steps) > 1 and isinstance(steps[-2], str) else None
        parent = doc.parent(node)
        for key in _keys_read(doc, parent, how) if how is not None and parent is not None else [None]:
            _read(reads, kind, doc.scalar(node), key)
    for node, kind, _ in elsewhere:
        if (kind, doc.scalar(node)) not in reads:
            _read(reads, kind, doc.scalar(node), None)
    return reads


def _node_at(obj: Obj, path: tuple[str, ...]) -> Node | None:
    """The map at ``path`` below the object, through maps only (aliases followed)."""
    doc, at = obj.doc, obj.node
    for key in path:
        child = doc.get(at, key) if doc.is_map(at) else None
        if child is None:
            return None
        at = doc.resolve(child)
    return at if doc.is_map(at) else None


def _below(doc: Doc, node: Node, top: Node) -> tuple[str | int, ...] | None:
    """The keys and list positions from ``top`` down to ``node``; None when it is not below ``top``."""
    up = doc.parent(node)
    while up is not None and up != top:
        up = doc.parent(up)
    return doc.steps_of(node, top) if up == top else None


def _category(found: rollout.Verdict) -> str:
    text = found[2]
    if "Recreate" in text:
        return "downtime"
    if "OnDelete" in text:
        return "on-delete"
    if text.startswith("cannot be applied"):
        return "cannot-apply"
    if text.startswith(("is paused", "is suspended")):
        return "paused"
    if text.startswith("does not roll"):
        return "no-roll"
    return "rolls"


def _replicas(obj: Obj) -> str | None:
    if obj.kind == "DaemonSet":
        return "one per node"
    if obj.kind in ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Rollout", "CloneSet"):
        spec = obj.data.get("spec")
        value = spec.get("replicas") if isinstance(spec, dict) else None
        return str(value) if value is not None else "1"
    if obj.kind == "Pod":
        return "1"
    return None


def _template(obj: Obj) -> object:
    path = _pod_path(obj)
    if path is not None:
        return _at(obj.data, path[:-1] if path[-1] == "spec" and len(path) > 1 else path)
    return obj.data.get("spec")


_CONTAINER_FIELDS = (("image", "image"), ("resources", "resources"), ("env", "env"), ("envFrom", "envFrom"),
                     ("command", "command"), ("args", "args"))


def _as_families(value: object, families: dict[str, str]) -> object:
    """``value`` with every hashed name written as its family's: what is left to differ is not config."""
    if isinstance(value, dict):
        return {k: _as_families(v, families) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_families(v, families) for v in value]
    return families.get(value, value) if isinstance(value, str) else value


def template_changes_besides_config(old: Obj, new: Obj, families: dict[str, str]) -> list[str]:
    """How a workload's pod template changed apart from the names of the config it reads: per
    container, its image (old -> new), resources, env, envFrom, command or args; else the rest of the
    template (labels, volumes, ...). Resources alone: whether the pods are replaced or resized."""
    before, after = _as_families(_template(old), families), _as_families(_template(new), families)
    if before == after:
        return []
    path = _pod_path(new)
    spec_path = ("spec",) if path is not None and path[-1] == "spec" and len(path) > 1 else ()
    pods = [_at(t, spec_path) if spec_path else t for t in (before, after)]
    out: list[str] = []
    fields: set[str] = set()
    for lists in CONTAINER_LISTS:
        was = {c.get("name"): c for c in _list(pods[0], lists)}
        for c in _list(pods[1], lists):
            prior = was.get(c.get("name"))
            if prior is None:
                out.append(f"{lists[:-1]} {c.get('name')} added")
                fields.add("added")
                continue
            for key, label in _CONTAINER_FIELDS:
                if prior.get(key) != c.get(key):
                    fields.add(key)
                    detail = f": {prior.get(key)} -> {c.get(key)}" if key == "image" else ""
                    out.append(f"{label} of container {c.get('name')}{detail}")
    if not out:
        return ["the pod template, outside its containers (labels, volumes, scheduling, ...)"]
    if fields == {"resources"}:
        out.append(_resized(new))
    return out


def _list(spec: object, key: str) -> list[dict]:
    found = spec.get(key) if isinstance(spec, dict) else None
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _resized(obj: Obj) -> str:
    """What a resources-only change does: in-place resize (GA in Kubernetes 1.35) is a Pod's, not a
    controller's template."""
    if obj.kind == "Pod":
        return ("resources only: on Kubernetes 1.35 and later the pod can be resized in place where its containers' "
                "resizePolicy allows, through the resize subresource (kubectl patch --subresource resize; an "
                "apply of the Pod is refused)")
    return (f"resources only: the {obj.kind} still replaces its pods (in-place resize, GA in Kubernetes 1.35, "
            "resizes a Pod; a controller's template change makes new pods)")


def _rolls_on(obj: Obj, table: ReferenceTable, hashed: dict[tuple[str, str, str], str]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What rolls a workload when what it reads changes: the objects krmfn hashed (at render), and
    those its Reloader annotations name (at rotation: core.report.rotation writes them under rotation: reloader)."""
    reads = reads_of(obj, table)
    at_render = tuple(sorted({f"{kind} {hashed[(kind, obj.namespace, name)]}" for kind, name in reads
                              if (kind, obj.namespace, name) in hashed}))
    meta = obj.data.get("metadata") if isinstance(obj.data.get("metadata"), dict) else {}
    notes = meta.get("annotations") if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict) else {}
    assert isinstance(notes, dict)
    if any(notes.get(key) == "true" for key in RELOADER_AUTO):
        return at_render, ("every ConfigMap and Secret it reads (reloader.stakater.com/auto)",)
    at_rotation = tuple(f"{kind} {name.strip()}" for key, kind in RELOADER_LISTS.items()
                        for name in str(notes.get(key) or "").split(",") if name.strip())
    return at_render, at_rotation


def change_plan(old: list[Obj], new: list[Obj], table: ReferenceTable | None = None) -> ChangePlan:
    """Pair the two renders' objects, and say what changed and who rolls."""
    table = table or ReferenceTable.builtin()
    def key(o: Obj) -> tuple[str, str, str]:
        return o.kind, o.namespace, o.family
    before = {key(o): o for o in old if o.kind in CONFIG_KINDS}
    after = {key(o): o for o in new if o.kind in CONFIG_KINDS}
    configs = [c for k in sorted(set(before) | set(after))
               if (c := config_change(before.get(k), after.get(k))) is not None]
    by_name: dict[tuple[str, str, str], ConfigChange] = {}
    for c in configs:
        for name in c.made:  # the names workloads read it by (an ExternalSecret's: the Secret it makes)
            if name:
                by_name[(BY_KIND[c.kind].reference_kind, c.namespace, name)] = c
    old_workloads = {(o.kind, o.namespace, o.name): o for o in old if o.kind not in CONFIG_KINDS}
    # every hashed name of either render, by its family: a reference's new name is no change of its own
    families = {o.name: o.family for o in (*old, *new) if o.kind in CONFIG_KINDS and o.family != o.name}
    families.update({made: o.family for o in (*old, *new) if o.kind in CONFIG_KINDS
                     and (made := _made(o)) and made != o.family})
    hashed = {(BY_KIND[o.kind].reference_kind, o.namespace, _made(o) or o.name): o.family for o in new
              if o.kind in CONFIG_KINDS and o.family != o.name}  # krmfn renamed it: it rolls at render
    rolls = []
    for obj in new:
        if obj.kind in CONFIG_KINDS or rollout.way(obj.api_version, obj.kind) is None:
            continue
        reads: dict[str, list[str]] = {}
        reads_changed, renamed = False, False
        for (kind, name), keys in reads_of(obj, table).items():
            change = by_name.get((kind, obj.namespace, name))
            if change is None:
                continue
            # ALL among the changed keys: a change whose keys are not known (an ExternalSecret's store).
            hit = sorted(change.keys if ALL in keys else keys if ALL in change.keys else keys & change.keys)
            reads[f"{change.kind} {change.family}"] = [ALL] if ALL in keys else hit
            reads_changed = reads_changed or bool(hit) or change.status != "changed"
            renamed = renamed or change.renamed
        previous = old_workloads.get((obj.kind, obj.namespace, obj.name))
        other = tuple(template_changes_besides_config(previous, obj, families)) if previous is not None else ()
        if not reads and not other:
            continue
        template_changes = previous is None or _template(previous) != _template(obj)
        found = rollout.verdict(obj.doc, obj.node, obj.api_version, obj.kind)
        assert found is not None
        what = " or ".join(reads) if reads else "its pod template changes"
        how = "its hashed name changes with it" if len(reads) == 1 else "their hashed names change with them"
        when = (f"when {what} changes" + (f" ({how})" if renamed else "")) if reads else f"when {what}"
        category, text = _category(found), found[2].replace("{when}", when)
        if not template_changes:
            category, text = "no-roll", ("does not roll: its pod template does not change, so running pods keep "
                                         "the old values until they restart")
        at_render, at_rotation = _rolls_on(obj, table, hashed)
        rolls.append(Roll(obj.kind, obj.namespace, obj.name, category, text, found[1], _replicas(obj), reads,
                          reads_changed, template_changes, at_render, at_rotation, other))
    return ChangePlan(configs, rolls)


__all__ = ["ALL", "CATEGORIES", "ChangePlan", "ConfigChange", "Obj", "Roll", "change_plan", "objects_of",
           "read_render", "reads_of"]
