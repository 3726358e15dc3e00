"""The I/O shell: arguments, stdin, stdout, stderr, exit codes. Everything else is pure.

With no arguments, krmfn is the KRM function: a ResourceList on stdin, one on stdout. That is
how kpt, kustomize and the container image run it, once per render, so this module holds only
that mode and imports nothing else. Every mode with arguments (files, ``--stream``, ``helm``,
``plugin``, the installers; see :mod:`krmfn.modes`) and ``gc`` (:mod:`krmfn.gc_cli`) is
imported when asked for.
"""

from __future__ import annotations

import sys

from .function import Outcome, run_resource_list
from .limits import Limits
from .yamldoc import quiet_stderr

__all__ = ["Outcome", "main", "run_resource_list", "resource_list_mode"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:  # the function mode, as orchestrators call it: no parser to build
        return resource_list_mode(Limits(), debug=False)
    if argv[:1] == ["gc"]:
        from .gc_cli import main as gc_main  # a separate pass, never part of a render

        return gc_main(argv[1:])
    from .modes import main as modes_main

    return modes_main(argv)


def resource_list_mode(limits: Limits, debug: bool) -> int:
    """The KRM function itself: ResourceList in, ResourceList out."""
    try:
        with quiet_stderr():
            outcome = run_resource_list(sys.stdin.buffer.read(), limits)
    except Exception as exc:  # a bug: say so plainly, without a traceback unless asked
        if debug:
            raise
        sys.stderr.write(f"krmfn: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it\n")
        return 2
    for r in outcome.results:
        if r.severity == "error":
            sys.stderr.write(f"krmfn: {r}\n")
    sys.stdout.buffer.writelines(outcome.pieces)
    sys.stdout.flush()
    return outcome.exit_code
