"""The bare function mode: a ResourceList on stdin, one on stdout, errors also on stderr.

Why a module of its own: it is what kpt, kustomize and the container image run, once per
render, so it imports only the core and the guard; every other mode shares it.
"""

from __future__ import annotations

import sys

from krmfn.cli.guard import FAILED, OK, guarded, report
from krmfn.core.function import run_resource_list
from krmfn.document.limits import Limits


def resource_list_mode(limits: Limits, debug: bool) -> int:
    """The KRM function itself: ResourceList in, ResourceList out (errors also on stderr)."""

    def run() -> int:
        outcome = run_resource_list(sys.stdin.buffer.read(), limits)
        report([r for r in outcome.results if r.severity == "error"], verbose=False)
        sys.stdout.buffer.writelines(outcome.pieces)
        sys.stdout.flush()
        return FAILED if outcome.failed else OK

    return guarded(run, debug)
