"""Read a large ResourceList on two cores: a forked child reads the second half.

Why: reading items (parse, find references, hash) is most of a run, independent per item,
and Python runs it on one core. Forking shares the input with the child for free; the child
sends back only what planning needs (names, references, hashes, text edits), not text.
Writing is only splicing text by then, cheaper than a second fork would be.

The result is the same as :func:`krmfn.core.run.scan.scan` over all items: halves are merged in item
order, and the first error in item order wins. Small inputs, one-core machines and any
failure of the child itself fall back to this process alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

from krmfn.core.config import Config
from krmfn.core.plan.state import RenamePlan
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run.scan import Declined, Hashed, Reference, Scanned, scan, unread
from krmfn.core.run.write import write
from krmfn.krm.envelope import ResourceList
from krmfn.krm.resource import Resource
from krmfn.results import KrmfnError

T = TypeVar("T")

# Below this much work (:func:`cost`) a fork costs more than it saves.
MIN_PARALLEL_COST = 1 << 18
# What one node costs to read, in bytes' worth (measured on the benchmark's ConfigMaps and workloads).
NODE_BYTES = 100


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass(repr=False, eq=False)
class _Packed:
    """A half's Scanned without item texts or trees: the parent has the texts already."""

    resources: list[tuple]
    renamed: list[int]
    hashed: list[tuple]
    references: dict
    results: list
    declined: dict[int, Declined]
    families: dict[int, str]
    marks: dict
    rollouts: dict
    reads: dict
    roll_marks: dict
    immutable: set[int]
    made: dict[int, tuple[str, str]]
    templates: dict


def _pack(s: Scanned) -> _Packed:
    return _Packed(
        [(r.index, r.node, r.api_version, r.kind, r.name, r.namespace, r.metadata, r.aliases, r.meaning)
         for r in s.resources],
        [r.index for r in s.renamed],
        [(h.res.index, h.original, h.new_name, h.edits, h.strategy, h.content, h.by_select, h.made, h.made_family)
         for h in s.hashed],
        {i: [(r.node, r.name, r.site, r.namespace, r.prefix, r.unplaced, r.kind, r.in_known_kind) for r in refs]
         for i, refs in s.references.items()},
        s.results, s.declined, s.families, s.marks, s.rollouts, s.reads, s.roll_marks, s.immutable, s.made,
        s.templates)


def _unpack(p: _Packed, rl: ResourceList) -> Scanned:
    texts = rl.sources
    resources = {i: Resource(None, node, api, kind, name, ns, meta, i, texts.span(i), aliases=aliases, meaning=meaning)
                 for i, node, api, kind, name, ns, meta, aliases, meaning in p.resources}
    return Scanned(list(resources.values()), [resources[i] for i in p.renamed],
                   [Hashed(resources[i], original, new, {}, *rest) for i, original, new, *rest in p.hashed],
                   {i: [Reference(*r) for r in refs] for i, refs in p.references.items()}, p.results,
                   p.declined, p.families, p.marks, p.rollouts, p.reads, p.roll_marks, p.immutable, p.made,
                   p.templates)


def _merge(a: Scanned, b: Scanned) -> Scanned:
    """Two halves of a scan as one: ``b``'s items follow ``a``'s."""
    return Scanned(a.resources + b.resources, a.renamed + b.renamed, a.hashed + b.hashed,
                   {**a.references, **b.references}, a.results + b.results, a.declined | b.declined,
                   {**a.families, **b.families}, {**a.marks, **b.marks}, {**a.rollouts, **b.rollouts},
                   {**a.reads, **b.reads}, {**a.roll_marks, **b.roll_marks}, a.immutable | b.immutable,
                   {**a.made, **b.made}, {**a.templates, **b.templates})


