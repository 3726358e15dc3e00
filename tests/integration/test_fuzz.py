"""Fuzzing the envelope, the hash and the rewrite: whatever comes in, krmfn answers.

The invariants (:func:`assert_sound`), for any bytes at all:

- ``run_resource_list`` returns (no exception escapes), with exit code 0 or 1, and 1 exactly
  when there is an error result;
- on 1, stdout is empty or the input untouched with the results appended;
- on 0, the output is YAML that reads back as a ResourceList with as many items, and running
  krmfn on it changes nothing (idempotence).

Three generators: raw bytes; mutations of valid ResourceLists with YAML-significant tokens
(indicators, anchors, aliases, tags, tabs, CRs, BOMs, control and odd Unicode characters);
and ResourceLists built from random data with random shapes where krmfn looks (maps where it
expects strings, lists where it expects maps, aliases from shared objects), dumped by PyYAML in
random styles. The hash is checked against an independent encoder of Go's ``json.Marshal``,
and end to end against what PyYAML reads the data as.

Time: hypothesis profiles, chosen by ``KRMFN_FUZZ`` (fuzz-dev, fuzz-ci, fuzz-long) or, when
unset, by ``CI`` (fuzz-ci when set, else fuzz-dev): about 15 s in development, about 2 to 3
minutes in CI (with a fixed seed). A coverage-guided fuzzer (atheris, when installed) runs this file as a script for
10 s, 60 s or 10 min. Anything either ever finds is kept: a hypothesis ``@example`` here, or an
input file in tests/bad_input/regressions/.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: run as a script by atheris

from bad_input.cases import CASES, GOOD, REGRESSIONS  # noqa: E402
from conftest import exit_code  # noqa: E402

from krmfn.core.naming import hashing  # noqa: E402
from krmfn.core.run.function import run_resource_list  # noqa: E402
from krmfn.krm.limits import Limits  # noqa: E402
from krmfn.yaml.tree import Doc, YamlError

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                     HealthCheck.data_too_large])
settings.register_profile("fuzz-dev", max_examples=60, **_COMMON)
# CI's run is derandomized: the same examples each time, so that main is red only for a change it
# carries; the random search runs in development (fuzz-dev, fuzz-long), and what it finds is kept.
settings.register_profile("fuzz-ci", max_examples=1500, derandomize=True, **_COMMON)
settings.register_profile("fuzz-long", max_examples=50_000, **_COMMON)
PROFILE = os.environ.get("KRMFN_FUZZ") or ("fuzz-ci" if os.environ.get("CI") else "fuzz-dev")
# Applied per test (not loaded globally: other suites load their own profiles).
FUZZ = settings(settings.get_profile(PROFILE))
ATHERIS_SECONDS = {"fuzz-dev": 5, "fuzz-ci": 60, "fuzz-long": 600}.get(PROFILE, 5)
# Small limits keep a fuzzed alias bomb or deep nest fast, and exercise the limits themselves.
LIMITS = Limits(max_input_bytes=1 << 20, max_alias_nodes=10_000)


# A crash in the C parser would end the process before hypothesis can keep the example: with this set,
# each input is written to the file first, so the last one is there to reproduce it with.
LAST_INPUT = os.environ.get("KRMFN_FUZZ_LAST_INPUT")


def run(data: bytes):
    if LAST_INPUT:
        Path(LAST_INPUT).write_bytes(data)
    return run_resource_list(data, LIMITS)


def _loads(data: bytes):
    try:
        return yaml.safe_load(data)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def assert_sound(data: bytes):
    """The invariants above; returns the outcome."""
    out = run(data)
    errors = [r for r in out.results if r.severity == "error"]
    assert exit_code(out) in (0, 1)
    assert (exit_code(out) == 1) == bool(errors), [str(r) for r in out.results]
    for r in out.results:
        assert r.message and r.severity in ("error", "warning", "info")
    if exit_code(out):
        if out.stdout:
            stdout, lf = out.stdout.replace(b"\r\n", b"\n"), data.replace(b"\r\n", b"\n")  # CRLF comes back as CRLF
            after = _loads(stdout)
            if isinstance(after, dict):  # the results say so, in the envelope's own style (block or JSON)
                assert any(r.get("severity") == "error" for r in after.get("results") or []), stdout[-300:]
                before = _loads(lf)
                if isinstance(before, dict):
                    # Everything but the results is as it was (a null or missing items is the empty list).
                    def rest(d: dict) -> dict:
                        return {**{k: v for k, v in d.items() if k != "results"}, "items": d.get("items") or []}
                    try:
                        assert rest(after) == rest(before)
                    except RecursionError:  # PyYAML builds a recursive alias (&a [*a]) as a cycle
                        pass
            else:
                assert b"error" in stdout
        return out
    # Success: the output reads back (with krmfn's own reader, and PyYAML when it read the input).
    try:
        Doc.parse(out.stdout)
    except YamlError as exc:  # pragma: no cover - a finding
        pytest.fail(f"krmfn wrote YAML it cannot read: {exc}")
    before = _loads(data.removeprefix(codecs.BOM_UTF8))
    if isinstance(before, dict) and isinstance(before.get("items"), list):
        after = _loads(out.stdout)
        assert isinstance(after, dict), "the output does not read back as a ResourceList"
        assert len(after.get("items") or []) == len(before["items"])
    again = run(out.stdout)
    assert exit_code(again) == 0, [str(r) for r in again.results]
    assert again.stdout == out.stdout, "not idempotent"
    return out


# --- raw bytes and mutations ------------------------------------------------------------------------

SEEDS = [GOOD] + [c.input() for c in CASES if not callable(c.data) and len(c.data) < 4000]
TOKENS = [b"- ", b": ", b"? ", b"[", b"]", b"{", b"}", b",", b"&a ", b"*a", b"&b ", b"*b", b"!!str ", b"!!binary ",
          b"!t ", b"|", b">-", b"#", b"'", b'"', b"\\", b"\\u2028", b"\t", b"\r", b"\r\n", b"\n", b"\n  ", b"---\n",
          b"...\n", b"%YAML 1.2\n", b"<<: *a\n", b"~", b"null", b"yes", b"0x1f", b"1e3", b".inf", b"\x00", b"\x07",
          b"\x85", b"\xc2\x85", b"\xe2\x80\xa8", b"\xef\xbb\xbf", b"\xff", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80",
          b"krmfn.dev/content-hash: \"true\"", b"configMapRef: {name: app-config}", b"name: App_Config",
          b"namespace: prod", b"immutable: true", b"binaryData: {b: '!!'}"]


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate-line", "indent"]))
        pos = draw(st.integers(0, len(data)))
        if op == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        elif op == "delete":
            del data[pos:pos + draw(st.integers(1, 8))]
        elif op == "replace" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        elif op == "duplicate-line":
            start = data.rfind(b"\n", 0, pos) + 1
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end + 1
            data[end:end] = data[start:end]
        else:
            start = data.rfind(b"\n", 0, pos) + 1
            data[start:start] = b" " * draw(st.integers(1, 3))
    return bytes(data)


@FUZZ
@given(st.binary(max_size=512))
@example(b"\xef\xbb\xbf")
@example(b"\xff\xfe")
@example(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: *a\n")
def test_any_bytes_get_an_answer(data):
    assert_sound(data)


@FUZZ
@given(mutated())
@example(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- &a {apiVersion: v1, kind: Pod, "
         b"metadata: {name: p}, spec: {volumes: [*a]}}\n")
@example(GOOD.replace(b"items:\n", b"items:\n- *x\n"))
@example(GOOD.replace(b"info", b"&a info") + b"functionConfig: *a\n")
# Found by fuzzing (each also a file in tests/bad_input/regressions/):
@example(b'"|_\\es"!')  # atheris: the parser before libyaml gave this scalar no text (TypeError)
@example(GOOD.replace(b"name: app-config", b"name:"))  # a null name or kind (TypeError)
@example(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n: ConfigMap\n")
@example(b" ---\n" + GOOD)  # text before the envelope was dropped by the split: invalid YAML accepted
@example(GOOD.replace(b"data:\n", b"x:\n  - \r- - - y\n  data:\n"))  # a lone CR: the parser before libyaml took no line break
@example(GOOD.replace(b"  data:\n", b"  x:\n    ? 'a\r\n\r\n     b'\r\n    : null\n  data:\n"))  # key spans lines
@example(GOOD.replace(b'"true"\n', b'"true"\n      krmfn.dev/- content-hash: "false"\n', 1))  # results' names differed
@example(b"\xef\xbb\xbf" + GOOD)  # the BOM kept on the output: the parser before libyaml misread the list after it
@example(b"%YAML 1.2\n" + b"%YAML 1.2\n---\n" + GOOD)
@example(b"%YAML - 1.2\n---\n" + GOOD)  # a malformed directive passed through  # two directives passed through: output unreadable
def test_mutated_resource_lists_get_an_answer(data):
    assert_sound(data)


# --- structured: random shapes where krmfn looks --------------------------------------------------

SCALARS = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.booleans(), st.none(), st.floats(allow_nan=False))
NAMES = st.sampled_from(["app-config", "db", "App_Config", "a" * 250, "", "x.y", "app-config-hf678c7m2b"])
ODD = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                   max_leaves=6)


def maybe(draw, good, odd=ODD):
    """Usually the well-formed value, sometimes anything at all."""
    return draw(odd) if draw(st.integers(0, 5)) == 0 else good


@st.composite
def configmap(draw):
    meta = {"name": maybe(draw, draw(NAMES))}
    if draw(st.booleans()):
        meta["namespace"] = maybe(draw, draw(st.sampled_from(["default", "prod", ""])))
    meta["annotations"] = maybe(draw, {"krmfn.dev/content-hash": maybe(draw, draw(st.sampled_from(["true", "false"])))})
    obj = {"apiVersion": maybe(draw, "v1"), "kind": maybe(draw, "ConfigMap"), "metadata": maybe(draw, meta)}
    if draw(st.booleans()):
        obj["data"] = maybe(draw, draw(st.dictionaries(st.from_regex(r"[A-Za-z0-9_.-]{1,8}", fullmatch=True),
                                                       st.text(max_size=20) | SCALARS, max_size=4)))
    if draw(st.integers(0, 3)) == 0:
        obj["binaryData"] = maybe(draw, {"b": draw(st.sampled_from(["aGk=", "not base64", "aG\nk="]))})
    return obj


@st.composite
def workload(draw, shared):
    ref = maybe(draw, {"name": maybe(draw, draw(NAMES))})
    container = maybe(draw, {"name": "c", "envFrom": maybe(draw, [maybe(draw, {"configMapRef": ref})]),
                             "env": [{"name": "A", "valueFrom": {"configMapKeyRef": maybe(draw, ref)}}]})
    spec = {"containers": maybe(draw, [container]),
            "volumes": maybe(draw, [{"name": "v", "configMap": maybe(draw, {"name": maybe(draw, draw(NAMES))})}])}
    if shared is not None and draw(st.booleans()):  # an object PyYAML writes once, with an anchor, and aliases
        spec["volumes"] = shared
    kind = draw(st.sampled_from(["Deployment", "Pod", "CronJob", "Widget"]))
    body = {"Pod": {"spec": spec}, "CronJob": {"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}}}
    return {"apiVersion": "v1" if kind == "Pod" else "apps/v1", "kind": kind,
            "metadata": {"name": maybe(draw, "w")}, **body.get(kind, {"spec": {"template": {"spec": spec}}})}


@st.composite
def resource_list(draw):
    shared = [{"name": "v", "configMap": {"name": draw(NAMES)}}] if draw(st.booleans()) else None
    items = draw(st.lists(st.one_of(configmap(), workload(shared), ODD), max_size=5))
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": maybe(draw, items)}
    if draw(st.integers(0, 3)) == 0:
        rl["functionConfig"] = maybe(draw, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"},
                                            "data": {"select": draw(st.sampled_from(["all", "annotated", "x"]))}})
    style = draw(st.sampled_from([None, '"', "'"]))
    flow = draw(st.sampled_from([False, True, None]))
    text = yaml.safe_dump(rl, default_style=style, default_flow_style=flow, allow_unicode=draw(st.booleans()),
                          sort_keys=False, width=draw(st.sampled_from([40, 1 << 16])))
    if draw(st.integers(0, 4)) == 0:
        text = text.replace("\n", "\r\n")
    return text.encode()


@FUZZ
@given(resource_list())
@example(b"{apiVersion: config.kubernetes.io/v1, kind: ResourceList,\r\n  items: null, functionConfig: ''}\r\n")
def test_odd_shapes_where_krmfn_looks_get_an_answer(data):
    assert_sound(data)


# --- the hash --------------------------------------------------------------------------------------

def go_json_string(text: str) -> str:
    """Go's encoding/json string encoding, written out from its rules (HTML-safe escaping; \\b and
    \\f short since Go 1.22, as kubectl 1.32's kustomize writes them: test_kustomize_oracle)."""
    short = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in short:
            out.append(short[ch])
        elif ord(ch) < 0x20 or ch in "<>&\u2028\u2029":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def reference_suffix(data: dict[str, str] | None, binary: dict[str, str] | None) -> str:
    """kustomize's hasher (api/hasher: sha256 of the Go-JSON encoding, its first 10 hex digits with 0, 1,
    3, a and e written g, h, k, m and t), written again here independently of krmfn.hashing."""
    def go_map(m):
        return "{" + ",".join(f"{go_json_string(k)}:{go_json_string(m[k])}"
                              for k in sorted(m, key=lambda k: k.encode("utf-8"))) + "}"
    fields = {"kind": '"ConfigMap"', "name": '""', "data": '""' if data is None else go_map(data)}
    if binary is not None:
        fields["binaryData"] = go_map(binary)
    encoded = "{" + ",".join(f'"{k}":{fields[k]}' for k in sorted(fields)) + "}"
    digest = hashlib.sha256(encoded.encode()).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
