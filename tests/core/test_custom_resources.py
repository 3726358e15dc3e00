"""Golden examples for every kind of the built-in table (examples/custom-resources/*).

Each example's expected output is the exact output of ``krmfn < input.yaml``; running krmfn on
that output again changes nothing. The semantic tests below pin what each golden shows, so a
regenerated golden cannot quietly accept a wrong rewrite.
"""

from __future__ import annotations

import pytest
import yaml
from conftest import resource_list, run
from tooling import REPO, check_golden, golden_examples

from krmfn.core.references.table import BUILTIN, NOTICES, POD_SPEC_KINDS

EXAMPLES = REPO / "examples" / "custom-resources"
NAMES = golden_examples(EXAMPLES)


@pytest.mark.parametrize("name", NAMES)
def test_golden_output_and_idempotence(name):
    check_golden(EXAMPLES / name)


def _items(name: str, which: str = "expected-output") -> list[dict]:
    return yaml.safe_load((EXAMPLES / name / f"{which}.yaml").read_text())["items"]


def _results(name: str) -> list[dict]:
    return yaml.safe_load((EXAMPLES / name / "expected-output.yaml").read_text()).get("results", [])


def test_every_kind_of_the_table_has_a_golden_example():
    """Kubernetes' pod-spec kinds are tested one by one in test_rewrite.py; every other row here."""
    kinds = {(item["apiVersion"].rpartition("/")[0], item["kind"]) for name in NAMES for item in _items(name, "input")}
    workloads = {(group, kind) for group, kind, _ in POD_SPEC_KINDS}
    for entry in [e for e in BUILTIN if (e.group, e.kind) not in workloads] + list(NOTICES):
        assert any(k == entry.kind and (entry.group is None or g == entry.group) for g, k in kinds), \
            f"no golden example has a {entry.kind} ({entry.group})"


def get(obj, path: str):
    for key in path.split("."):
        obj = obj[int(key)] if isinstance(obj, list) else obj[key]
    return obj


def by_name(items: list[dict]) -> dict[str, dict]:
    return {f"{i['kind']}/{i['metadata']['name']}": i for i in items}


def hashed(items: list[dict], original: str, kind: str = "ConfigMap") -> str:
    [name] = [i["metadata"]["name"] for i in items if i["kind"] == kind
              and i["metadata"].get("annotations", {}).get("krmfn.dev/original-name") == original]
    return name


def test_argo_rollouts():
    items = _items("argo-rollouts")
    new = hashed(items, "rollouts-demo-config")
    pod = get(by_name(items)["Rollout/rollouts-demo"], "spec.template.spec")
    assert get(pod, "initContainers.0.env.0.valueFrom.configMapKeyRef.name") == new
    assert get(pod, "containers.0.envFrom.0.configMapRef.name") == new
    assert get(pod, "volumes.0.configMap.name") == new
    assert get(by_name(items)["Deployment/rollout-ref-deployment"], "spec.template.spec.containers.0.envFrom.0"
               ) == {"configMapRef": {"name": new}}
    [info] = [r for r in _results("argo-rollouts") if r["resourceRef"]["kind"] == "Rollout"
              and r["field"]["path"] == "spec.workloadRef"]
    assert info["severity"] == "info" and info["field"]["path"] == "spec.workloadRef"
    assert "Deployment rollout-ref-deployment" in info["message"] and "nothing to rewrite" in info["message"]


def test_argo_workflows_every_container_like_field():
    items = _items("argo-workflows")
    config, scripts = hashed(items, "pipeline-config"), hashed(items, "scripts")
    wf = by_name(items)["Workflow/build-and-test"]["spec"]
    build, test, report = wf["templates"][1], wf["templates"][2], wf["templates"][3]
    assert wf["volumes"][0]["configMap"]["name"] == scripts
    assert get(build, "initContainers.0.envFrom.0.configMapRef.name") == config
    assert get(build, "container.env.0.valueFrom.configMapKeyRef.name") == config
    assert get(build, "sidecars.0.envFrom.0.configMapRef.name") == config
    assert get(test, "script.envFrom.0.configMapRef.name") == config
    assert get(report, "volumes.0.projected.sources.0.configMap.name") == config
    assert get(report, "containerSet.containers.1.env.0.valueFrom.configMapKeyRef.name") == config
    assert get(by_name(items)["WorkflowTemplate/lint"], "spec.templates.0.container.envFrom.0.configMapRef.name") == config
    # Cluster-scoped, no namespace: it still finds the ConfigMap in namespace argo.
    assert get(by_name(items)["ClusterWorkflowTemplate/cluster-build"], "spec.templates.0.volumes.0.configMap.name") == scripts
    cron = by_name(items)["CronWorkflow/nightly"]["spec"]["workflowSpec"]
    assert cron["volumes"][0]["configMap"]["name"] == scripts
    assert get(cron, "templates.0.container.envFrom.0.configMapRef.name") == config


