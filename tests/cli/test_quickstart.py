"""The README's first command: the bundled example gives its checked-in output, twice over."""

from pathlib import Path

from conftest import exit_code, run
from tooling import REPO

EXAMPLE = REPO / "examples" / "quickstart"


def test_quickstart_output_is_the_checked_in_one_and_stable():
    expected = (EXAMPLE / "expected-output.yaml").read_text()
    first = run((EXAMPLE / "input.yaml").read_text())
    assert exit_code(first) == 0
    assert first.text == expected
    assert run(first.text).text == expected
