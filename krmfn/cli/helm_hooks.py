"""Helm hooks that reach krmfn: a warning for each one krmfn changed.

Why: Helm 3 splits hooks (objects annotated ``helm.sh/hook``) out of the release before it
runs the post-renderer, so a hook never reaches krmfn and keeps naming the old names, which no
longer exist once krmfn renames them (helm/helm v3.21.4, pkg/action/action.go,
renderResources: ``releaseutil.SortManifests``, then ``pr.Run(b)`` on the manifests alone).
Helm 4 passes hooks with the other templates in one stream (v4.0 and v4.1: ``pr.Run`` on every
file before ``SortManifests``; v4.2 and later: ``PostRenderStrategyCombined``, the default, and
the ``helm`` command sets no other). So a hook krmfn sees is a hook it changes under Helm 4 only,
or a hook in a ``helm template`` stream piped in by hand; and Helm runs pre-install and
pre-upgrade hooks before the release's objects exist, so a new name they use does not exist yet.
Only the Helm route says so (``krmfn helm``): other routes are not Helm's post-renderer.
"""

from __future__ import annotations

from collections.abc import Sequence

from krmfn.krm.resource import read_resource
from krmfn.results import KrmfnError, ResourceRef, Result

HOOK = "helm.sh/hook"
BEFORE = ("pre-install", "pre-upgrade")  # hooks Helm runs before it creates or updates the release's objects


def warnings(before: Sequence[bytes], after: Sequence[bytes]) -> list[Result]:
    """One warning per object that holds a Helm hook and that krmfn changed (``before`` and
    ``after``: every object's text as read and as written, in order)."""
    hook = HOOK.encode()
    out = []
    for index, (text, changed) in enumerate(zip(before, after)):
        if text == changed or hook not in text:  # most renders have no hook: a byte search, nothing parsed
            continue
        try:
            res = read_resource(text, index)
        except KrmfnError:
            continue
        phases = res.annotations.get(HOOK)
        if phases is None:
            continue
        out.append(_warning(res.ref, phases))
    return out


def _warning(ref: ResourceRef, phases: str) -> Result:
    before = [p.strip() for p in phases.split(",") if p.strip() in BEFORE]
    timing = (f"; and Helm runs a {' or '.join(before)} hook before it creates the release's objects, so a new "
              "name it uses does not exist yet when it runs" if before else "")
    message = (f"is a Helm hook ({HOOK}: {phases}) that krmfn changed, but only Helm 4 passes hooks to a "
               "post-renderer: under Helm 3 this hook keeps the old names, which do not exist after the rename"
               f"{timing}; leave the objects hooks use out of the opt-in, or render the hooks on their own "
               "(docs/helm.md#helm-hooks)")
    return Result(message, "warning", ref, f"metadata.annotations[{HOOK}]")
