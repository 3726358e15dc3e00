"""The scan as the cut's pass goes: read the input once.

The cut (yaml.split) reads every object's events to find where it starts and ends; an object
whose bytes can matter used to be parsed again, alone, by the scan. Here the scan reads each
object as the pass closes it, from the events the pass kept (yaml.tree's ``Doc.of_events``,
held equal to a parse of the object's text), and its tree is dropped before the next one: one
parse, and memory that follows one object.

The scan needs the function config, which a ResourceList carries after its items (kpt and
kustomize write it so). :func:`guess` reads it first, from the text after the last line that
starts ``functionConfig:``; the run uses what was read here only if the config read from the
envelope after the cut is the same. Anything this reader cannot settle alone (an error in an
object, a value over a limit, another config) leaves the scan to core.run.scan, after the
cut, which then says what it says with every item's name: the result is the same either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from krmfn.core.config import Config, read_config
from krmfn.core.references.walk import ReferenceTable
from krmfn.core.run import parallel
from krmfn.core.run.parallel import cost
from krmfn.core.run.scan import Scanned, Scanner
from krmfn.krm.resource import read_resource, resource_of
from krmfn.results import KrmfnError
from krmfn.yaml.split import ItemReader, ItemText
from krmfn.yaml.tree import Doc, item_node

_FUNCTION_CONFIG = b"functionConfig:"


class StreamScan(ItemReader):
    """Scans every object as the cut hands it over, under ``config``; ``scanned`` is None when
    something is left for the scan after the cut to say."""

    def __init__(self, config: Config, data: bytes):
        self.config = config
        self.scanner = Scanner(config, ReferenceTable.builtin(config.field_specs), data)
        self.failed = False

    def wants(self, entry: int) -> bool:
        return not self.failed

    def keeps(self, kind: str) -> bool:
        return self.scanner.may_parse(kind)

    def read(self, index: int, entry: int, source: ItemText, ident: dict[str, str] | None, events: list | None,
             text: str, base: int, dash: int | None) -> None:
        if self.failed:
            return
        scanner = self.scanner
        plain = scanner.unread(source, index, ident)
        if plain is not None:
            scanner.skip(plain)
            return
        try:
            if events is None:  # a List's entry, a kind seldom parsed, a text that reads otherwise alone
                res = read_resource(source, index)
            else:
                doc, node = item_node(Doc.of_events(events, text, source.read(), base, dash))
                res = resource_of(doc, node, source, index, f"item {index}")
            scanner.add(res)
        except KrmfnError:  # said by the scan after the cut, with the item's name and place
            self.failed = True

    def scanned(self, config: Config) -> Scanned | None:
        """The scan of every item, if it was read under ``config`` (the one read from the envelope
        after the cut) and nothing went wrong; else None, and the scan after the cut reads them."""
        return None if self.failed or config != self.config else self.scanner.out


def streams(data: bytes) -> bool:
    """Whether to scan as the cut goes: where the scan after it would run on one process (one
    core, or too little to read for a fork to pay). Where it would fork, a second core parsing
    half the objects again beats one process reading each object once: libyaml's pass cannot be
    split, and a second pass in a forked child to read its half from costs more than it saves
    (docs/performance.md, "Read once")."""
    return cost(data) < parallel.MIN_PARALLEL_COST or parallel.cores() < 2


def guess(data: bytes, labels: Mapping[str, str] | None) -> Config | None:
    """The function config of a ResourceList, read before its items: none when the text never
    says ``functionConfig``, else the one after the last line that starts with it (kpt and
    kustomize write it after the items). None when that does not read as one."""
    if _FUNCTION_CONFIG[:-1] not in data:  # not even as a JSON key ("functionConfig":)
        return read_config(Doc.parse(b"{}"), None, labels)
    at = data.rfind(b"\n" + _FUNCTION_CONFIG)
    tail = data[at + 1:]
    if at < 0 or b"\nitems:" in tail:  # not after the items: the scan waits for the envelope
        return None
    try:
        doc = Doc.parse(tail)
        [root] = doc.documents()
        node = doc.get(root, "functionConfig") if doc.is_map(root) else None
        if node is None:
            return None
        return read_config(doc, None if doc.is_null(node) else node, labels)
    except (KrmfnError, ValueError):
        return None


__all__ = ["StreamScan", "guess", "streams"]
