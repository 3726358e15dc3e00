"""yaml.follow on its own: the reference walk's traversal finds exactly the scalars its keys lead
to, through lists and aliases, in document order."""

from __future__ import annotations

from krmfn.yaml.follow import Walk, follow
from krmfn.yaml.tree import Doc, parse_item


def down(*keys: str, end: object) -> Walk:
    """The walk that follows ``keys`` (lists crossed on the way) to a scalar standing for ``end``."""
    walk: Walk = ((), end)
    for key in reversed(keys):
        walk = (((key, walk),), None)
    return walk


DEPLOYMENT = b"""- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web  # the name is not a reference
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom:
          - configMapRef:
              name: app-config

          - secretRef:
              name: app-secret
        - name: sidecar
          envFrom:
          - configMapRef: {name: sidecar-config}
"""

CONFIG_MAP_REFS = down("spec", "template", "spec", "containers", "envFrom", "configMapRef", "name", end="cm")


def found(doc: Doc, node, walk: Walk) -> list[tuple[str | None, object]]:
    return [(doc.scalar(n), end) for n, end in follow(doc, node, walk)]


def test_a_walk_crosses_lists_and_finds_every_name_in_document_order():
    doc, node = parse_item(DEPLOYMENT)
    assert found(doc, node, CONFIG_MAP_REFS) == [("app-config", "cm"), ("sidecar-config", "cm")]


def test_one_walk_with_two_branches_finds_both_kinds_each_with_its_end():
    doc, node = parse_item(DEPLOYMENT)
    env_from = ((("configMapRef", ((("name", ((), "cm")),), None)), ("secretRef", ((("name", ((), "secret")),), None))),
                None)
    walk = ((("spec", ((("template", ((("spec", ((("containers", ((("envFrom", env_from),), None)),), None)),),
                                       None)),), None)),), None)
    assert found(doc, node, walk) == [("app-config", "cm"), ("app-secret", "secret"), ("sidecar-config", "cm")]


def test_a_key_the_walk_does_not_name_is_not_followed():
    doc, node = parse_item(DEPLOYMENT)
    assert found(doc, node, down("metadata", "name", end=None)) == []  # no end: a name, not a reference
    assert found(doc, node, down("spec", "template", "spec", "volumes", "configMap", "name", end="cm")) == []


def test_a_map_reached_through_an_alias_is_walked_where_the_alias_points():
    doc, node = parse_item(b"- kind: Pod\n  x-common: &env\n    configMapRef: {name: shared}\n"
                           b"  spec:\n    containers:\n    - envFrom:\n      - *env\n    - envFrom:\n      - *env\n")
    names = found(doc, node, down("spec", "containers", "envFrom", "configMapRef", "name", end="cm"))
    assert names == [("shared", "cm"), ("shared", "cm")]  # once per place that reads it


def test_a_scalar_alias_is_found_as_the_alias_not_its_anchor():
    doc, node = parse_item(b"- kind: Pod\n  metadata: {name: &n shared}\n  spec:\n    volumes:\n"
                           b"    - configMap: {name: *n}\n")
    (hit, end), = follow(doc, node, down("spec", "volumes", "configMap", "name", end="cm"))
    assert end == "cm" and doc.alias_of[hit] >= 0  # the alias node, so a change writes the alias out


def test_a_map_with_merge_keys_is_read_through_them():
    doc, node = parse_item(b"- base: &b {name: from-base}\n  ref:\n    <<: *b\n")
    assert found(doc, node, down("ref", "name", end="cm")) == [("from-base", "cm")]


def test_a_wide_map_is_walked_by_lookup_with_the_same_result():
    keys = "".join(f"    k{i}: v{i}\n" for i in range(20))
    doc, node = parse_item(b"- data:\n" + keys.encode() + b"    name: wanted\n")
    assert found(doc, node, down("data", "name", end="cm")) == [("wanted", "cm")]
