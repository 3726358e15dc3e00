"""Reading on two cores gives exactly what reading on one does."""

from __future__ import annotations
from tooling import REPO

import sys
from pathlib import Path

import pytest
from conftest import exit_code

from krmfn.core import parallel
from krmfn.core.function import run_resource_list

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import resource_list  # noqa: E402

BIG = resource_list(300).encode()  # 1,500 items, > 1 MiB: parallel.py forks


def _run(data: bytes, forked: bool, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1 if forked else 1 << 40)
    return run_resource_list(data)


def test_two_processes_write_what_one_writes(monkeypatch):
    one, two = _run(BIG, False, monkeypatch), _run(BIG, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 0
    assert two.stdout == one.stdout


def test_an_error_in_the_childs_half_is_reported_as_one_process_reports_it(monkeypatch):
    cut = BIG.rindex(b"\n  kind: ")  # the last item: in the child's half
    bad = BIG[:cut] + b"\n  kindx: " + BIG[cut + len(b"\n  kind: "):]
    one, two = _run(bad, False, monkeypatch), _run(bad, True, monkeypatch)
    assert exit_code(one) == exit_code(two) == 1
    assert two.results == one.results and "item 1499 has no kind" in one.results[0].message


@pytest.mark.parametrize("sizes,middle", [([1, 1], 1), ([10, 1, 1, 1, 1], 1), ([1, 1, 1, 1, 10], 4),
                                          ([3, 3, 3, 3], 2), ([5, 1, 1, 1, 1, 1], 1)])
def test_the_cut_halves_the_text_not_the_count(sizes, middle):
    assert parallel._middle(sizes) == middle
