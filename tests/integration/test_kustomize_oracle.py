"""Differential test with `kubectl kustomize` as the oracle.

kustomize's configMapGenerator hashes a ConfigMap and rewrites its references; krmfn, fed the
same ConfigMap unhashed and opted in, must produce the same name and the same references.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import exit_code, run
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from krmfn.krm.data import load_documents
from krmfn.results import has_errors
from krmfn.yaml.scalars import non_string_plain

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kustomize oracle) is not on PATH")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      initContainers:
      - name: init
        image: busybox
        envFrom:
        - configMapRef:
            name: app
      containers:
      - name: main
        image: nginx
        env:
        - name: A
          valueFrom:
            configMapKeyRef:
              name: app
              key: k0
        envFrom:
        - configMapRef:
            name: app
      volumes:
      - name: plain
        configMap:
          name: app
      - name: projected
        projected:
          sources:
          - configMap:
              name: app
"""

CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: job
            image: busybox
            envFrom:
            - configMapRef:
                name: app
"""


def references(obj: dict) -> list[str]:
    found = []

    def walk(node, parent_key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "name" and parent_key in ("configMapRef", "configMapKeyRef", "configMap"):
                    found.append(v)
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, parent_key)

    walk(obj)
    return found


def kustomize(tmp: Path, literals: list[str], files: dict[str, bytes]) -> list[dict]:
    gen = {"name": "app"}
    if literals:
        gen["literals"] = literals
    if files:
        gen["files"] = sorted(files)
        for name, content in files.items():
            (tmp / name).write_bytes(content)
    (tmp / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp / "cronjob.yaml").write_text(CRONJOB)
    (tmp / "kustomization.yaml").write_text(yaml.safe_dump(
        {"resources": ["deployment.yaml", "cronjob.yaml"], "configMapGenerator": [gen]}))
    out = subprocess.run([KUBECTL, "kustomize", str(tmp)], capture_output=True, text=True, check=True)
    return list(YAML(typ="safe", pure=True).load_all(out.stdout))  # Go writes YAML 1.2: `k: =` is a string


def through_krmfn(literals: list[str], files: dict[str, bytes], generated_cm: dict) -> list[dict]:
    """The same ConfigMap, unhashed and opted in: its data from the generator's own inputs (a YAML 1.1
    reader would fold the U+2028 in kustomize's output), binaryData as kustomize encoded it."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "app", "annotations": {"krmfn.dev/content-hash": "true"}}}
    data = dict(lit.split("=", 1) for lit in literals)
    for name, content in files.items():
        try:
            data[name] = content.decode("utf-8")
        except UnicodeDecodeError:
            cm.setdefault("binaryData", {})[name] = generated_cm["binaryData"][name]
    cm["data"] = data
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [cm, yaml.safe_load(DEPLOYMENT), yaml.safe_load(CRONJOB)]}
    out = run(yaml.safe_dump(rl, allow_unicode=True, width=1 << 16, default_style="\""))
    assert exit_code(out) == 0, out.results
    return yaml.safe_load(out.text)["items"]


def compare(tmp: Path, literals: list[str], files: dict[str, bytes]) -> None:
    oracle = kustomize(tmp, literals, files)
    ours = through_krmfn(literals, files, next(o for o in oracle if o["kind"] == "ConfigMap"))
    by_kind = lambda objs: {o["kind"]: o for o in objs}  # noqa: E731
    o, k = by_kind(oracle), by_kind(ours)
    assert k["ConfigMap"]["metadata"]["name"] == o["ConfigMap"]["metadata"]["name"]
    for kind in ("Deployment", "CronJob"):
        assert references(k[kind]) == references(o[kind])
        assert set(references(k[kind])) == {o["ConfigMap"]["metadata"]["name"]}


