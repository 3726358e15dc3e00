"""The function's configuration, read from ``functionConfig`` in either of two forms.

Typed (for kustomize ``transformers:`` and kpt pipelines)::

    apiVersion: fn.krmfn.dev/v1alpha1
    kind: ContentHash
    metadata: {name: content-hash}
    select: annotated            # or: all
    names: [app-config]          # also hash these ConfigMaps
    selector: {matchLabels: {hash: "yes"}}
    algorithm: kustomize         # or: sha256
    retention: [flux, argocd]

Plain ConfigMap (``kpt fn eval --exec krmfn -- select=all retention=flux,argocd``): the same
fields as ``data`` strings; lists are comma-separated, ``selector`` is a label selector string.

Every field is optional. An unknown field or value is an error that names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .envelope import ResourceRef, error
from .hashing import ALGORITHMS
from .retention import RETENTION
from .yamldoc import Doc

API_VERSION = "fn.krmfn.dev/v1alpha1"
KIND = "ContentHash"
SELECT_MODES = ("annotated", "all")
FIELDS = ("select", "names", "selector", "algorithm", "retention", "fieldSpecs", "suffixJobs")


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        if self.operator == "Exists":
            return self.key in labels
        if self.operator == "DoesNotExist":
            return self.key not in labels
        if self.operator == "In":
            return labels.get(self.key) in self.values
        return labels.get(self.key) not in self.values  # NotIn also matches a missing key


@dataclass(frozen=True)
class LabelSelector:
    """A Kubernetes label selector; the empty selector selects nothing here (it is opt-in)."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        return bool(self.requirements) and all(r.matches(labels) for r in self.requirements)

    @classmethod
    def parse(cls, text: str) -> LabelSelector:
        """Parse ``kubectl -l`` syntax: ``a=b,c!=d,e in (x,y),f notin (z),g,!h``."""
        terms = [t.strip() for t in re.split(r",(?![^()]*\))", text) if t.strip()]
        reqs = []
        for term in terms:
            m = re.fullmatch(r"([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)", term)
            if m:
                values = tuple(v.strip() for v in m.group(3).split(",") if v.strip())
                reqs.append(Requirement(m.group(1), "In" if m.group(2) == "in" else "NotIn", values))
                continue
            m = re.fullmatch(r"([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)", term)
            if m:
                reqs.append(Requirement(m.group(1), "NotIn" if m.group(2) == "!=" else "In", (m.group(3),)))
                continue
            m = re.fullmatch(r"(!?)\s*([\w./-]+)", term)
            if m:
                reqs.append(Requirement(m.group(2), "DoesNotExist" if m.group(1) else "Exists"))
                continue
            raise ValueError(f"{term!r} is not a label selector term (try app=web, tier in (a,b), !legacy)")
        return cls(tuple(reqs))


@dataclass(frozen=True)
class Config:
    select: str = "annotated"
    names: frozenset[str] = frozenset()
    selector: LabelSelector = field(default_factory=LabelSelector)
    algorithm: str = "kustomize"
    retention: tuple[str, ...] = ()
    field_specs: tuple[object, ...] = ()  # parsed by references.parse_field_specs
    suffix_jobs: bool = False


def _as_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ValueError("must be a list of strings or a comma-separated string")


def _as_bool(value: object) -> bool:
    if value in ("true", "True", True):
        return True
    if value in ("false", "False", False):
        return False
    raise ValueError(f"must be true or false, not {value!r}")


def _selector(value: object) -> LabelSelector:
    if isinstance(value, str):
        return LabelSelector.parse(value)
    if not isinstance(value, dict):
        raise ValueError("must be a label selector (matchLabels/matchExpressions) or a selector string")
    unknown = set(value) - {"matchLabels", "matchExpressions"}
    if unknown:
        raise ValueError(f"has unknown field {sorted(unknown)[0]!r}")
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted((value.get("matchLabels") or {}).items())]
    for expr in value.get("matchExpressions") or []:
        op = expr.get("operator") if isinstance(expr, dict) else None
        if op not in ("In", "NotIn", "Exists", "DoesNotExist") or not expr.get("key"):
            raise ValueError(f"matchExpressions entry {expr!r} needs a key and an operator In, NotIn, Exists or DoesNotExist")
        reqs.append(Requirement(expr["key"], op, tuple(expr.get("values") or ())))
    return LabelSelector(tuple(reqs))


