"""The kinds krmfn renames, as data: what each hashes, and how kustomize encodes it for the hash.

Why data: the scan, the plan, retention and gc work on "an opted-in object of a renamed
kind", never on ConfigMap or Secret by name. Adding a kind is adding a RenamedKind here, its
hash encoding in core.hashing, and its reference rows in core.table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from krmfn.core import hashing

# Each hashed field's value: a map's entries, a scalar's text, or None when the field is absent.
Content = Mapping[str, "dict[str, str] | str | None"]


@dataclass(frozen=True, repr=False, eq=False)  # no generated methods to compile at start-up
class RenamedKind:
    kind: str
    api_version: str
    plural: str  # the API resource: `kubectl get configmaps`, gc's delete path
    content: tuple[str, ...]  # the map fields the hash covers (each a map of strings)
    base64: tuple[str, ...]  # of those, the ones whose values must be base64 text
    encode: Callable[[Content], str]  # kustomize's hash input for that content, byte for byte
    scalars: tuple[str, ...] = ()  # scalar fields the hash covers too (a Secret's ``type``)
    # Values never leave the process: no message, result or log shows one, only keys and names.
    secret: bool = False

    def hash_input(self, content: Content) -> str:
        return self.encode(content)


def _map(content: Content, key: str) -> dict[str, str] | None:
    value = content.get(key)
    return value if isinstance(value, dict) else None


def _text(content: Content, key: str) -> str | None:
    value = content.get(key)
    return value if isinstance(value, str) else None


CONFIGMAP = RenamedKind("ConfigMap", "v1", "configmaps", ("data", "binaryData"), ("binaryData",),
                        lambda c: hashing.encode_configmap(_map(c, "data"), _map(c, "binaryData")))
SECRET = RenamedKind("Secret", "v1", "secrets", ("data", "stringData"), ("data",),
                     lambda c: hashing.encode_secret(_text(c, "type"), _map(c, "data"), _map(c, "stringData")),
                     scalars=("type",), secret=True)

RENAMED: tuple[RenamedKind, ...] = (CONFIGMAP, SECRET)
BY_TYPE: dict[tuple[str, str], RenamedKind] = {(k.api_version, k.kind): k for k in RENAMED}
BY_KIND: dict[str, RenamedKind] = {k.kind: k for k in RENAMED}
ALL_KINDS: frozenset[str] = frozenset(BY_KIND)
# What the function config's select, names and selector reach unless ``kinds`` says otherwise.
DEFAULT_KINDS: tuple[str, ...] = ("ConfigMap",)


def renamed_kind(api_version: str, kind: str) -> RenamedKind | None:
    """The RenamedKind of an object's apiVersion and kind, or None for every other object."""
    return BY_TYPE.get((api_version, kind))
