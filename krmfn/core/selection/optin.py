"""Who opts an object in: its own annotation, the function config, or a mark on a workload.

Precedence, so that a user always has the last word on their own object:

1. the object's own ``krmfn.dev/content-hash``: ``"true"`` opts it in, ``"false"`` out, whatever
   else says;
2. the function config: ``select: all``, ``names`` or ``selector``, for the ``kinds`` it lists;
3. a mark on a workload that names the object (``krmfn.dev/content-hash: "true"`` on the
   workload's own metadata, and, when ``honor`` lists them, Reloader's annotations and the
   Kyverno autoreload policy's), for the ``kinds`` the function config lists.

Marks are read here as data (:class:`Mark`); core.plan.marks applies them, since a workload may come
after the objects it names.
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.config import HONORED, Config
from krmfn.core.naming.retention import FAMILY, IGNORE_WARNINGS, OPT_IN, ORIGINAL_NAME
from krmfn.core.naming.strategy import CONFIG_HASH, STRATEGY
from krmfn.core.references.kinds import REFERENCE_KINDS, RenamedKind
from krmfn.core.selection.selector import DNS_SUBDOMAIN
from krmfn.krm.resource import Resource
from krmfn.results import InputError, ResourceRef, Result

RELOADER = "reloader.stakater.com"
RELOADER_IGNORE = f"{RELOADER}/ignore"  # on an object: Reloader leaves it alone
RELOADER_MATCH = f"{RELOADER}/match"  # on an object: found by a workload's search mark
AUTORELOAD = "autoreloader.thaum.xyz/configmap"

# Reloader's marks on a workload's metadata (stakater/Reloader README):
# annotation -> the kinds of the objects it reaches among those the workload references.
RELOADER_AUTO = {
    f"{RELOADER}/auto": ("ConfigMap", "Secret"),
    f"configmap.{RELOADER}/auto": ("ConfigMap",),
    f"secret.{RELOADER}/auto": ("Secret",),
}
RELOADER_SEARCH = f"{RELOADER}/search"
# annotation -> the kind of the objects its comma-separated list names outright.
RELOADER_LISTS = {
    f"configmap.{RELOADER}/reload": "ConfigMap",
    f"secret.{RELOADER}/reload": "Secret",
}
# Every workload annotation a mark is read from, by the ``honor`` entry that enables it.
MARK_KEYS: dict[str, tuple[str, ...]] = {
    "krmfn": (OPT_IN,),
    "reloader": (*RELOADER_AUTO, RELOADER_SEARCH, *RELOADER_LISTS),
    "autoreload": (AUTORELOAD,),
}
# What a byte search of an item's text looks for before any mark is read.
MARK_BYTES: dict[str, bytes] = {"krmfn": b"krmfn.dev/content-hash", "reloader": RELOADER.encode(),
                                "autoreload": AUTORELOAD.encode()}

# The tools whose marks roll a workload whether or not krmfn honours them (core.report.rollpath):
# the tools krmfn may honour, since it honours exactly the marks that roll.
ROLL_TOOLS = HONORED

# krmfn's own keys, where each belongs: any other key under OWN is a slip (a warning names the
# nearest), and every value under it must be a string (an unquoted ``true`` is an error).
OWN = "krmfn.dev/"
OWN_BYTES = OWN.encode()
OWN_KEYS: dict[str, tuple[str, ...]] = {
    "metadata.annotations": (OPT_IN, ORIGINAL_NAME, STRATEGY, IGNORE_WARNINGS),
    "metadata.labels": (FAMILY,),
    "the pod template's annotations": (CONFIG_HASH,),
}


@dataclass(frozen=True)
class Mark:
    """One mark on a workload: the objects of ``kinds`` it references (``name`` None; with
    ``matching``, only those that carry Reloader's match annotation), or the one it names."""

    annotation: str  # the annotation that says so, for messages
    kinds: tuple[str, ...]
    name: str | None = None
    matching: bool = False
    tool: str = "krmfn"  # "reloader" marks pass over objects with reloader.stakater.com/ignore

    def describe(self) -> str:
        value = f": {self.name}" if self.name is not None else ""
        return f"{self.annotation}{value}"


def own_choice(res: Resource, kind: RenamedKind, original: str, config: Config) -> bool | None:
    """True or False when the object or the function config decides; None when only a
    workload's mark can still opt it in."""
    value = res.annotations.get(OPT_IN)
    if value == "true":
        return True
    if value == "false":
        return False
    if value is not None:
        raise InputError(f'annotation {OPT_IN} is {value!r}; use "true" or "false"', res.ref,
                         f"metadata.annotations[{OPT_IN}]")
    if kind.kind in config.kinds and (config.select == "all" or original in config.names
                                      or config.selector.matches(res.labels)):
        return True
    return None


def may_mark(source: bytes, config: Config) -> bool:
    """Whether an item's text can hold a mark at all: a byte search, before any tree work."""
    return any(MARK_BYTES[tool] in source for tool in ("krmfn", *config.honor))


def _true(value: str | None) -> bool:
    return value == "true"  # Reloader and the policy read anything else as false


def _names(res: Resource, key: str) -> list[str]:
    """A Reloader list (``a,b``): each name once, a repeat is an error (which one was meant twice?)."""
    names: list[str] = []
    for name in (n.strip() for n in res.annotations[key].split(",")):
        if not name:
            continue
        if name in names:
            raise InputError(f"annotation {key} names {name} twice; name each object once", res.ref,
                             f"metadata.annotations[{key}]")
        names.append(name)
    return names


def read_marks(res: Resource, config: Config) -> list[Mark]:
    """The marks on a workload's own metadata, for the tools ``honor`` lists (krmfn's always)."""
    annotations = res.annotations
    marks: list[Mark] = []
    value = annotations.get(OPT_IN)
    if value is not None and value not in ("true", "false"):
        raise InputError(f'annotation {OPT_IN} is {value!r}; use "true" (or remove it)', res.ref,
                         f"metadata.annotations[{OPT_IN}]")
    if value == "true":
        marks.append(Mark(OPT_IN, REFERENCE_KINDS))  # every renamed kind it references
    if "reloader" in config.honor:
        auto = [Mark(key, kinds, tool="reloader") for key, kinds in RELOADER_AUTO.items()
                if _true(annotations.get(key))]
        marks += auto
        if not auto and _true(annotations.get(RELOADER_SEARCH)):  # auto wins over search
            marks.append(Mark(RELOADER_SEARCH, ("ConfigMap", "Secret"), matching=True, tool="reloader"))
        for key, kind in RELOADER_LISTS.items():
            if key in annotations:
                marks += [Mark(key, (kind,), name, tool="reloader") for name in _names(res, key)]
    if "autoreload" in config.honor and annotations.get(AUTORELOAD, "").strip():
        marks.append(Mark(AUTORELOAD, ("ConfigMap",), annotations[AUTORELOAD].strip(), tool="autoreload"))
    return marks


def valid_name(name: str) -> bool:
    return len(name) <= 253 and DNS_SUBDOMAIN.fullmatch(name) is not None


def misplaced(template_annotations: dict[str, str], config: Config) -> list[str]:
    """Mark annotations written in a pod template, where no tool reads them (the commonest slip)."""
    keys = [k for tool in ("krmfn", *config.honor) for k in MARK_KEYS[tool]]
    return [k for k in keys if k in template_annotations]


def skips(mark: Mark, target: Resource) -> str | None:
    """Why a mark passes over an object it reaches, in a few words; None when it opts it in."""
    annotations = target.annotations
    if mark.tool == "reloader" and _true(annotations.get(RELOADER_IGNORE)):
        return f"it carries {RELOADER_IGNORE}: \"true\""
    if mark.matching and not _true(annotations.get(RELOADER_MATCH)):
        return f"it lacks {RELOADER_MATCH}: \"true\""
    return None


def describe(referrer: ResourceRef, mark: Mark) -> str:
    return f"{referrer} ({mark.describe()})"


def check_own_keys(res: Resource, template: tuple[str, ...] | None, results: list[Result]) -> None:
    """krmfn's own annotations and labels (``krmfn.dev/...``) on an object, and in its pod
    template at ``template`` (the metadata path): a key krmfn does not know gets a warning naming
    the nearest it does (a misspelt opt-in would otherwise be ignored without a word); a value
    that is not a string is an error saying to quote it (kubectl refuses it, so passing it on
    would only move the failure to the apply)."""
    doc = res.tree
    places = [("metadata.annotations", doc.get(res.metadata, "annotations")),
              ("metadata.labels", doc.get(res.metadata, "labels"))]
    if template is not None:
        places.append(("the pod template's annotations", doc.path(res.node, *template, "annotations")))
    for where, node in places:
        if node is None or not doc.is_map(node := doc.resolve(node)):
            continue
        path = f"{'.'.join(template)}.annotations" if where.startswith("the pod") and template else where
        for key, child in doc.items(node):
            if not key.startswith(OWN):
                continue
            if doc.string(child) is None:
                raise InputError(_unquoted(doc.scalar(child) if doc.is_scalar(child) else None, key, where), res.ref,
                                 f"{path}[{key}]")
            known = OWN_KEYS[where]
            if key not in known and not (template is not None and key == OPT_IN):  # misplaced() says that one
                results.append(Result(_unknown(key, where), "warning", res.ref, f"{path}[{key}]"))


def _unquoted(text: str | None, key: str, where: str) -> str:
    what = "labels" if where == "metadata.labels" else "annotations"
    if text is None or text in ("", "~", "null", "Null", "NULL"):
        return f"{key} has no value; Kubernetes {what} are strings: write one in quotes"
    lead = (f"{key} is {text} unquoted, which YAML reads as a boolean or a number, and Kubernetes {what} are "
            "strings (kubectl refuses it)")
    if key == OPT_IN and text not in ("true", "false"):
        return f'{lead}: use "true" or "false", in quotes'
    return f'{lead}: quote it, {key}: "{text}"'



def _unknown(key: str, where: str) -> str:
    """A key under krmfn.dev/ that krmfn does not read there: where it belongs, or the nearest key."""
    for place, keys in OWN_KEYS.items():
        if key in keys:
            return f"{key} belongs in {place}, not in {where}, where krmfn does not read it: move it"
    import difflib  # here, for start-up time: only a slip needs it

    every = [k for keys in OWN_KEYS.values() for k in keys]
    # Compared after the shared prefix, which would make every key look alike.
    nearest = difflib.get_close_matches(key[len(OWN):], [k[len(OWN):] for k in every], n=1, cutoff=0.6)
    hint = f"did you mean {OWN}{nearest[0]}?" if nearest else f"krmfn's keys are {', '.join(every)}"
    return f"{key} is not a key krmfn knows, and krmfn ignores it: {hint}"
