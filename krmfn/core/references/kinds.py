"""The kinds krmfn renames, as data: what each hashes, and how it is encoded for the hash.

Why data: the scan, the plan, retention and gc work on "an opted-in object of a renamed
kind", never on ConfigMap or Secret by name. Adding a kind is adding a RenamedKind here, its
hash encoding in core.naming.hashing, and its reference rows in core.references.table.

Three of them are custom resources that a controller turns into what pods use (docs/secret-controllers.md):
a SealedSecret and an ExternalSecret each make a Secret, so workloads name them as Secrets
(``refers_as``); a SecretProviderClass is named by CSI volumes. What only their controller knows
is checked by ``check`` (core.references.controllers): a strict-scope SealedSecret cannot be renamed, an
ExternalSecret that merges into another tool's Secret has nothing krmfn can rename.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from krmfn.core.naming import hashing

if TYPE_CHECKING:
    from krmfn.krm.resource import Resource

# Each hashed field's value, by its dotted path: a map's entries, a scalar's text, a whole subtree
# (``trees``, as plain data), or None when the field is absent.
Content = Mapping[str, object]


@dataclass(frozen=True, repr=False, eq=False)  # no generated methods to compile at start-up
class RenamedKind:
    kind: str
    api_version: str
    plural: str  # the API resource: `kubectl get configmaps`, gc's delete path
    content: tuple[str, ...]  # the map fields the hash covers (each a map of strings), as dotted paths
    base64: tuple[str, ...]  # of those, the ones whose values must be base64 text
    encode: Callable[[Content], str]  # the hash input for that content (kustomize's, byte for byte, where it has one)
    scalars: tuple[str, ...] = ()  # scalar fields the hash covers too (a Secret's ``type``)
    # Values never leave the process: no message, result or log shows one, only keys and names.
    secret: bool = False
    trees: tuple[str, ...] = ()  # fields hashed whole, as plain data (a custom resource's ``spec``)
    omit: tuple[str, ...] = ()  # paths inside ``trees`` the hash leaves out: the rename writes them
    immutable: bool = True  # the rename adds ``immutable: true`` (a field of ConfigMaps and Secrets only)
    refers_as: str = ""  # the kind references name it by ("" its own): what its controller makes
    made_name: tuple[str, ...] = ()  # the field naming what its controller makes; () or absent: its own name
    other_versions: tuple[str, ...] = ()  # more apiVersions that serve the same kind
    group: str = ""  # the API group: gc reads ``plural.group`` (a custom resource may not be installed)
    check: Callable[[Resource], None] | None = None  # raises when a rename would break what it makes
    # When the field at this path holds one of these values, deleting the object leaves what it made in
    # the cluster (no ownerReference): gc says so. (path, values), or None.
    leaves_made: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def hash_input(self, content: Content) -> str:
        return self.encode(content)

    @property
    def reference_kind(self) -> str:
        """The kind a reference to it names: a Secret for what makes one."""
        return self.refers_as or self.kind

    @property
    def resource(self) -> str:
        """What ``kubectl get`` is given: the plural, with the group for a custom resource."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


def _map(content: Content, key: str) -> dict[str, str] | None:
    value = content.get(key)
    return value if isinstance(value, dict) else None


def _text(content: Content, key: str) -> str | None:
    value = content.get(key)
    return value if isinstance(value, str) else None


def _sealed_secret(res: Resource) -> None:
    from krmfn.core.references.controllers import sealed_secret  # here, for start-up time: few runs have one

    sealed_secret(res)


def _external_secret(res: Resource) -> None:
    from krmfn.core.references.controllers import external_secret  # here, for start-up time: few runs have one

    external_secret(res)


CONFIGMAP = RenamedKind("ConfigMap", "v1", "configmaps", ("data", "binaryData"), ("binaryData",),
                        lambda c: hashing.encode_configmap(_map(c, "data"), _map(c, "binaryData")))
