"""Kubernetes label selectors, in both forms users write them: ``matchLabels``/``matchExpressions``
and ``kubectl -l`` text. Why here: ``selector`` opts objects in by their labels.

The text form is read as k8s.io/apimachinery reads it (``pkg/labels/selector.go``: its lexer,
its recursive-descent parser and ``NewRequirement``'s checks), so that a selector kubectl refuses
is refused here and one it takes means the same objects: ``=``, ``==``, ``!=``, ``in``, ``notin``,
``>``, ``<``, a bare key (exists) and ``!key``; an empty value (``a=``), an empty set (``a in ()``,
which means the empty value) and empty entries in a set (``(a,,b)``) are values; an empty term
(``a=b,,c``, a trailing comma) is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from krmfn.results import Where, shown

# Operators as kubectl spells them in the text form, and what each means here.
_EXACT = {"=": "In", "==": "In", "!=": "NotIn", ">": "Gt", "<": "Lt"}
_SETS = {"in": "In", "notin": "NotIn"}
_KEYWORDS = frozenset(_SETS)
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_TWO_CHAR = frozenset(("!=", "=="))
END = ""  # the token after the last one (a literal no other token has)
# apimachinery's label key and value rules (pkg/api/validate/content: IsLabelKey, IsLabelValue).
_NAME = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
# A DNS subdomain (RFC 1123): the name Kubernetes accepts for most objects, a ConfigMap or Secret among them
# (its 253-character limit is checked apart).
DNS_SUBDOMAIN = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
_INTEGER = re.compile(r"[+-]?[0-9]+")  # Go's strconv.ParseInt(s, 10, 64), before its range check
_INT64 = 1 << 63
EXAMPLE = "write terms like app=web, tier in (a,b), !legacy, joined by commas"


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist; Gt, Lt (the text form only, as in kubectl)
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        if self.operator == "Exists":
            return self.key in labels
        if self.operator == "DoesNotExist":
            return self.key not in labels
        if self.operator == "In":
            return labels.get(self.key) in self.values
        if self.operator == "NotIn":
            return labels.get(self.key) not in self.values  # NotIn also matches a missing key
        value = _integer(labels.get(self.key))  # Gt, Lt: a label that is not an integer never matches
        bound = _integer(self.values[0])
        if value is None or bound is None:
            return False
        return value > bound if self.operator == "Gt" else value < bound


def _integer(text: str | None) -> int | None:
    if text is None or not _INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if -_INT64 <= value < _INT64 else None


@dataclass(frozen=True)
class LabelSelector:
    """A Kubernetes label selector; the empty selector selects nothing here (it is opt-in)."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        return bool(self.requirements) and all(r.matches(labels) for r in self.requirements)

    def text(self) -> str:
        """The selector in ``kubectl -l`` syntax, whichever form it was written in (for a message)."""
        return ",".join(_term(r) for r in self.requirements)

    @classmethod
    def parse(cls, text: str, at: Where) -> LabelSelector:
        """Parse ``kubectl -l`` syntax: ``a=b,c!=d,e in (x,y),f notin (z),g,!h``, as kubectl does."""
        try:
            return cls(tuple(_Parser(_lex(text)).selector()))
        except _Refused as exc:
            raise at.error(f"{text!r} is not a label selector kubectl would read ({exc}); {EXAMPLE}") from None


class _Refused(Exception):
    """Why the text is not a selector: a few words, as the parser finds it."""


def _lex(text: str) -> list[tuple[str, str]]:
    """Tokens as apimachinery's lexer cuts them: (kind, literal), kind ``id``, ``in``/``notin``
    (keywords), a symbol (``=``, ``==``, ``!=``, ``!``, ``(``, ``)``, ``,``, ``>``, ``<``), then END."""
    tokens, pos = [], 0
    while True:
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        if pos == len(text):
            tokens.append((END, END))
            return tokens
        if text[pos] in _SPECIAL:  # the longest operator that starts here
            size = 2 if text[pos:pos + 2] in _TWO_CHAR else 1
            tokens.append((text[pos:pos + size], text[pos:pos + size]))
            pos += size
            continue
        start = pos
        while pos < len(text) and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
            pos += 1
        word = text[start:pos]
        tokens.append((word if word in _KEYWORDS else "id", word))


def _token(literal: str) -> str:
    return "the end" if literal == END else f'"{literal}"'


