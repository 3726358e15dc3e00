"""Namespace traps: a reference whose name matches an object of the render only in another namespace.

The rule krmfn follows is kustomize's: a reference means an object in its referrer's namespace,
and an empty ``metadata.namespace`` means ``default``. A base that leaves the namespace to
``kubectl apply -n demo`` breaks it: its Deployments in ``demo`` and its ConfigMap with none
are, to krmfn as to kustomize, in two namespaces, so the ConfigMap is renamed and the
references are not. Such a reference gets a warning naming both namespaces and the two fixes
(one namespace for both, or ``defaultNamespace``), never "not in the input".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from krmfn.core.config import Strategy
from krmfn.krm.resource import Resource
from krmfn.results import Result

if TYPE_CHECKING:
    from krmfn.core.run.scan import Hashed


def describe(namespace: str, empty: str) -> str:
    """A namespace as a message names it: an empty one with the rule that gave it its meaning."""
    if namespace:
        return namespace
    why = "as in kustomize" if empty == "default" else "the function config's defaultNamespace"
    return f"{empty} (none given, and an empty namespace means {empty} in this render, {why})"


def trap(subject: str, referrer: Resource, here: str, found: list[tuple[Resource, Hashed | None]], empty: str,
         field: str | None) -> Result:
    """The result for a reference that means nothing in ``here`` (its namespace as written, or
    the one it names itself) but names ``found`` elsewhere. ``subject``: what names them
    ("references ConfigMap api-config", an annotation that names one)."""
    there = sorted({res.namespace for res, _ in found})
    where = " and ".join(describe(ns, empty) for ns in there)
    hashed = [h for _, h in found if h is not None and h.strategy is not Strategy.OFF]
    message = f"{subject}, which this render holds only in namespace {where}, not in {describe(here, empty)}"
    if not hashed:
        return Result(f"{message}; krmfn changes neither, and leaves the reference as it is", "info", referrer.ref,
                      field)
    h = hashed[0]
    if h.strategy is Strategy.ANNOTATION:
        effect = (f"its content is not in this {referrer.kind}'s krmfn.dev/config-hash, so its changes do not roll "
                  f"the {referrer.kind}")
    else:
        effect = f"the reference is left unchanged and names no object once it is renamed {h.ref_name}"
    fixes = ["give both the same metadata.namespace"]
    for given, missing in ((here, there[0]), (there[0], here)):
        if given and not missing and len(there) == 1:  # one side left empty: kubectl apply -n may fill it
            fixes.append(f"if you apply with kubectl apply -n {given}, set defaultNamespace: {given} in the "
                         f"function config (--default-namespace {given})")
    short = (f"{subject}, which this render holds only in namespace {' and '.join(ns or empty for ns in there)}, "
             f"not in {here or empty}: {effect}")
    return Result(short, "warning", referrer.ref, field, detail=f"{message}; to fix it, {', or, '.join(fixes)}",
                  detail_tag="fix", topic="namespace")


__all__ = ["describe", "trap"]
