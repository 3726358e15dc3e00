"""The kpt examples under the real kpt, by the kpt functions catalog's own test conventions.

An example is a kpt package (examples/audit has no Kptfile) with ``.expected/config.yaml`` (``testType: eval|render``,
``exitCode``, eval ``args``), ``.expected/diff.patch`` (the ``git diff`` the run makes) and
``.expected/results.yaml`` (the results file). As kpt's catalog runner does, each runs twice
and both runs must match: the second run changes nothing.

Also: the repository's top-level Kptfile renders the example package from the repository's
top, a user's comments, key order and scalar styles survive a render, every function
configuration is local config (kpt live's rule leaves it out of what is applied), and the
render commands of docs/kpt.md leave the clone as it was.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tooling import (
    EXAMPLES,
    REPO,
    copy_example,
    env_with,
    expect_text,
    fresh_copy,
    git_diff,
    git_snapshot,
    need,
    run,
    write_krmfn,
)

# A package with or without a Kptfile (examples/audit has none: kpt fn eval needs none).
KPT_EXAMPLES = sorted(p.parent.parent.name for p in EXAMPLES.glob("*/.expected/config.yaml"))
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
    assert {"kpt", "kpt-eval", "stable-name", "audit"} <= set(KPT_EXAMPLES)


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


def test_stable_name_example_rolls_by_the_hash_and_keeps_the_name(kpt: str, tmp_path: Path) -> None:
    """examples/stable-name run in place, then its data edited and run again: the
    ConfigMap keeps its name, the hash in both pod templates follows the data, the suffixed
    ConfigMap beside it is renamed as before."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = copy_example("stable-name", tmp_path)

    def render() -> tuple[dict, dict]:
        args = [kpt, "fn", "eval", str(pkg), "--exec", "krmfn", "--", "strategy=annotation", "retention=kpt"]
        done = run(args, env=env_with(bin_dir), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        objects = [d for name in ("configmaps.yaml", "workloads.yaml")
                   for d in yaml.safe_load_all((pkg / name).read_text())]
        by_name = {f"{o['kind']}/{o['metadata']['name']}": o for o in objects}
        hashes = {k: (v["spec"]["template"] if k == "Deployment/shop" else v["spec"]["jobTemplate"]["spec"]["template"]
                      )["metadata"]["annotations"]["krmfn.dev/config-hash"]
                  for k, v in by_name.items() if k in ("Deployment/shop", "CronJob/nightly-report")}
        return by_name, hashes

    first, before = render()
    assert "ConfigMap/feature-flags" in first and "immutable" not in first["ConfigMap/feature-flags"]
    assert len(set(before.values())) == 1  # one object, one hash, wherever it is used
    configmaps = pkg / "configmaps.yaml"
    configmaps.write_text(configmaps.read_text().replace('recommendations: "off"', 'recommendations: "on"'))
    second, after = render()
    assert "ConfigMap/feature-flags" in second and set(after.values()).isdisjoint(before.values())
    assert [k for k in second if k.startswith("ConfigMap/api-config-")] == \
        [k for k in first if k.startswith("ConfigMap/api-config-")]  # its data did not change


def test_top_level_kptfile_renders_the_example_package(kpt: str, tmp_path: Path) -> None:
    """From the repository's top, kpt renders examples/kpt (and finds the other kpt examples, which
    have no pipeline) and reads nothing else as a resource."""
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


# --- local config: what kpt live apply leaves out -------------------------------------------

LOCAL_CONFIG = "config.kubernetes.io/local-config"


def applied_by_kpt_live(items: list[dict]) -> list[dict]:
    """What ``kpt live apply`` would send to the cluster (kpt's pkg/live/rgpath.go): every object but
    ResourceGroups and those whose local-config annotation is present and not "false"."""
    def local(item: dict) -> bool:
        annotations = (item.get("metadata") or {}).get("annotations") or {}
        return LOCAL_CONFIG in annotations and annotations[LOCAL_CONFIG] != "false"
    return [i for i in items if i.get("kind") != "ResourceGroup" and not local(i)]


def function_configs(docs: list[object]) -> Iterator[dict]:
    """Every ContentHash in these documents, and every ResourceList's functionConfig."""
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "ContentHash":
            yield doc
        elif isinstance(doc, dict) and doc.get("kind") == "ResourceList" and doc.get("functionConfig"):
            yield doc["functionConfig"]


def test_every_function_config_in_examples_and_docs_is_local_config() -> None:
    found: list[str] = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        if "templates" in path.parts:  # Helm templates are not YAML until rendered
            continue
        for fc in function_configs(list(yaml.safe_load_all(path.read_text()))):
            assert fc["metadata"].get("annotations", {}).get(LOCAL_CONFIG) == "true", path
            found.append(str(path.relative_to(REPO)))
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in re.findall(r"```yaml\n(.*?)```", path.read_text(), re.S):
            if "kind: ContentHash" in block:
                for fc in function_configs(list(yaml.safe_load_all(block))):
                    assert fc["metadata"].get("annotations", {}).get(LOCAL_CONFIG) == "true", (path, block)
                    found.append(path.name)
    assert {"examples/kpt/content-hash.yaml", "options.md", "jobs.md", "field-specs.md",
            "examples/custom-resources/suffix-jobs/input.yaml"} <= set(found)


def test_kpt_live_leaves_the_function_config_out(kpt: str, tmp_path: Path) -> None:
    """A render of examples/kpt, filtered by kpt live's rule: the ConfigMap (hashed) and the
    Deployment are applied; the Kptfile and the ContentHash are not."""
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = copy_example("kpt", tmp_path)
    done = run([kpt, "fn", "render", "--allow-exec", str(pkg), "-o", "stdout"], env=env_with(bin_dir))
    assert done.returncode == 0, done.stderr
    items = yaml.safe_load(done.stdout)["items"]
    assert {i["kind"] for i in items} == {"Kptfile", "ConfigMap", "ContentHash", "Deployment"}
    applied = applied_by_kpt_live(items)
    assert [(i["kind"], i["metadata"]["name"][:len("api-config-")]) for i in applied] == \
        [("ConfigMap", "api-config-"), ("Deployment", "api")]


def test_readme_render_commands_leave_the_clone_clean(kpt: str, tmp_path: Path) -> None:
    """docs/kpt.md's render lines, as written, in a fresh copy: they print what the page says they
    print, and the copy's files stay as they were."""
    readme = (REPO / "docs" / "kpt.md").read_text()
    block = readme[readme.index("<!-- kpt-render -->\n```sh\n") + len("<!-- kpt-render -->\n```sh\n"):]
    lines_text = block[:block.index("```")]
    lines = [line.split("#")[0].strip() for line in lines_text.splitlines()]
    assert len(lines) == 2
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    clone = fresh_copy(tmp_path / "krmfn")
    git_snapshot(clone)
    printed = []
    for line in lines:
        done = run(["bash", "-c", line], cwd=clone, env=env_with(bin_dir))
        assert done.returncode == 0, done.stderr
        assert "name: api-config-" in done.stdout and "kind: Deployment" in done.stdout
        assert git_diff(clone) == "", line
        printed.append(done)
    # What the page says the second line prints: three packages, examples/kpt as the first line
    # prints it, then examples/kpt-eval and examples/stable-name as they are; krmfn runs once.
    package, top = printed
    packages = re.findall(r'^Package "([^"]*)"', top.stderr, re.M)
    assert [p.removeprefix(clone.name).lstrip("/") for p in packages] == \
        ["examples/kpt", "examples/kpt-eval", "examples/stable-name", ""], top.stderr
    assert top.stderr.count("[RUNNING]") == 1, top.stderr
    assert top.stdout.startswith(package.stdout)
    rest = list(yaml.safe_load_all(top.stdout[len(package.stdout):]))
    as_in_git = [doc for name in ("kpt-eval", "stable-name") for file in ("Kptfile", "configmaps.yaml", "workloads.yaml")
                 for doc in yaml.safe_load_all((clone / "examples" / name / file).read_text())]
    assert rest == as_in_git
    assert "three packages" in lines_text and "krmfn runs once, for `examples/kpt`" in readme