class _Parser:
    """apimachinery's recursive descent, step for step. Where a value may stand (a key, a value),
    ``in`` and ``notin`` are plain words."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.pos = tokens, 0

    def peek(self, values: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.pos]
        return ("id", literal) if values and kind in _KEYWORDS else (kind, literal)

    def take(self, values: bool = True) -> tuple[str, str]:
        token = self.peek(values)
        self.pos += 1
        return token

    def selector(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            kind, literal = self.peek()
            if kind == END:
                return requirements
            if kind not in ("id", "!"):
                raise _Refused(f"found {_token(literal)} where a key or ! should be")
            requirements.append(self.requirement())
            kind, literal = self.take()
            if kind == END:
                return requirements
            if kind != ",":
                raise _Refused(f"found {_token(literal)} where a comma or the end should be")
            if self.peek()[0] not in ("id", "!"):
                raise _Refused(f"found {_token(self.peek()[1])} where a key should follow a comma")

    def requirement(self) -> Requirement:
        absent = self.peek()[0] == "!"
        if absent:
            self.take()
        kind, key = self.take()
        if kind != "id":
            raise _Refused(f"found {_token(key)} where a key should be")
        _check_key(key)
        if absent:
            return Requirement(key, "DoesNotExist")
        if self.peek()[0] in (END, ","):
            return Requirement(key, "Exists")
        kind, literal = self.take(values=False)
        if kind in _SETS:
            return Requirement(key, _SETS[kind], _check_values(key, self.value_set()))
        if kind not in _EXACT:
            raise _Refused(f"found {_token(literal)} after the key {key!r} where an operator should be "
                           "(in, notin, =, ==, !=, >, <)")
        value = self.exact_value()
        _check_values(key, (value,))
        if kind in (">", "<") and _integer(value) is None:
            raise _Refused(f"the value of {key}{kind} must be an integer, not {value!r}")
        return Requirement(key, _EXACT[kind], (value,))

    def value_set(self) -> tuple[str, ...]:
        kind, literal = self.take()
        if kind != "(":
            raise _Refused(f"found {_token(literal)} where '(' should be")
        values: list[str] = []
        kind, literal = self.peek()
        if kind == ")":  # "()" is the set of the empty value
            self.take()
            return ("",)
        if kind not in ("id", ","):
            raise _Refused(f"found {_token(literal)} where a value, a comma or ')' should be")
        while True:  # values and commas; an empty entry is the empty value
            kind, literal = self.take()
            if kind == "id":
                values.append(literal)
                kind, after = self.peek()
                if kind == ")":
                    break
                if kind != ",":
                    raise _Refused(f"found {_token(after)} where a comma or ')' should be")
            elif kind == ",":
                if not values:
                    values.append("")  # "(,"
                following = self.peek()[0]
                if following == ")":
                    values.append("")  # ",)"
                    break
                if following == ",":
                    values.append("")  # ",,"
            else:
                raise _Refused(f"found {_token(literal)} where a value or a comma should be")
        self.take()  # the ")"
        return tuple(dict.fromkeys(values))

    def exact_value(self) -> str:
        kind, literal = self.peek()
        if kind in (END, ","):  # "a=" is the empty value
            return ""
        kind, literal = self.take()
        if kind != "id":
            raise _Refused(f"found {_token(literal)} where a value should be")
        return literal


def _check_key(key: str) -> None:
    """A label key as Kubernetes takes one: ``[prefix/]name``, the prefix a DNS subdomain."""
    parts = key.split("/")
    if len(parts) > 2:
        raise _Refused(f"the key {key!r} holds more than one '/'")
    name = parts[-1]
    if len(parts) == 2 and (len(parts[0]) > 253 or not DNS_SUBDOMAIN.fullmatch(parts[0])):
        raise _Refused(f"the prefix of the key {key!r} is not a DNS subdomain (lower-case letters, digits, '-', '.')")
    if len(name) > 63 or not _NAME.fullmatch(name):
        raise _Refused(f"the key {key!r} is not a label key (at most 63 letters, digits, '-', '_' or '.', "
                       "starting and ending with a letter or digit)")


def _check_values(key: str, values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        if value and (len(value) > 63 or not _NAME.fullmatch(value)):
            raise _Refused(f"{value!r}, a value for the key {key!r}, is not a label value (empty, or at most 63 "
                           "letters, digits, '-', '_' or '.', starting and ending with a letter or digit)")
    return values


def _term(r: Requirement) -> str:
    if r.operator in ("Exists", "DoesNotExist"):
        return r.key if r.operator == "Exists" else f"!{r.key}"
    if len(r.values) == 1:
        return f"{r.key}{'=' if r.operator == 'In' else '!='}{r.values[0]}"
    return f"{r.key} {'in' if r.operator == 'In' else 'notin'} ({','.join(r.values)})"


def parse_selector(value: object, at: Where) -> LabelSelector:
    """A selector as written in a function config: ``kubectl -l`` text, or matchLabels/matchExpressions."""
    if isinstance(value, str):
        return LabelSelector.parse(value, at)
    if not isinstance(value, dict):
        raise at.error("must be a label selector (matchLabels/matchExpressions) or a selector string")
    unknown = set(value) - {"matchLabels", "matchExpressions"}
    if unknown:
        raise at.error(f"has unknown field \"{sorted(unknown)[0]}\"; a label selector has matchLabels and "
                       "matchExpressions")
    labels = value.get("matchLabels") or {}
    if not isinstance(labels, dict):
        raise at.error("matchLabels must be a map of label keys to values")
    for k, v in labels.items():
        if not isinstance(v, str):
            raise at.error(f"matchLabels.{k} must be one label value (a string), not {shown(v)}")
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted(labels.items())]
    exprs = value.get("matchExpressions") or []
    if not isinstance(exprs, list):
        raise at.error("matchExpressions must be a list of {key, operator, values}")
    for i, expr in enumerate(exprs):
        where = f"matchExpressions[{i}]"
        if not isinstance(expr, dict):
            raise at.error(f"{where} must be a map of key, operator and values, not {shown(expr)}")
        extra = set(expr) - {"key", "operator", "values"}
        if extra:
            raise at.error(f"{where} has unknown field \"{sorted(extra)[0]}\"; it takes key, operator and values")
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values")
        if not isinstance(key, str) or not key:
            raise at.error(f"{where} needs a key (a label key)")
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise at.error(f"{where}.operator must be In, NotIn, Exists or DoesNotExist, not {shown(op)}")
        if values is not None and (not isinstance(values, list) or not all(isinstance(v, str) for v in values)):
            raise at.error(f"{where}.values must be a list of strings")
        if op in ("In", "NotIn") and not values:
            raise at.error(f"{where} uses {op}, which needs values (one or more label values)")
        if op in ("Exists", "DoesNotExist") and values:
            raise at.error(f"{where} uses {op}, which takes no values")
        reqs.append(Requirement(key, op, tuple(values or ())))
    return LabelSelector(tuple(reqs))

