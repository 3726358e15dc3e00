"""docs/troubleshooting.md quotes krmfn's own messages: each quote must be what krmfn prints.

Each entry of the page is marked ``<!-- message: ID -->`` and followed by a ``text`` block: the
lines krmfn printed when it ran on the scenario ``ID`` below, written into a temporary directory
and run there as a user would run it (``python -m krmfn ...``: the console script's code). The
test runs every scenario and checks that each quoted line is a line of the run's output (stderr,
then stdout), where ``[...]`` in a quoted line stands for any text, and that the run exits as the
scenario says. A message that changes fails the test until its entry says what krmfn now says:
the page cannot drift from the code. Every scenario has an entry, and every entry a scenario.

To write or update an entry, print what the scenarios give:
``python tests/docs/test_troubleshooting.py [ID ...]``.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "troubleshooting.md"
ENTRY = re.compile(r"<!-- message: ([\w-]+) -->\n```text\n(.*?)```", re.S)
GAP = "[...]"


@dataclass
class Scenario:
    argv: list[str]
    stdin: str | None = None  # None: nothing piped in (stdin is /dev/null, or a terminal with tty)
    code: int = 0  # the exit status the run must give
    files: dict[str, str] = field(default_factory=dict)  # written into the working directory first
    tty: bool = False  # stdin is a terminal
    env: dict[str, str] = field(default_factory=dict)


def stream(*docs: str) -> str:
    return "---\n".join(docs)


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  annotations:
    krmfn.dev/content-hash: "true"
data:
  LOG_LEVEL: info
"""
SEALED_SECRET = """\
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata:
  name: db-creds
  namespace: shop
  annotations:
    krmfn.dev/content-hash: "true"
spec:
  encryptedData:
    password: AgBy3i4OJSWK+PiTySYZZA==
"""
EXTERNAL_SECRET = """\
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: db
  namespace: shop
  annotations:
    krmfn.dev/content-hash: "true"
spec:
  secretStoreRef: {name: vault, kind: ClusterSecretStore}
  target: {name: db-creds, creationPolicy: Merge}
  dataFrom: [{extract: {key: shop/db}}]
"""
PLAIN_CONFIGMAP = CONFIGMAP.replace('  annotations:\n    krmfn.dev/content-hash: "true"\n', "")
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
      containers:
      - name: app
        image: nginx
        envFrom:
        - configMapRef:
            name: app-config
"""


def annotate(text: str, *lines: str) -> str:
    """``text`` with these annotations on its own metadata."""
    head, rest = text.split("metadata:\n", 1)
    return head + "metadata:\n  annotations:\n" + "".join(f"    {line}\n" for line in lines) + rest


def spec(text: str, *lines: str) -> str:
    """``text`` with these lines at the top of its spec."""
    head, rest = text.split("\nspec:\n", 1)
    return head + "\nspec:\n" + "".join(f"  {line}\n" for line in lines) + rest


def kind(text: str, api_version: str, name: str) -> str:
    lines = text.split("\n")
    return "\n".join([f"apiVersion: {api_version}", f"kind: {name}", *lines[2:]])


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate
        envFrom:
        - configMapRef:
            name: app-config
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  containers:
  - name: app
    image: nginx
    envFrom:
    - configMapRef:
        name: app-config
"""
CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "0 * * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: report
            image: report
            envFrom:
            - configMapRef:
                name: app-config
"""
PROMETHEUS = """\
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata:
  name: main
spec:
  configMaps: [app-config]
"""
WIDGET = """\
apiVersion: example.com/v1
kind: Widget
metadata:
  name: dashboard
spec:
  settings:
    configMapRef:
      name: app-config
"""
RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app-config
  data:
    LOG_LEVEL: info
functionConfig:
  apiVersion: fn.krmfn.dev/v1alpha1
  kind: ContentHash
  metadata:
    name: content-hash
  selectt: all
"""
HELM3 = (REPO / "examples" / "helm" / "rendered.yaml").read_text()
HELM4 = (REPO / "examples" / "helm" / "helm4-input.yaml").read_text()


