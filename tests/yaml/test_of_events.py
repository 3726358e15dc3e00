"""A tree made from the cut's own pass (Doc.of_events) is the tree of parsing the object's text
again (parse_item), array for array: over the YAML test suite as streams and as ResourceList
items, over the repository's fixtures and examples, and over each benchmark shape."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tooling import REPO
from yaml_suite import cases_or_skip

from krmfn.yaml.split import ItemReader, cut
from krmfn.yaml.tree import Doc, YamlError, item_node, parse_item

sys.path.insert(0, str(REPO / "benchmarks"))
import bench_shapes

ARRAYS = ("kind", "val", "start", "end", "stop", "style", "plain", "tag", "anchor", "up", "kname", "kstart", "kplain",
          "kids", "alias_of", "key_aliases", "may_alias", "merges", "text", "source")


class Compare(ItemReader):
    """Builds each kept object's tree from its events and holds it equal to a parse of its slot."""

    def __init__(self) -> None:
        self.compared = 0
        self.wrong: list[str] = []

    def wants(self, entry: int) -> bool:
        return True

    def read(self, index, at, span, ident, events, text, base, dash) -> None:
        if events is None:
            return
        source = span.read()
        try:
            again, node = parse_item(source)
        except YamlError as exc:
            try:
                Doc.of_events(events, text, source, base, dash)
            except YamlError:
                return
            self.wrong.append(f"slot {index} {source!r}: read alone it is refused ({exc}), from the pass it is not")
            return
        made = Doc.of_events(events, text, source, base, dash)
        self.compared += 1
        for name in ARRAYS:
            if getattr(made, name) != getattr(again, name):
                self.wrong.append(f"slot {index} {source[:60]!r}: {name} {getattr(made, name)} != "
                                  f"{getattr(again, name)}")
                return
        if item_node(made)[1] != node:
            self.wrong.append(f"slot {index}: the object is node {item_node(made)[1]}, read alone node {node}")


def _compare(data: bytes, stream: bool) -> Compare:
    reader = Compare()
    try:
        cut(data, stream=stream, reader=reader)
    except YamlError:
        pass
    assert not reader.wrong, "\n".join(reader.wrong[:5])
    return reader


def _as_items(slots: list[bytes]) -> bytes:
    """The objects as a ResourceList's block items, indented under ``- ``."""
    body = b"".join(b"- " + s.replace(b"\n", b"\n  ").rstrip(b" ") + (b"" if s.endswith(b"\n") else b"\n")
                    for s in slots)
    return b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + body


def test_over_the_yaml_test_suite():
    compared = 0
    for case in cases_or_skip():
        data = case.yaml.encode()
        if b"\r" in data or data.startswith(b"\xef\xbb\xbf") or b"%TAG" in data:
            continue  # the input's form is taken off before the cut; a %TAG directive is refused before it
        compared += _compare(data, True).compared
        try:
            slots = cut(data, stream=True).items
        except YamlError:
            continue
        compared += _compare(_as_items(slots), False).compared
        compared += _compare(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + b"".join(
            b"  - " + s.replace(b"\n", b"\n    ").rstrip(b" ") + (b"" if s.endswith(b"\n") else b"\n")
            for s in slots), False).compared
    assert compared > 300


@pytest.mark.parametrize("path", sorted(p for p in [*REPO.glob("tests/fixtures/**/*.yaml"),
                                                    *REPO.glob("examples/**/*.yaml")] if p.is_file()),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_over_the_fixtures_and_examples(path: Path):
    data = path.read_bytes().replace(b"\r\n", b"\n")
    if b"kind: ResourceList" in data:
        _compare(data, False)
    else:
        _compare(data, True)


@pytest.mark.parametrize("shape", sorted(bench_shapes.SHAPES))
def test_over_the_benchmark_shapes(shape):
    """Every shape's objects come from the pass, but a kind: List's entries: each is parsed again."""
    make, argv = bench_shapes.SHAPES[shape]
    compared = _compare(make(40).encode(), bool(argv)).compared
    assert compared == 0 if shape in ("List-items", "kubectl-List") else compared > 0
