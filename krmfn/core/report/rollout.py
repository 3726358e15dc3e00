"""What a new pod template does to each kind of referrer, as Kubernetes runs it (the Kubernetes
docs on Deployment strategies, DaemonSet and StatefulSet update strategies, and Pod and Job immutability).

A reviewer reads "ConfigMap api-config is now api-config-t2kh9f5hmh" and still has to know
what applying it does: a rolling update, an outage (``Recreate``), nothing until pods are
deleted (``OnDelete``), an apply the API server refuses (a bare Pod, a Job), or a paused
rollout. The deciding fields are read in the scan while the referrer's tree is alive
(:func:`verdict`: a few lookups, no second parse); the plan words the result once it knows
which objects' changes it is about (:func:`result`).

Rows are data: a kind, what it does by default and the field that decides it, and the field
values that change that, checked in order.
"""

from __future__ import annotations

from collections.abc import Sequence

from krmfn.results import ResourceRef, Result, Severity
from krmfn.yaml.tree import Doc, Node

# (severity, the field that decides, what happens): read in the scan, worded in the plan. A
# tuple, so that a forked scan sends it back cheaply (core.run.parallel).
Verdict = tuple[Severity, str, str]
# The field a verdict names for an object the API server names (a new one each create).
GENERATED = "metadata.generateName"


# Rows are plain classes, not dataclasses: the module is imported on every run, and a
# dataclass compiles its generated methods at import (a tenth of a millisecond each).
class Unless:
    """A field value that changes what a kind does: ``path`` holding ``value``."""

    __slots__ = ("keys", "path", "severity", "text", "value")

    def __init__(self, path: str, value: str, severity: Severity, text: str) -> None:
        self.path = path  # dotted, as results print field paths
        self.keys = tuple(path.split("."))
        self.value, self.severity, self.text = value, severity, text


class Way:
    """How one kind takes a new pod template. ``text`` reads after the referrer's name, with
    ``{when}`` for the change it is about ("when ConfigMap api-config changes")."""

    __slots__ = ("field", "fresh", "group", "kind", "severity", "text", "unless")

    def __init__(self, group: str | None, kind: str, field: str, text: str, severity: Severity = "info",
                 unless: tuple[Unless, ...] = (), fresh: str | None = None) -> None:
        self.group = group  # None: any API group
        self.kind, self.field, self.text, self.severity, self.unless = kind, field, text, severity, unless
        # What an object of the kind with generateName and no name does instead: each create makes
        # a new one, so nothing is applied over a live object and its immutability does not matter.
        self.fresh = fresh


def _paused(path: str, what: str = "the new pod template waits until it is resumed") -> Unless:
    return Unless(path, "true", "warning", f"is paused ({path}: true): {{when}}, {what}")


_ON_DELETE = Unless("spec.updateStrategy.type", "OnDelete", "warning",
                    "does not roll {when} until its pods are deleted (updateStrategy OnDelete): running pods keep "
                    "the old version; keep old versions (retention) until each is replaced")
_REPLICA_SET = ("does not roll {when}: a ReplicaSet leaves running pods alone when its template changes, and only "
                "pods it starts later get the new version; run it from a Deployment")

