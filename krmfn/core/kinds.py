"""The kinds krmfn renames, as data: what each hashes, and how kustomize encodes it for the hash.

Why data: the scan, the plan, retention and gc work on "an opted-in object of a renamed
kind", never on ConfigMap by name. Adding a kind (Secret is next) is adding a RenamedKind
here, its hash encoding in core.hashing, and its reference rows in core.table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from krmfn.core import hashing

Content = Mapping[str, "dict[str, str] | None"]  # each hashed field's string map; None: absent


@dataclass(frozen=True, repr=False, eq=False)  # no generated methods to compile at start-up
class RenamedKind:
    kind: str
    api_version: str
    plural: str  # the API resource: `kubectl get configmaps`, gc's delete path
    content: tuple[str, ...]  # the fields the hash covers (each a map of strings)
    base64: tuple[str, ...]  # of those, the ones whose values must be base64 text
    encode: Callable[[Content], str]  # kustomize's hash input for that content, byte for byte

    def hash_input(self, content: Content) -> str:
        return self.encode(content)


CONFIGMAP = RenamedKind("ConfigMap", "v1", "configmaps", ("data", "binaryData"), ("binaryData",),
                        lambda c: hashing.encode_configmap(c.get("data"), c.get("binaryData")))

RENAMED: tuple[RenamedKind, ...] = (CONFIGMAP,)
BY_TYPE: dict[tuple[str, str], RenamedKind] = {(k.api_version, k.kind): k for k in RENAMED}


def renamed_kind(api_version: str, kind: str) -> RenamedKind | None:
    """The RenamedKind of an object's apiVersion and kind, or None for every other object."""
    return BY_TYPE.get((api_version, kind))
