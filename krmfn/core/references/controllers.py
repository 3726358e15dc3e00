"""What a controller that makes Secrets from Git allows krmfn to rename (docs/secret-controllers.md).

Why apart from core.references.kinds: these are the kinds' checks (``RenamedKind.check``), which read the
object; kinds stays data that every run imports. Each check raises one sentence naming the
object and the field, and saying how to make it renameable. No value is ever named.

- SealedSecret (sealed-secrets): a strict-scope one is encrypted with its namespace *and name*
  as the OAEP label (``EncryptionLabel``), and the controller unseals with the object's own
  metadata: renamed, it no longer decrypts. Only ``sealedsecrets.bitnami.com/namespace-wide`` or
  ``cluster-wide`` on the SealedSecret's own ``metadata.annotations`` allow a new name.
- ExternalSecret (External Secrets Operator): ``creationPolicy: Merge`` writes into a Secret some
  other tool made, and ``None`` makes none: a new name would be a Secret nobody creates.
"""

from __future__ import annotations

from krmfn.krm.resource import Resource
from krmfn.results import ReferenceProblem

SEALED_SCOPES = ("sealedsecrets.bitnami.com/namespace-wide", "sealedsecrets.bitnami.com/cluster-wide")
# ExternalSecret creation policies under which the operator creates the Secret it names.
CREATING = ("Owner", "Orphan", "CreateOrMerge")


def sealed_secret(res: Resource) -> None:
    """A SealedSecret may be renamed only if it was sealed namespace-wide or cluster-wide."""
    if any(res.annotations.get(key) == "true" for key in SEALED_SCOPES):
        return
    raise ReferenceProblem(
        f"SealedSecret {res.name} is sealed with the strict scope (the default), which encrypts it with its name "
        "and namespace, so under a new name the controller could not decrypt it; reseal it with kubeseal --scope "
        "namespace-wide (which writes sealedsecrets.bitnami.com/namespace-wide: \"true\" on it), or keep its name "
        "with krmfn.dev/strategy: annotation", res.ref, "metadata.annotations")


def external_secret(res: Resource) -> None:
    """An ExternalSecret may be renamed only if the operator creates the Secret it names."""
    doc = res.tree
    target = doc.path(res.node, "spec", "target")
    if target is not None and doc.get(doc.resolve(target), "manifest") is not None:
        raise ReferenceProblem(f"ExternalSecret {res.name} makes another kind of object (spec.target.manifest), not a "
                               "Secret: krmfn renames only ExternalSecrets whose target is a Secret; opt it out with "
                               'krmfn.dev/content-hash: "false"', res.ref, "spec.target.manifest")
    policy = doc.scalar(doc.path(res.node, "spec", "target", "creationPolicy")) or "Owner"
    if policy in CREATING:
        return
    why = ("writes into a Secret that another tool creates" if policy == "Merge" else "creates no Secret"
           if policy == "None" else "is not one krmfn knows")
    raise ReferenceProblem(f"ExternalSecret {res.name} has creationPolicy {policy}, which {why}: a new name would be "
                           "a Secret nobody creates. Use creationPolicy Owner or Orphan, keep its name with "
                           'krmfn.dev/strategy: annotation, or opt it out with krmfn.dev/content-hash: "false"',
                           res.ref, "spec.target.creationPolicy")


# What ``krmfn plan`` compares (changes.changeplan): the keys of the Secret each makes, as (section, value),
# the value never shown; ALL (``*``) stands for a change whose keys the object does not list.
ALL = "*"


def _json(value: object) -> str:
    import json  # here, for start-up time: only plans need it

    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def made_keys(kind: str, data: dict) -> dict[str, tuple[str, str]]:
    """The keys a plan compares for an object of a secret controller's kind, from its plain data."""
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    out: dict[str, tuple[str, str]] = {}
    if kind == "SealedSecret":
        template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
        assert isinstance(template, dict)
        sealed = spec.get("encryptedData")
        for key, value in (sealed.items() if isinstance(sealed, dict) else ()):
            out[str(key)] = ("data", _json(value))
        templated = template.get("data")
        for key, value in (templated.items() if isinstance(templated, dict) else ()):
            out[str(key)] = ("data", _json([value, sealed]))  # a template may read every sealed value
        if spec.get("data") is not None:  # the legacy blob: which keys it holds is sealed too
            out[ALL] = ("data", _json(spec["data"]))
        return out
    if kind == "ExternalSecret":
        rest = dict(spec)
        for entry in rest.pop("data", None) or ():
            if isinstance(entry, dict) and isinstance(entry.get("secretKey"), str):
                out[entry["secretKey"]] = ("data", _json(entry))
        target = rest.get("target")
        if isinstance(target, dict):
            rest["target"] = {k: v for k, v in target.items() if k != "name"}  # the rename writes it
        out[ALL] = ("data", _json(rest))  # the store, dataFrom, the template: any key may change
        return out
    return {ALL: ("data", _json(spec))}  # a SecretProviderClass: what it mounts


def made_rest(kind: str, data: dict) -> object:
    """What else decides the Secret a plan compares, apart from the keys (a SealedSecret's type)."""
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    template = spec.get("template") if kind == "SealedSecret" and isinstance(spec, dict) else None
    if not isinstance(template, dict):
        return None
    return {k: v for k, v in template.items() if k not in ("data", "metadata")}


__all__ = ["ALL", "CREATING", "SEALED_SCOPES", "external_secret", "made_keys", "made_rest", "sealed_secret"]