KEYS = st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True)


@FUZZ
@given(st.one_of(st.none(), st.dictionaries(KEYS, TEXT, max_size=6)),
       st.one_of(st.none(), st.dictionaries(KEYS, st.sampled_from(["", "aGk=", "aGVsbG8gd29ybGQ=\n"]), max_size=3)))
@example(None, None)
@example({"one": ""}, None)
@example({"crisis": "true", "fruit": "Indian Gooseberry", "year": "2020"}, None)
@example({"a": "<tag> & \u2028\u2029 \x00\x1f \"q\" \\"}, None)
@example({"a": "bs\b ff\f \\b \\f"}, None)
def test_the_hash_matches_an_independent_encoder(data, binary):
    assert hashing.suffix("kustomize", data, binary) == reference_suffix(data, binary)


# Characters YAML 1.1 readers (PyYAML, and libyaml-derived Go yaml) take for line breaks in raw
# text, where YAML 1.2 readers do not: the two would disagree about such a value.
YAML11_BREAKS = "\x85\u2028\u2029"


@FUZZ
@given(st.dictionaries(KEYS, TEXT, min_size=1, max_size=5), st.sampled_from([None, '"', "'", "|"]), st.booleans(),
       st.booleans())
def test_the_name_hashes_the_data_as_yaml_reads_it(data, style, unicode, crlf):
    """End to end: whatever style the data is written in, the suffix is kustomize's for its value."""
    if unicode and any(ch in YAML11_BREAKS for v in data.values() for ch in v):
        unicode = False  # written escaped instead (see YAML11_BREAKS)
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "app", "annotations": {"krmfn.dev/content-hash": "true"}}, "data": data}
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [cm]},
                          default_style=style, allow_unicode=unicode, sort_keys=False, width=1 << 16)
    if crlf:
        text = text.replace("\n", "\r\n")
    meant = yaml.safe_load(text)["items"][0]["data"]
    out = run(text.encode())
    if exit_code(out):
        # Only where PyYAML wrote a raw control character, or left plain a scalar that YAML 1.1
        # readers (kubectl's among them) take for a boolean or number, like y or 0o17: refused.
        assert all("control character" in r.message or "reads as a number, boolean" in r.message
                   or "YAML 1.1 readers" in r.message
                   for r in out.results if r.severity == "error"), [str(r) for r in out.results]
        return
    (item,) = yaml.safe_load(out.stdout)["items"]
    assert item["metadata"]["name"] == f"app-{reference_suffix(meant, None)}"


