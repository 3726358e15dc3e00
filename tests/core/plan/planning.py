"""The pass tests' helper: a Planning over a small stream with the passes before the one under
test already run, so that each pass is tested alone, on what the passes before it leave."""

from __future__ import annotations

import textwrap

from krmfn.core.config import read_config
from krmfn.core.plan.passes import PASSES, Pass
from krmfn.core.plan.state import Planning
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run.scan import scan
from krmfn.krm.envelope import read_streams
from krmfn.yaml.encoding import TextForm


def planning(step: Pass, stream: str, config: str | None = None) -> Planning:
    """The Planning of ``stream`` (YAML documents, dedented) as ``step`` gets it."""
    text = textwrap.dedent(stream).lstrip("\n").encode()
    fc = None
    if config:  # the fields of a ContentHash, under functionConfig as the reader puts it
        fields = textwrap.indent(textwrap.dedent(config).strip("\n"), "  ")
        fc = f"\n  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n{fields}".encode()
    rl = read_streams([text], fc, [None], [TextForm.of(text)])
    cfg = read_config(rl.envelope, rl.function_config)
    p = Planning.of(scan(rl, cfg, ReferenceTable.builtin(cfg.field_specs)), cfg, rl.item_name)
    for earlier in PASSES[:PASSES.index(step)]:
        earlier(p)
    return p
