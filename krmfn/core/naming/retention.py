"""What a hashed ConfigMap carries so that old versions survive until a rollback-aware GC.

- the ``ORIGINAL_NAME`` annotation holds the name before hashing (up to 253 characters), so
  that re-runs find the family and recompute the suffix from it;
- the ``FAMILY`` label selects every krmfn-managed ConfigMap (``-l krmfn.dev/family``) and one
  family (``-l krmfn.dev/family=<value>``; with the namespace, a family). Label values hold 63
  characters, so long names are shortened with a hash of the full name;
- retention annotations ask Helm, Flux, Argo CD or kpt/Config Sync not to prune old versions
  (each tool's documented annotation: docs/gc.md); ``krmfn gc`` prunes them later.
"""

from __future__ import annotations

import hashlib
import re

OPT_IN = "krmfn.dev/content-hash"
OPTED_OUT = f'its own {OPT_IN}: "false" wins'  # why an object that opted itself out is not hashed
ORIGINAL_NAME = "krmfn.dev/original-name"
FAMILY = "krmfn.dev/family"
IGNORE_WARNINGS = "krmfn.dev/ignore-warnings"  # classes of warning an object silences (core.report.silence)
KUSTOMIZE_HASHES = "internal.config.kubernetes.io/needsHashSuffix"

RETENTION: dict[str, dict[str, str]] = {
    "helm": {"helm.sh/resource-policy": "keep"},
    "flux": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
    "argocd": {"argocd.argoproj.io/sync-options": "Prune=false",
               "argocd.argoproj.io/compare-options": "IgnoreExtraneous"},
    "kpt": {"client.lifecycle.config.k8s.io/deletion": "detach"},
    "configsync": {"client.lifecycle.config.k8s.io/deletion": "detach"},
}
# Annotations whose value is a comma-separated list of options: merged entry by entry.
_LIST_VALUED = {"argocd.argoproj.io/sync-options", "argocd.argoproj.io/compare-options"}

_LABEL_VALUE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$")


def family_label(original_name: str) -> str:
    """A valid label value naming the family: the name itself, or a prefix and a hash of it."""
    if _LABEL_VALUE.match(original_name):
        return original_name
    digest = hashlib.sha256(original_name.encode()).hexdigest()[:10]
    head = re.sub(r"[^-A-Za-z0-9_.]", "", original_name)[:52].strip("-_.")
    return f"{head}-{digest}" if head else digest


def retention_annotations(targets: tuple[str, ...]) -> dict[str, str]:
    """The annotations the chosen targets honour (kpt and configsync share one key and value)."""
    out: dict[str, str] = {}
    for target in targets:
        out.update(RETENTION[target])
    return out


def merge_annotation(key: str, existing: str | None, wanted: str) -> str:
    """The value to write: the user's own value wins; list-valued options gain missing entries."""
    if existing is None or existing == "":
        return wanted
    if key not in _LIST_VALUED:
        return existing
    entries = [e.strip() for e in existing.split(",") if e.strip()]
    names = {e.split("=", 1)[0].strip() for e in entries}
    missing = [w for w in wanted.split(",") if w.split("=", 1)[0] not in names]
    # Nothing to add: keep the user's text as written (spacing included), so re-runs are no-ops.
    return ",".join(entries + missing) if missing else existing
