"""The function's options given as flags, environment variables or a config file, for the
modes that have no ``functionConfig`` (files, streams, Helm, kustomize exec plugins).

Why one path for all of them: each source becomes the same ``functionConfig`` fields, in the
ConfigMap-form strings that :func:`krmfn.core.config.parse_fields` reads, so a flag and the field
of the same name can never mean different things.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from krmfn.core.config import API_VERSION, FLAG_OF, KIND, load_yaml_file, parse_fields
from krmfn.core.references.user_specs import parse_field_specs
from krmfn.results import ConfigError, Where

_SIZE = re.compile(r"\s*([0-9]+)\s*([KMGkmg]?)(?:i?[Bb]|i)?\s*")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}

# Helm runs a post-renderer with no arguments: these variables stand in for the flags.
ENVIRONMENT = {
    "KRMFN_SELECT": "select",
    "KRMFN_NAMES": "names",
    "KRMFN_SELECTOR": "selector",
    "KRMFN_KINDS": "kinds",
    "KRMFN_HONOR": "honor",
    "KRMFN_ALGORITHM": "algorithm",
    "KRMFN_RETENTION": "retention",
    "KRMFN_SUFFIX_JOBS": "suffix_jobs",
    "KRMFN_STRATEGY": "strategy",
    "KRMFN_DEFAULT_NAMESPACE": "default_namespace",
    "KRMFN_AUDIT": "audit",
    "KRMFN_ROTATION": "rotation",
    "KRMFN_FIELD_SPECS": "field_specs",
    "KRMFN_CONFIG": "config",
    "KRMFN_MAX_INPUT_SIZE": "max_input_size",
}

# An option's attribute (as in ENVIRONMENT) -> the function config field it sets.
FIELD_OF = {"suffix_jobs": "suffixJobs", "field_specs": "fieldSpecs", "default_namespace": "defaultNamespace"}


def labels(flags: dict[str, object], from_environment: set[str]) -> dict[str, str]:
    """How messages name each field the flags set (by field key): the flag, or the environment
    variable it came from (``from_environment``: option attributes, as in ENVIRONMENT)."""
    variable = {FIELD_OF.get(opt, opt): var for var, opt in ENVIRONMENT.items() if opt in from_environment}
    return {key: variable.get(key, FLAG_OF.get(key, key)) for key in flags}


def parse_size(text: str, given_as: str = "--max-input-size") -> int:
    """Bytes from ``1048576``, ``64K``, ``256M``, ``1G`` (powers of 1024; ``MiB``/``MB`` also read)."""
    m = _SIZE.fullmatch(text)
    if not m or int(m.group(1)) == 0:
        raise ConfigError(f"{given_as} {text!r} is not a size; use bytes, or a number with K, M or G (e.g. 512M)")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


@dataclass(frozen=True)
class Flags:
    """The option flags as given (None: not given)."""

    select: str | None = None
    names: list[str] | None = None
    selector: str | None = None
    algorithm: str | None = None
    retention: list[str] | None = None
    suffix_jobs: bool | None = None
    field_specs: object = None  # the --field-specs file's data, read as the fieldSpecs field
    kinds: list[str] | None = None
    honor: list[str] | None = None
    strategy: str | None = None
    default_namespace: str | None = None
    audit: str | None = None
    rotation: str | None = None

    def fields(self) -> dict[str, object]:
        """The functionConfig fields these flags set, in ConfigMap-form strings."""
        out: dict[str, object] = {}
        if self.select is not None:
            out["select"] = self.select
        if self.names is not None:
            out["names"] = ",".join(self.names)
        if self.selector is not None:
            out["selector"] = self.selector
        for key, values in (("kinds", self.kinds), ("honor", self.honor)):
            if values is not None:
                out[key] = ",".join(values)
        if self.algorithm is not None:
            out["algorithm"] = self.algorithm
        if self.retention is not None:
            out["retention"] = ",".join(self.retention)
        if self.suffix_jobs is not None:
            out["suffixJobs"] = "true" if self.suffix_jobs else "false"
        if self.field_specs is not None:
            out["fieldSpecs"] = self.field_specs
        if self.strategy is not None:
            out["strategy"] = self.strategy
        if self.default_namespace is not None:
            out["defaultNamespace"] = self.default_namespace
        if self.audit is not None:
            out["audit"] = self.audit
        if self.rotation is not None:
            out["rotation"] = self.rotation
        return out


def read_field_specs(text: bytes, what: str) -> object:
    """The ``--field-specs`` file as data, for the ``fieldSpecs`` field: the function reads it
    with the same grammar and checks as the field in a functionConfig (core.references.user_specs)."""
    data = load_yaml_file(text, what)
    parse_field_specs(data, Where(what))  # refused here as the functionConfig field would be
    return data


def function_config(name: str, fields: dict[str, object], named: dict[str, str] | None = None) -> dict[str, object]:
    """The typed ``functionConfig`` for these fields, after checking them as the function will
    (``named``: how a message names a field the user gave as a flag or variable, :func:`labels`)."""
    parse_fields(fields, None, labels=named)
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name}, **fields}


def from_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The KRMFN_* variables that are set (and not empty), by option name."""
    return {opt: env[var] for var, opt in ENVIRONMENT.items() if env.get(var, "").strip()}
