"""examples/audit under the real tools: the roll-path warning (a ConfigMap read through env that
nothing rolls) and the leftover-name warning (the renamed ConfigMap's old name in a container's
args) reach the user under ``kpt fn eval --exec`` (its stderr and its results file), and under
``kubectl kustomize`` with krmfn's legacy exec plugin, where kubectl shows a successful plugin's
stderr to nobody, through the route docs/kustomize.md gives for reading them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from tooling import EXAMPLES, copy_example, env_with, need, run, write_krmfn

EXAMPLE = EXAMPLES / "audit"
LEFTOVER = ("Deployment/shop/api spec.template.spec.containers[0].args[1]: holds api-config, the old name of "
            "ConfigMap api-config")
ROLL_PATH = ("Deployment/shop/api spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name: reads "
             "ConfigMap api-limits through env, which running pods never see change")


def _kpt_eval(tmp_path: Path, *args: str) -> tuple[str, list[dict], Path]:
    kpt = need("kpt")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = copy_example("audit", tmp_path)
    results = tmp_path / "results"
    results.mkdir()
    done = run([kpt, "fn", "eval", str(pkg), "--exec", "krmfn", "--results-dir", str(results), *args],
               env=env_with(bin_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [found] = results.iterdir()
    return done.stderr, yaml.safe_load(found.read_text())["items"][0]["results"], pkg


def test_kpt_eval_shows_both_warnings_in_its_output_and_results(tmp_path: Path) -> None:
    stderr, results, pkg = _kpt_eval(tmp_path)
    assert f"[warning] apps/v1/{LEFTOVER}" in stderr, stderr
    assert f"[warning] apps/v1/{ROLL_PATH}" in stderr, stderr
    warnings = {r["field"]["path"]: r for r in results if r["severity"] == "warning"}
    assert set(warnings) == {"spec.template.spec.containers[0].args[1]",
                             "spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name"}
    assert warnings["spec.template.spec.containers[0].args[1]"]["tags"] == {
        "fieldSpecs": "- {kind: Deployment, group: apps, path: spec/template/spec/containers/args}"}
    # What they are about, in the files kpt wrote back: the reference followed, the args did not.
    deployment = yaml.safe_load((pkg / "workloads.yaml").read_text())
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["envFrom"][0]["configMapRef"]["name"].startswith("api-config-")
    assert container["args"] == ["--watch-configmap", "api-config"]
    assert (pkg / "kustomization.yaml").read_text() == (EXAMPLE / "kustomization.yaml").read_text()


def test_kpt_eval_with_audit_info_lowers_only_the_audit(tmp_path: Path) -> None:
    """``-- audit=info`` (kpt's ConfigMap form of the field): the roll-path finding is an info, the
    leftover name, which is no part of the audit, stays a warning."""
    stderr, results, _ = _kpt_eval(tmp_path, "--", "audit=info")
    assert f"[info] apps/v1/{ROLL_PATH}" in stderr and f"[warning] apps/v1/{LEFTOVER}" in stderr, stderr
    assert {r["severity"] for r in results if "through env" in r["message"]} == {"info"}


def test_kubectl_kustomize_renames_and_the_documented_route_shows_both_warnings(plugin_home: Path,
                                                                                tmp_path: Path) -> None:
    kubectl = need("kubectl")
    env = env_with(plugin_home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(plugin_home))
    built = run([kubectl, "kustomize", "--enable-alpha-plugins", str(EXAMPLE)], env=env)
    assert built.returncode == 0, built.stderr
    docs = {d["metadata"]["name"]: d for d in yaml.safe_load_all(built.stdout)}
    [renamed] = [n for n in docs if n.startswith("api-config-")]
    container = docs["api"]["spec"]["template"]["spec"]["containers"][0]
    assert container["envFrom"][0]["configMapRef"]["name"] == renamed
    # kubectl's kustomize (v5.5.0) keeps a successful plugin's stderr to itself, as docs/kustomize.md
    # says ("Seeing krmfn's warnings"): if this starts to fail, kubectl shows them and the page can say so.
    assert "holds api-config" not in built.stderr and "through env" not in built.stderr, built.stderr
    # The page's route: build without the transformer, pipe through krmfn.
    plain = tmp_path / "plain"
    shutil.copytree(EXAMPLE, plain)
    (plain / "kustomization.yaml").write_text("resources:\n- configmaps.yaml\n- workloads.yaml\n")
    base = run([kubectl, "kustomize", str(plain)])
    assert base.returncode == 0, base.stderr
    piped = run(["krmfn", "--stream"], input=base.stdout, env=env)
    assert piped.returncode == 0, piped.stderr
    assert f"krmfn: warning: {LEFTOVER}" in piped.stderr and f"krmfn: warning: {ROLL_PATH}" in piped.stderr
    assert list(yaml.safe_load_all(piped.stdout)) == list(yaml.safe_load_all(built.stdout))  # the same objects
