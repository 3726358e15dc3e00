"""`krmfn gc` through the real kubectl binary, against a stub HTTP API server.

No Kubernetes API server can be installed here. This stub speaks just
enough of the API for kubectl: legacy discovery (/api, /apis, the group versions), lists
with a label selector, and DELETE with a DeleteOptions body whose preconditions it checks
as the API server does (409 Conflict, 404 NotFound). It shows that kubectl accepts the
exact arguments gc passes, that `kubectl delete --raw PATH -f -` sends the body (chunked,
no Content-Type, which the API server decodes as JSON), and how kubectl reports failures.
Skipped where kubectl is absent.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from tooling import TESTS

from krmfn.cli import gc as gc_cli
from krmfn.gc import planner as gc

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")

FIXTURES = TESTS / "fixtures" / "gc"
NOW = "--now=2024-06-01T12:00:00Z"
# group version -> (plural, kind) served: every Kubernetes kind gc must read (it stops on one a
# cluster does not serve), no custom resource.
RESOURCES = {
    "v1": [("configmaps", "ConfigMap"), ("secrets", "Secret"), ("pods", "Pod"), ("podtemplates", "PodTemplate"),
           ("replicationcontrollers", "ReplicationController"), ("nodes", "Node"),
           ("serviceaccounts", "ServiceAccount"), ("persistentvolumes", "PersistentVolume")],
    "apps/v1": [("deployments", "Deployment"), ("replicasets", "ReplicaSet"), ("daemonsets", "DaemonSet"),
                ("statefulsets", "StatefulSet"), ("controllerrevisions", "ControllerRevision")],
    "batch/v1": [("jobs", "Job"), ("cronjobs", "CronJob")],
    "rbac.authorization.k8s.io/v1": [("roles", "Role"), ("clusterroles", "ClusterRole")],
    "networking.k8s.io/v1": [("ingresses", "Ingress")],
    "storage.k8s.io/v1": [("storageclasses", "StorageClass")],
}
CLUSTER_SCOPED = {"nodes", "clusterroles", "persistentvolumes", "storageclasses"}


class StubApi:
    """Objects by (kind, namespace, name), requests seen, and hooks that change state after a list."""

    def __init__(self, items: list[dict]):
        self.objects = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in items}
        self.requests: list[tuple[str, str, bytes]] = []
        self.after_configmap_list: list = []
        self.namespaced_role = False  # as for a Role and RoleBinding: every cluster-scoped list is Forbidden
        self.lock = threading.Lock()


def status(code: int, reason: str, message: str) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def handler(api: StubApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while (size := int(self.rfile.readline().strip(), 16)):
                    data += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
                return data
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def send(self, code: int, obj: dict) -> None:
            out = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            with api.lock:
                api.requests.append(("GET", self.path, b""))
            path = url.path
            if path == "/version":
                return self.send(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0"})
            if path == "/api":
                return self.send(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
            if path == "/apis":
                return self.send(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                    {"name": g, "versions": [{"groupVersion": f"{g}/v1", "version": "v1"}],
                     "preferredVersion": {"groupVersion": f"{g}/v1", "version": "v1"}}
                    for g in sorted({gv.rpartition("/")[0] for gv in RESOURCES} - {""})]})
            gv = "v1" if path == "/api/v1" else path[len("/apis/"):] if path.startswith("/apis/") else None
            if gv in RESOURCES:
                return self.send(200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
                    {"name": plural, "singularName": kind.lower(), "namespaced": plural not in CLUSTER_SCOPED,
                     "kind": kind,
                     "verbs": ["delete", "get", "list"]} for plural, kind in RESOURCES[gv]]})
            parts = path.strip("/").split("/")
            gv = "v1" if parts[0] == "api" else "/".join(parts[1:3])
            rest = parts[2:] if parts[0] == "api" else parts[3:]
            ns = rest[1] if rest[:1] == ["namespaces"] else None
            plural = rest[-1]
            kind = dict(RESOURCES.get(gv, [])).get(plural)
            if kind is None:
                return self.send(404, status(404, "NotFound", "the server could not find the requested resource"))
            if api.namespaced_role and (ns is None or plural in CLUSTER_SCOPED):
                group = gv.rpartition("/")[0]
                return self.send(403, status(403, "Forbidden", f'{plural} is forbidden: User '
                                             f'"system:serviceaccount:shop:krmfn-gc" cannot list resource "{plural}" '
                                             f'in API group "{group}" at the cluster scope'))
            selector = parse_qs(url.query).get("labelSelector", [""])[0]
            with api.lock:
                items = [dict(o) for (k, n, _), o in sorted(api.objects.items()) if k == kind
                         and (ns is None or n == ns) and (not selector or selector in o["metadata"].get("labels", {}))]
            for item in items:  # the API server leaves these off list items; kubectl puts them back
                item.pop("kind")
                item.pop("apiVersion")
            self.send(200, {"kind": f"{kind}List", "apiVersion": gv, "metadata": {"resourceVersion": "99999"},
                            "items": items})
            if kind == "ConfigMap":
                for hook in api.after_configmap_list:
                    hook(api)

        def do_DELETE(self) -> None:
            body = self.body()
            with api.lock:
                api.requests.append(("DELETE", self.path, body))
                parts = urlparse(self.path).path.strip("/").split("/")
                key = ("ConfigMap", parts[3], parts[5])
                obj = api.objects.get(key)
                if obj is None:
                    return self.send(404, status(404, "NotFound", f'configmaps "{key[2]}" not found'))
                pre = json.loads(body).get("preconditions", {}) if body else {}
                meta = obj["metadata"]
                if pre.get("uid", meta["uid"]) != meta["uid"]:
                    return self.send(409, status(409, "Conflict", f'Operation cannot be fulfilled on configmaps "{key[2]}": '
                                                 f'Precondition failed: UID in precondition: {pre["uid"]}, UID in object meta: {meta["uid"]}'))
                if pre.get("resourceVersion", meta["resourceVersion"]) != meta["resourceVersion"]:
                    return self.send(409, status(409, "Conflict", f'Operation cannot be fulfilled on configmaps "{key[2]}": '
                                                 "the ResourceVersion in the precondition (" + pre["resourceVersion"]
                                                 + ") does not match the ResourceVersion in record (" + meta["resourceVersion"]
                                                 + "). The object might have been modified"))
                del api.objects[key]
            self.send(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                            "details": {"name": key[2], "kind": "configmaps", "uid": meta["uid"]}})

    return Handler


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[StubApi, Path]]:
    stub = StubApi(json.loads((FIXTURES / "cluster.json").read_text())["items"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(stub))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(f"""apiVersion: v1
