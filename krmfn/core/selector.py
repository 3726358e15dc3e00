"""Kubernetes label selectors, in both forms users write them: ``matchLabels``/``matchExpressions``
and ``kubectl -l`` text. Why here: ``selector`` opts objects in by their labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from krmfn.results import Where


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
    def parse(cls, text: str, at: Where) -> LabelSelector:
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
            raise at.error(f"{term!r} is not a label selector term (try app=web, tier in (a,b), !legacy)")
        return cls(tuple(reqs))


def parse_selector(value: object, at: Where) -> LabelSelector:
    """A selector as written in a function config: ``kubectl -l`` text, or matchLabels/matchExpressions."""
    if isinstance(value, str):
        return LabelSelector.parse(value, at)
    if not isinstance(value, dict):
        raise at.error("must be a label selector (matchLabels/matchExpressions) or a selector string")
    unknown = set(value) - {"matchLabels", "matchExpressions"}
    if unknown:
        raise at.error(f"has unknown field {sorted(unknown)[0]!r}")
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted((value.get("matchLabels") or {}).items())]
    for expr in value.get("matchExpressions") or []:
        op = expr.get("operator") if isinstance(expr, dict) else None
        if op not in ("In", "NotIn", "Exists", "DoesNotExist") or not expr.get("key"):
            raise at.error(f"matchExpressions entry {expr!r} needs a key and an operator In, NotIn, Exists or "
                           "DoesNotExist")
        reqs.append(Requirement(expr["key"], op, tuple(expr.get("values") or ())))
    return LabelSelector(tuple(reqs))
