"""The function's configuration, read from ``functionConfig`` in either of two forms.

Typed (for kustomize ``transformers:`` and kpt pipelines)::

    apiVersion: fn.krmfn.dev/v1alpha1
    kind: ContentHash
    metadata: {name: content-hash}
    select: annotated            # or: all
    names: [app-config]          # also hash these ConfigMaps
    selector: {matchLabels: {hash: "yes"}}
    kinds: [ConfigMap, Secret]   # what select, names and selector reach (default: ConfigMap; core.references.kinds)
    honor: [reloader, autoreload]  # the opt-in marks of Reloader and the Kyverno policy
    algorithm: kustomize         # or: sha256
    retention: [flux, argocd]
    strategy: suffix             # or: annotation (keep the name, roll through a pod-template hash)
    defaultNamespace: default    # what an empty metadata.namespace means in this render
    audit: warn                  # or: info, off (config that cannot roll: core.report.audit)
    rotation: off                # or: reloader (name what rotates outside Git for Reloader: core.report.rotation)

Plain ConfigMap (``kpt fn eval --exec krmfn -- select=all retention=flux,argocd``): the same
fields as ``data`` strings; lists are comma-separated, ``selector`` is a label selector string.

Every field is optional. An unknown field or value is an error that names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from krmfn.core.naming.hashing import ALGORITHMS
from krmfn.core.naming.retention import RETENTION
from krmfn.core.references.fieldspec import FieldSpec
from krmfn.core.references.kinds import BY_KIND, DEFAULT_KINDS
from krmfn.core.selection.selector import LabelSelector, parse_selector
from krmfn.krm.data import DocumentCount, DuplicateKey, load_one, typed_data
from krmfn.results import ConfigError, ResourceRef, Where, shown
from krmfn.yaml.tree import Doc, Node, YamlError

API_VERSION = "fn.krmfn.dev/v1alpha1"
KIND = "ContentHash"
SELECT_MODES = ("annotated", "all")


class Strategy(StrEnum):
    """How an opted-in object makes its referrers roll (core.naming.strategy): a new name, or a hash in
    each referrer's pod template while the object keeps its name. OFF is no choice of a user's:
    an object whose opt-in was taken away, given its original name back (core.run.scan)."""

    SUFFIX = "suffix"
    ANNOTATION = "annotation"
    OFF = "off"


STRATEGIES = (Strategy.SUFFIX, Strategy.ANNOTATION)  # what a user may choose
# A namespace name Kubernetes accepts (an RFC 1123 label); compiled only when one is given.
_NAMESPACE = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
# The opt-in marks of the tools krmfn replaces, honoured when named in ``honor`` (core.marks).
HONORED = ("reloader", "autoreload")
# The roll-path audit's level (core.report.audit): its findings as warnings (default: a change never read
# is silent, the failure users report most), as infos, or not looked for at all.
AUDIT_LEVELS = ("warn", "info", "off")
# What rolls a workload when something it reads changes outside Git (core.report.rotation): nothing krmfn
# writes, or Reloader, told the exact objects on each workload.
ROTATIONS = ("off", "reloader")


@dataclass(frozen=True)
class Config:
    select: str = "annotated"
    names: frozenset[str] = frozenset()
    selector: LabelSelector = field(default_factory=LabelSelector)
    # The renamed kinds that select, names, selector and a workload's marks reach; an object's
    # own annotation opts it in whatever its kind.
    kinds: frozenset[str] = frozenset(DEFAULT_KINDS)
    honor: frozenset[str] = frozenset()
    algorithm: str = "kustomize"
    retention: tuple[str, ...] = ()
    field_specs: tuple[FieldSpec, ...] = ()  # parsed by core.references.user_specs
    suffix_jobs: bool = False
    strategy: Strategy = Strategy.SUFFIX
    # What an empty namespace means, for referrers and objects alike: kustomize's "default", or
    # the namespace ``kubectl apply -n NS`` will put them in.
    default_namespace: str = "default"
    audit: str = "warn"  # one of AUDIT_LEVELS
    rotation: str = "off"  # one of ROTATIONS
    # How a message names each field, by key, when a shell mode built the config: the flag
    # (``--names``), the environment variable (``KRMFN_NAMES``), or a config file's field. None: the
    # bare function mode, where every option is a function config field.
    labels: tuple[tuple[str, str], ...] | None = None

    @property
    def from_shell(self) -> bool:
        """Whether the options came from a command line (flags name them), not a functionConfig."""
        return self.labels is not None

    def label(self, key: str) -> str:
        """How a message names the field ``key``: as the user gave it, or would give it in this mode."""
        if self.labels is None:
            return f"function config field {key!r}"
        return next((label for k, label in self.labels if k == key), FLAG_OF.get(key, key))


# The most entries a list option takes: far above any real use, low enough that a generated or
# hostile config gets one sentence rather than a long run.
MAX_LIST = 10_000


def _as_list(value: object, at: Where) -> list[str]:
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, list):
        bad = next((i for i, v in enumerate(value) if not isinstance(v, str)), None)
        if bad is not None:
            raise at.error(f"must be a list of strings; entry {bad} is {shown(value[bad])} (quote it)")
        items = value
    else:
        raise at.error(f"must be a list of strings or a comma-separated string, not {shown(value)}")
    if len(items) > MAX_LIST:
        raise at.error(f"has {len(items):,} entries, over the limit of {MAX_LIST:,}")
    return items


def _as_bool(value: object, at: Where) -> bool:
    if value in ("true", "True", True):
        return True
    if value in ("false", "False", False):
        return False
    raise at.error(f"must be true or false, not {shown(value)}")


def _one_of(value: object, choices: tuple[str, ...], at: Where) -> str:
    if not isinstance(value, str) or value not in choices:
        raise at.error(f"must be one of {', '.join(choices)}, not {shown(value)}")
    return value


def _subset(value: object, choices: tuple[str, ...], what: str, at: Where) -> frozenset[str]:
    items = _as_list(value, at)
    for item in items:
        if item not in choices:
            raise at.error(f"has unknown {what} {shown(item)}; known: {', '.join(choices)}")
    return frozenset(items)


def _kinds(value: object, at: Where) -> frozenset[str]:
    kinds = _subset(value, tuple(BY_KIND), "kind", at)
    if not kinds:
        raise at.error(f"names no kind; use one or more of {', '.join(BY_KIND)}")
    return kinds


def _retention(value: object, at: Where) -> tuple[str, ...]:
    targets = _as_list(value, at)
    for target in targets:
        if target not in RETENTION:
            raise at.error(f"has unknown target {shown(target)}; known: {', '.join(RETENTION)}")
    return tuple(dict.fromkeys(targets))


def _namespace(value: object, at: Where) -> str:
    if not isinstance(value, str) or not re.fullmatch(_NAMESPACE, value):
        raise at.error(f"must be a namespace name (lowercase letters, digits and '-', at most 63), not "
                       f"{shown(value)}")
    return value


def _field_specs(value: object, at: Where) -> tuple[FieldSpec, ...]:
    # Imported here, for start-up time: only runs that configure fieldSpecs read the grammar.
    from krmfn.core.references.user_specs import parse_field_specs

    return tuple(parse_field_specs(value, at))


# Each field: its Config attribute and how its value is read (checked, or refused with ``at.error``).
# The flag that sets each field in the shell modes: messages there name a field by its flag.
FLAG_OF = {"select": "--select", "names": "--names", "selector": "--selector", "kinds": "--kinds",
           "honor": "--honor", "algorithm": "--algorithm", "retention": "--retention",
           "suffixJobs": "--suffix-jobs", "fieldSpecs": "--field-specs", "strategy": "--strategy",
           "defaultNamespace": "--default-namespace", "audit": "--audit", "rotation": "--rotation"}

_READERS: dict[str, tuple[str, Callable[[object, Where], object]]] = {
    "select": ("select", lambda v, at: _one_of(v, SELECT_MODES, at)),
    "names": ("names", lambda v, at: frozenset(_as_list(v, at))),
    "selector": ("selector", parse_selector),
    "kinds": ("kinds", _kinds),
    "honor": ("honor", lambda v, at: _subset(v, HONORED, "mark", at)),
    "algorithm": ("algorithm", lambda v, at: _one_of(v, ALGORITHMS, at)),
    "retention": ("retention", _retention),
    "fieldSpecs": ("field_specs", _field_specs),
    "suffixJobs": ("suffix_jobs", _as_bool),
    "strategy": ("strategy", lambda v, at: Strategy(_one_of(v, STRATEGIES, at))),
    "defaultNamespace": ("default_namespace", _namespace),
    "audit": ("audit", lambda v, at: _one_of(v, AUDIT_LEVELS, at)),
    "rotation": ("rotation", lambda v, at: _one_of(v, ROTATIONS, at)),
}
FIELDS = tuple(_READERS)


def parse_fields(raw: dict[str, object], where: ResourceRef | None, source: str = "function config field",
                 labels: Mapping[str, str] | None = None) -> Config:
    """Build a Config from plain data (typed fields, or ConfigMap ``data`` strings).

    ``source`` names a field in messages: the function config's, or a flag's file; ``labels``
    names the fields the user gave otherwise (``--retention``, ``KRMFN_SELECT``), by key.
    """
    named = {**{key: f"{source} {key!r}" for key in raw}, **(labels or {})}
    kwargs: dict[str, object] = {}
    for key, value in raw.items():
        reader = _READERS.get(key)
        if reader is None:
            raise ConfigError(f"unknown field {key!r} in the function config; known fields: {', '.join(FIELDS)}",
                              where, key)
        attribute, read = reader
        kwargs[attribute] = read(value, Where(named[key], where, key))
    if kwargs.get("rotation") == "reloader" and "reloader" in kwargs.get("honor", ()):  # type: ignore[operator]
        raise ConfigError(f"{named['rotation']} reloader keeps Reloader for what changes outside Git, and "
                          f"{named['honor']} reloader reads Reloader's marks as krmfn's own opt-ins: choose one",
                          where, "rotation")
    return Config(**kwargs, labels=None if labels is None else tuple(named.items()))  # type: ignore[arg-type]


# Fields a kustomize exec plugin's config may carry for kustomize itself (extra arguments).
KUSTOMIZE_ARGS_FIELDS = ("argsOneLiner", "argsFromFile")


def config_fields(data: object, what: str = "functionConfig") -> tuple[ResourceRef, dict[str, object]]:
    """The one reader of a function config's two forms: a ``ContentHash`` object, or a plain v1
    ConfigMap (its ``data``). Returns the object and its fields, not yet checked (parse_fields).

    ``what`` names it in messages: ``functionConfig``, or a file's path. ``argsOneLiner`` and
    ``argsFromFile`` are dropped: kustomize reads them, not krmfn.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{what} is not an object; krmfn takes kind {KIND} (apiVersion {API_VERSION}) "
                          "or a plain v1 ConfigMap")
    kind, api_version = data.get("kind"), data.get("apiVersion")
    meta: dict = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    ref = ResourceRef(str(api_version or ""), str(kind or ""), str(meta.get("name", "")),
                      str(meta.get("namespace", "")))
    if kind == "ConfigMap" and api_version == "v1":
        raw = data.get("data") or {}
        if not isinstance(raw, dict):
            raise ConfigError(f"{what} ConfigMap data is not a map", ref, "data")
        return ref, dict(raw)
    if kind == KIND and api_version == API_VERSION:
        own = ("apiVersion", "kind", "metadata", *KUSTOMIZE_ARGS_FIELDS)
        return ref, {k: v for k, v in data.items() if k not in own}
    raise ConfigError(f"{what} is kind {kind!r}, apiVersion {api_version!r}; krmfn takes kind {KIND} "
                      f"(apiVersion {API_VERSION}) or a plain v1 ConfigMap", ref)


