"""User field specs, in kustomize's ``nameReference`` syntax, so existing configurations work.

Why a module of its own: only runs whose function config has ``fieldSpecs`` read it (see
:func:`krmfn.core.config.parse_fields`, field ``fieldSpecs``). The grammar is kustomize's: ``/``-separated keys, ``\\/``
for a slash inside a key, an optional ``[]`` after a list's key, ``group``/``version``/``kind``
selecting the referrer (empty: any), and ``create`` (meaningless for references) accepted.
Two krmfn keys make the table's conditions available to users: ``when`` (keys beside the
name and their values, e.g. ``{kind: ConfigMap}``) and ``namespaceFrom``.
"""

from __future__ import annotations

import re

from krmfn.core.references.fieldspec import FieldSpec, Has, split_path
from krmfn.core.references.kinds import BY_KIND
from krmfn.krm.data import DocumentCount, load_one
from krmfn.results import Where, shown
from krmfn.yaml.tree import YamlError

# The top-level keys of a kustomize ``configurations:`` file (TransformerConfig); only
# nameReference is read here, so that such a file can be pasted as it is.
KUSTOMIZE_CONFIG_KEYS = ("namePrefix", "nameSuffix", "namespace", "commonLabels", "labels", "templateLabels",
                         "volumeClaimTemplateLabels", "commonAnnotations", "nameReference", "varReference",
                         "images", "replicas")
SPEC_KEYS = ("kind", "group", "version", "path", "create", "when", "namespaceFrom")
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_GROUP = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
_VERSION = re.compile(r"[a-z0-9]+")
_KEY = re.compile(r"[^\[\]]+(\[\])?")


# Limits on what a user's field specs may hold, each refused in one sentence: a path deeper than any
# object krmfn reads (krm.limits.DEFAULT_MAX_DEPTH), and more specs than any configuration needs.
MAX_PATH = 64
MAX_SPECS = 10_000


def parse_field_specs(value: object, at: Where) -> list[FieldSpec]:
    """User field specs, as kustomize writes them; only references to the kinds krmfn renames
    (ConfigMaps, and Secrets in a nameReference entry of ``kind: Secret``) are kept.

    Accepts a list of field specs (``[{kind, group?, version?, path}]``), a kustomize
    ``nameReference`` list (``[{kind: ConfigMap, fieldSpecs: [...]}]``), a whole kustomize
    configuration file (``{nameReference: [...], commonLabels: [...], ...}``), or any of these
    as YAML text (kpt's ``key=value`` ConfigMap form). Raises ConfigError (``at``) naming the bad spec.
    """
    if isinstance(value, str):
        value = _yaml(value, at)
    if value is None:
        return []
    if isinstance(value, dict):
        if "fieldSpecs" in value and "kind" not in value and len(value) == 1:  # {fieldSpecs: [...]}
            return parse_field_specs(value["fieldSpecs"], at)
        if "fieldSpecs" in value:
            return _name_reference(value, "nameReference entry", at)
        unknown = [k for k in value if k not in KUSTOMIZE_CONFIG_KEYS]
        if unknown:
            raise at.error(f"has unknown key {unknown[0]!r}: expected a list of field specs, a nameReference "
                             f"list, or a kustomize configuration ({', '.join(KUSTOMIZE_CONFIG_KEYS)})")
        entries = value.get("nameReference") or []
        if not isinstance(entries, list):
            raise at.error("nameReference must be a list of {kind, version, fieldSpecs}")
        return [s for i, e in enumerate(entries) for s in _name_reference(e, f"nameReference[{i}]", at)]
    if not isinstance(value, list):
        raise at.error("must be a list of field specs ({kind, group, version, path}), "
                         "a kustomize nameReference list, or a kustomize configuration")
    if len(value) > MAX_SPECS:
        raise at.error(f"has {len(value):,} field specs, over the limit of {MAX_SPECS:,}")
    specs: list[FieldSpec] = []
    for i, entry in enumerate(value):
        if isinstance(entry, dict) and "fieldSpecs" in entry:
            specs += _name_reference(entry, f"nameReference entry {i}", at)
        else:
            specs.append(_field_spec(entry, f"entry {i}", at))
    return specs


def _yaml(text: str, at: Where) -> object:
    try:
        return load_one(text.encode(), empty=True)
    except YamlError as exc:
        raise at.error(f"is {exc.message}") from None
    except DocumentCount as exc:
        raise at.error(f"holds {exc.count} YAML documents; give one list") from None


