"""docs/options.md against the code: every function config field, flag and environment variable
the code reads has its row, with the values the code accepts, and no row names one it does not.

Why: an option added to krmfn/core/config.py and krmfn/cli/options.py but not to the page is an
option nobody finds; a row left behind after a rename sends users to a field that is an error.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from tooling import REPO

from krmfn.cli import main as cli_main
from krmfn.cli.modes import COMMANDS, MODE_LIST, MODE_TABLE, MODES
from krmfn.cli.options import ENVIRONMENT, FIELD_OF, FLAG_OF
from krmfn.core.config import AUDIT_LEVELS, FIELDS, Config

PAGE = (REPO / "docs" / "options.md").read_text()


def table_rows(heading: str) -> list[list[str]]:
    """The cells of the rows of the table whose header line starts ``heading``."""
    lines = PAGE[PAGE.index(heading):].split("\n")
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_every_function_config_field_has_a_row_and_every_row_a_field() -> None:
    rows = table_rows("| field | values | default | meaning |")
    assert sorted(r[0].strip("`") for r in rows) == sorted(FIELDS)


def test_every_field_a_flag_sets_is_in_the_flag_table_with_its_flag() -> None:
    rows = {r[1].strip("`"): r[0] for r in table_rows("| flag | field | example |")}
    for field, flag in FLAG_OF.items():
        assert field in rows and rows[field].startswith(f"`{flag}"), (field, flag)


def test_every_environment_variable_has_a_row_and_is_in_help() -> None:
    rows = [r[0].strip("`") for r in table_rows("| variable | flag | example |")]
    assert set(rows) == set(ENVIRONMENT)
    assert all(var in " ".join(MODES.split()) for var in ENVIRONMENT)
    assert set(FIELD_OF) <= set(ENVIRONMENT.values())


def test_the_audit_row_gives_the_levels_and_the_default_the_code_has() -> None:
    [row] = [r for r in table_rows("| field | values | default | meaning |") if r[0] == "`audit`"]
    assert row[1] == ", ".join(f"`{level}`" for level in AUDIT_LEVELS) and row[2] == f"`{Config().audit}`"
    assert "audit: warn                # warn (default)" in PAGE


def help_of(argv: list[str]) -> tuple[int, str]:
    """``krmfn ARGV --help``: its exit code (argparse's exit, or a mode's return) and what it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = cli_main([*argv, "--help"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue()


def test_the_mode_list_is_the_one_help_prints() -> None:
    """One source: --help prints cli.modes.MODE_TABLE, and the page shows that text as it is."""
    assert f"```text\n{MODE_LIST}```" in PAGE
    code, help_text = help_of([])
    assert code == 0 and MODE_LIST in help_text and MODE_LIST in MODES
    assert f"krmfn {{{','.join(COMMANDS)}}} ..." in help_text  # the usage line names each command
    assert [m.synopsis for m in MODE_TABLE] == [line[2:].split("  ")[0] for line in MODE_LIST.splitlines()
                                                if line.startswith("  krmfn")]


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_of_the_table_is_a_mode(command: str) -> None:
    """A command the table names runs its own mode: its --help is its own (a word no mode takes
    would be read as a FILE|DIR)."""
    code, help_text = help_of([command])
    assert code == 0 and help_text.startswith(f"usage: krmfn {command}"), help_text[:200]
