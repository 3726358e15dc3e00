"""Which files a directory walk found are manifests, decided by reading each one.

Why: a walk meets Helm values, Chart.yaml, CI files, binaries and files in other encodings next
to the manifests. Such a file must be left alone, never fail the run; but a manifest must never
be left out, or its ConfigMap is renamed and its reference stays stale. So the walk reads every
file that could be one: a file is a manifest when some document parses to a map with
``apiVersion`` and ``kind``, whatever its style (JSON, flow, quoted keys, indented). A file named
on the command line is always read, and its problems are errors.
"""

from __future__ import annotations

import re

from krmfn.yaml.encoding import BOM, BOMS, not_text
from krmfn.yaml.probe import holds_objects
from krmfn.yaml.tree import YamlError

# Both identity keys, quoted or not, anywhere: a text that does not parse but has them may be a
# broken manifest, which must fail the run rather than be left out.
_MENTIONS = (re.compile(rb"""["']?\bapiVersion\b["']?[ \t]*:"""), re.compile(rb"""["']?\bkind\b["']?[ \t]*:"""))


def skip_reason(data: bytes, limit: int) -> str | None:
    """Why a file a walk found is not read, in a few words; None when it is read (it holds
    Kubernetes objects, or it may and only the run can say what is wrong with it)."""
    if len(data) > limit or any(data.startswith(bom) for bom, _ in BOMS):
        return None  # over the size limit, or UTF-16/32 that kubectl reads: the run's own error
    what = not_text(data)
    if what is not None:
        return what
    text = data.decode("utf-8")
    text = text[1:] if text.startswith(BOM.decode("utf-8")) else text
    try:
        if holds_objects(text):
            return None
    except YamlError as exc:
        if all(m.search(data) for m in _MENTIONS):
            return None  # it may be a manifest: the run names its error with the line
        return f"not valid YAML ({exc.detail})"
    return "no Kubernetes objects (no document is a map with apiVersion and kind)"
