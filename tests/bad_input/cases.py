"""The bad-input corpus: one row per case, with the exit code and message fragments it must give.

Each case is a ResourceList as bytes (or a function that builds one: the large and the binary
ones). ``exit`` 1 means an error the user must fix: every fragment must appear in the error
results (and so on stderr, where the CLI prints them). ``exit`` 0 means the input is valid, if
unusual, and must simply work: every fragment must appear in the output or the results, and
``check`` (when given) looks at the output more closely. ``why`` records the decision.

Used by tests/krm/test_bad_input.py (in-process and through the ``krmfn`` console script) and by
benchmarks/bench_bad_input.py (time and memory per case). Inputs that fuzzing once crashed
krmfn with live in regressions/ (each must merely be handled: exit 0 or 1, no traceback).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml
from conftest import exit_code

from krmfn.core.naming import hashing

HERE = Path(__file__).parent
REGRESSIONS = HERE / "regressions"

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
OPT_IN = 'krmfn.dev/content-hash: "true"'


def rl(items: str, function_config: str | None = None) -> bytes:
    """A block-style ResourceList around ``items`` (a YAML list at column 0)."""
    text = HEAD + "items:\n" + items
    if function_config is not None:
        text += "functionConfig:\n" + function_config
    return text.encode()


def cm(name: str = "app-config", data: str = "  data:\n    LOG_LEVEL: info\n", opt_in: bool = True,
       meta: str = "") -> str:
    annotations = f"    annotations:\n      {OPT_IN}\n" if opt_in else ""
    return (f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n{annotations}{meta}{data}")


def deployment(ref: str = "app-config", name: str = "web") -> str:
    return (f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: {name}\n  spec:\n"
            "    template:\n      spec:\n        containers:\n        - name: app\n          image: nginx\n"
            f"          envFrom:\n          - configMapRef:\n              name: {ref}\n")


def suffix(data: dict[str, str] | None, binary: dict[str, str] | None = None) -> str:
    return hashing.suffix("kustomize", data, binary)


GOOD = rl(cm() + deployment())
LS = "a\u2028b"
GOOD_NAME = f"app-config-{suffix({'LOG_LEVEL': 'info'})}"


def items_of(stdout: bytes) -> list:
    from krmfn.krm.data import load_documents  # PyYAML's loader refuses a redefined anchor, YAML does not

    return load_documents(stdout)[0]["items"]  # type: ignore[index]


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes | Callable[[], bytes]
    exit: int
    fragments: tuple[str, ...]
    why: str
    check: Callable[[bytes], None] | None = None  # on stdout, for exit 0

    def input(self) -> bytes:
        return self.data() if callable(self.data) else self.data


# --- builders for the large, deep and binary inputs ----------------------------------------------

def fifty_megabytes() -> bytes:
    item = cm(data="  data:\n    payload: " + "x" * 1000 + "\n").replace("app-config", "c-{i}")
    body = "".join(item.replace("{i}", str(i)) for i in range(50_000_000 // len(item) + 1))
    return rl(body)


def dense() -> bytes:
    """17 MB of one flow list of one-letter scalars: about 8 million nodes, 2 GB in krmfn's tree."""
    return rl(cm(data="  data:\n    x: y\n  dense: [" + "a," * (8 << 20) + "a]\n"))


def deep_flow(levels: int) -> Callable[[], bytes]:
    return lambda: rl(cm(data="  data: {a: b}\n  extra: " + "[" * levels + "]" * levels + "\n"))


def deep_block(levels: int) -> bytes:
    lines = "".join("  " + "  " * i + f"k{i}:\n" for i in range(1, levels + 1))
    return rl(cm(data="  data: {a: b}\n  extra:\n" + lines + "  " + "  " * (levels + 1) + "leaf: x\n"))


def deep_compact(levels: int) -> bytes:
    return rl(cm(data="  data: {a: b}\n  extra:\n  " + "- " * levels + "x\n"))


