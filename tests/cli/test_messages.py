"""Every error and warning is one line on stderr, in every mode (README: "When something goes
wrong"); a snippet to paste rides beside its message: -v prints it after the line, and the
function's results carry it in the result's ``tags``."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml
from tooling import REPO

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  annotations: {krmfn.dev/content-hash: "true"}
data: {k: v}
"""
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: creds
  annotations: {krmfn.dev/content-hash: "true"}
stringData: {password: hunter2}
"""


def widget(i: int) -> str:
    """A kind krmfn does not know, naming the ConfigMap and the Secret in a pod-spec-like map:
    each reference a warning whose field specs run to several lines."""
    return f"""\
apiVersion: example.com/v1
kind: Widget
metadata: {{name: w{i}}}
spec:
  runner:
    containers:
    - name: c
      envFrom: [{{configMapRef: {{name: app}}}}, {{secretRef: {{name: creds}}}}]
  settings: {{configMapName: app}}
"""


STREAM = "---\n".join([CONFIGMAP, SECRET, *(widget(i) for i in range(3))])


def krmfn(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "krmfn", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def function_results() -> list[dict]:
    rl = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
          + "".join("- " + doc.replace("\n", "\n  ").rstrip() + "\n" for doc in STREAM.split("---\n")))
    done = krmfn([], rl)
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)["results"]


def test_many_field_spec_warnings_are_one_stderr_line_each(tmp_path):
    results = function_results()
    loud = [r for r in results if r["severity"] != "info"]
    assert len(loud) == 9  # three Widgets, three references each
    assert all("\n" not in r["message"] for r in results)
    (tmp_path / "all.yaml").write_text(STREAM)
    for args in (["--stream"], ["helm"], [str(tmp_path / "all.yaml")], [str(tmp_path)]):
        done = krmfn(args, STREAM)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == len(loud), (args, done.stderr)
        assert all(line.startswith("krmfn: warning: Widget/w") for line in lines), done.stderr
        assert "hunter2" not in done.stderr


def test_the_field_specs_are_in_the_results_tags_and_behind_v():
    multi = [r for r in function_results() if "fieldSpecs entries krmfn -v prints" in r["message"]]
    assert multi and all(r["tags"]["fieldSpecs"].count("\n") >= 7 for r in multi)
    done = krmfn(["--stream", "-v"], STREAM)
    lines = done.stderr.splitlines()
    assert all(line.startswith("krmfn: ") for line in lines)
    first = lines.index(next(line for line in lines if "fieldSpecs entries krmfn -v prints" in line))
    pasted = multi[0]["tags"]["fieldSpecs"].splitlines()
    assert lines[first + 1:first + 1 + len(pasted)] == [f"krmfn:   {line}" for line in pasted]


def test_a_line_break_inside_a_message_is_written_escaped(capsys):
    from krmfn.cli.guard import say

    say("first\nsecond\r")
    assert capsys.readouterr().err == "krmfn: first\\nsecond\\r\n"


def test_a_binary_yaml_file_is_called_binary_data_never_utf16(tmp_path):
    blob = tmp_path / "blob.yaml"
    blob.write_bytes(b"\x00\x00\x01\x00" + bytes(range(1, 256)) * 2)  # an icon file, say
    done = krmfn([str(blob)], "")
    assert done.returncode == 1
    assert done.stderr == (f"krmfn: error: {blob}: the input is binary data, not text: it holds a zero byte at line "
                           "1, column 1; krmfn reads YAML manifests in UTF-8\n")
