"""Limits on what the function will read, so hostile input fails fast with a clear message.

Each limit is documented in the README; each message names the limit and the flag that raises it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .envelope import FunctionError, Result

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    max_input_bytes: int = 256 * MIB


def check_input(data: bytes, limits: Limits) -> None:
    """Refuse input over the size limit before parsing any of it."""
    if len(data) > limits.max_input_bytes:
        raise FunctionError(Result(
            f"the input is {len(data) / MIB:.1f} MiB, over the limit of {limits.max_input_bytes / MIB:.0f} MiB; "
            "raise it with --max-input-size if this is expected", "error"))
