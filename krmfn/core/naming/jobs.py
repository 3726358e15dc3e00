"""``suffixJobs``: a Job that names hashed ConfigMaps gets a suffix derived from their names.

Why: a Job's pod template is immutable in the API server, so once krmfn rewrites a reference
to a changed ConfigMap, re-applying the same Job fails (``field is immutable``). A new name
makes it a new Job. The suffix is a hash of the hashed names it references, so it changes
exactly when one of them does, and a re-run on the output changes nothing.

CronJobs are left alone: their template is mutable and every run makes a fresh Job anyway.
See docs/jobs.md for the trade-offs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from krmfn.core.naming import hashing
from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem, ResourceRef, Result
from krmfn.yaml.tree import Node

# Job names become the ``job-name`` label of their pods: 63 characters at most.
MAX_JOB_NAME = 63
# A suffix this module (or kustomize) added: stripped first, so suffixes replace, never stack.
_SUFFIXED = re.compile(rf"^(.+)-{hashing.suffix_pattern('kustomize')}$")


@dataclass(frozen=True)
class Rename:
    """The Job's ``metadata.name`` scalar and its new text, spliced at ``offset``."""

    node: Node
    offset: int | None
    old: str
    new: str


def is_job(res: Resource) -> bool:
    return res.kind == "Job" and res.group == "batch"


def job_suffix(configmaps: Iterable[str], content: str = "") -> str:
    """10 characters over the sorted ConfigMap names, in kustomize's suffix alphabet. ``content``:
    the Job's pod-template hash when it names objects that keep their names (core.naming.strategy),
    whose names alone would not change with their content."""
    return hashing.kustomize_suffix("\n".join(sorted(set(configmaps))) + (f"\n{content}" if content else ""))


def base_name(name: str) -> str:
    m = _SUFFIXED.match(name)
    return m.group(1) if m else name


def rename(res: Resource, configmaps: list[str], content: str = "") -> tuple[Rename | None, Result]:
    """The Job's rename (None when its name is already right) and the info result saying so."""
    base = base_name(res.name)
    new = f"{base}-{job_suffix(configmaps, content)}"
    if len(new) > MAX_JOB_NAME:
        raise ReferenceProblem(f"suffixJobs would name this Job {new} ({len(new)} characters), over the {MAX_JOB_NAME} "
                    "a Job's name may have (its pods carry it as a label); shorten the Job's name",
                    res.ref, "metadata.name")
    names = ", ".join(sorted(set(configmaps)))
    result = Result(f"Job {base} is now {new}: it names ConfigMap {names}, and a Job's pod template cannot "
                    "change, so a new ConfigMap needs a new Job (suffixJobs); the old Job stays until it is "
                    "deleted or its ttlSecondsAfterFinished expires",
                    "info", ResourceRef(res.api_version, res.kind, new, res.namespace))
    if new == res.name:
        return None, result
    doc = res.tree
    node = doc.get(res.metadata, "name")
    assert node is not None  # read_resource checked it
    return Rename(node, doc.offset(node), res.name, new), result


__all__ = ["MAX_JOB_NAME", "Rename", "base_name", "is_job", "job_suffix", "rename"]
