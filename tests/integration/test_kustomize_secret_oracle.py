"""Differential test for Secrets, with `kubectl kustomize` and its secretGenerator as the oracle.

kustomize generates a Secret, hashes it and rewrites every reference it knows. krmfn, fed that
same Secret under its plain name and opted in, with the same referrers, must produce the same
name and, object for object, the same referrers. ``stringData`` is covered by a patch: kustomize
hashes a generated Secret after its patches, so a patch that adds ``stringData`` is hashed too.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import exit_code, run
from ruamel.yaml import YAML

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kustomize oracle) is not on PATH")

# Every place kustomize's nameReference configuration (api/konfig/builtinpluginconsts/namereference.go)
# rewrites a Secret's name.
REFERRERS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      imagePullSecrets:
      - name: creds
      initContainers:
      - name: init
        image: busybox
        envFrom:
        - secretRef: {name: creds}
      containers:
      - name: main
        image: nginx
        env:
        - name: PASSWORD
          valueFrom:
            secretKeyRef: {name: creds, key: password}
        envFrom:
        - secretRef: {name: creds}
      volumes:
      - name: plain
        secret: {secretName: creds}
      - name: projected
        projected:
          sources:
          - secret: {name: creds}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          imagePullSecrets: [{name: creds}]
          containers:
          - name: job
            image: busybox
            envFrom: [{secretRef: {name: creds}}]
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: puller
imagePullSecrets:
- name: creds
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: site
  annotations:
    nginx.ingress.kubernetes.io/auth-secret: creds
    nginx.ingress.kubernetes.io/auth-tls-secret: creds
spec:
  tls:
  - hosts: [site.example.com]
    secretName: creds
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: example.com/csi
parameters:
  secretName: creds
  adminSecretName: creds
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: share
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteMany]
  azureFile:
    secretName: creds
    shareName: share
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: read-creds
rules:
- apiGroups: [""]
  resources: [secrets]
  resourceNames: [creds]
  verbs: [get]
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: hello
spec:
  template:
    spec:
      containers:
      - image: hello
        env:
        - name: TOKEN
          valueFrom:
            secretKeyRef: {name: creds, key: password}
"""

STRING_DATA_PATCH = """\
apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
"""


def kustomize(tmp: Path, secret_type: str | None, literals: list[str], files: dict[str, bytes],
              string_data: dict[str, str]) -> list[dict]:
    gen: dict[str, object] = {"name": "creds"}
    if secret_type:
        gen["type"] = secret_type
    if literals:
        gen["literals"] = literals
    if files:
        gen["files"] = sorted(files)
        for name, content in files.items():
            (tmp / name).write_bytes(content)
    (tmp / "referrers.yaml").write_text(REFERRERS)
    kustomization: dict[str, object] = {"resources": ["referrers.yaml"], "secretGenerator": [gen]}
    if string_data:
        patch = yaml.safe_load(STRING_DATA_PATCH)
        patch["stringData"] = string_data
        kustomization["patches"] = [{"patch": yaml.safe_dump(patch)}]
    (tmp / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    out = subprocess.run([KUBECTL, "kustomize", str(tmp)], capture_output=True, text=True, check=True)
    return list(YAML(typ="safe", pure=True).load_all(out.stdout))


def through_krmfn(generated: dict) -> list[dict]:
    """The generated Secret under its plain name, opted in, with the unrewritten referrers."""
    secret = {**generated, "metadata": {"name": "creds", "annotations": {"krmfn.dev/content-hash": "true"}}}
    items = [secret, *yaml.safe_load_all(REFERRERS)]
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    out = run(yaml.safe_dump(rl, allow_unicode=True, width=1 << 16, default_style="\""))
    assert exit_code(out) == 0, out.results
    return yaml.safe_load(out.text)["items"]


CASES = {
    "Opaque by default": (None, ["password=pass", "user=admin"], {}, {}),
    "basic-auth": ("kubernetes.io/basic-auth", ["username=admin", "password=s3cr3t"], {}, {}),
    "tls with files": ("kubernetes.io/tls", [], {"tls.crt": b"-----BEGIN CERTIFICATE-----\nMIIB\n",
                                                  "tls.key": b"-----BEGIN PRIVATE KEY-----\nMIIE\n"}, {}),
    "custom type": ("example.com/token", ["token=<a&b>"], {}, {}),
    "binary data": ("Opaque", ["k=x"], {"blob.bin": bytes(range(256))}, {}),
    "stringData": ("kubernetes.io/basic-auth", ["password=pass"], {}, {"username": "admin", "note": "ünï ☃"}),
    "only stringData": ("Opaque", [], {}, {"config.yaml": "a: 1\nb: [x, y]\n"}),
    "empty value": ("Opaque", ["empty="], {}, {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_name_and_references_as_kustomize(tmp_path, case):
    secret_type, literals, files, string_data = CASES[case]
    oracle = kustomize(tmp_path, secret_type, literals, files, string_data)
    generated = next(o for o in oracle if o["kind"] == "Secret")
    ours = through_krmfn(generated)
    secret = next(o for o in ours if o["kind"] == "Secret")
    assert secret["metadata"]["name"] == generated["metadata"]["name"]
    assert secret["immutable"] is True
    referrers = lambda objs: {(o["kind"], o["metadata"]["name"]): o for o in objs if o["kind"] != "Secret"}  # noqa: E731
    assert referrers(ours) == referrers(oracle)
    assert generated["metadata"]["name"] in yaml.safe_dump(referrers(ours))
    assert "name: creds\n" not in yaml.safe_dump(referrers(ours))
