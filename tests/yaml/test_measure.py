"""yaml.measure on its own: the exact depth and alias growth the input limits decide on."""

from __future__ import annotations

from krmfn.yaml.measure import alias_growth, too_deep
from krmfn.yaml.tree import Doc, parse_item


def test_the_first_node_past_the_limit_is_the_one_named():
    doc, node = parse_item(b"- a:\n    b:\n      c: [d]\n")
    # the item at level 1: a's map 2, b's map 3, c's list 4, d 5
    assert too_deep(doc, node, 1, 5) is None
    deep = too_deep(doc, node, 1, 4)
    assert deep is not None and doc.scalar(deep) == "d"


def test_depth_counts_from_the_level_it_is_given():
    doc, node = parse_item(b"- {a: {b: 1}}\n")
    assert too_deep(doc, node, 1, 3) is None
    assert too_deep(doc, node, 2, 3) is not None


def test_a_tree_without_aliases_does_not_grow():
    assert alias_growth(Doc.parse(b"a: [1, 2]\nb: {c: d}\n"))[0] == 0


def test_an_alias_of_a_map_adds_the_map_once_per_alias():
    # the anchored map is 3 nodes (itself and two values: keys are names, not nodes); each alias,
    # one node in the tree, stands for those 3
    doc = Doc.parse(b"base: &b {x: 1, y: 2}\none: *b\ntwo: *b\n")
    assert alias_growth(doc)[0] == 2 * (3 - 1)


def test_aliases_of_aliases_multiply_as_a_billion_laughs_does():
    doc = Doc.parse(b"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")
    # each list is 3 nodes in the tree; expanded, b's is 1 + 2 * 3 = 7 and c's 1 + 2 * 7 = 15
    assert alias_growth(doc)[0] == (7 - 3) + (15 - 3)
