"""``krmfn gc``: read live state, plan with :mod:`krmfn.gc`, print, and delete only with ``--apply``.

All cluster access goes through the ``kubectl`` on PATH (or ``--kubectl``), so its
kubeconfig, contexts, auth plugins and in-cluster service account work unchanged:

- reading: one ``kubectl get <resource> -o json`` per resource type, ConfigMaps first
  (``-l krmfn.dev/family``), then every referrer kind of the reference table; a custom
  resource whose CRD is not installed is skipped with a note;
- deleting: ``kubectl delete --raw /api/v1/namespaces/NS/configmaps/NAME -f -`` with a
  ``DeleteOptions`` body carrying ``preconditions: {uid, resourceVersion}`` on stdin, one
  object at a time, so the API server refuses to delete an object that changed or was
  replaced since it was read (``kubectl delete NAME`` has no precondition flag).

Exit codes: 0 everything planned (and, with --apply, deleted); 1 at least one deletion
failed; 2 bad arguments, unreadable live state, or kubectl could not read the cluster.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TextIO
from urllib.parse import quote

from . import gc
from .references import FieldSpec
from .retention import FAMILY

OK, FAILED, BAD_INPUT = 0, 1, 2
_MISSING_TYPE = "the server doesn't have a resource type"


class GcError(Exception):
    """A failure that stops the run before any deletion; the message is one sentence."""


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
        """Exit code, stdout as bytes (a List can be tens of MB: parsed once, never copied), stderr."""
        base = [self.binary]
        if self.kubeconfig:
            base += ["--kubeconfig", self.kubeconfig]
        if self.context:
            base += ["--context", self.context]
        try:
            proc = subprocess.run(base + args, input=stdin, capture_output=True, check=False)
        except OSError as exc:
            raise GcError(f"cannot run {self.binary} ({exc.strerror}).") from None
        return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", errors="replace")

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
        """Delete one ConfigMap, on condition that its uid and resourceVersion are unchanged."""
        if not row.uid or not row.resource_version:
            return Outcome(row, "failed", "no uid or resourceVersion was read, so the delete cannot be conditional")
        path = f"/api/v1/namespaces/{quote(row.namespace, safe='')}/configmaps/{quote(row.name, safe='')}"
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


def read_cluster(kubectl: Kubectl, scope: list[str], table_resources: list[str],
                 notes: list[str]) -> list[dict]:
    """ConfigMaps first: a ConfigMap created after this read is not seen, so never deleted."""
    configmaps = kubectl.get("configmaps", scope, FAMILY)
    if configmaps is None:
        raise GcError("the cluster has no configmaps resource type.")
    objects = list(configmaps)
    unserved = []
    for resource in table_resources:
        items = kubectl.get(resource, scope)
        if items is None:
            unserved.append(resource)
            continue
        objects.extend(items)
    if unserved:  # one line: most clusters serve few of the table's custom resources
        notes.append(f"skipped kinds the cluster does not serve: {', '.join(unserved)}")
    return objects


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="krmfn gc",
        description="Delete old krmfn ConfigMaps that no rollback can need. A dry run unless --apply.",
    )
    src = p.add_argument_group("live state")
    src.add_argument("-f", "--filename", metavar="FILE",
                     help="plan offline from a `kubectl get -o json|yaml` List ('-' for stdin)")
    src.add_argument("--context", help="kubeconfig context")
    src.add_argument("--kubeconfig", help="kubeconfig file")
    src.add_argument("--kubectl", default="kubectl", help="kubectl binary (default: kubectl on PATH)")
    scope = src.add_mutually_exclusive_group()
    scope.add_argument("-n", "--namespace", help="only this namespace")
    scope.add_argument("-A", "--all-namespaces", action="store_true", help="every namespace")
    p.add_argument("--function-config", metavar="FILE",
                   help="krmfn's functionConfig: its fieldSpecs name more referrer kinds")
    p.add_argument("--keep", type=_non_negative, default=5, metavar="N",
                   help="always keep the newest N of each family (default 5)")
    p.add_argument("--min-age", type=_duration, default="1h", metavar="DURATION",
                   help="always keep ConfigMaps younger than this (default 1h; e.g. 30m, 2d, 0)")
    p.add_argument("-o", "--output", choices=("table", "json"), default="table")
    p.add_argument("--apply", action="store_true", help="delete; without it, only print the plan")
    p.add_argument("--now", type=_instant, help=argparse.SUPPRESS)  # tests: a fixed clock
    p.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    return p


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of versions (0 or more)")
    return value


def _duration(text: str) -> timedelta:
    try:
        return gc.parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _instant(text: str) -> datetime:
    try:
        return gc.parse_time(text, "--now")
    except gc.LiveStateError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _extra_specs(path: str | None) -> list[FieldSpec]:
    if not path:
        return []
    from .config import read_config
    from .envelope import FunctionError
    from .yamldoc import Doc, YamlError

    try:
        with open(path, "rb") as f:
            doc = Doc.parse(f.read())
        docs = doc.documents()
        if len(docs) != 1:
            raise GcError(f"{path} holds {len(docs)} YAML documents; a functionConfig is one.")
        return list(read_config(doc, docs[0]).field_specs)  # type: ignore[arg-type]
    except OSError as exc:
        raise GcError(f"cannot read {path} ({exc.strerror}).") from None
    except (FunctionError, YamlError) as exc:
        raise GcError(f"{path} is not a krmfn functionConfig: {exc}") from None


def read_file(path: str) -> list[dict]:
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise GcError(f"cannot read {path} ({exc.strerror}).") from None
    return gc.parse_list(data, path)


def _kubectl(args: argparse.Namespace) -> Kubectl:
    binary = shutil.which(args.kubectl)
    if binary is None:
        raise GcError(f"{args.kubectl} is not on PATH; install kubectl, pass --kubectl, or plan offline with -f.")
    return Kubectl(binary, args.context, args.kubeconfig)


def print_table(rows: list[gc.Row], out: TextIO) -> None:
    header = ("NAMESPACE", "FAMILY", "NAME", "AGE", "VERDICT", "REASON")
    cells = [header] + [(r.namespace, r.family, r.name, gc.format_duration(r.age), r.verdict, r.reason)
                        for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header) - 1)]
    for c in cells:
        out.write("   ".join(v.ljust(w) for v, w in zip(c, widths)) + "   " + c[-1] + "\n")


def _summary(plan: gc.Plan, applied: bool) -> str:
    n, total = len(plan.deletions), len(plan.rows)
    ignored = (f"; {plan.ignored} ConfigMap{'' if plan.ignored == 1 else 's'} without the {FAMILY} label left alone"
               if plan.ignored else "")
    if applied:
        return f"{n} of {total} krmfn ConfigMaps to delete{ignored}"
    return f"dry run: {n} of {total} krmfn ConfigMaps would be deleted{ignored}; pass --apply to delete them"


def _json(plan: gc.Plan, args: argparse.Namespace, now: datetime, outcomes: dict[int, Outcome]) -> str:
    rows = []
    for row in plan.rows:
        data = row.to_json()
        done = outcomes.get(id(row))
        if done is not None:
            data["outcome"] = done.status
            if done.message:
                data["error"] = done.message
        rows.append(data)
    doc = {"now": now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "dryRun": not args.apply,
           "keep": args.keep, "minAge": gc.format_duration(args.min_age), "rows": rows,
           "ignored": plan.ignored, "notes": plan.notes}
    return json.dumps(doc, indent=2) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.apply and args.filename:
        raise GcError("--apply reads live state itself; -f is for offline planning only.")
    table = gc.gc_table(_extra_specs(args.function_config))
    notes: list[str] = []
    kubectl = None if args.filename else _kubectl(args)
    if kubectl is None:
        objects = read_file(args.filename)
    else:
        scope = (["--all-namespaces"] if args.all_namespaces
                 else ["--namespace", args.namespace] if args.namespace else [])
        objects = read_cluster(kubectl, scope, gc.referrer_resources(table), notes)
    now = args.now or datetime.now(timezone.utc)
    plan = gc.plan(objects, now, gc.Options(args.keep, args.min_age, args.namespace), table)
    plan.notes.extend(notes)
    for note in plan.notes:
        sys.stderr.write(f"krmfn gc: {note}\n")
    as_json = args.output == "json"
    if not as_json:
        print_table(plan.rows, sys.stdout)
        sys.stdout.write(_summary(plan, args.apply) + "\n")
        sys.stdout.flush()
    outcomes: dict[int, Outcome] = {}
    if args.apply and kubectl is not None:
        for row in plan.deletions:  # one at a time: a failure is reported and the rest go on
            done = kubectl.delete(row)
            outcomes[id(row)] = done
            if not as_json:
                detail = f": {done.message}" if done.message else ""
                sys.stdout.write(f"{done.status} configmap {row.namespace}/{row.name}{detail}\n")
                sys.stdout.flush()
    if as_json:
        sys.stdout.write(_json(plan, args, now, outcomes))
    failed = [o for o in outcomes.values() if not o.ok]
    if failed:
        sys.stderr.write(f"krmfn gc: {len(failed)} of {len(outcomes)} deletions failed\n")
        return FAILED
    return OK


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed usage or help
        return exc.code if isinstance(exc.code, int) else BAD_INPUT
    try:
        return run(args)
    except (GcError, gc.LiveStateError) as exc:
        sys.stderr.write(f"krmfn gc: {exc}\n")
        return BAD_INPUT
    except Exception as exc:  # a bug: say so plainly, without a traceback unless asked
        if args.debug:
            raise
        sys.stderr.write(f"krmfn gc: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it\n")
        return BAD_INPUT
