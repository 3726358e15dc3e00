"""Leftover names: after a rename, a renamed object's original name still written in free text
of the render, where a reference can hide and the reference table cannot know it (container
``args`` and ``command``, ``env[].value``, annotations, other ConfigMaps' data, and known
fields such as Istio's ``credentialName``: kustomize #131, #1262, kapp #286).

Beside core.references.unplaced, which finds reference-*shaped* fields (``configMapRef``...) outside the
walked paths: this looks at text, by the name alone. To keep false alarms few:

- only runs that rename something pay anything, and then each item's name-shaped runs of bytes
  are met with the set of original names (:func:`counter`); only an item that holds one more
  often than it has references to it is parsed again;
- a name matches whole, between characters a name cannot hold (``db`` is not in ``dbhost``,
  ``db-1`` or ``app.db``; a name followed by ``.`` and a letter is a DNS name, and one followed by ``/`` a directory
  of a path such as ``/scripts/build.sh``, and one after a lone ``/`` an absolute path such as
  ``-path=/migrations``, while ``ns/db`` is still this one);
- only the places above are read: never a reference krmfn rewrites, ``metadata.name``, labels,
  the renamed object's own text, or annotations other tools write (krmfn's, Reloader's, Helm's,
  kubectl's last-applied copy);
- in free text, a name that also names another object of the render (a Service ``app`` beside
  a ConfigMap ``app``) is skipped: the text more likely means that object. ``credentialName``
  always names a Secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from krmfn.core.naming.retention import ORIGINAL_NAME
from krmfn.core.references.fieldspec import join_path
from krmfn.core.references.unplaced import DETAIL_TAG
from krmfn.core.run.scan import Hashed, Scanned
from krmfn.core.selection.optin import MARK_KEYS
from krmfn.krm.resource import Resource
from krmfn.results import Result
from krmfn.yaml.tree import Node

# Annotations other tools write, never a reference a user placed.
IGNORED_ANNOTATIONS = ("krmfn.dev/", "kubectl.kubernetes.io/", "meta.helm.sh/", "deployment.kubernetes.io/",
                       *(k for keys in MARK_KEYS.values() for k in keys))
# Istio's DestinationRule tls (a Gateway's is a row of core.references.table, rewritten): a Secret's name.
KNOWN_FIELDS = {"credentialName": "Secret"}
_NAME_CHARS = "A-Za-z0-9_\\-"


def _pattern(names: list[str]) -> str:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return rf"(?<![{_NAME_CHARS}.])(?<!^/)(?<![^{_NAME_CHARS}.]/)(?:{alternatives})(?![{_NAME_CHARS}/]|\.[A-Za-z0-9])"


# The bytes a name is made of. A mention of a name starts a run of them, and is the run or the
# part before a "." that no letter or digit follows (_pattern's rule, without its alternation).
_RUN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# Every other byte as a space: a text's runs are then its words (bytes.split: twice a regex's speed).
_RUNS_ONLY = bytes(c if c in _RUN_BYTES else 0x20 for c in range(256))
# The same with "." a space too: a name without a dot that a text mentions is one of its parts.
_PARTS_ONLY = _RUNS_ONLY.replace(b".", b" ")
_ALNUM = _RUN_BYTES - frozenset(b"_.-")


# Above this many names met in one item, its mentions are found in one pass over its runs: a search
# of the item for each name cost the fan-out shape (a Deployment reading 10,000 ConfigMaps) 2.6 s.
FEW_NAMES = 8
_RUN = re.compile(rb"[A-Za-z0-9_.\-]+")


def _candidates(run: bytes, found: set[bytes]) -> Iterator[bytes]:
    """The names of ``found`` a run may mention at its start: the run, or its part before a dot."""
    if run in found:
        yield run
    dot = run.find(b".")
    while dot > 0:
        if run[:dot] in found:
            yield run[:dot]
        dot = run.find(b".", dot + 1)


def _prefixes(run: bytes, names: frozenset[bytes]) -> Iterator[bytes]:
    """The names a run starts with, each ended by a "." that no letter or digit follows."""
    dot = run.find(b".")
    while dot > 0:
        if (dot + 1 == len(run) or run[dot + 1] not in _ALNUM) and run[:dot] in names:
            yield run[:dot]
        dot = run.find(b".", dot + 1)


def _mentioned_at(source: bytes, at: int, name: bytes) -> bool:
    """Whether ``name``, found at ``at``, is a mention: it starts a run that no path's / begins,
    and ends the run (no / after it) or ends before a "." that no letter or digit follows."""
    if at and source[at - 1] in _RUN_BYTES:
        return False
    if at and source[at - 1] == 0x2F and (at == 1 or source[at - 2] not in _RUN_BYTES):
        return False  # a path (/name)
    end = at + len(name)
    after = source[end] if end < len(source) else None
    if after is None or (after not in _RUN_BYTES and after != 0x2F):
        return True
    return after == 0x2E and (end + 1 == len(source) or source[end + 1] not in _ALNUM)


def counter(names: frozenset[bytes]) -> Callable[[bytes], int]:
    """How many times ``_pattern(names)`` matches a text: the names among its name-shaped runs (a
    set meets them in one step), then each place one of those stands, checked by _pattern's rule.
    Why not the pattern: an alternation of thousands of names is tried at every word of every item."""
    dotted = any(b"." in n for n in names)  # a name with a dot: a run's part before a dot may be it

    def mentions(source: bytes) -> int:
        if dotted:
            runs = set(source.translate(_RUNS_ONLY).split())
            found = runs & names
            found.update(p for r in runs if b"." in r for p in _prefixes(r, names))
        else:  # a mention is a part between dots too: one split finds every candidate
            found = set(names.intersection(source.translate(_PARTS_ONLY).split()))
        if len(found) > FEW_NAMES:  # one item naming many (a workload reading every ConfigMap): its runs, once
            return sum(any(_mentioned_at(source, m.start(), name) for name in _candidates(m.group(), found))
                       for m in _RUN.finditer(source))
        starts = set()  # a run holds one mention at most, at its start
        for name in found:
            at = source.find(name)
            while at >= 0:
                if _mentioned_at(source, at, name):
                    starts.add(at)
                at = source.find(name, at + 1)
        return len(starts)

    return mentions


def _places(res: Resource) -> Iterator[tuple[tuple[str, ...], Node, bool]]:
    """(keys from the top, scalar node, whether the place is free text) where a name can hide."""
    doc = res.tree
    stack: list[tuple[Node, tuple[str, ...]]] = [(res.node, ())]
    while stack:
        node, keys = stack.pop()
        node = doc.resolve(node)
        if doc.is_seq(node):
            stack.extend((child, keys) for child in doc.children(node))
            continue
        if doc.is_map(node):
            stack.extend((child, (*keys, key)) for key, child in doc.items(node))
            continue
        if not keys or doc.string(node) is None:
            continue
        last = keys[-1]
        if last in KNOWN_FIELDS:
            yield keys, node, False
        elif last in ("args", "command") or keys[-2:] == ("env", "value"):
            yield keys, node, True
        elif len(keys) >= 3 and keys[-3:-1] == ("metadata", "annotations"):
            if not last.startswith(IGNORED_ANNOTATIONS) and not _prose(last, doc.string(node) or ""):
                yield keys, node, True
        elif res.kind == "ConfigMap" and len(keys) == 2 and keys[0] == "data" and not last.startswith("_"):
            yield keys, node, True  # a key that begins with _ holds documentation (Knative's _example)


_PROSE_KEYS = ("description", "summary", "message", "note", "notes", "help", "title")


def _prose(key: str, value: str) -> bool:
    """An annotation that holds words for people (its key says so, or it reads as a sentence)."""
    return key.rsplit("/", 1)[-1].lower().endswith(_PROSE_KEYS) or len(value.split()) > 8


def leftovers(scanned: Scanned, renamed: list[Hashed]) -> list[Result]:
    """One warning per place that still holds a renamed object's original name, in item order."""
    by_name: dict[str, Hashed] = {}
    for h in renamed:
        by_name.setdefault(h.original, h)
    own = {h.res.index for h in renamed}
    others = {r.name for r in scanned.resources if r.name in by_name and r.index not in own
              and r.kind not in ("ConfigMap", "Secret")}
    # a namespace of the same name (kyverno in --namespace=kyverno, system:serviceaccount:kyverno:...)
    others |= {r.namespace for r in scanned.resources if r.namespace in by_name}
    mentions = counter(frozenset(n.encode() for n in by_name))
    find = None  # the pattern, compiled only when an item mentions a name krmfn does not place
    results: list[Result] = []
    # A renamed object's own text names it where no reference hides: its name, and on a re-run its
    # original-name annotation (read when it was opted in, so no parse). A family label, which
    # _places does not look at either, is not counted: such an item is only parsed again.
    itself = {h.res.index: (h.res.name == h.original) + (h.res.annotations.get(ORIGINAL_NAME) == h.original)
              for h in renamed}
    for res in scanned.resources:
        said = mentions(res.source)
        known = sum(ref.name in by_name for ref in scanned.references.get(res.index, ()))
        if not said or said == known + itself.get(res.index, 0):
            continue  # every mention is one krmfn places or the object's own: the item is not parsed again
        if find is None:
            find = re.compile(_pattern(list(by_name))).finditer
        doc = res.tree
        placed = {ref.node for ref in scanned.references.get(res.index, ())}
        for keys, node, free in _places(res):
            value = doc.string(node) or ""
            for match in find(value):
                name = match.group()
                if node in placed or by_name[name].res.index == res.index or (free and name in others):
                    continue
                results.append(_warning(res, keys, node, by_name[name], KNOWN_FIELDS.get(keys[-1]),
                                        match.group() == value))
                break
        res.drop()
    return results