def read_config(doc: Doc, node: Node | None, labels: Mapping[str, str] | None = None) -> Config:
    """Read ``functionConfig``: absent, a ``ContentHash`` object, or a plain ConfigMap. ``labels``:
    the fields a shell mode took from flags or the environment, named so in messages."""
    if node is None:
        return Config(labels=None if labels is None else tuple(labels.items()))
    if not doc.is_map(node):
        raise ConfigError(f"functionConfig is {doc.describe(node)}, not an object")
    try:
        data = typed_data(doc, node)
    except DuplicateKey as exc:
        raise ConfigError(f"functionConfig has the key \"{exc.key}\" twice{f' in {exc.path}' if exc.path else ''}; "
                          "keep one (kubectl's strict decoding refuses it too)", None, exc.path or exc.key) from None
    ref, fields = config_fields(data)
    return parse_fields(fields, ref, labels=labels)


def load_yaml_file(text: bytes, what: str) -> object:
    """The one document of a small YAML file (a config or field-spec file) as plain data."""
    try:
        return load_one(text, typed=True)
    except YamlError as exc:
        raise ConfigError(f"{what} is {exc.message}") from None
    except DuplicateKey as exc:
        raise ConfigError(f"{what} has the key \"{exc.key}\" twice{f' in {exc.path}' if exc.path else ''}; "
                          "keep one") from None
    except DocumentCount as exc:
        raise ConfigError(f"{what} holds {exc.count} YAML documents; expected one") from None


def read_config_file(text: bytes, what: str) -> tuple[ResourceRef, dict[str, object]]:
    """A function config file (``--config``, a kustomize plugin's config, gc's ``--function-config``)."""
    return config_fields(load_yaml_file(text, what), what)