kind: Config
clusters: [{{name: stub, cluster: {{server: "http://127.0.0.1:{server.server_address[1]}"}}}}]
users: [{{name: nobody, user: {{}}}}]
contexts: [{{name: stub, context: {{cluster: stub, user: nobody, namespace: shop}}}}]
current-context: other
""")
    monkeypatch.setenv("HOME", str(tmp_path))  # kubectl's discovery cache goes here, not in ~
    monkeypatch.delenv("KUBECONFIG", raising=False)
    yield stub, kubeconfig
    server.shutdown()
    server.server_close()


def run(capsys: pytest.CaptureFixture[str], kubeconfig: Path, *argv: str) -> tuple[int, str, str]:
    code = gc_cli.main(["--kubeconfig", str(kubeconfig), "--context", "stub", NOW, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def file_plan(keep: int, served_only: bool = False) -> gc.CollectionPlan:
    objects = gc.parse_list((FIXTURES / "cluster.json").read_bytes())
    if served_only:  # the stub serves Kubernetes' own kinds, no custom resources
        objects = [o for o in objects if "." not in o["apiVersion"].partition("/")[0] or o["apiVersion"].startswith("apps/")]
    return gc.plan_collection(objects, gc.parse_time(NOW.split("=")[1], "now"), gc.Options(keep=keep), gc.gc_table())


def test_reading_through_kubectl_plans_like_the_file(api, capsys):
    stub, kubeconfig = api
    code, out, err = run(capsys, kubeconfig, "-A", "--keep", "1", "-o", "json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    # The Argo Rollout object is not served here (no CRD): the same plan as the file without it.
    assert rows == [r.to_json() for r in file_plan(1, served_only=True).rows]
    lists = [p for m, p, _ in stub.requests if m == "GET" and "limit=" in p]
    assert lists[0] == "/api/v1/configmaps?labelSelector=krmfn.dev%2Ffamily&limit=500"
    assert "/apis/apps/v1/controllerrevisions?limit=500" in lists


def test_the_context_namespace_applies_when_no_namespace_is_given(api, capsys):
    stub, kubeconfig = api
    code, out, _ = run(capsys, kubeconfig, "--keep", "1", "-o", "json")
    assert code == 0
    assert {r["namespace"] for r in json.loads(out)["rows"]} == {"shop"}
    lists = [urlparse(p).path for m, p, _ in stub.requests if m == "GET" and "limit=" in p]
    assert all("/namespaces/shop/" in p or p.rsplit("/", 1)[1] in CLUSTER_SCOPED for p in lists), lists


def test_apply_deletes_with_preconditions_and_reports_conflicts_and_vanished_objects(api, capsys):
    stub, kubeconfig = api
    plan = file_plan(1).deletions
    changed, vanished = plan[1], plan[3]

    def meanwhile(s: StubApi) -> None:  # after gc has read the ConfigMaps, someone else acts
        s.objects["ConfigMap", changed.namespace, changed.name]["metadata"]["resourceVersion"] = "77777"
        s.objects.pop(("ConfigMap", vanished.namespace, vanished.name))
    stub.after_configmap_list.append(meanwhile)

    code, out, err = run(capsys, kubeconfig, "-A", "--keep", "1", "--apply")
    assert code == 1
    assert err.splitlines()[-1] == "krmfn: 1 of 6 deletions failed"
    deletes = [(p, json.loads(b)) for m, p, b in stub.requests if m == "DELETE"]
    assert [p for p, _ in deletes] == [f"/api/v1/namespaces/{r.namespace}/configmaps/{r.name}" for r in plan]
    assert [b["preconditions"] for _, b in deletes] == [{"uid": r.uid, "resourceVersion": r.resource_version}
                                                       for r in plan]
    report = out.splitlines()[-6:]
    assert report[1] == (f"failed configmap {changed.namespace}/{changed.name}: changed or replaced since it was read; "
                         f'not deleted: Error from server (Conflict): Operation cannot be fulfilled on configmaps '
                         f'"{changed.name}": the ResourceVersion in the precondition ({changed.resource_version}) '
                         "does not match the ResourceVersion in record (77777). The object might have been modified")
    assert report[3] == f"already gone configmap {vanished.namespace}/{vanished.name}"
    assert [line.split()[0] for line in report] == ["deleted", "failed", "deleted", "already", "deleted", "deleted"]
    assert ("ConfigMap", changed.namespace, changed.name) in stub.objects
    assert ("ConfigMap", "shop", "kube-root-ca.crt") in stub.objects


def test_a_referrer_kind_the_cluster_does_not_serve_is_skipped_with_a_note(api, capsys, tmp_path):
    _, kubeconfig = api
    fn = tmp_path / "fn.yaml"
    fn.write_text("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: fn}\nfieldSpecs:\n"
                  "- {kind: Rollout, group: argoproj.io, path: spec/template/spec/volumes/configMap/name}\n")
    code, out, err = run(capsys, kubeconfig, "-A", "--function-config", str(fn))
    assert code == 0
    (line,) = err.splitlines()
    assert line.startswith("krmfn: skipped kinds the cluster does not serve: ") and "rollout.argoproj.io" in line
    assert "sealedsecrets.bitnami.com" in line  # renamed custom kinds share the one note


def test_a_namespaced_role_gets_every_cluster_scoped_kind_named_in_one_line(api, capsys):
    """docs/gc.md's one-namespace setup: a Role cannot grant nodes, PersistentVolumes, StorageClasses
    or ClusterRoles. gc names them all at once and goes on only when told to skip them."""
    stub, kubeconfig = api
    stub.namespaced_role = True
    code, out, err = run(capsys, kubeconfig, "--namespace", "shop", "--keep", "1", "-o", "json")
    assert (code, out) == (2, "")
    skip = "node,clusterrole.rbac.authorization.k8s.io,storageclass.storage.k8s.io,persistentvolume"
    assert err == (f"krmfn: kubectl may not list 4 kinds gc reads ({skip.replace(',', ', ')}), the first saying: "
                   'Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:shop:krmfn-gc" '
                   'cannot list resource "nodes" in API group "" at the cluster scope; let gc list them, or pass '
                   f"--skip-kind {skip} if none of their objects can name a krmfn ConfigMap or Secret (a namespaced "
                   "Role cannot grant the cluster-scoped ones).\n")
    code, out, err = run(capsys, kubeconfig, "--namespace", "shop", "--keep", "1", "-o", "json", "--skip-kind", skip)
    assert code == 0, err
    assert err.splitlines()[-1] == f"krmfn: not read, as --skip-kind asked: {skip.replace(',', ', ')}"
    assert {r["namespace"] for r in json.loads(out)["rows"]} == {"shop"}
    assert json.loads(out)["rows"] == [r.to_json() for r in file_plan(1, served_only=True).rows
                                       if r.namespace == "shop"]
