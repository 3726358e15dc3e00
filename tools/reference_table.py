"""The table of every kind and path covered (docs/references.md), rendered from the reference table's data.

Why generated: the page and :data:`krmfn.core.references.table.BUILTIN` cannot drift apart; a test compares
them. Print it with ``python tools/reference_table.py``. A developer's tool: it prints, so it stays
out of krmfn's pure core, and out of the package.
"""

from __future__ import annotations

from collections.abc import Sequence

from krmfn.core.references.fieldspec import Has
from krmfn.core.references.kinds import plural
from krmfn.core.references.table import BUILTIN, NOTICES, SHAPE_FIELDS, SHAPES, Entry, Notice, Shape


def describe_condition(c: Has) -> str:
    value = f"`{c.value}`" if c.value else '`""`'
    return f"`{c.key}` includes {value}" if c.listed else f"`{c.key}: {c.value}`"


def describe(entry: Entry) -> str:
    """One entry in words: a shape at a path, or a field with its conditions."""
    if entry.summary is not None:
        return entry.summary
    if entry.shape is not None:
        return f"{entry.shape.name} at `{entry.at}`"
    text = f"`{entry.path}`"
    if entry.namespace_from:
        text += f" (namespace: `{entry.namespace_from}` beside it)"
    if entry.qualified:
        text += " (`name` or `namespace/name`)"
    if entry.when:
        text += " where " + " and ".join(describe_condition(c) for c in entry.when)
    if entry.writes:
        text += " (its controller writes that Secret: never renamed)"
    return text


def _group(group: str | None) -> str:
    return "any" if group is None else "core" if group == "" else group


def markdown_table(entries: Sequence[Entry] = BUILTIN, notices: Sequence[Notice] = NOTICES,
                   shapes: Sequence[Shape] = SHAPES) -> str:
    """The README's table of every kind and path, generated from the data it documents."""
    kinds = tuple(SHAPE_FIELDS)
    rows: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for entry in entries:
        cells = rows.setdefault((entry.project, entry.kind, _group(entry.group)), {k: [] for k in kinds})
        for kind in (kinds if entry.shape is not None else (entry.refers_to,)):
            if describe(entry) not in cells[kind]:
                cells[kind].append(describe(entry))
    for notice in notices:
        cells = rows.setdefault((notice.project, notice.kind, _group(notice.group)), {k: [] for k in kinds})
        for kind in kinds:
            cells[kind].append(f"with `{notice.path}`: nothing to rewrite (an info result says so)")
    lines = ["| project | kind | API group | " + " | ".join(f"where {plural(k)} are named" for k in kinds) + " |",
             "|---|---|---|" + "---|" * len(kinds)]
    lines += [f"| {p} | {k} | {g} | " + " | ".join("; ".join(cells[kind]) or "" for kind in kinds) + " |"
              for (p, k, g), cells in rows.items()]
    lines += ["", "Paths are kustomize field-spec paths: lists are traversed implicitly. Each shape's containers, "
              "volumes and other fields:", "", "| shape | containers | volumes | other fields |", "|---|---|---|---|"]
    lines += [f"| {s.name} | {_codes(s.containers)} | {_codes(s.volumes)} | "
              f"{', '.join(f'`{f}` ({kind})' for kind, f in s.fields) or '-'} |" for s in shapes]
    lines += ["", "and, in every shape, the fields that name each kind:", "",
              "| kind | in each container | in each volume | beside them |", "|---|---|---|---|"]
    lines += [f"| {kind} | {_codes(f.container)} | {_codes(f.volume)} | {_codes(f.pod)} |"
              for kind, f in SHAPE_FIELDS.items()]
    lines += ["", "Any other kind: add `fieldSpecs` to the function config, in kustomize's `nameReference` syntax "
              "(an existing kustomize `configurations:` file works as it is; see docs/field-specs.md). In a kind "
              "not covered, a field shaped like a reference (`configMapRef`, `secretKeyRef`, `secret: {secretName}`, "
              "`{kind: Secret, name}`, ...: the shapes are in docs/field-specs.md) that names an opted-in object "
              "gets a warning with its path and the field specs to paste."]
    return "\n".join(lines) + "\n"


def _codes(paths: Sequence[str]) -> str:
    return ", ".join(f"`{p}`" for p in paths)


if __name__ == "__main__":
    print(markdown_table(), end="")
