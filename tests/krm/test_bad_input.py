"""Hostile and broken input: the corpus (tests/bad_input/cases.py) and the documented limits.

Every case runs twice: in-process (the exact results) and through the installed ``krmfn``
console script (what a pipeline sees: exit code, stderr lines, stdout). The contract for a
failure: a non-zero exit; error results that say what is wrong, where, and what to do; each
printed as one ``krmfn: error: ...`` line on stderr; no traceback; and nothing on stdout a
pipeline could take for a transformed ResourceList (stdout is either empty, or the input
itself, untouched, with the error results appended, as the KRM spec wants for kpt to show).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bad_input.cases import CASES, GOOD, Case, deep_flow, dense, regression_files, rl
from conftest import exit_code
from tooling import REPO

from krmfn.core.run.function import Outcome, run_resource_list
from krmfn.krm.data import load_documents
from krmfn.krm.envelope import cut
from krmfn.krm.limits import MIB, Limits
from krmfn.results import Result

KRMFN = Path(sys.executable).with_name("krmfn")
DOC = REPO / "docs" / "limits.md"


def run(data: bytes, limits: Limits = Limits()) -> Outcome:
    return run_resource_list(data, limits)


def cli(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    if not KRMFN.exists():
        pytest.skip(f"no krmfn console script beside {sys.executable}; pip install -e . first")
    return subprocess.run([str(KRMFN), *args], input=data, capture_output=True, timeout=120)


def errors(results: list[Result]) -> list[Result]:
    return [r for r in results if r.severity == "error"]


def assert_not_mistaken_for_success(data: bytes, stdout: bytes) -> None:
    """Empty, or the input as it came (nothing renamed) with error results appended."""
    if not stdout:
        return
    assert b"\nresults:\n" in stdout and b"severity: error" in stdout
    head = stdout[: stdout.rindex(b"\nresults:\n") + 1]
    if head in (data, data + b"\n"):
        return
    try:
        layout = cut(data.replace(b"\r\n", b"\n").removeprefix(b"\xef\xbb\xbf"))
    except ValueError:
        layout = None
    if layout is not None and layout.items and all(item in head for item in layout.items):
        return  # every item as it came (flow style: each after a "- ", in a block-style envelope)
    try:  # read as a whole document: compare what it means
        before, after = yaml.safe_load(data), yaml.safe_load(head)
    except yaml.YAMLError:
        pytest.fail("stdout is neither empty nor the input with results appended")
    assert after["items"] == before["items"]


def assert_plain_messages(results: list[Result]) -> None:
    """One or two sentences: no line breaks, no Python reprs of internals, a sane length."""
    for r in results:
        assert "\n" not in r.message and len(r.message) < 600, r.message
        assert "Traceback" not in r.message and "Exception" not in r.message, r.message


@pytest.fixture(scope="module")
def inputs() -> dict[str, bytes]:
    return {}


def case_input(case: Case, cache: dict[str, bytes]) -> bytes:
    if case.name not in cache:
        cache[case.name] = case.input()
    return cache[case.name]


def test_the_corpus_is_large_and_named_uniquely():
    names = [c.name for c in CASES]
    assert len(names) >= 40 and len(set(names)) == len(names)
    assert sum(c.exit == 0 for c in CASES) >= 10  # valid-but-unusual input that must simply work


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_in_process(case: Case, inputs):
    data = case_input(case, inputs)
    out = run(data)
    assert exit_code(out) == case.exit, [str(r) for r in out.results]
    assert_plain_messages(out.results)
    if case.exit:
        errs = errors(out.results)
        assert errs, "a failure must come with an error result"
        text = " | ".join(str(r) for r in errs)
        for fragment in case.fragments:
            assert fragment in text
        assert_not_mistaken_for_success(data, out.stdout)
    else:
        assert not errors(out.results)
        text = out.stdout.decode() + " ".join(r.message for r in out.results)
        for fragment in case.fragments:
            assert fragment in text
        if case.check:
            case.check(out.stdout)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_through_the_console_script(case: Case, inputs):
    data = case_input(case, inputs)
    proc = cli(data)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == case.exit, err
    assert "Traceback" not in err and "internal error" not in err
    assert all(line.startswith("krmfn: ") for line in err.splitlines()), err
    if case.exit:
        for fragment in case.fragments:
            assert fragment in err
        assert_not_mistaken_for_success(data, proc.stdout)
    else:
        # a ResourceList, in the input's own style (PyYAML's loader would refuse a redefined anchor)
        assert load_documents(proc.stdout)[0]["kind"] == "ResourceList", proc.stdout[:300]  # type: ignore[index]
        messages = " ".join(r.message for r in run(data).results)  # as written, before YAML quoting
        for fragment in case.fragments:
            assert fragment.encode() in proc.stdout or fragment in messages


@pytest.mark.parametrize("path", regression_files(), ids=lambda p: p.name)
def test_fuzz_regressions_are_handled(path: Path):
    """Inputs that once crashed krmfn: now an answer, either way, never a crash."""
    data = path.read_bytes()
    out = run(data)
    assert exit_code(out) in (0, 1)
    assert exit_code(out) == 0 or errors(out.results)
    assert_plain_messages(out.results)
    proc = cli(data)
    assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr


# --- the documented limits --------------------------------------------------------------------

def documented_limits() -> dict[str, str]:
    """The table in docs/limits.md: limit name -> the message fragment it documents."""
    text = DOC.read_text()
    table = text[text.index("<!-- limits:start -->"):text.index("<!-- limits:end -->")]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0] and not set(cells[0]) <= set("-: ") and cells[0] != "Limit":
            fragment = re.search(r"`([^`]+)`", cells[3])
            assert fragment, f"docs/limits.md: no `message` for {cells[0]}"
            rows[cells[0]] = fragment.group(1)
    return rows


LAUGHS_SMALL = "".join(f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 4)}]\n" for i in range(1, 10))
# How to trigger each documented limit (with small limits where the default would need a big input).
TRIGGERS: dict[str, tuple[bytes, Limits]] = {
    "Input size": (GOOD, Limits(max_input_bytes=100)),
    "YAML nodes": (rl("- [" + "a," * 5000 + "a]\n"), Limits(max_input_bytes=64 * 1024)),
    "Nesting depth": (deep_flow(70)(), Limits()),
    "Alias expansion": (rl("- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  x:\n    a0: &a0 [x, x, x, x]\n"
                           + LAUGHS_SMALL + "  spec: {volumes: *a9}\n"), Limits()),
    "Encoding": (GOOD.replace(b"info", b"\xff"), Limits()),
    "Control characters": (GOOD.replace(b"info", b"\x1b[0m"), Limits()),
    "Name length": (rl("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: " + "a" * 250 + "\n"
                       "    annotations: {krmfn.dev/content-hash: \"true\"}\n"), Limits()),
}


def test_every_limit_is_documented_and_triggers_with_its_message():
    documented = documented_limits()
    assert set(documented) == set(TRIGGERS), "docs/limits.md and this test list different limits"
    for name, fragment in documented.items():
        data, limits = TRIGGERS[name]
        out = run(data, limits)
        assert exit_code(out) == 1, name
        assert any(fragment in r.message for r in errors(out.results)), (name, [str(r) for r in out.results])


def test_the_limits_table_is_in_one_place():
    """The README once showed a copy of this table, kept the same as docs/limits.md's by this test;
    now the table is in docs/limits.md alone, and no other page holds a copy to drift."""
    def tables(text: str) -> int:
        return text.count("<!-- limits:start -->")
    assert tables(DOC.read_text()) == 1
    for page in [REPO / "README.md", *(REPO / "docs").glob("*.md")]:
        if page != DOC:
            assert tables(page.read_text()) == 0 and "| Limit | Default |" not in page.read_text(), page


def test_the_defaults_are_the_documented_ones():
    text = DOC.read_text()
    limits = Limits()
    assert limits.max_input_bytes == 32 * MIB and "32 MiB" in text
    assert limits.node_limit == 2_097_152 and "2,097,152" in text
    assert limits.max_depth == 64 and "64 levels" in text
    assert limits.max_alias_nodes == 100_000 and "100,000" in text


def test_max_input_size_raises_the_limit_through_the_cli():
    big = GOOD + b"# " + b"x" * (2 * MIB) + b"\n"
    assert exit_code(run(big, Limits(max_input_bytes=MIB))) == 1
    assert exit_code(run(big, Limits(max_input_bytes=4 * MIB))) == 0
    proc = cli(big, "--max-input-size", "1M")
    assert proc.returncode == 1 and b"over the limit of 1 MiB" in proc.stderr and not proc.stdout
    proc = cli(big, "--max-input-size", "4M")
    assert proc.returncode == 0, proc.stderr


def test_the_node_limit_follows_the_size_limit():
    data = dense()
    assert exit_code(run(data)) == 1
    assert Limits(max_input_bytes=64 * MIB).node_limit == 2 * 2_097_152
    assert Limits(max_nodes=10).node_limit == 10


def test_limit_checks_cost_little_on_ordinary_input():
    """The byte screen clears a 5,000-item list without any per-item work."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from generate import resource_list

    from krmfn.krm.limits import check_input

    prescan = check_input(resource_list(1000).encode(), Limits())
    assert not prescan.deep and not prescan.anchors


def test_internal_errors_are_one_line_without_debug_and_a_traceback_with_it():
    code = ("import sys, krmfn.cli, krmfn.cli.function_mode as c\n"
            "def boom(data, limits):\n    raise RuntimeError('simulated bug')\n"
            "c.run_resource_list = boom\n"
            "raise SystemExit(krmfn.cli.main(sys.argv[1:]))\n")
    plain = subprocess.run([sys.executable, "-c", code], input=GOOD, capture_output=True, timeout=60)
    assert plain.returncode != 0 and not plain.stdout
    assert plain.stderr.decode().count("\n") == 1 and b"Traceback" not in plain.stderr
    assert b"internal error" in plain.stderr and b"--debug" in plain.stderr
    debug = subprocess.run([sys.executable, "-c", code, "--debug"], input=GOOD, capture_output=True, timeout=60)
    assert debug.returncode != 0 and b"Traceback" in debug.stderr and b"simulated bug" in debug.stderr
