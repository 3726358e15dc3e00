"""docs/gc.md's sample dry run is what gc prints for the fixture it describes.

The page shows `krmfn gc -n shop --keep 2` against a cluster, some rows left out; the cluster is
tests/fixtures/gc/cluster.json, at the fixture's clock. Every row shown must be a row gc prints
(same ages, verdicts and reasons), in gc's order, and the summary must count as gc counts.
"""

from __future__ import annotations

import re

from tooling import REPO

from krmfn.cli import gc as gc_cli

PAGE = REPO / "docs" / "gc.md"
SAMPLE = re.compile(r"says why \(`krmfn gc -n shop --keep 2`, on the saved List as of its `--now`; some rows left "
                    r"out\):\n\n```text\n(.*?)```", re.S)
COMMAND = "krmfn gc -f tests/fixtures/gc/cluster.json -n shop --keep 2 --now 2024-06-01T12:00:00Z"


def test_the_sample_dry_run_is_what_gc_prints_for_the_fixture(capsys) -> None:
    match = SAMPLE.search(PAGE.read_text())
    assert match, "docs/gc.md no longer holds the sample dry run this test checks"
    assert f"\n{COMMAND}\n" in PAGE.read_text(), "the command the page gives is not the one whose output it shows"
    *rows, summary = match.group(1).splitlines()
    code = gc_cli.main(["-f", str(REPO / "tests" / "fixtures" / "gc" / "cluster.json"), "-n", "shop", "--keep", "2",
                        "--now=2024-06-01T12:00:00Z"])
    printed, _ = capsys.readouterr()
    assert code == 0
    *lines, last = printed.splitlines()
    assert [line for line in lines if line in rows] == rows, "a row the page shows is not one gc prints, or moved"
    counts = re.search(r"(\d+) of (\d+) krmfn ConfigMaps would be deleted", last)
    assert counts and summary == f"dry run: {counts.group(0)}; run again with --apply to delete them"
