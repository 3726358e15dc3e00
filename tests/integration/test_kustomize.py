"""examples/kustomize under kustomize: the legacy exec plugin with ``kubectl kustomize``, and the
``exec:`` KRM function's shape (standalone kustomize only; run when a ``kustomize`` binary is there).

Every overlay builds to the one checked-in examples/kustomize/expected-output.yaml; the container
overlay runs in test_examples.py, with the image.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
import yaml
from tooling import EXAMPLES, PLUGIN_PATH, env_with, expect_text, need, run, tool, write_krmfn

from krmfn.cli import installers as plugin

KUSTOMIZE = EXAMPLES / "kustomize"
EXPECTED = KUSTOMIZE / "expected-output.yaml"


@pytest.fixture(scope="module")
def kubectl() -> str:
    return need("kubectl")


def overlay(tmp_path: Path, config: str) -> Path:
    """An overlay on a copy of the example's base, with a legacy-plugin config ending in ``config``."""
    shutil.copytree(KUSTOMIZE / "base", tmp_path / "base")
    path = tmp_path / "overlay"
    path.mkdir()
    (path / "kustomization.yaml").write_text("resources:\n- ../base\ntransformers:\n- content-hash.yaml\n")
    (path / "content-hash.yaml").write_text(
        "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: content-hash\n" + config)
    return path


def build(kubectl: str, path: Path, home: Path) -> str:
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(path)], env=env_with(
        home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(home)))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_installed_plugin_is_an_executable_script(plugin_home: Path) -> None:
    script = plugin_home / PLUGIN_PATH
    assert script.stat().st_mode & stat.S_IXUSR
    text = script.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert text.rstrip().endswith('-m krmfn plugin "$@"')


def test_plugin_home_default() -> None:
    assert plugin.kustomize_plugin_home({"KUSTOMIZE_PLUGIN_HOME": "/p", "XDG_CONFIG_HOME": "/x"}) == Path("/p")
    assert plugin.kustomize_plugin_home({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}) == Path("/x/kustomize/plugin")
    assert plugin.kustomize_plugin_home({"HOME": "/h"}) == Path("/h/.config/kustomize/plugin")


def test_legacy_plugin_under_kubectl_kustomize(kubectl: str, plugin_home: Path) -> None:
    first = build(kubectl, KUSTOMIZE / "legacy-plugin", plugin_home)
    expect_text(EXPECTED, first)
    assert build(kubectl, KUSTOMIZE / "legacy-plugin", plugin_home) == first  # twice: the same


def test_legacy_plugin_output_is_a_fixed_point(kubectl: str, plugin_home: Path, tmp_path: Path) -> None:
    """Running the build's output through the plugin again changes nothing (idempotence)."""
    again = tmp_path / "again"
    again.mkdir()
    (again / "built.yaml").write_text(EXPECTED.read_text())
    (again / "content-hash.yaml").write_text((KUSTOMIZE / "legacy-plugin" / "content-hash.yaml").read_text())
    (again / "kustomization.yaml").write_text("resources:\n- built.yaml\ntransformers:\n- content-hash.yaml\n")
    assert build(kubectl, again, plugin_home) == EXPECTED.read_text()


def test_name_equals_config_map_generator(kubectl: str, tmp_path: Path) -> None:
    """The hashed name is the one kustomize's own configMapGenerator gives the same data."""
    config = yaml.safe_load((KUSTOMIZE / "base" / "configmap.yaml").read_text())
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "app.conf").write_text(config["data"]["app.conf"])
    literals = [f"{k}={v}" for k, v in config["data"].items() if k != "app.conf"]
    (gen / "kustomization.yaml").write_text(yaml.safe_dump({"configMapGenerator": [
        {"name": "api-config", "literals": literals, "files": ["app.conf"]}]}))
    done = run([kubectl, "kustomize", str(gen)])
    assert done.returncode == 0, done.stderr
    generated = yaml.safe_load(done.stdout)["metadata"]["name"]
    hashed = next(d for d in yaml.safe_load_all(EXPECTED.read_text()) if d["kind"] == "ConfigMap")
    assert hashed["metadata"]["name"] == generated


