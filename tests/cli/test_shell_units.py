"""The shell's small modules on their own: cli.parser (one-sentence argument errors),
cli.reading (bounded reads), cli.helm_hooks (hooks krmfn changed) and cli.function_mode (the
function itself, stdin to stdout, with no process)."""

from __future__ import annotations

import io
import os

import pytest
import yaml
from conftest import resource_list

from krmfn.cli import function_mode
from krmfn.cli.helm_hooks import warnings
from krmfn.cli.parser import Parser, comma_list
from krmfn.cli.reading import read_file, read_files
from krmfn.krm.limits import Limits
from krmfn.results import ConfigError


def parser() -> Parser:
    p = Parser(prog="krmfn test")
    p.add_argument("--retention")
    p.add_argument("--rotation")
    return p


def test_a_misspelt_flag_is_one_sentence_naming_the_flag_meant(capsys):
    with pytest.raises(SystemExit) as info:
        parser().parse_args(["--retain", "2"])
    assert info.value.code == 2
    assert capsys.readouterr().err == ("krmfn: unrecognized arguments: --retain 2; did you mean --retention? "
                                       "(see krmfn test --help)\n")


def test_a_comma_list_drops_blanks():
    assert comma_list(" a, ,b,") == ["a", "b"]


def test_a_file_is_read_up_to_the_limit_plus_one_byte(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 100)
    assert read_file(str(path), True, 10) == b"x" * 11


def test_a_walk_skips_what_is_not_a_regular_file_and_a_named_one_is_an_error(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    (tmp_path / "a.yaml").write_bytes(b"kind: A\n")
    read, skipped = read_files([(str(tmp_path / "a.yaml"), False), (str(fifo), False)], 100)
    assert read == [(str(tmp_path / "a.yaml"), b"kind: A\n", False)] and skipped == [str(fifo)]
    with pytest.raises(ConfigError, match=r"cannot read .*missing.yaml \(No such file or directory\)"):
        read_file(str(tmp_path / "missing.yaml"), True, 100)


def test_files_together_stop_at_the_limit(tmp_path):
    for name in "abc":
        (tmp_path / f"{name}.yaml").write_bytes(b"x" * 6)
    read, _ = read_files([(str(tmp_path / f"{n}.yaml"), True) for n in "abc"], 10)
    assert [len(text) for _, text, _ in read] == [6, 5]  # over by one: the third is never read


HOOK = b"""- apiVersion: batch/v1
  kind: Job
  metadata:
    name: migrate
    annotations:
      helm.sh/hook: pre-install,pre-upgrade
  spec: {}
"""


def test_a_hook_krmfn_changed_gets_a_warning_and_one_it_left_does_not():
    changed = HOOK.replace(b"spec: {}", b"spec: {x: 1}")
    (result,) = warnings([HOOK, HOOK], [changed, HOOK])
    assert result.resource.name == "migrate" and result.field_path == "metadata.annotations[helm.sh/hook]"
    assert "only Helm 4 passes hooks to a post-renderer" in result.message
    assert "Helm runs a pre-install or pre-upgrade hook before it creates the release's objects" in result.message


def test_the_function_mode_writes_a_resource_list_and_reports_errors_on_stderr(monkeypatch, capsys):
    text = resource_list("""
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
        annotations: {krmfn.dev/content-hash: "true"}
      data: {a: "1"}
    """)
    stdin = io.TextIOWrapper(io.BytesIO(text.encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    assert function_mode.resource_list_mode(Limits(), debug=False) == 0
    out = yaml.safe_load(capsys.readouterr().out)
    assert out["items"][0]["metadata"]["name"] == "app-config-h29d89cmmt"


def test_the_function_mode_fails_with_the_items_as_read(monkeypatch, capsys):
    text = resource_list("""
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
        annotations: {krmfn.dev/content-hash: "maybe"}
    """)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert function_mode.resource_list_mode(Limits(), debug=False) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(text)
    assert "annotation krmfn.dev/content-hash is 'maybe'" in captured.err


def test_the_flags_config_is_json_that_libyaml_reads_whatever_its_text():
    """ASCII-only JSON writes a character past U+FFFF as two escaped surrogates, which libyaml
    refuses: a flag's value with one made the run fail to read its own config."""
    from krmfn.cli.stream import config_text

    config = {"data": {"note": "caf\u00e9 \U0001f600 \u2028 \x85"}}
    assert yaml.load(config_text(config), Loader=yaml.CSafeLoader) == config
