"""Plain Python data to and from YAML, for the small documents krmfn reads whole.

Why apart from the tree: the function config, config and field-spec files, and gc's offline
live state are small and read as plain data; results are written as block YAML directly,
since building a tree only to emit it costs more than a large run's own work.
"""

from __future__ import annotations

from krmfn.document.scalars import scalar
from krmfn.document.tree import Doc


def load_documents(text: bytes) -> list[object]:
    """Every YAML document in ``text`` as plain data. Raises YamlError when it cannot be read."""
    doc = Doc.parse(text)
    return [to_data(doc, node) for node in doc.documents()]


def to_data(doc: Doc, node: int) -> object:
    """Plain Python data for a small subtree: scalars as text (null as None), maps and lists."""
    node = doc.resolve(node)
    if doc.is_map(node):
        return {k: to_data(doc, c) for k, c in doc.items(node)}
    if doc.is_seq(node):
        return [to_data(doc, c) for c in doc.children(node)]
    return None if doc.is_null(node) else doc.str(node)


def block_yaml(value: object, indent: str = "") -> str:
    """Block-style YAML for results (maps of strings and lists): written directly, since
    building a tree only to emit it costs more than the run's own work on large inputs."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{indent}{k}:\n{block_yaml(v, indent + '  ')}")
            else:
                out.append(f"{indent}{k}: {scalar(v)}\n")
        return "".join(out)
    if isinstance(value, list):
        out = []
        for v in value:
            body = block_yaml(v, indent + "  ") if isinstance(v, (dict, list)) else f"{indent}  {scalar(v)}\n"
            out.append(f"{indent}- {body[len(indent) + 2:]}")
        return "".join(out)
    return f"{indent}{scalar(value)}\n"
