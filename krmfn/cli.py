"""The I/O shell: arguments, stdin, stdout, stderr, exit codes. Everything else is pure."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from . import __version__
from .config import read_config
from .envelope import FunctionError, Result, has_errors, read_resource_list, render
from .rewrite import transform
from .yamldoc import YamlError, quiet_stderr


@dataclass
class Outcome:
    """What a run prints and returns: the shell only writes these out."""

    pieces: list[bytes]  # written one after the other: no second copy of a large output
    results: list[Result]
    exit_code: int

    @property
    def stdout(self) -> bytes:
        return b"".join(self.pieces)

    @property
    def text(self) -> str:
        return self.stdout.decode()


def run_resource_list(data: bytes) -> Outcome:
    """ResourceList in, ResourceList out.

    On an error found while reading or planning, the items go back exactly as read, with
    error results: nothing is written until every check has passed.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Outcome([], [Result(f"the input is not UTF-8 (bad byte at offset {exc.start})", "error")], 1)
    try:
        rl = read_resource_list(data)
    except YamlError as exc:
        return Outcome([], [Result(f"the input is {exc}", "error")], 1)
    except FunctionError as exc:
        return Outcome([], exc.results, 1)
    try:
        config = read_config(rl.envelope, rl.function_config)
        items, results = transform(rl, config)
    except FunctionError as exc:
        items, results = rl.sources, exc.results
    return Outcome(render(rl, items, results), results, 1 if has_errors(results) else 0)


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
            outcome = run_resource_list(sys.stdin.buffer.read())
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
