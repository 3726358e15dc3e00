"""The function, in function mode, writes no file, opens no socket and starts no process.

The container runs it as uid 65534 with a read-only root and no network (tests/integration/test_container.py);
these tests show it needs none of those, on the host, three ways:

- a Python audit hook (``sys.addaudithook``), installed before krmfn is imported, records every
  ``open`` for writing, every ``socket.*`` event, and every event that would change the file
  system or start a program; a run must record none. Reads are allowed only of Python's own
  modules (imports), and of nothing else;
- ``strace -f`` (Debian package ``strace``; skipped when absent) watches the system calls
  themselves, forked children included: no ``open*`` for writing, no ``socket``/``connect``,
  no ``execve`` but Python's own;
- ``unshare -n`` (util-linux; skipped where namespaces are not allowed) runs it with no network
  at all, and the output is the same.

Each runs ``python -m krmfn`` the way the image does (PYTHONDONTWRITEBYTECODE=1, as its
Dockerfile sets), on inputs that reach every path: a hashed ConfigMap and references, a list
large enough for the two-process path (parallel.py forks), flow style (re-read as a whole),
and errors (a parse error, an alias bomb).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from bad_input.cases import GOOD, billion_laughs
from tooling import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from generate import resource_list  # noqa: E402

INPUTS = {
    "hash-and-rewrite": GOOD,
    "two-processes": resource_list(300).encode(),  # > 1 MiB: parallel.py forks a child
    "flow-style": b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", '
                  b'"kind": "ConfigMap", "metadata": {"name": "c", "annotations": {"krmfn.dev/content-hash": "true"}}, '
                  b'"data": {"a": "b"}}]}',
    "parse-error": GOOD + b"- [unclosed\n",
    "alias-bomb": billion_laughs(),
}

# The hook: one line per forbidden event, written straight to an inherited pipe (os.write has no
# audit event, so the hook cannot trigger itself; forked children inherit hook and pipe).
AUDIT = r"""
import os, sys
fd = int(os.environ["KRMFN_AUDIT_FD"])
allowed = tuple(p for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                            os.environ["KRMFN_AUDIT_PACKAGE"]} if p)
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
CHANGES = ("os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate", "os.chmod", "os.chown", "os.link",
           "os.symlink", "os.utime", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.startfile",
           "subprocess.Popen", "shutil.", "tempfile.", "urllib.", "http.client.", "ftplib.", "smtplib.",
           "poplib.", "imaplib.", "nntplib.", "telnetlib.", "webbrowser.")
def hook(event, args):
    bad = None
    if event == "open":
        path, mode, flags = args
        writes = (mode and any(c in str(mode) for c in "wax+")) or (flags and flags & WRITE)
        if writes:
            bad = f"open for writing: {path!r} mode={mode!r} flags={flags!r}"
        elif not isinstance(path, int) and not os.path.abspath(os.fsdecode(path)).startswith(allowed):
            bad = f"open of a file that is not a Python module: {path!r}"
    elif event.startswith("socket.") or event.startswith(CHANGES):
        bad = f"{event} {args!r}"
    if bad:
        os.write(fd, (bad[:500] + "\n").encode())
sys.addaudithook(hook)
import runpy
runpy.run_module(os.environ.get("KRMFN_AUDIT_MODULE", "krmfn"), run_name="__main__", alter_sys=True)
"""
# What the hooks must catch: the negative control for both tests.
MISBEHAVING = """
import socket
with open("written.txt", "w") as f:
    f.write("x")
socket.socket().close()
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KRMFN_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(REPO), **extra)
    return env