def deep_json(levels: int) -> bytes:
    return (b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", '
            b'"kind": "ConfigMap", "metadata": {"name": "deep"}, "extra": ' + b"[" * levels + b"]" * levels + b"}]}")


def deep_function_config(levels: int) -> bytes:
    return rl(cm(), "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fn}\n  data: {select: all}\n"
                    "  extra: " + "{a: " * levels + "b" + "}" * levels + "\n")


LAUGHS = ('    a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
          + "".join(f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)))


def billion_laughs() -> bytes:
    """The classic: ten anchors, each nine aliases of the one before: 10^9 nodes expanded."""
    return rl("- apiVersion: v1\n  kind: Pod\n  metadata: {name: bomb}\n  x-bomb:\n" + LAUGHS
              + "  spec:\n    containers: [{name: app, image: nginx}]\n    volumes: *a9\n")


def billion_laughs_config() -> bytes:
    return rl(cm(), "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fn}\n  data: {select: all}\n"
                    "  bomb:\n" + LAUGHS)


def crlf_check(stdout: bytes) -> None:
    """Every line break of the input was CRLF, so every one of the output is: the same text as LF."""
    assert b"\n" not in stdout.replace(b"\r\n", b"")
    assert stdout.replace(b"\r\n", b"\n") == run_plain(GOOD)


def bom_check(stdout: bytes) -> None:
    assert stdout.startswith(codecs.BOM_UTF8)
    assert stdout[len(codecs.BOM_UTF8):] == run_plain(GOOD)


def run_plain(data: bytes) -> bytes:
    from krmfn.core.run.function import run_resource_list

    out = run_resource_list(data)
    assert exit_code(out) == 0, out.results
    return out.stdout


def renamed(name: str) -> Callable[[bytes], None]:
    def check(stdout: bytes) -> None:
        assert name in {i["metadata"]["name"] for i in items_of(stdout) if i["kind"] == "ConfigMap"}
    return check


def no_stale_result(stdout: bytes) -> None:
    assert "stale" not in [r["message"] for r in yaml.safe_load(stdout)["results"]]


def unchanged_names(stdout: bytes) -> None:
    assert all(i["metadata"]["name"] in ("app-config", "App-Config", "web") for i in items_of(stdout))


# --- the corpus ---------------------------------------------------------------------------------