def test_knative_and_not_the_core_service():
    items = _items("knative")
    new = hashed(items, "hello-config")
    service, configuration = (i for i in items if i["apiVersion"] == "serving.knative.dev/v1")
    assert get(service, "spec.template.spec.containers.0.env.0.valueFrom.configMapKeyRef.name") == new
    assert get(service, "spec.template.spec.volumes.0.configMap.name") == new
    assert get(configuration, "spec.template.spec.containers.0.envFrom.0.configMapRef.name") == new
    [core] = [i for i in items if i["apiVersion"] == "v1" and i["kind"] == "Service"]
    assert core["metadata"]["name"] == "hello-config"


def test_flux_entries_follow_the_kind_they_name():
    items = _items("flux")
    values, vars_ = hashed(items, "podinfo-values"), hashed(items, "cluster-vars")
    secret_values = hashed(items, "podinfo-values", "Secret")
    assert secret_values != values  # same original name, each kind its own hash
    release = by_name(items)["HelmRelease/podinfo"]["spec"]["valuesFrom"]
    assert [(v["kind"], v["name"]) for v in release] == [
        ("ConfigMap", values), ("Secret", secret_values), ("ConfigMap", vars_)]
    subst = by_name(items)["Kustomization/apps"]["spec"]["postBuild"]["substituteFrom"]
    assert [(v["kind"], v["name"]) for v in subst] == [("ConfigMap", vars_), ("Secret", "cluster-vars")]


def test_prometheus_operator_config_maps_and_overrides():
    items = _items("prometheus-operator")
    extra, env = hashed(items, "prometheus-rules-extra"), hashed(items, "sidecar-env")
    prom = by_name(items)["Prometheus/k8s"]["spec"]
    assert prom["configMaps"] == [extra, "ca-bundle"]
    assert get(prom, "containers.0.envFrom.0.configMapRef.name") == env
    assert get(prom, "initContainers.0.env.0.valueFrom.configMapKeyRef.name") == env
    assert get(prom, "volumes.0.configMap.name") == extra
    am = by_name(items)["Alertmanager/main"]["spec"]
    assert am["configMaps"] == [extra] and get(am, "containers.0.envFrom.0.configMapRef.name") == env
    ruler = by_name(items)["ThanosRuler/thanos-ruler"]["spec"]
    assert ruler["configMaps"] == [extra] and get(ruler, "volumes.0.projected.sources.0.configMap.name") == extra
    assert prom["secrets"] == [hashed(items, "remote-write-auth", "Secret")]
    [missing] = [r for r in _results("prometheus-operator") if "ca-bundle" in r["message"]]
    assert missing["field"]["path"] == "spec.configMaps[1]" and missing["severity"] == "info"


def test_keda_and_openkruise():
    keda = _items("keda")
    auth = hashed(keda, "rabbitmq-auth", "Secret")
    job = get(by_name(keda)["ScaledJob/order-worker"], "spec.jobTargetRef.template.spec.containers.0")
    assert get(job, "envFrom.0.configMapRef.name") == hashed(keda, "worker-config")
    assert get(job, "envFrom.1.secretRef.name") == auth
    for kind in ("TriggerAuthentication/rabbitmq", "ClusterTriggerAuthentication/rabbitmq-shared"):
        assert get(by_name(keda)[kind], "spec.secretTargetRef.0.name") == auth
    kruise = _items("openkruise")
    new = hashed(kruise, "nginx-conf")
    objs = by_name(kruise)
    assert get(objs["CloneSet/frontend"], "spec.template.spec.volumes.0.configMap.name") == new
    assert get(objs["StatefulSet/cache"], "spec.template.spec.containers.0.envFrom.0.configMapRef.name") == new
    assert get(objs["DaemonSet/node-proxy"], "spec.template.spec.volumes.0.configMap.name") == new


