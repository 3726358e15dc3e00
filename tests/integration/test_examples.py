"""Every example has a test that runs it under the tool it names; the container image runs the
kpt and kustomize examples and gives what the exec runs give; the catalog metadata holds.

The Docker fixtures come from conftest.py (the image is built once per run).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from containers import IMAGE
from test_kpt import kpt_args, run_example
from tooling import EXAMPLES, REPO, need, run

# Examples and the test files that run them; quickstart, custom-resources, opt-in, rollouts, gc-cronjob,
# plan (tests/cli/test_plan_example.py) and secret-controllers (tests/core/test_secret_controllers.py; under kpt,
# kubectl kustomize and the image in test_secret_controllers_tools.py) have their own.
COVERED = {
    "kpt": "test_kpt.py", "kpt-eval": "test_kpt.py", "kustomize": "test_kustomize.py",
    "helm": "test_helm.py", "helm-reloader": "test_helm.py", "flux": "test_flux.py", "stable-name": "test_kpt.py",
    "argocd": "test_argocd.py", "audit": "test_audit_example.py", "rotation": "test_rotation_tools.py",
}
OTHERS = {"quickstart", "custom-resources", "opt-in", "rollouts", "gc-cronjob", "plan", "secret-controllers"}


def test_every_example_is_run_by_a_test() -> None:
    examples = {p.name for p in EXAMPLES.iterdir() if p.is_dir()} - OTHERS
    assert examples == set(COVERED)
    for name, test_file in COVERED.items():
        assert f'"{name}"' in (REPO / "tests" / "integration" / test_file).read_text(), (name, test_file)


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
