"""Plan a garbage collection of krmfn's ConfigMaps and Secrets: keep what a rollback still needs.

Pure: parsed live state (plain dicts, as ``json.loads`` gives them) and a ``now`` in, one
verdict row per krmfn-managed object out. No I/O here, so every rule is testable with a
fixed clock; :mod:`krmfn.cli.gc` and :mod:`krmfn.gc.kubectl` read the cluster and delete.

An object is kept when any of these holds, and deleted otherwise:

- something names it through the reference table (Pods, every ReplicaSet including those
  scaled to zero that ``revisionHistoryLimit`` keeps for ``rollout undo``, Jobs, CronJobs,
  any referrer kind the table knows) or through a ControllerRevision (a StatefulSet's or
  DaemonSet's past pod templates);
- it is among the newest ``keep`` of its family, by creationTimestamp;
- it is younger than ``min_age`` (a render just applied, its workload not yet rolled).

Only objects with the ``krmfn.dev/family`` label are ever considered; a Secret is read without
its values (:func:`parse_list`). A read that holds
krmfn ConfigMaps and no object of any referrer kind at all is refused unless allowed: it is
far likelier a read that missed them (a file of ConfigMaps only) than a cluster where nothing
uses any version, and every version beyond the newest ``keep`` would go.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from krmfn.core.naming.retention import FAMILY
from krmfn.core.references.fieldspec import FieldSpec, split_path
from krmfn.core.references.kinds import ALL_KINDS, RenamedKind, renamed_kind
from krmfn.core.references.kinds import plural as plural_of
from krmfn.core.references.table import BUILTIN, SHAPE_FIELDS, pod_spec_paths
from krmfn.core.references.walk import ReferenceTable, find_in_data
from krmfn.results import GcError

# Where gc finds pod specs beyond the rewrite's table: (group, kind, path to the pod spec).
# A ControllerRevision stores a past pod template as a patch under ``data``.
GC_POD_SPEC_KINDS: tuple[tuple[str, str, str], ...] = (
    ("apps", "ControllerRevision", "data/spec/template/spec"),
)

KEEP = "keep"
DELETE = "delete"

# Kubernetes' own referrer kinds, (group, kind) as the table names them: every cluster serves
# these, so gc must be able to read each one (a custom resource whose CRD is not installed
# holds no objects, and is skipped).
KUBERNETES_KINDS = frozenset({(e.group, e.kind) for e in BUILTIN if e.project == "Kubernetes"}
                             | {(group, kind) for group, kind, _ in GC_POD_SPEC_KINDS})

# Bounds of the numeric options: far beyond any real use, and inside what timedelta holds.
MAX_MIN_AGE = timedelta(days=36500)  # 100 years
MAX_KEEP = 1_000_000
# A live-state file (kubectl get -o json of every kind gc reads) is read whole: bounded, so that
# `-f /dev/zero` is refused, at eight times the function's input limit (Pods' specs are long).
MAX_LIVE_STATE_BYTES = 256 << 20

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|d|h|m|s)")
_UNIT_SECONDS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


@dataclass(frozen=True)
class Options:
    keep: int = 5
    min_age: timedelta = timedelta(hours=1)
    namespace: str | None = None  # only objects in this namespace (for a file read with -f)
    allow_no_referrers: bool = False  # plan even when the read holds no object that can use one
    kinds: frozenset[str] = ALL_KINDS  # the renamed kinds gc considers


@dataclass(frozen=True)
class Referrer:
    kind: str
    namespace: str
    name: str
    note: str = ""  # why this referrer matters: "scaled to 0, of Deployment api"

    def describe(self, home: str) -> str:
        """``ReplicaSet web-5d8f (scaled to 0, of Deployment web)``; the namespace only when not ``home``."""
        where = f"{self.namespace}/" if self.namespace and self.namespace != home else ""
        return f"{self.kind} {where}{self.name}" + (f" ({self.note})" if self.note else "")

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "note": self.note}


@dataclass(frozen=True)
class Managed:
    """An object of a renamed kind (a ConfigMap, a Secret) that krmfn labelled, as read from live state."""

    kind: RenamedKind
    namespace: str
    family: str
    name: str
    uid: str
    resource_version: str
    created: datetime
    # The name workloads use for it: the Secret an ExternalSecret makes (spec.target.name); "": its own.
    made: str = ""
    api_version: str = ""  # as read (an ExternalSecret may be served as v1 or v1beta1); "": the kind's
    leaves_made: bool = False  # deleting it leaves what its controller made (no ownerReference): said in a note

    @property
    def named_as(self) -> str:
        return self.made or self.name


@dataclass(frozen=True, kw_only=True)
class Row(Managed):
    """One managed object and what gc does with it."""

    age: timedelta
    verdict: str
    reasons: tuple[str, ...]
    referrers: tuple[Referrer, ...] = ()

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind.kind, "namespace": self.namespace, "family": self.family, "name": self.name,
                "uid": self.uid,
                "resourceVersion": self.resource_version,
                "creationTimestamp": self.created.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "ageSeconds": int(self.age.total_seconds()), "age": format_age(self.age),
                "verdict": self.verdict, "reason": self.reason,
                "referrers": [r.to_json() for r in self.referrers]}


@dataclass
class CollectionPlan:
    """What ``krmfn gc`` keeps and deletes: one row per managed object (not the rename's plan,
    core.run.plan, nor ``krmfn plan``'s, changes.changeplan)."""

    rows: list[Row]
    ignored: int = 0  # objects of a renamed kind without the family label: never touched
    notes: list[str] = field(default_factory=list)
    ignored_kinds: frozenset[str] = frozenset()

    @property
    def deletions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == DELETE]