CASES: list[Case] = [
    # Not a ResourceList at all
    Case("empty", b"", 1, ("the input is empty", "expected a ResourceList"),
         "nothing to transform; an empty output would look like success to a pipeline"),
    Case("only-comments", b"# nothing here\n\n", 1, ("the input is empty",), "same as empty"),
    Case("scalar-document", b"hello\n", 1, ("the input is a scalar, not a ResourceList",), "wrong shape"),
    Case("list-document", b"- apiVersion: v1\n  kind: ConfigMap\n", 1, ("the input is a list",),
         "a bare list of objects is not a ResourceList"),
    Case("wrong-kind", b"apiVersion: v1\nkind: List\nitems: []\n", 1,
         ("kind List", "expected a KRM ResourceList"), "kubectl's List is not the KRM envelope"),
    Case("wrong-api-version", b"apiVersion: v1\nkind: ResourceList\nitems: []\n", 1,
         ("apiVersion v1;", "config.kubernetes.io/v1"), "the KRM envelope has its own apiVersion"),
    Case("no-kind", b"apiVersion: config.kubernetes.io/v1\nitems: []\n", 1, ("kind (none)",), "the envelope needs a kind"),
    Case("items-not-a-list", (HEAD + "items: {a: b}\n").encode(), 1, ("items is a map, not a list",), "wrong shape"),
    Case("two-documents", GOOD + b"---\n" + GOOD, 1, ("holds 2 YAML documents", "--stream"),
         "a ResourceList is one document; a stream needs --stream"),
    # Malformed YAML
    Case("unclosed-flow-list", (HEAD + "items: [\n").encode(), 1, ("not valid YAML", "line"), "syntax error"),
    Case("bad-indentation", rl("  - apiVersion: v1\n - kind: ConfigMap\n"), 1, ("not valid YAML", "line 5"),
         "syntax error, located"),
    Case("malformed-item", rl(cm() + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: [x\n" + deployment()), 1,
         ("item 1 is not valid YAML", "did not find expected ',' or ']'", "at line 15, column 1"),
         "an item that does not parse is named by its position"),
    Case("tab-indentation", rl("- apiVersion: v1\n\tkind: ConfigMap\n"), 1,
         ("line 5 has a tab in its indentation", "spaces only"), "YAML forbids tabs in indentation; say so"),
    Case("tab-after-dash", rl("-\tapiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n"), 1,
         ("line 4 has a tab in its indentation (or after a '-')",), "YAML forbids it; say where"),
    Case("container-as-key", rl(cm(data="  data: {? [a, b]: c}\n")), 1, ("used as a key",),
         "valid YAML that no Kubernetes object uses and kustomize refuses"),
    # Items that are not objects
    Case("item-scalar", rl("- just a string\n"), 1, ("item 0 is a scalar, not a Kubernetes object",), "wrong shape"),
    Case("item-null", rl(cm() + "-\n"), 1, ("item 1 is null",), "an empty list entry"),
    Case("item-list", rl("- [a, b]\n"), 1, ("item 0 is a list",), "wrong shape"),
    Case("missing-metadata", rl("- apiVersion: v1\n  kind: ConfigMap\n  data: {a: b}\n"), 1,
         ("item 0 (ConfigMap) has no metadata",), "every object has metadata"),
    Case("missing-name", rl("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {namespace: prod}\n"), 1,
         ("has no metadata.name",), "every object has a name"),
    Case("missing-kind", rl("- apiVersion: v1\n  metadata: {name: x}\n"), 1, ("item 0 has no kind",), "wrong shape"),
    Case("missing-api-version", rl("- kind: ConfigMap\n  metadata: {name: x}\n"), 1, ("has no apiVersion",), "wrong shape"),
    # data and binaryData
    Case("data-number", rl(cm(data="  data:\n    replicas: 3\n")), 1,
         ("data.replicas is 3", "must be strings", 'quote it ("3")'), "the API server rejects a non-string value"),
    Case("data-boolean", rl(cm(data="  data:\n    debug: yes\n")), 1, ("data.debug is yes", "boolean"),
         "YAML 1.1 readers take yes for true"),
    Case("data-null", rl(cm(data="  data:\n    empty:\n")), 1, ("data.empty is empty (null)", 'write ""'),
         "null is not an empty string"),
    Case("data-plain-dot", rl(cm(data="  data:\n    dir: .\n    up: ..\n    sign: -.\n")), 0,
         (f"app-config-{suffix({'dir': '.', 'up': '..', 'sign': '-.'})}",),
         "a dot alone is text to every reader, kustomize included: no number"),
    Case("data-list", rl(cm(data="  data:\n    hosts: [a, b]\n")), 1, ("data.hosts is a list", "| block"),
         "structured values must be written as text"),
    Case("data-not-a-map", rl(cm(data="  data: just text\n")), 1, ("data is a scalar, not a map of strings",), "wrong shape"),
    Case("binary-not-base64", rl(cm(data="  binaryData:\n    blob: not base64!\n")), 1,
         ("binaryData.blob is not valid base64",), "the API server rejects it"),
    Case("binary-base64-wrapped", rl(cm(data="  binaryData:\n    blob: |\n      aGVsbG8g\n      d29ybGQ=\n")), 0,
         (f"app-config-{suffix(None, {'blob': 'aGVsbG8g' + chr(10) + 'd29ybGQ=' + chr(10)})}",),
         "line-wrapped base64 is valid; hashed as written, as kustomize does"),
    Case("duplicate-data-key", rl(cm(data="  data:\n    a: one\n    a: two\n")), 1, ("has the key 'a' twice",),
         "which value wins differs between readers"),
    # Names
    Case("name-uppercase", rl(cm(name="App-Config") + deployment("App-Config")), 1,
         ("'App-Config' is not a valid ConfigMap name", "e.g. to 'app-config'"),
         "the API server would refuse App-Config-<hash>; say so before the deploy does"),
    Case("name-underscore", rl(cm(name="app_config")), 1, ("'app_config' is not a valid ConfigMap name",
                                                          "e.g. to 'app-config'"), "same"),
    Case("name-uppercase-not-opted-in", rl(cm(name="App-Config", opt_in=False)), 0, ("App-Config",),
         "not krmfn's object to judge: it passes through unchanged", unchanged_names),
    Case("name-over-253", rl(cm(name="a" * 254)), 1, ("over Kubernetes' 253",), "too long even before hashing"),
    Case("name-hashed-over-253", rl(cm(name="a" * 243)), 1, ("the hashed name would be 254 characters",),
         "the suffix adds 11 characters"),
    # Duplicates, conflicts, ambiguity
    Case("duplicate-configmap", rl(cm() + cm() + deployment()), 1, ("appears twice", "item 0 and item 1"),
         "which one a reference means is undefined"),
    Case("opt-in-not-boolean", rl(cm().replace('"true"', "yes")), 1, ('use "true" or "false"',),
         "an opt-in that is neither is a typo"),
    Case("opt-in-twice-conflicting",
         rl(cm().replace(f"      {OPT_IN}\n", f'      {OPT_IN}\n      krmfn.dev/content-hash: "false"\n')), 1,
         ("has the key 'krmfn.dev/content-hash' twice", "keep one"), "readers disagree on which duplicate key wins"),
    Case("metadata-twice", rl(cm(data="  metadata:\n    name: other\n  data: {a: b}\n")), 1,
         ("has the key 'metadata' twice",), "a re-run could read the other one (found by fuzzing)"),
    Case("names-versus-opt-out", rl(cm().replace('"true"', '"false"'),
                                    "  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n  metadata: {name: fn}\n"
                                    "  names: [app-config]\n"), 0, ("opt-out annotation", "wins over"),
         "documented: the ConfigMap's own opt-out wins; said as an info result", unchanged_names),
    Case("config-unknown-field", rl(cm(), "  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n"
                                          "  metadata: {name: fn}\n  bogus: 1\n"), 1, ("unknown field 'bogus'",),
         "a typo in the configuration must not be ignored"),
    Case("config-bad-value", rl(cm(), "  apiVersion: fn.krmfn.dev/v1alpha1\n  kind: ContentHash\n"
                                      "  metadata: {name: fn}\n  select: some\n"), 1,
         ("must be one of annotated, all", "not 'some'"), "same"),
    Case("config-not-a-map", rl(cm(), "  just text\n"), 1, ("functionConfig is a scalar",), "wrong shape"),
    Case("ambiguous-reference", rl(cm(name="app") + cm(name="app-bbbbbbbbbb", meta="", data="  data:\n    k: v\n")
                                   .replace(f"      {OPT_IN}\n", f"      {OPT_IN}\n      krmfn.dev/original-name: app\n")
                                   + deployment("app-cccccccccc")), 1,
         ("is ambiguous", "ConfigMap/app", "ConfigMap/app-bbbbbbbbbb"), "two families claim the name"),
    # Limits
    Case("input-50mb", fifty_megabytes, 1, ("over the limit of 32 MiB", "--max-input-size"),
         "past the default size limit: fail fast, and say which flag raises it"),
    Case("dense-nodes", dense, 1, ("YAML nodes", "over the limit of 2,097,152"),
         "8 million nodes in 17 MB would take about 2 GB (250 bytes a node)"),
    Case("deep-flow", deep_flow(100_000), 1, ("maximum nesting depth",),
         "100,000 nested lists: libyaml stops at its own depth limit, and says so"),
    Case("deep-block", deep_block(70), 1, ("ConfigMap/app-config", "nests deeper than 64 levels"), "same, indented"),
    Case("deep-compact", deep_compact(100), 1, ("nests deeper than 64 levels",), "same, as - - - - ... on one line"),
    Case("deep-json", deep_json(1000), 1, ("maximum nesting depth",),
         "same in flow style: libyaml's own limit"),
    Case("deep-function-config", deep_function_config(100), 1, ("functionConfig nests deeper than 64 levels",),
         "config.to_data recurses: bounded before it runs"),
    Case("deep-at-the-limit", deep_flow(62), 0, (f"app-config-{suffix({'a': 'b'})}",),
         "62 lists below the item are 64 levels: accepted, hashed and written back",
         renamed(f"app-config-{suffix({'a': 'b'})}")),
    Case("billion-laughs", billion_laughs, 1, ("aliases expand to", "billion laughs"),
         "krmfn follows aliases when it looks for references: 10^9 nodes"),
    Case("billion-laughs-config", billion_laughs_config, 1, ("functionConfig's aliases expand to",),
         "reading the functionConfig expands aliases"),
    Case("recursive-alias", rl(deployment() + "  loop: &loop [*loop]\n  volumes: *loop\n"), 1,
         ("recursive alias",), "following it would never end"),
    Case("alias-before-anchor", rl(cm(data="  data: {a: *x, b: &x y}\n")), 1, ("names no anchor before it",),
         "an alias must follow its anchor"),
    Case("anchor-redefined", rl(cm(data='  data: {a: &x "1", b: *x, c: &x "2", d: *x}\n')), 0,
         (f"app-config-{suffix({'a': '1', 'b': '1', 'c': '2', 'd': '2'})}",),
         "YAML 1.2: an alias names the closest anchor before it (b is 1, d is 2)"),
    Case("aliases-in-moderation", rl(cm(data="  data: &d {a: b}\n") + deployment()
                                     + "  x-common: &env [{name: A, value: b}]\n  x-more: *env\n"), 0,
         (f"app-config-{suffix({'a': 'b'})}",), "ordinary anchors and aliases are fine"),
    # Encodings and line endings
    Case("invalid-utf8", GOOD.replace(b"LOG_LEVEL: info", b"LOG_LEVEL: caf\xe9"), 1,
         ("not UTF-8", "line 11, column 19", "0xe9"), "Latin-1 text: say where"),
    Case("utf16-with-bom", lambda: codecs.BOM_UTF16_LE + GOOD.decode().encode("utf-16-le"), 1,
         ("UTF-16", "iconv"), "say what it is and how to convert it"),
    Case("utf16-without-bom", lambda: GOOD.decode().encode("utf-16-le"), 1, ("UTF-16LE text", "iconv -f UTF-16LE"),
         "same"),
    Case("utf32-without-bom", lambda: GOOD.decode().encode("utf-32-be"), 1, ("UTF-32BE text", "iconv -f UTF-32BE"),
         "same"),
    Case("binary-data", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x03\x00>\x00" + bytes(range(256)), 1,
         ("binary data, not text", "zero byte at line 1, column 8"), "not text: never called UTF-16 (an ELF file)"),
    Case("binary-with-text-start", GOOD + b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", 1,
         ("binary data, not text",), "a manifest with binary data after it"),
    Case("utf8-bom", codecs.BOM_UTF8 + GOOD, 0, (GOOD_NAME,),
         "YAML allows a byte order mark: accepted, and written back", bom_check),
    Case("crlf-line-endings", GOOD.replace(b"\n", b"\r\n"), 0, (GOOD_NAME,),
         "Windows line endings: accepted, same hashes as LF, and written back", crlf_check),
    Case("nul-byte", GOOD.replace(b"info", b"in\x00fo"), 1, ("control character U+0000", "line 11, column 18"),
         "YAML forbids raw control characters; say where"),
    Case("raw-control-character", GOOD.replace(b"info", b"in\x07fo"), 1, ("control character U+0007",), "same"),
    Case("raw-line-separator", GOOD.replace(b"info", "in\u2028fo".encode()), 1, ("U+2028", "line 11, column 18"),
         "a line break to libyaml and go-yaml (kubectl, kustomize): here it breaks a key's line; say where it is"),
    Case("raw-next-line", GOOD.replace(b"info", "in\x85fo".encode()), 1, ("U+0085",), "same"),
    Case("escaped-line-separator", rl(cm(data='  data:\n    text: "a\\Lb"\n')), 0,
         (f"app-config-{suffix({'text': LS})}",), "escaped, it means the same to every reader"),
    Case("escaped-line-separators-after-a-newline", rl(cm(data='  data:\n    text: "x\\n\\L\\Ly"\n')), 0,
         (f"app-config-{suffix({'text': 'x' + chr(10) + LS[1] * 2 + 'y'})}",),
         "escaped line separators after an escaped newline: libyaml reads them right"),
    Case("escaped-control-character", rl(cm(data='  data:\n    bell: "\\a"\n')), 0,
         (f"app-config-{suffix({'bell': chr(7)})}",), "escaped in double quotes it is valid"),
    # Valid but unusual layouts
    Case("leading-document-marker", b"---\n" + GOOD, 0, (GOOD_NAME,), "a document marker is fine"),
    Case("yaml-directive", b"%YAML 1.2\n---\n" + GOOD, 0, (GOOD_NAME,), "so is a directive"),
    Case("two-yaml-directives", b"%YAML 1.2\n%YAML 1.2\n---\n" + GOOD, 1, ("duplicate %YAML directive", "line 2"),
         "invalid YAML (found by the fuzz test: krmfn once passed it through and wrote what it could not read)"),
    Case("malformed-yaml-directive", b"%YAML - 1.2\n---\n" + GOOD, 1, ("%YAML directive", "line 1"),
         "found by fuzzing: the splitter once let any line starting %YAML through"),
    Case("piled-up-tags", rl(cm(data="  data:\n    a: !t\n      !t !t !t\n")), 1,
         ("item 0 is not valid YAML", "line"), "tags piled on one node: invalid YAML, which libyaml refuses"),
    Case("directive-without-marker", b"%YAML 1.2\n" + GOOD, 1, ("expected <document start>", "line 2"),
         "a directive must be followed by '---', as libyaml and go-yaml say"),
    Case("tag-directive", b"%TAG !e! tag:example.com,2000:\n---\n" + GOOD, 1, ("%TAG",),
         "a %TAG handle would read differently in each item apart from the directive"),
    Case("directive-after-marker", b"---\n%YAML 1.2\n---\n" + GOOD, 1, ("2 YAML documents",),
         "an empty document before the directive: two documents"),
    Case("empty-document-first", b"---\n---\n" + GOOD, 1, ("2 YAML documents",),
         "two '---' lines make an empty document and the ResourceList: two documents"),
    Case("document-end-marker", GOOD + b"...\n", 0, (GOOD_NAME,), "and an end marker"),
    Case("json", lambda: json.dumps(yaml.safe_load(GOOD)).encode(), 0, (GOOD_NAME,),
         "JSON is YAML", renamed(GOOD_NAME)),
    Case("old-results-replaced", GOOD + b"results:\n- message: stale\n  severity: error\n", 0, (GOOD_NAME,),
         "a re-run replaces results, so a stale error does not survive", no_stale_result),
]


def regression_files() -> list[Path]:
    """Inputs fuzzing once crashed krmfn with: each must be handled (exit 0 or 1, no traceback)."""
    return sorted(p for p in REGRESSIONS.iterdir() if p.is_file() and not p.name.startswith(".")) \
        if REGRESSIONS.is_dir() else []