WAYS: tuple[Way, ...] = (
    Way(None, "Deployment", "spec.strategy.type",
        "rolls out {when}: RollingUpdate replaces its pods a few at a time",
        unless=(_paused("spec.paused", "it records the new pod template and rolls out only when resumed"),
                Unless("spec.strategy.type", "Recreate", "warning",
                       "rolls out with downtime {when}: strategy Recreate stops every pod before it starts new ones; "
                       "use RollingUpdate to keep serving"))),
    Way(None, "StatefulSet", "spec.updateStrategy.type",
        "rolls out {when}: RollingUpdate replaces its pods one at a time, highest ordinal first",
        unless=(_ON_DELETE,)),
    Way(None, "DaemonSet", "spec.updateStrategy.type",
        "rolls out {when}: RollingUpdate replaces its pods node by node", unless=(_ON_DELETE,)),
    Way(None, "ReplicaSet", "spec.template", _REPLICA_SET, "warning"),
    Way("", "ReplicationController", "spec.template", _REPLICA_SET.replace("a ReplicaSet", "a ReplicationController"),
        "warning"),
    Way("", "Pod", "spec",
        "cannot be applied over the live Pod {when}: a Pod's spec is immutable; delete the Pod before applying, or "
        "run it from a Deployment", "warning",
        fresh="is a new Pod each time it is created (metadata.generateName, no name): the next one starts with the "
              "new version {when}; Pods created before keep the old one"),
    Way("batch", "Job", "spec.template",
        "cannot be applied over the live Job {when}: a Job's pod template is immutable; set suffixJobs: true (a "
        "new Job each time), or delete the Job before applying", "warning",
        fresh="is a new Job each time it is created (metadata.generateName, no name): the next one runs with the "
              "new version {when}; Jobs created before keep the old one"),
    Way("batch", "CronJob", "spec.jobTemplate",
        "starts its next Job with the new version {when}; a Job already running keeps the old one",
        unless=(Unless("spec.suspend", "true", "warning",
                       "is suspended (spec.suspend: true): {when}, no Job runs with the new version until it is "
                       "resumed"),)),
    Way("argoproj.io", "Rollout", "spec.strategy", "rolls out {when}, by the steps of its canary or blue-green "
        "strategy", unless=(_paused("spec.paused"),)),
    *(Way("serving.knative.dev", kind, "spec.template",
          "creates a new Revision {when}; its traffic settings decide when requests move to it")
      for kind in ("Service", "Configuration")),
    Way("keda.sh", "ScaledJob", "spec.jobTargetRef.template",
        "starts its next Jobs with the new version {when}; running Jobs keep the old one"),
    Way("apps.kruise.io", "CloneSet", "spec.updateStrategy.type", "rolls out {when}, as its updateStrategy says",
        unless=(_paused("spec.updateStrategy.paused"),)),
    *(Way("apps.kruise.io", kind, "spec.updateStrategy.type", "rolls out {when}, as its updateStrategy says",
          unless=(_ON_DELETE, _paused("spec.updateStrategy.rollingUpdate.paused")))
      for kind in ("StatefulSet", "DaemonSet")),
    *(Way("monitoring.coreos.com", kind, "spec",
          "rolls out {when}: the operator updates the StatefulSet it runs",
          unless=(_paused("spec.paused", "the operator changes nothing until it is resumed"),))
      for kind in ("Prometheus", "PrometheusAgent", "Alertmanager", "ThanosRuler")),
)
# By (group, kind); group None: a row for any group. A row for the group itself wins (OpenKruise's StatefulSet).
_BY_KIND: dict[tuple[str | None, str], Way] = {(w.group, w.kind): w for w in WAYS}


def way(api_version: str, kind: str) -> Way | None:
    """The row for an object's kind, or None for kinds with no pods of their own to roll."""
    return _BY_KIND.get((api_version.rpartition("/")[0], kind)) or _BY_KIND.get((None, kind))


def verdict(doc: Doc, node: Node, api_version: str, kind: str) -> Verdict | None:
    """What a new pod template does to this object, from its own fields; None for a kind that
    runs no pods (a Role, a HelmRelease) or that the table does not know, and for a Helm hook
    (Helm runs it at its phase: a rollout is not how it takes a change)."""
    w = way(api_version, kind)
    if w is None or _helm_hook(doc, node):
        return None
    if w.fresh is not None and generated(doc, node):
        return "info", GENERATED, w.fresh
    for unless in w.unless:
        at: Node | None = node
        for key in unless.keys:
            at = doc.get(doc.resolve(at), key) if at is not None else None
        if at is not None and doc.scalar(at) == unless.value:
            if unless.value == "Recreate" and _singleton(doc, node):
                return "info", unless.path, SINGLETON
            return unless.severity, unless.path, unless.text
    return w.severity, w.field, w.text


SINGLETON = ("rolls out {when} with a short outage, as it must: strategy Recreate stops its one pod before the next "
             "starts, which a ReadWriteOnce volume claim needs")


