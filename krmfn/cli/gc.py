"""``krmfn gc``'s command line: read live state, plan (krmfn.gc.planner), print, and delete
only with ``--apply``. Cluster access is krmfn.gc.kubectl's.

Exit codes (EXIT_STATUS, in --help and the docs alike): 0 planned (and, with --apply,
deleted); 1 at least one deletion failed; 2 bad arguments, unreadable live state, kubectl
failing, or a read too thin to trust.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TextIO

from krmfn.cli.guard import FAILED, OK, USAGE, guarded, say
from krmfn.cli.parser import Parser, comma_list
from krmfn.cli.reading import read_limited
from krmfn.core.naming.retention import FAMILY
from krmfn.core.references.fieldspec import FieldSpec
from krmfn.core.references.kinds import ALL_KINDS, RENAMED
from krmfn.gc import planner as gc
from krmfn.gc.kubectl import Kubectl, Outcome, Referrers, read_cluster
from krmfn.results import ConfigError, GcError

EXIT_STATUS = """\
exit status:
  0  the plan was printed (with --apply: and every deletion in it was done)
  1  at least one deletion failed (the others were still tried)
  2  usage: bad arguments, a live-state file that cannot be read, kubectl failing or forbidden,
     a read too thin to trust (see --allow-no-referrers, --skip-kind); or an internal error
"""

EPILOG = f"""\
A dry run unless --apply: the plan is printed, one row per krmfn ConfigMap or Secret, and nothing is
deleted. -f plans from a saved `kubectl get ... -o json` List instead of the cluster, and is
always a dry run. Notes and errors go to stderr, one line each; stdout has only the plan.