def gc_table(extra: Sequence[FieldSpec] = ()) -> ReferenceTable:
    """The rewrite's own table (``ReferenceTable.builtin``: custom resources included, a ConfigMap
    only a Rollout names must survive), plus ControllerRevisions and any user field specs, walked
    over live state by the rewrite's walk (``walk.find_in_data``). Conditions on a spec (e.g. Flux's
    ``kind: ConfigMap``) are not applied here: gc then keeps more, never less."""
    own = tuple(FieldSpec(kind, split_path(p), group, refers_to=target)
                for group, kind, prefix in GC_POD_SPEC_KINDS for target in SHAPE_FIELDS
                for p in pod_spec_paths(prefix, target))
    return ReferenceTable.builtin((*own, *extra))


def referrer_resources(table: ReferenceTable) -> list[str]:
    """``kubectl get`` resource arguments for every referrer kind: ``kind[.version][.group]``.

    The lower-case singular kind is what kubectl resolves through discovery for built-in and
    custom resources alike; a spec without a group (``None``: any group) leaves it to kubectl.
    """
    return list(_resources(table))


def required_resources(table: ReferenceTable) -> set[str]:
    """The resource arguments of Kubernetes' own referrer kinds: a cluster that does not serve
    one is not the cluster gc was meant for (a wrong context, a proxy), not a missing CRD."""
    return {arg for arg, builtin in _resources(table).items() if builtin}


def _resources(table: ReferenceTable) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for kind, specs in table.by_kind.items():
        for spec in specs:
            arg = kind.lower()
            if spec.group:
                arg += f".{spec.version}.{spec.group}" if spec.version else f".{spec.group}"
            out[arg] = out.get(arg, False) or (spec.group, kind) in KUBERNETES_KINDS
    return out


# --- reading ----------------------------------------------------------------------------