CASES = {
    "simple": (["k0=v", "year=2020"], {}),
    "html-escaped-by-go": (["k0=<b>&amp;</b>", "arrow=a->b"], {}),
    "unicode": (["k0=ünïcödé ☃ 😀", "ls=a\u2028b"], {}),
    "multi-line file": (["k0=x"], {"app.conf": b"server {\n  listen 80;\n}\n"}),
    "binary file": (["k0=x"], {"blob.bin": bytes(range(256))}),
    "empty value": (["k0="], {}),
    # Go 1.22 and later write \b and \f short (kubectl 1.32's kustomize does); the rest as \u00XX.
    "control characters": (["k0=x"], {"ctl.txt": b"a\bb\fc\x01d\x1fe\tg\rh\n"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_name_and_references_as_kustomize(tmp_path, case):
    literals, files = CASES[case]
    compare(tmp_path, literals, files)


# Values start with a letter: bare scalars such as `=` or `0E0` in kustomize's output read
# differently under YAML 1.1 and 1.2 parsers, which would test the harness, not the hash.
VALUES = st.builds(lambda head, tail: head + tail, st.sampled_from("aZü☃"),
                   st.text(st.sampled_from("abz019 <>&-_.:/@%+=\u00e9\u2603\U0001F600\u2028"), max_size=20)
                   ).filter(lambda s: s == s.strip())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.from_regex(r"k0|[a-z][a-z0-9_.-]{0,8}", fullmatch=True), VALUES, min_size=1, max_size=4))
def test_generated_literals_agree_with_kustomize(tmp_path_factory, data):
    data.setdefault("k0", "x")
    compare(tmp_path_factory.mktemp("oracle"), [f"{k}={v}" for k, v in data.items()], {})


def test_kustomize_output_keeps_its_names_through_krmfn(tmp_path):
    """A kustomize build piped through krmfn, as docs/flux.md's render step does, here
    ``kubectl kustomize . | krmfn --stream --select all``: the generator's names already end in
    their own suffix and are kept (no ``app-h29d89cmmt-h29d89cmmt``), and a second run changes
    nothing."""
    import sys

    (tmp_path / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(
        {"resources": ["deployment.yaml"], "configMapGenerator": [{"name": "app", "literals": ["k0=v", "dot=."]}]}))
    rendered = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    krmfn = [sys.executable, "-m", "krmfn", "--stream", "--select", "all"]
    once = subprocess.run(krmfn, input=rendered, capture_output=True, text=True, check=True).stdout
    twice = subprocess.run(krmfn, input=once, capture_output=True, text=True, check=True).stdout
    before = {(o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(rendered)}
    after = list(yaml.safe_load_all(once))
    assert {(o["kind"], o["metadata"]["name"]) for o in after} == before
    cm = next(o for o in after if o["kind"] == "ConfigMap")
    assert cm["immutable"] is True and cm["metadata"]["annotations"]["krmfn.dev/original-name"] == "app"
    assert twice == once


# --- every emitter's writing of a value, against kustomize's suffix for that value ----------------

SPECIALS = list("aZ09 :#&*!|>{}[],-?%@`'\"\\\t\n\r.") + ["\u2028", "\u2029", "\x85", "\x00", "\x1b", "\xa0",
                                                           "\u00e9", "\u2603", "\U0001F600", "\ufeff"]
# kustomize cannot print DEL and the C1 controls but NEL (go-yaml: "control characters are not allowed").
ANY_TEXT = st.text(st.sampled_from(SPECIALS) | st.characters(codec="utf-8", blacklist_categories=("Cs",)),
                   max_size=24).filter(lambda t: not any("\x7f" <= c <= "\x9f" and c != "\x85" for c in t))
RAW_BREAKS = ("\u2028", "\u2029", "\x85")  # refused when written raw (docs/limits.md): YAML 1.1 and 1.2 disagree
SELECT_ALL = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"}, "data": {"select": "all"}}


def _configmap(name: str, value: object) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": value}}


def _pyyaml(name: str, text: str, style: str | None, width: int) -> str | None:
    out = yaml.dump(_configmap(name, text), default_style=style, width=width, allow_unicode=True, sort_keys=False)
    try:
        return out if yaml.safe_load(out)["data"]["k"] == text else None  # PyYAML reads its own writing back
    except yaml.YAMLError:
        return None


def _ruamel(name: str, text: str, wrap: type, width: int) -> str | None:
    import io

    dumper = YAML()
    dumper.width = width
    out = io.StringIO()
    try:
        dumper.dump(_configmap(name, wrap(text)), out)
        written = out.getvalue()
        return written if YAML(typ="safe", pure=True).load(written)["data"]["k"] == text else None
    except Exception:  # ruamel refuses some texts in some styles, or cannot read its own writing back
        return None


def _emitted(index: int, text: str, width: int) -> list[tuple[str, str]]:
    """The ConfigMap holding ``text``, written by PyYAML in every style and by ruamel.yaml in every style."""
    from ruamel.yaml.scalarstring import (
        DoubleQuotedScalarString,
        FoldedScalarString,
        LiteralScalarString,
        SingleQuotedScalarString,
    )

    out = []
    for j, style in enumerate(['"', "'", None, "|", ">"]):
        out.append((f"pyyaml {style!r}", _pyyaml(f"v{index}-p{j}", text, style, width)))
    for j, wrap in enumerate([str, DoubleQuotedScalarString, SingleQuotedScalarString, LiteralScalarString,
                              FoldedScalarString]):
        out.append((f"ruamel {wrap.__name__}", _ruamel(f"v{index}-r{j}", text, wrap, width)))
    return [(who, doc) for who, doc in out if doc is not None and not any(b in doc for b in RAW_BREAKS)]


def _oracle(tmp: Path, texts: list[str]) -> tuple[list[str], str] | None:
    """kustomize's suffix for each text (a generator per text, its file holding the text), and its
    output; None where kustomize fails on its own output (a value of only a tab and a newline)."""
    gens = []
    for i, text in enumerate(texts):
        (tmp / f"k{i}").write_bytes(text.encode())
        gens.append({"name": f"v{i}", "files": [f"k=k{i}"]})
    (tmp / "kustomization.yaml").write_text(yaml.safe_dump({"configMapGenerator": gens}))
    done = subprocess.run([KUBECTL, "kustomize", str(tmp)], capture_output=True, text=True)
    if done.returncode:
        return None
    names = {o["metadata"]["name"].rpartition("-")[0]: o["metadata"]["name"].rpartition("-")[2]
             for o in YAML(typ="safe", pure=True).load_all(done.stdout)}
    return [names[f"v{i}"] for i in range(len(texts))], done.stdout


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(ANY_TEXT, min_size=1, max_size=8), width=st.integers(8, 60))
@example(texts=["x\n\u2028\u2028y", "C:\\new\u2028\u2028", "\\a\u2029\u2029", "x\r\u2028\u2028y", ".", "a\t\n b",
                "make &&\n\tmake install\n", ""], width=80)
@example(texts=["Y", "on", "0777", "plain"], width=8)  # plain to ruamel's YAML 1.2, not to YAML 1.1 readers
def test_every_emitters_writing_of_a_value_gets_kustomizes_suffix(tmp_path_factory, texts, width):
    """A value written by PyYAML (every style) or ruamel.yaml (every style) is read by krmfn as the
    value it is: krmfn's suffix equals kustomize's own for the same text (its generator reading it
    from a file). And kustomize's own output, through krmfn, keeps its names."""
    from krmfn.cli import stream

    texts = [t for t in texts if "\r" not in t or "\n" in t.replace("\r\n", "")]  # a lone CR: YAML reads a line break
    if not texts:
        return
    texts = [t for t in texts if _oracle(tmp_path_factory.mktemp("one"), [t]) is not None] if \
        _oracle(tmp_path_factory.mktemp("all"), texts) is None else texts  # what kustomize itself cannot render
    found = _oracle(tmp_path_factory.mktemp("oracle"), texts) if texts else None
    if found is None:
        return
    suffixes, rendered = found
    docs = [(i, who, doc) for i, text in enumerate(texts) for who, doc in _emitted(i, text, width)]
    while True:  # the function stops at the first item it cannot read: one refusal at a time
        done = stream.run_stream("---\n".join(doc for _, _, doc in docs).encode(), SELECT_ALL)
        refused = [int(m.group(1)) - 1 for r in done.results
                   if (m := re.match(r"document (\d+) cannot be read by krmfn: a \| or > block whose first line "
                                     r"holds a tab", r.message))]
        if refused:
            # refused as documented (docs/limits.md): ruamel writes a value that starts with a tab as a
            # block whose first line is a tab, which go-yaml reads and libyaml does not
            assert texts[docs[refused[0]][0]].lstrip(" ").startswith("\t"), [str(r) for r in done.results]
            del docs[refused[0]]
            continue
        # An emitter may write plain what one reader takes for text and another for a boolean or a number:
        # ruamel (YAML 1.2) writes on and 0777 so, PyYAML writes Y and n so, which kubectl's go-yaml reads as
        # booleans (and then refuses as a string value): krmfn refuses it too.
        ambiguous = [r for r in done.results if "which YAML reads as a number, boolean or tagged value" in r.message]
        if not ambiguous:
            break
        name = ambiguous[0].resource.name if ambiguous[0].resource else ""
        [at] = [j for j, (_, _, doc) in enumerate(docs) if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", doc)]
        assert non_string_plain(texts[docs[at][0]]), [str(r) for r in done.results]
        del docs[at]
    assert not [r for r in done.results if r.severity == "error"], [str(r) for r in done.results]
    # the names as YAML reads them (not ruamel's safe loader, which has no constructor for a plain "=")
    names = [o["metadata"]["name"] for o in load_documents(done.stdout)]  # type: ignore[index]
    for (i, who, doc), name in zip(docs, names):
        assert name.rpartition("-")[2] == suffixes[i], f"{who} wrote {texts[i]!r} as:\n{doc}"
    # kustomize's own output, raw U+2028 and NEL included (go-yaml writes them raw): every name kept
    again = stream.run_stream(rendered.encode(), SELECT_ALL)
    assert not has_errors(again.results), [str(r) for r in again.results]
    kept = [o["metadata"]["name"] for o in load_documents(again.stdout)]  # type: ignore[index]
    assert sorted(kept) == sorted(f"v{i}-{suffixes[i]}" for i in range(len(texts))), rendered


@pytest.mark.parametrize("type_line", ["", "type: Opaque\n"], ids=["no-type", "Opaque"])
def test_a_hand_written_secret_gets_the_name_secret_generator_gives(tmp_path, type_line):
    """A Secret written with no ``type`` hashes as ``Opaque`` (the API server's default, which
    secretGenerator writes): the same data gets kustomize's name whichever way it is written."""
    import base64
    import sys

    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(
        {"secretGenerator": [{"name": "creds", "literals": ["user=admin", "pass=s3cr3t"]}]}))
    rendered = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    generated = yaml.safe_load(rendered)["metadata"]["name"]
    data = "".join(f"  {k}: {base64.b64encode(v.encode()).decode()}\n" for k, v in (("pass", "s3cr3t"),
                                                                                    ("user", "admin")))
    secret = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n{type_line}data:\n{data}"
    done = subprocess.run([sys.executable, "-m", "krmfn", "--stream", "--select", "all", "--kinds", "Secret"],
                          input=secret, capture_output=True, text=True, check=True).stdout
    assert yaml.safe_load(done)["metadata"]["name"] == generated
