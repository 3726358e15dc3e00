"""Plain Python data to and from YAML, for the small documents krmfn reads whole.

Why apart from the tree: the function config, config and field-spec files, and gc's offline
live state are small and read as plain data; results are written as block YAML directly,
since building a tree only to emit it costs more than a large run's own work.
"""

from __future__ import annotations

from krmfn.results import Result
from krmfn.yaml.scalars import scalar, yaml_json
from krmfn.yaml.tree import Doc, Node


def load_documents(text: bytes, typed: bool = False) -> list[object]:
    """Every YAML document in ``text`` as plain data (``typed``: as :func:`typed_data` reads it).
    Raises YamlError when it cannot be read."""
    doc = Doc.parse(text)
    read = typed_data if typed else to_data
    return [read(doc, node) for node in doc.documents()]


def load_one(text: bytes, typed: bool = False, empty: bool = False) -> object:
    """The one YAML document of a small file or value (a config, field specs, gc's live state) as
    plain data; None for no document when ``empty``. Each caller says what is wrong in its own
    words: raises YamlError, DuplicateKey (``typed``), or DocumentCount."""
    docs = load_documents(text, typed)
    if len(docs) == 1:
        return docs[0]
    if not docs and empty:
        return None
    raise DocumentCount(len(docs))


class DocumentCount(ValueError):
    """A text that holds more or fewer YAML documents than the one it must."""

    def __init__(self, count: int):
        super().__init__(count)
        self.count = count


class DuplicateKey(ValueError):
    """A map with one key twice, where strict decoding (kubectl's) refuses it: the key and its path."""

    def __init__(self, key: str, path: str):
        super().__init__(key, path)
        self.key = key
        self.path = path


_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


def typed_data(doc: Doc, node: Node, path: str = "") -> object:
    """Plain Python data as a typed decoder reads it: a plain ``5`` is a number, ``true`` a
    boolean, ``~`` null (text otherwise); a key written twice raises DuplicateKey, naming it."""
    node = doc.resolve(node)
    if doc.is_map(node):
        out: dict[str, object] = {}
        for k, c in doc.items(node):
            if k in out:
                raise DuplicateKey(k, path)
            out[k] = typed_data(doc, c, f"{path}.{k}" if path else k)
        return out
    if doc.is_seq(node):
        return [typed_data(doc, c, f"{path}[{i}]") for i, c in enumerate(doc.children(node))]
    if doc.is_null(node):
        return None
    text = doc.string(node)
    if text is not None:
        return text
    raw = doc.scalar(node) or ""
    if raw in _BOOLS:
        return _BOOLS[raw]
    try:
        return int(raw.replace("_", ""), 0)
    except ValueError:
        pass
    try:
        return float(raw.replace("_", ""))
    except ValueError:
        return raw  # yes/no, on/off and the like: YAML 1.1 booleans, which a typed field refuses as text


def to_data(doc: Doc, node: Node) -> object:
    """Plain Python data for a small subtree: scalars as text (null as None), maps and lists."""
    node = doc.resolve(node)
    if doc.is_map(node):
        return {k: to_data(doc, c) for k, c in doc.items(node)}
    if doc.is_seq(node):
        return [to_data(doc, c) for c in doc.children(node)]
    return None if doc.is_null(node) else doc.scalar(node)


def results_json(results: list[Result]) -> str:
    """The ``results`` entry of a JSON (flow) envelope, from each ``Result.to_data()``."""
    return '"results": ' + yaml_json([r.to_data() for r in results])


def results_yaml(results: list[Result]) -> str:
    """The ``results:`` of a ResourceList as block YAML, each entry ``Result.to_data()`` in its
    key order. Written directly, without a tree or the intermediate dicts: a large run has a
    result for every renamed object and every workload that uses one, and their kinds, API
    versions, severities and field paths repeat, so each is quoted once."""
    quoted: dict[str, str] = {}

    def q(text: str) -> str:
        found = quoted.get(text)
        if found is None:
            found = quoted[text] = scalar(text)
        return found

    out = ["results:\n"]
    add = out.append
    for r in results:
        add(f"  - message: {scalar(r.message)}\n    severity: {q(r.severity)}\n")
        ref = r.resource
        if ref is not None:
            add(f"    resourceRef:\n      apiVersion: {q(ref.api_version)}\n      kind: {q(ref.kind)}\n"
                f"      name: {scalar(ref.name)}\n")
            if ref.namespace:
                add(f"      namespace: {q(ref.namespace)}\n")
        if r.field_path is not None:
            add(f"    field:\n      path: {q(r.field_path)}\n")
            if r.current is not None:
                add(f"      currentValue: {scalar(r.current)}\n")
            if r.proposed is not None:
                add(f"      proposedValue: {scalar(r.proposed)}\n")
        if r.detail is not None:
            add(f"    tags:\n      {scalar(r.detail_tag)}: {scalar(r.detail)}\n")
    return "".join(out)
