"""The function's options given as flags, environment variables or a config file, for the
modes that have no ``functionConfig`` (files, streams, Helm, kustomize exec plugins).

Why one path for all of them: each source becomes the same ``functionConfig`` fields, in the
ConfigMap-form strings that :func:`krmfn.config.parse_fields` reads, so a flag and the field
of the same name can never mean different things.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .config import API_VERSION, KIND, NotOneDocument, load_document, parse_fields
from .envelope import FunctionError
from .yamldoc import YamlError

_SIZE = re.compile(r"\s*([0-9]+)\s*([KMGkmg]?)(?:i?[Bb]|i)?\s*")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}

# Fields a kustomize exec plugin's config may carry for kustomize itself (extra arguments).
KUSTOMIZE_ARGS_FIELDS = ("argsOneLiner", "argsFromFile")

# Helm runs a post-renderer with no arguments: these variables stand in for the flags.
ENVIRONMENT = {
    "KRMFN_SELECT": "select",
    "KRMFN_NAMES": "names",
    "KRMFN_SELECTOR": "selector",
    "KRMFN_ALGORITHM": "algorithm",
    "KRMFN_RETENTION": "retention",
    "KRMFN_SUFFIX_JOBS": "suffix_jobs",
    "KRMFN_FIELD_SPECS": "field_specs",
    "KRMFN_CONFIG": "config",
    "KRMFN_MAX_INPUT_SIZE": "max_input_size",
}


class OptionError(Exception):
    """A bad option: the message is one sentence that names it."""


def parse_size(text: str) -> int:
    """Bytes from ``1048576``, ``64K``, ``256M``, ``1G`` (powers of 1024; ``MiB``/``MB`` also read)."""
    m = _SIZE.fullmatch(text)
    if not m or int(m.group(1)) == 0:
        raise OptionError(f"--max-input-size {text!r} is not a size; use bytes, or a number with K, M or G (e.g. 512M)")
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
    field_specs: list[object] | None = None  # read from the --field-specs file

    def fields(self) -> dict[str, object]:
        """The functionConfig fields these flags set, in ConfigMap-form strings."""
        out: dict[str, object] = {}
        if self.select is not None:
            out["select"] = self.select
        if self.names is not None:
            out["names"] = ",".join(self.names)
        if self.selector is not None:
            out["selector"] = self.selector
        if self.algorithm is not None:
            out["algorithm"] = self.algorithm
        if self.retention is not None:
            out["retention"] = ",".join(self.retention)
        if self.suffix_jobs is not None:
            out["suffixJobs"] = "true" if self.suffix_jobs else "false"
        if self.field_specs is not None:
            out["fieldSpecs"] = self.field_specs
        return out


def _load(text: bytes, what: str) -> object:
    try:
        return load_document(text)
    except YamlError as exc:
        raise OptionError(f"{what} is {exc}") from None
    except NotOneDocument as exc:
        raise OptionError(f"{what} {exc}; expected one") from None


def read_config(text: bytes, what: str) -> tuple[str, dict[str, object]]:
    """A config file's name and fields: a ``ContentHash`` object or a v1 ConfigMap (its ``data``).

    ``argsOneLiner`` and ``argsFromFile`` are dropped: kustomize reads them, not krmfn.
    """
    data = _load(text, what)
    if not isinstance(data, dict):
        raise OptionError(f"{what} is not a map; expected kind {KIND} (apiVersion {API_VERSION}) or a v1 ConfigMap")
    kind, api_version = data.get("kind"), data.get("apiVersion")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = str(meta.get("name") or "krmfn")
    if kind == KIND and api_version == API_VERSION:
        fields = {k: v for k, v in data.items() if k not in ("apiVersion", "kind", "metadata", *KUSTOMIZE_ARGS_FIELDS)}
    elif kind == "ConfigMap" and api_version == "v1":
        raw = data.get("data") or {}
        if not isinstance(raw, dict):
            raise OptionError(f"{what}: the ConfigMap's data is not a map")
        fields = dict(raw)
    else:
        raise OptionError(f"{what} is kind {kind!r}, apiVersion {api_version!r}; expected kind {KIND} "
                          f"(apiVersion {API_VERSION}) or a v1 ConfigMap")
    return name, fields


def read_field_specs(text: bytes, what: str) -> list[object]:
    """Field specs from a file: a list of ``{kind, group, version, path}``, a map with ``fieldSpecs``,
    or a kustomize ``nameReference`` configuration (its ConfigMap entries)."""
    data = _load(text, what)
    if isinstance(data, dict) and "fieldSpecs" in data:
        data = data["fieldSpecs"]
    elif isinstance(data, dict) and "nameReference" in data:
        refs = data["nameReference"]
        if not isinstance(refs, list):
            raise OptionError(f"{what}: nameReference is not a list")
        data = [spec for ref in refs if isinstance(ref, dict) and ref.get("kind") == "ConfigMap"
                for spec in (ref.get("fieldSpecs") or [])]
    if not isinstance(data, list):
        raise OptionError(f"{what} is not a list of field specs ({{kind, group, version, path}}), a map with "
                          "fieldSpecs, or a kustomize nameReference configuration")
    return data


def function_config(name: str, fields: dict[str, object]) -> dict[str, object]:
    """The typed ``functionConfig`` for these fields, after checking them as the function will."""
    try:
        parse_fields(fields, None)
    except FunctionError as exc:
        raise OptionError(exc.results[0].message) from None
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name}, **fields}


def from_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The KRMFN_* variables that are set (and not empty), by option name."""
    return {opt: env[var] for var, opt in ENVIRONMENT.items() if env.get(var, "").strip()}
