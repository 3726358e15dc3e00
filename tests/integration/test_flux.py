"""examples/flux: Flux runs no functions, so CI renders and commits; the workflow's steps, run here.

The render step is taken from the workflow file itself and run as GitHub runs a bash step; its
output must be the checked-in rendered/ (which is what Flux applies), and running it again must
change nothing. The install step runs as written, on a fresh copy of this repository where
actions/checkout would put krmfn's, and the render step then runs the krmfn it installed. The
commit step runs against a local bare repository standing in for GitHub.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from tooling import EXAMPLES, GIT, env_with, expect_text, fresh_copy, git_diff, git_snapshot, need, run, write_krmfn

FLUX = EXAMPLES / "flux"
WORKFLOW = FLUX / ".github" / "workflows" / "render.yaml"
RENDERED = FLUX / "rendered" / "api.yaml"
# How GitHub runs a `run:` step under `shell: bash`.
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
PRUNE_DISABLED = ("kustomize.toolkit.fluxcd.io/prune", "disabled")


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def step(step_id: str) -> dict:
    [found] = [s for s in workflow()["jobs"]["render"]["steps"] if s.get("id") == step_id]
    return found


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The example as a fresh clone of a repository, with krmfn and kubectl on PATH."""
    kubectl = need("kubectl")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    (bin_dir / "kubectl").symlink_to(kubectl)
    repo = tmp_path / "repo"
    shutil.copytree(FLUX, repo)
    git_snapshot(repo)
    return repo, env_with(bin_dir, GITHUB_SHA="0123456789abcdef0123456789abcdef01234567")


def test_workflow_shape() -> None:
    flow = workflow()
    assert flow["defaults"]["run"]["shell"] == "bash"
    steps = flow["jobs"]["render"]["steps"]
    names = [s.get("id") for s in steps]
    assert names.index("install") < names.index("render") < names.index("commit")
    assert "krmfn --stream --retention flux" in step("render")["run"]
    # krmfn is on no index: it comes from its repository, checked out beside this one, and a
    # missing repository variable stops the job rather than checking out this repository.
    [krmfn] = [s for s in steps if s.get("with", {}).get("path") == ".krmfn"]
    assert krmfn["uses"].startswith("actions/checkout@")
    assert krmfn["with"]["repository"] == "${{ vars.KRMFN_REPOSITORY }}"
    [guard] = [s for s in steps if "KRMFN_REPOSITORY" in str(s.get("if", ""))]
    assert steps.index(guard) < steps.index(krmfn) and "exit 1" in guard["run"]
    assert step("install")["run"].strip() == "python -m pip install ./.krmfn"
    assert "krmfn==" not in WORKFLOW.read_text()  # no release to pin: none exists


def test_install_step_installs_the_krmfn_the_render_step_runs(tmp_path: Path) -> None:
    """The install step as written, with krmfn's repository where actions/checkout puts it and a
    fresh Python as setup-python's; then the render step with that krmfn, and no other, on PATH."""
    kubectl = need("kubectl")
    repo = tmp_path / "repo"
    shutil.copytree(FLUX, repo)
    fresh_copy(repo / ".krmfn")
    python = tmp_path / "python"
    assert run([sys.executable, "-m", "venv", str(python)]).returncode == 0
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "kubectl").symlink_to(kubectl)
    env = {**os.environ, "PATH": os.pathsep.join([str(python / "bin"), str(tools), "/usr/bin", "/bin"])}
    env.pop("PYTHONPATH", None)
    done = run([*BASH, step("install")["run"]], cwd=repo, env=env, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert shutil.which("krmfn", path=env["PATH"]) == str(python / "bin" / "krmfn")
    done = run([*BASH, step("render")["run"]], cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert (repo / "rendered" / "api.yaml").read_text() == RENDERED.read_text()


def test_render_step_gives_the_committed_manifests(checkout: tuple[Path, dict[str, str]]) -> None:
    repo, env = checkout
    for _ in range(2):  # and a second run changes nothing
        done = run([*BASH, step("render")["run"]], cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
        if (repo / "rendered" / "api.yaml").read_text() != RENDERED.read_text():
            expect_text(RENDERED, (repo / "rendered" / "api.yaml").read_text())
        assert git_diff(repo) == ""


def test_rendered_manifests_keep_old_versions_under_flux() -> None:
    objects = [d for d in yaml.safe_load_all(RENDERED.read_text()) if d]
    [cm] = [d for d in objects if d["kind"] == "ConfigMap"]
    [deploy] = [d for d in objects if d["kind"] == "Deployment"]
    assert cm["metadata"]["annotations"][PRUNE_DISABLED[0]] == PRUNE_DISABLED[1]
    assert cm["immutable"] is True and cm["metadata"]["name"].startswith("api-config-")
    assert deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == \
        cm["metadata"]["name"]
    flux = {d["kind"]: d for d in yaml.safe_load_all((FLUX / "clusters" / "production" / "api.yaml").read_text())}
    assert flux["Kustomization"]["spec"]["prune"] is True
    assert flux["Kustomization"]["spec"]["path"] == "./rendered"


def test_a_config_change_renders_a_new_name(checkout: tuple[Path, dict[str, str]]) -> None:
    repo, env = checkout
    config = repo / "deploy" / "configmap.yaml"
    config.write_text(config.read_text().replace("LOG_LEVEL: info", "LOG_LEVEL: debug"))
    assert run([*BASH, step("render")["run"]], cwd=repo, env=env).returncode == 0
    old = next(yaml.safe_load_all(RENDERED.read_text()))["metadata"]["name"]
    new_docs = list(yaml.safe_load_all((repo / "rendered" / "api.yaml").read_text()))
    new = new_docs[0]["metadata"]["name"]
    assert new != old and new.startswith("api-config-")
    assert new_docs[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == new


def test_commit_step_commits_only_a_change(checkout: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, env = checkout
    origin = tmp_path / "origin.git"
    assert run([*GIT, "init", "-q", "--bare", str(origin)]).returncode == 0
    for args in (["remote", "add", "origin", str(origin)], ["push", "-q", "origin", "HEAD:refs/heads/main"]):
        assert run([*GIT, *args], cwd=repo).returncode == 0
    commit = step("commit")["run"]
    assert run([*BASH, step("render")["run"]], cwd=repo, env=env).returncode == 0
    done = run([*BASH, commit], cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    config = repo / "deploy" / "configmap.yaml"
    config.write_text(config.read_text().replace("5s", "10s"))
    assert run([*BASH, step("render")["run"]], cwd=repo, env=env).returncode == 0
    done = run([*BASH, commit], cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    log = run([*GIT, "log", "--format=%s", "-1", "main"], cwd=origin).stdout.strip()
    assert log == "render: deploy/ at 0123456789ab"
    shown = run([*GIT, "show", "--stat", "--format=", "main"], cwd=origin).stdout
    assert "rendered/api.yaml" in shown and "deploy/" not in shown
