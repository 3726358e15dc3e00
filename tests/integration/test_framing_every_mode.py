"""Streams framed as files and tools write them, through every mode: what is written reads as planned.

Each generated stream holds opted-in ConfigMaps whose last value takes every block style and
chomping, the Deployments that read them, an untouched Service and a ``kind: List``, joined by
the separators people and emitters write (empty lines and comments around ``---``, ``...``,
``--- # c``, a trailing space, a BOM, ``%YAML 1.1``, CRLF, no final line break, trailing empty
lines, comments or ``---`` at the end). Every output is read by libyaml and must be the input as
libyaml reads the whole stream with exactly krmfn's changes made, each suffix kustomize's for the
data as read (computed here from kustomize's hasher rule, not by krmfn's code). The mutation tests break a
splice and a separator on purpose: krmfn's own proof must refuse the output before this test's
comparison could see it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from tooling import REPO, env_with, need

from krmfn.cli import files, stream
from krmfn.yaml import split, textedit

pytestmark = pytest.mark.integration

LAST_VALUES = [
    'k: "plain"', "k: 'single'", "k: bare", "k: |\n    text", "k: |-\n    text", "k: |+\n    text",
    "k: >\n    folded\n    text", "k: >-\n    folded", "k: |+\n    text\n\n", "k: |\n    x\n     ",
    "k: |2\n     spaced", "k: |\n    text\n\n  # indented comment", "k: |+\n    text\n\n# comment",
]
SEPARATORS = ["---\n", "\n---\n", "---\n\n", "--- # c\n", "---   \n", "...\n---\n", "# comment\n---\n",
              "  # indented comment\n---\n", "\n\n---\n# Source: chart/templates/x.yaml\n", "\n# c\n\n---\n"]
STARTS = ["", "---\n", "\ufeff", "%YAML 1.1\n---\n", "# top comment\n", "\n\n"]
ENDS = ["", "\n", "\n\n", "# end\n", "---\n", "...\n", "  \n"]
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc   # kept\nspec:\n  ports: [{port: 80}]\n"


def configmap(n: int, last: str) -> str:
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{n}\n  annotations:\n"
            f"    krmfn.dev/content-hash: \"true\"\ndata:\n  a: '1'\n  {last}\n")


def deployment(n: int) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web{n}\nspec:\n  template:\n    spec:\n"
            f"      containers:\n      - name: c\n        envFrom:\n        - configMapRef:\n            name: cm{n}\n")


LIST = ("apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
        "    name: listed\n    annotations: {krmfn.dev/content-hash: \"true\"}\n  data: {x: z}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: c\n"
        "      envFrom: [{configMapRef: {name: listed}}]\n")


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    docs = [configmap(0, draw(st.sampled_from(LAST_VALUES))), deployment(0), SERVICE]
    if draw(st.booleans()):
        docs.append(LIST)
    if draw(st.booleans()):
        docs += [configmap(1, draw(st.sampled_from(LAST_VALUES))), deployment(1)]
    docs = draw(st.permutations(docs))
    out = draw(st.sampled_from(STARTS)) + docs[0]
    for doc in docs[1:]:
        out += draw(st.sampled_from(SEPARATORS)) + doc
    out += draw(st.sampled_from(ENDS))
    if draw(st.booleans()):
        out = out.rstrip("\n")
    if draw(st.booleans()):
        out = out.replace("\n", "\r\n")
    return out.encode()


def suffix(data: dict[str, str]) -> str:
    """kustomize's suffix for a ConfigMap's data (api/hasher/hasher.go: sorted JSON with Go's escapes, sha256, ten characters)."""
    encoded = json.dumps({"data": data, "kind": "ConfigMap", "name": ""}, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        encoded = encoded.replace(ch, esc)
    digest = hashlib.sha256(encoded.encode()).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


def read(text: bytes) -> list[object]:
    """Every document that is not null, as libyaml reads the whole stream (strings only). A last
    line of spaces with no line break is read as the YAML test suite reads it (L24T: ``x\\n \\n``),
    where libyaml 0.2.5 drops its break."""
    decoded = text.decode("utf-8-sig")
    if decoded and not decoded.endswith("\n") and not decoded.rsplit("\n", 1)[-1].strip(" "):
        decoded += "\n"
    return [d for d in yaml.load_all(decoded, Loader=yaml.CBaseLoader) if d not in (None, "")]


def expected(docs: list[object]) -> list[object]:
    """The input's documents with exactly krmfn's changes made."""
    names: dict[str, str] = {}

    def objects(doc: dict) -> list[dict]:
        return doc["items"] if doc.get("kind") == "List" else [doc]

    for doc in docs:
        for obj in objects(doc):  # type: ignore[arg-type]
            if obj["kind"] == "ConfigMap":
                old = obj["metadata"]["name"]
                names[old] = f"{old}-{suffix(obj['data'])}"
                obj["metadata"]["name"] = names[old]
                obj["metadata"]["annotations"]["krmfn.dev/original-name"] = old
                obj["metadata"]["labels"] = {"krmfn.dev/family": old}
                obj["immutable"] = "true"
    for doc in docs:
        for obj in objects(doc):  # type: ignore[arg-type]
            spec = obj["spec"]["template"]["spec"] if obj["kind"] == "Deployment" else obj.get("spec", {})
            for c in spec.get("containers", []):
                for e in c.get("envFrom", []):
                    e["configMapRef"]["name"] = names[e["configMapRef"]["name"]]
    return docs


def check(given_text: bytes, output: bytes) -> None:
    assert read(output) == expected(read(given_text))
    untouched = SERVICE.encode().rstrip(b"\n")
    if untouched in given_text:
        assert untouched in output  # an untouched document keeps its bytes


@settings(max_examples=300, deadline=None)
@given(streams())
def test_stream_and_files_read_back_as_planned(text: bytes) -> None:
    done = stream.run_stream(text, None)
    assert not done.failed, (done.results, text)
    check(text, done.stdout)
    out = files.run_files([files.Source("a.yaml", text, True), files.Source("b.yaml", SERVICE.encode(), True)], None)
    assert not out.failed, out.results
    assert out.outputs[0][1] == done.stdout and out.outputs[1][1] == SERVICE.encode()
    assert stream.run_stream(done.stdout, None).stdout == done.stdout  # idempotent


def cli(args: list[str], data: bytes = b"", env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=data, capture_output=True, env=full,
                          cwd=cwd, timeout=120, check=False)


SAMPLES = [
    b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm0\n  annotations:\n    krmfn.dev/content-hash: \"true\"\n"
    b"data:\n  a: '1'\n  k: |\n    text\n\n---\n" + deployment(0).encode() + b"  # indented comment\n---\n" + LIST.encode()
    + b"---\n" + SERVICE.encode() + b"\n",
    configmap(0, "k: |+\n    text\n\n# comment").encode() + b"\n---\n" + deployment(0).encode() + b"\n\n",
    ("\ufeff%YAML 1.1\n---\n" + deployment(0) + "...\n---\n" + configmap(0, "k: |\n    text")).encode().rstrip(b"\n"),
    (deployment(0) + "---   \n" + configmap(0, "k: >-\n    folded")).replace("\n", "\r\n").encode(),
]


@pytest.mark.parametrize("text", SAMPLES, ids=["empty-lines", "keep-comment", "bom-yaml-unended", "crlf"])
def test_every_shell_mode_reads_back_as_planned(text: bytes, tmp_path: Path) -> None:
    """--stream, helm and -i through the real command line, on the shapes the line splitter broke."""
    for args in (["--stream"], ["helm"]):
        done = cli(args, text)
        assert done.returncode == 0, done.stderr.decode()
        check(text, done.stdout)
    (tmp_path / "a.yaml").write_bytes(text)
    done = cli(["-i", str(tmp_path / "a.yaml")])
    assert done.returncode == 0, done.stderr.decode()
    check(text, (tmp_path / "a.yaml").read_bytes())
    assert (tmp_path / "a.yaml").read_bytes() == cli(["--stream"], text).stdout


@pytest.mark.parametrize("text", SAMPLES[:2], ids=["empty-lines", "keep-comment"])
def test_the_kustomize_exec_plugin_reads_back_as_planned(text: bytes, plugin_home: Path, tmp_path: Path) -> None:
    """The legacy exec plugin through the real kubectl kustomize, which reads the stream with go-yaml
    and re-serialises it first (a ``|+`` block before a comment gains a line break there): the
    output is kustomize's own reading of the input with exactly krmfn's changes made."""
    kubectl = need("kubectl")
    (tmp_path / "resources.yaml").write_bytes(text)
    (tmp_path / "fn.yaml").write_text("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n"
                                      "  name: fn\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n")

    def kustomize(transformers: str) -> bytes:
        (tmp_path / "kustomization.yaml").write_text(f"resources:\n- resources.yaml\n{transformers}")
        done = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(tmp_path)], capture_output=True,
                              env=env_with(plugin_home.parent / "bin", KUSTOMIZE_PLUGIN_HOME=str(plugin_home)),
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout

    def objects(docs: list[object]) -> list[object]:
        out = [o for d in docs for o in (d["items"] if d.get("kind") == "List" else [d])]  # type: ignore[union-attr]
        return sorted(out, key=lambda o: (o["kind"], o["metadata"]["name"]))  # type: ignore[index]

    as_kustomize_reads = kustomize("")
    assert objects(read(kustomize("transformers:\n- fn.yaml\n"))) == objects(expected(read(as_kustomize_reads)))


def test_a_broken_splice_is_refused_by_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """A splice that writes a wrong value is caught before any output, whatever the test would see."""
    real = textedit.splice
    monkeypatch.setattr("krmfn.core.run.write.splice", lambda source, edits: real(source, edits).replace(b"'1'", b"'2'"))
    done = stream.run_stream(SAMPLES[0], None)
    assert done.failed and done.stdout == b""
    assert "data.a" in done.results[0].message and "writes nothing" in done.results[0].message


@pytest.mark.parametrize("damage", [lambda t: t.replace(b"---", b"--", 1), lambda t: t.replace(b"\n\n", b"\n", 1),
                                    lambda t: t[:-1]], ids=["separator", "empty-line", "last-byte"])
def test_a_broken_separator_is_refused_by_the_proof(damage, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """A frame damaged while the output is put together is caught before any output."""
    real = split.Cut.assemble

    def broken(self: split.Cut, cuts: list[tuple[int, int, bytes]]) -> list[bytes]:
        return [damage(b"".join(real(self, cuts)))]

    monkeypatch.setattr(split.Cut, "assemble", broken)
    done = stream.run_stream(SAMPLES[0], None)
    assert done.failed and done.stdout == b""
    assert "would not be its input with only krmfn's changes made" in done.results[0].message
