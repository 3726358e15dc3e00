"""examples/plan: two git revisions of the example app rendered as its CI workflow renders them
(krmfn on the directory, the base from a git worktree), and the plan checked."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from tooling import TESTS

EXAMPLE = TESTS.parent / "examples" / "plan"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


def krmfn(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "krmfn", *args], capture_output=True, check=False)


def test_the_workflow_renders_both_revisions_and_plans(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "app", repo / "app")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    config = repo / "app" / "config.yaml"
    config.write_text(config.read_text().replace("LOG_LEVEL: info", "LOG_LEVEL: debug")
                      .replace("DB_PASSWORD: change-me", "DB_PASSWORD: pr-secret-value"))
    git(repo, "commit", "-qam", "pr")
    git(repo, "worktree", "add", "-q", str(tmp_path / "base"), "main~1")  # as the workflow checks out the base
    (tmp_path / "base.yaml").write_bytes(krmfn(str(tmp_path / "base" / "app")).stdout)
    (tmp_path / "pr.yaml").write_bytes(krmfn(str(repo / "app")).stdout)
    gate = krmfn("plan", str(tmp_path / "base.yaml"), str(tmp_path / "pr.yaml"), "-o", "markdown",
                 "--fail-on", "downtime,cannot-apply")
    assert gate.returncode == 0, gate.stderr
    md = gate.stdout.decode()
    assert "| ConfigMap `shop-config` |" in md and "changed: `LOG_LEVEL`" in md
    assert "| Secret `shop-db` |" in md and "changed: `DB_PASSWORD`" in md
    assert "pr-secret-value" not in md and "change-me" not in md
    assert "| Deployment `shop` | 3 |" in md and "| StatefulSet `ledger` | 2 | ⏸️ **on-delete**" in md
    found = json.loads(krmfn("plan", str(tmp_path / "base.yaml"), str(tmp_path / "pr.yaml"), "-o", "json").stdout)
    ledger = next(w for w in found["workloads"] if w["name"] == "ledger")
    assert ledger["reads"] == {"ConfigMap shop-config": [], "Secret shop-db": ["*"]}
    assert krmfn("plan", str(tmp_path / "base.yaml"), str(tmp_path / "pr.yaml"), "--fail-on", "on-delete").returncode == 1


def test_the_workflow_runs_krmfn_plan_on_pull_requests() -> None:
    flow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "krmfn-plan.yaml").read_text())
    steps = " ".join(s.get("run", "") for s in flow["jobs"]["plan"]["steps"])
    assert "pull_request" in flow[True]  # YAML 1.1 reads the key `on` as true
    assert "krmfn plan ../base.yaml ../pr.yaml -o markdown" in steps and "gh pr comment" in steps


def test_the_workflow_installs_krmfn_from_its_source_as_the_install_page_does() -> None:
    """krmfn is not on PyPI: a copied workflow running ``pip install krmfn`` would install whatever
    someone registers under that name (issue #36)."""
    flow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "krmfn-plan.yaml").read_text())
    steps = flow["jobs"]["plan"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert not any("pip install krmfn" in r for r in runs)
    source = next(s for s in steps if s.get("with", {}).get("path") == ".krmfn")
    assert source["uses"].startswith("actions/checkout@") and "KRMFN_REPOSITORY" in source["with"]["repository"]
    assert "python -m pip install ./.krmfn" in runs
    assert "pip install ." in (EXAMPLE.parent.parent / "docs" / "install.md").read_text()