def live(*objects: dict) -> str:
    import json

    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}, indent=2)


def hashed_configmap(name: str, family: str, created: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}", "resourceVersion": "1",
                         "creationTimestamp": created, "labels": {"krmfn.dev/family": family},
                         "annotations": {"krmfn.dev/original-name": family}},
            "data": {"LOG_LEVEL": "info"}}


VERSIONS = [hashed_configmap(f"app-config-{s}", "app-config", f"2024-05-0{i + 1}T12:00:00Z")
            for i, s in enumerate(("5222448gbm", "69hbb4m9f4", "chh8ff579g"))]
# A stand-in kubectl for the cluster scenarios (no API server runs here): `get` answers from
# live.json by kind, as `kubectl get KIND -o json` would; the kinds in $FORBIDDEN fail as RBAC
# makes them fail, those in $UNSERVED as a cluster without them does; `delete` finds the object
# changed since it was read.
KUBECTL = f"""\
#!{sys.executable}
import json, os, sys
argv = sys.argv[1:]
if argv[0] == "get":
    kind = argv[1].split(".")[0].removesuffix("s")
    if kind in os.environ.get("UNSERVED", "").split(","):
        sys.exit(print(f"error: the server doesn't have a resource type {{kind}}s", file=sys.stderr) or 1)
    if kind in os.environ.get("FORBIDDEN", "").split(","):
        sys.exit(print(f'Error from server (Forbidden): {{kind}}s is forbidden: User "system:serviceaccount:'
                       f'krmfn-system:krmfn-gc" cannot list resource "{{kind}}s" in API group "apps" at the '
                       'cluster scope', file=sys.stderr) or 1)
    items = [o for o in json.load(open("live.json"))["items"] if o["kind"].lower() == kind]
    print(json.dumps({{"apiVersion": "v1", "kind": "List", "items": items}}))
else:
    sys.stdin.read()
    name = argv[argv.index("--raw") + 1].rsplit("/", 1)[1]
    sys.exit(print(f'Error from server (Conflict): Operation cannot be fulfilled on configmaps "{{name}}": '
                   'Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2', file=sys.stderr) or 1)
"""
GC_NOW = "--now=2024-06-01T12:00:00Z"  # gc's clock, for ages that do not move
REPLICASET = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": "web-7c6d5b8f9", "namespace": "shop", "uid": "uid-rs",
                           "creationTimestamp": "2024-05-03T12:00:00Z"},
              "spec": {"replicas": 1, "template": {"spec": {"containers": [
                  {"name": "app", "image": "nginx", "envFrom": [{"configMapRef": {"name": "app-config-chh8ff579g"}}]}]}}}}