{EXIT_STATUS}"""


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="krmfn gc",
        usage="krmfn gc [-n NS | -A] [--keep N] [--min-age D] [-o table|json] [--apply]  |  krmfn gc -f FILE ...",
        description="Delete old krmfn ConfigMaps and Secrets that no rollback can need. Kept are those anything uses,\n"
                    "the newest --keep of each family, and those younger than --min-age.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("live state")
    src.add_argument("-f", "--filename", metavar="FILE",
                     help="plan offline from a `kubectl get -o json|yaml` List ('-' for stdin): a dry run, always")
    src.add_argument("--context", help="kubeconfig context")
    src.add_argument("--kubeconfig", help="kubeconfig file")
    src.add_argument("--kubectl", default="kubectl", help="kubectl binary (default: kubectl on PATH)")
    scope = src.add_mutually_exclusive_group()
    scope.add_argument("-n", "--namespace", help="only this namespace (default: kubectl's current one)")
    scope.add_argument("-A", "--all-namespaces", action="store_true", help="every namespace")
    p.add_argument("--kinds", type=comma_list, action="extend", metavar="KIND[,KIND...]",
                   help=f"the kinds gc reads and deletes: {', '.join(k.kind for k in RENAMED)} (default: all); "
                        "--kinds ConfigMap needs no rights on Secrets")
    src.add_argument("--skip-kind", type=comma_list, action="extend", default=[], metavar="KIND[,KIND...]",
                     help="do not read this referrer kind (as gc names it in its error: replicaset, "
                          "rollout.argoproj.io): only if none of its objects can name a krmfn object; repeatable")
    src.add_argument("--allow-no-referrers", action="store_true",
                     help="plan even when the live state holds krmfn objects and no object of any kind that "
                          "could use one (by default an error: such a read missed them, most likely)")
    p.add_argument("--function-config", metavar="FILE",
                   help="krmfn's functionConfig: its fieldSpecs name more referrer kinds")
    p.add_argument("--keep", type=_non_negative, default=5, metavar="N",
                   help="always keep the newest N of each family (default 5)")
    p.add_argument("--min-age", type=_duration, default="1h", metavar="DURATION",
                   help="always keep versions younger than this (default 1h; e.g. 30m, 2d, 0)")
    p.add_argument("-o", "--output", choices=("table", "json"), default="table",
                   help="table (default): a row per ConfigMap or Secret and a summary line; json: one object with "
                        "every row, its referrers and, after --apply, each deletion's outcome")
    p.add_argument("--apply", action="store_true", help="delete what the plan says; without it, only print the plan")
    p.add_argument("--now", type=_instant, metavar="TIME",
                   help="plan as of this instant (RFC 3339, e.g. 2024-06-01T12:00:00Z) instead of now: ages and "
                        "--min-age count from it, for a List saved earlier")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say how long each slow read of the cluster takes, also when stderr is not a terminal")
    p.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    return p


def _non_negative(text: str) -> int:
    """ASCII digits only (int() also takes "５", "1_000" and spaces), up to gc.MAX_KEEP."""
    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 7 else -1
    if not 0 <= value <= gc.MAX_KEEP:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of versions from 0 to {gc.MAX_KEEP}")
    return value


def _duration(text: str) -> timedelta:
    try:
        return gc.parse_duration(text)
    except GcError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _instant(text: str) -> datetime:
    try:
        return gc.parse_time(text, "--now")
    except GcError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _extra_specs(path: str | None) -> list[FieldSpec]:
    if not path:
        return []
    # Imported here, for start-up time: only gc runs given a function config read one.
    from krmfn.core.config import parse_fields, read_config_file

    try:
        with open(path, "rb") as f:
            ref, fields = read_config_file(f.read(), "functionConfig")
        return list(parse_fields(fields, ref).field_specs)
    except OSError as exc:
        raise GcError(f"cannot read {path} ({exc.strerror}).") from None
    except ConfigError as exc:
        raise GcError(f"{path} is not a krmfn functionConfig: {exc.message}") from None


def read_file(path: str) -> list[dict]:
    """The live-state List, read to at most its limit plus one byte (``-f /dev/zero`` ends)."""
    try:
        if path == "-":
            data = read_limited(sys.stdin.buffer, gc.MAX_LIVE_STATE_BYTES)
        else:
            with open(path, "rb") as f:
                data = read_limited(f, gc.MAX_LIVE_STATE_BYTES)
    except OSError as exc:
        raise GcError(f"cannot read {path} ({exc.strerror}).") from None
    if len(data) > gc.MAX_LIVE_STATE_BYTES:
        raise GcError(f"{path} is larger than {gc.MAX_LIVE_STATE_BYTES >> 20} MiB, the most gc reads as live "
                      "state; plan one namespace at a time (kubectl get -n NS).")
    return gc.parse_list(data, path)


def _skipped(names: list[str], resources: list[str]) -> frozenset[str]:
    """The resource arguments --skip-kind names: as gc prints them, or by kind alone (any case)."""
    out = set()
    for name in names:
        matched = [r for r in resources if name.lower() in (r, r.split(".")[0])]
        if not matched:
            raise GcError(f"--skip-kind {name} names no kind gc reads; it reads {', '.join(resources)}.")
        out.update(matched)
    return frozenset(out)


# A read slower than this gets a progress line on stderr (a terminal, or -v): a silent minute looks hung.
SLOW_READ = 1.0


def _progress(args: argparse.Namespace) -> Callable[[str, int, float], None] | None:
    """A line per kind read that took longer than SLOW_READ, on a terminal or with -v; none when
    stderr is a file or a pipe and -v is not given."""
    if not (args.verbose or sys.stderr.isatty()):
        return None

    def tell(resource: str, count: int, seconds: float) -> None:
        if seconds > SLOW_READ:
            say(f"read {resource}: {count} object{'s' if count != 1 else ''} in {seconds:.1f} s")
    return tell


def _kubectl(args: argparse.Namespace) -> Kubectl:
    if os.sep in args.kubectl:  # a path: it exists or not; PATH is not searched for it
        if not os.path.isfile(args.kubectl) or not os.access(args.kubectl, os.X_OK):
            what = "is not an executable file" if os.path.exists(args.kubectl) else "does not exist"
            raise GcError(f"{args.kubectl} {what}; pass --kubectl with kubectl's path, or plan offline with -f.")
        return Kubectl(args.kubectl, args.context, args.kubeconfig)
    binary = shutil.which(args.kubectl)
    if binary is None:
        raise GcError(f"{args.kubectl} is not on PATH; install kubectl, pass --kubectl, or plan offline with -f.")
    return Kubectl(binary, args.context, args.kubeconfig)


def print_table(rows: list[gc.Row], out: TextIO) -> None:
    header = ("NAMESPACE", "KIND", "FAMILY", "NAME", "AGE", "VERDICT", "REASON")
    cells = [header] + [(r.namespace, r.kind.kind.lower(), r.family, r.name, gc.format_age(r.age), r.verdict,
                         r.reason) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header) - 1)]
    for c in cells:
        out.write("   ".join(v.ljust(w) for v, w in zip(c, widths)) + "   " + c[-1] + "\n")


def _summary(plan: gc.CollectionPlan, args: argparse.Namespace) -> str:
    n, total = len(plan.deletions), len(plan.rows)
    what = gc.plural({r.kind.kind for r in plan.rows} or _kinds(args))
    ignored = (f"; {plan.ignored} {gc.plural(plan.ignored_kinds, plan.ignored)} without the {FAMILY} label left alone"
               if plan.ignored else "")
    if args.apply:
        return f"{n} of {total} krmfn {what} to delete{ignored}"
    if args.filename:
        then = "; -f only plans: to delete them, run krmfn gc --apply against the cluster" if n else ""
        return f"dry run from {args.filename}: {n} of {total} krmfn {what} would be deleted{ignored}{then}"
    then = "; run again with --apply to delete them" if n else ""
    return f"dry run: {n} of {total} krmfn {what} would be deleted{ignored}{then}"


def _kinds(args: argparse.Namespace) -> frozenset[str]:
    """The renamed kinds gc reads: --kinds, checked, or all of them."""
    if not args.kinds:
        return ALL_KINDS
    known = {k.kind.lower(): k.kind for k in RENAMED}
    unknown = [k for k in args.kinds if k.lower() not in known]
    if unknown:
        raise GcError(f"--kinds {unknown[0]} is not a kind krmfn renames; use {', '.join(known.values())}.")
    return frozenset(known[k.lower()] for k in args.kinds)


def _json(plan: gc.CollectionPlan, args: argparse.Namespace, now: datetime, outcomes: dict[int, Outcome]) -> str:
    rows = []
    for row in plan.rows:
        data = row.to_json()
        done = outcomes.get(id(row))
        if done is not None:
            data["outcome"] = done.status
            if done.message:
                data["error"] = done.message
        rows.append(data)
    doc = {"now": now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "dryRun": not args.apply,
           "keep": args.keep, "minAge": gc.format_duration(args.min_age), "rows": rows,
           "ignored": plan.ignored, "notes": plan.notes}
    return json.dumps(doc, indent=2) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.apply and args.filename:
        raise GcError("--apply reads live state itself; -f is for offline planning only.")
    if args.skip_kind and args.filename:
        raise GcError("--skip-kind says what not to read from the cluster; with -f, leave those kinds out of the file.")
    table = gc.gc_table(_extra_specs(args.function_config))
    notes: list[str] = []
    kubectl = None if args.filename else _kubectl(args)
    if kubectl is None:
        objects = read_file(args.filename)
    else:
        scope = (["--all-namespaces"] if args.all_namespaces
                 else ["--namespace", args.namespace] if args.namespace else [])
        resources = gc.referrer_resources(table)
        referrers = Referrers(resources, gc.required_resources(table), _skipped(args.skip_kind, resources))
        objects = read_cluster(kubectl, scope, referrers, notes, _kinds(args), _progress(args))
    now = args.now or datetime.now(UTC)
    options = gc.Options(args.keep, args.min_age, args.namespace, args.allow_no_referrers, _kinds(args))
    plan = gc.plan_collection(objects, now, options, table)
    plan.notes.extend(notes)
    for note in plan.notes:
        say(note)
    as_json = args.output == "json"
    if not as_json:
        print_table(plan.rows, sys.stdout)
        sys.stdout.write(_summary(plan, args) + "\n")
        sys.stdout.flush()
    outcomes: dict[int, Outcome] = {}
    if args.apply and kubectl is not None:
        for row in plan.deletions:  # one at a time: a failure is reported and the rest go on
            done = kubectl.delete(row)
            outcomes[id(row)] = done
            if not as_json:
                detail = f": {done.message}" if done.message else ""
                sys.stdout.write(f"{done.status} {row.kind.kind.lower()} {row.namespace}/{row.name}{detail}\n")
                sys.stdout.flush()
    if as_json:
        sys.stdout.write(_json(plan, args, now, outcomes))
    failed = [o for o in outcomes.values() if not o.ok]
    if failed:
        say(f"{len(failed)} of {len(outcomes)} deletions failed")
        return FAILED
    return OK


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed usage or help
        return exc.code if isinstance(exc.code, int) else USAGE
    return guarded(lambda: run(args), args.debug)
