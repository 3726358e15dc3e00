"""What the input limits measure in a tree: how deep it nests, and how much its aliases grow it.

Why here: both walk the tree's node arrays by number, which only the YAML package does
(krm.limits decides what is too much, and says so).
"""

from __future__ import annotations

from krmfn.yaml.tree import ALIAS, MAP, SEQ, STREAM, Doc, Node


def too_deep(doc: Doc, top: Node, top_level: int, limit: int) -> Node | None:
    """The first node below ``top`` (at level ``top_level``) deeper than ``limit``, or None."""
    up = doc.up
    level = {up[top]: top_level - 1}
    for n in range(top, max(doc.stop[top], top + 1)):
        d = level[up[n]] + 1
        if d > limit:
            return Node(n)
        level[Node(n)] = d
    return None


def alias_growth(doc: Doc) -> tuple[int, tuple[Node, str] | None]:
    """How many nodes the tree's aliases add when expanded. Linear: nodes are sized in the order
    they close (an anchored node closes before any alias of it), each once."""
    n_nodes = len(doc.kind)
    kind, kids, stop, alias_of = doc.kind, doc.kids, doc.stop, doc.alias_of
    closing = sorted(range(n_nodes), key=lambda n: (stop[n] if kind[n] in (MAP, SEQ, STREAM) else n + 1, -n))
    size = [1] * n_nodes
    for n in closing:
        if kind[n] == ALIAS:
            target = alias_of[Node(n)]
            size[n] = size[target] if target >= 0 else 1
        elif kids[n]:
            size[n] = 1 + sum(size[c] for c in kids[n] or ())
    return size[0] - n_nodes, None


__all__ = ["alias_growth", "too_deep"]
