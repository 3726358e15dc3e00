"""A change plan (changes.changeplan) as text for a terminal, Markdown for a pull-request comment,
or JSON (the schema in docs/plan.md). Why apart: the plan is data; how it reads is not its concern.
Secrets appear by key name only: the plan holds nothing more of them.
"""

from __future__ import annotations

import json

from krmfn.changes.changeplan import ALL, ChangePlan, ConfigChange, Roll


def _where(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


def _reads(r: Roll) -> str:
    if not r.template_changes:
        return r.text
    parts = [f"{what} ({'every key' if keys == [ALL] else ', '.join(keys) or 'none of the changed keys'})"
             for what, keys in r.reads.items()]
    if not r.reads_changed:
        return f"rolls, though it reads none of the changed keys ({'; '.join(parts)})"
    return f"reads {'; '.join(parts)}"


def _other(r: Roll) -> str:
    """How its pod template changed apart from config (an image, resources, ...)."""
    return f"its pod template {'also ' if r.reads else ''}changed: {'; '.join(r.other)}"


def _rolls_on(r: Roll) -> str:
    """What rolls a workload, at render and at rotation (docs/rotation.md)."""
    render = f"rolls at render on: {', '.join(r.at_render)}" if r.at_render else "rolls at render on nothing it reads"
    rotation = (f"rolls at rotation via Reloader on: {', '.join(r.at_rotation)}" if r.at_rotation else
                "nothing rolls it at rotation")
    return f"{render}; {rotation}"


def _config_lines(c: ConfigChange) -> list[str]:
    head = f"{c.kind} {_where(c.namespace, c.family)}"
    if c.status != "changed":
        name = c.new_name if c.status == "added" else c.old_name
        return [f"{head}: {c.status}" + (f" ({name})" if c.shows_names else "")]
    rename = "" if not c.renamed else f" ({c.old_name} -> {c.new_name})" if c.shows_names else " (new hashed name)"
    lines = [f"{head}{rename}"]
    for label, keys in (("added", c.added), ("removed", c.removed), ("changed", c.changed)):
        if keys:
            lines.append(f"  {label}: {', '.join(keys)}")
    return lines


def text(p: ChangePlan) -> str:
    if not p.configs and not p.rolls:
        return "No ConfigMap or Secret changes.\n"
    out = ["ConfigMaps and Secrets:" if p.configs else "No ConfigMap or Secret changes."]
    for c in p.configs:
        out += [f"  {line}" for line in _config_lines(c)]
        for key, diff in c.diffs.items():
            out.append(f"    {key}:")
            out += [f"      {line}" for line in diff]
    out.append("Workloads:" if p.rolls else "Workloads: none reads a changed object")
    for r in p.rolls:
        replicas = f", replicas {r.replicas}" if r.replicas else ""
        out.append(f"  {r.kind} {_where(r.namespace, r.name)} [{r.category}{replicas}]: {r.text}")
        if r.template_changes and r.reads:
            out.append(f"    {_reads(r)}")
        if r.at_render or r.at_rotation:
            out.append(f"    {_rolls_on(r)}")
        if r.other:
            out.append(f"    {_other(r)}")
    return "\n".join(out) + "\n"


_ICON = {"rolls": "🔄", "downtime": "⛔", "on-delete": "⏸️", "cannot-apply": "❌", "paused": "⏸️", "no-roll": "⚠️"}


def markdown(p: ChangePlan) -> str:
    out = ["### krmfn plan", ""]
    if not p.configs and not p.rolls:
        return "\n".join(out + ["No ConfigMap or Secret changes.", ""])
    out += ["| Object | Change | Keys |", "|---|---|---|"] if p.configs else ["No ConfigMap or Secret changes."]
    for c in p.configs:
        keys = "; ".join(f"{label}: {', '.join(f'`{k}`' for k in keys)}" for label, keys in
                         (("added", c.added), ("removed", c.removed), ("changed", c.changed)) if keys)
        change = c.status if c.status != "changed" or not c.renamed else \
            f"`{c.old_name}` → `{c.new_name}`" if c.shows_names else "new hashed name"
        out.append(f"| {c.kind} `{_where(c.namespace, c.family)}` | {change} | {keys or '-'} |")
    diffs = [(c, k, d) for c in p.configs for k, d in c.diffs.items()]
    if diffs:
        out += ["", "<details><summary>ConfigMap value diffs</summary>", ""]
        for c, key, diff in diffs:
            out += [f"`{c.family}` `{key}`:", "```diff", *diff, "```", ""]
        out.append("</details>")
    out += ["", "| Workload | Replicas | How it rolls | Reads |", "|---|---|---|---|"]
    for r in p.rolls:
        how = f"{_ICON.get(r.category, '')} **{r.category}**: {r.text}".replace("|", "\\|")
        parts = [_reads(r)] if r.template_changes and r.reads else []
        if r.at_render or r.at_rotation:
            parts.append(_rolls_on(r))
        if r.other:
            parts.append(_other(r).replace("|", "\\|"))
        reads = "<br>".join(parts) or "-"
        out.append(f"| {r.kind} `{_where(r.namespace, r.name)}` | {r.replicas or '-'} | {how} | {reads} |")
    if not p.rolls:
        out.append("| none reads a changed object | | | |")
    return "\n".join(out) + "\n"


def as_json(p: ChangePlan) -> str:
    return json.dumps(p.to_json(), indent=2, ensure_ascii=False) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": as_json}

__all__ = ["FORMATS", "as_json", "markdown", "text"]
