"""Differential test with `kubectl kustomize` as the oracle.

kustomize's configMapGenerator hashes a ConfigMap and rewrites its references; krmfn, fed the
same ConfigMap unhashed and opted in, must produce the same name and the same references.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import exit_code, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kustomize oracle) is not on PATH")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      initContainers:
      - name: init
        image: busybox
        envFrom:
        - configMapRef:
            name: app
      containers:
      - name: main
        image: nginx
        env:
        - name: A
          valueFrom:
            configMapKeyRef:
              name: app
              key: k0
        envFrom:
        - configMapRef:
            name: app
      volumes:
      - name: plain
        configMap:
          name: app
      - name: projected
        projected:
          sources:
          - configMap:
              name: app
"""

CRONJOB = """\
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
          containers:
          - name: job
            image: busybox
            envFrom:
            - configMapRef:
                name: app
"""


def references(obj: dict) -> list[str]:
    found = []

    def walk(node, parent_key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "name" and parent_key in ("configMapRef", "configMapKeyRef", "configMap"):
                    found.append(v)
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, parent_key)

    walk(obj)
    return found


def kustomize(tmp: Path, literals: list[str], files: dict[str, bytes]) -> list[dict]:
    gen = {"name": "app"}
    if literals:
        gen["literals"] = literals
    if files:
        gen["files"] = sorted(files)
        for name, content in files.items():
            (tmp / name).write_bytes(content)
    (tmp / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp / "cronjob.yaml").write_text(CRONJOB)
    (tmp / "kustomization.yaml").write_text(yaml.safe_dump(
        {"resources": ["deployment.yaml", "cronjob.yaml"], "configMapGenerator": [gen]}))
    out = subprocess.run([KUBECTL, "kustomize", str(tmp)], capture_output=True, text=True, check=True)
    return list(YAML(typ="safe", pure=True).load_all(out.stdout))  # Go writes YAML 1.2: `k: =` is a string


def through_krmfn(literals: list[str], files: dict[str, bytes], generated_cm: dict) -> list[dict]:
    """The same ConfigMap, unhashed and opted in: its data from the generator's own inputs (a YAML 1.1
    reader would fold the U+2028 in kustomize's output), binaryData as kustomize encoded it."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "app", "annotations": {"krmfn.dev/content-hash": "true"}}}
    data = dict(lit.split("=", 1) for lit in literals)
    for name, content in files.items():
        try:
            data[name] = content.decode("utf-8")
        except UnicodeDecodeError:
            cm.setdefault("binaryData", {})[name] = generated_cm["binaryData"][name]
    cm["data"] = data
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [cm, yaml.safe_load(DEPLOYMENT), yaml.safe_load(CRONJOB)]}
    out = run(yaml.safe_dump(rl, allow_unicode=True, width=1 << 16, default_style="\""))
    assert exit_code(out) == 0, out.results
    return yaml.safe_load(out.text)["items"]


def compare(tmp: Path, literals: list[str], files: dict[str, bytes]) -> None:
    oracle = kustomize(tmp, literals, files)
    ours = through_krmfn(literals, files, next(o for o in oracle if o["kind"] == "ConfigMap"))
    by_kind = lambda objs: {o["kind"]: o for o in objs}  # noqa: E731
    o, k = by_kind(oracle), by_kind(ours)
    assert k["ConfigMap"]["metadata"]["name"] == o["ConfigMap"]["metadata"]["name"]
    for kind in ("Deployment", "CronJob"):
        assert references(k[kind]) == references(o[kind])
        assert set(references(k[kind])) == {o["ConfigMap"]["metadata"]["name"]}


CASES = {
    "simple": (["k0=v", "year=2020"], {}),
    "html-escaped-by-go": (["k0=<b>&amp;</b>", "arrow=a->b"], {}),
    "unicode": (["k0=ünïcödé ☃ 😀", "ls=a\u2028b"], {}),
    "multi-line file": (["k0=x"], {"app.conf": b"server {\n  listen 80;\n}\n"}),
    "binary file": (["k0=x"], {"blob.bin": bytes(range(256))}),
    "empty value": (["k0="], {}),
    # Go 1.22 and later write \b and \f short (kubectl 1.32's kustomize does); the rest as \u00XX.
    "control characters": (["k0=x"], {"ctl.txt": b"a\bb\fc\x01d\x1fe\tg\rh\n"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_name_and_references_as_kustomize(tmp_path, case):
    literals, files = CASES[case]
    compare(tmp_path, literals, files)


# Values start with a letter: bare scalars such as `=` or `0E0` in kustomize's output read
# differently under YAML 1.1 and 1.2 parsers, which would test the harness, not the hash.
VALUES = st.builds(lambda head, tail: head + tail, st.sampled_from("aZü☃"),
                   st.text(st.sampled_from("abz019 <>&-_.:/@%+=\u00e9\u2603\U0001F600\u2028"), max_size=20)
                   ).filter(lambda s: s == s.strip())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.from_regex(r"k0|[a-z][a-z0-9_.-]{0,8}", fullmatch=True), VALUES, min_size=1, max_size=4))
def test_generated_literals_agree_with_kustomize(tmp_path_factory, data):
    data.setdefault("k0", "x")
    compare(tmp_path_factory.mktemp("oracle"), [f"{k}={v}" for k, v in data.items()], {})


def test_kustomize_output_keeps_its_names_through_krmfn(tmp_path):
    """The README's Flux step, ``kubectl kustomize . | krmfn --stream --select all``: the generator's
    names already end in their own suffix and are kept (no ``app-h29d89cmmt-h29d89cmmt``), and a
    second run changes nothing."""
    import sys

    (tmp_path / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(
        {"resources": ["deployment.yaml"], "configMapGenerator": [{"name": "app", "literals": ["k0=v", "dot=."]}]}))
    rendered = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    krmfn = [sys.executable, "-m", "krmfn", "--stream", "--select", "all"]
    once = subprocess.run(krmfn, input=rendered, capture_output=True, text=True, check=True).stdout
    twice = subprocess.run(krmfn, input=once, capture_output=True, text=True, check=True).stdout
    before = {(o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(rendered)}
    after = list(yaml.safe_load_all(once))
    assert {(o["kind"], o["metadata"]["name"]) for o in after} == before
    cm = next(o for o in after if o["kind"] == "ConfigMap")
    assert cm["immutable"] is True and cm["metadata"]["annotations"]["krmfn.dev/original-name"] == "app"
    assert twice == once