def _helm_hook(doc: Doc, node: Node) -> bool:
    meta = doc.get(node, "metadata")
    meta = doc.resolve(meta) if meta is not None else None
    notes = doc.get(meta, "annotations") if meta is not None and doc.is_map(meta) else None
    notes = doc.resolve(notes) if notes is not None else None
    return notes is not None and doc.is_map(notes) and doc.get(notes, "helm.sh/hook") is not None


def _singleton(doc: Doc, node: Node) -> bool:
    """One replica (or none said) and a persistent volume claim mounted: Recreate is how it must roll."""
    spec = doc.get(node, "spec")
    spec = doc.resolve(spec) if spec is not None else None
    if spec is None or not doc.is_map(spec):
        return False
    replicas = doc.scalar(doc.get(spec, "replicas")) if doc.get(spec, "replicas") is not None else "1"
    if replicas not in ("0", "1"):
        return False
    volumes = doc.path(spec, "template", "spec", "volumes")
    return volumes is not None and doc.is_seq(doc.resolve(volumes)) and any(
        doc.get(doc.resolve(v), "persistentVolumeClaim") is not None for v in doc.children(doc.resolve(volumes))
        if doc.is_map(doc.resolve(v)))


def generated(doc: Doc, node: Node) -> bool:
    """Whether the object is named by the API server (``generateName``, no ``name``)."""
    meta = doc.get(node, "metadata")
    meta = doc.resolve(meta) if meta is not None else None
    if meta is None or not doc.is_map(meta):
        return False
    name = doc.get(meta, "name")
    return (name is None or not doc.scalar(name)) and doc.get(meta, "generateName") is not None


def when(renamed: Sequence[tuple[str, str, str]], stable: Sequence[tuple[str, str]] = (),
         restored: Sequence[tuple[str, str]] = ()) -> str:
    """Which change a verdict is about, for :func:`result`: objects renamed ``(kind, original,
    new name)``, objects that keep their name ``(kind, name)`` and roll their referrers through
    the pod-template hash, and objects that get their original name back."""
    if len(renamed) == 1 and not stable and not restored:  # the common case, without the lists
        kind, name, new = renamed[0]
        return f"when {kind} {name} changes (its hashed name {new} changes with it)"
    parts = []
    changing = [f"{kind} {name}" for kind, name, _ in renamed] + [f"{kind} {name}" for kind, name in stable]
    if changing:
        how = []
        if renamed:
            news = _join([new for _, _, new in renamed], "and")
            how.append(f"its hashed name {news} changes with it" if len(renamed) == 1 else
                       f"their hashed names {news} change with them")
        if stable:
            how.append("its pod template's krmfn.dev/config-hash covers "
                       f"{_join([name for _, name in stable], 'and')}")
        parts.append(f"when {_join(changing, 'or')} changes ({'; '.join(how)})")
    if restored:
        parts.append(f"now that {_join([f'{kind} {name}' for kind, name in restored], 'and')} "
                     f"{'gets its' if len(restored) == 1 else 'get their'} original name back")
    return " and ".join(parts)


def _join(words: list[str], conjunction: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def result(referrer: ResourceRef, found: Verdict, when: str) -> Result:
    """The verdict worded for one referrer: ``when`` says which change it is about. A warning is
    one line of at most 200 characters where it can be: the hashed names in ``when``'s parentheses
    then go to its long form (``krmfn -v``)."""
    severity, path, text = found
    message = text.replace("{when}", when)
    if severity == "warning" and len(message) > LINE and when.endswith(")") and " (" in when:
        short, _, names = when.partition(" (")
        return Result(text.replace("{when}", short), severity, referrer, path, detail=names[:-1], detail_tag="names",
                      topic="rollout")
    return Result(message, severity, referrer, path, topic="rollout")


LINE = 200  # the most a warning's one line should hold (its long form goes under -v)


__all__ = ["WAYS", "Unless", "Verdict", "Way", "result", "verdict", "way", "when"]
