"""The container engine and the krmfn image, as session fixtures shared by every test that runs it.

``image`` builds the image the way docs/install.md says, with ``make image`` (.ci/image.sh: the
wheels from this work tree, the base, ``docker build --network none``), and returns the tag
it prints, ``localhost/krmfn:<version>``: the name the examples and the docs use. Without a
daemon or a buildable image the tests skip, saying why; with ``KRMFN_REQUIRE_CONTAINER=1``
(CI) that is a failure.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from krmfn import __version__

REPO = Path(__file__).resolve().parent.parent
IMAGE = f"localhost/krmfn:{__version__}"
BUILD_LABEL = "dev.krmfn.build"  # on the builder stage's image, which .ci/image.sh removes


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


def leftovers(docker: str) -> set[str]:
    """Untagged images a krmfn build left behind (the builder stage's carry BUILD_LABEL)."""
    done = subprocess.run([docker, "images", "--quiet", "--no-trunc", "--filter", "dangling=true",
                           "--filter", f"label={BUILD_LABEL}"], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


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
    """``make image``, as docs/install.md says; it must leave no untagged image of its own behind."""
    make = shutil.which("make")
    if make is None:
        _unavailable("make is not installed (apt-get install make); the image is built with `make image`")
    # One build at a time: pytest-xdist's workers each run this fixture, and two builds would
    # share dist/wheels/ (one clearing what the other installs from).
    with open(Path(tempfile.gettempdir()) / f"krmfn-make-image-{os.getuid()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = leftovers(docker)
        built = subprocess.run([make, "-s", "image"], cwd=REPO, capture_output=True, text=True, timeout=1200)
        if built.returncode != 0:
            _unavailable(f"`make image` failed:\n{_tail(built.stdout + built.stderr)}")
        assert built.stdout.strip().splitlines()[-1] == IMAGE, built.stdout
        assert leftovers(docker) <= before, "make image left the builder stage's image behind"
    return IMAGE


def example_image(image: str, which: str) -> str:
    """``make gc-image`` or ``make argocd-image``, as the examples' docs say: built on ``image``
    with no network, the binaries from .ci/layer.sh. Returns the tag it prints."""
    make = shutil.which("make")
    assert make is not None  # the image fixture has checked
    with open(Path(tempfile.gettempdir()) / f"krmfn-make-image-{os.getuid()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = subprocess.run([make, "-s", f"{which}-image"], cwd=REPO, capture_output=True, text=True, timeout=1200)
    if built.returncode != 0:
        _unavailable(f"`make {which}-image` failed:\n{_tail(built.stdout + built.stderr)}")
    return built.stdout.strip().splitlines()[-1]
