"""The I/O shell: arguments, stdin, stdout, stderr, exit codes. Everything else is pure.

With no arguments, krmfn is the KRM function: a ResourceList on stdin, one on stdout. That is
how kpt, kustomize and the container image run it, once per render, so this module holds only
the dispatch and that mode, and imports nothing more. Every mode with arguments (files,
``--stream``, ``helm``, ``plugin``, the installers: :mod:`krmfn.cli.modes`) and ``gc``
(:mod:`krmfn.cli.gc`) is imported when asked for.
"""

from __future__ import annotations

import sys

from krmfn.cli.function_mode import resource_list_mode
from krmfn.krm.limits import Limits

__all__ = ["main", "resource_list_mode"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:  # the function mode, as orchestrators call it: no parser to build
        return resource_list_mode(Limits(), debug=False)
    if argv[:1] == ["gc"]:
        # Imported here, for start-up time: gc is a separate pass, never part of a render.
        from krmfn.cli.gc import main as gc_main

        return gc_main(argv[1:])
    if argv[:1] == ["plan"]:
        # Imported here, for start-up time: plan compares two renders, never part of one.
        from krmfn.cli.plan import main as plan_main

        return plan_main(argv[1:])
    # Imported here, for start-up time: the bare function mode builds no argument parser.
    from krmfn.cli.modes import main as modes_main

    return modes_main(argv)
