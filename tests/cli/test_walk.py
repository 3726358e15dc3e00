"""A directory walk decides by reading: a file is a manifest when some document parses to a map
with apiVersion and kind, whatever its style; every other file is left alone, named under -v,
and never fails the run. The same for a kpt package (a directory with Kptfiles)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_cli import CONFIGMAP, cli, out

from krmfn.cli.triage import skip_reason
from krmfn.yaml.probe import holds_objects
from krmfn.yaml.tree import YamlError


def _deployment(name: str) -> dict[str, object]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"template": {"spec": {"containers": [
                {"name": "c", "image": "i", "envFrom": [{"configMapRef": {"name": "app-config"}}]}]}}}}


# Each style a Deployment can be written in, that kubectl reads: the old walk read only the first.
STYLES = {
    "block": yaml.safe_dump(_deployment("block")),
    "json": json.dumps(_deployment("json"), indent=2) + "\n",
    "json-one-line": json.dumps(_deployment("json-one-line")) + "\n",
    "flow": yaml.safe_dump(_deployment("flow"), default_flow_style=True),
    "quoted-keys": json.dumps(_deployment("quoted-keys")).replace('{"', '{\n "', 1) + "\n",
    "indented": "".join("  " + line + "\n" for line in yaml.safe_dump(_deployment("indented")).splitlines()),
    "with-a-json-one": yaml.safe_dump(_deployment("with-a-json-one")) + "---\n"
                       + json.dumps(_deployment("its-json-neighbour")) + "\n",
}


def _references(text: str) -> dict[str, str]:
    refs = {}
    for doc in yaml.safe_load_all(text):
        if doc and doc["kind"] == "Deployment":
            container = doc["spec"]["template"]["spec"]["containers"][0]
            refs[doc["metadata"]["name"]] = container["envFrom"][0]["configMapRef"]["name"]
    return refs


def test_a_walk_reads_a_deployment_in_every_style(tmp_path: Path) -> None:
    (tmp_path / "configmap.yaml").write_text(CONFIGMAP)
    for style, text in STYLES.items():
        (tmp_path / f"{style}.yaml").write_text(text)
    text = out(cli([str(tmp_path)]))
    hashed = next(d for d in yaml.safe_load_all(text) if d["kind"] == "ConfigMap")["metadata"]["name"]
    assert hashed.startswith("app-config-")
    refs = _references(text)
    assert set(refs) == {*STYLES, "its-json-neighbour"}
    assert set(refs.values()) == {hashed}, refs  # no reference left on the old name


NOT_MANIFESTS = {
    "values.yaml": b"replicas: 2\nimage: {repository: app, tag: '1.0'}\n",
    "latin1.yaml": b"greeting: caf\xe9\n",
    "binary.yaml": bytes(range(256)) * 4,
    "tags.yaml": b"%TAG !e! tag:example.com,2000:\n---\nthing: !e!widget x\n",
    "broken.yaml": b"a: [unclosed\n",
    "template.yml": b"{{- if .Values.enabled }}\nreplicas: {{ .Values.n }}\n{{- end }}\n",
}
REASONS = {
    "values.yaml": "no Kubernetes objects",  # a Chart.yaml makes its folder a Helm chart: test_cli.py
    "latin1.yaml": "not UTF-8 text (line 1 holds the byte 0xe9)", "binary.yaml": "binary data",
    "tags.yaml": "no Kubernetes objects", "broken.yaml": "not valid YAML", "template.yml": "not valid YAML",
}


def test_files_that_are_not_manifests_are_left_alone_and_named_under_verbose(tmp_path: Path) -> None:
    (tmp_path / "configmap.yaml").write_text(CONFIGMAP)
    (tmp_path / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\n"
                                                 "kind: Kustomization\nresources: [configmap.yaml]\n")
    for name, data in NOT_MANIFESTS.items():
        (tmp_path / name).write_bytes(data)
    done = cli(["-v", str(tmp_path)])
    assert done.returncode == 0, done.stderr.decode()
    assert [d["kind"] for d in yaml.safe_load_all(done.stdout)] == ["ConfigMap"]
    lines = done.stderr.decode().splitlines()
    for name, reason in REASONS.items():
        assert any(line.startswith(f"krmfn: skipped {tmp_path / name}: {reason}") for line in lines), (name, lines)
    kustomization = [line for line in lines if "kustomization.yaml" in line]  # tool configuration, not walked:
    assert kustomization == [f"krmfn: skipped {tmp_path / 'kustomization.yaml'}: a kustomization, which kustomize "  # named
                             f"renders: run kubectl kustomize {tmp_path} | krmfn --stream, or add krmfn to it as a "
                             "transformer (docs/kustomize.md)"]
    quiet = cli([str(tmp_path)])
    assert quiet.returncode == 0 and b"skipped" not in quiet.stderr  # info lines: under -v only
    done = cli(["-i", str(tmp_path)])
    assert done.returncode == 0, done.stderr.decode()
    assert {n: (tmp_path / n).read_bytes() for n in NOT_MANIFESTS} == NOT_MANIFESTS


def test_a_broken_manifest_in_a_walk_fails_the_run_rather_than_being_left_out(tmp_path: Path) -> None:
    (tmp_path / "configmap.yaml").write_text(CONFIGMAP)
    (tmp_path / "deploy.yaml").write_text(STYLES["block"].replace("  template:", "  template: [", 1))
    done = cli([str(tmp_path)])
    assert done.returncode == 1 and done.stdout == b""
    assert f"{tmp_path / 'deploy.yaml'}" in done.stderr.decode()


def test_a_file_named_on_the_command_line_is_always_read(tmp_path: Path) -> None:
    (tmp_path / "latin1.yaml").write_bytes(NOT_MANIFESTS["latin1.yaml"])
    done = cli([str(tmp_path / "latin1.yaml")])
    assert done.returncode == 1 and "not UTF-8" in done.stderr.decode()


def test_a_kpt_package_is_walked_by_the_same_rules(tmp_path: Path) -> None:
    """A package with a Kptfile, a sub-package, its function config and a values file: the Kptfiles
    have no suffix and are not walked; a JSON Deployment in the sub-package follows the ConfigMap."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for where, name in ((pkg, "pkg"), (pkg / "sub", "sub")):
        (where / "Kptfile").write_text(f"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {name}\n")
    (pkg / "configmap.yaml").write_text(CONFIGMAP)
    (pkg / "fn-config.yaml").write_text(
        "apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: hash\n"
        "  annotations: {config.kubernetes.io/local-config: \"true\"}\n")
    (pkg / "sub" / "deploy.json").write_text("not walked: no yaml suffix")
    (pkg / "sub" / "deploy.yaml").write_text(STYLES["json"])
    (pkg / "sub" / "values.yaml").write_bytes(NOT_MANIFESTS["latin1.yaml"])
    done = cli(["-v", "-i", str(pkg)])
    assert done.returncode == 0, done.stderr.decode()
    assert f"skipped {pkg / 'sub' / 'values.yaml'}: not UTF-8" in done.stderr.decode()
    hashed = yaml.safe_load((pkg / "configmap.yaml").read_text())["metadata"]["name"]
    assert hashed.startswith("app-config-")
    assert _references((pkg / "sub" / "deploy.yaml").read_text()) == {"json": hashed}
    assert (pkg / "Kptfile").read_text().endswith("name: pkg\n")