SECRET = RenamedKind("Secret", "v1", "secrets", ("data", "stringData"), ("data",),
                     lambda c: hashing.encode_secret(_text(c, "type"), _map(c, "data"), _map(c, "stringData")),
                     scalars=("type",), secret=True)
# sealed-secrets: its controller decrypts it into a Secret of the same name (template.metadata.name is
# overwritten), so workloads name it as that Secret. Hashed over what decides the Secret's content.
SEALED_SECRET = RenamedKind(
    "SealedSecret", "bitnami.com/v1alpha1", "sealedsecrets", ("spec.encryptedData", "spec.template.data"),
    ("spec.encryptedData",), lambda c: hashing.encode_fields("SealedSecret", c),
    scalars=("spec.template.type", "spec.data"), secret=True, immutable=False, refers_as="Secret",
    group="bitnami.com", check=_sealed_secret,
    leaves_made=(("spec", "template", "metadata", "annotations", "sealedsecrets.bitnami.com/skip-set-owner-references"),
                 ("true",)))
# External Secrets Operator: makes the Secret spec.target.name names (default: its own name). Each version
# is a new ExternalSecret whose target carries the same suffix, so the operator never sees a target name
# change (under Owner it deletes the Secret an ExternalSecret no longer targets): the previous Secret lives
# as long as the previous ExternalSecret, which retention keeps and gc deletes (docs/secret-controllers.md).
EXTERNAL_SECRET = RenamedKind(
    "ExternalSecret", "external-secrets.io/v1", "externalsecrets", (), (),
    lambda c: hashing.encode_fields("ExternalSecret", c), trees=("spec",), omit=("spec.target.name",),
    secret=True, immutable=False, refers_as="Secret", made_name=("spec", "target", "name"),
    other_versions=("external-secrets.io/v1beta1",), group="external-secrets.io", check=_external_secret,
    leaves_made=(("spec", "target", "creationPolicy"), ("Orphan", "CreateOrMerge")))
# Secrets Store CSI driver: pods mount it by name (a CSI volume's volumeAttributes.secretProviderClass).
SECRET_PROVIDER_CLASS = RenamedKind(
    "SecretProviderClass", "secrets-store.csi.x-k8s.io/v1", "secretproviderclasses", (), (),
    lambda c: hashing.encode_fields("SecretProviderClass", c), trees=("spec",), secret=True, immutable=False,
    other_versions=("secrets-store.csi.x-k8s.io/v1alpha1",), group="secrets-store.csi.x-k8s.io")

RENAMED: tuple[RenamedKind, ...] = (CONFIGMAP, SECRET, SEALED_SECRET, EXTERNAL_SECRET, SECRET_PROVIDER_CLASS)
BY_TYPE: dict[tuple[str, str], RenamedKind] = {(v, k.kind): k for k in RENAMED
                                              for v in (k.api_version, *k.other_versions)}
BY_KIND: dict[str, RenamedKind] = {k.kind: k for k in RENAMED}
ALL_KINDS: frozenset[str] = frozenset(BY_KIND)
# The kinds a reference can name (a SealedSecret is named as the Secret it makes).
REFERENCE_KINDS: tuple[str, ...] = tuple(dict.fromkeys(k.reference_kind for k in RENAMED))
# What the function config's select, names and selector reach unless ``kinds`` says otherwise.
DEFAULT_KINDS: tuple[str, ...] = ("ConfigMap",)


def plural(kind: str) -> str:
    """A kind in the plural, for messages: ConfigMaps, SecretProviderClasses."""
    return f"{kind}es" if kind.endswith("s") else f"{kind}s"


def renamed_kind(api_version: str, kind: str) -> RenamedKind | None:
    """The RenamedKind of an object's apiVersion and kind, or None for every other object."""
    return BY_TYPE.get((api_version, kind))


def reference_kind(api_version: str, kind: str) -> str:
    """The kind references name an object of a renamed kind by (its own, or what it makes)."""
    found = BY_TYPE.get((api_version, kind))
    return kind if found is None else found.reference_kind
