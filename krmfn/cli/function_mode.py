"""The bare function mode: a ResourceList on stdin, one on stdout, errors also on stderr.

Why a module of its own: it is what kpt, kustomize and the container image run, once per
render, so it imports only the core and the guard; every other mode shares it.
"""

from __future__ import annotations

import sys

from krmfn.cli.guard import FAILED, OK, USAGE, guarded, report, say
from krmfn.core.run.function import run_resource_list
from krmfn.krm.limits import Limits


def resource_list_mode(limits: Limits, debug: bool) -> int:
    """The KRM function itself: ResourceList in, ResourceList out (errors also on stderr)."""

    def run() -> int:
        stdin = sys.stdin.buffer
        if stdin.isatty():  # a person trying krmfn, not an orchestrator: say so rather than wait
            from krmfn.cli.hints import TERMINAL  # imported here, for start-up time: never on success

            say(TERMINAL)
            return USAGE
        data = stdin.read(limits.max_input_bytes + 1)  # enough to refuse, never more in memory
        outcome = run_resource_list(data, limits)
        if outcome.failed and not outcome.pieces:  # not read as a ResourceList at all
            from krmfn.cli.hints import EMPTY, not_a_resource_list  # imported here, for start-up time

            hint = not_a_resource_list(data)
            if hint is not None:
                say(hint)
                return FAILED if hint == EMPTY else USAGE  # manifests for a ResourceList: called the wrong way
        report([r for r in outcome.results if r.severity == "error"], verbose=False)
        sys.stdout.buffer.writelines(outcome.pieces)
        sys.stdout.flush()
        return FAILED if outcome.failed else OK

    return guarded(run, debug)
