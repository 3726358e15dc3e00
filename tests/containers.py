"""The container engine and the krmfn image, as session fixtures shared by every test that runs it.

``image`` runs ``.ci/wheels.sh`` (fills dist/wheels/ from this work tree) and builds ``krmfn:test``
with ``docker build --network none``, on the local base ``krmfn-base:bookworm`` when it exists
(``.ci/base-image.sh``), else on the Dockerfile's default base. Without a daemon or a buildable
image the tests skip, saying why; with ``KRMFN_REQUIRE_CONTAINER=1`` (CI) that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
IMAGE = "krmfn:test"
LOCAL_BASE = "krmfn-base:bookworm"


def _unavailable(reason: str) -> None:
    if os.environ.get("KRMFN_REQUIRE_CONTAINER") == "1":
        pytest.fail(f"{reason} (KRMFN_REQUIRE_CONTAINER=1)", pytrace=False)
    pytest.skip(reason)


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _docker_cli() -> str | None:
    found = shutil.which("docker")
    if found:
        return found
    return "/usr/bin/docker" if os.access("/usr/bin/docker", os.X_OK) else None


@pytest.fixture(scope="session")
def docker() -> str:
    cli = _docker_cli()
    if cli is None:
        _unavailable("no docker client installed (.ci/docker-up.sh installs docker.io)")
    try:
        info = subprocess.run([cli, "info"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        _unavailable("`docker info` timed out: no Docker daemon answers (start one with .ci/docker-up.sh)")
    if info.returncode != 0:
        _unavailable(f"no Docker daemon answers (start one with .ci/docker-up.sh): {_tail(info.stderr, 3)}")
    return cli


@pytest.fixture(scope="session")
def image(docker: str) -> str:
    wheels = subprocess.run(["bash", str(REPO / ".ci" / "wheels.sh")], capture_output=True, text=True, timeout=600)
    if wheels.returncode != 0:
        _unavailable(f"could not prepare dist/wheels/ with .ci/wheels.sh:\n{_tail(wheels.stderr)}")
    build = [docker, "build", "--network", "none", "--tag", IMAGE]
    has_base = subprocess.run([docker, "image", "inspect", LOCAL_BASE], capture_output=True).returncode == 0
    if has_base:
        build += ["--build-arg", f"BASE={LOCAL_BASE}"]
    built = subprocess.run([*build, str(REPO)], capture_output=True, text=True, timeout=900)
    if built.returncode != 0:
        hint = "" if has_base else f" (no local base {LOCAL_BASE}: run .ci/base-image.sh)"
        _unavailable(f"docker build of {IMAGE} failed{hint}:\n{_tail(built.stdout + built.stderr)}")
    return IMAGE
