"""How an opted-in object makes its referrers roll: a new name, or a hash in their pod templates.

- ``suffix`` (the default): the object is renamed ``<name>-<hash>`` and made immutable; every
  reference follows, so a change is a new pod template and old versions stay for rollbacks.
- ``annotation`` (the stable-name mode): the object keeps its name and stays mutable; every
  referrer's pod template carries ``krmfn.dev/config-hash``, a digest over the content of every
  such object it references, so a change still rolls it. No rollback safety (a rollback reads
  today's content) and no ``immutable``: for objects others name from outside the render, or
  that a program reads by a fixed name.

The function config's ``strategy`` chooses for every object; an object's own
``krmfn.dev/strategy`` annotation wins. Both can be used in one render.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from krmfn.core.config import STRATEGIES, Config, Strategy
from krmfn.core.naming import hashing
from krmfn.krm.resource import Resource
from krmfn.results import InputError

STRATEGY = "krmfn.dev/strategy"  # on an object: its strategy, over the function config's
CONFIG_HASH = "krmfn.dev/config-hash"  # in a referrer's pod template: what the annotation strategy writes


def strategy_of(res: Resource, config: Config) -> Strategy:
    """The object's own annotation, else the function config's ``strategy``."""
    value = res.annotations.get(STRATEGY)
    if value is None:
        return config.strategy
    if value not in STRATEGIES:
        raise InputError(f"annotation {STRATEGY} is {value!r}; use one of {', '.join(STRATEGIES)}", res.ref,
                         f"metadata.annotations[{STRATEGY}]")
    return Strategy(value)


def content_digest(encoded: str) -> str:
    """The whole sha256 of an object's hash input (core.references.kinds): what a referrer's hash covers."""
    return hashlib.sha256(encoded.encode("utf-8", "surrogatepass")).hexdigest()


def config_hash(objects: Iterable[tuple[str, str, str, str]], algorithm: str) -> str:
    """The pod-template annotation's value for one referrer: a digest over (kind, namespace,
    name, content digest) of every stable-name object it references, sorted, so that it
    changes exactly when one of them does and not with the order of the references. The same
    alphabet and length as the name suffix (``algorithm``)."""
    return hashing.digest(algorithm, "\n".join(sorted({"\t".join(o) for o in objects})))


__all__ = ["CONFIG_HASH", "STRATEGY", "config_hash", "content_digest", "strategy_of"]
