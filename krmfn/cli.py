"""The I/O shell: arguments, stdin, stdout, stderr, exit codes. Everything else is pure."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .function import Outcome, run_resource_list
from .limits import Limits
from .yamldoc import quiet_stderr

__all__ = ["main", "Outcome", "run_resource_list"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="krmfn",
        description="Content-hash ConfigMap names, make them immutable, and rewrite every reference. "
                    "With no arguments, reads a KRM ResourceList on stdin and writes one on stdout.",
    )
    p.add_argument("--version", action="version", version=f"krmfn {__version__}")
    p.add_argument("--debug", action="store_true", help="show a traceback on internal errors")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["gc"]:
        from .gc_cli import main as gc_main  # a separate pass, never part of a render

        return gc_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        with quiet_stderr():
            outcome = run_resource_list(sys.stdin.buffer.read(), Limits())
    except Exception as exc:  # a bug: say so plainly, without a traceback unless asked
        if args.debug:
            raise
        sys.stderr.write(f"krmfn: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it\n")
        return 2
    for r in outcome.results:
        if r.severity == "error":
            sys.stderr.write(f"krmfn: {r}\n")
    sys.stdout.buffer.writelines(outcome.pieces)
    sys.stdout.flush()
    return outcome.exit_code
