"""krmfn.document.mend through Doc.parse: what krmfn reads is what the YAML spec says, or a refusal.

Why: rapidyaml 0.15.2 misreads some valid scalars (A to E in krmfn.document.quoted). Every value
krmfn hashes, names or writes comes from Doc, so these tests read through Doc and compare with
the spec's value (the repros' values are PyYAML's and kustomize's too).
"""

from __future__ import annotations

import random

import pytest
import ryml
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmfn.document.data import to_data
from krmfn.document.tree import Doc, Unreadable, YamlError


def read(text: str) -> object:
    doc = Doc.parse(text.encode())
    return to_data(doc, doc.documents()[0])


def ryml_reads(text: str) -> object:
    tree = ryml.parse_in_arena(text.encode())
    node = tree.first_child(tree.root_id())
    return bytes(tree.val(node)).decode()


# (YAML for one value, the spec's value): each misread by rapidyaml alone.
REPROS = [
    pytest.param('"x\\n\\L\\Ly"', "x\n\u2028\u2028y", id="A-newline"),
    pytest.param('"x\\r\\L\\Ly"', "x\r\u2028\u2028y", id="A-cr"),
    pytest.param('"\\\\a\\P\\P"', "\\a\u2029\u2029", id="A-backslash"),
    pytest.param('"C:\\\\new\\L\\L"', "C:\\new\u2028\u2028", id="A-windows-path"),
    pytest.param('"\\x0a\\L\\L\\L\\L"', "\n" + "\u2028" * 4, id="A-hex-newline"),
    pytest.param("a\t\n    b", "a b", id="B-plain"),
    pytest.param('"\t\n    b"', " b", id="B-double"),
    pytest.param("' \t\n    b'", " b", id="B-single"),
    pytest.param('"a\\\n\n    b"', "a\nb", id="C"),
    pytest.param('"a\n    \\ \n    b"', "a   b", id="E-escaped-space-line"),
]


@pytest.mark.parametrize(("scalar", "want"), REPROS)
def test_misread_values_are_read_as_the_spec_says(scalar: str, want: str) -> None:
    text = f"k: {scalar}\n"
    assert ryml_reads(text) != want, "rapidyaml reads this right now: the repro is stale"
    assert read(text) == {"k": want}
    assert yaml.safe_load(text.replace("\t\n", " \n") if scalar.startswith("a\t") else text) == {"k": want}


@pytest.mark.parametrize(("scalar", "want"), REPROS)
@pytest.mark.parametrize("context", ["- {}\n", "[{}]\n", "{{k: {}}}\n", "m:\n  - x: {}\n"])
def test_misreads_are_mended_in_every_context(scalar: str, want: str, context: str) -> None:
    text = context.format(scalar.replace("\n", "\n      "))
    got = read(text)
    flat = got if not isinstance(got, dict) or "m" not in got else got["m"][0]
    assert flat in ([want], {"k": want}, {"x": want})


def test_a_misread_key_is_mended() -> None:
    assert read('"x\\n\\L\\L": v\n') == {"x\n\u2028\u2028": "v"}


def test_literal_backslash_l_in_other_styles_is_kept() -> None:
    """A text with A in it is parsed with ``\\L`` written ``\\_``: every other style that holds the
    two characters gets them back."""
    text = ('a: "x\\n\\L\\L"\nb: |\n  sed -E "s/(.*)/\\L\\1/"\n  printf "\\n"\nc: \'\\P\'\nd: C:\\Logs\\n\\L\n'
            'e: >\n  x\\L\n\n  y\\P\n')
    assert read(text) == yaml.safe_load(text)
    assert read(text)["b"] == 'sed -E "s/(.*)/\\L\\1/"\nprintf "\\n"\n'


def test_tab_after_an_indicator_is_refused_with_line_and_column() -> None:
    """D: rapidyaml reads ``k:<TAB>v`` as the one scalar ``'k:\\tv'``; krmfn refuses it, saying where."""
    with pytest.raises(Unreadable) as err:
        read("a: 1\nm:\n  k:\tv\n")
    assert (err.value.line, err.value.col) == (3, 5)
    assert "tab right after ':'" in err.value.message and "write a space" in err.value.message
    with pytest.raises(Unreadable):
        read("-\t-1\n")


@pytest.mark.parametrize(("text", "want"), [
    ("a: 'k:\tv'\n", "k:\tv"), ('a: "k:\tv"\n', "k:\tv"), ("a: |\n  all:\tx\n", "all:\tx\n"), ("a: b\t# c\n", "b"),
])
def test_a_tab_after_a_colon_inside_a_string_is_content(text: str, want: str) -> None:
    assert read(text) == {"a": want}