def _warning(res: Resource, keys: tuple[str, ...], node: Node, h: Hashed, kind: str | None, whole: bool) -> Result:
    """One line, as every message is; the fieldSpecs entry rides beside it (``krmfn -v``, and the
    result's ``tags.fieldSpecs``), as for an unplaced reference (core.references.unplaced)."""
    kind = kind or h.res.kind
    where = res.tree.path_of(node, res.node)
    group = f", group: {res.group}" if res.group else ""
    spec = f"{{kind: {res.kind}{group}, path: {join_path(keys)}}}"
    # the entry to paste, as kustomize writes it: a ConfigMap's in a plain list, another kind's in a
    # nameReference entry of its own; the one line says where it is (krmfn -v, tags.fieldSpecs)
    paste = f"- {spec}" if kind == "ConfigMap" else f"- kind: {kind}\n  fieldSpecs:\n  - {spec}"
    inside = "" if whole else "give it a field of its own, then "
    return Result(f"holds {h.original}, the old name of {h.res.kind} {h.original} (now {h.new_name}): if it means "
                  f"that {h.res.kind}, {inside}add the fieldSpecs entry krmfn -v prints (docs/field-specs.md)",
                  "warning", res.ref, where, h.original, h.new_name, paste, DETAIL_TAG, topic="leftover-name")


__all__ = ["leftovers"]
