"""The argument parser every mode with arguments uses, ``krmfn gc`` included.

Why one class: a bad argument is answered the same way whichever mode was asked for: one
sentence on stderr, prefixed ``krmfn:`` like every other line krmfn writes there, pointing at
that mode's ``--help``, and exit code 2. ``-V``/``--version`` are on every parser.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from krmfn import __version__
from krmfn.cli.guard import PREFIX, USAGE


class Parser(argparse.ArgumentParser):
    """Argument errors as one sentence on stderr, not a usage block."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.add_argument("-V", "--version", action="version", version=f"krmfn {__version__}")

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{PREFIX}: {message} (see {self.prog} --help)\n")


def comma_list(text: str) -> list[str]:
    """A repeatable flag's value, ``a,b`` or ``a``: its items, blanks dropped."""
    return [v.strip() for v in text.split(",") if v.strip()]
