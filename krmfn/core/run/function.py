"""The function itself, as a pure transformation: a ResourceList (or plain streams) in, the same out.

No I/O here, and no exit code: the shell (krmfn.cli) reads stdin, writes stdout and stderr,
and decides the exit code from the results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from krmfn.core.config import Config, read_config
from krmfn.core.plan.passes import plan
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run.parallel import scan_items, write_items
from krmfn.core.run.stream import StreamScan, guess, streams
from krmfn.krm.envelope import (
    ResourceList,
    item_error,
    read_resource_list,
    read_streams,
    render,
    render_streams,
    stream_envelope,
)
from krmfn.krm.limits import Limits, Prescan, check_inputs, check_parsed, yaml_error
from krmfn.results import KrmfnError, Result, has_errors
from krmfn.yaml.split import ItemReader
from krmfn.yaml.tree import YamlError


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


def run_resource_list(data: bytes, limits: Limits = Limits(), labels: Mapping[str, str] | None = None) -> Outcome:
    """ResourceList in, ResourceList out.

    On an error found while reading or planning, the items go back exactly as read, with
    error results: nothing is written until every check has passed. Input that cannot be
    read at all gives no output, only the results. ``labels``: how the user gave the
    functionConfig's fields, when a shell mode built it from flags or the environment (core.config).
    """
    try:
        [(prescan, form, data)] = check_inputs([data], [None], limits)
        try:
            rl, streamed = _read(prescan, data, lambda: guess(data, labels),
                                 lambda reader: read_resource_list(data, form, reader))
        except YamlError as exc:
            placed = item_error(exc, data)
            return Outcome([], [placed] if placed is not None else yaml_error(exc, data, prescan, limits))
    except KrmfnError as exc:
        return Outcome([], exc.results)
    items: Sequence[bytes]
    try:
        items, results = _rename(rl, prescan, limits, labels, streamed)
    except KrmfnError as exc:
        items, results = rl.sources, exc.results
    try:
        return Outcome(render(rl, items, results), results)
    except KrmfnError as exc:
        return Outcome(render(rl, rl.sources, exc.results, prove=False), exc.results)


@dataclass(repr=False, eq=False)
class StreamsOutcome:
    """What a run over plain streams gives: each stream's new text (none after an error), the
    results, and every object's text before and after (for the Helm route's hook warnings)."""

    outputs: list[bytes]
    results: list[Result]
    before: Sequence[bytes] = field(default_factory=list)
    after: list[bytes] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return has_errors(self.results)


def run_streams(texts: Sequence[bytes], function_config: bytes | None, limits: Limits = Limits(),
                names: Sequence[str | None] | None = None, labels: Mapping[str, str] | None = None) -> StreamsOutcome:
    """Plain multi-document streams (stdin, or a file each) in, the same streams out, read as one
    input: a Deployment in one file follows a ConfigMap in another. ``function_config``: the
    config as YAML text; ``names``: each stream's name in messages (a file's path)."""
    names = list(names) if names is not None else [None] * len(texts)
    try:
        inputs = check_inputs(texts, names, limits)
        prescan = Prescan(any(p.deep for p, _, _ in inputs), any(p.anchors for p, _, _ in inputs))
        texts, forms = [text for _, _, text in inputs], [form for _, form, _ in inputs]
        rl, streamed = _read(prescan, texts[0] if len(texts) == 1 else None,  # several files: cut, then scanned
                             lambda: _stream_config(function_config, labels),
                             lambda reader: read_streams(texts, function_config, names, forms, reader))
        items, results = _rename(rl, prescan, limits, labels, streamed)
        outputs = render_streams(rl, items)
    except KrmfnError as exc:
        return StreamsOutcome([], exc.results)
    return StreamsOutcome(outputs, results, rl.sources, items)


def _read(prescan: Prescan, data: bytes | None, config: Callable[[], Config | None],
          cut: Callable[[ItemReader | None], ResourceList]) -> tuple[ResourceList, StreamScan | None]:
    """The input cut, and scanned as the cut goes (core.run.stream) where that reads it once on one
    process, the config is known before the cut, and nothing asks for the checks of parsed
    objects first (deep nesting, aliases: core.run.scan reads those after the cut). ``data``: the
    one text cut (None: several, each cut apart)."""
    if data is None or prescan.deep or prescan.anchors or not streams(data):
        return cut(None), None
    known = config()
    if known is None:
        return cut(None), None
    reader = StreamScan(known, data)
    return cut(reader), reader


def _stream_config(function_config: bytes | None, labels: Mapping[str, str] | None) -> Config | None:
    """A plain stream's config, read as its envelope will be (None: its error is said after the cut)."""
    try:
        envelope, _, node = stream_envelope(function_config)
        return read_config(envelope, node, labels)
    except KrmfnError:
        return None


def _rename(rl: ResourceList, prescan: Prescan, limits: Limits, labels: Mapping[str, str] | None,
            streamed: StreamScan | None = None) -> tuple[list[bytes], list[Result]]:
    """The rename itself, over objects read by either reader: each object's new text, and the
    results. ``streamed``: the objects as the cut's pass read them, used if read under this config."""
    check_parsed(rl, prescan, limits)
    config = read_config(rl.envelope, rl.function_config, labels)
    scanned = streamed.scanned(config) if streamed is not None else None
    if scanned is None:
        scanned = scan_items(rl, config, ReferenceTable.builtin(config.field_specs))
    rl.forget_identities()
    p = plan(scanned, config, rl.item_name)
    return write_items(scanned, p, config, rl.layout.after), p.results
