"""Every object of whole inputs, each parsed and checked: what a mode that only reads (``krmfn
plan``) takes in.

Why here: such a mode reads as the rename does, through the one reader (``yaml.split`` by way of
the envelope), the input limits before and after parsing, and each object checked as a
:class:`Resource`, so that a bad render gets the sentence any other mode gives it, naming its
file and document.
"""

from __future__ import annotations

from collections.abc import Sequence

from krmfn.krm.envelope import ResourceList, item_error, read_resource_list, read_streams
from krmfn.krm.limits import Limits, check_inputs, check_parsed
from krmfn.krm.resource import Resource, read_resource
from krmfn.results import InputError, KrmfnError, in_source
from krmfn.yaml.encoding import TextForm
from krmfn.yaml.tree import YamlError, parse_item


def read_objects(texts: Sequence[bytes], names: Sequence[str | None], limits: Limits = Limits()) -> list[Resource]:
    """Every object of each input, in order: a ResourceList's items, or a plain stream's documents
    (a ``kind: List``'s entries in its place). ``names``: each input's name in messages (a file's path)."""
    out: list[Resource] = []
    for (prescan, form, text), name in zip(check_inputs(texts, names, limits), names):
        rl = read_streams([text], None, [name], [form])
        listed = _is_resource_list(rl)
        try:  # a stream's messages name its file and document; a ResourceList's, its item
            if listed:
                rl = _read_resource_list(text, form)
            check_parsed(rl, prescan, limits)
            out += [read_resource(source, i, rl.item_name(i), rl.placer(i)) for i, source in enumerate(rl.sources)]
        except KrmfnError as exc:
            raise (in_source(exc, name) if listed else exc) from None
    return out


def _is_resource_list(stream: ResourceList) -> bool:
    """Whether a stream's one document is a ResourceList (then read as one: its items are the objects)."""
    if len(stream.sources) != 1:
        return False
    try:
        doc, node = parse_item(stream.sources[0])
    except YamlError:
        return False  # reading the stream's object says what is wrong, and where
    return doc.is_map(node) and doc.scalar(doc.get(node, "kind")) == "ResourceList"


def _read_resource_list(text: bytes, form: TextForm) -> ResourceList:
    try:
        return read_resource_list(text, form)
    except YamlError as exc:
        placed = item_error(exc, text)
        raise InputError(placed.message if placed is not None else f"the input is {exc.message}") from None


__all__ = ["read_objects"]