@pytest.mark.parametrize("algorithm", ["kustomize", "sha256"])
def test_a_generated_name_gets_no_second_suffix(kubectl: str, tmp_path: Path, algorithm: str) -> None:
    """``kubectl kustomize . | krmfn --stream --select all``: configMapGenerator named the ConfigMap
    ``app-config-<suffix>`` by its content already. No algorithm suffixes it again: the family is
    ``app-config``, kustomize's algorithm keeps the name (and says so), sha256 renames it
    ``app-config-<16 hex digits>``, and the Deployment follows."""
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "configMapGenerator": [{"name": "app-config", "literals": ["LOG=info"]}], "resources": ["dep.yaml"]}))
    (tmp_path / "dep.yaml").write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app"},
        "spec": {"selector": {"matchLabels": {"app": "a"}}, "template": {
            "metadata": {"labels": {"app": "a"}},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                                     "envFrom": [{"configMapRef": {"name": "app-config"}}]}]}}}}))
    built = run([kubectl, "kustomize", str(tmp_path)])
    assert built.returncode == 0, built.stderr
    generated = next(d for d in yaml.safe_load_all(built.stdout) if d["kind"] == "ConfigMap")["metadata"]["name"]
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    done = run(["krmfn", "--stream", "--select", "all", "--algorithm", algorithm, "-v"], input=built.stdout,
               env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    docs = {d["kind"]: d for d in yaml.safe_load_all(done.stdout)}
    name = docs["ConfigMap"]["metadata"]["name"]
    assert docs["ConfigMap"]["metadata"]["labels"]["krmfn.dev/family"] == "app-config"
    assert docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == name
    if algorithm == "kustomize":
        assert name == generated
        assert f"ConfigMap {generated} keeps its name" in done.stderr, done.stderr
    else:
        assert name.startswith("app-config-") and len(name) == len("app-config-") + 16, name
        assert f"ConfigMap app-config is now {name}" in done.stderr, done.stderr


def test_args_one_liner_reaches_the_plugin(kubectl: str, plugin_home: Path, tmp_path: Path) -> None:
    """kustomize passes ``argsOneLiner`` as extra arguments; krmfn reads them as flags."""
    config = "argsOneLiner: --algorithm sha256 --retention argocd\n"
    cm = next(d for d in yaml.safe_load_all(build(kubectl, overlay(tmp_path, config), plugin_home))
              if d["kind"] == "ConfigMap")
    assert len(cm["metadata"]["name"]) == len("api-config-") + 16  # sha256: 16 hex digits
    assert cm["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false"


def test_plugin_error_fails_the_build(kubectl: str, plugin_home: Path, tmp_path: Path) -> None:
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(overlay(tmp_path, "select: some\n"))],
               env=env_with(plugin_home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(plugin_home)))
    assert done.returncode != 0
    assert "function config field 'select' must be one of annotated, all, not 'some'" in done.stderr
    assert done.stdout == ""


# --- exec: standalone kustomize only ---------------------------------------------------------

def exec_spec() -> dict:
    config = yaml.safe_load((KUSTOMIZE / "exec" / "content-hash.yaml").read_text())
    return yaml.safe_load(config["metadata"]["annotations"]["config.kubernetes.io/function"])


def test_exec_function_config_shape() -> None:
    """What kustomize reads: an ``exec.path`` relative to the kustomization, executable, listed
    under ``transformers:``; and a functionConfig krmfn accepts."""
    spec = exec_spec()
    assert set(spec) == {"exec"} and set(spec["exec"]) == {"path"}
    path = spec["exec"]["path"]
    assert path.startswith("./"), "kustomize resolves a relative exec path from the kustomization"
    target = KUSTOMIZE / "exec" / path
    assert target.is_file() and os.access(target, os.X_OK)
    kustomization = yaml.safe_load((KUSTOMIZE / "exec" / "kustomization.yaml").read_text())
    assert kustomization["transformers"] == ["content-hash.yaml"]


def test_exec_target_does_what_kustomize_asks(tmp_path: Path) -> None:
    """The exec target, given the ResourceList kustomize would write, renames as the other overlays do."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    items = [yaml.safe_load((KUSTOMIZE / "base" / name).read_text()) for name in ("configmap.yaml", "deployment.yaml")]
    fn_config = yaml.safe_load((KUSTOMIZE / "exec" / "content-hash.yaml").read_text())
    fn_config["metadata"]["annotations"]["config.kubernetes.io/local-config"] = "true"  # kustomize adds it
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items, "functionConfig": fn_config}
    done = run([str(KUSTOMIZE / "exec" / "krmfn.sh")], input=yaml.safe_dump(rl, sort_keys=False),
               cwd=KUSTOMIZE / "exec", env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    out = {d["kind"]: d for d in yaml.safe_load(done.stdout)["items"]}
    want = {d["kind"]: d for d in yaml.safe_load_all(EXPECTED.read_text())}
    assert out["ConfigMap"] == want["ConfigMap"]
    assert out["Deployment"] == want["Deployment"]


def test_kubectl_kustomize_skips_exec_functions(kubectl: str, tmp_path: Path) -> None:
    """Why the legacy plugin exists: kubectl's kustomize leaves an exec function out, silently."""
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(KUSTOMIZE / "exec")],
               env=env_with(tmp_path / "bin"))
    assert done.returncode == 0, done.stderr
    assert "api-config-" not in done.stdout and "name: api-config\n" in done.stdout


def test_exec_function_under_standalone_kustomize(tmp_path: Path) -> None:
    kustomize = tool("kustomize")
    if kustomize is None:
        pytest.skip("standalone kustomize is not on PATH (kubectl's kustomize skips exec functions and has no "
                    "--enable-exec); the exec form's shape and its script are tested above")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    done = run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(KUSTOMIZE / "exec")],
               env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_text()
