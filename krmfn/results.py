"""What a run reports: results (the KRM ``results`` entries) and the one exception hierarchy.

Every layer may use this module and it uses none. An error is a :class:`KrmfnError` carrying
error results; its subclass says which side is wrong (the input, the configuration, the
references, the cluster for gc). Only the shell (:mod:`krmfn.cli`) turns results and errors
into stderr lines and exit codes; the core never decides an exit code and never parses a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class ResourceRef:
    api_version: str
    kind: str
    name: str
    namespace: str = ""

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{ns}{self.name}"

    def to_data(self) -> dict[str, str]:
        out = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True)
class Result:
    """One entry of ``results``: what a reviewer or a pipeline needs to know."""

    message: str
    severity: Severity = "info"
    resource: ResourceRef | None = None
    field_path: str | None = None
    current: str | None = None
    proposed: str | None = None
    # Lines to paste (a fieldSpecs snippet), never part of the one-line message: on stderr only
    # with -v, and in the function's results as ``tags: {<detail_tag>: ...}``.
    detail: str | None = None
    detail_tag: str = "detail"
    # What the shell must print whatever the verbosity (NOTHING_RENAMED), never in ``results``.
    topic: str | None = None

    def to_data(self) -> dict[str, object]:
        out: dict[str, object] = {"message": self.message, "severity": self.severity}
        if self.resource is not None:
            out["resourceRef"] = self.resource.to_data()
        if self.field_path is not None:
            fld: dict[str, str] = {"path": self.field_path}
            if self.current is not None:
                fld["currentValue"] = self.current
            if self.proposed is not None:
                fld["proposedValue"] = self.proposed
            out["field"] = fld
        if self.detail is not None:
            out["tags"] = {self.detail_tag: self.detail}
        return out

    def __str__(self) -> str:
        where = f"{self.resource}" if self.resource else ""
        if self.field_path:
            where += f" {self.field_path}" if where else self.field_path
        return f"{self.severity}: {where + ': ' if where else ''}{self.message}"


# Result.topic of the one result a run that renames nothing gives (core.report.unmatched): the shell
# modes print it on stderr even without -v, so that a run that does nothing never says nothing.
NOTHING_RENAMED = "nothing-renamed"


def has_errors(results: list[Result]) -> bool:
    return any(r.severity == "error" for r in results)


class KrmfnError(Exception):
    """A failure reported as error results: the run writes no items.

    Built from one message (with the object and field it is about) or from results.
    """

    def __init__(self, message: str | Result | list[Result], resource: ResourceRef | None = None,
                 field_path: str | None = None):
        if isinstance(message, str):
            self.results = [Result(message, "error", resource, field_path)]
        else:
            self.results = [message] if isinstance(message, Result) else list(message)
        super().__init__("; ".join(r.message for r in self.results))

    @property
    def message(self) -> str:
        """The first result's message: one sentence, for a shell that prints one line."""
        return self.results[0].message


class InputError(KrmfnError):
    """The input cannot be read as asked: not YAML, not a ResourceList, over a limit, a bad item."""


class ConfigError(KrmfnError):
    """The function's configuration is wrong: functionConfig, flags, a config or field-spec file."""


class ReferenceProblem(KrmfnError):
    """The rename cannot be planned: an ambiguous reference, two objects with one name, a name
    Kubernetes would refuse."""


class GcError(KrmfnError):
    """Garbage collection cannot go on safely: unreadable live state, kubectl failing."""


# No generated repr or eq: each generated method is compiled at start-up, and none is used.
@dataclass(frozen=True, repr=False, eq=False)
class Where:
    """Where a configuration value sits, so that the code that finds it wrong says so in one
    sentence without knowing who asked: ``function config field 'names'``, ``--field-specs a.yaml``."""

    name: str
    resource: ResourceRef | None = None
    path: str | None = None

    def error(self, problem: str) -> ConfigError:
        return ConfigError(f"{self.name} {problem}", self.resource, self.path)


def in_source(exc: KrmfnError, name: str | None) -> KrmfnError:
    """An error about one of several inputs (a file), its message led by the input's name."""
    return InputError(f"{name}: {exc.results[0].message}") if name else exc


def shown(value: object) -> str:
    """A value in a message as the user wrote it, in YAML's words (never a Python repr)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= 80 else f"'{value[:77]}...'"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list):
        return "a list"
    return "a value of another type"
