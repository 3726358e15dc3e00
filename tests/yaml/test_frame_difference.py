"""The proof before writing reads an output as the pieces it is written in, never joined whole:
wherever the pieces break, it finds exactly the first byte that differs."""

from __future__ import annotations

import random

import pytest

from krmfn.core.run.function import run_resource_list
from krmfn.yaml import split
from krmfn.yaml.verify import frame_difference

DATA = b"head\n---\nitem one\n---\nitem two\n# tail\n"
CUTS = [(9, 18, b"item ONE\n"), (22, 31, b"item 2\n")]
GOOD = b"head\n---\nitem ONE\n---\nitem 2\n# tail\n"


def _pieces(text: bytes, rng: random.Random) -> list[bytes]:
    """The text broken at random places, some pieces empty."""
    marks = sorted(rng.randint(0, len(text)) for _ in range(rng.randint(0, 8)))
    return [text[a:b] for a, b in zip([0, *marks], [*marks, len(text)])]


@pytest.mark.parametrize("seed", range(40))
def test_the_output_as_written_reads_as_its_input_with_the_cuts_made(seed):
    assert frame_difference(DATA, [(0, len(DATA))], CUTS, [_pieces(GOOD, random.Random(seed))]) is None


@pytest.mark.parametrize("seed", range(40))
def test_the_first_byte_that_differs_is_found_wherever_the_pieces_break(seed):
    rng = random.Random(seed)
    at = rng.randrange(len(GOOD))
    bad = GOOD[:at] + b"X" + GOOD[at + 1:]
    assert frame_difference(DATA, [(0, len(DATA))], CUTS, [_pieces(bad, rng)]) == (at, 0)


@pytest.mark.parametrize("bad,at", [(GOOD[:-1], len(GOOD) - 1), (GOOD + b"\n", len(GOOD)), (b"", 0)],
                         ids=["a byte short", "a byte over", "empty"])
def test_an_output_that_ends_early_or_late_differs(bad, at):
    assert frame_difference(DATA, [(0, len(DATA))], CUTS, [_pieces(bad, random.Random(1))]) == (at, 0)


def test_a_resource_list_assembled_wrong_is_refused_before_output(monkeypatch):
    """render proves the ResourceList's own pieces (the route that writes them one by one)."""
    data = (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
            b"  metadata:\n    name: a\n    annotations: {krmfn.dev/content-hash: \"true\"}\n  data: {k: v}\n")
    assert not run_resource_list(data).failed
    real = split.Cut.assemble
    monkeypatch.setattr(split.Cut, "assemble", lambda self, cuts: [p.replace(b"items:", b"items: ") for p in
                                                                    real(self, cuts)])
    done = run_resource_list(data)
    assert done.failed and "would not be its input" in done.results[0].message