SCENARIOS: dict[str, Scenario] = {
    # --- the command line -------------------------------------------------------------------
    "terminal": Scenario([], tty=True, code=2),
    "plain-manifests": Scenario([], stream(CONFIGMAP, DEPLOYMENT), code=2),
    "helm3-without-helm": Scenario([], HELM3, code=2),
    "helm4-without-helm": Scenario([], HELM4, code=2),
    "empty-stdin": Scenario([], code=1),  # docker run without -i: the container's stdin is /dev/null
    "helm-chart": Scenario(["web"], files={"web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
                                           "web/templates/cm.yaml": "metadata:\n  name: {{ .Release.Name }}\n"},
                           code=2),
    "misspelt-flag": Scenario(["--stream", "--retain", "helm"], CONFIGMAP, code=2),
    "stream-nothing-piped": Scenario(["--stream"], tty=True, code=2),
    "no-such-path": Scenario(["deploy/"], code=2),
    "no-yaml-files": Scenario(["deploy/"], files={"deploy/README.md": "# not YAML\n"}, code=2),
    "unknown-field": Scenario([], RESOURCE_LIST, code=1),
    "bad-value": Scenario(["--stream", "--select", "some"], CONFIGMAP, code=2),
    # --- opting in --------------------------------------------------------------------------
    "misspelt-key": Scenario(["--stream"], stream(CONFIGMAP.replace("content-hash", "contenthash"), DEPLOYMENT)),
    "key-in-the-wrong-place": Scenario(["--stream"], stream(
        CONFIGMAP.replace("annotations:", "labels:"), DEPLOYMENT)),
    "unquoted-true": Scenario(["--stream"], stream(CONFIGMAP.replace('"true"', "true"), DEPLOYMENT), code=1),
    "mark-in-pod-template": Scenario(["--stream"], stream(PLAIN_CONFIGMAP, DEPLOYMENT.replace(
        "      labels: {app: web}\n", '      labels: {app: web}\n      annotations:\n        krmfn.dev/content-hash: "true"\n'))),
    "opt-out-wins": Scenario(["--stream", "-v", "--names", "app-config"], stream(
        CONFIGMAP.replace('"true"', '"false"'), DEPLOYMENT)),
    "kustomize-hashes-it": Scenario(["--stream", "-v"], stream(annotate(
        PLAIN_CONFIGMAP, "internal.config.kubernetes.io/needsHashSuffix: enabled",
        'krmfn.dev/content-hash: "true"'), DEPLOYMENT)),
    "not-in-this-render": Scenario(["--stream", "--honor", "reloader"], annotate(
        DEPLOYMENT, 'secret.reloader.stakater.com/reload: "db-credentials"')),
    "mark-names-unreferenced": Scenario(["--stream", "--honor", "reloader"], stream(PLAIN_CONFIGMAP.replace(
        "app-config", "feature-flags"), annotate(DEPLOYMENT, 'configmap.reloader.stakater.com/reload: "feature-flags"'))),
    "mark-names-a-pattern": Scenario(["--stream", "--honor", "reloader"], stream(PLAIN_CONFIGMAP, annotate(
        DEPLOYMENT, 'configmap.reloader.stakater.com/reload: "app-.*"'))),
    "nothing-renamed": Scenario(["--stream"], PLAIN_CONFIGMAP),
    "rule-matches-nothing": Scenario(["--stream", "--names", "ap-config", "-l", "tier=web", "-v"], PLAIN_CONFIGMAP),
    "kinds-leave-it-out": Scenario(["--stream", "-v"], stream(
        PLAIN_CONFIGMAP.replace("ConfigMap", "Secret").replace("\ndata:", "\nstringData:"),
        annotate(DEPLOYMENT.replace("configMapRef", "secretRef"), 'krmfn.dev/content-hash: "true"'))),
    # --- references -------------------------------------------------------------------------
    "nothing-references-it": Scenario(["--stream"], CONFIGMAP),
    "select-all-renames-it": Scenario(["--stream", "--select", "all"], PLAIN_CONFIGMAP),
    "other-namespace": Scenario(["--stream"], stream(CONFIGMAP, DEPLOYMENT.replace(
        "  name: web\n", "  name: web\n  namespace: demo\n", 1))),
    "not-in-the-input": Scenario(["--stream", "-v"], DEPLOYMENT),
    "unplaced-reference": Scenario(["--stream"], stream(CONFIGMAP, DEPLOYMENT, WIDGET)),
    "leftover-name": Scenario(["--stream"], stream(CONFIGMAP, DEPLOYMENT.replace(
        "        image: nginx\n", "        image: nginx\n        args: [--config-map, app-config]\n"))),
    "leftover-name-inside": Scenario(["--stream"], stream(CONFIGMAP, DEPLOYMENT.replace(
        "        image: nginx\n", "        image: nginx\n        args: [--config-map=default/app-config]\n"))),
    "roll-path": Scenario(["--stream"], stream(PLAIN_CONFIGMAP, DEPLOYMENT)),
    "ambiguous": Scenario(["--stream"], stream(CONFIGMAP, CONFIGMAP.replace("  name: app-config\n", "  name: app-config-5222448gbm\n").replace(
        '"true"', '"true"\n    krmfn.dev/original-name: app-config'), DEPLOYMENT.replace("name: app-config", "name: app-config-chh8ff579g")), code=1),
    "twice": Scenario(["--stream"], stream(CONFIGMAP, CONFIGMAP, DEPLOYMENT), code=1),
    "renamed-before": Scenario(["--stream"], stream(
        PLAIN_CONFIGMAP.replace("  name: app-config\n", "  name: app-config-hf678c7m2b\n  annotations:\n"
                                "    krmfn.dev/original-name: app-config\n"), DEPLOYMENT)),
    "copied-original-name": Scenario(["--stream"], stream(CONFIGMAP.replace("  name: app-config\n", "  name: app-settings\n")
                                                          .replace('"true"', '"true"\n    krmfn.dev/original-name: app-config'),
                                                          DEPLOYMENT)),
    # --- what a change does to each workload -------------------------------------------------
    "recreate": Scenario(["--stream"], stream(CONFIGMAP, spec(DEPLOYMENT, "strategy: {type: Recreate}"))),
    "on-delete": Scenario(["--stream"], stream(CONFIGMAP, spec(
        kind(DEPLOYMENT, "apps/v1", "StatefulSet"), "updateStrategy: {type: OnDelete}"))),
    "replica-set": Scenario(["--stream"], stream(CONFIGMAP, kind(DEPLOYMENT, "apps/v1", "ReplicaSet"))),
    "bare-pod": Scenario(["--stream"], stream(CONFIGMAP, POD)),
    "job": Scenario(["--stream"], stream(CONFIGMAP, JOB)),
    "job-generate-name": Scenario(["--stream", "-v"], stream(CONFIGMAP, JOB.replace("  name: db-migrate\n",
                                                                                  "  generateName: db-migrate-\n"))),
    "helm-hook": Scenario(["helm"], stream(CONFIGMAP, annotate(JOB, '"helm.sh/hook": pre-install'))),
    "paused": Scenario(["--stream"], stream(CONFIGMAP, spec(DEPLOYMENT, "paused: true"))),
    "suspended": Scenario(["--stream"], stream(CONFIGMAP, CRONJOB)),
    "no-pod-template": Scenario(["--stream", "-v", "--strategy", "annotation"], stream(CONFIGMAP, PROMETHEUS)),
    "stable-and-immutable": Scenario(["--stream", "--strategy", "annotation"], stream(
        CONFIGMAP + "immutable: true\n", DEPLOYMENT)),
    # --- names ------------------------------------------------------------------------------
    "sealed-strict": Scenario(["--stream"], SEALED_SECRET, code=1),
    "external-merge": Scenario(["--stream"], EXTERNAL_SECRET, code=1),
    "invalid-name": Scenario(["--stream"], CONFIGMAP.replace("app-config", "App_Config"), code=1),
    "name-too-long": Scenario(["--stream"], CONFIGMAP.replace("app-config", "a" * 250), code=1),
    "job-name-too-long": Scenario(["--stream", "--suffix-jobs"], stream(
        CONFIGMAP, JOB.replace("db-migrate", "db-migrate-" + "x" * 45)), code=1),
    "name-back-taken": Scenario(["--stream"], stream(
        CONFIGMAP.replace("  name: app-config\n", "  name: app-config-hf678c7m2b\n").replace(
            '"true"', '"false"\n    krmfn.dev/original-name: app-config'), PLAIN_CONFIGMAP), code=1),
    # --- input krmfn cannot read ----------------------------------------------------------
    "yaml-error": Scenario(["deploy/"], files={"deploy/configmap.yaml": CONFIGMAP.replace(
        "LOG_LEVEL: info", "LOG_LEVEL: [info")}, code=1),
    "data-not-a-string": Scenario(["--stream"], CONFIGMAP.replace("LOG_LEVEL: info", "REPLICAS: 3"), code=1),
    # --- krmfn gc ---------------------------------------------------------------------------
    "gc-no-kubectl": Scenario(["gc", "-n", "shop"], env={"PATH": "/nonexistent"}, code=2),
    "gc-thin-read": Scenario(["gc", "-f", "live.json", GC_NOW], files={"live.json": live(*VERSIONS)}, code=2),
    "gc-forbidden": Scenario(["gc", "--kubectl", "./kubectl", "-n", "shop", GC_NOW],
                             files={"kubectl": KUBECTL, "live.json": live(*VERSIONS, REPLICASET)},
                             env={"FORBIDDEN": "replicaset"}, code=2),
    "gc-not-served": Scenario(["gc", "--kubectl", "./kubectl", "-n", "shop", GC_NOW],
                              files={"kubectl": KUBECTL, "live.json": live(*VERSIONS, REPLICASET)},
                              env={"UNSERVED": "statefulset"}, code=2),
    "gc-not-a-list": Scenario(["gc", "-f", "live.json"], files={"live.json": CONFIGMAP}, code=2),
    "gc-apply-with-file": Scenario(["gc", "-f", "live.json", "--apply"], files={"live.json": live()}, code=2),
    "gc-deletion-failed": Scenario(["gc", "--kubectl", "./kubectl", "-n", "shop", "--keep", "1", "--apply", GC_NOW],
                                   files={"kubectl": KUBECTL, "live.json": live(*VERSIONS, REPLICASET)}, code=1),
}


