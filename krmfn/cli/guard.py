"""Where results and errors become stderr lines and exit codes: the shell's one place for it.

Why one place: every mode (the function, files, streams, Helm, plugins, gc) must answer a
bad input the same way: one plain sentence per error, no traceback, a documented exit code.
Every line krmfn writes to stderr starts with ``krmfn:``, whichever mode wrote it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from krmfn.results import NOTHING_RENAMED, ConfigError, GcError, KrmfnError, Result

OK = 0  # success
FAILED = 1  # the function reported an error result (nothing was written); gc: a deletion failed
USAGE = 2  # bad arguments, options, files or live state, nothing piped in; or an internal error
PREFIX = "krmfn"  # of every stderr line, in every mode
_ONE_LINE = str.maketrans({"\n": "\\n", "\r": "\\r"})  # a message is one line, whatever it holds


def report(results: list[Result], verbose: bool) -> None:
    """Errors and warnings on stderr, one line each; infos too when verbose, and always the one
    that says a run renamed nothing (a run that does nothing must not look like success). With -v,
    each result's detail (a snippet to paste) follows as lines of its own."""
    for r in results:
        if r.severity != "info" or verbose or r.topic == NOTHING_RENAMED:
            say(str(r))
            if verbose and r.detail:
                for line in r.detail.splitlines():
                    sys.stderr.write(f"{PREFIX}:   {line}\n")


def say(message: str) -> None:
    """One line, whatever the message holds: a line break in it is written as ``\\n``."""
    sys.stderr.write(f"{PREFIX}: {message.translate(_ONE_LINE)}\n")


def guarded(run: Callable[[], int], debug: bool) -> int:
    """Run a mode: krmfn's errors as one sentence each, bugs as one sentence.

    ConfigError and GcError (bad arguments, options, files, live state) exit USAGE; other
    KrmfnErrors exit FAILED; an OSError names its file; anything else is a bug (USAGE, and a
    traceback with --debug).
    """
    try:
        return run()
    except (ConfigError, GcError) as exc:
        say(exc.message)
        return USAGE
    except KrmfnError as exc:
        report(exc.results, verbose=False)
        return FAILED
    except BrokenPipeError:
        return _reader_left()
    except OSError as exc:
        say(f"{exc.filename or 'a file'}: {exc.strerror}")
        return USAGE
    except Exception as exc:
        if debug:
            raise
        say(f"internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it")
        return USAGE


def _reader_left() -> int:
    """stdout's reader closed it (``krmfn ... | head -1``): what it read was what it wanted, so no
    message and exit 0, as other Unix tools end; stdout goes to /dev/null so that Python's own
    flush at exit does not fail on the closed pipe."""
    import os  # here, for start-up time: only a closed pipe needs it

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return OK
