"""Label selectors in kubectl's text form are read as k8s.io/apimachinery reads them.

The cases come from pkg/labels/selector.go's grammar and its tests (selector_test.go:
TestSelectorParse, TestSetSelectorParser): a text kubectl refuses is an error naming the
selector; one it takes selects the objects kubectl's selector would.
"""

from __future__ import annotations

import pytest

from krmfn.core.selection.selector import LabelSelector
from krmfn.results import ConfigError, Where

AT = Where("--selector")


@pytest.mark.parametrize("text", [
    "a=b,,c", "a=b,", ",a", "x,,y", "a in (xyz),", "a in (xyz)b notin ()", "x=a||y=b", "x==a==b", "!x=a",
    "x<a", "x nott in (y)", "a in b", "a in (x", "a in (b c)", "a b", "!", "a=!b", "a===b", "(a)",
    "A_b/c=d", "x/y/z", "-a=b", "a=-b", "/a", "a/", "k" * 64, "a=" + "v" * 64,
])
def test_what_kubectl_refuses_is_an_error_naming_the_selector(text):
    with pytest.raises(ConfigError) as exc:
        LabelSelector.parse(text, AT)
    assert exc.value.message.startswith(f"--selector {text!r} is not a label selector kubectl would read (")
    assert "\n" not in exc.value.message


@pytest.mark.parametrize("text,labels,expected", [
    ("a notin ()", {"a": ""}, False),  # "()" is the set of the empty value, as in kubectl
    ("a notin ()", {"a": "x"}, True),
    ("a notin ()", {}, True),
    ("a in ()", {"a": ""}, True),
    ("a in ()", {"a": "x"}, False),
    ("x in (a,,b)", {"x": ""}, True),
    ("x in (a,)", {"x": ""}, True),
    ("x in (a,)", {"x": "b"}, False),
    ("x notin (, a)", {"x": ""}, False),
    ("x=", {"x": ""}, True),
    ("x= ,z= ", {"x": "", "z": ""}, True),
    ("x>1", {"x": "2"}, True),
    ("x>1", {"x": "1"}, False),
    ("x>1", {"x": "two"}, False),
    ("x<5,y", {"x": "-3", "y": "b"}, True),
    ("in in (in, notin)", {"in": "notin"}, True),  # keywords are plain words where a key or value stands
    ("\rx", {"x": "a"}, True),
    ("foo  in\t (abc)", {"foo": "abc"}, True),
    ("x notin\n (abc)", {"x": "abc"}, False),
    ("example.com/tier==web,!legacy", {"example.com/tier": "web"}, True),
    ("a in(b)", {"a": "b"}, True),
    ("a ", {"a": "b"}, True),
])
def test_what_kubectl_takes_selects_what_kubectl_selects(text, labels, expected):
    assert LabelSelector.parse(text, AT).matches(labels) is expected


def test_the_empty_selector_still_selects_nothing():
    assert LabelSelector.parse("", AT).requirements == ()
    assert not LabelSelector.parse(" ", AT).matches({"a": "b"})
