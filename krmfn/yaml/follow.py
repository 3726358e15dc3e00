"""Following keys down a tree: the reference walk's traversal, over the tree's arrays.

Why here: it is the hottest loop of a run (every workload's pod spec), so it reads the node
arrays directly, which only the YAML package does; what the keys mean (the reference table's
trie, its field specs) stays in core.references.walk.

A walk is ``(pairs, end)``: ``pairs`` the ``(key, walk)`` to follow from a map, ``end`` what a
scalar reached here stands for (None: nothing). Lists are traversed implicitly.
"""

from __future__ import annotations

from krmfn.yaml.tree import ALIAS, MAP, SCALAR, SEQ, Doc, Node

Walk = tuple  # tuple[tuple[tuple[str, Walk], ...], object]


def follow(doc: Doc, node: Node, walk: Walk) -> list[tuple[Node, object]]:
    """Every scalar the walk leads to below ``node``, with the walk's ``end`` there, in document order.

    Maps and lists reached through an alias are walked where the alias points (a scalar inside is
    found once per place that reads it); a scalar that is itself an alias is found as the alias,
    so that a change writes the alias out rather than its anchor. It builds no paths:
    :meth:`Doc.path_of` makes one when needed.
    """
    kinds, kids, keys, alias_of, get = doc.kind, doc.kids, doc.kname, doc.alias_of, doc.get
    found: list[tuple[Node, object]] = []
    stack: list[tuple[Node, Walk]] = [(node, walk)]
    pop, push = stack.pop, stack.append
    while stack:
        node, step = pop()
        kind = kinds[node]
        pairs, end = step
        if kind == ALIAS:
            target = alias_of[node]
            if target < 0 or kinds[target] == SCALAR:
                kind = SCALAR  # the alias stands for the scalar: found as itself
            else:
                node, kind = target, kinds[target]
        if kind == SCALAR:
            if end is not None:
                found.append((node, end))
        elif kind == MAP:
            children = kids[node] or []
            if len(children) > 12 or doc.merges:
                for key, sub in pairs:
                    child = get(node, key)
                    if child is not None:
                        push((child, sub))
            else:
                for child in children:
                    k = keys[child]
                    for key, sub in pairs:
                        if key == k:
                            push((child, sub))
                            break
        elif kind == SEQ:
            for child in kids[node] or ():
                push((child, step))
    found.sort(key=lambda f: f[0])  # document order, whatever the stack's order
    return found


__all__ = ["Walk", "follow"]