class _Pipe:
    """A pipe's write end as pickle writes to it, frame by frame: the half is never held as one
    bytes object, and no file is opened (an opened file is what the hardening test forbids)."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        return len(data)


def cost(source: bytes) -> int:
    """What reading an item costs, in bytes' worth: mostly a cost per node (made, walked,
    compared), which lines and commas count, beside the bytes hashed and copied. By bytes alone a
    list that starts with its ConfigMaps (long values, few nodes) split 0.5 s against 0.8 s."""
    return len(source) + NODE_BYTES * (source.count(b"\n") + source.count(b","))


def _middle(costs: list[int]) -> int:
    """Where to cut the items so both halves cost about the same (:func:`cost`; 0 for an item
    the half does not read): item counts can be far apart."""
    half, total = sum(costs) / 2, 0
    for i, size in enumerate(costs):
        total += size
        if total >= half:
            return max(1, min(i + 1, len(costs) - 1))
    return len(costs) // 2


def _halves(n: int, mid: int, work: Callable[[int, int], T]) -> tuple[T, T | None, BaseException | None]:
    """``work(0, mid)`` here and ``work(mid, n)`` in a forked child. Returns both results;
    the second is None if the child died, and a KrmfnError it raised comes back as such."""
    import pickle  # here, for start-up time: runs too small to fork never load it

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: do the second half, send it, and leave without any cleanup
        os.close(read_end)
        try:
            try:
                payload: tuple = ("ok", work(mid, n))
            except KrmfnError as exc:
                payload = ("error", exc.results)
            pickle.dump(payload, _Pipe(write_end), protocol=pickle.HIGHEST_PROTOCOL)  # no copy of it in bytes
        finally:
            os._exit(0)
    os.close(write_end)
    received: tuple | None = None
    try:
        first = work(0, mid)
        with os.fdopen(read_end, "rb") as pipe:  # read as it is unpickled, likewise
            read_end = -1
            try:
                received = pickle.load(pipe)
            except (EOFError, pickle.UnpicklingError):  # the child died before it had sent all of it
                received = None
    finally:
        if read_end >= 0:
            os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if status != 0 or received is None:
        return first, None, None
    kind, body = received
    if kind == "error":
        return first, None, KrmfnError(body)
    return first, body, None


def _worth_it(costs: list[int]) -> bool:
    return len(costs) >= 2 and sum(costs) >= MIN_PARALLEL_COST and cores() >= 2


def scan_items(rl: ResourceList, config: Config, table: ReferenceTable) -> Scanned:
    """:func:`krmfn.core.run.scan.scan` over every item, on two processes when the items to
    parse are many: a render of CRDs and RBAC parses few of them, and is read in one."""
    plain = unread(rl, config, table)
    costs = [0 if known is not None else cost(source) for known, source in zip(plain, rl.sources)]
    if not _worth_it(costs):
        return scan(rl, config, table, plain=plain)
    n, mid = len(costs), _middle(costs)
    first, second, err = _halves(n, mid, lambda a, b: scan(rl, config, table, a, b, plain) if a == 0
                                 else _pack(scan(rl, config, table, a, b, plain)))
    if err is not None:
        raise err
    rest = _unpack(cast(_Packed, second), rl) if second is not None else scan(rl, config, table, mid, n, plain)
    return _merge(cast(Scanned, first), rest)


def write_items(scanned: Scanned, p: RenamePlan, config: Config, after: Callable[[int], bytes]) -> list[bytes]:
    """:func:`krmfn.core.run.write.write` over every item, on two processes when the changed
    items are many: each is read again (its new text, for the check before writing)."""
    costs = [0 if p.of(res.index) is None else cost(res.source) for res in scanned.resources]
    if not _worth_it(costs):
        return write(scanned, p, config, after)
    n, mid = len(costs), _middle(costs)
    first, second, err = _halves(n, mid, lambda a, b: write(scanned, p, config, after, a, b))
    if err is not None:
        raise err
    rest = second if second is not None else write(scanned, p, config, after, mid, n)
    for res in scanned.resources[mid:]:  # the child checked these: what they read as is not needed here
        res.meaning = None
    return first + rest
