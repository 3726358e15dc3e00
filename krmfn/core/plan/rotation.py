"""Pass: what each workload reads that rotates outside Git (core.report.rotation): Reloader's
annotations under ``rotation: reloader``, and the audit's words on it."""

from __future__ import annotations

from krmfn.core.plan.state import Planning, where


def rotation(p: Planning) -> None:
    config = p.config
    if not p.scanned.rollouts or (config.rotation == "off" and config.audit == "off"):
        return
    from krmfn.core.report.rotation import findings, reads, reload_edits  # here, for start-up time: workloads only

    found = reads(p.scanned, p.index, p.written, p.empty, where)
    if config.rotation == "reloader":
        for item, edits in reload_edits(p.scanned, found).items():
            p.change(item).rotation = edits
    if config.audit != "off":
        from krmfn.core.report.audit import at_level  # here, for start-up time: only those runs

        p.results += at_level(findings(p.scanned, found, config), config.audit)
