"""What an object of a renamed kind is, read from its tree: its content as the hash reads it (each
value checked as Kubernetes and kustomize read it), its family name, and the name of the object its
controller makes. The scan (core.run.scan) asks these while the object's tree is alive.

Why apart from the scan: the hash's input is the contract with kustomize (core.naming.hashing), and
a reader of it should not have to read how the scan walks references.
"""

from __future__ import annotations

import re

from krmfn.core.naming import hashing
from krmfn.core.naming.retention import ORIGINAL_NAME
from krmfn.core.references.kinds import RenamedKind
from krmfn.krm.resource import Resource
from krmfn.results import InputError, Result
from krmfn.yaml.scalars import go_timestamp
from krmfn.yaml.tree import Node

# A name ending in what some algorithm's suffix looks like: only those are hashed to find their family.
_ANY_SUFFIX = re.compile("-(?:" + "|".join(hashing.suffix_pattern(a) for a in hashing.ALGORITHMS) + ")$")


def _entry_path(key: str, k: str) -> str:
    return f"{key}.{k}" if k and "." not in k else f"{key}[{k}]"


def _at(res: Resource, key: str) -> Node | None:
    """The node at a dotted path (``data``, ``spec.encryptedData``), or None."""
    return res.tree.path(res.node, *key.split("."))


def _string_map(res: Resource, kind: RenamedKind, key: str) -> dict[str, str] | None:
    """A hashed field (``data``, ``binaryData``, ``stringData``) as text, after checking every
    value is a string (and base64 where the kind says so). A Secret's values never appear in a
    message: only its keys do."""
    doc = res.tree
    node = _at(res, key)
    if node is None or doc.is_null(node):
        return None
    node = doc.resolve(node)
    if not doc.is_map(node):
        raise InputError(f"{key} is {doc.describe(node)}, not a map of strings", res.ref, key)
    out: dict[str, str] = {}
    for k, child in doc.items(node):
        path = _entry_path(key, k)
        if k in out:
            raise InputError(f"{key} has the key {k!r} twice; keep one", res.ref, path)
        if not doc.is_string_key(child) or (go_timestamp(k) and doc.kplain[child]):
            raise InputError(f"{path} has a key that YAML reads as a number, boolean, null or date; {res.kind} keys "
                             f'must be strings: quote it ("{k}")', res.ref, path)
        value = doc.string(child)
        if value is not None and doc.plain_timestamp(doc.resolve(child)):
            what, fix = ("a value", "quote it") if kind.secret else (value, f'quote it ("{value}")')
            raise InputError(f"{path} is {what}, which kustomize reads as a date; {res.kind} values must be strings: "
                             f"{fix}", res.ref, path)
        if value is None:
            target = doc.resolve(child)
            text = None if doc.is_null(target) or not doc.is_scalar(target) else doc.scalar(target)
            if doc.is_null(target):
                what, fix = "empty (null)", 'write "" for an empty value'
            elif text is None:
                what, fix = doc.describe(target), "write it as text (a | block)"
            elif kind.secret:
                what, fix = "a value YAML reads as a number, boolean or tagged value", "quote it"
            else:
                what, fix = f"{text}, which YAML reads as a number, boolean or tagged value", f'quote it ("{text}")'
            raise InputError(f"{path} is {what}; {res.kind} values must be strings: {fix}", res.ref, path)
        if key in kind.base64:
            # Imported here, for start-up time: only binaryData and Secrets need them.
            import base64
            import binascii

            try:
                base64.b64decode("".join(value.split()), validate=True)
            except (binascii.Error, ValueError):
                fix = ("(base64 -w0 FILE), or move a text value to stringData" if kind.secret else
                       "(base64 -w0 FILE), or move a text value to data")
                raise InputError(f"{path} is not valid base64; {key} holds base64 text {fix}", res.ref, path) from None
        out[k] = value
    return out


def _scalar(res: Resource, key: str) -> str | None:
    """A hashed scalar field (a Secret's ``type``) as text; None when absent."""
    doc = res.tree
    node = _at(res, key)
    if node is None or doc.is_null(node):
        return None
    value = doc.string(node)
    if value is None:
        raise InputError(f"{key} is {doc.describe(doc.resolve(node))} YAML does not read as text; write it as a "
                         "string", res.ref, key)
    return value