@pytest.mark.parametrize(("text", "expected"), [
    ('{"apiVersion": "v1", "kind": "ConfigMap"}', True),
    ("  apiVersion: v1\n  kind: ConfigMap\n", True),
    ("'apiVersion': v1\n\"kind\": ConfigMap\n", True),
    ("replicas: 1\n---\nmetadata: {a: b}\napiVersion: v1\nkind: Service\n", True),
    ("spec: {apiVersion: v1, kind: ConfigMap}\n", False),  # not at the root
    ("apiVersion: v1\nkind: ''\n", False),
    ("apiVersion: v1\nkind: [ConfigMap]\n", False),
    ("- apiVersion: v1\n  kind: ConfigMap\n", False),
    ("apiVersion: v2\nname: chart\n", False),
    ("", False),
])
def test_holds_objects_reads_the_root_of_each_document(text: str, expected: bool) -> None:
    assert holds_objects(text) is expected


def test_holds_objects_raises_on_text_that_does_not_parse() -> None:
    with pytest.raises(YamlError):
        holds_objects("a: [\n")
    assert holds_objects("apiVersion: v1\nkind: ConfigMap\n---\na: [\n")  # the first object decides


def test_skip_reason_leaves_the_run_to_refuse_what_kubectl_would_read() -> None:
    assert skip_reason(b"\xff\xfe" + "apiVersion: v1\n".encode("utf-16-le"), 1 << 20) is None  # UTF-16 with a BOM
    assert skip_reason(b"x" * 100, 10) is None  # over the limit: the run says so
    assert skip_reason("a: b\n".encode("utf-16-le"), 1 << 20) == "UTF-16 text without a byte order mark"
