"""Secrets a controller fills: never renamed, never made immutable.

Why: the token controller, cert-manager and the operators that fill an empty Secret write to it by
the name it has, again and again (a token on creation, a certificate at every renewal). A renamed
Secret is one they never heard of, and an immutable one cannot be written: hashing it breaks the
controller. What it holds is not in the render anyway, so no hash of it could roll its readers
(docs/rotation.md says what does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from krmfn.core.naming.retention import OPT_IN
from krmfn.results import InputError, Result

if TYPE_CHECKING:
    from krmfn.core.config import Config
    from krmfn.krm.resource import Resource

TOKEN = "kubernetes.io/service-account-token"
CERT_MANAGER = "cert-manager.io/"


def filled_by(res: Resource) -> tuple[str, bool] | None:
    """Why a Secret's content is a controller's to write, and whether it changes outside Git with
    it (an empty Opaque Secret may be filled by an operator, or may stay empty: no rotation is
    assumed); None: its content is the render's."""
    doc = res.tree
    node = doc.get(res.node, "type")
    type_ = doc.string(node) if node is not None and not doc.is_null(node) else None
    if node is not None and not doc.is_null(node) and type_ is None:
        return None  # not text: the hash says so, naming the field
    if type_ == TOKEN:
        return f"it is a service-account token (type {TOKEN}), which the token controller fills", True
    mark = next((key for key in res.annotations if key.startswith(CERT_MANAGER)), None)
    if mark is not None:
        return f"cert-manager fills it (it carries the annotation {mark})", True
    if all(_empty(res, key) for key in ("data", "stringData")):
        typed = type_ not in (None, "Opaque")
        return f"it holds no data (type {type_ or 'Opaque'}), so a controller or an operator fills it", typed
    return None


def _empty(res: Resource, key: str) -> bool:
    doc = res.tree
    node = doc.get(res.node, key)
    return node is None or doc.is_null(node) or (doc.is_map(node) and next(iter(doc.items(node)), None) is None)


def explicit(res: Resource, original: str, config: Config) -> str | None:
    """How the user named this object to be hashed, one by one (its own annotation, ``names``)."""
    if res.annotations.get(OPT_IN) == "true":
        return f'its own annotation {OPT_IN}: "true"'
    if original in config.names:
        return f"{config.label('names')}"
    return None


def refuse(res: Resource, why: str, how: str) -> InputError:
    return InputError(f"is opted in by {how}, but {why}: a renamed or immutable copy is one it never writes. Remove "
                      "the opt-in; to roll its readers when it changes, see docs/rotation.md", res.ref)


def left_alone(res: Resource, why: str, what: str = "written") -> Result:
    """The info that says why select or a selector did not hash it (``what``: what a copy would not be)."""
    return Result(f"left alone: {why}; a renamed or immutable copy would be one it never {_VERB[what]}",
                  "info", res.ref)


_VERB = {"written": "writes", "renamed": "reads"}
