"""Where ConfigMaps are named: the reference table, as data, and the walk that finds them.

A :class:`FieldSpec` says "in objects of this kind (and group), the path P holds a ConfigMap
name", in the grammar of kustomize's ``nameReference`` field specs: ``/``-separated keys,
``\\/`` for a slash inside a key, lists traversed implicitly. The built-in table
(:data:`BUILTIN`) is rows of data: a kind, and either a *shape* (a pod spec, an Argo workflow
spec) at a path, or one field with declarative conditions. Adding a kind is adding a row;
the README's table is generated from the same rows (``python -m krmfn.references``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from . import yamldoc as raw
from .yamldoc import NONE, Doc

# --- shapes: where an object that runs containers names ConfigMaps -------------------------

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
# Inside one container.
CONTAINER_FIELDS = ("env/valueFrom/configMapKeyRef/name", "envFrom/configMapRef/name")
# Inside one volume.
VOLUME_FIELDS = ("configMap/name", "projected/sources/configMap/name")
# Inside a pod spec, beside the containers.
POD_FIELDS = tuple(f"volumes/{f}" for f in VOLUME_FIELDS)


# Table rows are frozen but skip the generated __repr__ and __eq__ they never use: with no
# bytecode cache, each generated method is compiled on every run (~0.2 ms each).
@dataclass(frozen=True, repr=False, eq=False)
class Shape:
    """Where a pod-spec-like object names ConfigMaps, relative to its own root."""

    name: str
    containers: tuple[str, ...]  # paths to container lists (or to single containers)
    volumes: tuple[str, ...] = ("volumes",)  # paths to volume lists

    def paths(self, prefix: str) -> list[str]:
        at = f"{prefix}/" if prefix else ""
        return ([f"{at}{c}/{f}" for c in self.containers for f in CONTAINER_FIELDS]
                + [f"{at}{v}/{f}" for v in self.volumes for f in VOLUME_FIELDS])


POD_SPEC = Shape("pod spec", CONTAINER_LISTS)
# Argo Workflows: volumes for the whole workflow and per template; five container-like fields.
ARGO_WORKFLOW_SPEC = Shape("Argo workflow spec", (
    "templates/container", "templates/script", "templates/initContainers", "templates/sidecars",
    "templates/containerSet/containers"), ("volumes", "templates/volumes"))
# Prometheus Operator: extra containers and volumes merged into the pods it generates.
MONITORING_SPEC = Shape("Prometheus Operator spec", ("containers", "initContainers"))
SHAPES = (POD_SPEC, ARGO_WORKFLOW_SPEC, MONITORING_SPEC)

# Kubernetes kinds that hold a pod spec, and the path to it. group None: any API group (as kustomize).
POD_SPEC_KINDS: tuple[tuple[str | None, str, str], ...] = (
    ("", "Pod", "spec"),
    ("", "PodTemplate", "template/spec"),
    ("", "ReplicationController", "spec/template/spec"),
    (None, "Deployment", "spec/template/spec"),
    (None, "ReplicaSet", "spec/template/spec"),
    (None, "DaemonSet", "spec/template/spec"),
    (None, "StatefulSet", "spec/template/spec"),
    ("batch", "Job", "spec/template/spec"),
    ("batch", "CronJob", "spec/jobTemplate/spec/template/spec"),
)


# --- conditions and field specs -------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class Has:
    """A condition on the map that holds a reference's last key: ``key`` is ``value``, or
    (``listed``) is a list that includes it. E.g. a Flux ``valuesFrom`` entry has ``kind: ConfigMap``."""

    key: str
    value: str
    listed: bool = False

    def holds(self, doc: Doc, holder: int) -> bool:
        node = doc.get(holder, self.key)
        if node is None:
            return False
        node = doc.resolve(node)
        if doc.is_seq(node):
            return self.listed and any(doc.str(c) == self.value for c in doc.children(node))
        return doc.str(node) == self.value


@dataclass(frozen=True)
class FieldSpec:
    """In objects of ``kind`` (``group``/``version``; None: any), ``path`` holds a ConfigMap name.

    The optional attributes are declarative, so a condition is data rather than code:

    - ``when``: conditions on the map holding the path's last key;
    - ``namespace_from``: a key beside the name whose value is the ConfigMap's namespace
      (Node's ``configSource.configMap``); without it, the referrer's namespace rules apply;
    - ``qualified``: the value may be ``namespace/name`` (an ingress-nginx annotation);
    - ``maps``: the path may end at a map ``{name, namespace}`` rather than at the name (the
      rule kustomize applies to every user field spec).
    """

    kind: str
    path: tuple[str, ...]
    group: str | None = None
    version: str | None = None
    when: tuple[Has, ...] = ()
    namespace_from: str | None = None
    qualified: bool = False
    maps: bool = False

    @property
    def path_text(self) -> str:
        return join_path(self.path)

    @property
    def plain(self) -> bool:
        """No attribute to check or apply: found by the fast path of :func:`find`."""
        return not (self.when or self.namespace_from or self.qualified)

    def selects(self, group: str, version: str, kind: str) -> bool:
        return (kind == self.kind and (self.group is None or self.group == group)
                and (self.version is None or self.version == version))

    def accepts(self, doc: Doc, node: int) -> bool:
        """Whether the scalar ``node``, found at this spec's path, passes its conditions."""
        return not self.when or all(c.holds(doc, holder(doc, node)) for c in self.when)

    def target(self, doc: Doc, node: int, name: str) -> tuple[str, str | None, str]:
        """``(name, namespace or None for the referrer's rules, text before the name)``."""
        if self.qualified and "/" in name:
            namespace, _, short = name.partition("/")
            return short, namespace or None, f"{namespace}/"
        if self.namespace_from:
            namespace = doc.str(doc.get(holder(doc, node), self.namespace_from))
            return name, namespace or None, ""
        return name, None, ""


def holder(doc: Doc, node: int) -> int:
    """The map holding the key that leads to ``node`` (lists on the way up are skipped)."""
    parent = doc.parent(node)
    while parent is not None and doc.is_seq(parent):
        parent = doc.parent(parent)
    return node if parent is None else parent


def split_path(path: str) -> tuple[str, ...]:
    """Split a field-spec path on ``/``, where ``\\/`` is a slash inside a key."""
    if "\\" not in path:
        return tuple(path.split("/"))
    parts, cur, i = [], [], 0
    while i < len(path):
        if path[i] == "\\" and i + 1 < len(path) and path[i + 1] == "/":
            cur.append("/")
            i += 2
            continue
        if path[i] == "/":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(path[i])
        i += 1
    parts.append("".join(cur))
    return tuple(parts)


def join_path(path: Sequence[str]) -> str:
    return "/".join(p.replace("/", "\\/") for p in path)


# --- the built-in table ---------------------------------------------------------------------

@dataclass(frozen=True, repr=False, eq=False)
class Entry:
    """One row of the built-in table: in ``kind`` (``group``; None: any group), either a
    ``shape`` at ``at``, or the single field ``path`` with its conditions."""

    project: str
    group: str | None
    kind: str
    at: str = ""
    shape: Shape | None = None
    path: str | None = None
    when: tuple[Has, ...] = ()
    namespace_from: str | None = None
    qualified: bool = False

    def specs(self) -> list[FieldSpec]:
        if self.shape is not None:
            return [FieldSpec(self.kind, split_path(p), self.group) for p in self.shape.paths(self.at)]
        assert self.path is not None
        return [FieldSpec(self.kind, split_path(self.path), self.group, None, self.when,
                          self.namespace_from, self.qualified)]


@dataclass(frozen=True, repr=False, eq=False)
class Notice:
    """A field whose presence means the object names no ConfigMap itself: said in an info result.

    ``message`` may use ``{key}`` for any scalar beside it in the map at ``path``."""

    project: str
    group: str | None
    kind: str
    path: str
    message: str


_CONFIGMAP_KIND = (Has("kind", "ConfigMap"),)
_ABOUT_CONFIGMAPS = (Has("resources", "configmaps", listed=True), Has("apiGroups", "", listed=True))

BUILTIN: tuple[Entry, ...] = (
    *(Entry("Kubernetes", group, kind, prefix, POD_SPEC) for group, kind, prefix in POD_SPEC_KINDS),
    Entry("Kubernetes", "", "Node", path="spec/configSource/configMap/name", namespace_from="namespace"),
    Entry("Kubernetes", "rbac.authorization.k8s.io", "Role", path="rules/resourceNames", when=_ABOUT_CONFIGMAPS),
    Entry("Kubernetes", "rbac.authorization.k8s.io", "ClusterRole", path="rules/resourceNames",
          when=_ABOUT_CONFIGMAPS),
    Entry("ingress-nginx", None, "Ingress",
          path="metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", qualified=True),
    Entry("Argo Rollouts", "argoproj.io", "Rollout", "spec/template/spec", POD_SPEC),
    Entry("Argo Workflows", "argoproj.io", "Workflow", "spec", ARGO_WORKFLOW_SPEC),
    Entry("Argo Workflows", "argoproj.io", "WorkflowTemplate", "spec", ARGO_WORKFLOW_SPEC),
    Entry("Argo Workflows", "argoproj.io", "ClusterWorkflowTemplate", "spec", ARGO_WORKFLOW_SPEC),
    Entry("Argo Workflows", "argoproj.io", "CronWorkflow", "spec/workflowSpec", ARGO_WORKFLOW_SPEC),
    Entry("Knative Serving", "serving.knative.dev", "Service", "spec/template/spec", POD_SPEC),
    Entry("Knative Serving", "serving.knative.dev", "Configuration", "spec/template/spec", POD_SPEC),
    Entry("Flux", "helm.toolkit.fluxcd.io", "HelmRelease", path="spec/valuesFrom/name", when=_CONFIGMAP_KIND),
    Entry("Flux", "kustomize.toolkit.fluxcd.io", "Kustomization", path="spec/postBuild/substituteFrom/name",
          when=_CONFIGMAP_KIND),
    *(e for kind in ("Prometheus", "Alertmanager", "ThanosRuler") for e in (
        Entry("Prometheus Operator", "monitoring.coreos.com", kind, path="spec/configMaps"),
        Entry("Prometheus Operator", "monitoring.coreos.com", kind, "spec", MONITORING_SPEC))),
    Entry("KEDA", "keda.sh", "ScaledJob", "spec/jobTargetRef/template/spec", POD_SPEC),
    Entry("OpenKruise", "apps.kruise.io", "CloneSet", "spec/template/spec", POD_SPEC),
    Entry("OpenKruise", "apps.kruise.io", "StatefulSet", "spec/template/spec", POD_SPEC),
    Entry("OpenKruise", "apps.kruise.io", "DaemonSet", "spec/template/spec", POD_SPEC),
)

NOTICES: tuple[Notice, ...] = (
    Notice("Argo Rollouts", "argoproj.io", "Rollout", "spec/workloadRef",
           "this Rollout takes its pod template from {kind} {name} (spec.workloadRef), so it names no "
           "ConfigMap itself: nothing to rewrite here; the references are rewritten in that {kind}"),
)


def pod_spec_paths(prefix: str) -> list[str]:
    """Every path, below a pod spec at ``prefix``, that names a ConfigMap."""
    return POD_SPEC.paths(prefix)


def builtin_specs() -> tuple[FieldSpec, ...]:
    """Kubernetes' own pod-spec kinds (what ``krmfn gc`` reads); :func:`table_specs` is everything."""
    return tuple(FieldSpec(kind, split_path(p), group)
                 for group, kind, prefix in POD_SPEC_KINDS for p in pod_spec_paths(prefix))


def table_specs(entries: Iterable[Entry] = BUILTIN) -> tuple[FieldSpec, ...]:
    """Every field spec of the built-in table: what the rewrite knows without configuration."""
    return tuple(spec for entry in entries for spec in entry.specs())


def parse_field_specs(value: object) -> list[FieldSpec]:
    """User field specs (kustomize's nameReference syntax): see :mod:`krmfn.fieldspecs`."""
    from .fieldspecs import parse_field_specs as parse  # only runs that configure fieldSpecs pay for it

    return parse(value)


# --- compiled tries and the walk ------------------------------------------------------------

# A trie of paths: key (bytes, as rapidyaml looks it up) -> sub-trie. The key END marks where
# a ConfigMap name sits: mapped to None (found as it is) or to a leaf, the tuple of specs with
# attributes that end there (the first that accepts a scalar wins).
Trie = dict
END = b""
Leaf = tuple  # tuple[FieldSpec, ...]


# The same trie as nested tuples for the walk: ``(((key, Walk), ...), end)``, where ``end`` is
# None (no name ends here), True (found as it is) or a Leaf. Tuples unpack faster than dicts iterate.
Walk = tuple


def compile_walk(trie: Trie) -> Walk:
    end = (True if trie[END] is None else trie[END]) if END in trie else None
    return tuple((key, compile_walk(sub)) for key, sub in trie.items() if key != END), end


def _match(leaf: Leaf, doc: Doc, node: int) -> FieldSpec | None:
    return next((s for s in leaf if s.accepts(doc, node)), None)


def _leaf_specs(spec: FieldSpec) -> list[FieldSpec]:
    """A spec, and, where it may end at a map, the same spec continued to the map's name."""
    if not spec.maps:
        return [spec]
    return [replace(spec, maps=False),
            replace(spec, path=spec.path + ("name",), namespace_from=spec.namespace_from or "namespace",
                    maps=False)]


def compile_trie(specs: Iterable[FieldSpec]) -> Trie:
    """Merge paths so that shared prefixes (``spec/template/spec``) are walked once."""
    root: Trie = {}
    for spec in (s for given in specs for s in _leaf_specs(given)):
        node = root
        for key in spec.path:
            node = node.setdefault(key.encode(), {})
        if spec.plain:
            node[END] = None  # found whatever else ends here
        elif END not in node:
            node[END] = (spec,)
        elif node[END] is not None and spec not in node[END]:
            node[END] += (spec,)
    return root


@dataclass
class ReferenceTable:
    """Field specs indexed by kind, compiled per (apiVersion, kind) into a trie on first use."""

    by_kind: dict[str, list[FieldSpec]]
    notices: tuple[Notice, ...] = ()
    _tries: dict[tuple[str, str], Trie] = field(default_factory=dict)
    notice_kinds: frozenset[str] = field(init=False)  # a set test per item, before any notice work
    _notices: dict[tuple[str, str], tuple[Notice, ...]] = field(default_factory=dict)
    _walks: dict[tuple[str, str], Walk | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.notice_kinds = frozenset(n.kind for n in self.notices)

    @classmethod
    def of(cls, specs: Iterable[FieldSpec], notices: tuple[Notice, ...] = ()) -> ReferenceTable:
        by_kind: dict[str, list[FieldSpec]] = {}
        for spec in specs:
            bucket = by_kind.setdefault(spec.kind, [])
            if spec not in bucket:
                bucket.append(spec)
        return cls(by_kind, notices)

    @classmethod
    def builtin(cls, extra: Iterable[FieldSpec] = ()) -> ReferenceTable:
        """The whole built-in table (with its notices), plus user field specs."""
        return cls.of(table_specs() + tuple(extra), NOTICES)

    def specs_for(self, api_version: str, kind: str) -> list[FieldSpec]:
        group, _, version = api_version.rpartition("/")
        return [s for s in self.by_kind.get(kind, ()) if s.selects(group, version, kind)]

    def trie_for(self, api_version: str, kind: str) -> Trie:
        key = (api_version, kind)
        trie = self._tries.get(key)
        if trie is None:
            trie = self._tries[key] = compile_trie(self.specs_for(api_version, kind))
        return trie

    def walk_for(self, api_version: str, kind: str) -> Walk | None:
        """The kind's trie compiled for :func:`find`; None when the kind names no ConfigMap."""
        key = (api_version, kind)
        if key not in self._walks:
            trie = self.trie_for(api_version, kind)
            self._walks[key] = compile_walk(trie) if trie else None
        return self._walks[key]

    def notes(self, doc: Doc, node: int, api_version: str, kind: str) -> list[tuple[str, str]]:
        """``(field path, message)`` for each notice whose field the object has."""
        key = (api_version, kind)
        notices = self._notices.get(key)
        if notices is None:
            group, _, _ = api_version.rpartition("/")
            notices = self._notices[key] = tuple(
                n for n in self.notices if n.kind == kind and (n.group is None or n.group == group))
        out = []
        for notice in notices:
            at: int | None = node
            for step in split_path(notice.path):
                at = doc.get(doc.resolve(at), step) if at is not None else None
            if at is not None and not doc.is_null(at):
                values = _Blank(doc.str_map(doc.resolve(at)))
                out.append((".".join(split_path(notice.path)), notice.message.format_map(values)))
        return out


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def find(doc: Doc, node: int, trie: Trie | Walk, attrs: dict[int, FieldSpec] | None = None) -> list[int]:
    """Every scalar the trie leads to below ``node``; lists are traversed implicitly.

    Scalars found through a spec with attributes are kept only when its conditions hold, and
    the spec is recorded in ``attrs`` (for the namespace it names, or a ``namespace/`` prefix).

    The hottest loop of a run (every workload, every path): it calls rapidyaml directly, asks
    whether a node is a list only when none of the trie's keys is found in it (``find_child``
    finds no key in a list), and builds no paths; :meth:`Doc.path_of` makes one when needed.
    """
    walk = compile_walk(trie) if isinstance(trie, dict) else trie
    t, may_alias, resolve = doc.raw, doc.may_alias, doc.resolve
    is_seq, find_child, first_child, next_sibling = raw.is_seq, raw.find_child, raw.first_child, raw.next_sibling
    has_val = raw.has_val
    found: list[int] = []
    stack: list[tuple[int, Walk]] = [(node, walk)]
    pop, push = stack.pop, stack.append
    while stack:
        node, step = pop()
        if may_alias:
            node = resolve(node)
        pairs, end = step
        if end is not None and has_val(t, node):  # a scalar; nulls and non-strings are the caller's to skip
            if end is True:
                found.append(node)
            else:  # a leaf of specs with attributes: rare
                spec = _match(end, doc, node)
                if spec is not None:
                    found.append(node)
                    if attrs is not None:
                        attrs[node] = spec
            continue
        matched = False
        for key, sub in pairs:
            child = find_child(t, node, key)  # NONE for scalars and lists
            if child != NONE:
                push((child, sub))
                matched = True
        if not matched and is_seq(t, node):
            child = first_child(t, node)
            while child != NONE:
                push((child, step))
                child = next_sibling(t, child)
    found.sort()  # document order, whatever the stack's order
    return found


if __name__ == "__main__":  # python -m krmfn.references: the README's table
    from .reference_docs import markdown_table

    print(markdown_table(), end="")
