"""examples/secret-controllers (SealedSecret, ExternalSecret, SecretProviderClass) under the real
tools: ``kpt fn eval --exec`` on the example's objects as package files, ``kubectl kustomize`` with
krmfn's legacy exec plugin, and the container image. Each gives the objects and the results of the
example's expected-output.yaml, which tests/core/test_secret_controllers.py pins in-process.

The examples are ResourceLists with no Kptfile (nothing for ``kpt fn render`` to run), so the
package each test hands kpt and kustomize is the ResourceList's items, one file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from containers import IMAGE
from tooling import EXAMPLES, env_with, need, run, write_krmfn

ROOT = EXAMPLES / "secret-controllers"
NAMES = sorted(p.name for p in ROOT.iterdir() if (p / "input.yaml").exists())


def _expected(name: str) -> tuple[list[dict], list[dict]]:
    rl = yaml.safe_load((ROOT / name / "expected-output.yaml").read_text())
    return rl["items"], rl.get("results", [])


def _package(name: str, at: Path) -> Path:
    at.mkdir(parents=True)
    items = yaml.safe_load((ROOT / name / "input.yaml").read_text())["items"]
    (at / "resources.yaml").write_text(yaml.safe_dump_all(items, sort_keys=False))
    return at


def _identity(item: dict) -> tuple[str, str, str]:
    return item["kind"], item["metadata"].get("namespace", ""), item["metadata"]["name"]


def _said(results: list[dict]) -> list[tuple[str, str]]:
    return [(r["severity"], r["message"]) for r in results]


def test_every_example_is_here() -> None:
    assert NAMES == ["external-secrets", "sealed-secrets", "secrets-store-csi"]


@pytest.mark.parametrize("name", NAMES)
def test_kpt_fn_eval_gives_the_expected_output_and_a_second_run_changes_nothing(name: str, tmp_path: Path) -> None:
    kpt = need("kpt")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = _package(name, tmp_path / name)
    items, results = _expected(name)
    written = []
    for attempt in range(2):  # kpt's catalog runs each example twice
        out = tmp_path / f"results-{attempt}"
        out.mkdir()
        done = run([kpt, "fn", "eval", str(pkg), "--exec", "krmfn", "--results-dir", str(out)],
                   env=env_with(bin_dir), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert list(yaml.safe_load_all((pkg / "resources.yaml").read_text())) == items
        [found] = out.iterdir()
        assert _said(yaml.safe_load(found.read_text())["items"][0].get("results", [])) == _said(results)
        written.append((pkg / "resources.yaml").read_text())
    assert written[0] == written[1]


@pytest.mark.parametrize("name", NAMES)
def test_kubectl_kustomize_with_the_legacy_plugin_gives_the_expected_objects(name: str, plugin_home: Path,
                                                                             tmp_path: Path) -> None:
    kubectl = need("kubectl")
    overlay = _package(name, tmp_path / name)
    (overlay / "kustomization.yaml").write_text("resources:\n- resources.yaml\ntransformers:\n- content-hash.yaml\n")
    (overlay / "content-hash.yaml").write_text(
        "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: content-hash\n"
        "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n")
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(overlay)],
               env=env_with(plugin_home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(plugin_home)))
    assert done.returncode == 0, done.stderr
    items, _ = _expected(name)
    assert sorted(yaml.safe_load_all(done.stdout), key=_identity) == sorted(items, key=_identity)  # kustomize sorts


@pytest.mark.parametrize("name", NAMES)
def test_the_container_image_gives_the_expected_output(name: str, docker: str, image: str) -> None:  # noqa: F811
    """``docker run -i`` as kpt and kustomize run the image: the example's expected output, byte for byte."""
    assert image == IMAGE
    done = subprocess.run([docker, "run", "--rm", "-i", "--network", "none", "--user", "nobody", IMAGE],
                          input=(ROOT / name / "input.yaml").read_bytes(), capture_output=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == (ROOT / name / "expected-output.yaml").read_bytes()
