"""The I/O shell: arguments, stdin, stdout, stderr, exit codes. Everything else is pure."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from . import __version__
from .config import read_config
from .envelope import FunctionError, Result, has_errors, read_resource_list, write_results
from .rewrite import transform
from .yamldoc import Doc, YamlError


@dataclass
class Outcome:
    """What a run prints and returns: the shell only writes these out."""

    stdout: str
    results: list[Result]
    exit_code: int


def run_resource_list(data: bytes) -> Outcome:
    """ResourceList in, ResourceList out. On error, the input's items go back untouched."""
    try:
        text_ok = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Outcome("", [Result(f"the input is not UTF-8 (bad byte at offset {exc.start})", "error")], 1)
    del text_ok
    try:
        doc = Doc.parse(data)
        rl = read_resource_list(doc)
    except YamlError as exc:
        return Outcome("", [Result(f"the input is {exc}", "error")], 1)
    except FunctionError as exc:
        return Outcome("", exc.results, 1)
    try:
        config = read_config(doc, rl.function_config)
        results = transform(rl, config)
    except (FunctionError, YamlError) as exc:
        errors = exc.results if isinstance(exc, FunctionError) else [Result(str(exc), "error")]
        doc = Doc.parse(data)  # a pristine copy: nothing half-written goes out
        rl = read_resource_list(doc)
        write_results(rl, errors)
        return Outcome(doc.emit(), errors, 1)
    write_results(rl, results)
    return Outcome(doc.emit(), results, 1 if has_errors(results) else 0)


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
    data = sys.stdin.buffer.read()
    try:
        outcome = run_resource_list(data)
    except Exception as exc:  # a bug: say so plainly, without a traceback unless asked
        if args.debug:
            raise
        sys.stderr.write(f"krmfn: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it\n")
        return 2
    for r in outcome.results:
        if r.severity == "error":
            sys.stderr.write(f"krmfn: {r}\n")
    sys.stdout.write(outcome.stdout)
    return outcome.exit_code