def _audited(data: bytes, cwd: Path, module: str = "krmfn", path: str = str(REPO)) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``module`` under the audit hook; the events it recorded."""
    read_end, write_end = os.pipe()
    try:
        env = _env(KRMFN_AUDIT_FD=str(write_end), KRMFN_AUDIT_PACKAGE=str(REPO / "krmfn"),
                   KRMFN_AUDIT_MODULE=module, HOME="/nonexistent", TMPDIR="/nonexistent")
        env["PYTHONPATH"] = path
        proc = subprocess.run([sys.executable, "-c", AUDIT], input=data, capture_output=True, timeout=120,
                              cwd=cwd, pass_fds=(write_end,), env=env)
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "rb") as pipe:
            read_end = -1
            return proc, pipe.read().decode()
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)


@pytest.mark.parametrize("data", INPUTS.values(), ids=INPUTS.keys())
def test_audit_hook_sees_no_write_no_socket_no_process(data: bytes, tmp_path: Path):
    proc, events = _audited(data, tmp_path)
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    assert b"Traceback" not in proc.stderr
    assert events == "", events
    assert list(tmp_path.iterdir()) == []  # nothing in the working directory either


def test_the_audit_hook_would_see_a_write_and_a_socket(tmp_path: Path):
    (tmp_path / "misbehaving.py").write_text(MISBEHAVING)
    _, events = _audited(b"", tmp_path, "misbehaving", f"{tmp_path}{os.pathsep}{REPO}")
    assert "open for writing: 'written.txt'" in events and "socket.__new__" in events


def _strace() -> str:
    tool = shutil.which("strace")
    if tool is None:
        pytest.skip("strace is not installed (Debian: apt-get install strace)")
    probe = subprocess.run([tool, "-f", "-qq", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace').strip()}")
    return tool


_SYSCALL = re.compile(r"^(?:\[pid\s+\d+\]\s+)?(?:\d+\s+)?(\w+)\((.*)$")


def _traced(data: bytes, tmp_path: Path, *argv: str) -> tuple[subprocess.CompletedProcess, list[str], int, Path]:
    """Run ``python argv`` under strace: the forbidden calls it made, and how many execs."""
    tool = _strace()
    log = tmp_path / "strace.log"
    work = tmp_path / "cwd"
    work.mkdir()
    proc = subprocess.run(
        [tool, "-f", "-qq", "-o", str(log), "-e",
         "trace=open,openat,openat2,creat,socket,connect,bind,sendto,sendmsg,execve,execveat,unlink,unlinkat,"
         "rename,renameat,renameat2,mkdir,mkdirat,truncate,ftruncate",
         sys.executable, *argv],
        input=data, capture_output=True, timeout=300, cwd=work, env=_env())
    bad = []
    execs = 0
    for line in log.read_text(errors="replace").splitlines():
        m = _SYSCALL.match(line)
        if not m:
            continue
        call, args = m.groups()
        if call in ("open", "openat", "openat2", "creat"):
            if call == "creat" or re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND", args):
                bad.append(line)
        elif call in ("execve", "execveat"):
            execs += 1  # the interpreter itself, once
        elif call == "ftruncate":
            continue  # on memory only: Python's own buffers have no path
        else:
            bad.append(line)
    return proc, bad, execs, work


@pytest.mark.parametrize("data", INPUTS.values(), ids=INPUTS.keys())
def test_strace_sees_no_write_no_socket_no_exec(data: bytes, tmp_path: Path):
    proc, bad, execs, work = _traced(data, tmp_path, "-m", "krmfn")
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    assert execs == 1
    assert bad == [], "\n".join(bad)
    assert list(work.iterdir()) == []


def test_strace_would_see_a_write_and_a_socket(tmp_path: Path):
    _, bad, _, _ = _traced(b"", tmp_path, "-c", MISBEHAVING)
    assert any("written.txt" in line and "O_WRONLY" in line for line in bad), bad
    assert any(line.split("(")[0].split()[-1] == "socket" for line in bad), bad


def test_runs_without_any_network():
    """In a network namespace of its own (no interface but a down loopback): the same output."""
    tool = shutil.which("unshare")
    if tool is None:
        pytest.skip("unshare is not installed (util-linux)")
    probe = subprocess.run([tool, "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        probe = subprocess.run([tool, "-rn", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip(f"no network namespaces here: {probe.stderr.decode(errors='replace').strip()}")
        tool_args = [tool, "-rn"]
    else:
        tool_args = [tool, "-n"]
    with tempfile.TemporaryDirectory() as tmp:
        plain = subprocess.run([sys.executable, "-m", "krmfn"], input=GOOD, capture_output=True, cwd=tmp,
                               env=_env(), timeout=120)
        isolated = subprocess.run([*tool_args, sys.executable, "-m", "krmfn"], input=GOOD, capture_output=True,
                                  cwd=tmp, env=_env(), timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert isolated.returncode == 0, isolated.stderr
    assert isolated.stdout == plain.stdout
