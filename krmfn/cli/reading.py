"""Reading input without holding more than the size limit: stdin, and the files a run names or a
directory walk finds.

Why bounded here: the limit is checked on the bytes read, so reading everything first let 300 MB
(or ``/dev/zero``) into memory before the refusal. Every reader stops at the limit plus one byte,
which is enough for the check to refuse. A walk reads only regular files (a FIFO named ``*.yaml``
would block, ``/dev/zero`` never ends); a file named on the command line may be a pipe
(``krmfn <(helm template ...)``), still bounded.
"""

from __future__ import annotations

import fcntl
import os
import stat
from typing import BinaryIO

from krmfn.results import ConfigError


def read_limited(stream: BinaryIO, limit: int) -> bytes:
    """At most ``limit + 1`` bytes: over the limit is known, and never more is in memory."""
    return stream.read(limit + 1)


def read_file(path: str, explicit: bool, limit: int) -> bytes | None:
    """A file's bytes, at most ``limit + 1``; None for what a walk found that is not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)  # a FIFO's open must not wait
    except OSError as exc:
        if not explicit and os.path.islink(path) and not os.path.exists(path):
            return None  # a dangling link a walk found: no file, like a FIFO or a device
        raise ConfigError(f"cannot read {path} ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            if not explicit:
                return None
            if stat.S_ISDIR(mode):
                raise ConfigError(f"{path} is neither a file nor a directory")
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        try:
            return read_limited(f, limit)
        except OSError as exc:
            raise ConfigError(f"cannot read {path} ({exc.strerror})") from None


def read_files(found: list[tuple[str, bool]], limit: int) -> tuple[list[tuple[str, bytes, bool]], list[str]]:
    """Each (path, bytes, explicit), all files together bounded by the limit (they are one input),
    and the paths a walk found that are not regular files."""
    read: list[tuple[str, bytes, bool]] = []
    not_regular: list[str] = []
    left = limit
    for path, explicit in found:
        text = read_file(path, explicit, max(left, 0))
        if text is None:
            not_regular.append(path)
            continue
        read.append((path, text, explicit))
        left -= len(text)
        if left < 0:  # over: the run refuses on what it has, reading no further
            break
    return read, not_regular