def parse_fields(raw: dict[str, object], where: ResourceRef | None) -> Config:
    """Build a Config from plain data (typed fields, or ConfigMap ``data`` strings)."""
    kwargs: dict[str, object] = {}
    for key, value in raw.items():
        path = key
        try:
            if key == "select":
                if value not in SELECT_MODES:
                    raise ValueError(f"must be one of {', '.join(SELECT_MODES)}, not {value!r}")
                kwargs["select"] = value
            elif key == "names":
                kwargs["names"] = frozenset(_as_list(value))
            elif key == "selector":
                kwargs["selector"] = _selector(value)
            elif key == "algorithm":
                if value not in ALGORITHMS:
                    raise ValueError(f"must be one of {', '.join(ALGORITHMS)}, not {value!r}")
                kwargs["algorithm"] = value
            elif key == "retention":
                targets = _as_list(value)
                for t in targets:
                    if t not in RETENTION:
                        raise ValueError(f"has unknown target {t!r}; known: {', '.join(RETENTION)}")
                kwargs["retention"] = tuple(dict.fromkeys(targets))
            elif key == "fieldSpecs":
                from .references import parse_field_specs  # the spec grammar lives with the table
                kwargs["field_specs"] = tuple(parse_field_specs(value))
            elif key == "suffixJobs":
                kwargs["suffix_jobs"] = _as_bool(value)
            else:
                raise KeyError(key)
        except KeyError:
            raise error(f"unknown field {key!r} in the function config; known fields: {', '.join(FIELDS)}",
                        where, key) from None
        except ValueError as exc:
            raise error(f"function config field {path!r} {exc}", where, path) from None
    return Config(**kwargs)  # type: ignore[arg-type]


def read_config(doc: Doc, node: int | None) -> Config:
    """Read ``functionConfig``: absent, a ``ContentHash`` object, or a plain ConfigMap."""
    if node is None:
        return Config()
    if not doc.is_map(node):
        raise error(f"functionConfig is {doc.describe(node)}, not an object")
    data = to_data(doc, node)
    assert isinstance(data, dict)
    kind, api_version = data.get("kind"), data.get("apiVersion")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    ref = ResourceRef(str(api_version or ""), str(kind or ""), str(meta.get("name", "")), str(meta.get("namespace", "")))
    if kind == "ConfigMap" and api_version == "v1":
        raw = data.get("data") or {}
        if not isinstance(raw, dict):
            raise error("functionConfig ConfigMap data is not a map", ref, "data")
        return parse_fields(raw, ref)
    if kind == KIND and api_version == API_VERSION:
        return parse_fields({k: v for k, v in data.items() if k not in ("apiVersion", "kind", "metadata")}, ref)
    raise error(f"functionConfig is kind {kind!r}, apiVersion {api_version!r}; krmfn takes kind {KIND} "
                f"(apiVersion {API_VERSION}) or a plain v1 ConfigMap", ref)


class NotOneDocument(ValueError):
    """YAML text that holds no document or several where one is expected."""

    def __init__(self, count: int):
        super().__init__(f"holds {count} YAML documents")
        self.count = count


def load_document(text: bytes) -> object:
    """The one YAML document in ``text`` as plain data (config files, offline live state).

    Raises YamlError when it cannot be read and NotOneDocument when it holds none or several."""
    doc = Doc.parse(text)
    docs = doc.documents()
    if len(docs) != 1:
        raise NotOneDocument(len(docs))
    return to_data(doc, docs[0])


def to_data(doc: Doc, node: int) -> object:
    """Plain Python data for a small subtree: scalars as text (null as None), maps and lists."""
    node = doc.resolve(node)
    if doc.is_map(node):
        return {k: to_data(doc, c) for k, c in doc.items(node)}
    if doc.is_seq(node):
        return [to_data(doc, c) for c in doc.children(node)]
    return None if doc.is_null(node) else doc.str(node)