def test_istio_gateway_credential_name_follows_and_a_destination_rule_gets_the_leftover_warning():
    """The Gateway's credentialName is a row of the table: rewritten. The DestinationRule's is not:
    left as written, with the leftover warning that gives its fieldSpecs entry."""
    istio = _items("istio")
    objs = by_name(istio)
    assert get(objs["Gateway/shop"], "spec.servers.0.tls.credentialName") == hashed(istio, "shop-tls", "Secret")
    assert "credentialName" not in get(objs["Gateway/shop"], "spec.servers.1.tls")
    assert get(objs["DestinationRule/payments-mtls"], "spec.trafficPolicy.tls.credentialName") == "shop-tls"
    warned = [(r["resourceRef"]["kind"], r["field"]["path"]) for r in _results("istio") if r["severity"] == "warning"]
    assert warned == [("DestinationRule", "spec.trafficPolicy.tls.credentialName")]


def test_an_istio_gateway_in_another_namespace_than_its_secret_is_told_not_rewritten():
    items = _items("istio", "input")
    secret, gateway = items[0], {**items[1], "metadata": {"name": "shop", "namespace": "web"}}
    out = run(resource_list(yaml.safe_dump([secret, gateway])))
    assert get(yaml.safe_load(out.text)["items"][1], "spec.servers.0.tls.credentialName") == "shop-tls"
    [w] = [r for r in out.results if r.severity == "warning" and str(r.resource) == "Gateway/web/shop"]
    assert w.field_path == "spec.servers[0].tls.credentialName" and "istio-system" in w.message


def test_node_roles_and_ingress_annotation():
    items = _items("kubernetes-extras")
    kubelet, fastcgi = hashed(items, "kubelet-config"), hashed(items, "fastcgi-params")
    objs = by_name(items)
    assert objs["Node/worker-1"]["spec"]["configSource"]["configMap"] == {
        "name": kubelet, "namespace": "kube-system", "kubeletConfigKey": "kubelet"}
    rules = objs["Role/read-fastcgi-params"]["rules"]
    assert rules[0]["resourceNames"] == [fastcgi] and rules[1]["resourceNames"] == ["fastcgi-params"]
    assert objs["ClusterRole/read-kubelet-config"]["rules"][0]["resourceNames"] == [kubelet]
    annotations = objs["Ingress/php-app"]["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/fastcgi-params-configmap"] == f"php/{fastcgi}"


def test_kubernetes_kinds_that_name_secrets():
    items = _items("kubernetes-secrets")
    registry, tls = hashed(items, "registry", "Secret"), hashed(items, "site-tls", "Secret")
    auth, csi = hashed(items, "basic-auth", "Secret"), hashed(items, "csi-creds", "Secret")
    objs = by_name(items)
    account = objs["ServiceAccount/shop"]
    assert account["imagePullSecrets"] == [{"name": registry}] and account["secrets"] == [{"name": registry}]
    ingress = objs["Ingress/shop"]
    assert ingress["spec"]["tls"][0]["secretName"] == tls
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/auth-secret"] == auth
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/auth-tls-secret"] == f"shop/{tls}"
    params = objs["StorageClass/fast"]["parameters"]
    assert params["csi.storage.k8s.io/provisioner-secret-name"] == csi
    assert params["csi.storage.k8s.io/node-publish-secret-name"] == csi
    assert params["csi.storage.k8s.io/node-publish-secret-namespace"] == "storage"
    assert objs["PersistentVolume/archive"]["spec"]["csi"]["nodePublishSecretRef"] == {"name": csi, "namespace": "storage"}
    assert objs["Role/read-tls"]["rules"][0]["resourceNames"] == [tls]
    assert objs["ClusterRole/read-csi-creds"]["rules"][0]["resourceNames"] == [csi]
    for secret in (i for i in items if i["kind"] == "Secret"):
        assert secret["immutable"] is True and secret["metadata"]["labels"]["krmfn.dev/family"]


def test_untouched_items_keep_their_text():
    """Spliced, not re-emitted: a referrer's comments and flow style survive its rewrite."""
    out = (EXAMPLES / "kubernetes-extras" / "expected-output.yaml").read_text()
    assert "    # The reference names its own namespace.\n" in out
    assert "    resources: [configmaps]\n" in out


# --- rules the goldens rely on, one at a time ----------------------------------------------

CM = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    namespace: {ns}
    annotations: {{krmfn.dev/content-hash: "true"}}
  data: {{k: v}}
"""


def test_node_namespace_is_the_one_it_names_not_any():
    node = """\
- apiVersion: v1
  kind: Node
  metadata: {name: n}
  spec:
    configSource:
      configMap: {name: app, namespace: other, kubeletConfigKey: kubelet}
