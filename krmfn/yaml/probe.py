"""Whether a text holds Kubernetes objects, decided by reading it as YAML.

Why by parsing and not by looking at lines: a Deployment written as JSON, in flow style, with
quoted keys or indented is as much an object to kubectl as a block-style one, and a directory
walk that skipped it renamed its ConfigMap and left its reference stale. One libyaml event pass
over the top of each document suffices: it stops at the first object found.
"""

from __future__ import annotations

import yaml
from yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    MappingStartEvent,
    ScalarEvent,
)

from krmfn.yaml.tree import _error, yaml_events

IDENTITY = frozenset(("apiVersion", "kind"))


def holds_objects(text: str) -> bool:
    """True when some document of ``text`` is a map whose ``apiVersion`` and ``kind`` are
    non-empty scalars. Raises YamlError (with its line and column) for text that does not parse
    before an object is found."""
    depth = 0
    in_root = want_key = False
    key: str | None = None
    seen: set[str] = set()
    try:
        for ev in yaml_events(text):
            if isinstance(ev, DocumentStartEvent):
                depth, in_root, seen = 0, False, set()
                continue
            if isinstance(ev, CollectionStartEvent):
                if depth == 0 and isinstance(ev, MappingStartEvent):
                    in_root = want_key = True
                elif in_root and depth == 1:
                    want_key = True  # a value that is a collection: the next root event is a key
                depth += 1
                continue
            if isinstance(ev, CollectionEndEvent):
                depth -= 1
                continue
            if not in_root or depth != 1:
                continue
            if want_key:  # a key of the root map
                key = ev.value if isinstance(ev, ScalarEvent) else None
                want_key = False
                continue
            want_key = True
            if key in IDENTITY and isinstance(ev, ScalarEvent) and ev.value.strip():
                seen.add(key)
                if seen == IDENTITY:
                    return True
    except yaml.YAMLError as exc:
        raise _error(exc) from None
    return False
