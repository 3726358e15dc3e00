"""The kpt examples under the real kpt, by the kpt functions catalog's own test conventions.

An example is a kpt package with ``.expected/config.yaml`` (``testType: eval|render``,
``exitCode``, eval ``args``), ``.expected/diff.patch`` (the ``git diff`` the run makes) and
``.expected/results.yaml`` (the results file). As kpt's catalog runner does, each runs twice
and both runs must match: the second run changes nothing.

Also: the repository's top-level Kptfile renders the example package from the repository's
top, and a user's comments, key order and scalar styles survive a render.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from tooling import EXAMPLES, REPO, copy_example, env_with, expect_text, git_diff, git_snapshot, need, run, write_krmfn

KPT_EXAMPLES = sorted(p.parent.parent.name for p in EXAMPLES.glob("*/.expected/config.yaml")
                      if (p.parent.parent / "Kptfile").exists())
RUNS = 2  # kpt's RunCount(): a function must be idempotent


@pytest.fixture(scope="module")
def kpt() -> str:
    return need("kpt")


def kpt_args(kpt: str, pkg: Path, results: Path, config: dict) -> list[str]:
    if config.get("testType", "eval") == "render":
        return [kpt, "fn", "render", "--allow-exec", str(pkg), "--results-dir", str(results)]
    args = [kpt, "fn", "eval", str(pkg), "--exec", "krmfn", "--results-dir", str(results)]
    if config.get("args"):
        args += ["--"] + [f"{k}={v}" for k, v in config["args"].items()]
    return args


def run_example(kpt: str, name: str, tmp_path: Path, args_for=kpt_args, identity: str | None = None) -> None:
    """Run one example twice; after each run, compare the diff and the results.

    ``identity``: how the results file names the function when it is not ``- exec: krmfn``.
    """
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = copy_example(name, tmp_path)
    expected = EXAMPLES / name / ".expected"
    config = yaml.safe_load((expected / "config.yaml").read_text()) or {}
    git_snapshot(pkg)
    for attempt in range(RUNS):
        results = tmp_path / f"results-{attempt}"
        results.mkdir()
        done = run(args_for(kpt, pkg, results, config), env=env_with(bin_dir), cwd=tmp_path)
        assert done.returncode == config.get("exitCode", 0), done.stdout + done.stderr
        found = list(results.iterdir())
        assert len(found) == 1, found
        results_text = found[0].read_text()
        if identity is not None:
            assert identity in results_text, results_text
            results_text = results_text.replace(identity, "- exec: krmfn")
        expect_text(expected / "results.yaml", results_text)
        expect_text(expected / "diff.patch", git_diff(pkg))


@pytest.mark.parametrize("name", KPT_EXAMPLES)
def test_example(kpt: str, name: str, tmp_path: Path) -> None:
    run_example(kpt, name, tmp_path)


def test_examples_found() -> None:
    assert {"kpt", "kpt-eval"} <= set(KPT_EXAMPLES)


def test_render_keeps_comments_order_and_styles(kpt: str, tmp_path: Path) -> None:
    """What the user wrote stays: comments, key order, quotes and ``|`` blocks, flow maps."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = copy_example("kpt", tmp_path)
    done = run([kpt, "fn", "render", "--allow-exec", str(pkg)], env=env_with(bin_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cm = (pkg / "configmap.yaml").read_text()
    for kept in ("# The api's settings.", "krmfn.dev/content-hash: \"true\" # opt in", "LOG_LEVEL: 'info'",
                 'UPSTREAM_TIMEOUT: "5s"', "# Mounted as a file", "app.conf: |\n    log_level = info\n"):
        assert kept in cm, kept
    top = [line.split(":")[0] for line in cm.splitlines() if line[:1].isalpha()]
    assert top == ["apiVersion", "kind", "metadata", "data", "immutable"]  # the user's order, then the new key
    deploy = (pkg / "deployment.yaml").read_text()
    original = (EXAMPLES / "kpt" / "deployment.yaml").read_text()
    # Only the two names change, in place: every other byte is as the user wrote it.
    renamed = next(line.split()[-1] for line in cm.splitlines() if line.strip().startswith("name: api-config-"))
    assert deploy == original.replace("name: api-config", f"name: {renamed}")


def test_top_level_kptfile_renders_the_example_package(kpt: str, tmp_path: Path) -> None:
    """From the repository's top, kpt renders examples/kpt and reads nothing else as a resource."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    top = tmp_path / "repo"
    top.mkdir()
    for name in ("Kptfile", ".krmignore"):
        shutil.copy(REPO / name, top / name)
    # The rest of the repository's YAML, which kpt must not read: Helm templates are not even YAML.
    shutil.copytree(EXAMPLES, top / "examples", symlinks=True)
    shutil.copytree(REPO / "tests", top / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    git_snapshot(top)
    done = run([kpt, "fn", "render", "--allow-exec", str(top)], env=env_with(bin_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    changed = [line.split()[-1] for line in run(["git", "status", "--porcelain"], cwd=top).stdout.splitlines()]
    assert changed == ["examples/kpt/configmap.yaml", "examples/kpt/deployment.yaml"]
    # The same files as rendering the example package alone.
    alone = copy_example("kpt", tmp_path / "alone")
    assert run([kpt, "fn", "render", "--allow-exec", str(alone)], env=env_with(bin_dir)).returncode == 0
    for name in ("configmap.yaml", "deployment.yaml"):
        assert (top / "examples" / "kpt" / name).read_text() == (alone / name).read_text()


def test_exec_path_resolves_from_kpt_working_directory(kpt: str, tmp_path: Path) -> None:
    """A relative Kptfile ``exec:`` is looked up from where kpt runs, not from the Kptfile's folder."""
    write_krmfn(tmp_path / "tools")
    pkg = copy_example("kpt", tmp_path)
    kptfile = pkg / "Kptfile"
    kptfile.write_text(kptfile.read_text().replace("exec: krmfn", "exec: ./tools/krmfn"))
    from_top = run([kpt, "fn", "render", "--allow-exec", "kpt"], cwd=tmp_path, env=env_with(tmp_path / "none"))
    assert from_top.returncode == 0, from_top.stderr
    again = copy_example("kpt", tmp_path / "other")
    (again / "Kptfile").write_text(kptfile.read_text())
    from_pkg = run([kpt, "fn", "render", "--allow-exec", "."], cwd=again, env=env_with(tmp_path / "none"))
    assert from_pkg.returncode != 0  # ./tools/krmfn is not there, seen from the package
