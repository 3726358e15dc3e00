"""Two YAML texts compared as data, so that a text krmfn re-wrote is known to mean what it read.

Why: where an item cannot be edited in its own text, it is re-emitted from its tree, and where a
ResourceList is not in block style, its items are cut out by a tokenizer; either could, through
a bug here or in rapidyaml, change a value nobody asked to change. Before anything is written,
the new text is read back and compared with the old one, value by value; a difference is an
error, never output.

Scalars are compared as text and as kind (a string, or a plain scalar YAML reads as a number,
a boolean or null), so ``"123"`` turning into ``123`` is a difference; styles and comments are
not (they carry no meaning).
"""

from __future__ import annotations

from krmfn.document.tree import Doc

Data = object  # dict, list, or a scalar as (text, is_string), or None for null


def data_of(doc: Doc, node: int) -> Data:
    """The value of a node as plain data, aliases followed, each scalar with its kind.

    Without recursion: JSON may nest thousands deep before the depth limit (document.limits)
    refuses it.
    """
    root: list[Data] = [None]
    stack: list[tuple[int, list[Data] | dict[str, Data], str | int]] = [(node, root, 0)]
    while stack:
        n, into, at = stack.pop()
        n = doc.resolve(n)
        value: Data
        if doc.is_map(n):
            mapping: dict[str, Data] = {}
            children = [(doc.key(c), c) for c in doc.children(n)]
            for key, _ in children:
                mapping[key] = None  # key order as written
            stack += [(child, mapping, key) for key, child in reversed(children)]
            value = mapping
        elif doc.is_seq(n):
            items: list[Data] = [None] * doc.tree.num_children(n)
            stack += [(child, items, i) for i, child in reversed(list(enumerate(doc.children(n))))]
            value = items
        elif not doc.is_scalar(n) or doc.is_null(n):
            value = None
        else:
            value = (doc.str(n), doc.string(n) is not None)
        into[at] = value  # type: ignore[index]
    return root[0]


def step(path: str, key: str | int) -> str:
    """A field path one step down, written as Doc.path_of writes it."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if "." in key or "/" in key:
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def differences(before: Data, after: Data, owned: frozenset[str] = frozenset(), path: str = "") -> list[str]:
    """The field paths (as Doc.path_of writes them) where ``after`` differs from ``before``.

    A path in ``owned`` (a field the function changes on purpose) is not compared; a key that
    ``after`` adds must be owned, or be a map whose own entries all are (an annotations map
    krmfn adds); a null that became a map is compared as an empty map. Without recursion.
    """
    out: list[str] = []
    stack = [(before, after, path)]
    while stack:
        a, b, at = stack.pop()
        if at in owned:
            continue
        if a is None and isinstance(b, dict):
            a = {}
        if isinstance(a, dict) and isinstance(b, dict):
            for key, value in a.items():
                sub = step(at, key)
                if key not in b:
                    if sub not in owned:
                        out.append(sub)
                    continue
                stack.append((value, b[key], sub))
            for key, value in b.items():
                if key not in a:
                    out += _added(value, owned, step(at, key))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(at or "(the object)")
                continue
            stack += [(x, y, step(at, i)) for i, (x, y) in enumerate(zip(a, b))]
        elif a != b:
            out.append(at or "(the object)")
    return out


def _added(value: Data, owned: frozenset[str], path: str) -> list[str]:
    if path in owned:
        return []
    if isinstance(value, dict):
        return [p for key, sub in value.items() for p in _added(sub, owned, step(path, key))]
    return [path]


__all__ = ["Data", "data_of", "differences", "step"]