def test_an_alias_used_as_a_key_is_its_anchor_text() -> None:
    """D of the issue: ``*b : value`` is the key ``shared-key``, not the text ``*b``."""
    assert read("base: &b shared-key\nm:\n  *b : value\n") == {"base": "shared-key", "m": {"shared-key": "value"}}
    assert read("m:\n  &k a: 1\n  n: {*k : 2}\n") == {"m": {"a": "1", "n": {"a": "2"}}}
    with pytest.raises(YamlError, match="alias of a map"):
        read("base: &b {x: 1}\nm:\n  *b : value\n")


@pytest.mark.parametrize(("text", "aliases"), [
    ("k: |\n  make && make install\n", False),
    ('k: "a &&b"\n', False),
    ("k: a && b\n", False),
    ("k: &a x\nl: *a\n", True),
])
def test_an_ampersand_is_an_anchor_only_where_the_tree_has_an_alias(text: str, aliases: bool) -> None:
    assert Doc.parse(text.encode()).may_alias is aliases


# --- every style three emitters write, read back -------------------------------------------------

SPECIAL = "\u2028\u2029\t\n\r\\\"' \xa0ab:#-&*!|>{}[],\U0001F600"
TEXTS = st.text(st.sampled_from(SPECIAL) | st.characters(codec="utf-8", blacklist_categories=("Cs",)), max_size=40)
RAW_BREAKS = ("\u2028", "\u2029", "\x85")  # refused raw before parsing (document.limits), so not read here


def _pyyaml(value: object, style: str | None, width: int, unicode: bool) -> str:
    return yaml.dump(value, default_style=style, width=width, allow_unicode=unicode)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, style=st.sampled_from(['"', "'", None, "|", ">"]), width=st.integers(5, 60),
       unicode=st.booleans())
def test_pyyaml_values_read_back(text: str, style: str | None, width: int, unicode: bool) -> None:
    value = {"k": text, "l": [text, {"n": text}]}
    source = _pyyaml(value, style, width, unicode)
    if any(b in source for b in RAW_BREAKS) or yaml.safe_load(source) != value:
        return  # refused before parsing, or PyYAML cannot read its own output
    assert read(source) == value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, width=st.integers(5, 60), seed=st.integers(0, 1 << 30))
def test_ruamel_values_read_back(text: str, width: int, seed: int) -> None:
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import (
        DoubleQuotedScalarString,
        FoldedScalarString,
        LiteralScalarString,
        SingleQuotedScalarString,
    )

    wrap = random.Random(seed).choice([str, DoubleQuotedScalarString, SingleQuotedScalarString,
                                        LiteralScalarString, FoldedScalarString])
    dumper = YAML()
    dumper.width = width
    out = io.StringIO()
    try:
        dumper.dump({"k": wrap(text)}, out)
    except Exception:
        return  # ruamel refuses some texts in some styles
    source = out.getvalue()
    try:
        if any(b in source for b in RAW_BREAKS) or YAML(typ="safe").load(source) != {"k": text}:
            return
    except Exception:
        return  # ruamel cannot read its own output
    try:
        assert read(source) == {"k": text}
    except Unreadable as exc:  # F: refused, never read wrong
        assert "indentation indicator" in exc.message and not text.strip(" ")


def test_a_blank_block_scalar_with_an_indentation_indicator_is_refused() -> None:
    """F: ``|2-`` then a line of three spaces is ``' '`` (ruamel writes a lone space so); rapidyaml
    reads it as empty. Refused; the same header over empty lines is read right."""
    assert ryml_reads("k: |2-\n   \n") == ""
    with pytest.raises(Unreadable, match="indentation indicator") as err:
        read("a: b\nk: |2-\n   \n")
    assert err.value.line == 2
    assert read("k: |2+\n\n") == {"k": "\n"}
    assert read("k: |2\n   x\n") == {"k": " x\n"}


@pytest.mark.parametrize("raw", ["\u2028", "\u2029", "\x85"])
def test_the_escape_advised_for_a_raw_line_separator_is_read_right(raw: str) -> None:
    """The error for a raw U+2028 names an escape to write instead; written so (after a newline
    escape, where rapidyaml misreads ``\\L``), it reads as that character."""
    import re

    from krmfn.document.limits import Limits, check_input
    from krmfn.results import InputError

    with pytest.raises(InputError) as err:
        check_input(f"k: a{raw}b\n".encode(), Limits())
    escape = re.search(r'\("(\\[^"]+)"\)', err.value.message)
    assert escape is not None, err.value.message
    assert read(f'k: "x\\n{escape.group(1) * 2}y"\n') == {"k": f"x\n{raw * 2}y"}
