"""Every example of metadata.yaml's catalog runs as its README says and gives its expected output
(the tests of each tool check more: test_kpt.py, test_helm.py, ...); the container image runs the
kpt and kustomize examples and gives what the exec runs give; the catalog metadata holds.

The Docker fixtures come from conftest.py (the image is built once per run).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from containers import IMAGE
from test_kpt import kpt_args, run_example
from tooling import (
    EXAMPLES,
    REPO,
    Example,
    catalog,
    expect_bytes,
    expect_text,
    fetch_helm,
    git_diff,
    git_snapshot,
    need,
    run,
    write_krmfn,
)

@pytest.mark.parametrize("example", catalog(), ids=lambda e: e.name)
def test_the_readme_command_gives_the_expected_output(example: Example, tmp_path: Path,
                                                      request: pytest.FixtureRequest) -> None:
    """Each example of metadata.yaml's list: its README's command, as written, from the top of a copy
    of examples/, with the work tree's krmfn first on PATH and an empty home (krmfn's kustomize
    plugin installed in it, as the README asks, when the command runs kubectl). It prints the
    example's expected-output.yaml byte for byte, or, for a kpt package it changes in place, makes
    the ``git diff`` of .expected/diff.patch, twice over, as kpt's catalog runs it."""
    block = example.command()
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    for name in block.needs:
        if name in ("kpt", "kubectl"):
            (bin_dir / name).symlink_to(need(name))
        elif name in ("helm3", "helm4"):
            helm, how = fetch_helm(int(name[-1]))
            if helm is None:
                if os.environ.get("KRMFN_REQUIRE_HELM") == "1":
                    pytest.fail(f"{how} (KRMFN_REQUIRE_HELM=1)", pytrace=False)
                pytest.skip(how)
            (bin_dir / "helm").symlink_to(helm)
        elif name == "docker":
            request.getfixturevalue("image")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HELM_", "KUSTOMIZE_", "XDG_", "KRMFN_")) and k not in ("KUBECONFIG", "PYTHONPATH")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    if "kubectl" in block.needs:
        assert run(["krmfn", "install-kustomize-plugin"], env=env).returncode == 0
    top = tmp_path / "repo"
    shutil.copytree(EXAMPLES, top / "examples", symlinks=True)
    if example.in_place:
        git_snapshot(top)
    for _ in range(2 if example.in_place else 1):
        done = run(["bash", "-euo", "pipefail", "-c", block.body], cwd=top, env=env)
        assert done.returncode == 0, f"{block.where}:\n{block.body}\n{done.stderr[-3000:]}"
        if example.in_place:
            expect_text(example.expected, git_diff(top / "examples" / example.name))
        else:
            expect_bytes(example.expected, done.stdout.encode())


def test_examples_and_docs_name_this_version_of_the_image() -> None:
    """One name everywhere: the tag `make image` gives, from the version in krmfn/__init__.py."""
    named: dict[str, set[str]] = {}
    texts = [p for p in EXAMPLES.rglob("*") if p.is_file()]
    texts += [REPO / "README.md", REPO / "metadata.yaml", REPO / "Dockerfile", *(REPO / "docs").glob("*.md")]
    for path in texts:
        for name in re.findall(r"(?<![\w./-])((?:localhost/)?krmfn(?:-gc)?:[\w.-]+)", path.read_text(errors="replace")):
            named.setdefault(name, set()).add(str(path.relative_to(REPO)))
    assert set(named) <= {IMAGE, IMAGE.replace("/krmfn:", "/krmfn-gc:")}, named
    assert IMAGE in named and "examples/kustomize/container/content-hash.yaml" in named[IMAGE]


def test_catalog_metadata() -> None:
    meta = yaml.safe_load((REPO / "metadata.yaml").read_text())
    assert meta["image"] == IMAGE
    assert "mutator" in meta["tags"]
    for path in meta["examplePackageURLs"]:
        pkg = REPO / path
        assert (pkg / "Kptfile").exists() and (pkg / ".expected" / "config.yaml").exists(), path
        assert ".expected" in (pkg / ".krmignore").read_text().split()
    assert 'license = "Apache-2.0"' in (REPO / "pyproject.toml").read_text()
    assert (REPO / "LICENSE").read_text().split()[:3] == ["Apache", "License", "Version"]
    assert meta["license"] == "Apache-2.0"


def test_kpt_eval_example_with_the_image(docker: str, image: str, tmp_path: Path) -> None:  # noqa: F811
    """kpt fn eval --image on the kpt-eval example: the same diff and results as --exec."""
    kpt = need("kpt")
    assert image == IMAGE

    def with_image(kpt: str, pkg: Path, results: Path, config: dict) -> list[str]:
        args = kpt_args(kpt, pkg, results, config)
        at = args.index("--exec")
        return args[:at] + ["--image", IMAGE, "--image-pull-policy", "never"] + args[at + 2:]

    run_example(kpt, "kpt-eval", tmp_path, with_image, identity=f"- image: {IMAGE}")


def test_kustomize_container_example(docker: str, image: str) -> None:  # noqa: F811  (fixtures)
    """kubectl kustomize runs the image as a container function: the legacy plugin's output."""
    kubectl = need("kubectl")
    assert image == IMAGE
    expected = (EXAMPLES / "kustomize" / "expected-output.yaml").read_text()
    for _ in range(2):
        done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(EXAMPLES / "kustomize" / "container")])
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected
