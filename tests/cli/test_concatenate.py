"""``krmfn a.yaml b.yaml`` prints one stream: valid YAML, the same documents as the files one by
one, whatever directives and markers each file starts and ends with; null documents pass through."""

from __future__ import annotations

import io
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_cli import cli, out

from krmfn.cli import main

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n"
SHAPES = {
    "plain": CM,
    "started": "---\n" + CM,
    "yaml11": "%YAML 1.1\n---\n" + CM,
    "yaml12": "%YAML 1.2\n---\n" + CM,
    "comment_directive": "# generated\n%YAML 1.1\n---\n" + CM,
    "ended": CM + "...\n",
    "trailing_marker": "---\n" + CM + "---\n",
    "no_newline": CM + "# last line",
    "two": CM + "---\n" + CM.replace("{}", "{}-two"),
    "nulls": CM + "---\nnull\n---\n~\n",
}


def files(tmp_path: Path, shapes: tuple[str, ...]) -> list[str]:
    paths = []
    for i, shape in enumerate(shapes):
        path = tmp_path / f"{i}-{shape}.yaml"
        path.write_text(SHAPES[shape].replace("{}", f"cm{i}"))
        paths.append(str(path))
    return paths


def documents(text: str) -> list[object]:
    return list(yaml.safe_load_all(text))


def in_process(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch,
               stdin: str = "") -> str:
    """``krmfn ARGV`` through its entry point, in this process: a hundred pairs of files would take
    half a minute as subprocesses. test_every_shape_through_the_console_script runs some that way."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(argv)
    output, err = capsysbinary.readouterr()
    assert code == 0, err.decode()
    return output.decode()


@pytest.mark.parametrize(("first", "second"), list(itertools.product(SHAPES, repeat=2)))
def test_two_files_make_one_valid_stream(tmp_path: Path, first: str, second: str, capsysbinary, monkeypatch) -> None:
    paths = files(tmp_path, (first, second))
    run = lambda *argv, stdin="": in_process(list(argv), capsysbinary, monkeypatch, stdin)  # noqa: E731
    text = run(*paths)
    # The documents of the stream are those of each file, nothing lost, no empty document added.
    assert documents(text) == [d for p in paths for d in documents(run(p))]
    assert run("--stream", stdin=text) == text  # krmfn reads its own output back unchanged
    assert directives_follow_an_end_marker(text)


def test_every_shape_through_the_console_script(tmp_path: Path) -> None:
    """The same as a user runs it, once, over every shape in one stream."""
    paths = files(tmp_path, tuple(SHAPES))
    text = out(cli(paths))
    assert documents(text) == [d for p in paths for d in documents(out(cli([p])))]
    assert out(cli(["--stream"], text)) == text
    assert directives_follow_an_end_marker(text)


def directives_follow_an_end_marker(text: str) -> bool:
    """YAML's rule that PyYAML and libyaml do not enforce: a directive after a document needs ``...``."""
    last = ""
    for line in text.splitlines():
        if line.startswith("%") and last not in ("", "..."):
            return False
        if line.strip() and not line.startswith("#") and not line.startswith("%"):
            last = line.rstrip()
    return True


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_kubectl_reads_a_directive_after_another_file(tmp_path: Path) -> None:
    """kustomize reads no file that starts with a directive, but reads one in the middle after ``...``."""
    paths = files(tmp_path, ("plain", "yaml11", "trailing_marker", "comment_directive"))
    (tmp_path / "all.yaml").write_text(out(cli(paths)))
    (tmp_path / "kustomization.yaml").write_text("resources: [all.yaml]\n")
    done = subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert [d["metadata"]["name"] for d in documents(done.stdout)] == ["cm0", "cm1", "cm2", "cm3"]


def test_null_documents_pass_through_untouched() -> None:
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {krmfn.dev/content-hash: 'true'}\n"
              "---\nnull\n---\n~  # unset value\n---\n!!null\n")
    text = out(cli(["--stream"], stream))
    assert "name: a-" in text
    assert text.endswith("---\nnull\n---\n~  # unset value\n---\n!!null\n")