"""
    out = run(resource_list(CM.format(ns="kube-system") + node))
    node_out = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] == "Node"][0]
    assert node_out["spec"]["configSource"]["configMap"]["name"] == "app"
    # the render holds app in another namespace: said, with both namespaces (never "not in the input")
    (said,) = [r for r in out.results if r.resource.kind == "Node"]
    assert said.severity == "warning" and "only in namespace kube-system, not in other" in said.message


def test_role_rule_needs_the_core_group_and_configmaps():
    role = """\
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: r, namespace: a}
  rules:
  - {apiGroups: [apps], resources: [configmaps], resourceNames: [app]}
  - {apiGroups: [""], resources: [secrets, configmaps], resourceNames: [app]}
  - {apiGroups: [""], resources: [pods], resourceNames: [app]}
"""
    out = run(resource_list(CM.format(ns="a") + role))
    rules = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] == "Role"][0]["rules"]
    assert [r["resourceNames"][0] == "app" for r in rules] == [True, False, True]


def test_ingress_annotation_without_a_namespace_uses_the_ingress_namespace():
    ingress = """\
- apiVersion: networking.k8s.io/v1
  kind: Ingress
  metadata:
    name: i
    namespace: a
    annotations: {nginx.ingress.kubernetes.io/fastcgi-params-configmap: app}
"""
    out = run(resource_list(CM.format(ns="a") + ingress))
    ing = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] == "Ingress"][0]
    assert ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/fastcgi-params-configmap"].startswith("app-")


def test_flux_kind_condition_reads_a_quoted_kind_too():
    release = """\
- apiVersion: helm.toolkit.fluxcd.io/v2
  kind: HelmRelease
  metadata: {name: h, namespace: a}
  spec:
    valuesFrom:
    - {kind: "ConfigMap", name: app}
    - {name: app}
"""
    out = run(resource_list(CM.format(ns="a") + release))
    values = [i for i in yaml.safe_load(out.text)["items"] if i["kind"] == "HelmRelease"][0]["spec"]["valuesFrom"]
    assert values[0]["name"].startswith("app-") and values[1]["name"] == "app"


ARGO_SPEC = """\
  arguments:
    parameters:
    - name: message
      valueFrom:
        configMapKeyRef: {name: params, key: msg}
  synchronization:
    semaphores:
    - configMapKeyRef: {name: limits, key: workflow}
    semaphore:
      configMapKeyRef: {name: limits, key: old}
  templates:
  - name: main
    inputs:
      parameters:
      - name: m
        valueFrom:
          configMapKeyRef: {name: params, key: m}
    memoize:
      key: k
      cache:
        configMap: {name: cache}
    synchronization:
      semaphores:
      - configMapKeyRef: {name: limits, key: template}
      semaphore:
        configMapKeyRef: {name: limits, key: old}
    container: {image: busybox}
"""


@pytest.mark.parametrize("kind", ["Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"])
def test_argo_workflows_parameters_memoization_and_semaphores(kind):
    """Argo Workflows names ConfigMaps outside containers and volumes too: workflow arguments and
    template inputs read from one, a template's memoization cache, semaphores (workflow and
    template level). All rewritten, in all four kinds, with no warning."""
    cms = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: {n}}}\n  data: {{k: {n}}}\n"
                  for n in ("params", "limits", "cache"))
    spec = ARGO_SPEC.replace("\n", "\n  ") if kind == "CronWorkflow" else ARGO_SPEC
    head = "  spec:\n    schedule: '* * * * *'\n    workflowSpec:\n  " if kind == "CronWorkflow" else "  spec:\n"
    item = f"- apiVersion: argoproj.io/v1alpha1\n  kind: {kind}\n  metadata: {{name: wf}}\n{head}"
    item += "".join("  " + line + "\n" if line else "\n" for line in spec.rstrip("\n").split("\n"))
    fc = "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {select: all}}\n"
    out = run(resource_list(cms + item) + fc)
    assert [r for r in out.results if r.severity != "info"] == []
    docs = yaml.safe_load(out.text)["items"]
    names = {d["data"]["k"]: d["metadata"]["name"] for d in docs[:3]}
    wf = docs[3]["spec"]["workflowSpec"] if kind == "CronWorkflow" else docs[3]["spec"]
    template = wf["templates"][0]
    assert wf["arguments"]["parameters"][0]["valueFrom"]["configMapKeyRef"]["name"] == names["params"]
    assert template["inputs"]["parameters"][0]["valueFrom"]["configMapKeyRef"]["name"] == names["params"]
    assert template["memoize"]["cache"]["configMap"]["name"] == names["cache"]
    for sync in (wf["synchronization"], template["synchronization"]):
        assert sync["semaphores"][0]["configMapKeyRef"]["name"] == names["limits"]
        assert sync["semaphore"]["configMapKeyRef"]["name"] == names["limits"]
