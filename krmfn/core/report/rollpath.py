"""The roll-path audit: config a workload reads in a way that never updates in a running pod
(``env``, ``envFrom``, a ``subPath`` mount), when nothing would roll the workload on a change.

Why: such a change sits unread until an unrelated restart (Kubernetes #50345, Reloader #294),
and nothing fails to say so. A whole-volume mount without ``subPath`` is left alone: the kubelet
updates it in place. The scan notes how each reference is read (:func:`read_via`) while the
item's tree is alive; the plan, which knows what is opted in, warns (:func:`warning`).

Something rolls the workload when the object is opted in to krmfn (or adopted by a mark), the
pod template has a ``checksum/*`` annotation (Helm's idiom), or a Reloader or Kyverno autoreload
mark on the workload reaches the object, honoured by krmfn or not (those tools roll it anyway).
An object whose own ``krmfn.dev/content-hash: "false"`` says the user chose is not warned about.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.references.table import CONTAINER_LISTS
from krmfn.results import ResourceRef, Result
from krmfn.yaml.tree import Doc, Node

CHECKSUM = "checksum/"


@dataclass(frozen=True, slots=True)
class Read:
    """How one reference is read: ``via`` is ``env``, ``envFrom`` or ``subPath``; ``mount`` the
    field path of the subPath mount."""

    via: str
    mount: str | None = None


def read_via(doc: Doc, node: Node, top: Node) -> Read | None:
    """How the pod reads the object the name at ``node`` names; None when it updates live (a
    whole-volume mount) or is not read by a container (``imagePullSecrets``)."""
    child = node
    parent = doc.parent(child)
    while parent is not None and child != top:
        if doc.is_map(parent):
            key = doc.key(child)
            if key == "valueFrom":
                return Read("env")
            if key == "envFrom":
                return Read("envFrom")
            if key == "volumes" and doc.is_seq(doc.resolve(child)):
                return _sub_path(doc, node, parent, top)
        child, parent = parent, doc.parent(parent)
    return None


def _sub_path(doc: Doc, node: Node, pod_spec: Node, top: Node) -> Read | None:
    """A volume's mount with ``subPath`` (or ``subPathExpr``) in any container of ``pod_spec``."""
    volume = node
    while (up := doc.parent(volume)) is not None and not (doc.is_seq(up) and doc.parent(up) == pod_spec):
        volume = up
    name = doc.scalar(doc.get(volume, "name")) if doc.is_map(volume) else None
    if name is None:
        return None
    for key in CONTAINER_LISTS:
        containers = doc.get(pod_spec, key)
        if containers is None or not doc.is_seq(containers := doc.resolve(containers)):
            continue
        for container in map(doc.resolve, doc.children(containers)):
            mounts = doc.get(container, "volumeMounts") if doc.is_map(container) else None
            if mounts is None or not doc.is_seq(mounts := doc.resolve(mounts)):
                continue
            for mount in map(doc.resolve, doc.children(mounts)):
                if not doc.is_map(mount) or doc.scalar(doc.get(mount, "name")) != name:
                    continue
                if doc.scalar(doc.get(mount, "subPath")) or doc.scalar(doc.get(mount, "subPathExpr")):
                    return Read("subPath", doc.path_of(mount, top))
    return None


def has_checksum(template_annotations: dict[str, str]) -> bool:
    return any(key.startswith(CHECKSUM) for key in template_annotations)


def warning(workload: ResourceRef, kind: str, name: str, ways: list[str], path: str, maker: str = "") -> Result:
    """One line naming the workload, the object, the field and the fix. ``maker``: the kind of the
    object that makes it, where that is another (a SealedSecret makes the Secret): it is opted in."""
    owner = f"{maker} that makes it" if maker and maker != kind else kind
    return Result(
        f"reads {kind} {name} through {' and '.join(ways)}, which running pods never see change, and nothing rolls "
        f'it: opt it in (krmfn.dev/content-hash: "true" on the {maker or kind}), or "false" if a restart is meant',
        "warning", workload, path, name, detail=(
            f"nothing rolls {workload.kind} {workload.name} when {kind} {name} changes: the {owner} is not opted in "
            "to krmfn, the pod template has no checksum/* annotation, and no Reloader or Kyverno mark reaches it"),
        detail_tag="why", topic="roll-path")


__all__ = ["CHECKSUM", "Read", "has_checksum", "read_via", "warning"]