def _name_reference(entry: object, where: str, at: Where) -> list[FieldSpec]:
    """One ``{kind, group?, version?, fieldSpecs}`` entry: its specs if it is about a kind krmfn renames."""
    if not isinstance(entry, dict):
        raise at.error(f"{where} is not a map {{kind, version, fieldSpecs}}")
    unknown = [k for k in entry if k not in ("kind", "group", "version", "fieldSpecs")]
    if unknown:
        raise at.error(f"{where} (kind {entry.get('kind')}) has unknown key {unknown[0]!r}")
    if not entry.get("kind"):
        raise at.error(f"{where} has no kind (the kind its fieldSpecs refer to, e.g. ConfigMap)")
    kind = entry["kind"]
    renamed = BY_KIND.get(kind) if isinstance(kind, str) else None
    group, version = entry.get("group") or "", entry.get("version") or ""
    if renamed is None or group not in ("", renamed.group) or (version and f"{renamed.group}/{version}".lstrip("/")
                                                               not in (renamed.api_version, *renamed.other_versions)):
        return []  # references to Services, Deployments, ...: not krmfn's business
    specs = entry.get("fieldSpecs") or []
    if not isinstance(specs, list):
        raise at.error(f"{where} (kind {kind}): fieldSpecs must be a list")
    if len(specs) > MAX_SPECS:
        raise at.error(f"{where} (kind {kind}) has {len(specs):,} field specs, over the limit of {MAX_SPECS:,}")
    # A SealedSecret or an ExternalSecret is named as the Secret it makes: its fieldSpecs name that Secret.
    return [_field_spec(spec, f"{where} fieldSpecs[{j}]", at, renamed.reference_kind) for j, spec in enumerate(specs)]


def _field_spec(entry: object, where: str, at: Where, refers_to: str = "ConfigMap") -> FieldSpec:
    """One field spec; every error names it (where it sits, its kind and path)."""
    if not isinstance(entry, dict):
        raise at.error(f"{where} is not a map {{kind, group, version, path}}")
    kind, path = entry.get("kind"), entry.get("path")
    name = f"{where} (kind {kind or '?'}, " + (f"path {shown(path)})" if path else "no path)")
    unknown = [k for k in entry if k not in SPEC_KEYS]
    if unknown:
        raise at.error(f"{name} has unknown key {unknown[0]!r}; a field spec has {', '.join(SPEC_KEYS)}")
    if not isinstance(kind, str) or not kind:
        raise at.error(f"{name} needs a kind (the referring object's kind, e.g. Rollout)")
    if not _KIND.fullmatch(kind):
        hint = ""
        if "/" in kind or "." in kind:
            hint = "; give the group and version as their own keys: {kind: Rollout, group: argoproj.io}"
        raise at.error(f"{name}: {kind!r} is not a kind (letters and digits, e.g. Rollout){hint}")
    group, version = entry.get("group"), entry.get("version")
    for key, value, pattern in (("group", group, _GROUP), ("version", version, _VERSION)):
        if value not in (None, "") and not (isinstance(value, str) and pattern.fullmatch(value)):
            raise at.error(f"{name}: {key} {value!r} is not an API {key} (e.g. "
                             f"{'argoproj.io' if key == 'group' else 'v1alpha1'})")
    if not isinstance(path, str) or not path:
        raise at.error(f"{name} needs a path, such as spec/template/spec/volumes/configMap/name")
    segments = split_path(path)
    if len(segments) > MAX_PATH:  # no object krmfn reads nests deeper (krm.limits), so none could match
        raise at.error(f"{name}: the path has {len(segments)} segments, over the limit of {MAX_PATH} (no object "
                       "krmfn reads nests deeper)")
    keys = []
    for key in segments:
        if not _KEY.fullmatch(key):
            problem = "an empty segment" if not key else f"the segment {key!r}"
            raise at.error(f"{name}: the path has {problem}; a path is keys separated by /, lists are "
                             "traversed without an index (containers/envFrom, not containers[0]/envFrom)")
        keys.append(key.removesuffix("[]"))  # kustomize's optional list marker
    if entry.get("create") not in (None, "true", "false", True, False):
        raise at.error(f"{name}: create must be true or false")
    when = entry.get("when") or {}
    if not isinstance(when, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in when.items()):
        raise at.error(f"{name}: when must map keys beside the name to values, e.g. {{kind: ConfigMap}}")
    ns_from = entry.get("namespaceFrom")
    if ns_from is not None and not (isinstance(ns_from, str) and ns_from):
        raise at.error(f"{name}: namespaceFrom must name a key beside the name, e.g. namespace")
    # kustomize: an empty group or version selects any.
    return FieldSpec(kind, tuple(keys), group or None, version or None,
                     tuple(Has(k, v, listed=True) for k, v in when.items()), ns_from, maps=True, refers_to=refers_to)
