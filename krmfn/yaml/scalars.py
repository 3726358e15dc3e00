"""Scalars as YAML text: which strings may stay plain, and double quoting that every reader agrees on.

Why: krmfn writes names, annotations and results into the user's YAML. A value must read back
as the same string to YAML 1.1 readers (kubectl, kustomize, libyaml) and 1.2 readers
(editors, other tools) alike: ``on``, ``0777`` or ``1e3`` written plain would change type, and control
characters, NEL and U+2028/U+2029 written raw would change meaning.
"""

from __future__ import annotations

import functools
import re

# Characters a double-quoted scalar must escape to mean the same to YAML 1.1 and 1.2 readers.
_MUST_ESCAPE_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"

# The two patterns below take a millisecond each to compile, and a small run (one item)
# often needs neither: each is compiled on first use.


@functools.cache
def _dquote_special() -> re.Pattern[str]:
    """What dquote rewrites: the characters YAML must escape, and the quote, backslash, newline and tab."""
    return re.compile(f'[{_MUST_ESCAPE_CHARS}"\\\\\n\t]')


@functools.cache
def _non_string_plain_re() -> re.Pattern[str]:
    """Plain scalars that a YAML 1.1 or 1.2 reader takes for something other than a string."""
    return re.compile(_NON_STRING_PLAIN)


_NON_STRING_PLAIN = (
    r"""(?x)^(?:
      ~|null|Null|NULL
     |y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
     |[-+]?[0-9][0-9_]*                            # decimal int; go-yaml reads 0800 and 09 as numbers too
     |0o[0-7]+                                     # octal (1.2; 1.1's 0777 is above)
     |[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+           # hex, binary
     |[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?   # float: a digit on one side of the dot
     |[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)         # 1e3
     |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    )$"""
)

# Plain scalars every YAML reader takes for null (tree, verify and split read them so).
NULLS = frozenset(("", "~", "null", "Null", "NULL"))

# The characters such a scalar can start with: others need no regular expression.
_NON_STRING_FIRST = frozenset("~nNyYtTfFoO0123456789+-.")


def non_string_plain(text: str) -> bool:
    return bool(text) and text[0] in _NON_STRING_FIRST and bool(_non_string_plain_re().match(text))


_TIMESTAMP = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
# What go-yaml v3 (kustomize) resolves as a timestamp when plain (kubectl's go-yaml v2 keeps it text).
_GO_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}"
                           r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?")


def go_timestamp(text: str) -> bool:
    """Whether go-yaml v3, as kustomize reads (and hashes) a plain scalar, takes it for a timestamp."""
    return bool(text) and text[0].isdigit() and bool(_GO_TIMESTAMP.fullmatch(text))
# No commas: a plain scalar inside a flow map or list would end at one.
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./=+-]*")  # fullmatch: "$" would match before a final "\n"


def plain_safe(text: str) -> bool:
    """Whether ``text`` can be written unquoted and still read back as this same string."""
    return bool(_PLAIN_SAFE.fullmatch(text)) and not non_string_plain(text) and not _TIMESTAMP.match(text)


def scalar(value: object) -> str:
    """A scalar as YAML text that reads back as the same value (strings stay strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return text if plain_safe(text) else dquote(text)


_DQUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    short = _DQUOTE_ESCAPES.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def yaml_json(data: object) -> str:
    """JSON text that YAML readers read as the same data: ``json.dumps`` with each character
    YAML must escape written as ``\\u`` and every other one as itself. Why not ASCII-only JSON:
    it writes a character past U+FFFF as two escaped surrogates, which libyaml refuses."""
    import json  # here, for start-up time: only JSON envelopes need it

    return _yaml_json_special().sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(data, ensure_ascii=False))


@functools.cache
def _yaml_json_special() -> re.Pattern[str]:
    return re.compile(f"[{_MUST_ESCAPE_CHARS}]")


def dquote(text: str) -> str:
    """A double-quoted YAML scalar meaning ``text`` to every reader."""
    if text.isprintable():  # no control, format or separator characters: only " and \\ to escape
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return '"' + _dquote_special().sub(_escape, text) + '"'
