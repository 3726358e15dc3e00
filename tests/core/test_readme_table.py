"""The docs' table of kinds and paths (docs/references.md) is generated from the reference table:
they cannot drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tooling import REPO

from krmfn.core.references.table import BUILTIN

sys.path.insert(0, str(REPO / "tools"))
from reference_table import markdown_table  # noqa: E402  (a script under tools/, not in the package)

README = REPO / "docs" / "references.md"
START, END = "<!-- reference-table:start -->\n", "<!-- reference-table:end -->"


def readme_table() -> str:
    text = README.read_text()
    return text[text.index(START) + len(START):text.index(END)]


def test_readme_table_is_the_generated_one():
    assert readme_table() == markdown_table(), (
        "docs/references.md's reference table is out of date: paste the output of `python tools/reference_table.py` "
        "between the reference-table markers")


def test_python_tools_reference_table_prints_it():
    out = subprocess.run([sys.executable, "tools/reference_table.py"], capture_output=True, text=True, check=True,
                         cwd=REPO)
    assert out.stdout == markdown_table() and out.stderr == ""


def test_every_row_of_the_table_is_in_it():
    table = markdown_table()
    for entry in BUILTIN:
        assert f"| {entry.kind} |" in table
        if entry.summary is not None:  # one of many alike (a CRD's selectors): named once, by what they are
            assert entry.summary in table
        elif entry.path:
            assert f"`{entry.path}`" in table
