"""A field spec: "in objects of this kind (and group), the path P names an object of the renamed kind".

The grammar is kustomize's ``nameReference`` field specs: ``/``-separated keys, ``\\/`` for a
slash inside a key, lists traversed implicitly. Conditions are declarative (:class:`Has`), so
that a row of the table, or a user's spec, is data rather than code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from krmfn.yaml.tree import Doc, Node


@dataclass(frozen=True, repr=False)
class Has:
    """A condition on the map that holds a reference's last key: ``key`` is ``value``, or
    (``listed``) is a list that includes it. E.g. a Flux ``valuesFrom`` entry has ``kind: ConfigMap``."""

    key: str
    value: str
    listed: bool = False

    def holds(self, doc: Doc, holder: Node) -> bool:
        node = doc.get(holder, self.key)
        if node is None:
            return False
        node = doc.resolve(node)
        if doc.is_seq(node):
            return self.listed and any(doc.scalar(c) == self.value for c in doc.children(node))
        return doc.scalar(node) == self.value


@dataclass(frozen=True)
class FieldSpec:
    """In objects of ``kind`` (``group``/``version``; None: any), ``path`` holds the name of an
    object of the renamed kind ``refers_to`` (a ConfigMap).

    The optional attributes are declarative, so a condition is data rather than code:

    - ``when``: conditions on the map holding the path's last key;
    - ``namespace_from``: a key beside the name whose value is the ConfigMap's namespace
      (Node's ``configSource.configMap``); without it, the referrer's namespace rules apply;
    - ``qualified``: the value may be ``namespace/name`` (an ingress-nginx annotation);
    - ``maps``: the path may end at a map ``{name, namespace}`` rather than at the name (the
      rule kustomize applies to every user field spec).
    """

    kind: str
    path: tuple[str, ...]
    group: str | None = None
    version: str | None = None
    when: tuple[Has, ...] = ()
    namespace_from: str | None = None
    qualified: bool = False
    maps: bool = False
    refers_to: str = "ConfigMap"  # the renamed kind the path names (core.references.kinds)

    @property
    def plain(self) -> bool:
        """No attribute to check or apply: found by the fast path of :func:`find`."""
        return not (self.when or self.namespace_from or self.qualified)

    def selects(self, group: str, version: str, kind: str) -> bool:
        return (kind == self.kind and (self.group is None or self.group == group)
                and (self.version is None or self.version == version))

    def accepts(self, doc: Doc, node: Node) -> bool:
        """Whether the scalar ``node``, found at this spec's path, passes its conditions."""
        return not self.when or all(c.holds(doc, holder(doc, node)) for c in self.when)

    def target(self, doc: Doc, node: Node, name: str) -> tuple[str, str | None, str]:
        """``(name, namespace or None for the referrer's rules, text before the name)``."""
        if self.qualified and "/" in name:
            namespace, _, short = name.partition("/")
            return short, namespace or None, f"{namespace}/"
        if self.namespace_from:
            named = doc.scalar(doc.get(holder(doc, node), self.namespace_from))
            return name, named or None, ""
        return name, None, ""


def holder(doc: Doc, node: Node) -> Node:
    """The map holding the key that leads to ``node`` (lists on the way up are skipped)."""
    parent = doc.parent(node)
    while parent is not None and doc.is_seq(parent):
        parent = doc.parent(parent)
    return node if parent is None else parent


def split_path(path: str) -> tuple[str, ...]:
    """Split a field-spec path on ``/``, where ``\\/`` is a slash inside a key."""
    if "\\" not in path:
        return tuple(path.split("/"))
    parts, cur, i = [], [], 0
    while i < len(path):
        if path[i] == "\\" and i + 1 < len(path) and path[i + 1] == "/":
            cur.append("/")
            i += 2
            continue
        if path[i] == "/":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(path[i])
        i += 1
    parts.append("".join(cur))
    return tuple(parts)


def join_path(path: Sequence[str]) -> str:
    return "/".join(p.replace("/", "\\/") for p in path)