def run(name: str, tmp_path: Path) -> tuple[int, str]:
    """Run one scenario in ``tmp_path``: its exit status, and stderr followed by stdout."""
    s = SCENARIOS[name]
    for path, text in s.files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        if path == "kubectl":
            target.chmod(0o755)
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(REPO), **s.env}
    argv = [sys.executable, "-m", "krmfn", *s.argv]
    if s.tty:
        controller, terminal = pty.openpty()
        try:
            done = subprocess.run(argv, stdin=terminal, capture_output=True, text=True, cwd=tmp_path, env=env,
                                  timeout=60)
        finally:
            os.close(terminal)
            os.close(controller)
    elif s.stdin is None:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=60)
    else:
        done = subprocess.run(argv, input=s.stdin, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    return done.returncode, done.stderr + done.stdout


def matches(quoted: str, line: str) -> bool:
    pieces = quoted.split(GAP)
    if len(pieces) == 1:
        return quoted == line
    pattern = ".*".join(map(re.escape, pieces))
    return re.fullmatch(pattern, line) is not None


def entries() -> dict[str, str]:
    found: dict[str, str] = {}
    for m in ENTRY.finditer(PAGE.read_text()):
        assert m.group(1) not in found, f"two entries quote scenario {m.group(1)}"
        found[m.group(1)] = m.group(2)
    return found


def test_every_scenario_has_an_entry_and_every_entry_a_scenario() -> None:
    assert set(entries()) == set(SCENARIOS)
    # Every marker is followed by its quote: a marker before anything else would quote nothing.
    assert PAGE.read_text().count("<!-- message: ") == len(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_entry_quotes_what_krmfn_prints(name: str, tmp_path: Path) -> None:
    quoted = entries().get(name)
    if quoted is None:
        pytest.fail(f"docs/troubleshooting.md has no entry for scenario {name}")
    code, output = run(name, tmp_path)
    lines = output.splitlines()
    for want in quoted.splitlines():
        assert any(matches(want, line) for line in lines), (
            f"docs/troubleshooting.md, entry {name}: krmfn no longer prints\n  {want}\nIt printed:\n{output}")
    assert code == SCENARIOS[name].code, output


if __name__ == "__main__":
    import tempfile

    for scenario in sys.argv[1:] or sorted(SCENARIOS):
        with tempfile.TemporaryDirectory() as where:
            status, printed = run(scenario, Path(where))
        print(f"=== {scenario} (exit {status})\n{printed}")