def parse_list(data: bytes, source: str = "the live-state file") -> list[dict]:
    """The items of a ``kubectl get -o json|yaml`` List; JSON when it starts with ``{``."""
    text = data.decode("utf-8-sig", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GcError(f"{source} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
        except RecursionError:
            raise GcError(f"{source} nests lists or maps too deeply to be a kubectl List.") from None
    else:
        obj = _yaml_data(data, source)
    if not isinstance(obj, dict) or not str(obj.get("kind", "")).endswith("List"):
        what = f"kind {obj.get('kind')!r}" if isinstance(obj, dict) else type(obj).__name__
        raise GcError(f"{source} is {what}, not a List; make it with "
                             "`kubectl get configmaps,secrets,pods,replicasets,... -o json`.")
    items = obj.get("items") or []
    if not isinstance(items, list):
        raise GcError(f"{source} has items that are not a list.")
    # A raw API list (``ConfigMapList``) leaves kind off its items; kubectl's ``List`` does not.
    item_kind = obj["kind"][:-4]
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("metadata"), dict):
            raise GcError(f"item {i} of {source} is not an object with metadata.")
        _check_fields(item, f"item {i} of {source}")
        if "kind" not in item:
            if not item_kind:
                raise GcError(f"item {i} of {source} has no kind.")
            item["kind"] = item_kind
            item.setdefault("apiVersion", obj.get("apiVersion", ""))
        kind = renamed_kind(str(item.get("apiVersion", "")), str(item["kind"]))
        if kind is not None and kind.secret:
            items[i] = _without_values(item, kind)
    return items


# The fields gc reads, and the type each must have (kubectl never writes another; a file edited
# by hand may). Checked once, so that every later step can trust them.
_STRINGS = (("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace"), ("metadata", "uid"),
            ("metadata", "resourceVersion"))
_STRING_MAPS = (("metadata", "labels"),)


def _what(value: object) -> str:
    """A value's type in a message: never the value itself (a Secret's may be secret)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "a map" if isinstance(value, dict) else type(value).__name__


def _check_fields(item: dict, where: str) -> None:
    """One sentence naming the item and the field of a type gc cannot read (a namespace that is a
    number, ownerReferences that are not a list), instead of a failure deep inside the plan."""
    meta = item["metadata"]
    name = meta.get("name")
    who = f"{where} ({item.get('kind')} {name})" if isinstance(name, str) and isinstance(item.get("kind"), str) \
        else where

    def bad(path: tuple[str, ...], value: object, wanted: str) -> GcError:
        return GcError(f"{who} has {'.'.join(path)} that is {_what(value)}, not {wanted}.")

    for path in _STRINGS:
        holder = item if path[0] != "metadata" else meta
        if path[-1] in holder and not isinstance(holder[path[-1]], str):  # null too: kubectl never writes one
            raise bad(path, holder[path[-1]], "a string")
    for path in _STRING_MAPS:
        value = meta.get(path[-1])
        if value is None:
            continue
        if not isinstance(value, dict):
            raise bad(path, value, "a map")
        for key, entry in value.items():
            if not isinstance(key, str) or not isinstance(entry, str):
                raise bad(path, entry, "a map of strings")
    owners = meta.get("ownerReferences")
    if owners is not None and (not isinstance(owners, list) or not all(isinstance(o, dict) for o in owners)):
        raise bad(("metadata", "ownerReferences"), owners, "a list of maps")


# What gc keeps of a Secret it reads: enough to plan and delete, none of its values. A
# kubectl-applied Secret carries them in its last-applied-configuration annotation too.
_KEPT_METADATA = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp", "labels")


def _without_values(obj: dict, kind: RenamedKind) -> dict:
    meta = obj["metadata"]
    kept = {"apiVersion": obj.get("apiVersion"), "kind": obj["kind"],
            "metadata": {k: meta[k] for k in _KEPT_METADATA if k in meta}}
    # The name of what its controller makes (an ExternalSecret's spec.target.name) and whether that
    # outlives it (its creationPolicy): names and policies, no value.
    for path in (kind.made_name, kind.leaves_made[0] if kind.leaves_made else ()):
        value = _field(obj, path)
        if value:
            at = kept
            for key in path[:-1]:
                at = at.setdefault(key, {})
            at[path[-1]] = value
    return kept


def _field(obj: dict, path: tuple[str, ...]) -> str:
    """The string at ``path`` in a live object; "" when absent (or no path)."""
    at: object = obj
    for key in path:
        at = at.get(key) if isinstance(at, dict) else None
    return at if path and isinstance(at, str) else ""


def _made_name(obj: dict, kind: RenamedKind) -> str:
    """The name its controller gives what it makes, where the kind has a field for it; "" otherwise."""
    return _field(obj, kind.made_name)


def _leaves_made(obj: dict, kind: RenamedKind) -> bool:
    return kind.leaves_made is not None and _field(obj, kind.leaves_made[0]) in kind.leaves_made[1]


def _yaml_data(data: bytes, source: str) -> object:
    # Imported here, for start-up time: YAML live state is the rare, offline case.
    from krmfn.krm.data import DocumentCount, load_one
    from krmfn.yaml.tree import YamlError

    try:
        return load_one(data)
    except YamlError as exc:
        raise GcError(f"{source} is neither JSON nor readable YAML ({exc.message}).") from None
    except DocumentCount as exc:
        raise GcError(f"{source} holds {exc.count} YAML documents, not one List.") from None


def parse_time(value: object, what: str) -> datetime:
    """An RFC 3339 time as Kubernetes writes it; PyYAML may already have made it a datetime."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str) and _RFC3339.match(value):
        try:
            return datetime.fromisoformat(value.replace("z", "Z"))
        except ValueError:
            pass
    raise GcError(f"{what} has creationTimestamp {value!r}, which is not an RFC 3339 time "
                         "such as 2024-05-01T12:00:00Z.")


def parse_duration(text: str) -> timedelta:
    """``1h``, ``30m``, ``1h30m``, ``2d``, ``90s``, ``0``: Go's duration syntax, plus days."""
    text = text.strip()
    if text == "0":
        return timedelta(0)
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise GcError(f"{text!r} is not a duration such as 1h, 30m, 1h30m, 2d or 0")
    seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)
    if not seconds <= MAX_MIN_AGE.total_seconds():  # a long digit string reads as inf: refused too
        raise GcError(f"{text!r} is longer than {MAX_MIN_AGE.days}d (100 years), the longest duration gc takes")
    return timedelta(seconds=seconds)


