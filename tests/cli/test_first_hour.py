"""The first hour's words, each checked by a real run (issue #36 point 3): the usage line names
every mode, the help and the catalog metadata say what krmfn renames, a tab error names its own
line, a kustomization gets the command that renders it, and -v's help says what it adds."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_cli import CONFIGMAP, cli, one_sentence
from tooling import REPO


def test_the_usage_line_names_every_mode_plan_included() -> None:
    usage = cli(["--help"]).stdout.decode().splitlines()[0]
    for mode in ("helm", "plugin", "install-kustomize-plugin", "install-helm-plugin", "gc", "plan"):
        assert mode in usage, usage


def test_help_and_metadata_say_configmaps_and_secrets_and_the_controller_kinds() -> None:
    text = " ".join(cli(["--help"]).stdout.decode().split())
    meta = yaml.safe_load((REPO / "metadata.yaml").read_text())["description"]
    for words in (text, " ".join(meta.split())):
        assert "ConfigMaps and Secrets" in words
        assert all(kind in words for kind in ("SealedSecrets", "ExternalSecrets", "SecretProviderClasses"))
    assert "the one saying a run renamed nothing is always printed" in text  # -v's help matches report()


@pytest.mark.parametrize("mode", ["--stream", "file"])
def test_a_tab_error_names_the_line_the_tab_is_on(mode: str, tmp_path: Path) -> None:
    text = b"a: 1\n\tb: 2\n"
    if mode == "file":
        (tmp_path / "one.yaml").write_bytes(text)
        err = one_sentence(cli([str(tmp_path / "one.yaml")]), 1)
    else:
        err = one_sentence(cli(["--stream"], text), 1)
    assert "at line 2, column 1; line 2 has a tab in its indentation" in err, err


def test_a_kustomization_gets_the_command_that_renders_it(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("resources:\n- cm.yaml\n")
    named = one_sentence(cli([str(tmp_path / "kustomization.yaml")]))
    assert f"is a kustomization, which kustomize renders: run kubectl kustomize {tmp_path} | krmfn --stream" in named
    alone = one_sentence(cli([str(tmp_path)]))  # a walk that finds only the kustomization
    assert f"kubectl kustomize {tmp_path} | krmfn --stream" in alone
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)
    walked = cli(["-v", str(tmp_path)])
    assert walked.returncode == 0
    assert f"krmfn: skipped {tmp_path / 'kustomization.yaml'}: a kustomization" in walked.stderr.decode()
