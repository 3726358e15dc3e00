"""Objects programs find by a fixed name or by a label, not through a field krmfn can rewrite: left
alone when only ``select`` or a ``selector`` reaches them.

Why: a controller that reads ``argocd-cm`` or Knative's ``config-logging`` by name keeps reading
the old name after a rename (and an immutable copy under the new name is one it never reads); a
sidecar that collects every ConfigMap labelled ``grafana_dashboard`` would load the old version and
the new one side by side while retention keeps both. krmfn cannot see those reads, so it does not
guess: ``select: all`` leaves them alone and says why (under ``-v``), and an object's own annotation
or ``names`` still opts one in, for readers that follow renames. As data: a row per project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from krmfn.krm.resource import Resource


@dataclass(frozen=True, slots=True)
class ByName:
    """Objects of ``kind`` a project's programs read by name: exact names, or a pattern."""

    who: str
    kind: str
    names: frozenset[str] = frozenset()
    pattern: str | None = None
    label: tuple[str, str] | None = None  # and only when this label's value matches this pattern


KNOWN: tuple[ByName, ...] = (
    ByName("Argo CD", "ConfigMap", frozenset({
        "argocd-cm", "argocd-cmd-params-cm", "argocd-rbac-cm", "argocd-ssh-known-hosts-cm", "argocd-tls-certs-cm",
        "argocd-gpg-keys-cm", "argocd-notifications-cm"})),
    ByName("Argo CD", "Secret", frozenset({"argocd-secret", "argocd-notifications-secret"})),
    ByName("Argo Workflows", "ConfigMap", frozenset({"workflow-controller-configmap"})),
    ByName("Argo Rollouts", "ConfigMap", frozenset({"argo-rollouts-config"})),
    ByName("Knative", "ConfigMap", pattern=r"config-[a-z0-9-]+", label=("app.kubernetes.io/name", r"knative-.+")),
    ByName("ingress-nginx's controller (its --configmap flag)", "ConfigMap", frozenset({"ingress-nginx-controller"})),
    ByName("Kyverno", "ConfigMap", frozenset({"kyverno", "kyverno-metrics"})),
    # its chart prefixes the release name (rel-kyverno, rel-kyverno-metrics), passed to the pods in env values
    ByName("Kyverno", "ConfigMap", pattern=r".+-kyverno(?:-metrics)?",
           label=("app.kubernetes.io/part-of", r".*kyverno")),
    ByName("Istio", "ConfigMap", frozenset({"istio", "istio-sidecar-injector", "istio-ca-root-cert"})),
    ByName("the Prometheus Operator (alertmanager-NAME for the Alertmanager NAME)", "Secret",
           pattern=r"alertmanager-[a-z0-9.-]+", label=("app.kubernetes.io/name", "alertmanager")),
    ByName("Kubernetes", "ConfigMap", frozenset({
        "kube-proxy", "coredns", "kubeadm-config", "kubelet-config", "cluster-info", "kube-root-ca.crt",
        "extension-apiserver-authentication"})),
)

# Labels by which a sidecar (kiwigrid's k8s-sidecar, as the Grafana chart and kube-prometheus-stack run
# it) collects ConfigMaps and Secrets: every labelled one, whatever its name.
SIDECAR_LABELS = ("grafana_dashboard", "grafana_datasource", "grafana_alert", "grafana_notifier", "grafana_plugin")


def read_by_name(res: Resource, name: str) -> str | None:
    """Why a program finds this object (``name``: its original name) by that name or a label, not
    through a field (None: not known)."""
    labels = res.labels
    sidecar = next((key for key in SIDECAR_LABELS if key in labels), None)
    if sidecar is not None:
        return (f"a sidecar finds it by its label {sidecar}, and would load a renamed copy beside the old one while "
                "both exist")
    for row in KNOWN:
        if row.kind != res.kind:
            continue
        if row.label is not None and not re.fullmatch(row.label[1], labels.get(row.label[0], "")):
            continue
        if name in row.names or (row.pattern is not None and re.fullmatch(row.pattern, name)):
            return f"{row.who} reads it by its name"
    return None
