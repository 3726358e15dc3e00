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
        self.exit(USAGE, f"{PREFIX}: {message}{self._nearest(message)} (see {self.prog} --help)\n")

    def _nearest(self, message: str) -> str:
        """For a misspelt flag (``--retain``), the flag probably meant: one that it begins, else of the
        closest spellings the one that begins most like it. argparse names only the argument it did not know."""
        if not message.startswith("unrecognized arguments: "):
            return ""
        given = next((a.split("=", 1)[0] for a in message.split()[2:] if a.startswith("--")), None)
        if given is None:
            return ""
        flags = sorted(f for f in self._option_string_actions if f.startswith("--"))
        import difflib  # here, for start-up time: only a bad argument needs it

        def shared(flag: str) -> int:  # how many of its first characters it shares with what was given
            return next((i for i, (a, b) in enumerate(zip(flag, given)) if a != b), min(len(flag), len(given)))

        # of the spellings alike, the one that begins most like it (--retain: --retention, not --rotation)
        close = difflib.get_close_matches(given, flags, n=3)
        close.sort(key=lambda f: -shared(f))  # stable: ties keep difflib's order
        meant = [f for f in flags if f.startswith(given)] or close
        return f"; did you mean {meant[0]}?" if meant else ""


def comma_list(text: str) -> list[str]:
    """A repeatable flag's value, ``a,b`` or ``a``: its items, blanks dropped."""
    return [v.strip() for v in text.split(",") if v.strip()]