# --- atheris: coverage-guided, over the whole function -------------------------------------------

def _atheris_main() -> None:  # pragma: no cover - runs in a subprocess
    import atheris

    # Import krmfn afresh, instrumented for coverage (only krmfn: instrumenting all is slow).
    for name in [m for m in sys.modules if m == "krmfn" or m.startswith("krmfn.")]:
        del sys.modules[name]
    with atheris.instrument_imports(include=["krmfn"]):
        from krmfn.core.run.function import run_resource_list as instrumented

    def one_input(data: bytes) -> None:
        out = instrumented(data, LIMITS)
        assert exit_code(out) in (0, 1)
        assert (exit_code(out) == 1) == any(r.severity == "error" for r in out.results)

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


def test_atheris_finds_no_crash():
    """A coverage-guided fuzzer over run_resource_list, seeded with the corpus, for a bounded time."""
    pytest.importorskip("atheris")
    with tempfile.TemporaryDirectory() as tmp:
        seeds = Path(tmp, "seeds")
        seeds.mkdir()
        for i, seed in enumerate(SEEDS + [p.read_bytes() for p in sorted(REGRESSIONS.glob("*"))]):
            Path(seeds, f"seed-{i}").write_bytes(seed)
        found = Path(tmp, "found")
        found.mkdir()
        proc = subprocess.run(
            [sys.executable, __file__, f"-max_total_time={ATHERIS_SECONDS}", "-timeout=10", "-rss_limit_mb=2048",
             "-max_len=8192", f"-artifact_prefix={found}/", "-print_final_stats=1", str(seeds)],
            capture_output=True, timeout=ATHERIS_SECONDS + 120, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        crashes = sorted(found.iterdir())
        report = proc.stderr.decode("utf-8", "replace")[-3000:]
        assert not crashes, (f"atheris found {len(crashes)} input(s) that break krmfn; add them to "
                             f"tests/bad_input/regressions/: {[c.read_bytes()[:500] for c in crashes]}\n{report}")
        assert proc.returncode == 0, report


if __name__ == "__main__":
    _atheris_main()


# Tags, directives and markers in any order: once a crash in the parser
# (SIGSEGV, which would end this process: a crash here fails the run loudly).
SOUP = [b"%YAML 1.2\n", b"%TAG ! tag:x,2000:\n", b"%TAG !e! tag:e.com,2000:\n", b"%FOO bar\n", b"---\n", b"...\n",
        b"--- ", b"!e!x ", b"! ", b"!!str ", b"!<tag:x> ", b"a: b\n", b"- x\n", b"k: !e!t v\n", b"&a ", b"*a\n", b"? ",
        b": ", b"\n", b"  ", b"[", b"]", b"{", b"}", b"#c\n", b"|\n  t\n", b"%TAG !a! !\n", b"!a!b c\n"]


@FUZZ
@given(st.lists(st.sampled_from(SOUP), min_size=1, max_size=14))
@example([b"a: b\n", b"!<tag:x> ", b"\n", b"!e!x ", b"! ", b"!<tag:x> ", b"%YAML 1.2\n"])
@example([b"!<tag:x> ", b"\n", b"!<tag:x> ", b"\n", b"#c\n", b"#c\n", b"!<tag:x> ", b"!e!x ", b"%YAML 1.2\n",
          b"--- ", b"{", b"%TAG !e! tag:e.com,2000:\n", b"%YAML 1.2\n"])
def test_tags_and_directives_in_any_order_never_crash_the_reader(parts):
    if LAST_INPUT:
        Path(LAST_INPUT).write_bytes(b"".join(parts))
    try:
        Doc.parse(b"".join(parts))
    except YamlError:
        pass
