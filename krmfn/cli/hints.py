"""One line for the ways the bare function mode is most often called wrongly.

Why: with no arguments krmfn reads a KRM ResourceList, as kpt, kustomize and the image run
it. A person trying it at a terminal, a pipeline that pipes plain manifests, and Helm running
``--post-renderer krmfn`` without ``--post-renderer-args helm`` all reach that mode; each gets
one sentence saying what krmfn expected and what to run instead. Only failed runs come here:
the function mode imports this module after a run has failed, never on the way to success.
"""

from __future__ import annotations

import re

TERMINAL = ("stdin is a terminal; with no arguments krmfn reads a KRM ResourceList from a pipe, as kpt and "
            "kustomize give it one (krmfn < examples/quickstart/input.yaml); krmfn --help lists the modes for "
            "plain manifests")

# `docker run IMAGE < file` without -i gives the container an empty stdin, the commonest first try.
EMPTY = ("the input is empty; expected a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1) "
         "on stdin (krmfn < examples/quickstart/input.yaml); in a container, pass -i so that stdin reaches it "
         "(docker run -i --rm IMAGE < input.yaml)")

_KIND = re.compile(rb"^kind:[ \t]*[\"']?([A-Za-z][A-Za-z0-9]*)", re.M)
_API_VERSION = re.compile(rb"^apiVersion:", re.M)
# Helm 3 writes a `# Source:` comment above every template's output; Helm 4 marks every object.
_HELM3 = re.compile(rb"^# Source: ", re.M)
_HELM4 = b"postrenderer.helm.sh/postrender-filename"


def not_a_resource_list(data: bytes) -> str | None:
    """The hint for input that is empty, or plain Kubernetes manifests rather than a ResourceList, or None.

    A top-level ``apiVersion`` and ``kind`` that is no kind of List is what a manifest looks
    like; anything else (an empty input, broken YAML, a list) keeps the function's own error.
    """
    if not data.strip():
        return EMPTY
    kinds = [k.decode() for k in _KIND.findall(data)]
    if not kinds or not _API_VERSION.search(data) or any(k.endswith("List") for k in kinds):
        return None
    if _HELM3.search(data):
        return ("stdin holds Helm's rendered manifests, not the KRM ResourceList krmfn reads when run with no "
                "arguments: as Helm's post-renderer, run it as --post-renderer krmfn --post-renderer-args helm")
    if _HELM4 in data:
        return ("stdin holds Helm 4's rendered manifests, not the KRM ResourceList krmfn reads when run with no "
                "arguments: a Helm 4 post-renderer plugin must run krmfn helm (krmfn install-helm-plugin DIR "
                "writes one)")
    shown = ", ".join(dict.fromkeys(kinds[:4])) + (", ..." if len(kinds) > 4 else "")
    what = f"a plain manifest (kind {shown})" if len(kinds) == 1 else f"{len(kinds)} plain manifests ({shown})"
    return (f"stdin holds {what}, not the KRM ResourceList krmfn reads when run with no arguments: use "
            "krmfn --stream for plain manifests (as Helm's post-renderer: --post-renderer-args helm)")
