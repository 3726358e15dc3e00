"""examples/rotation under the real tools: ``kpt fn eval --exec`` with the options as kpt's
``key=value`` arguments (twice: the second run changes nothing), and ``kubectl kustomize`` with
krmfn's legacy exec plugin and a ContentHash config. Each gives the objects of the example's
expected-output.yaml, Reloader's annotation on the Deployment included (tests/core/test_rotation.py
pins them in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tooling import EXAMPLES, env_with, need, run, write_krmfn

pytestmark = pytest.mark.integration

NAME = "rotation"
ROOT = EXAMPLES / NAME


def _expected() -> list[dict]:
    return yaml.safe_load((ROOT / "expected-output.yaml").read_text())["items"]


def _package(at: Path) -> Path:
    at.mkdir(parents=True)
    items = yaml.safe_load((ROOT / "input.yaml").read_text())["items"]
    (at / "resources.yaml").write_text(yaml.safe_dump_all(items, sort_keys=False))
    return at


def _identity(item: dict) -> tuple[str, str, str]:
    return item["kind"], item["metadata"].get("namespace", ""), item["metadata"]["name"]


def test_kpt_fn_eval_writes_the_reload_annotation_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    kpt = need("kpt")
    bin_dir = tmp_path / "bin"
    write_krmfn(bin_dir)
    pkg = _package(tmp_path / "pkg")
    written = []
    for _ in range(2):
        done = run([kpt, "fn", "eval", str(pkg), "--exec", "krmfn", "--", "select=all",
                    "kinds=ConfigMap,ExternalSecret", "rotation=reloader"], env=env_with(bin_dir), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert list(yaml.safe_load_all((pkg / "resources.yaml").read_text())) == _expected()
        written.append((pkg / "resources.yaml").read_text())
    assert written[0] == written[1]
    assert 'secret.reloader.stakater.com/reload: "api-tls,db-creds-' in written[0] or \
        "secret.reloader.stakater.com/reload: api-tls,db-creds-" in written[0]


def test_kubectl_kustomize_with_the_legacy_plugin_gives_the_expected_objects(plugin_home: Path, tmp_path: Path) -> None:
    kubectl = need("kubectl")
    overlay = _package(tmp_path / "overlay")
    (overlay / "kustomization.yaml").write_text("resources:\n- resources.yaml\ntransformers:\n- content-hash.yaml\n")
    (overlay / "content-hash.yaml").write_text(
        "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: content-hash\n"
        "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"
        "select: all\nkinds: [ConfigMap, ExternalSecret]\nrotation: reloader\n")
    done = run([kubectl, "kustomize", "--enable-alpha-plugins", str(overlay)],
               env=env_with(plugin_home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(plugin_home)))
    assert done.returncode == 0, done.stderr
    assert sorted(yaml.safe_load_all(done.stdout), key=_identity) == sorted(_expected(), key=_identity)
