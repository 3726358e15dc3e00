"""The kubectl adapter of ``krmfn gc``: every cluster read and delete goes through ``kubectl``.

Why kubectl and not a client library: its kubeconfig, contexts, auth plugins and in-cluster
service account work unchanged, and krmfn needs no dependency for them.

- reading: one ``kubectl get <resource> -o json`` per resource type, ConfigMaps and Secrets first
  (``-l krmfn.dev/family``), then every referrer kind of the reference table; a custom
  resource whose CRD is not installed is skipped with a note. Any other kind that cannot be
  read (forbidden, not served, kubectl failing) stops gc before it deletes anything, unless
  the user named it with ``--skip-kind``, which is not read at all; every Forbidden kind is
  named in one message, so that a namespaced Role gets one answer, not one per run;
- deleting: ``kubectl delete --raw /api/v1/namespaces/NS/configmaps/NAME -f -`` with a
  ``DeleteOptions`` body carrying ``preconditions: {uid, resourceVersion}`` on stdin, one
  object at a time, so the API server refuses to delete an object that changed or was
  replaced since it was read (``kubectl delete NAME`` has no precondition flag).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from krmfn.core.naming.retention import FAMILY
from krmfn.core.references.kinds import ALL_KINDS, RENAMED
from krmfn.gc import planner as gc
from krmfn.results import GcError

_MISSING_TYPE = "the server doesn't have a resource type"


@dataclass(frozen=True)
class Outcome:
    """What happened to one deletion."""

    row: gc.Row
    status: str  # deleted | already gone | failed
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status != "failed"


@dataclass(frozen=True)
class Kubectl:
    binary: str
    context: str | None = None
    kubeconfig: str | None = None

    def _run(self, args: list[str], stdin: bytes | None = None) -> tuple[int, bytes, str]:
        """Exit code, stdout as bytes (a List can be tens of MB: parsed once, never copied, and
        bounded like a -f file), stderr (its first 64 KiB: only its first line is ever shown)."""
        base = [self.binary]
        if self.kubeconfig:
            base += ["--kubeconfig", self.kubeconfig]
        if self.context:
            base += ["--context", self.context]
        limit = gc.MAX_LIVE_STATE_BYTES  # what -f reads at most, for one kind's List too
        try:
            with tempfile.TemporaryFile() as err, subprocess.Popen(
                    base + args, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err) as proc:
                if stdin is not None:
                    assert proc.stdin is not None
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                assert proc.stdout is not None
                out = proc.stdout.read(limit + 1)  # never more in memory, whatever kubectl prints
                if len(out) > limit:
                    proc.kill()
                    raise GcError(f"`kubectl {' '.join(args[:2])}` printed more than {limit >> 20} MiB, the most gc "
                                  "reads of one kind; run gc one namespace at a time (-n NS).")
                code = proc.wait()
                err.seek(0)
                said = err.read(1 << 16).decode("utf-8", errors="replace")
        except OSError as exc:
            raise GcError(f"cannot run {self.binary} ({exc.strerror}).") from None
        return code, out, said

    def get(self, resource: str, scope: list[str], selector: str | None = None) -> list[dict] | None:
        """The items of one resource type; None when the cluster does not have that type."""
        args = ["get", resource, "-o", "json", *scope]
        if selector:
            args += ["-l", selector]
        code, out, err = self._run(args)
        if code != 0:
            if _MISSING_TYPE in err:
                return None
            raise GcError(f"`kubectl get {resource}` failed: {_first_line(err) or f'exit code {code}'}")
        return gc.parse_list(out, f"the output of `kubectl get {resource}`")

    def delete(self, row: gc.Row) -> Outcome:
        """Delete one object, on condition that its uid and resourceVersion are unchanged."""
        if not row.uid or not row.resource_version:
            return Outcome(row, "failed", "no uid or resourceVersion was read, so the delete cannot be conditional")
        api_version = row.api_version or row.kind.api_version
        group_version = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        path = (f"{group_version}/namespaces/{quote(row.namespace, safe='')}/{row.kind.plural}/"
                f"{quote(row.name, safe='')}")
        body = json.dumps({"kind": "DeleteOptions", "apiVersion": "v1",
                           "preconditions": {"uid": row.uid, "resourceVersion": row.resource_version}})
        code, _, err = self._run(["delete", "--raw", path, "-f", "-"], stdin=body.encode())
        if code == 0:
            return Outcome(row, "deleted")
        if "(NotFound)" in err:
            return Outcome(row, "already gone")
        if "(Conflict)" in err:
            return Outcome(row, "failed", "changed or replaced since it was read; not deleted: " + _first_line(err))
        return Outcome(row, "failed", _first_line(err) or f"kubectl exited with {code}")


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else ""


@dataclass(frozen=True)
class Referrers:
    """The referrer kinds to read: every one, those Kubernetes itself serves, and those not to read."""

    resources: list[str]
    required: set[str]
    skip: frozenset[str] = frozenset()


def read_cluster(kubectl: Kubectl, scope: list[str], referrers: Referrers, notes: list[str],
                 kinds: frozenset[str] = ALL_KINDS,
                 progress: Callable[[str, int, float], None] | None = None) -> list[dict]:
    """The renamed kinds first (those of ``kinds``): an object created after this read is not
    seen, so never deleted. A Secret's values are dropped as it is read (gc.planner.parse_list).
    ``progress``: told each kind read, how many objects and how long it took (the shell says so
    when a read is slow: against a slow API server a run reads for a minute)."""
    objects: list[dict] = []
    clock = time.monotonic()

    def told(resource: str, items: list[dict] | None) -> None:
        nonlocal clock
        now = time.monotonic()
        if progress is not None:
            progress(resource, len(items or ()), now - clock)
        clock = now

    unserved = []  # one note for all: most clusters serve few of the custom resources krmfn knows
    for kind in (k for k in RENAMED if k.kind in kinds):
        managed = kubectl.get(kind.resource, scope, FAMILY)
        told(kind.resource, managed)
        if managed is None and kind.group:  # a custom resource whose CRD is not installed: none to collect
            unserved.append(kind.resource)
            continue
        if managed is None:
            raise GcError(f"the cluster has no {kind.plural} resource type.")
        objects.extend(managed)
    forbidden: list[tuple[str, str]] = []  # all named at once: a namespaced Role forbids every cluster-scoped kind
    for resource in referrers.resources:
        if resource in referrers.skip:
            continue
        try:
            items = kubectl.get(resource, scope)
            told(resource, items)
        except GcError as exc:
            if "(Forbidden)" not in exc.message:
                raise _cannot_list([(resource, exc.message)]) from None
            forbidden.append((resource, exc.message))
            continue
        if items is None and resource in referrers.required:
            raise GcError(f"the cluster does not serve {resource}, which every Kubernetes API server does: check "
                          f"--context and --kubeconfig, or pass --skip-kind {resource}.")
        if items is None:
            unserved.append(resource)
            continue
        objects.extend(items)
    if forbidden:
        raise _cannot_list(forbidden)
    if unserved:
        notes.append(f"skipped kinds the cluster does not serve: {', '.join(unserved)}")
    if referrers.skip:
        skipped = [r for r in referrers.resources if r in referrers.skip]
        notes.append(f"not read, as --skip-kind asked: {', '.join(skipped)}")
    return objects


def _cannot_list(failed: list[tuple[str, str]]) -> GcError:
    """One line for the kinds kubectl could not list (each Forbidden one, or the one that failed
    otherwise): kubectl's first error as it was, and the way on."""
    names = [resource for resource, _ in failed]
    if len(names) == 1:
        return GcError(f"{failed[0][1]}; let gc list {names[0]}, or pass --skip-kind {names[0]} if none of its "
                       "objects can name a krmfn ConfigMap or Secret.")
    return GcError(f"kubectl may not list {len(names)} kinds gc reads ({', '.join(names)}), the first saying: "
                   f"{failed[0][1].removeprefix('`kubectl get ' + names[0] + '` failed: ')}; let gc list them, "
                   f"or pass --skip-kind {','.join(names)} if none of their objects can name a krmfn ConfigMap or "
                   "Secret (a namespaced Role cannot grant the cluster-scoped ones).")