def format_duration(delta: timedelta) -> str:
    """A duration given as an option, exactly, in parse_duration's syntax: ``1h30m``, ``2d``, ``0s``."""
    seconds = max(0, int(delta.total_seconds()))
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts) or "0s"


def format_age(delta: timedelta) -> str:
    """An age as ``kubectl get`` prints one (apimachinery's HumanDuration): two to three
    significant figures, the second unit only while it still says something: ``45s``, ``5m30s``,
    ``95m``, ``5h3m``, ``20h``, ``2d``, ``3d4h``, ``25d``, ``2y60d``."""
    seconds = int(delta.total_seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 120:
        return f"{max(seconds, 0)}s"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if minutes < 10:
        return _two(minutes, "m", seconds % 60, "s")
    if minutes < 3 * 60:
        return f"{minutes}m"
    if hours < 8:
        return _two(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    if hours < 8 * 24:
        return _two(days, "d", hours % 24, "h")
    if days < 2 * 365:
        return f"{days}d"
    if days < 8 * 365:
        return _two(days // 365, "y", days % 365, "d")
    return f"{days // 365}y"


def _two(big: int, big_unit: str, small: int, small_unit: str) -> str:
    return f"{big}{big_unit}{small}{small_unit}" if small else f"{big}{big_unit}"


# --- planning ---------------------------------------------------------------------------

def _note(obj: dict) -> str:
    """What makes this referrer worth keeping an object for, in a few words."""
    parts = []
    spec = obj.get("spec")
    if isinstance(spec, dict) and str(spec.get("replicas", "")) == "0":
        parts.append("scaled to 0")
    if "revision" in obj:  # a ControllerRevision
        parts.append(f"revision {obj['revision']}")
    owners = obj["metadata"].get("ownerReferences") or []
    owner = next((o for o in owners if isinstance(o, dict) and o.get("controller")), None)
    if owner:
        parts.append(f"of {owner.get('kind')} {owner.get('name')}")
    return ", ".join(parts)


@dataclass
class _References:
    """Who names which object: by (namespace, name), and by name for cluster-scoped referrers."""

    by_key: dict[tuple[str, str], list[Referrer]] = field(default_factory=dict)
    any_namespace: dict[str, list[Referrer]] = field(default_factory=dict)
    read: int = 0  # objects of a referrer kind read, whether they name a ConfigMap or not

    def of(self, namespace: str, name: str) -> list[Referrer]:
        return self.by_key.get((namespace, name), []) + self.any_namespace.get(name, [])


def _references(objects: Iterable[dict], table: ReferenceTable) -> _References:
    refs = _References()
    for obj in objects:
        api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
        walk = table.walk_for(api_version, kind)  # the rename's walk, over plain data
        if walk is None:
            continue
        refs.read += 1
        names = [name for name, _ in find_in_data(obj, walk)]
        if not names:
            continue
        meta = obj["metadata"]
        namespace = meta.get("namespace") or ""
        referrer = Referrer(kind, namespace, str(meta.get("name", "")), _note(obj))
        for name in dict.fromkeys(names):
            if namespace:
                refs.by_key.setdefault((namespace, name), []).append(referrer)
            else:  # cluster-scoped: it may name a ConfigMap in any namespace; keep them all
                refs.any_namespace.setdefault(name, []).append(referrer)
    return refs


def plural(kinds: Iterable[str], count: int = 2) -> str:
    """``ConfigMaps``, ``Secret``, ``ConfigMaps and Secrets``: the kinds named in a message."""
    names = sorted(set(kinds)) or ["ConfigMap"]
    words = [k if count == 1 and len(names) == 1 else plural_of(k) for k in names]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _managed(obj: dict) -> Managed:
    kind = renamed_kind(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    assert kind is not None  # _is_managed said so
    meta = obj["metadata"]
    namespace = meta.get("namespace") or "default"
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise GcError(f"a {kind.kind} in namespace {namespace} has no name.")
    created = parse_time(meta.get("creationTimestamp"), f"{kind.kind} {namespace}/{name}")
    return Managed(kind, namespace, str(meta["labels"][FAMILY]), name, str(meta.get("uid") or ""),
                    str(meta.get("resourceVersion") or ""), created, _made_name(obj, kind),
                    str(obj.get("apiVersion") or ""), _leaves_made(obj, kind))


def _is_managed(obj: dict, kinds: frozenset[str]) -> bool | None:
    """True for an object of a renamed kind (of ``kinds``) that krmfn labelled, False for another
    of that kind, None for anything else (a referrer, perhaps)."""
    kind = renamed_kind(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    if kind is None or kind.kind not in kinds:
        return None
    labels = obj["metadata"].get("labels")
    return isinstance(labels, dict) and isinstance(labels.get(FAMILY), str)


def plan_collection(objects: Sequence[dict], now: datetime, options: Options, table: ReferenceTable
                    ) -> CollectionPlan:
    """One row per managed object, sorted by namespace, family and kind, newest first."""
    refs = _references(objects, table)
    families: dict[tuple[str, str, str], list[Managed]] = {}
    ignored, ignored_kinds = 0, set()
    for obj in objects:
        managed = _is_managed(obj, options.kinds)
        if managed is None:
            continue
        if options.namespace and (obj["metadata"].get("namespace") or "default") != options.namespace:
            continue
        if not managed:
            ignored += 1
            ignored_kinds.add(str(obj["kind"]))
            continue
        cm = _managed(obj)
        families.setdefault((cm.namespace, cm.family, cm.kind.kind), []).append(cm)
    if families and not refs.read and not options.allow_no_referrers:
        count = sum(len(members) for members in families.values())
        what = plural({kind for _, _, kind in families}, count)
        raise GcError(f"the live state holds {count} krmfn {what} and no object that "
                      "could use one (no Pod, ReplicaSet, ControllerRevision, Job, ...), so every version beyond the "
                      f"newest {options.keep} would look unused: read those kinds too, or pass --allow-no-referrers "
                      "if nothing uses them.")
    rows: list[Row] = []
    for key in sorted(families):
        members = sorted(families[key], key=lambda c: (-c.created.timestamp(), c.name))
        for rank, cm in enumerate(members, 1):
            rows.append(_verdict(cm, rank, len(members), refs.of(cm.namespace, cm.named_as), now, options))
    notes = [_left_behind(r) for r in rows if r.verdict == DELETE and r.leaves_made]
    return CollectionPlan(rows, ignored, notes, frozenset(ignored_kinds))


def _left_behind(row: Row) -> str:
    """What deleting an object whose controller made something without an ownerReference leaves."""
    made = row.kind.reference_kind
    return (f"{row.kind.kind} {row.namespace}/{row.name} made {made} {row.named_as} without an ownerReference, so "
            f"deleting it leaves that {made}; nothing uses it either: kubectl delete {made.lower()} {row.named_as} "
            f"-n {row.namespace}")


def _verdict(cm: Managed, rank: int, size: int, referrers: list[Referrer], now: datetime,
             options: Options) -> Row:
    age = now - cm.created
    referrers = sorted(set(referrers), key=lambda r: (r.kind, r.namespace, r.name))
    reasons = []
    if referrers:
        more = f" and {len(referrers) - 1} more" if len(referrers) > 1 else ""
        reasons.append(f"used by {referrers[0].describe(cm.namespace)}{more}")
    if rank <= options.keep:
        reasons.append(f"among the newest {options.keep} (#{rank} of {size})")
    if age < options.min_age:
        reasons.append(f"younger than --min-age {format_duration(options.min_age)}")
    verdict = KEEP if reasons else DELETE
    if not reasons:
        reasons.append(f"unused, older than {format_duration(options.min_age)}, "
                       f"not among the newest {options.keep} (#{rank} of {size})")
    return Row(**vars(cm), age=age, verdict=verdict, reasons=tuple(reasons), referrers=tuple(referrers))
