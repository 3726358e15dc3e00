"""What the rename's passes share: the scan and the config they read, the per-item record they
fill (:class:`ItemChange`), the results, and the few facts one pass leaves for a later one.

Why one record: the write (core.run.write) needs, for each item, everything every pass decided,
and a reader of a pass should see in one place what it may read and what it adds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from krmfn.core.config import Config
from krmfn.core.references.lookup import Index
from krmfn.core.run.scan import Hashed, Reference, Scanned
from krmfn.krm.resource import Resource
from krmfn.results import ResourceRef, Result
from krmfn.yaml.tree import Node

if TYPE_CHECKING:
    from krmfn.core.naming.annotate import Annotation
    from krmfn.core.naming.jobs import Rename
    from krmfn.yaml.textedit import Edit


@dataclass(repr=False, eq=False, slots=True)
class ItemChange:
    """All the write does to one item, in one record: its own new name (or its name back), the
    references it rewrites, a ``suffixJobs`` rename, and the stable-name pod-template hash."""

    hashed: Hashed | None = None
    rewrites: list[tuple[Reference, Hashed]] = field(default_factory=list)
    rename: Rename | None = None
    template: Annotation | None = None
    rotation: list[Edit] = field(default_factory=list)  # Reloader's reload annotations (core.report.rotation)


@dataclass(repr=False, eq=False)
class RenamePlan:
    """What the passes decided, for the write: a change per item, and the results in the order said."""

    changes: list[ItemChange | None]  # one per item, in input order; None: the item is untouched
    results: list[Result]

    def of(self, index: int) -> ItemChange | None:
        return self.changes[index]


@dataclass(repr=False, eq=False)
class Planning:
    """The state the passes run over, in the order core.plan.passes gives."""

    scanned: Scanned
    config: Config
    item_name: Callable[[int], str]  # how messages name an item (a file and document, or items[i])
    changes: list[ItemChange | None]  # the per-item record: None until a pass changes the item
    results: list[Result]  # in the order they are said
    # Set by one pass for the ones after it:
    index: Index = field(init=False)  # every object of a renamed kind, by name (passes.lookup)
    written: dict[tuple[str, str], str] = field(default_factory=dict)  # Secrets a controller writes (written)
    missing: set[tuple[int, str, str]] = field(default_factory=set)  # marks naming no object: said (marks)
    marked: dict[int, dict[int, None]] = field(default_factory=dict)  # objects a mark names (marks)
    trapped: dict[int, dict[ResourceRef, None]] = field(default_factory=dict)  # named from elsewhere (referrers)
    warned: set[int] = field(default_factory=set)  # hashed objects named where krmfn cannot rewrite (referrers)
    fates: list[Result] = field(default_factory=list)  # each referrer's rollout, said after the objects

    @classmethod
    def of(cls, scanned: Scanned, config: Config, item_name: Callable[[int], str] = "item {}".format) -> Planning:
        return cls(scanned, config, item_name, [None] * len(scanned.resources), list(scanned.results))

    def change(self, item: int) -> ItemChange:
        """The item's record, made on first use."""
        change = self.changes[item]
        if change is None:
            change = self.changes[item] = ItemChange()
        return change

    @property
    def empty(self) -> str:
        """The namespace an object without one is in (``defaultNamespace``)."""
        return self.config.default_namespace


def where(res: Resource, node: Node) -> str:
    """The field path of a node, for a message: the item is parsed again if its tree was dropped."""
    return res.tree.path_of(node, res.node)
