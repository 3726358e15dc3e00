"""``krmfn plan OLD NEW``: read two renders, plan (changes.changeplan), print (changes.planview), and
exit 1 when a --fail-on category is in the plan (a CI gate)."""

from __future__ import annotations

import argparse
import sys

from krmfn.changes.changeplan import CATEGORIES, Obj, change_plan, objects_of
from krmfn.changes.planview import FORMATS
from krmfn.cli.files import find
from krmfn.cli.guard import FAILED, OK, USAGE, guarded, say
from krmfn.cli.parser import Parser, comma_list
from krmfn.cli.reading import read_files, read_limited
from krmfn.krm.limits import Limits
from krmfn.krm.objects import read_objects
from krmfn.results import ConfigError, InputError

EXIT_STATUS = """\
exit status:
  0  the plan was printed, and none of its workloads is in a --fail-on category
  1  the plan was printed, and a workload is in a --fail-on category
  2  usage: bad arguments, a render that cannot be read; or an internal error
"""

EPILOG = f"""\
OLD and NEW are renders: a file, a directory (its *.yaml and *.yml), or - for stdin (one of
them); a KRM ResourceList or a plain multi-document stream. Versions of one ConfigMap or
Secret are paired by krmfn.dev/original-name (or the krmfn.dev/family label), else by name.
Secrets are shown by key name only.

--fail-on categories: {', '.join(CATEGORIES)}
(unread: rolls, though it reads none of the changed keys).

{EXIT_STATUS}"""


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="krmfn plan", usage="krmfn plan OLD NEW [-o text|markdown|json] [--fail-on CATEGORY,...]",
               description="Say what a config change does: keys changed, and which workloads roll and how.",
               epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", metavar="OLD", help="the render before (file, directory or -)")
    p.add_argument("new", metavar="NEW", help="the render after (file, directory or -)")
    p.add_argument("-o", "--output", choices=tuple(FORMATS), default="text", help="text (default), markdown, json")
    p.add_argument("--fail-on", type=comma_list, action="extend", default=[], metavar="CATEGORY[,CATEGORY...]",
                   help=f"exit 1 when a workload is in one of these: {', '.join(CATEGORIES)}")
    p.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    return p


def _read(source: str) -> list[Obj]:
    """One render's objects, read to the function's input limit like every other mode."""
    limit = Limits().max_input_bytes
    if source == "-":
        chunks = [("stdin", read_limited(sys.stdin.buffer, limit))]
    else:
        found, _ = find([source])  # a Helm chart inside a render's tree is no part of it
        read, _ = read_files(found, limit)
        chunks = [(path, text) for path, text, _ in read]
    if sum(len(data) for _, data in chunks) > limit:
        raise ConfigError(f"{source} is over the limit of {limit >> 20} MiB for a render")
    try:  # read as every mode reads its input; a render that cannot be read is a usage error here
        return objects_of(read_objects([data for _, data in chunks], [where for where, _ in chunks]))
    except InputError as exc:
        raise ConfigError("; ".join(str(r) for r in exc.results)) from None


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    unknown = [c for c in args.fail_on if c not in CATEGORIES]
    if unknown:
        say(f"--fail-on: unknown category {unknown[0]!r}; use {', '.join(CATEGORIES)}")
        return USAGE
    if args.old == "-" and args.new == "-":
        say("only one of OLD and NEW can be - (stdin)")
        return USAGE

    def run() -> int:
        found = change_plan(_read(args.old), _read(args.new))
        sys.stdout.write(FORMATS[args.output](found))
        hit = sorted(found.categories() & set(args.fail_on))
        if hit:
            say(f"the plan has {', '.join(hit)} (--fail-on)")
            return FAILED
        return OK

    return guarded(run, args.debug)


__all__ = ["EXIT_STATUS", "main"]