def _tree(res: Resource, key: str, omit: tuple[str, ...]) -> object:
    """A field hashed whole (a custom resource's ``spec``) as plain data: maps, lists, strings and
    None; a scalar YAML reads as a number, boolean or tagged value as ``{"!": text}``, so that it
    differs from the string of the same text. A key written twice is an error (which one counts
    would depend on the reader). ``omit``: dotted paths left out. No value is ever in a message."""
    doc = res.tree

    def value(node: Node, path: str) -> object:
        node = doc.resolve(node)
        if doc.is_map(node):
            out: dict[str, object] = {}
            for k, child in doc.items(node):
                at = _entry_path(path, k)
                if k in out:
                    raise InputError(f"{path} has the key {k!r} twice; keep one", res.ref, at)
                if f"{path}.{k}" not in omit:
                    out[k] = value(child, at)
            return out
        if doc.is_seq(node):
            return [value(child, f"{path}[{i}]") for i, child in enumerate(doc.children(node))]
        if doc.is_null(node):
            return None
        text = doc.string(node)
        return text if text is not None else {"!": doc.scalar(node) or ""}

    node = _at(res, key)
    return None if node is None else value(node, key)


def content(res: Resource, kind: RenamedKind) -> dict[str, object]:
    content: dict[str, object] = {key: _string_map(res, kind, key) for key in kind.content}
    content.update((key, _scalar(res, key)) for key in kind.scalars)
    content.update((key, _tree(res, key, kind.omit)) for key in kind.trees)
    return content


def made_names(res: Resource, kind: RenamedKind, original: str) -> tuple[Node, str, str] | None:
    """Where its controller's object is named, when the kind has such a field and the object sets
    it (an ExternalSecret's spec.target.name): that node, the name, and the name's family (before
    krmfn's suffix: the suffix this object's own name carries, taken off)."""
    if not kind.made_name:
        return None
    doc = res.tree
    node = doc.path(res.node, *kind.made_name)
    name = None if node is None else doc.string(node)
    if node is None or name is None or name == "":
        return None
    family = name
    if res.name != original and res.name.startswith(original + "-"):
        own = res.name[len(original):]  # "-<suffix>"
        if name.endswith(own) and len(name) > len(own):
            family = name[:-len(own)]
    return node, name, family


def original_name(res: Resource) -> str:
    """The family name: from the annotation when the current name is that name or a hashed form of
    it (:func:`hashing.is_hashed_form`); else the name itself (:func:`stale_original` says why)."""
    recorded = res.annotations.get(ORIGINAL_NAME)
    if recorded and (res.name == recorded or hashing.is_hashed_form(res.name, recorded)):
        return recorded
    return res.name


def stale_original(res: Resource) -> Result | None:
    """A warning when the original-name annotation names another object's family (copied from
    rendered output, or the object renamed by hand): it is ignored, and the object is its own family."""
    recorded = res.annotations.get(ORIGINAL_NAME)
    if not recorded or original_name(res) == recorded:
        return None
    return Result(f"its {ORIGINAL_NAME} is {recorded!r}, which its name {res.name!r} does not carry: ignored, so "
                  f"references to {recorded!r} do not mean it; remove it (copied from another object?)", "warning",
                  res.ref, f"metadata.annotations[{ORIGINAL_NAME}]")


def family_of(res: Resource, kind: RenamedKind) -> str:
    """The family name, also of an object that records none but whose name ends in a suffix of its
    own content under any algorithm (kustomize's generator named it, or krmfn did): the name without
    that suffix, so that no algorithm suffixes it twice and a data edit stays in its family. A
    value that cannot be hashed leaves the name as it is (only an opted-in object's values matter)."""
    original = original_name(res)
    if original != res.name or ORIGINAL_NAME in res.annotations or not _ANY_SUFFIX.search(res.name):
        return original
    try:
        return content_family(res.name, kind.hash_input(content(res, kind))) or original
    except InputError:
        return original


def content_family(name: str, encoded: str) -> str | None:
    """``name`` without its last suffix, when that suffix is one an algorithm makes of ``encoded``."""
    for algorithm in hashing.ALGORITHMS:
        digest = hashing.digest(algorithm, encoded)
        if name.endswith(f"-{digest}") and len(name) > len(digest) + 1:
            return name[:-len(digest) - 1]
    return None


def check_unique_keys(res: Resource) -> None:
    """A key written twice where krmfn reads or writes a ConfigMap: which one counts would depend
    on the reader (the API server refuses it), and a re-run could read the other one."""
    doc = res.tree
    for path, node in (("", res.node), ("metadata", res.metadata),
                       ("metadata.annotations", doc.get(res.metadata, "annotations")),
                       ("metadata.labels", doc.get(res.metadata, "labels"))):
        if node is None or not doc.is_map(node) or not doc.has_duplicate_keys(node):
            continue
        seen: set[str] = set()
        for key, _ in doc.items(node):
            if key in seen:
                where = f"{path}.{key}" if path else key
                raise InputError(f"{path or 'the object'} has the key {key!r} twice; keep one", res.ref, where)
            seen.add(key)
