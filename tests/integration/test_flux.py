"""examples/flux: Flux runs no functions, so CI renders and commits; the workflow's steps, run here.

The render step is taken from the workflow file itself and run as GitHub runs a bash step; its
output must be the checked-in rendered/ (which is what Flux applies), and running it again must
change nothing. The commit step runs against a local bare repository standing in for GitHub.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from tooling import EXAMPLES, GIT, env_with, expect_text, git_diff, git_snapshot, need, run, write_krmfn

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
    names = [s.get("id") for s in flow["jobs"]["render"]["steps"]]
    assert names.index("render") < names.index("commit")
    assert "krmfn --stream --retention flux" in step("render")["run"]


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
