"""examples/argocd: the Config Management Plugins' generate commands, run as Argo CD runs them.

Argo CD itself cannot run here (no cluster), so this runs what its plugin sidecar would: each
ConfigManagementPlugin's ``generate`` command and args, as written in cmp-plugins.yaml, in a copy
of an Application's source directory that its ``discover`` rule matches, with the build
environment Argo CD gives (``ARGOCD_APP_NAME``, ``ARGOCD_APP_NAMESPACE``). ``kustomize build``
is kubectl's kustomize (v5.5.0) behind a ``kustomize`` script, since no standalone kustomize is
installed here; ``helm`` is helm 3, as test_helm.py gets it. What the command prints must be only
Kubernetes objects, as Argo CD requires, with the ConfigMap hashed, its references following and
the ``argocd`` retention annotations on it; and a render that fails must fail the command rather
than reach krmfn as an empty stream.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from containers import example_image
from tooling import EXAMPLES, env_with, fetch_helm, need, run, write_krmfn

ARGOCD = EXAMPLES / "argocd"
SOURCES = {"krmfn-kustomize": EXAMPLES / "kustomize" / "base", "krmfn-helm": EXAMPLES / "helm" / "api"}
PRUNE = ("argocd.argoproj.io/sync-options", "Prune=false")


def plugins() -> dict[str, dict]:
    [configmap] = yaml.safe_load_all((ARGOCD / "cmp-plugins.yaml").read_text())
    found = {}
    for text in configmap["data"].values():
        plugin = yaml.safe_load(text)
        assert plugin["apiVersion"] == "argoproj.io/v1alpha1" and plugin["kind"] == "ConfigManagementPlugin"
        found[plugin["metadata"]["name"]] = plugin
    return found


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """krmfn, ``kustomize`` (kubectl's) and helm 3 on PATH, as the sidecar image would have them."""
    path = tmp_path / "bin"
    write_krmfn(path)
    kubectl = need("kubectl")
    kustomize = path / "kustomize"
    kustomize.write_text(f'#!/bin/sh\n[ "$1" = build ] || exit 2\nshift\nexec "{kubectl}" kustomize "$@"\n')
    kustomize.chmod(0o755)
    helm, how = fetch_helm(3)
    if helm is None:
        if os.environ.get("KRMFN_REQUIRE_HELM") == "1":
            pytest.fail(f"{how} (KRMFN_REQUIRE_HELM=1)", pytrace=False)
        pytest.skip(how)
    (path / "helm").symlink_to(helm)
    return path


def generate(plugin: dict, source: Path, bin_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    spec = plugin["spec"]["generate"]
    env = env_with(bin_dir, ARGOCD_APP_NAME="api", ARGOCD_APP_NAMESPACE="api", HOME=str(tmp_path / "home"))
    for key in ("HELM_CONFIG_HOME", "HELM_CACHE_HOME", "HELM_DATA_HOME"):
        env[key] = str(tmp_path / key.lower())
    return run([*spec["command"], *spec.get("args", [])], cwd=source, env=env)


def test_the_example_holds_both_plugins_and_the_sidecars_mount_them() -> None:
    assert set(plugins()) == set(SOURCES)
    [patch] = yaml.safe_load_all((ARGOCD / "repo-server-patch.yaml").read_text())
    mounted = {}
    for container in patch["spec"]["template"]["spec"]["containers"]:
        assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
        assert container["securityContext"]["runAsUser"] == 999  # Argo CD's rule for plugin sidecars
        [config] = [m for m in container["volumeMounts"] if m["mountPath"].endswith("/config/plugin.yaml")]
        mounted[container["name"]] = config["subPath"]
    assert mounted == {"krmfn-kustomize": "kustomize.yaml", "krmfn-helm": "helm.yaml"}
    [app] = yaml.safe_load_all((ARGOCD / "application.yaml").read_text())
    assert app["spec"]["source"]["plugin"]["name"] in plugins()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_generate_renders_the_source_through_krmfn(name: str, bin_dir: Path, tmp_path: Path) -> None:
    plugin = plugins()[name]
    source = shutil.copytree(SOURCES[name], tmp_path / "source")
    assert glob.glob(str(source / plugin["spec"]["discover"]["fileName"])), "the discover rule must match the source"
    done = generate(plugin, source, bin_dir, tmp_path)
    assert done.returncode == 0, done.stderr
    objects = [d for d in yaml.safe_load_all(done.stdout) if d is not None]
    assert objects and all(isinstance(d, dict) and d.get("kind") and d.get("apiVersion") for d in objects)
    [configmap] = [d for d in objects if d["kind"] == "ConfigMap"]
    [deployment] = [d for d in objects if d["kind"] == "Deployment"]
    hashed = configmap["metadata"]["name"]
    assert configmap["immutable"] is True and hashed.startswith(configmap["metadata"]["annotations"]["krmfn.dev/original-name"] + "-")
    assert configmap["metadata"]["annotations"][PRUNE[0]] == PRUNE[1]
    assert configmap["metadata"]["annotations"]["argocd.argoproj.io/compare-options"] == "IgnoreExtraneous"
    assert f"name: {hashed}" in yaml.safe_dump(deployment)
    again = generate(plugin, source, bin_dir, tmp_path)
    assert again.stdout == done.stdout  # Argo CD renders on every refresh: the same manifests each time
    if name == "krmfn-kustomize":  # the example's README command, run as the plugin runs it
        assert done.stdout == (ARGOCD / "expected-output.yaml").read_text()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_failed_render_fails_the_command(name: str, bin_dir: Path, tmp_path: Path) -> None:
    """pipefail: a render that fails must not reach krmfn as an empty stream, which it would pass
    on as an empty render, and Argo CD would take every object for deleted."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ("kustomization.yaml" if name == "krmfn-kustomize" else "Chart.yaml")).write_text("resources: [\n")
    done = generate(plugins()[name], broken, bin_dir, tmp_path)
    assert done.returncode != 0 and done.stdout == ""


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_sidecar_image_runs_each_generate_as_user_999(name: str, docker: str, image: str, bin_dir: Path,
                                                          tmp_path: Path) -> None:
    """examples/argocd/Dockerfile, built with no network (make argocd-image): the plugin's generate,
    run in it as Argo CD runs a sidecar (user 999, the source directory as working directory, the
    build environment), prints what the same command prints on the host."""
    sidecar = example_image(image, "argocd")
    plugin = plugins()[name]
    source = shutil.copytree(SOURCES[name], tmp_path / "source")
    source.chmod(0o755)
    for path in source.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    spec = plugin["spec"]["generate"]
    done = subprocess.run([docker, "run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp",
                           "--tmpfs", "/home/argocd:uid=999,gid=999", "-e", "ARGOCD_APP_NAME=api",
                           "-e", "ARGOCD_APP_NAMESPACE=api", "-v", f"{source}:/src:ro", "-w", "/src", sidecar,
                           *spec["command"], *spec.get("args", [])], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    on_host = generate(plugin, source, bin_dir, tmp_path)
    assert on_host.returncode == 0, on_host.stderr
    assert done.stdout == on_host.stdout
    tools = subprocess.run([docker, "run", "--rm", "--network", "none", sidecar, "sh", "-c",
                            "id -u; for t in bash krmfn kustomize helm; do command -v $t || echo no $t; done"],
                           capture_output=True, text=True, timeout=60)
    uid, *found = tools.stdout.splitlines()
    assert uid == "999" and len(found) == 4 and not [f for f in found if f.startswith("no ")], tools.stdout
