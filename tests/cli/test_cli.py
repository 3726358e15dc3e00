"""The command line: every mode and option, and the pure parts behind the plain-stream modes.

The stream modes wrap documents into a ResourceList and run the same function, so the tests
compare them with the ResourceList mode; they also check that what the function does not change
comes back byte for byte.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from conftest import exit_code
from hypothesis import given, settings
from hypothesis import strategies as st
from tooling import REPO

from krmfn import __version__
from krmfn.cli import files, options, stream
from krmfn.cli import installers as plugin
from krmfn.core.config import parse_fields, read_config, read_config_file
from krmfn.core.references.fieldspec import FieldSpec
from krmfn.core.references.user_specs import parse_field_specs
from krmfn.core.run.function import run_resource_list
from krmfn.krm.limits import Limits
from krmfn.results import ConfigError, Where, has_errors
from krmfn.yaml.split import cut
from krmfn.yaml.tree import Doc, YamlError

QUICKSTART = REPO / "examples" / "quickstart" / "input.yaml"

CONFIGMAP = textwrap.dedent("""\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: app-config
      annotations:
        krmfn.dev/content-hash: "true"   # opt in
    data:
      LOG_LEVEL: 'info'
      app.yaml: |
        port: 8080
    """)
DEPLOYMENT = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: app   # odd spacing, kept
    spec:
      template:
        spec:
          containers:
            - name: app
              image: "app:1.0"
              envFrom:
                - configMapRef:
                    name: app-config
    """)
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: app\nspec:\n  ports: [{port: 80}]  # flow\n"
STREAM = f"---\n# Source: a/configmap.yaml\n{CONFIGMAP}---\n# Source: a/deployment.yaml\n{DEPLOYMENT}---\n{SERVICE}"


