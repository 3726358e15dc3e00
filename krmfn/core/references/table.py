"""The built-in reference table, as data: every kind and path where a renamed object is named.

Rows are a kind, and either a *shape* (a pod spec, an Argo workflow spec) at a path, or one
field with declarative conditions. Adding a kind is adding a row; the README's table is
generated from the same rows (``python tools/reference_table.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from krmfn.core.references.fieldspec import FieldSpec, Has, split_path
from krmfn.core.references.monitoring import SELECTORS

# --- shapes: where an object that runs containers names ConfigMaps -------------------------

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


@dataclass(frozen=True, repr=False, eq=False)
class ShapeFields:
    """Where a pod spec names objects of one renamed kind: inside each container, inside each
    volume, and beside them (a pod spec's own fields)."""

    container: tuple[str, ...]
    volume: tuple[str, ...]
    pod: tuple[str, ...] = ()


# For each renamed kind, the fields of a pod spec that name one (kustomize's namereference.go,
# plus the volume sources it leaves out).
SHAPE_FIELDS: dict[str, ShapeFields] = {
    "ConfigMap": ShapeFields(("env/valueFrom/configMapKeyRef/name", "envFrom/configMapRef/name"),
                             ("configMap/name", "projected/sources/configMap/name")),
    # Of the volume sources that name a Secret, the in-tree ones kept for old clusters (azureFile,
    # cephfs, rbd, iscsi, flexVolume) are left to fieldSpecs: each key costs every volume of every
    # workload a lookup, and CSI replaced them.
    "Secret": ShapeFields(("env/valueFrom/secretKeyRef/name", "envFrom/secretRef/name"),
                          ("secret/secretName", "projected/sources/secret/name", "csi/nodePublishSecretRef/name"),
                          ("imagePullSecrets/name",)),
    # Secrets Store CSI driver: a CSI volume names the SecretProviderClass it mounts.
    "SecretProviderClass": ShapeFields((), ("csi/volumeAttributes/secretProviderClass",)),
}

# What a pod spec's reference reads of the object it names, by the key of the map that holds the name:
# the one ``key`` beside it (an env var's), or the ``key`` of each of its ``items`` (a volume's, every
# key when it has none). A reference held elsewhere reads every key. What ``krmfn plan`` reports.
KEYS_READ: dict[str, str] = {"configMapKeyRef": "key", "secretKeyRef": "key", "configMap": "items", "secret": "items"}


# Table rows are frozen but skip the generated __repr__ and __eq__ they never use: with no
# bytecode cache, each generated method is compiled on every run (~0.2 ms each).
@dataclass(frozen=True, repr=False, eq=False)
class Shape:
    """Where a pod-spec-like object names ConfigMaps, relative to its own root."""

    name: str
    containers: tuple[str, ...]  # paths to container lists (or to single containers)
    volumes: tuple[str, ...] = ("volumes",)  # paths to volume lists
    fields: tuple[tuple[str, str], ...] = ()  # (renamed kind, path): other fields that name one

    def paths(self, prefix: str, refers_to: str = "ConfigMap") -> list[str]:
        at = f"{prefix}/" if prefix else ""
        fields = SHAPE_FIELDS[refers_to]
        return ([f"{at}{c}/{f}" for c in self.containers for f in fields.container]
                + [f"{at}{v}/{f}" for v in self.volumes for f in fields.volume]
                + [f"{at}{f}" for f in fields.pod]
                + [f"{at}{f}" for kind, f in self.fields if kind == refers_to])


POD_SPEC = Shape("pod spec", CONTAINER_LISTS)
# Argo Workflows: volumes for the whole workflow and per template; five container-like fields; and
# parameters read from a ConfigMap, a template's memoization cache, semaphores (workflow and template).
ARGO_WORKFLOW_SPEC = Shape("Argo workflow spec", (
    "templates/container", "templates/script", "templates/initContainers", "templates/sidecars",
    "templates/containerSet/containers"), ("volumes", "templates/volumes"), tuple(("ConfigMap", f) for f in (
        "arguments/parameters/valueFrom/configMapKeyRef/name",
        "templates/inputs/parameters/valueFrom/configMapKeyRef/name",
        "templates/memoize/cache/configMap/name",
        *(f"{at}synchronization/{s}/configMapKeyRef/name" for at in ("", "templates/")
          for s in ("semaphore", "semaphores")))))
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
    refers_to: str = "ConfigMap"  # a field row's renamed kind; a shape names every kind of SHAPE_FIELDS
    summary: str | None = None  # how the docs name a row that is one of many alike (a CRD's selectors)
    writes: bool = False  # its controller writes the Secret the field names (selection.filled, report.rotation)

    def specs(self) -> list[FieldSpec]:
        if self.shape is not None:
            return [FieldSpec(self.kind, split_path(p), self.group, refers_to=target)
                    for target in SHAPE_FIELDS for p in self.shape.paths(self.at, target)]
        assert self.path is not None
        return [FieldSpec(self.kind, split_path(self.path), self.group, None, self.when,
                          self.namespace_from, self.qualified, refers_to=self.refers_to)]


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
_SECRET_KIND = (Has("kind", "Secret"),)
_ABOUT_CONFIGMAPS = (Has("resources", "configmaps", listed=True), Has("apiGroups", "", listed=True))
_ABOUT_SECRETS = (Has("resources", "secrets", listed=True), Has("apiGroups", "", listed=True))
# A CSI StorageClass names a Secret for each operation, with its namespace beside it.
_CSI_SECRETS = ("provisioner", "controller-publish", "node-stage", "node-publish", "controller-expand", "node-expand")
# PersistentVolume sources that name a Secret as a SecretReference (name and namespace).
_PV_SECRET_REFS = ("csi/controllerPublishSecretRef", "csi/nodeStageSecretRef", "csi/nodePublishSecretRef",
                   "csi/controllerExpandSecretRef", "csi/nodeExpandSecretRef", "cephfs/secretRef", "rbd/secretRef",
                   "iscsi/secretRef", "flexVolume/secretRef")


def _secret(project: str, group: str | None, kind: str, path: str, **kw: object) -> Entry:
    return Entry(project, group, kind, path=path, refers_to="Secret", **kw)  # type: ignore[arg-type]

BUILTIN: tuple[Entry, ...] = (
    *(Entry("Kubernetes", group, kind, prefix, POD_SPEC) for group, kind, prefix in POD_SPEC_KINDS),
    Entry("Kubernetes", "", "Node", path="spec/configSource/configMap/name", namespace_from="namespace"),
    Entry("Kubernetes", "rbac.authorization.k8s.io", "Role", path="rules/resourceNames", when=_ABOUT_CONFIGMAPS),
    Entry("Kubernetes", "rbac.authorization.k8s.io", "ClusterRole", path="rules/resourceNames",
          when=_ABOUT_CONFIGMAPS),
    _secret("Kubernetes", "rbac.authorization.k8s.io", "Role", "rules/resourceNames", when=_ABOUT_SECRETS),
    _secret("Kubernetes", "rbac.authorization.k8s.io", "ClusterRole", "rules/resourceNames", when=_ABOUT_SECRETS),
    _secret("Kubernetes", "", "ServiceAccount", "imagePullSecrets/name"),
    _secret("Kubernetes", "", "ServiceAccount", "secrets/name"),
    _secret("Kubernetes", None, "Ingress", "spec/tls/secretName"),
    _secret("Kubernetes", "storage.k8s.io", "StorageClass", "parameters/secretName", namespace_from="secretNamespace"),
    _secret("Kubernetes", "storage.k8s.io", "StorageClass", "parameters/adminSecretName",
            namespace_from="adminSecretNamespace"),
    _secret("Kubernetes", "storage.k8s.io", "StorageClass", "parameters/userSecretName",
            namespace_from="userSecretNamespace"),
    _secret("Kubernetes", "storage.k8s.io", "StorageClass", "parameters/secretRef"),
    *(_secret("Kubernetes", "storage.k8s.io", "StorageClass", f"parameters/csi.storage.k8s.io\\/{op}-secret-name",
              namespace_from=f"csi.storage.k8s.io/{op}-secret-namespace") for op in _CSI_SECRETS),
    _secret("Kubernetes", "", "PersistentVolume", "spec/azureFile/secretName", namespace_from="secretNamespace"),
    *(_secret("Kubernetes", "", "PersistentVolume", f"spec/{ref}/name", namespace_from="namespace")
      for ref in _PV_SECRET_REFS),
    Entry("ingress-nginx", None, "Ingress",
          path="metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", qualified=True),
    *(_secret("ingress-nginx", None, "Ingress", f"metadata/annotations/{key}", qualified=True)
      for key in ("nginx.ingress.kubernetes.io\\/auth-secret", "nginx.ingress.kubernetes.io\\/auth-tls-secret",
                  "ingress.kubernetes.io\\/auth-secret")),
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
    _secret("Flux", "helm.toolkit.fluxcd.io", "HelmRelease", "spec/valuesFrom/name", when=_SECRET_KIND),
    _secret("Flux", "helm.toolkit.fluxcd.io", "HelmRelease", "spec/kubeConfig/secretRef/name"),
    _secret("Flux", "kustomize.toolkit.fluxcd.io", "Kustomization", "spec/postBuild/substituteFrom/name",
            when=_SECRET_KIND),
    _secret("Flux", "kustomize.toolkit.fluxcd.io", "Kustomization", "spec/decryption/secretRef/name"),
    _secret("Flux", "kustomize.toolkit.fluxcd.io", "Kustomization", "spec/kubeConfig/secretRef/name"),
    *(e for kind in ("Prometheus", "PrometheusAgent", "Alertmanager", "ThanosRuler") for e in (
        Entry("Prometheus Operator", "monitoring.coreos.com", kind, path="spec/configMaps"),
        _secret("Prometheus Operator", "monitoring.coreos.com", kind, "spec/secrets"),
        Entry("Prometheus Operator", "monitoring.coreos.com", kind, "spec", MONITORING_SPEC))),
    *(Entry("Prometheus Operator", "monitoring.coreos.com", kind, path=f"spec/{path}/name", refers_to=target,
            summary=f"every {target}KeySelector in `spec` ({len(paths)} fields: krmfn/core/references/monitoring.py)")
      for kind, groups in SELECTORS.items() for target, paths in groups for path in paths),
    Entry("KEDA", "keda.sh", "ScaledJob", "spec/jobTargetRef/template/spec", POD_SPEC),
    _secret("KEDA", "keda.sh", "TriggerAuthentication", "spec/secretTargetRef/name"),
    _secret("KEDA", "keda.sh", "ClusterTriggerAuthentication", "spec/secretTargetRef/name"),
    # Istio: a Gateway's TLS server names the Secret holding its certificate, read in the namespace of
    # the gateway's workload (the Gateway's own in the usual layout, where both sit together).
    _secret("Istio", "networking.istio.io", "Gateway", "spec/servers/tls/credentialName"),
    # Objects whose controller writes the Secret a field names, again and again (a certificate at each
    # renewal, a value synced from a store): that Secret is never renamed (core.selection.filled), and it
    # changes outside Git (core.report.rotation).
    _secret("cert-manager", "cert-manager.io", "Certificate", "spec/secretName", writes=True),
    _secret("Secrets Store CSI driver", "secrets-store.csi.x-k8s.io", "SecretProviderClass",
            "spec/secretObjects/secretName", writes=True),
    *(_secret("Vault Secrets Operator", "secrets.hashicorp.com", kind, "spec/destination/name", writes=True)
      for kind in ("VaultStaticSecret", "VaultDynamicSecret", "VaultPKISecret")),
    Entry("OpenKruise", "apps.kruise.io", "CloneSet", "spec/template/spec", POD_SPEC),
    Entry("OpenKruise", "apps.kruise.io", "StatefulSet", "spec/template/spec", POD_SPEC),
    Entry("OpenKruise", "apps.kruise.io", "DaemonSet", "spec/template/spec", POD_SPEC),
)

# (group, kind) of the objects whose controller writes the Secret a row of theirs names.
WRITERS: frozenset[tuple[str | None, str]] = frozenset((e.group, e.kind) for e in BUILTIN if e.writes)

NOTICES: tuple[Notice, ...] = (
    Notice("Argo Rollouts", "argoproj.io", "Rollout", "spec/workloadRef",
           "this Rollout takes its pod template from {kind} {name} (spec.workloadRef), so it names no "
           "ConfigMap itself: nothing to rewrite here; the references are rewritten in that {kind}"),
)


def template_metadata(api_version: str, kind: str) -> tuple[str, ...] | None:
    """Where a kind's pod template keeps its metadata (``spec/template/metadata``): the pod spec
    row's path with ``metadata`` for its last ``spec``. None for a kind whose own metadata is the
    pod's (a Pod) or that has no pod template."""
    group = api_version.rpartition("/")[0]
    for entry in BUILTIN:
        if (entry.kind == kind and entry.shape is POD_SPEC and entry.at.endswith("template/spec")
                and (entry.group is None or entry.group == group)):
            return (*split_path(entry.at)[:-1], "metadata")
    return None


def pod_spec_paths(prefix: str, refers_to: str = "ConfigMap") -> list[str]:
    """Every path, below a pod spec at ``prefix``, that names an object of that renamed kind."""
    return POD_SPEC.paths(prefix, refers_to)
