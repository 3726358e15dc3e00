"""The README's table of every kind and path covered, rendered from the reference table's data.

Why generated: the README and :data:`krmfn.core.table.BUILTIN` cannot drift apart; a test compares
them. Print it with ``python -m krmfn.core.table_docs``.
"""

from __future__ import annotations

from collections.abc import Sequence

from krmfn.core.fieldspec import Has
from krmfn.core.table import BUILTIN, CONTAINER_FIELDS, NOTICES, SHAPES, VOLUME_FIELDS, Entry, Notice, Shape


def describe_condition(c: Has) -> str:
    value = f"`{c.value}`" if c.value else '`""`'
    return f"`{c.key}` includes {value}" if c.listed else f"`{c.key}: {c.value}`"


def describe(entry: Entry) -> str:
    """One entry in words: a shape at a path, or a field with its conditions."""
    if entry.shape is not None:
        return f"{entry.shape.name} at `{entry.at}`"
    text = f"`{entry.path}`"
    if entry.namespace_from:
        text += f", in the namespace named by `{entry.namespace_from}` beside it"
    if entry.qualified:
        text += " (`name` or `namespace/name`)"
    if entry.when:
        text += " where " + " and ".join(describe_condition(c) for c in entry.when)
    return text


def _group(group: str | None) -> str:
    return "any" if group is None else "core" if group == "" else group


def markdown_table(entries: Sequence[Entry] = BUILTIN, notices: Sequence[Notice] = NOTICES,
                   shapes: Sequence[Shape] = SHAPES) -> str:
    """The README's table of every kind and path, generated from the data it documents."""
    rows: dict[tuple[str, str, str], list[str]] = {}
    for entry in entries:
        rows.setdefault((entry.project, entry.kind, _group(entry.group)), []).append(describe(entry))
    for notice in notices:
        rows.setdefault((notice.project, notice.kind, _group(notice.group)), []).append(
            f"with `{notice.path}`: nothing to rewrite (an info result says so)")
    lines = ["| project | kind | API group | where ConfigMaps are named |", "|---|---|---|---|"]
    lines += [f"| {p} | {k} | {g} | {'; '.join(where)} |" for (p, k, g), where in rows.items()]
    lines += ["", "Paths are kustomize field-spec paths: lists are traversed implicitly. Below each shape:", "",
              "| shape | containers (each: " + ", ".join(f"`{f}`" for f in CONTAINER_FIELDS)
              + ") | volumes (each: " + ", ".join(f"`{f}`" for f in VOLUME_FIELDS) + ") | other fields |",
              "|---|---|---|---|"]
    lines += [f"| {s.name} | {', '.join(f'`{c}`' for c in s.containers)} | {', '.join(f'`{v}`' for v in s.volumes)} | "
              f"{', '.join(f'`{f}`' for _, f in s.fields) or '-'} |" for s in shapes]
    lines += ["", "Any other kind: add `fieldSpecs` to the function config, in kustomize's `nameReference` syntax "
              "(an existing kustomize `configurations:` file works as it is; see docs/field-specs.md). In a kind "
              "not covered, a field shaped like a reference (`configMapRef`, `configMapKeyRef`, `configMap: {name}`, "
              "`configMapName`, `{kind: ConfigMap, name}`) that names an opted-in ConfigMap gets a warning with "
              "its path and a field spec to paste."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
