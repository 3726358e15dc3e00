"""No mode reads more than the size limit plus one byte: /dev/zero on stdin and a 300 MB file are
refused within the memory budget (docs/performance.md), and a walk reads only regular files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import CONFIGMAP, cli
from tooling import REPO

BUDGET_KB = 100 * 1024  # peak RSS of a refused input; the 32 MiB limit plus the interpreter is ~55 MB

# Runs krmfn as its own child, so that RUSAGE_CHILDREN is krmfn's peak alone; kills it after 20 s.
MEASURE = """
import json, resource, subprocess, sys
stdin = open(sys.argv[1], "rb")
try:
    done = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True, timeout=20)
    code, err = done.returncode, done.stderr.decode()
except subprocess.TimeoutExpired:
    code, err = "timeout", ""
print(json.dumps({"code": code, "err": err, "rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def peak(args: list[str], stdin: str = os.devnull) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", MEASURE, stdin, sys.executable, "-m", "krmfn", *args],
                          capture_output=True, env=env, timeout=60, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("args", [["--stream"], [], ["helm"]], ids=["stream", "resourcelist", "helm"])
def test_endless_stdin_is_refused_within_the_budget(args: list[str]) -> None:
    run = peak(args, "/dev/zero")
    assert run["code"] == 1 and "over the limit of 32 MiB" in str(run["err"]), run
    assert int(str(run["rss_kb"])) < BUDGET_KB, run


def test_a_300_mb_file_is_refused_within_the_budget(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse: 300 MB of zeros to read, none on disk
    for args in ([str(big)], ["-i", str(big)], [str(tmp_path)]):
        run = peak(args)
        assert run["code"] == 1 and "over the limit of 32 MiB" in str(run["err"]), run
        assert int(str(run["rss_kb"])) < BUDGET_KB, run


def test_a_walk_reads_only_regular_files(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.yaml")
    done = cli(["-v", str(tmp_path)])
    assert done.returncode == 0, done.stderr.decode()
    assert b"name: app-config-" in done.stdout
    err = done.stderr.decode()
    assert f"skipped {tmp_path / 'fifo.yaml'}: not a regular file" in err
    assert f"skipped {tmp_path / 'zero.yaml'}: not a regular file" in err
