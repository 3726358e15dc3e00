"""The function itself, as a pure transformation: ResourceList bytes in, Outcome out.

No I/O here, and no exit code: the shell (krmfn.cli) reads stdin, writes stdout and stderr,
and decides the exit code from the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from krmfn.core.config import read_config
from krmfn.core.parallel import scan_items, write_items
from krmfn.core.plan import plan
from krmfn.core.walk import ReferenceTable
from krmfn.krm.envelope import item_error, read_resource_list, render
from krmfn.krm.limits import Limits, check_input, check_parsed, yaml_error
from krmfn.results import KrmfnError, Result, has_errors
from krmfn.yaml.encoding import TextForm, as_lf_utf8
from krmfn.yaml.tree import YamlError

if TYPE_CHECKING:
    from krmfn.yaml.split import Origin


@dataclass(repr=False, eq=False)
class Outcome:
    """What a run prints: the shell only writes these out."""

    pieces: list[bytes]  # written one after the other: no second copy of a large output
    results: list[Result]

    @property
    def failed(self) -> bool:
        """Whether an error result says the run failed (its items are then as read)."""
        return has_errors(self.results)

    @property
    def stdout(self) -> bytes:
        return b"".join(self.pieces)

    @property
    def text(self) -> str:
        return self.stdout.decode()


def run_resource_list(data: bytes, limits: Limits = Limits(), item_names: Sequence[str] | None = None,
                      item_origins: Sequence[Origin] | None = None,
                      labels: Mapping[str, str] | None = None) -> Outcome:
    """ResourceList in, ResourceList out.

    On an error found while reading or planning, the items go back exactly as read, with
    error results: nothing is written until every check has passed. Input that cannot be
    read at all gives no output, only the results. ``item_names``: how messages name each
    item (a stream's documents, a file's), by default "item N"; ``item_origins``: where each
    item's text is in the user's input, by default in ``data``; ``labels``: how the user gave the
    functionConfig's fields, when a shell mode built it from flags or the environment (core.config).
    """
    try:
        prescan = check_input(data, limits)
        form = TextForm.of(data)
        data = as_lf_utf8(data)
        try:
            rl = read_resource_list(data, item_names, item_origins, form)
        except YamlError as exc:
            placed = item_error(exc, data, item_names, item_origins)
            return Outcome([], [placed] if placed is not None else yaml_error(exc, data, prescan, limits))
    except KrmfnError as exc:
        return Outcome([], exc.results)
    try:
        check_parsed(rl, prescan, limits)
        config = read_config(rl.envelope, rl.function_config, labels)
        scanned = scan_items(rl, config, ReferenceTable.builtin(config.field_specs), len(data))
        p = plan(scanned, config, rl.item_name)
        items, results = write_items(scanned, p, config, len(data)), p.results
    except KrmfnError as exc:
        items, results = rl.sources, exc.results
    return Outcome(render(rl, items, results), results)