def cli(args: list[str], stdin: str | bytes = b"", cwd: Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``krmfn ARGS`` as a user runs it, from this work tree."""
    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=data, capture_output=True,
                          cwd=cwd, env=full, timeout=120, check=False)


def out(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def one_sentence(done: subprocess.CompletedProcess[bytes], code: int = 2) -> str:
    """An error: the exit code, nothing on stdout, one line on stderr."""
    assert done.returncode == code, done.stderr.decode()
    assert done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("krmfn: "), err
    return err


# --- reading streams: the one reader, each document an object in place --------------------------

def _documents_read_whole(text: bytes) -> list[object]:
    """Every document of a stream that is not null, as libyaml reads the whole stream."""
    return [d for d in yaml.load_all(text, Loader=yaml.CBaseLoader) if d not in (None, "")]


def test_a_stream_is_cut_into_its_documents_and_keeps_every_byte() -> None:
    c = cut(STREAM.encode(), stream=True)
    assert len(c.items) == 3 and c.items[2] == SERVICE.encode()
    assert b"".join(c.assemble(c.replacements(c.items, b""))) == STREAM.encode()
    assert STREAM.encode()[:c.slots[0][0]] == b"---\n# Source: a/configmap.yaml\n"


def test_the_reader_cuts_every_framing_as_libyaml_reads_it() -> None:
    text = (b"%YAML 1.2\n---\n# only a comment\n---\na: 1\n...\n--- {b: 2}\n---   \n"
            b"c: |+\n  x\n\n# trailing, at column 0\n\n---\n")
    c = cut(text, stream=True)
    assert list(c.items) == [b"a: 1\n", b"{b: 2}\n", b"c: |+\n  x\n\n"]
    assert b"".join(c.assemble(c.replacements(c.items, b""))) == text
    assert [Doc.parse(i).all_documents() != [] for i in c.items] == [True] * 3
    assert list(cut(b"", stream=True).items) == []


lines = st.sampled_from(["---", "--- # c", "...", "# comment", "", "  ", "a: 1", "b:", "  - x", "  c: |",
                         "    text", "  e: |+", "     ", "--- {a: 1}", "%YAML 1.1", "d: 'q'  # end", "  # indented"])


@settings(max_examples=400, deadline=None)
@given(st.lists(lines, max_size=12), st.booleans())
def test_each_document_reads_alone_as_it_reads_in_the_whole_stream(chosen: list[str], final_newline: bool) -> None:
    text = ("\n".join(chosen) + ("\n" if final_newline and chosen else "")).encode()
    try:
        whole = _documents_read_whole(text)
    except yaml.YAMLError:
        return
    c = cut(text, stream=True)
    assert b"".join(c.assemble(c.replacements(c.items, b""))) == text
    alone = [yaml.load(item, Loader=yaml.CBaseLoader) for item in c.items]
    assert alone == whole
    windows = [yaml.load_all(item + c.after(i), Loader=yaml.CBaseLoader) for i, item in enumerate(c.items)]
    assert [next(iter(w)) for w in windows] == whole


# go-yaml (kubectl kustomize) writes a raw U+2028 inside a block scalar, and indents what follows
# it as a line of its own, since it reads U+2028 as a line break (as libyaml does).
GO_YAML_LINE_SEPARATORS = (
    "apiVersion: v1\ndata:\n  a: |\n    x\u2028    y\n    z\n  b: 'x\u2028    y'\n  c: |-\n    line1\n"
    "    x\u2028\n    end\n  d: |2\n      lead\u2028\n    trail\nkind: ConfigMap\nmetadata:\n  name: c-82h6dkhbdd\n")


def test_go_yamls_raw_line_separators_are_read_as_go_yaml_reads_them() -> None:
    """The text ``kubectl kustomize`` prints for four values holding U+2028 (its suffix computed
    over them): wrapped as an item, each indent after a U+2028 moves with the rest, so the values
    are those kustomize hashed and the name is kept."""
    done = stream.run_stream(GO_YAML_LINE_SEPARATORS.encode(), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"}, "data": {"select": "all"}})
    assert not has_errors(done.results), [str(r) for r in done.results]
    [out] = yaml.load_all(done.stdout.decode(), Loader=yaml.CSafeLoader)
    assert out["metadata"]["name"] == "c-82h6dkhbdd"
    assert out["data"] == yaml.load(GO_YAML_LINE_SEPARATORS, Loader=yaml.CSafeLoader)["data"]
    assert out["data"]["a"] == "x\u2028y\nz\n"


# --- the stream modes behave as the ResourceList mode -----------------------------------------

def test_stream_equals_resource_list_mode() -> None:
    """The quickstart's items as a plain stream: the same objects come out as from the ResourceList."""
    rl = yaml.safe_load(QUICKSTART.read_text())
    as_stream = "---\n".join(yaml.safe_dump(i, sort_keys=False) for i in rl["items"])
    by_stream = stream.run_stream(as_stream.encode(), None)
    by_rl = run_resource_list(QUICKSTART.read_bytes())
    assert exit_code(by_stream) == exit_code(by_rl) == 0
    assert list(yaml.safe_load_all(by_stream.stdout)) == yaml.safe_load(by_rl.text)["items"]
    assert [r.message for r in by_stream.results] == [r.message for r in by_rl.results]


def test_stream_keeps_untouched_bytes_and_comments_between_documents() -> None:
    done = stream.run_stream(STREAM.encode(), None)
    assert exit_code(done) == 0
    text = done.stdout.decode()
    assert text.count("# Source: a/") == 2
    assert text.endswith(SERVICE)  # untouched: byte for byte, flow style and comment too
    new_name = next(line.split()[-1] for line in text.splitlines() if "name: app-config-" in line)
    assert DEPLOYMENT.replace("name: app-config\n", f"name: {new_name}\n") in text  # spliced in place
    assert stream.run_stream(done.stdout, None).stdout == done.stdout  # a fixed point


def test_stream_windows_line_ends_and_bom() -> None:
    crlf = b"\xef\xbb\xbf" + STREAM.replace("\n", "\r\n").encode()
    done = stream.run_stream(crlf, None)
    assert exit_code(done) == 0
    assert done.stdout.startswith(b"\xef\xbb\xbf---\r\n")
    assert b"\n" not in done.stdout.replace(b"\r\n", b"")
    assert done.stdout.replace(b"\r\n", b"\n")[3:] == stream.run_stream(STREAM.encode(), None).stdout


def test_stream_with_tabs_still_keeps_untouched_documents() -> None:
    tabbed = CONFIGMAP.replace("LOG_LEVEL: 'info'", 'LOG_LEVEL: "a\tb"')
    text = f"{tabbed}---\n{SERVICE}"
    done = stream.run_stream(text.encode(), None)
    assert exit_code(done) == 0
    assert done.stdout.decode().endswith(SERVICE)
    assert yaml.safe_load(done.stdout.decode().split("---\n")[0])["data"]["LOG_LEVEL"] == "a\tb"


def test_stream_empty_and_comment_only() -> None:
    assert stream.run_stream(b"", None).stdout == b""
    text = b"# nothing here\n---\n# Source: x.yaml\n"
    assert stream.run_stream(text, None).stdout == text


@pytest.mark.parametrize("text, fragment", [
    (f"%YAML 1.2\n%YAML 1.2\n---\n{SERVICE}", "found duplicate %YAML directive at line 2"),
    (f"%TAG !e! tag:example.com,2000:\n---\n{SERVICE}", "%TAG"),
])
def test_stream_directives_that_would_read_differently_apart_are_refused(text: str, fragment: str,
                                                                          tmp_path: Path) -> None:
    """krmfn keeps a stream's directives in the gaps and reads each document apart: where that would
    read differently (a %TAG), or the stream is not valid YAML, it says so instead of writing it back."""
    done = stream.run_stream(text.encode(), None)
    assert exit_code(done) == 1 and done.stdout == b""
    assert fragment in done.results[0].message
    (tmp_path / "a.yaml").write_text(text)
    assert fragment in one_sentence(cli([str(tmp_path / "a.yaml")]), 1)
    good = f"%YAML 1.2\n---\n{SERVICE}...\n%YAML 1.2\n---\n{SERVICE}"
    assert stream.run_stream(good.encode(), None).stdout == good.encode()


def test_stream_error_names_the_document() -> None:
    done = stream.run_stream(f"{SERVICE}---\napiVersion: v1\nkind: ConfigMap\n".encode(), None)
    assert exit_code(done) == 1 and done.stdout == b""
    assert [r.message for r in done.results if r.severity == "error"] == ["document 2 (ConfigMap) has no metadata map"]


@pytest.mark.parametrize("marker", ["---\n", "\n---\n# Source: x\n", "--- "])
def test_stream_and_file_errors_name_the_line_and_column_in_the_users_text(tmp_path: Path, marker: str) -> None:
    """A document's error is placed where libyaml stops reading the stream or file as written, and
    names the document it stops in (``--- apiVersion: v1`` is itself the error: a block map cannot
    start on the ``---`` line, as libyaml and go-yaml read it)."""
    bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - args: [a,\n    x: [\n"
    text = f"{SERVICE}{marker}{bad}"
    try:
        Doc.parse(text.encode())
    except YamlError as exc:  # where libyaml stops in the whole stream
        where = f"document 2 is not valid YAML: {exc.problem} at line {exc.line}, column {exc.col}"
    done = stream.run_stream(text.encode(), None)
    message = [r.message for r in done.results if r.severity == "error"][0]
    assert message.startswith(where), message
    (tmp_path / "a.yaml").write_text(text)
    assert where.replace("document 2", f"document 2 of {tmp_path / 'a.yaml'}") in one_sentence(
        cli([str(tmp_path / "a.yaml")]), 1)


def test_a_flow_list_closed_at_its_keys_indentation_is_read() -> None:
    """``args: [`` ... ``]`` under the key, as in Argo Workflows' and istio's examples."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    args: [\n"
           "      \"a\", \"b\"\n    ]\n    envFrom:\n    - configMapRef: {name: app-config}\n")
    done = stream.run_stream(f"{CONFIGMAP}---\n{pod}".encode(), None)
    assert exit_code(done) == 0, done.results
    second = done.stdout.decode().split("---\n")[1]
    assert second == pod.replace("name: app-config}", f"name: {yaml.safe_load(done.stdout.decode().split('---')[0])['metadata']['name']}}}")


def test_stream_limits_apply_to_the_input_as_given() -> None:
    done = stream.run_stream(STREAM.encode(), None, Limits(max_input_bytes=100))
    assert exit_code(done) == 1 and "--max-input-size" in done.results[0].message
    exact = Limits(max_input_bytes=len(STREAM), max_nodes=10_000)
    ok = stream.run_stream(STREAM.encode(), None, exact)  # the wrapper's own bytes do not count
    assert exit_code(ok) == 0


def test_stream_rejects_bytes_that_are_not_utf8() -> None:
    done = stream.run_stream(b"a: 1\nb: \xff\n", None)
    assert exit_code(done) == 1 and "line 2, column 4 holds the byte 0xff" in done.results[0].message


# --- options: flags and files build the same Config as functionConfig ---------------------------

FLAG_CASES = [
    (options.Flags(select="all"), "select: all"),
    (options.Flags(names=["a", "b"]), "names: [a, b]"),
    (options.Flags(selector="tier in (web,api),!legacy"), "selector: 'tier in (web,api),!legacy'"),
    (options.Flags(algorithm="sha256"), "algorithm: sha256"),
    (options.Flags(retention=["flux", "argocd"]), "retention: [flux, argocd]"),
    (options.Flags(suffix_jobs=True), "suffixJobs: true"),
    (options.Flags(strategy="annotation"), "strategy: annotation"),
    (options.Flags(default_namespace="demo"), "defaultNamespace: demo"),
    (options.Flags(audit="info"), "audit: info"),
    (options.Flags(field_specs=[{"kind": "Rollout", "group": "argoproj.io",
                                 "path": "spec/template/spec/volumes/configMap/name"}]),
     "fieldSpecs: [{kind: Rollout, group: argoproj.io, path: spec/template/spec/volumes/configMap/name}]"),
]


@pytest.mark.parametrize("flags,typed", FLAG_CASES, ids=[t.split(":")[0] for _, t in FLAG_CASES])
def test_flags_build_the_config_function_config_builds(flags: options.Flags, typed: str) -> None:
    doc = Doc.parse(f"apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {{name: c}}\n{typed}\n".encode())
    assert parse_fields(flags.fields(), None) == read_config(doc, doc.documents()[0])
    fc = options.function_config("c", flags.fields())
    assert fc["kind"] == "ContentHash" and fc["apiVersion"] == "fn.krmfn.dev/v1alpha1"


def test_bad_flag_values_are_one_sentence() -> None:
    with pytest.raises(ConfigError, match="'retention' has unknown target 'nope'"):
        options.function_config("c", options.Flags(retention=["nope"]).fields())


@pytest.mark.parametrize("text,size", [("1048576", 1 << 20), ("64K", 64 << 10), ("256M", 256 << 20),
                                       ("1G", 1 << 30), ("2Gi", 2 << 30), ("512MB", 512 << 20), (" 8k ", 8 << 10)])
def test_parse_size(text: str, size: int) -> None:
    assert options.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "1T", "-1", "1.5G", "M", "ten"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a size"):
        options.parse_size(text)


def test_read_config_forms() -> None:
    typed = b"apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata: {name: x}\nselect: all\n" \
            b"argsOneLiner: --retention flux\n"
    ref, fields = read_config_file(typed, "f")
    assert (ref.name, fields) == ("x", {"select": "all"})  # kustomize's own fields dropped
    cm = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata: {select: all, retention: 'flux,kpt'}\n"
    ref, fields = read_config_file(cm, "f")
    assert (ref.name, fields) == ("y", {"select": "all", "retention": "flux,kpt"})
    with pytest.raises(ConfigError, match="takes kind ContentHash"):
        read_config_file(b"apiVersion: v1\nkind: Secret\n", "f")
    with pytest.raises(ConfigError, match="not valid YAML"):
        read_config_file(b"a: [\n", "f")


def test_read_field_specs_forms() -> None:
    spec = {"kind": "Rollout", "group": "argoproj.io", "path": "spec/template/spec/volumes/configMap/name"}
    as_list = yaml.safe_dump([spec]).encode()
    specs = parse_field_specs([spec], Where("f"))

    def read(data: object) -> list[FieldSpec]:  # the file, read as the fieldSpecs field would be
        return parse_field_specs(options.read_field_specs(yaml.safe_dump(data).encode(), "f"), Where("f"))

    assert read([spec]) == specs
    assert read({"fieldSpecs": [spec]}) == specs
    name_reference = {"nameReference": [{"kind": "Service", "fieldSpecs": [{"kind": "X", "path": "a"}]},
                                        {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [spec]}]}
    assert read(name_reference) == specs
    with pytest.raises(ConfigError, match="list of field specs"):
        options.read_field_specs(b"a: 1\n", "f")


def test_field_specs_file_is_as_strict_as_the_function_config_field() -> None:
    """Drift fixed: the file was read more leniently (a misspelt key passed; a v2 ConfigMap entry was used)."""
    misspelt = yaml.safe_dump([{"kind": "Rollout", "pth": "spec/x"}]).encode()
    with pytest.raises(ConfigError, match="unknown key 'pth'"):
        options.read_field_specs(misspelt, "f")
    v2 = {"nameReference": [{"kind": "ConfigMap", "version": "v2", "fieldSpecs": [{"kind": "X", "path": "a"}]}]}
    assert parse_field_specs(options.read_field_specs(yaml.safe_dump(v2).encode(), "f"), Where("f")) == []


def test_environment_names() -> None:
    env = {"KRMFN_SELECT": "all", "KRMFN_NAMES": "", "KRMFN_RETENTION": "helm", "OTHER": "x"}
    assert options.from_environment(env) == {"select": "all", "retention": "helm"}


# --- files and directories ----------------------------------------------------------------------

@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "configmap.yaml").write_text(CONFIGMAP)
    (tmp_path / "app" / "workloads.yml").write_text(f"# workloads\n{DEPLOYMENT}---\n{SERVICE}")
    (tmp_path / "app" / "kustomization.yaml").write_text("resources: [configmap.yaml]\n")
    (tmp_path / "app" / "values.yaml").write_text("replicas: 2\n")  # not Kubernetes objects
    (tmp_path / "app" / "notes.txt").write_text("not yaml\n")
    (tmp_path / "app" / ".hidden").mkdir()
    (tmp_path / "app" / ".hidden" / "x.yaml").write_text("broken: [\n")
    return tmp_path / "app"


def test_find_walks_directories(tree: Path) -> None:
    found, left_out = files.find([str(tree)])
    assert [Path(p).name for p, _ in found] == ["configmap.yaml", "values.yaml", "workloads.yml"]
    assert [(Path(p).name, why.split(":")[0]) for p, why in left_out] == [
        ("kustomization.yaml", "a kustomization, which kustomize renders")]  # named under -v with its command
    assert files.find([str(tree / "values.yaml"), str(tree)])[0][0] == (str(tree / "values.yaml"), True)
    with pytest.raises(ConfigError, match="does not exist"):
        files.find([str(tree / "missing.yaml")])


def test_directory_to_stdout(tree: Path) -> None:
    text = out(cli([str(tree)]))
    docs = [d for d in yaml.safe_load_all(text) if d]
    assert [d["kind"] for d in docs] == ["ConfigMap", "Deployment", "Service"]  # values.yaml left out
    name = docs[0]["metadata"]["name"]
    assert name.startswith("app-config-")
    assert docs[1]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == name
    assert (tree / "configmap.yaml").read_text() == CONFIGMAP  # nothing written


def test_in_place_writes_only_what_changes(tree: Path) -> None:
    (tree / "workloads.yml").chmod(0o640)
    service = tree / "service.yaml"
    service.write_text(SERVICE)
    before = service.stat().st_mtime_ns
    done = cli(["--in-place", "--verbose", str(tree)])
    assert done.returncode == 0 and done.stdout == b""
    assert "wrote" in done.stderr.decode() and "skipped" in done.stderr.decode()
    assert service.stat().st_mtime_ns == before and service.read_text() == SERVICE
    assert stat.S_IMODE((tree / "workloads.yml").stat().st_mode) == 0o640
    written = {p.name: p.read_text() for p in tree.iterdir() if p.is_file()}
    assert written["workloads.yml"].startswith("# workloads\n")
    assert written["workloads.yml"].endswith(SERVICE)
    assert "immutable: true" in written["configmap.yaml"]
    again = cli(["--in-place", str(tree)])
    assert again.returncode == 0
    assert {p.name: p.read_text() for p in tree.iterdir() if p.is_file()} == written  # idempotent
    assert not [p for p in tree.iterdir() if p.name.endswith(".krmfn")]


def test_how_to_stop_using_krmfn_after_in_place_runs(tree: Path) -> None:
    """The way out docs/migration.md gives: "false" on what -i renamed, one more -i run, and the files are the
    user's own again (but the "false"), every reference back on the original name."""
    original = {p.name: p.read_text() for p in tree.iterdir() if p.is_file()}
    assert cli(["-i", str(tree)]).returncode == 0
    configmap = tree / "configmap.yaml"
    assert "immutable: true" in configmap.read_text()
    configmap.write_text(configmap.read_text().replace('content-hash: "true"', 'content-hash: "false"'))
    done = cli(["-i", "-v", str(tree)])
    assert done.returncode == 0
    assert "gets its original name back, app-config" in done.stderr.decode()
    now = {p.name: p.read_text() for p in tree.iterdir() if p.is_file()}
    assert now == {**original, "configmap.yaml": CONFIGMAP.replace('content-hash: "true"', 'content-hash: "false"')}
    assert cli(["-i", str(tree)]).returncode == 0
    assert {p.name: p.read_text() for p in tree.iterdir() if p.is_file()} == now


def test_in_place_writes_nothing_on_error(tree: Path) -> None:
    (tree / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [\n")
    before = {p.name: p.read_text() for p in tree.iterdir() if p.is_file()}
    err = one_sentence(cli(["--in-place", str(tree)]), 1)
    assert "broken.yaml" in err
    assert {p.name: p.read_text() for p in tree.iterdir() if p.is_file()} == before


def test_file_is_the_stream_mode(tmp_path: Path) -> None:
    path = tmp_path / "all.yaml"
    path.write_text(STREAM)
    assert out(cli([str(path)])) == out(cli(["--stream"], STREAM))


def test_explicit_file_that_is_not_objects_is_an_error(tree: Path) -> None:
    err = one_sentence(cli([str(tree / "values.yaml")]), 1)
    assert "document 1 of" in err and "values.yaml" in err


def test_path_errors(tmp_path: Path) -> None:
    assert "does not exist" in one_sentence(cli([str(tmp_path / "nope.yaml")]))
    (tmp_path / "empty").mkdir()
    assert "no *.yaml or *.yml files" in one_sentence(cli([str(tmp_path / "empty")]))


def test_field_specs_flag(tmp_path: Path) -> None:
    widget = ("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: app\nspec:\n"
              "  settingsFrom: app-config\n")
    specs = tmp_path / "specs.yaml"
    specs.write_text("- kind: Widget\n  group: example.com\n  path: spec/settingsFrom\n")
    text = out(cli(["--stream", "--field-specs", str(specs)], f"{CONFIGMAP}---\n{widget}"))
    assert "settingsFrom: app-config-" in text
    plain = out(cli(["--stream"], f"{CONFIGMAP}---\n{widget}"))
    assert "settingsFrom: app-config\n" in plain


def test_config_file_and_flags(tmp_path: Path) -> None:
    config = tmp_path / "fn.yaml"
    config.write_text("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: fn\n"
                      "select: all\nretention: [flux]\n")
    plain_cm = CONFIGMAP.replace('krmfn.dev/content-hash: "true"   # opt in', "x: y")
    text = out(cli(["--stream", "--config", str(config)], plain_cm))
    assert "kustomize.toolkit.fluxcd.io/prune: disabled" in text and "name: app-config-" in text
    text = out(cli(["--stream", "--config", str(config), "--select", "annotated"], plain_cm))
    assert text == plain_cm  # the flag wins over the file


# --- the command line -------------------------------------------------------------------------

def test_help_documents_every_mode_and_option() -> None:
    text = out(cli(["--help"]))
    for word in ("FILE|DIR", "--stream", "--in-place", "helm", "plugin CONFIG", "install-kustomize-plugin",
                 "install-helm-plugin", "krmfn gc", "--select", "--names", "--selector", "--algorithm",
                 "--retention", "--suffix-jobs", "--strategy", "--default-namespace", "--audit", "--field-specs",
                 "--config",
                 "--max-input-size", "--version", "KRMFN_SELECT", "KRMFN_RETENTION", "KRMFN_STRATEGY",
                 "KRMFN_DEFAULT_NAMESPACE", "KRMFN_AUDIT", "KRMFN_MAX_INPUT_SIZE", "exit status"):
        assert word in text, word
    for mode in ("helm", "plugin", "install-kustomize-plugin", "install-helm-plugin", "gc"):
        assert cli([mode, "--help"]).returncode == 0, mode


def test_version() -> None:
    for argv in (["--version"], ["-V"], ["helm", "-V"], ["plugin", "--version"]):
        assert out(cli(argv)) == f"krmfn {__version__}\n", argv


def test_help_and_readme_give_the_same_exit_status() -> None:
    """--help and the options reference (docs/options.md, the command line) give the same exit status."""
    from krmfn.cli.modes import EXIT_STATUS

    assert EXIT_STATUS in out(cli(["--help"]))
    assert f"```text\n{EXIT_STATUS}```" in (REPO / "docs" / "options.md").read_text()


def test_resource_list_mode_is_unchanged() -> None:
    done = cli([], QUICKSTART.read_bytes())
    assert done.returncode == 0
    assert done.stdout == run_resource_list(QUICKSTART.read_bytes()).stdout
    assert done.stderr == b""


def test_resource_list_max_input_size() -> None:
    done = cli(["--max-input-size", "200"], QUICKSTART.read_bytes())
    assert done.returncode == 1 and done.stdout == b""
    assert "--max-input-size" in done.stderr.decode()
    assert cli(["--max-input-size", "1M"], QUICKSTART.read_bytes()).returncode == 0


def test_resource_list_mode_takes_no_option_flags() -> None:
    err = one_sentence(cli(["--select", "all"], QUICKSTART.read_bytes()))
    assert "functionConfig" in err


def test_argument_errors_are_one_sentence() -> None:
    assert "invalid choice" in one_sentence(cli(["--stream", "--select", "some"], STREAM))
    assert "is not a size" in one_sentence(cli(["--max-input-size", "lots"]))
    assert "unknown target" in one_sentence(cli(["--stream", "--retention", "nope"], STREAM))
    assert "cannot read config file" in one_sentence(cli(["--stream", "--config", "/nonexistent"], STREAM))


def test_function_errors_exit_1_with_nothing_on_stdout() -> None:
    bad = CONFIGMAP.replace('"true"   # opt in', '"maybe"')
    err = one_sentence(cli(["--stream"], bad), 1)
    assert "use \"true\" or \"false\"" in err


def test_warnings_always_infos_with_verbose() -> None:
    lonely = CONFIGMAP
    done = cli(["--stream"], lonely)
    assert done.returncode == 0 and b"warning:" in done.stderr and b"info:" not in done.stderr
    done = cli(["--stream", "-v"], STREAM)
    assert b"info: ConfigMap/app-config-" in done.stderr


def test_helm_mode_reads_the_environment() -> None:
    text = out(cli(["helm"], STREAM, env={"KRMFN_RETENTION": "helm", "KRMFN_SUFFIX_JOBS": "false"}))
    assert "helm.sh/resource-policy: keep" in text
    assert "KRMFN_SUFFIX_JOBS" in one_sentence(cli(["helm"], STREAM, env={"KRMFN_SUFFIX_JOBS": "yes!"}))
    assert "is not a size" in one_sentence(cli(["helm"], STREAM, env={"KRMFN_MAX_INPUT_SIZE": "big"}))
    assert out(cli(["--stream"], STREAM, env={"KRMFN_RETENTION": "helm"})) == out(cli(["--stream"], STREAM))


PLAIN = STREAM.replace('krmfn.dev/content-hash: "true"   # opt in', "team: web").replace(
    "  name: app-config\n", "  name: app-config\n  labels: {tier: api}\n", 1)


def test_a_run_that_renames_nothing_says_so_and_how_to_opt_in(tmp_path: Path) -> None:
    """Nothing opted in: exit 0, the input unchanged, and one line (without -v) in every shell mode;
    the bare function mode keeps it an info result, on stdout only."""
    (tmp_path / "m.yaml").write_text(PLAIN)
    for args, env in ((["--stream"], {}), (["helm"], {}), ([str(tmp_path / "m.yaml")], {})):
        done = cli(args, PLAIN, env=env)
        assert done.returncode == 0 and done.stdout.decode() == PLAIN, done.stderr
        err = done.stderr.decode()
        infos = [line for line in err.splitlines() if line.startswith("krmfn: info: ")]  # the rest: warnings
        assert len(infos) == 1, err
        (err,) = infos
        assert err.startswith("krmfn: info: nothing renamed: none of the input's 1 ConfigMap opts in. Opt one in "
                              'with the annotation krmfn.dev/content-hash: "true"'), err
        assert "--select all, --names NAME or --selector SELECTOR" in err
    assert cli(["--stream"], STREAM).stderr == b""  # a run that renames something says nothing of the kind
    wrapped = run_resource_list(yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                                "items": list(yaml.safe_load_all(PLAIN))}).encode())
    (result,) = [r for r in wrapped.results if r.severity == "info"]
    assert result.severity == "info" and result.message.startswith("nothing renamed: ")
    assert "select: all, names or selector in the function config" in result.message
    done = cli([], wrapped.stdout.split(b"results:")[0])
    assert done.returncode == 0 and done.stderr == b"" and b"nothing renamed" in done.stdout


def test_verbose_names_every_rule_that_matched_nothing() -> None:
    done = cli(["--stream", "--names", "ap-config,other", "-l", "tier=web", "-v"], PLAIN)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode().splitlines()
    assert "krmfn: info: --names ap-config matches no ConfigMap in the input; did you mean app-config?" in lines
    assert "krmfn: info: --names other matches no ConfigMap in the input" in lines
    assert "krmfn: info: --selector tier=web matches the labels of no ConfigMap in the input" in lines
    assert any(line.startswith("krmfn: info: nothing renamed: ") for line in lines)
    quiet = cli(["--stream", "--names", "ap-config", "-l", "tier=web"], PLAIN).stderr.decode()
    assert "ap-config" not in quiet and "krmfn: info: nothing renamed: " in quiet  # the rules: -v only
    helm = cli(["helm", "-v"], PLAIN, env={"KRMFN_NAMES": "ap-config", "KRMFN_SELECTOR": "tier=web"}).stderr.decode()
    assert "krmfn: info: KRMFN_NAMES ap-config matches no ConfigMap in the input; did you mean app-config?" in helm
    assert "krmfn: info: KRMFN_SELECTOR tier=web matches the labels of no ConfigMap" in helm
    matched = cli(["--stream", "--names", "app-config", "-l", "tier=api", "-v"], PLAIN).stderr.decode()
    assert "matches no" not in matched and "nothing renamed" not in matched


def test_a_secret_a_workload_opts_in_that_kinds_leaves_out_is_a_warning() -> None:
    text = PLAIN.replace("configMapRef:", "secretRef:").replace("kind: ConfigMap", "kind: Secret").replace(
        "  name: app   # odd spacing, kept", "  name: app   # odd spacing, kept\n  annotations:\n"
        '    krmfn.dev/content-hash: "true"')
    done = cli(["--stream"], text)  # no -v: a warning is printed all the same
    assert done.returncode == 0, done.stderr
    assert ("krmfn: warning: Secret/app-config: not hashed, although Deployment/app (krmfn.dev/content-hash) opts "
            "it in: --kinds leaves Secrets out: add Secret (--kinds ConfigMap,Secret)"
            ) in done.stderr.decode().splitlines()


def test_a_bad_value_is_named_by_where_the_user_gave_it() -> None:
    """A flag by the flag, a variable by the variable, a config file's field as a function config
    field: never a "function config field" the user did not write."""
    cases = [
        (["helm"], {"KRMFN_SELECT": "bogus"}, "krmfn: KRMFN_SELECT must be one of annotated, all, not 'bogus'"),
        (["helm"], {"KRMFN_RETENTION": "hlem"}, "krmfn: KRMFN_RETENTION has unknown target 'hlem'"),
        (["helm"], {"KRMFN_MAX_INPUT_SIZE": "big"}, "krmfn: KRMFN_MAX_INPUT_SIZE 'big' is not a size"),
        (["helm"], {"KRMFN_CONFIG": "/no/such.yaml"}, "krmfn: cannot read config file /no/such.yaml, named by "
                                                      "KRMFN_CONFIG"),
        (["--stream", "--retention", "hlem"], {}, "krmfn: --retention has unknown target 'hlem'"),
        (["--stream", "-l", "a in b"], {}, "krmfn: --selector 'a in b' is not a label selector kubectl would read"),
        (["helm", "--kinds", "Pod"], {"KRMFN_KINDS": "Pod"}, "krmfn: --kinds "),  # the flag wins, and is named
    ]
    for args, env, expected in cases:
        err = one_sentence(cli(args, STREAM, env=env))
        assert err.startswith(expected), (args, env, err)
        assert "function config field" not in err


def test_helm_mode_reads_the_strategy_from_the_environment() -> None:
    text = out(cli(["helm"], STREAM, env={"KRMFN_STRATEGY": "annotation"}))
    assert "krmfn.dev/config-hash: " in text and "name: app-config\n" in text and "immutable" not in text
    assert "KRMFN_STRATEGY must be one of suffix, annotation" in one_sentence(
        cli(["helm"], STREAM, env={"KRMFN_STRATEGY": "annotations"}))
    assert out(cli(["--stream", "--strategy", "annotation"], STREAM)) == text


def test_helm_mode_reads_the_default_namespace_from_the_environment() -> None:
    name = "  name: app   # odd spacing, kept"
    namespaced = STREAM.replace(name, f"{name}\n  namespace: demo")
    assert "name: app-config-" not in out(cli(["helm"], namespaced)).split("kind: Deployment")[1]
    text = out(cli(["helm"], namespaced, env={"KRMFN_DEFAULT_NAMESPACE": "demo"}))
    assert "name: app-config-" in text.split("kind: Deployment")[1]
    assert "KRMFN_DEFAULT_NAMESPACE must be a namespace name" in one_sentence(
        cli(["helm"], STREAM, env={"KRMFN_DEFAULT_NAMESPACE": "Demo"}))


def test_the_audit_level_from_a_flag_and_from_the_environment() -> None:
    """--audit and KRMFN_AUDIT (helm mode) set the function config's audit: a Deployment reading an
    unhashed ConfigMap through envFrom is a warning by default, an info (shown with -v) or nothing."""
    unhashed = STREAM.replace('krmfn.dev/content-hash: "true"', 'example.com/x: "y"')
    assert "nothing rolls it: opt it in" in cli(["--stream"], unhashed).stderr.decode()
    for args, env in ((["--stream", "--audit", "off", "-v"], {}), (["helm", "-v"], {"KRMFN_AUDIT": "off"})):
        assert "nothing rolls" not in cli(args, unhashed, env=env).stderr.decode(), (args, env)
    infos = cli(["helm", "-v"], unhashed, env={"KRMFN_AUDIT": "info"}).stderr.decode()
    assert "nothing rolls Deployment app" in infos
    assert "nothing rolls" not in cli(["helm"], unhashed, env={"KRMFN_AUDIT": "info"}).stderr.decode()
    assert "KRMFN_AUDIT must be one of warn, info, off, not 'loud'" in one_sentence(
        cli(["helm"], STREAM, env={"KRMFN_AUDIT": "loud"}))


def test_plugin_mode(tmp_path: Path) -> None:
    config = tmp_path / "kust-plugin-config-1"
    config.write_text("apiVersion: fn.krmfn.dev/v1alpha1\nkind: ContentHash\nmetadata:\n  name: c\n"
                      "retention: [flux]\nargsOneLiner: --algorithm sha256\n")
    text = out(cli(["plugin", str(config), "--algorithm", "sha256"], STREAM))
    assert "kustomize.toolkit.fluxcd.io/prune: disabled" in text
    name = next(line.split()[-1] for line in text.splitlines() if "name: app-config-" in line)
    assert len(name) == len("app-config-") + 16
    assert "CONFIG" in one_sentence(cli(["plugin"], STREAM))


def test_install_commands(tmp_path: Path) -> None:
    done = cli(["install-kustomize-plugin"], env={"KUSTOMIZE_PLUGIN_HOME": str(tmp_path / "k")})
    script = tmp_path / "k" / "fn.krmfn.dev" / "v1alpha1" / "contenthash" / "ContentHash"
    assert out(done) == f"{script}\n"
    assert os.access(script, os.X_OK)
    written = out(cli(["install-helm-plugin", str(tmp_path / "h")])).split()
    assert written == [str(tmp_path / "h" / "plugin.yaml"), str(tmp_path / "h" / "krmfn-post-renderer")]
    manifest = yaml.safe_load((tmp_path / "h" / "plugin.yaml").read_text())
    assert manifest["type"] == "postrenderer/v1" and manifest["name"] == "krmfn"
    assert manifest["runtimeConfig"]["platformCommand"][0]["command"] == "${HELM_PLUGIN_DIR}/krmfn-post-renderer"
    # The script runs this krmfn: a post-renderer run through it.
    ran = subprocess.run([str(tmp_path / "h" / "krmfn-post-renderer")], input=STREAM.encode(), capture_output=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=False)
    assert ran.returncode == 0 and ran.stdout == stream.run_stream(STREAM.encode(), None).stdout


def test_plugin_scripts_quote_their_command() -> None:
    [f] = plugin.kustomize_plugin(["/opt/my python/bin/python3", "-m", "krmfn"])
    assert f.path == "fn.krmfn.dev/v1alpha1/contenthash/ContentHash" and f.executable
    assert "exec '/opt/my python/bin/python3' -m krmfn plugin \"$@\"" in f.text


def test_gc_dispatch_is_unchanged() -> None:
    done = cli(["gc", "--help"])
    assert done.returncode == 0 and b"usage: krmfn gc" in done.stdout


def test_mode_combinations_that_mean_nothing() -> None:
    assert "either FILE|DIR arguments or --stream" in one_sentence(cli(["--stream", "x.yaml"]))
    assert "--in-place writes files back" in one_sentence(cli(["--in-place", "--stream"], STREAM))


def test_messages_name_documents_and_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CONFIGMAP)
    (tmp_path / "b.yaml").write_text(f"{SERVICE}---\n{CONFIGMAP}")
    err = one_sentence(cli([str(tmp_path)]), 1)
    assert f"(document 1 of {tmp_path / 'a.yaml'} and document 2 of {tmp_path / 'b.yaml'})" in err


def test_suffix_jobs_flag() -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n"
           "      containers:\n      - name: m\n        envFrom:\n        - configMapRef: {name: app-config}\n")
    renamed = out(cli(["--stream", "--suffix-jobs"], f"{CONFIGMAP}---\n{job}"))
    assert "name: migrate-" in renamed
    assert "name: migrate\n" in out(cli(["--stream", "--no-suffix-jobs"], f"{CONFIGMAP}---\n{job}"))


# --- hints: the bare function mode called the wrong way ---------------------------------------

def test_a_plain_manifest_without_stream_gets_one_line_saying_what_was_expected() -> None:
    err = one_sentence(cli([], CONFIGMAP))  # called the wrong way: a usage error, exit 2
    assert err == ("krmfn: stdin holds a plain manifest (kind ConfigMap), not the KRM ResourceList krmfn reads when "
                   "run with no arguments: use krmfn --stream for plain manifests (as Helm's post-renderer: "
                   "--post-renderer-args helm)\n")
    err = one_sentence(cli([], f"{CONFIGMAP}---\n{DEPLOYMENT}---\n{SERVICE}"))
    assert err.startswith("krmfn: stdin holds 3 plain manifests (ConfigMap, Deployment, Service), not the KRM")


def test_helms_stream_without_the_helm_argument_points_at_post_renderer_args() -> None:
    """Helm 3 runs `--post-renderer krmfn` with no arguments and passes nothing in the environment to
    tell it apart; its `# Source:` lines do (and Helm 4's annotation, for a plugin that forgot `helm`)."""
    helm = REPO / "examples" / "helm"
    err = one_sentence(cli([], (helm / "rendered.yaml").read_bytes()))
    assert err.endswith("as Helm's post-renderer, run it as --post-renderer krmfn --post-renderer-args helm\n")
    err = one_sentence(cli([], (helm / "helm4-input.yaml").read_bytes()))
    assert "a Helm 4 post-renderer plugin must run krmfn helm" in err


@pytest.mark.parametrize("text,message", [
    ("apiVersion: v1\nkind: List\nitems: []\n", "krmfn: error: the input is kind List"),
    ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n", "krmfn: error: the ResourceList's items"),
    ("a: [\n", "krmfn: error:"),
])
def test_input_that_is_no_manifest_keeps_the_functions_own_error(text: str, message: str) -> None:
    assert one_sentence(cli([], text), 1).startswith(message)


def test_an_empty_stdin_says_how_a_container_gets_one() -> None:
    """`docker run IMAGE < file` without -i: the container's stdin is empty."""
    err = one_sentence(cli([], b""), 1)
    assert err.startswith("krmfn: the input is empty; expected a ResourceList")
    assert err.endswith("in a container, pass -i so that stdin reaches it (docker run -i --rm IMAGE < input.yaml)\n")


def test_a_helm_chart_directory_points_at_helm_template(tmp_path: Path) -> None:
    chart = tmp_path / "web"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 1\n")
    (chart / "templates" / "cm.yaml").write_text(  # as charts write them: not YAML before Helm renders it
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{ include \"l\" . }}\n")
    err = one_sentence(cli([str(chart)]))
    assert err == (f"krmfn: {chart} is a Helm chart (Chart.yaml), whose templates krmfn cannot read before Helm "
                   f"renders them: run helm template RELEASE {chart} --post-renderer krmfn --post-renderer-args helm "
                   "(docs/helm.md)\n")
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)  # a chart inside a walked tree is left out, said under -v
    done = cli([str(tmp_path), "-v"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == cli(["--stream"], CONFIGMAP).stdout.decode()
    assert (f"krmfn: skipped {chart}: a Helm chart, whose templates are not manifests until helm template renders "
            "them") in done.stderr.decode().splitlines()


def test_a_reader_that_closes_the_pipe_ends_the_run_quietly(tmp_path: Path) -> None:
    """`krmfn ... | head -1`: exit 0 and no message, in every mode that writes to stdout. The reader
    here is `true`, which exits before krmfn writes a byte, so every run meets the closed pipe."""
    (tmp_path / "m.yaml").write_text(STREAM)
    (tmp_path / "rl.yaml").write_bytes((REPO / "examples" / "quickstart" / "input.yaml").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for args, source in (("", "rl.yaml"), ("--stream", "m.yaml"), ("m.yaml", "/dev/null")):
        done = subprocess.run(["bash", "-c", f'"$0" -m krmfn {args} < {source} | true; exit "${{PIPESTATUS[0]}}"',
                               sys.executable], cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
        assert (done.returncode, done.stderr) == (0, b""), (args, done.stderr.decode())


@pytest.mark.parametrize("given,meant", [("--retain", "--retention"), ("--strem", "--stream"),
                                         ("--sufix-jobs", "--suffix-jobs"), ("--selectr=x", "--selector")])
def test_a_misspelt_flag_gets_the_nearest_one(given: str, meant: str) -> None:
    err = one_sentence(cli(["--stream", given]))
    assert err == f"krmfn: unrecognized arguments: {given}; did you mean {meant}? (see krmfn --help)\n"


def test_a_dash_reads_stdin_as_a_plain_stream() -> None:
    assert out(cli(["-"], STREAM)) == out(cli(["--stream"], STREAM))
    assert "give it alone" in one_sentence(cli(["-", "x.yaml"], STREAM))
    assert "- (stdin) is no file" in one_sentence(cli(["-i", "-"], STREAM))


def test_a_terminal_on_stdin_gets_one_line_instead_of_a_silent_wait() -> None:
    import pty

    from krmfn.cli.hints import TERMINAL

    controller, terminal = pty.openpty()
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        done = subprocess.run([sys.executable, "-m", "krmfn"], stdin=terminal, capture_output=True, env=env,
                              timeout=60, check=False)
    finally:
        os.close(terminal)
        os.close(controller)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == f"krmfn: {TERMINAL}\n"


def test_the_success_path_never_imports_the_hints() -> None:
    code = ("import sys, io; from krmfn.cli import main; sys.stdin = io.TextIOWrapper(io.BytesIO(open(sys.argv[1], "
            "'rb').read())); sys.stdout = io.TextIOWrapper(io.BytesIO()); main([]); "
            "sys.__stdout__.write(str('krmfn.cli.hints' in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(QUICKSTART)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60, check=False)
    assert done.stdout == "False", done.stderr
